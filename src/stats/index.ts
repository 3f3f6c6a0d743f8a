/**
 * Column statistics: computed by typed-array kernels while writers encode (compute.ts),
 * rolled up from zones to groups to tables (merge.ts), stored exactly as JSON (json.ts).
 * src/stats imports only src/types (and the snapshot JSON shapes); src/pax builds on it.
 */
export type { ColumnStats } from './types.js';
export { computeStats, emptyStats, countSet } from './compute.js';
export { mergeStats } from './merge.js';
export { statsToJson, statsFromJson } from './json.js';
export { STAT_PREFIX_BYTES, incrementLastCodePoint } from './bounds.js';
export { addDecimalText } from '../types/index.js';

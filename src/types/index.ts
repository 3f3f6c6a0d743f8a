/**
 * The public surface of src/types: the PostgreSQL types paxd stores, their in-memory columns,
 * text input/output, type names, units of settings. Other layers import from here.
 */
export * from './errors.js';
export * from './type.js';
export * from './column.js';
export { ColumnBuilder, columnOf, getValue } from './builder.js';
export { parseText, formatText, formatFloat4, formatFloat8, formatDate, formatTimestamp, formatDecimal, parseDecimal, parseNumeric, date2j, j2date, UNIX_EPOCH_JD } from './text-io.js';
export { parseTypeName, parseColumns, type ColumnDef } from './parse-type.js';
export * from './units.js';
// ./arrow.js (the Arrow mapping) is imported from its file: it loads apache-arrow, which most
// users of this barrel (`paxd sql`, the engine) never need.

/**
 * The public surface of src/export: Parquet export of a table's pinned snapshot (README.md "Export to Parquet"),
 * and the tiny `--where` syntax of `paxd export`.
 */
export { exportTable, arrowSchema, DEFAULT_MIN_GROUP_ROWS } from './parquet.js';
export type { ExportOptions, ExportProgress, ExportSummary, ExportedFile } from './parquet.js';
export { EXPORT_CODECS, type ExportCodec } from './wasm.js';
export { parseWhere } from './where.js';

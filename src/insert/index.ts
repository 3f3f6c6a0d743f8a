/**
 * src/insert: the sink contract. A TableSink buffers batches into row groups (by rows and by a
 * byte budget across all columns) and commits one snapshot. The input readers (CSV, NDJSON,
 * Parquet, Arrow IPC, schema inference) load apache-arrow: they are ./readers.ts, imported
 * only where input files are read.
 */
export { TableSink, DEFAULT_FILE_BYTES, type SinkOptions, type CommitResult } from './sink.js';

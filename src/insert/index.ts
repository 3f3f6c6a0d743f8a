/**
 * src/insert: the sink contract. A TableSink buffers batches into row groups (by rows and by a
 * byte budget across all columns) and commits one snapshot. The input readers (CSV, NDJSON,
 * Parquet, Arrow IPC, schema inference) load apache-arrow: they are ./readers.ts, imported
 * only where input files are read; the CSV reader alone (no apache-arrow) is here too, for
 * COPY FROM STDIN's load (src/table/copy-from.ts).
 */
export { readCsv, type CsvOptions, type CsvReader, type CsvRowError } from './csv/index.js';
export { TableSink, DEFAULT_FILE_BYTES, type SinkOptions, type CommitResult } from './sink.js';

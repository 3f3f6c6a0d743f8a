/**
 * CSV input with PostgreSQL COPY's CSV semantics (issue 3): see ./reader.ts.
 */
export { readCsv, type CsvReader } from './reader.js';
export { resolveCsvOptions, DEFAULT_BATCH_ROWS, type CsvOptions, type CsvReject, type ResolvedCsvOptions } from './options.js';

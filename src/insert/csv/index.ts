/**
 * CSV input with PostgreSQL COPY's CSV semantics (PostgreSQL 15 COPY: https://www.postgresql.org/docs/15/sql-copy.html): see ./reader.ts.
 */
export { readCsv, type CsvReader } from './reader.js';
export { resolveCsvOptions, DEFAULT_BATCH_ROWS, type CsvOptions, type CsvReject, type CsvRowError, type ResolvedCsvOptions } from './options.js';

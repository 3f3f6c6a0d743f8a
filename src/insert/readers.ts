/**
 * src/insert's input readers: CSV (./csv/), NDJSON, Parquet and Arrow IPC into batches of a
 * table's types, with rejects; schema inference from a sample. A second entry point of the
 * layer beside ./index.ts because it loads apache-arrow, which writers and queries never need.
 */
export { readArrow } from './arrow-input.js';
// The NDJSON and Parquet readers register themselves with ./formats.ts when loaded (formats.ts
// cannot import them: they import it), so this entry point loads them and openFormat knows
// every format. No other code runs here.
export { readNdjson, type NdjsonOptions } from './ndjson.js';
export { readParquetInput } from './parquet-input.js';
export type { CsvOptions } from './csv/index.js';
export { openInput } from './input.js';
export { formatOf, openFormat, type Format, type Reject } from './formats.js';
export { inferSchema } from './infer.js';
export { RejectsFile } from './rejects.js';

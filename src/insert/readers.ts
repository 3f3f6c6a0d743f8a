/**
 * src/insert's input readers: CSV (./csv/), NDJSON, Parquet and Arrow IPC into batches of a
 * table's types, with rejects; schema inference from a sample. A second entry point of the
 * layer beside ./index.ts because it reads files, which writers and queries never need.
 *
 * Importing it registers every format with ./formats.ts (formats.ts cannot import the readers:
 * they import it). Parquet and Arrow are registered as openers that import their reader, and
 * with it apache-arrow and parquet-wasm, only when a load of that format starts: a CSV ingest
 * never loads them (test/cli/startup.test.ts checks it).
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { Batch, Field } from '../types/index.js';
import { PaxdError, SQLSTATE } from '../types/index.js';
import type * as ArrowInput from './arrow-input.js';
import { type FormatReader, registerFormat } from './formats.js';
import './ndjson.js';

export { readNdjson, type NdjsonOptions } from './ndjson.js';
export type { CsvOptions } from './csv/index.js';
export { openInput, streamInput, type Input } from './input.js';
export { formatOf, openFormat, type Format, type Reject } from './formats.js';
export { inferSchema } from './infer.js';
export { RejectsFile } from './rejects.js';
export { openFormatInThread } from './parse-thread.js';

/** ./arrow-input.ts readArrow, loading apache-arrow when first iterated. */
export async function* readArrow(...args: Parameters<typeof ArrowInput.readArrow>): AsyncGenerator<Batch> {
  yield* (await import('./arrow-input.js')).readArrow(...args);
}

registerFormat('parquet', (input, fields, opts) => {
  let reader: FormatReader | null = null;
  return {
    get rowsRead() {
      return reader?.rowsRead ?? 0;
    },
    get rowsRejected() {
      return reader?.rowsRejected ?? 0;
    },
    async *[Symbol.asyncIterator]() {
      reader = (await import('./parquet-input.js')).readParquetInput(input, fields, opts);
      yield* reader;
    },
  };
});

registerFormat('arrow', (input, fields: readonly Field[], opts) => {
  let rows = 0;
  return {
    get rowsRead() {
      return rows;
    },
    rowsRejected: 0,
    async *[Symbol.asyncIterator]() {
      // A regular file is read by position (exact message bodies, no re-assembly of stream
      // chunks: measured 1.8 s of copying for lineitem SF 1 through the stream path).
      for await (const b of readArrow(input.path !== null ? openHandle(input.path, input.name) : input.stream, fields, input.name, opts.table)) {
        rows += b.length;
        yield b;
      }
    },
  };
});

async function openHandle(path: string, name: string): Promise<FileHandle> {
  try {
    return await open(path, 'r');
  } catch (e) {
    throw new PaxdError('io', SQLSTATE.io_error, `could not open file "${name}" for reading: ${(e as Error).message}`, { file: name, cause: e });
  }
}


/** Shared helpers of the CSV tests: run readCsv over bytes cut into chunks, rows as text. */
import { readCsv } from '../../src/insert/csv/index.js';
import type { CsvOptions, CsvReject } from '../../src/insert/csv/index.js';
import { getValue } from '../../src/types/builder.js';
import { formatText } from '../../src/types/text-io.js';
import type { Field, PgType } from '../../src/types/type.js';

export function field(name: string, type: PgType, notNull = false, extra: Partial<Field> = {}): Field {
  return { name, type, notNull, fieldId: 0, ...extra };
}

export interface ReadResult {
  rows: (string | null)[][];
  rejects: Omit<CsvReject, 'raw'>[];
  raws: string[];
  read: number;
  loaded: number;
  rejected: number;
  batches: number;
}

/** Chunk boundaries: one cut at `cut`, or every `size` bytes. */
export type Chunking = { cut: number } | { size: number } | null;

async function* chunksOf(bytes: Uint8Array, chunking: Chunking): AsyncGenerator<Uint8Array> {
  if (chunking === null) {
    yield bytes;
  } else if ('cut' in chunking) {
    yield bytes.slice(0, chunking.cut);
    yield bytes.slice(chunking.cut);
  } else {
    for (let i = 0; i < bytes.length; i += chunking.size) yield bytes.slice(i, i + chunking.size);
  }
}

/** Reads `input` and returns rows (values in PostgreSQL's text output, NULL as null). */
export async function readAll(input: string | Uint8Array, fields: readonly Field[], opts: CsvOptions = {}, chunking: Chunking = null, fileName = 'data.csv'): Promise<ReadResult> {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  const rejects: Omit<CsvReject, 'raw'>[] = [];
  const raws: string[] = [];
  const reader = readCsv(chunksOf(bytes, chunking), fields, {
    ...opts,
    onReject: (r) => {
      const { raw, ...rest } = r;
      rejects.push(rest);
      raws.push(Buffer.from(raw).toString('latin1'));
    },
  }, fileName);
  const rows: (string | null)[][] = [];
  let batches = 0;
  for await (const b of reader) {
    batches++;
    for (let i = 0; i < b.length; i++) {
      rows.push(b.columns.map((c) => {
        const v = getValue(c, i);
        return v === null ? null : formatText(c.type, v);
      }));
    }
  }
  return { rows, rejects, raws, read: reader.rowsRead, loaded: reader.rowsLoaded, rejected: reader.rowsRejected, batches };
}

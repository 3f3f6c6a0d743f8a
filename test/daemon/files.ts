/**
 * Input files for the daemon tests and the inbox benchmark: random rows of
 * `(id int8 not null, name text, v int8)` in every inbox format, good or deliberately bad,
 * with the row count and sum of `v` a good file adds to its table.
 *
 *   const f = makeInboxFile(rng, 7, { rows: 100, format: 'csv.gz', bad: false });
 *   writeFileSync(join(dir, f.name), f.bytes);   // f.rows === 100, f.sum === Σ v
 */
import { gzipSync } from 'node:zlib';
import { compress } from 'zstd-napi';
import { Int64, Table as ArrowTable, Utf8, tableToIPC, vectorFromArray } from 'apache-arrow';
import { Table as WasmTable, writeParquet } from 'parquet-wasm';
import type { Rng } from '../support/random.js';

export const INBOX_COLUMNS = 'id int8 not null, name text, v int8';
export const INBOX_FORMATS = ['csv', 'ndjson', 'csv.gz', 'ndjson.zst', 'arrows', 'parquet'] as const;
export type InboxFormat = (typeof INBOX_FORMATS)[number];

export interface InboxFile {
  name: string;
  bytes: Uint8Array;
  /** Rows and Σ v a good file adds; 0 for a bad one. */
  rows: number;
  sum: bigint;
  bad: boolean;
}

export function makeInboxFile(rng: Rng, seq: number, o: { rows: number; format: InboxFormat; bad: boolean }): InboxFile {
  const ids: bigint[] = [];
  const names: string[] = [];
  const vs: bigint[] = [];
  let sum = 0n;
  for (let i = 0; i < o.rows; i++) {
    ids.push(BigInt(seq) * 1_000_000n + BigInt(i));
    names.push(`n${rng.int(0, 1000)}, "q"`);
    const v = BigInt(rng.int(-100_000, 100_000));
    vs.push(v);
    sum += v;
  }
  const badRow = o.bad ? rng.int(0, o.rows - 1) : -1;
  const name = `f${String(seq).padStart(5, '0')}.${o.format}`;
  let bytes: Uint8Array;
  switch (o.format) {
    case 'csv':
    case 'csv.gz': {
      const lines = ['id,name,v'];
      for (let i = 0; i < o.rows; i++) lines.push(`${ids[i]},"${names[i]!.replace(/"/g, '""')}",${i === badRow ? '12x' : vs[i]}`);
      bytes = Buffer.from(lines.join('\n') + '\n');
      if (o.format === 'csv.gz') bytes = gzipSync(bytes);
      break;
    }
    case 'ndjson':
    case 'ndjson.zst': {
      const lines: string[] = [];
      for (let i = 0; i < o.rows; i++) lines.push(`{"id":${ids[i]},"name":${JSON.stringify(names[i])},"v":${i === badRow ? '"oops"' : vs[i]}}`);
      bytes = Buffer.from(lines.join('\n') + '\n');
      if (o.format === 'ndjson.zst') bytes = compress(bytes);
      break;
    }
    case 'arrows':
    case 'parquet': {
      const t = new ArrowTable({
        id: vectorFromArray(ids, new Int64()),
        name: vectorFromArray(names, new Utf8()),
        v: vectorFromArray(vs, new Int64()),
      });
      const ipc = tableToIPC(t, 'stream');
      bytes = o.format === 'arrows' ? ipc : writeParquet(WasmTable.fromIPCStream(ipc));
      // A bad binary file is a truncated one.
      if (o.bad) bytes = bytes.subarray(0, Math.max(8, Math.floor(bytes.byteLength * 0.6)));
      break;
    }
  }
  return { name, bytes, rows: o.bad ? 0 : o.rows, sum: o.bad ? 0n : sum, bad: o.bad };
}

/**
 * The lineitem table of ./lineitem.ts as an Arrow IPC stream file (bench/data/lineitem-sf<N>.arrows),
 * for the Arrow ingest figure of README.md "Ingest". Each generated batch becomes one record batch, its
 * columns wrapped without copying by columnToArrow (src/types/arrow.ts); the stream goes through
 * apache-arrow's RecordBatchStreamWriter as a Node transform, so backpressure bounds memory
 * to a few batches whatever the scale factor. Cached like the CSV (a .json sidecar with the row
 * count; written under a temporary name and renamed when complete).
 */
import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Field, RecordBatch, RecordBatchStreamWriter, Schema, Struct, makeData } from 'apache-arrow';
import type { Batch } from '../src/types/column.js';
import { arrowType, columnToArrow } from '../src/types/arrow.js';
import { generateLineitem, LINEITEM_COLUMNS } from './lineitem.js';
import { BENCH_DATA_DIR, type CsvFile } from './lineitem-csv.js';

const ARROW_VERSION = 1;

export function lineitemArrowPath(sf: number, dir = BENCH_DATA_DIR): string {
  return join(dir, `lineitem-sf${sf}.arrows`);
}

/** The lineitem Arrow IPC stream at scale factor `sf`, generated unless cached. */
export async function ensureLineitemArrow(sf: number, opts: { dir?: string; log?: (line: string) => void } = {}): Promise<CsvFile> {
  const dir = opts.dir ?? BENCH_DATA_DIR;
  const path = lineitemArrowPath(sf, dir);
  const meta = `${path}.json`;
  if (existsSync(path) && existsSync(meta)) {
    try {
      const m = JSON.parse(readFileSync(meta, 'utf8')) as { version: number; sf: number; rows: number; bytes: number };
      if (m.version === ARROW_VERSION && m.sf === sf && statSync(path).size === m.bytes) return { path, rows: m.rows, bytes: m.bytes, generated: false, seconds: 0 };
    } catch {
      // an unreadable sidecar: regenerate
    }
  }
  mkdirSync(dir, { recursive: true });
  opts.log?.(`generating ${path} (lineitem SF ${sf}, Arrow IPC stream) …`);
  const t0 = performance.now();
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    let rows = 0;
    const batches = function* (): Generator<RecordBatch> {
      for (const b of generateLineitem(sf)) {
        rows += b.length;
        yield toRecordBatch(b);
      }
    };
    await pipeline(Readable.from(batches()), RecordBatchStreamWriter.throughNode(), createWriteStream(tmp));
    renameSync(tmp, path);
    const bytes = statSync(path).size;
    writeFileSync(meta, JSON.stringify({ version: ARROW_VERSION, sf, rows, bytes }) + '\n');
    return { path, rows, bytes, generated: true, seconds: (performance.now() - t0) / 1000 };
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

export function removeLineitemArrow(sf: number, dir = BENCH_DATA_DIR): void {
  const path = lineitemArrowPath(sf, dir);
  rmSync(path, { force: true });
  rmSync(`${path}.json`, { force: true });
}

let schema: Schema | null = null;

/** A paxd batch (no selection) as an Arrow RecordBatch of lineitem's schema, sharing buffers. */
function toRecordBatch(b: Batch): RecordBatch {
  schema ??= new Schema(LINEITEM_COLUMNS.map((c, i) => new Field(c.name, arrowType(b.columns[i]!.type), !c.notNull)));
  const children = b.columns.map((c) => columnToArrow(c));
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: b.length, nullCount: 0, children }));
}

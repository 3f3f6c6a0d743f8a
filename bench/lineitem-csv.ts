/**
 * The lineitem table of ./lineitem.ts as a CSV file, for the ingest benches (PostgreSQL 15 COPY: https://www.postgresql.org/docs/15/sql-copy.html): no
 * header, comma-separated, in the text forms PostgreSQL's COPY … (FORMAT csv) reads and
 * DuckDB's read_csv parses with an explicit schema:
 *
 *   1,15519,785,1,17.00,2423417.00,0.04,0.02,N,O,1996-03-13,1996-02-12,1996-03-22,DELIVER IN PERSON,TRUCK,furiously slyly ideas
 *
 * numeric(p,s) with exactly s decimals, dates as ISO YYYY-MM-DD, bpchar without its trailing
 * pad (as dbgen writes it; PostgreSQL pads on input, and `padBpchar` writes it padded), NULL
 * as an empty unquoted field, the empty string as "" and fields holding , " CR or LF quoted.
 *
 * Rows are formatted from the generator's typed arrays straight into a byte buffer (no string
 * per value; formatText only for types this writer has no fast path for) and written in 4 MiB
 * pieces, so memory stays bounded whatever the scale factor. Files are cached under bench/data/
 * (gitignored) keyed by scale factor, with a sidecar .json holding the row count: a rerun with
 * the same SF reuses them. A file is written under a temporary name and renamed when complete,
 * so an interrupted run never leaves a truncated file in the cache.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Batch, Column } from '../src/types/column.js';
import { getValue } from '../src/types/builder.js';
import { formatText } from '../src/types/text-io.js';
import { generateLineitem } from './lineitem.js';

/** bench/data/: generated inputs, gitignored. */
export const BENCH_DATA_DIR = fileURLToPath(new URL('./data/', import.meta.url));

/** Bumped when the bytes written for a given SF change, so stale cached files are regenerated. */
const CSV_VERSION = 1;

const COMMA = 0x2c;
const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const ZERO = 0x30;
const MINUS = 0x2d;
const DOT = 0x2e;

const BUF_BYTES = 4 << 20;
/** Room kept free for one more field before the buffer is flushed (longer fields flush first). */
const FIELD_SLACK = 256;

export interface CsvFile {
  path: string;
  rows: number;
  bytes: number;
  /** False when the file came from the cache. */
  generated: boolean;
  /** Generation time, 0 when cached. */
  seconds: number;
}

export interface CsvWriteOptions {
  /** Write bpchar values with their trailing pad (PostgreSQL's COPY TO form); default false. */
  padBpchar?: boolean;
}

/** The cached path of lineitem at `sf`: bench/data/lineitem-sf<sf>.csv. */
export function lineitemCsvPath(sf: number, dir = BENCH_DATA_DIR): string {
  return join(dir, `lineitem-sf${sf}.csv`);
}

/**
 * The lineitem CSV at scale factor `sf`, generated unless a complete cached copy exists.
 *
 *   const f = await ensureLineitemCsv(1);  // { path: '…/bench/data/lineitem-sf1.csv', rows: 5999…, bytes: 7…e8, … }
 */
export async function ensureLineitemCsv(sf: number, opts: { dir?: string; log?: (line: string) => void } = {}): Promise<CsvFile> {
  const dir = opts.dir ?? BENCH_DATA_DIR;
  const path = lineitemCsvPath(sf, dir);
  const meta = `${path}.json`;
  if (existsSync(path) && existsSync(meta)) {
    try {
      const m = JSON.parse(readFileSync(meta, 'utf8')) as { version: number; sf: number; rows: number; bytes: number };
      if (m.version === CSV_VERSION && m.sf === sf && statSync(path).size === m.bytes) return { path, rows: m.rows, bytes: m.bytes, generated: false, seconds: 0 };
    } catch {
      // an unreadable sidecar: regenerate
    }
  }
  mkdirSync(dir, { recursive: true });
  opts.log?.(`generating ${path} (lineitem SF ${sf}) …`);
  const t0 = performance.now();
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    const { rows, bytes } = writeBatchesCsv(generateLineitem(sf), tmp);
    renameSync(tmp, path);
    writeFileSync(meta, JSON.stringify({ version: CSV_VERSION, sf, rows, bytes }) + '\n');
    return { path, rows, bytes, generated: true, seconds: (performance.now() - t0) / 1000 };
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** Deletes a cached lineitem CSV and its sidecar. */
export function removeLineitemCsv(sf: number, dir = BENCH_DATA_DIR): void {
  const path = lineitemCsvPath(sf, dir);
  rmSync(path, { force: true });
  rmSync(`${path}.json`, { force: true });
}

/** Writes `batches` to `path` as CSV (truncating it); returns rows and bytes written. */
export function writeBatchesCsv(batches: Iterable<Batch>, path: string, options: CsvWriteOptions = {}): { rows: number; bytes: number } {
  const fd = openSync(path, 'w');
  try {
    const w = new CsvWriter((buf, len) => {
      let off = 0;
      while (off < len) off += writeSync(fd, buf, off, len - off);
    }, options);
    let rows = 0;
    for (const b of batches) {
      w.writeBatch(b);
      rows += b.selection?.length ?? b.length;
    }
    w.flush();
    return { rows, bytes: w.bytes };
  } finally {
    closeSync(fd);
  }
}

type FieldWriter = (i: number) => void;

/** Dates from 1970-01-01 on (through 2059) are copied from a table of their 10 bytes. */
const DATE_TABLE_DAYS = 1 << 15;
let dates: Uint8Array | null = null;

function dateTable(): Uint8Array {
  if (dates !== null) return dates;
  const t = new Uint8Array(DATE_TABLE_DAYS * 10);
  const w = new CsvWriter(() => {});
  const probe: Column = { type: { id: 'date' }, length: 0, nullCount: 0, validity: null, values: new Int32Array(0), offsets: null, data: null };
  for (let d = 0; d < DATE_TABLE_DAYS; d++) {
    w.writeDateForTable(d, probe);
    t.set(w.takeBytes(), d * 10);
  }
  dates = t;
  return t;
}

/** Formats batches as CSV rows into a reusable buffer, handing full buffers to `sink`. */
export class CsvWriter {
  private buf = Buffer.allocUnsafe(BUF_BYTES);
  private pos = 0;
  bytes = 0;
  private readonly padBpchar: boolean;
  private readonly digits = new Uint8Array(24);

  constructor(
    private readonly sink: (buf: Buffer, len: number) => void,
    options: CsvWriteOptions = {},
  ) {
    this.padBpchar = options.padBpchar ?? false;
  }

  writeBatch(b: Batch): void {
    const writers = b.columns.map((c) => this.fieldWriter(c));
    const cols = b.columns;
    const ncol = cols.length;
    const n = b.selection?.length ?? b.length;
    for (let k = 0; k < n; k++) {
      const i = b.selection === null ? k : b.selection[k]!;
      for (let c = 0; c < ncol; c++) {
        if (this.pos > BUF_BYTES - FIELD_SLACK) this.flush();
        if (c > 0) this.buf[this.pos++] = COMMA;
        const validity = cols[c]!.validity;
        // NULL: an empty unquoted field
        if (validity !== null && (validity[i >>> 3]! & (1 << (i & 7))) === 0) continue;
        writers[c]!(i);
      }
      this.buf[this.pos++] = LF;
    }
  }

  flush(): void {
    if (this.pos === 0) return;
    this.sink(this.buf, this.pos);
    this.bytes += this.pos;
    this.pos = 0;
  }

  /** A function writing row i of `c`, over views made once per column. */
  private fieldWriter(c: Column): FieldWriter {
    const t = c.type;
    switch (t.id) {
      case 'int2':
      case 'int4': {
        const v = c.values as Int16Array | Int32Array;
        return (i) => this.putInt(v[i]!);
      }
      case 'date': {
        const v = c.values as Int32Array;
        const dates = dateTable();
        return (i) => {
          const d = v[i]!;
          if (d < 0 || d >= DATE_TABLE_DAYS) return this.putDate(d, c, i);
          // a copy of the 10 bytes precomputed for that day
          const p = this.pos;
          const buf = this.buf;
          const o = d * 10;
          for (let k = 0; k < 10; k++) buf[p + k] = dates[o + k]!;
          this.pos = p + 10;
        };
      }
      case 'int8': {
        const v = c.values as BigInt64Array;
        // Two 32-bit words per value: no BigInt unless the value is beyond 2^53.
        const w = new Int32Array(v.buffer, v.byteOffset, v.length * 2);
        return (i) => {
          const lo = w[2 * i]!;
          const hi = w[2 * i + 1]!;
          if (hi >= -0x200000 && hi < 0x200000) this.putInt(hi * 4294967296 + (lo >>> 0));
          else this.putAscii(v[i]!.toString());
        };
      }
      case 'numeric': {
        if (t.precision === undefined || t.precision > 38) return (i) => this.putText(c, i);
        const bytes = c.values as Uint8Array;
        const scale = t.scale ?? 0;
        // decimal128, little-endian: four 32-bit words per value.
        const w = (bytes.byteOffset & 3) === 0 ? new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2) : new Int32Array(bytes.slice().buffer);
        return (i) => {
          const lo = w[4 * i]!;
          const mid = w[4 * i + 1]!;
          const h1 = w[4 * i + 2]!;
          const h2 = w[4 * i + 3]!;
          // Safe-integer fast path: the high 96 bits are a sign extension of a 53-bit value.
          if (mid >= 0 && mid < 0x200000 && h1 === 0 && h2 === 0) this.putDecimal(mid * 4294967296 + (lo >>> 0), scale);
          else if (mid < 0 && mid >= -0x200000 && h1 === -1 && h2 === -1) this.putDecimal(mid * 4294967296 + (lo >>> 0), scale);
          else this.putText(c, i);
        };
      }
      case 'text':
      case 'varchar':
      case 'jsonb': {
        const data = c.data!;
        const off = c.offsets!;
        return (i) => this.putString(data, off[i]!, off[i + 1]!);
      }
      case 'bpchar': {
        const data = c.data!;
        const off = c.offsets!;
        const pad = this.padBpchar;
        return (i) => {
          const s = off[i]!;
          let e = off[i + 1]!;
          if (!pad) while (e > s && data[e - 1] === SPACE) e--;
          this.putString(data, s, e);
        };
      }
      default:
        return (i) => this.putText(c, i);
    }
  }

  /** An integer |v| < 2^53, without a string. */
  private putInt(v: number): void {
    const buf = this.buf;
    if (v < 0) {
      buf[this.pos++] = MINUS;
      v = -v;
    }
    const d = this.digits;
    let n = 0;
    do {
      const q = Math.floor(v / 10);
      d[n++] = ZERO + v - q * 10;
      v = q;
    } while (v > 0);
    while (n > 0) buf[this.pos++] = d[--n]!;
  }

  /** A scaled integer (|units| < 2^53) with `scale` decimals: 1700, 2 -> 17.00. */
  private putDecimal(units: number, scale: number): void {
    if (units < 0) {
      this.buf[this.pos++] = MINUS;
      units = -units;
    }
    if (scale === 0) return this.putInt(units);
    const p = 10 ** scale;
    let ip = Math.floor(units / p);
    let frac = units - ip * p;
    if (frac < 0) {
      // units / p rounded up to the next integer
      ip--;
      frac += p;
    }
    this.putInt(ip);
    this.buf[this.pos++] = DOT;
    const end = this.pos + scale;
    for (let k = end - 1; k >= this.pos; k--) {
      const q = Math.floor(frac / 10);
      this.buf[k] = ZERO + frac - q * 10;
      frac = q;
    }
    this.pos = end;
  }

  /** For dateTable(): formats one date and returns its bytes. */
  writeDateForTable(days: number, col: Column): void {
    this.pos = 0;
    this.putDate(days, col, 0);
  }

  takeBytes(): Uint8Array {
    const out = this.buf.subarray(0, this.pos);
    this.pos = 0;
    return out;
  }

  /** Days since 1970-01-01 as YYYY-MM-DD (civil_from_days, Hinnant); formatText outside 0001–9999. */
  private putDate(days: number, col: Column, i: number): void {
    const z = days + 719468;
    const era = Math.floor(z / 146097);
    const doe = z - era * 146097;
    const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
    const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
    const mp = Math.floor((5 * doy + 2) / 153);
    const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
    const m = mp < 10 ? mp + 3 : mp - 9;
    const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
    if (y < 1 || y > 9999) return this.putText(col, i);
    const b = this.buf;
    let p = this.pos;
    b[p++] = ZERO + Math.floor(y / 1000);
    b[p++] = ZERO + (Math.floor(y / 100) % 10);
    b[p++] = ZERO + (Math.floor(y / 10) % 10);
    b[p++] = ZERO + (y % 10);
    b[p++] = MINUS;
    b[p++] = ZERO + Math.floor(m / 10);
    b[p++] = ZERO + (m % 10);
    b[p++] = MINUS;
    b[p++] = ZERO + Math.floor(d / 10);
    b[p++] = ZERO + (d % 10);
    this.pos = p;
  }

  /** Bytes [s, e) of `data` as one field, quoted when needed (empty, or holding , " CR LF). */
  private putString(data: Uint8Array, s: number, e: number): void {
    let quote = e === s;
    for (let k = s; k < e && !quote; k++) {
      const ch = data[k]!;
      quote = ch === COMMA || ch === QUOTE || ch === LF || ch === CR;
    }
    // A quoted field can double in size: make room for the worst case.
    const need = quote ? 2 * (e - s) + 2 : e - s;
    if (this.pos + need > BUF_BYTES) {
      this.flush();
      if (need > BUF_BYTES) this.buf = Buffer.allocUnsafe(need + FIELD_SLACK);
    }
    if (!quote) {
      // short fields: a loop beats set(subarray()), which allocates a view per field
      if (e - s <= 64) {
        const b = this.buf;
        let p = this.pos;
        for (let k = s; k < e; k++) b[p++] = data[k]!;
        this.pos = p;
      } else {
        this.buf.set(data.subarray(s, e), this.pos);
        this.pos += e - s;
      }
      return;
    }
    const b = this.buf;
    b[this.pos++] = QUOTE;
    for (let k = s; k < e; k++) {
      const ch = data[k]!;
      if (ch === QUOTE) b[this.pos++] = QUOTE;
      b[this.pos++] = ch;
    }
    b[this.pos++] = QUOTE;
  }

  /** A value through formatText (types without a fast path), quoted when needed. */
  private putText(col: Column, i: number): void {
    const bytes = Buffer.from(formatText(col.type, getValue(col, i)), 'utf8');
    this.putString(bytes, 0, bytes.length);
  }

  private putAscii(s: string): void {
    for (let k = 0; k < s.length; k++) this.buf[this.pos++] = s.charCodeAt(k);
  }
}

/**
 * Parquet input (README.md "Usage"), registered as format 'parquet' by ./readers.ts, read with parquet-wasm.
 *
 * Parquet keeps its metadata in a footer at the END of the file and needs random access, so
 * a regular file is opened as a file-backed Blob (`fs.openAsBlob`: bytes are read on demand)
 * and read ONE ROW GROUP AT A TIME (parquet-wasm → Arrow IPC → apache-arrow RecordBatches →
 * columnFromArrow), which bounds memory by the largest row group. Standard input and
 * compressed files (`.parquet.gz`) have no random access: they are buffered whole in memory
 * first (documented limit). The decoding runs in a worker thread (see ParquetSource).
 *
 * Columns are matched by name (exactly, then case-insensitively); table columns the file lacks
 * get their default (else NULL); file columns the table lacks are an error (42703). Types
 * convert where no information is lost (checked against the schema before any row is read;
 * otherwise 42804 naming the column and both types):
 *
 *   Parquet / Arrow                          table column
 *   int8..int64, uint8..uint64               int2/int4/int8 (range-checked: 22003), numeric, float4/float8
 *   float32, float64                         float4, float8, numeric
 *   bool                                     bool
 *   decimal(p,s)                             numeric, numeric(p',s') (rounded to s' as PostgreSQL; 22003 if too wide)
 *   date32, date64                           date
 *   timestamp[s|ms|us|ns] with or without tz timestamp, timestamptz (ns rounded to µs, half to even, like
 *                                            PostgreSQL's rint() of fractional seconds)
 *   utf8, large_utf8 (and dictionaries)      any type, read as PostgreSQL text input (varchar(n): 22001)
 *   binary, large_binary, fixed_size_binary  bytea; fixed_size_binary(16) also uuid
 *   null                                     any type (all NULL)
 *
 * A bad value fails the load with `data.parquet:ROW:COL: message` where ROW is the 1-based row
 * number within the file (Parquet has no lines) and COL the column's 1-based position in the
 * table; in skip mode the row goes to onReject (without raw bytes) and the others load.
 * A truncated or corrupt file fails with 22P04 naming the file, never a crash or a hang.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { open as openFile } from 'node:fs/promises';
import { type Data, type DataType, type RecordBatch, Schema, Field as ArrowField, Timestamp, TimeUnit, Type, Utf8, tableFromIPC, makeData } from 'apache-arrow';
import { type Batch, type Column, type Value, ColumnBuilder, concatRanges, type ColumnRange, PaxdError, SQLSTATE, notNullViolation, parseText, type Field, type PgType, pgDisplayName } from '../types/index.js';
import { columnFromArrow } from '../types/arrow.js';
import type { FormatOptions, FormatReader } from './formats.js';
import type { Input } from './input.js';
import { matchColumnsByName } from './arrow-input.js';
import { TAIL_BYTES, asUtf8, footerLength, patchTextColumns, type TextPatch } from './parquet-footer.js';

/** Rows per record batch asked of parquet-wasm within a row group. */
const BATCH_ROWS = 65536;

const require = createRequire(import.meta.url);

export interface ParquetReader extends FormatReader {
  readonly rowsLoaded: number;
}

export function readParquetInput(input: Input, fields: readonly Field[], opts: Pick<FormatOptions, 'table' | 'onError' | 'onReject'>): ParquetReader {
  let rowsRead = 0;
  let rowsRejected = 0;
  const skip = opts.onError === 'skip';
  const file = input.name;
  async function* run(): AsyncGenerator<Batch> {
    const src = await ParquetSource.open(input);
    try {
      const mapping = mapColumns(src.schema, fields, file, opts.table);
      for (let g = 0; g < src.rowGroups; g++) {
        for (const rb of await src.readRowGroup(g)) {
          const first = rowsRead;
          rowsRead += rb.numRows;
          const out = toBatch(rb, src.textColumns, fields, mapping, file, opts.table, first, skip, (row, column, e) => {
            rowsRejected++;
            opts.onReject({ file, line: row, column, code: e.code, message: e.message });
          });
          if (out.length > 0) yield out;
        }
      }
    } finally {
      await src.close();
    }
  }
  const gen = run();
  return {
    get rowsRead() {
      return rowsRead;
    },
    get rowsLoaded() {
      return rowsRead - rowsRejected;
    },
    get rowsRejected() {
      return rowsRejected;
    },
    [Symbol.asyncIterator]: () => gen,
  };
}

// ---- the decoder, in a worker thread ----

/**
 * parquet-wasm runs in a worker thread of its own: some corrupt files make the Rust decoder
 * panic ("RuntimeError: unreachable") inside an async task, where no caller can catch it — in
 * the main thread that would crash paxd or leave the read hanging. In a worker the panic ends
 * the worker, which becomes a 22P04 naming the file. The worker is plain CommonJS (no build
 * step) and sends each row group back as an Arrow IPC stream, its buffer transferred, not
 * copied.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { openAsBlob } = require('node:fs');
const pw = require(workerData.parquetWasm);
let pf = null;
function send(msg, bytes) {
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  parentPort.postMessage(msg, own ? [bytes.buffer] : []);
}
parentPort.on('message', async (m) => {
  try {
    if (m.op === 'open') {
      const file = m.path !== null ? await openAsBlob(m.path) : new Blob([m.bytes]);
      // A patched footer (./parquet-footer.ts): the bytes before the old footer, then the new one.
      const blob = m.patch !== null ? new Blob([file.slice(0, m.patch.start), m.patch.tail]) : file;
      pf = await pw.ParquetFile.fromFile(blob);
      const ipc = pf.schema().intoIPCStream();
      send({ ok: true, rowGroups: pf.metadata().numRowGroups(), ipc }, ipc);
    } else {
      const t = await pf.read({ rowGroups: [m.group], batchSize: m.batchSize });
      const ipc = t.intoIPCStream();
      send({ ok: true, ipc }, ipc);
    }
  } catch (e) {
    parentPort.postMessage({ ok: false, message: e instanceof Error ? e.message : String(e) });
  }
});
`;

interface WorkerReply {
  ok: boolean;
  message?: string;
  rowGroups?: number;
  ipc?: Uint8Array;
}

/** An open Parquet file: its Arrow schema, its row groups read one at a time. */
export class ParquetSource {
  private pending: { resolve: (r: WorkerReply) => void; reject: (e: unknown) => void } | null = null;
  private failure: PaxdError | null = null;
  schema!: Schema;
  rowGroups = 0;
  /** Indexes of the file's columns read as binary and relabelled utf8 (./parquet-footer.ts). */
  textColumns: ReadonlySet<number> = new Set();

  private constructor(
    private readonly worker: Worker,
    readonly file: string,
  ) {
    worker.on('message', (r: WorkerReply) => {
      const p = this.pending;
      this.pending = null;
      if (r.ok) p?.resolve(r);
      else p?.reject(badParquet(file, new Error(r.message)));
    });
    const fail = (e: unknown) => {
      this.failure ??= badParquet(file, e instanceof Error ? new Error(`the Parquet decoder failed: ${e.message}`) : e);
      const p = this.pending;
      this.pending = null;
      p?.reject(this.failure);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`exited with code ${code}`)));
  }

  /** Opens a regular file by path (read on demand); anything else is buffered whole first. */
  static async open(input: Input): Promise<ParquetSource> {
    let bytes: Uint8Array | null = null;
    if (input.path !== null) await input.close();
    else {
      const chunks: Uint8Array[] = [];
      let total = 0;
      for await (const c of input.stream) {
        chunks.push(c);
        total += c.byteLength;
      }
      // A buffer of its own (never a pooled Buffer's), as it is transferred to the worker.
      bytes = new Uint8Array(total);
      let o = 0;
      for (const c of chunks) {
        bytes.set(c, o);
        o += c.byteLength;
      }
    }
    const patch = await textPatch(input.path, bytes);
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { parquetWasm: require.resolve('parquet-wasm') } });
    worker.unref();
    const src = new ParquetSource(worker, input.name);
    try {
      const r = await src.call({ op: 'open', path: input.path, bytes, patch }, bytes === null ? [] : [bytes.buffer as ArrayBuffer]);
      const schema = tableFromIPC(r.ipc).schema;
      const text = new Set<number>();
      src.schema = new Schema(
        schema.fields.map((f, i) => {
          if (patch === null || !patch.textColumns.has(f.name) || f.type.typeId !== Type.Binary) return f;
          text.add(i);
          return new ArrowField(f.name, new Utf8(), f.nullable, f.metadata);
        }),
        schema.metadata,
      );
      src.textColumns = text;
      src.rowGroups = r.rowGroups!;
    } catch (e) {
      await src.close();
      throw badParquet(input.name, e);
    }
    return src;
  }

  /** The record batches of row group g. */
  async readRowGroup(g: number): Promise<RecordBatch[]> {
    const r = await this.call({ op: 'read', group: g, batchSize: BATCH_ROWS });
    try {
      return tableFromIPC(r.ipc).batches;
    } catch (e) {
      throw badParquet(this.file, e);
    }
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private call(msg: object, transfer: ArrayBuffer[] = []): Promise<WorkerReply> {
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.worker.postMessage(msg, transfer);
    });
  }
}

/** The footer patch of a file (by path, or its bytes), or null: nothing to patch or not a Parquet tail. */
async function textPatch(path: string | null, bytes: Uint8Array | null): Promise<TextPatch | null> {
  if (bytes !== null) {
    if (bytes.length < 12) return null;
    const len = footerLength(bytes.subarray(bytes.length - TAIL_BYTES));
    if (len === null || len > bytes.length - 12) return null;
    return patchTextColumns(bytes.subarray(bytes.length - TAIL_BYTES - len, bytes.length - TAIL_BYTES), bytes.length);
  }
  const fh = await openFile(path!, 'r');
  try {
    const size = (await fh.stat()).size;
    if (size < 12) return null;
    const tail = new Uint8Array(TAIL_BYTES);
    await fh.read(tail, 0, TAIL_BYTES, size - TAIL_BYTES);
    const len = footerLength(tail);
    if (len === null || len > size - 12) return null;
    const footer = new Uint8Array(len);
    const { bytesRead } = await fh.read(footer, 0, len, size - TAIL_BYTES - len);
    return bytesRead === len ? patchTextColumns(footer, size) : null;
  } finally {
    await fh.close();
  }
}

function badParquet(file: string, e: unknown): PaxdError {
  if (e instanceof PaxdError) return e;
  const why = e instanceof Error ? e.message : String(e);
  return new PaxdError('invalid_input', SQLSTATE.bad_copy_file_format, `${file}: invalid or truncated Parquet file: ${why}`, { file, cause: e });
}

// ---- columns and types ----

/** For each table column, the index of the file's column, or -1. */
export function mapColumns(schema: Schema, fields: readonly Field[], file: string, table: string): number[] {
  const names = schema.fields.map((f) => f.name);
  const mapping = matchColumnsByName(names, fields, file, table);
  fields.forEach((f, c) => {
    const i = mapping[c]!;
    if (i >= 0 && !convertible(schema.fields[i]!.type, f.type))
      throw new PaxdError(
        'invalid_input',
        SQLSTATE.datatype_mismatch,
        `${file}: column "${f.name}" is of type ${pgDisplayName(f.type)} but the Parquet column "${names[i]}" is of type ${String(schema.fields[i]!.type)}`,
        { file, columnName: f.name, column: c + 1 },
      );
  });
  return mapping;
}

/** Whether values of Arrow type `t` load into `pg` without losing information (see the table above). */
export function convertible(t: DataType, pg: PgType): boolean {
  switch (t.typeId) {
    case Type.Null:
    case Type.Utf8:
    case Type.LargeUtf8:
      return true;
    case Type.Dictionary:
      return convertible((t as unknown as { dictionary: DataType }).dictionary, pg);
    case Type.Int:
      return ['int2', 'int4', 'int8', 'numeric', 'float4', 'float8'].includes(pg.id);
    case Type.Float:
      return ['float4', 'float8', 'numeric'].includes(pg.id);
    case Type.Bool:
      return pg.id === 'bool';
    case Type.Decimal:
      return pg.id === 'numeric';
    case Type.Date:
      return pg.id === 'date';
    case Type.Timestamp:
      return pg.id === 'timestamp' || pg.id === 'timestamptz';
    case Type.Binary:
    case Type.LargeBinary:
      return pg.id === 'bytea';
    case Type.FixedSizeBinary:
      return pg.id === 'bytea' || (pg.id === 'uuid' && (t as unknown as { byteWidth: number }).byteWidth === 16);
    default:
      return false;
  }
}

type OnBadRow = (row: number, column: number, e: PaxdError) => void;

/**
 * A paxd batch of the table's columns from one record batch. `first` is the number of file
 * rows before it. On a bad value: abort mode throws it located at its row and column; skip
 * mode finds every bad row (row by row, the slow path), reports each and loads the rest.
 */
function toBatch(rb: RecordBatch, text: ReadonlySet<number>, fields: readonly Field[], mapping: readonly number[], file: string, table: string, first: number, skip: boolean, onBad: OnBadRow): Batch {
  const n = rb.numRows;
  const datas: (Data | null)[] = fields.map((_, c) => {
    const i = mapping[c]!;
    if (i < 0) return null;
    const d = rb.getChildAt(i)!.data[0]!;
    return text.has(i) && d.type.typeId === Type.Binary ? asUtf8(d) : d;
  });
  try {
    const columns = fields.map((f, c) => {
      const col = convertColumn(f, datas[c]!, n);
      if (f.notNull && col.nullCount > 0) throw notNullViolation(f.name, table);
      return col;
    });
    return { length: n, columns, selection: null };
  } catch (e) {
    if (!(e instanceof PaxdError) || e.kind === 'internal') throw e;
  }
  // Slow path: locate the bad rows.
  const bad = new Uint8Array(n);
  let good = 0;
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < fields.length; c++) {
      const f = fields[c]!;
      const d = datas[c]!;
      let err: PaxdError | null = null;
      try {
        const col = convertColumn(f, d === null ? null : d.slice(r, 1), 1);
        if (f.notNull && col.nullCount > 0) err = notNullViolation(f.name, table);
      } catch (e) {
        if (!(e instanceof PaxdError) || e.kind === 'internal') throw e;
        err = e;
      }
      if (err !== null) {
        const row = first + r + 1;
        if (!skip) throw err.at({ file, line: row, column: c + 1, columnName: f.name, row });
        onBad(row, c + 1, err);
        bad[r] = 1;
        break;
      }
    }
    if (bad[r] === 0) good++;
  }
  // The good rows, converted run by run and joined.
  const columns = fields.map((f, c) => {
    const d = datas[c]!;
    const ranges: ColumnRange[] = [];
    for (let r = 0; r < n; ) {
      if (bad[r] === 1) {
        r++;
        continue;
      }
      let e = r;
      while (e < n && bad[e] === 0) e++;
      const col = convertColumn(f, d === null ? null : d.slice(r, e - r), e - r);
      ranges.push({ column: col, start: 0, length: col.length });
      r = e;
    }
    return concatRanges(f.type, ranges);
  });
  return { length: good, columns, selection: null };
}

/** One column: the file's data converted to the table column's type, or its default. */
function convertColumn(f: Field, d: Data | null, n: number): Column {
  if (d === null) {
    const b = new ColumnBuilder(f.type, n);
    const v: Value = f.default === undefined ? null : parseText(f.type, f.default);
    for (let r = 0; r < n; r++) b.append(v);
    return b.finish();
  }
  if (d.type.typeId === Type.Timestamp && (f.type.id === 'timestamp' || f.type.id === 'timestamptz')) return columnFromArrow(f.type, timestampsAsMicros(d, f.type.id === 'timestamptz'));
  if (d.type.typeId === Type.Null) {
    const b = new ColumnBuilder(f.type, n);
    for (let r = 0; r < n; r++) b.appendNull();
    return b.finish();
  }
  return columnFromArrow(f.type, d);
}

const UNIT_SCALE: Record<number, bigint> = { [TimeUnit.SECOND]: 1000000n, [TimeUnit.MILLISECOND]: 1000n, [TimeUnit.MICROSECOND]: 1n };
const I64_MAX = 2n ** 63n - 1n;

/**
 * Timestamps of any unit, with or without a time zone, as timestamp[us] data of the target
 * column's flavour. The stored number is kept: Parquet stores UTC instants when a zone is set
 * (read as UTC wall time into a timestamp column, UTC being paxd's session time zone) and wall
 * time otherwise. Nanoseconds round to microseconds half to even, as PostgreSQL's rint()
 * rounds fractional seconds.
 */
function timestampsAsMicros(d: Data, withTz: boolean): Data {
  const t = d.type as Timestamp;
  const src = d.values as BigInt64Array;
  const out = new BigInt64Array(d.length);
  if (t.unit === TimeUnit.NANOSECOND) {
    for (let i = 0; i < d.length; i++) {
      const v = src[i]!;
      let q = v / 1000n;
      let r = v % 1000n;
      if (r < 0n) {
        q -= 1n;
        r += 1000n;
      }
      if (r > 500n || (r === 500n && (q & 1n) === 1n)) q += 1n;
      out[i] = q;
    }
  } else {
    const k = UNIT_SCALE[t.unit]!;
    const limit = I64_MAX / k;
    for (let i = 0; i < d.length; i++) {
      const v = src[i]!;
      if ((v > limit || v < -limit) && isValidAt(d, i))
        throw new PaxdError('invalid_input', SQLSTATE.datetime_field_overflow, `timestamp out of range: ${String(v)} ${TimeUnit[t.unit].toLowerCase()}s since 1970-01-01`);
      out[i] = v * k;
    }
  }
  let bitmap: Uint8Array | undefined;
  if (d.nullCount > 0 && d.nullBitmap !== undefined && d.nullBitmap.length > 0) {
    bitmap = new Uint8Array((d.length + 7) >>> 3);
    for (let i = 0; i < d.length; i++) if (isValidAt(d, i)) bitmap[i >>> 3]! |= 1 << (i & 7);
  }
  const type = new Timestamp(TimeUnit.MICROSECOND, withTz ? 'UTC' : null);
  return (makeData as unknown as (p: Record<string, unknown>) => Data)({ type, length: d.length, nullCount: bitmap === undefined ? 0 : d.nullCount, nullBitmap: bitmap, offset: 0, data: out });
}

function isValidAt(d: Data, i: number): boolean {
  if (d.nullCount === 0 || d.nullBitmap === undefined || d.nullBitmap.length === 0) return true;
  const j = d.offset + i;
  return (d.nullBitmap[j >>> 3]! & (1 << (j & 7))) !== 0;
}


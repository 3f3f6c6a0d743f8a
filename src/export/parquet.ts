/**
 * Parquet export (README.md "Export to Parquet"): a table's pinned snapshot written as Parquet files that Spark,
 * DuckDB, pandas and Polars read.
 *
 *   const s = await exportTable(table, { to: './out', codec: 'zstd' });
 *   s  // { files: [{ path: 'out/0000000002-1f2e3d4c.parquet', rowGroups: 8, rows: 1000000, bytes: … }], rowGroups: 8, rows: 1000000, … }
 *
 * - One Parquet file per paxd data file (a PAX file, or an ao_column stripe), named after it
 *   (`data/0000000002-1f2e3d4c.pax` → `0000000002-1f2e3d4c.parquet`). Files left with no row
 *   (every row deleted, or filtered out by `where`) are not written.
 * - One Parquet row group per PAX row group. Groups with fewer live rows than `minGroupRows`
 *   (ao_column's 16K-row blocks, tails, groups thinned by deletes or `where`) are merged with
 *   the following groups of the same file until the merged group reaches `minGroupRows`.
 * - Deleted rows are left out (they leave the scan through its selection vectors).
 * - Types by DESIGN.md's mapping (src/types/arrow.ts arrowType), names kept, NOT NULL columns
 *   as non-nullable (REQUIRED) fields; uuid columns also carry Parquet's UUID logical type.
 * - Statistics per column chunk: min, max and null count, always.
 * - -infinity of date/timestamp/timestamptz is written as DuckDB's (see negativeInfinity).
 *
 * Memory is bounded by one row group: the scan hands over one group's batches, they are
 * copied into one contiguous Arrow record batch, parquet-wasm writes it as a one-row-group
 * Parquet file, and its chunk bytes are appended to the output at once (./stitch.ts).
 *
 * Each file is written under a temporary name in DIR (`.NAME.parquet.tmp-PID`), flushed and
 * renamed into place, so a reader of DIR never sees a half-written file; on failure the
 * temporary file is removed and files already renamed stay.
 */
import { mkdir, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Field as ArrowField, RecordBatch, Schema, Struct, Table as ArrowTable, makeData, tableToIPC } from 'apache-arrow';
import type { Table } from '../table/index.js';
import type { Predicate } from '../scan/index.js';
import { type FsFile, nodeFs, writeAll as writeAllAt } from '../storage/index.js';
import { type Column, type Field, PaxdError, SQLSTATE, columnBytes, ioError, unsupported, usage, concatRanges, type ColumnRange } from '../types/index.js';
import { arrowType, columnToArrow } from '../types/arrow.js';
import { ParquetStitcher, splitSingleGroup } from './stitch.js';
import { EXPORT_CODECS, type ExportCodec, parquetWasm, writerProperties } from './wasm.js';

/** Groups with fewer live rows than this are merged by default (ao_column blocks are 16,384 rows). */
export const DEFAULT_MIN_GROUP_ROWS = 65536;

export interface ExportOptions {
  /** Output folder, created if missing. */
  to: string;
  /** zstd by default. */
  codec?: ExportCodec;
  /** Only rows for which this is true are exported. */
  where?: Predicate;
  /** Row groups with fewer live rows are merged with the next ones of the file (default 65,536; 0: never). */
  minGroupRows?: number;
  /** Called after each row group and each file. */
  onProgress?: (p: ExportProgress) => void;
}

export interface ExportProgress {
  /** Data files of the snapshot, done so far (including skipped empty ones). */
  filesDone: number;
  filesTotal: number;
  rows: number;
  /** Rows of the snapshot (live), the scan's upper bound. */
  rowsTotal: number;
  bytes: number;
}

export interface ExportedFile {
  path: string;
  /** The paxd data file it came from. */
  source: string;
  rowGroups: number;
  rows: number;
  bytes: number;
}

export interface ExportSummary {
  files: ExportedFile[];
  rowGroups: number;
  rows: number;
  /** Parquet bytes written. */
  bytes: number;
  /** Arrow-layout bytes of the exported columns (what MB/s is measured on). */
  dataBytes: number;
  seconds: number;
  /** dataBytes / seconds, in 10^6 bytes per second. */
  mbPerSecond: number;
}

/** One output file in progress. */
interface OpenFile {
  source: string;
  final: string;
  temp: string;
  handle: FsFile;
  stitcher: ParquetStitcher;
  rows: number;
  bytes: number;
}

/**
 * Exports the table's pinned snapshot to Parquet files in `options.to`.
 * Fails with 22023 for a bad option, 0A000 for an s3:// destination (not yet), 58030 for I/O.
 */
export async function exportTable(table: Table, options: ExportOptions): Promise<ExportSummary> {
  const codec = options.codec ?? 'zstd';
  if (!EXPORT_CODECS.includes(codec)) throw usage(`unknown Parquet codec "${String(codec)}": use ${EXPORT_CODECS.join(', ')}`);
  const minGroupRows = options.minGroupRows ?? DEFAULT_MIN_GROUP_ROWS;
  if (!Number.isInteger(minGroupRows) || minGroupRows < 0) throw usage(`minimum row group rows must be a non-negative integer, got ${minGroupRows}`);
  if (/^s3:\/\//i.test(options.to)) throw unsupported('export to s3:// (export to a local folder)');
  const started = performance.now();
  const fields = table.fields;
  const snapshot = table.snapshot;
  const schema = arrowSchema(fields);
  const uuids = new Set(fields.filter((f) => f.type.id === 'uuid').map((f) => f.name));
  const pw = parquetWasm();
  try {
    await mkdir(options.to, { recursive: true });
  } catch (e) {
    throw ioError(`cannot create export folder ${options.to}: ${(e as Error).message}`, options.to, e);
  }

  const summary: ExportSummary = { files: [], rowGroups: 0, rows: 0, bytes: 0, dataBytes: 0, seconds: 0, mbPerSecond: 0 };
  const rowsTotal = table.rows;
  const progress = (filesDone: number) =>
    options.onProgress?.({ filesDone, filesTotal: snapshot.files.length, rows: summary.rows, rowsTotal, bytes: summary.bytes + (current?.bytes ?? 0) });

  let current: OpenFile | null = null;
  /** Per column, the row ranges of the pending row group. */
  let pending: ColumnRange[][] = fields.map(() => []);
  let pendingRows = 0;

  const writeGroup = async (): Promise<void> => {
    if (pendingRows === 0) return;
    const columns: Column[] = pending.map((ranges, i) => negativeInfinity(concatRanges(fields[i]!.type, ranges)));
    const n = pendingRows;
    pending = fields.map(() => []);
    pendingRows = 0;
    for (const c of columns) summary.dataBytes += columnBytes(c);
    const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children: columns.map(columnToArrow) }));
    const ipc = tableToIPC(new ArrowTable(schema, [batch]), 'stream');
    let bytes: Uint8Array;
    try {
      bytes = pw.writeParquet(pw.Table.fromIPCStream(ipc), writerProperties(pw, codec));
    } catch (e) {
      throw new PaxdError('internal', SQLSTATE.internal_error, `parquet-wasm failed to write a row group of ${n} rows for ${current!.final}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    const part = splitSingleGroup(bytes);
    const f = current!;
    f.stitcher.add(part);
    await writeAll(f, part.bytes);
    f.rows += n;
    summary.rows += n;
    summary.rowGroups++;
  };

  const closeFile = async (): Promise<void> => {
    const f = current;
    if (f === null) return;
    await writeGroup();
    current = null;
    const footer = f.stitcher.finish();
    if (footer === null) {
      await f.handle.close();
      await rm(f.temp, { force: true });
      return;
    }
    await writeAll(f, footer);
    try {
      await f.handle.sync();
      await f.handle.close();
      await rename(f.temp, f.final);
    } catch (e) {
      throw ioError(`cannot finish ${f.final}: ${(e as Error).message}`, f.final, e);
    }
    summary.files.push({ path: f.final, source: f.source, rowGroups: f.stitcher.rowGroups, rows: f.rows, bytes: f.bytes });
    summary.bytes += f.bytes;
  };

  const openFile = async (source: string): Promise<void> => {
    const name = `${basename(source).replace(/\.pax$/, '')}.parquet`;
    const final = join(options.to, name);
    const temp = join(options.to, `.${name}.tmp-${process.pid}`);
    let handle: FsFile;
    try {
      handle = await nodeFs.open(temp, 'replace');
    } catch (e) {
      throw ioError(`cannot create ${temp}: ${(e as Error).message}`, temp, e);
    }
    current = { source, final, temp, handle, stitcher: new ParquetStitcher(uuids), rows: 0, bytes: 0 };
    await writeAll(current, current.stitcher.head());
  };

  const scan = table.scan(options.where === undefined ? {} : { where: options.where });
  let file = -1;
  let group = -1;
  try {
    await scan.begin();
    for (let b = await scan.next(); b !== null; b = await scan.next()) {
      const pos = scan.position;
      if (pos.file !== file) {
        await closeFile();
        progress(pos.file);
        file = pos.file;
        group = pos.group;
        await openFile(snapshot.files[file]!.path);
      } else if (pos.group !== group) {
        group = pos.group;
        if (pendingRows >= minGroupRows) {
          await writeGroup();
          progress(file);
        }
      }
      addBatch(pending, b.columns, b.length, b.selection);
      pendingRows += b.selection === null ? b.length : b.selection.length;
    }
    await closeFile();
    progress(snapshot.files.length);
  } catch (e) {
    const f = current as OpenFile | null;
    if (f !== null) {
      await f.handle.close().catch(() => undefined);
      await rm(f.temp, { force: true }).catch(() => undefined);
    }
    throw e;
  } finally {
    await scan.end();
  }
  summary.seconds = (performance.now() - started) / 1000;
  summary.mbPerSecond = summary.seconds > 0 ? summary.dataBytes / 1e6 / summary.seconds : 0;
  return summary;
}

/** The Arrow schema of the export: DESIGN.md's type mapping, NOT NULL as non-nullable. */
export function arrowSchema(fields: readonly Field[]): Schema {
  return new Schema(fields.map((f) => new ArrowField(f.name, arrowType(f.type), !f.notNull)));
}

const INT64_MIN = -(2n ** 63n);
const INT32_MIN = -(2 ** 31);

/**
 * paxd stores -infinity as the type's smallest integer, as PostgreSQL does (INT64_MIN µs,
 * INT32_MIN days); DuckDB and Arrow-based engines use one above it (-INT64_MAX, -INT32_MAX),
 * and DuckDB fails to read a file holding an INT64_MIN timestamp ("Date out of range").
 * Exported files use the DuckDB convention; +infinity (the largest integer) is the same in
 * both. `c` is a fresh copy (concatRanges), so it is changed in place.
 */
function negativeInfinity(c: Column): Column {
  const id = c.type.id;
  if (id === 'timestamp' || id === 'timestamptz') {
    const v = c.values as BigInt64Array;
    for (let i = 0; i < c.length; i++) if (v[i] === INT64_MIN) v[i] = INT64_MIN + 1n;
  } else if (id === 'date') {
    const v = c.values as Int32Array;
    for (let i = 0; i < c.length; i++) if (v[i] === INT32_MIN) v[i] = INT32_MIN + 1;
  }
  return c;
}

/** Adds a batch's selected rows (runs of consecutive rows at a time) to the pending ranges. */
function addBatch(pending: ColumnRange[][], columns: readonly Column[], length: number, selection: Uint32Array | null): void {
  if (selection === null) {
    for (let c = 0; c < columns.length; c++) pending[c]!.push({ column: columns[c]!, start: 0, length });
    return;
  }
  let i = 0;
  while (i < selection.length) {
    let j = i + 1;
    while (j < selection.length && selection[j] === selection[j - 1]! + 1) j++;
    for (let c = 0; c < columns.length; c++) pending[c]!.push({ column: columns[c]!, start: selection[i]!, length: j - i });
    i = j;
  }
}

/** Appends `bytes` to the file (storage's writeAll: short writes continued, none taken for whole). */
async function writeAll(f: OpenFile, bytes: Uint8Array): Promise<void> {
  try {
    await writeAllAt(f.handle, bytes, f.bytes, f.temp);
  } catch (e) {
    throw ioError(`cannot write ${f.temp}: ${(e as Error).message}`, f.temp, e);
  }
  f.bytes += bytes.length;
}

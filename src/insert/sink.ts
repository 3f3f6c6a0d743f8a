/**
 * The sink contract (DESIGN.md "The sink contract"): `write(batch)` any number of times, then
 * `commit()` — one new snapshot, all or nothing — or `abort()` — nothing visible.
 *
 * Rows are buffered as ranges of the written batches (no copy) until a row group is full by
 * rows (`rowGroupRows`) or by bytes (`rowGroupBytes`, a budget across all columns, so a
 * 1,000-column table buffers as many bytes as a 10-column one, in shorter groups). A full
 * group is copied into contiguous columns once and handed to the layout's file writer, which
 * encodes and writes it chunk by chunk. Files are durable before the commit references them.
 *
 * The caller must not mutate a batch's buffers after writing it.
 */
import { type Batch, type Column, columnBytes, concatRangesYielding, type ColumnRange, type PaxdError, assert, notNullViolation, type Field, physicalOf } from '../types/index.js';
import { type ObjectStore, type DataFileJson, type IngestedFileJson, type SnapshotJson, type TableOptionsJson, withIngested, newFileName, commit as commitSnapshot, createTable, latestSnapshot } from '../storage/index.js';
import { PaxFileWriter } from '../pax/index.js';
import { AoAppender } from '../aocolumn/index.js';

export interface SinkOptions {
  /** Roll over to a new data file once the current one holds this many bytes. */
  fileBytes?: number;
  /** Extra fields merged into the snapshot's `summary`. */
  summary?: Record<string, string | number>;
  /** Commit by creating the table with this first snapshot (plus the rows written) instead of appending. */
  create?: SnapshotJson;
  /** Called after each row group is written (progress). */
  onGroup?: (rows: number, bytes: number) => void;
  /** The table's layout; read from the latest snapshot when absent. */
  layout?: SnapshotJson['layout'];
  /**
   * Input files whose rows this commit adds: recorded in the snapshot's `ingested` window by
   * the same commit (exactly-once ingest, src/storage/ingested.ts); the commit fails with
   * 23505 if one of them is recorded already.
   */
  ingested?: readonly IngestedFileJson[];
  /** Identities kept in the window (default DEFAULT_INGESTED_WINDOW). */
  ingestedWindow?: number;
  /**
   * The table incarnation the rows are for (src/storage/catalog.ts `incarnationOf`): the
   * commit fails with 42P01 if the table was dropped and created again meanwhile.
   */
  incarnation?: number;
}

/** What the sink needs from a layout's writer: PaxFileWriter, or AoAppender (one stripe per `finish`). */
interface GroupWriter {
  readonly bytesWritten: number;
  writeGroupFrom(rows: number, column: (c: number) => Column | Promise<Column>, opts: { owned?: boolean }): Promise<unknown>;
  finish(pathInTable: string): Promise<DataFileJson>;
  abort(): Promise<void>;
}

export const DEFAULT_FILE_BYTES = 512 * 1024 * 1024;

/**
 * A row group's column is copied together from the batches' ranges in slices of about this
 * many bytes, with a turn of the event loop between them (src/types/concat.ts): in the daemon
 * the copy of a 131,072-row text column (tens of MB) was one stretch of 50-100 ms at load 25
 * during which no other session was answered (issue #18).
 */
const CONCAT_SLICE_BYTES = 4 * 1024 * 1024;

export interface CommitResult {
  snapshot: SnapshotJson;
  rows: number;
  files: number;
  groups: number;
  bytes: number;
}

export class TableSink {
  private pending: ColumnRange[][];
  private pendingRows = 0;
  private pendingBytes = 0;
  private writer: GroupWriter | null = null;
  /** ao_column tables: the appender (segment claim, open segments) for the whole sink. */
  private ao: AoAppender | null = null;
  private inflight: Promise<void> | null = null;
  /** Rows handed to the writer so far (counted before their group is written). */
  private flushedRows = 0;
  private writerPath = '';
  private readonly done: DataFileJson[] = [];
  private rows = 0;
  private groups = 0;
  private bytes = 0;
  private state: 'open' | 'committed' | 'aborted' = 'open';

  constructor(
    private readonly store: ObjectStore,
    private readonly table: string,
    private readonly fields: readonly Field[],
    private readonly options: TableOptionsJson,
    private readonly sinkOptions: SinkOptions = {},
  ) {
    this.pending = fields.map(() => []);
  }

  /** Rows accepted so far. */
  get rowCount(): number {
    return this.flushedRows + this.pendingRows;
  }

  async write(batch: Batch): Promise<void> {
    assert(this.state === 'open', `write() on a ${this.state} sink`);
    assert(batch.columns.length === this.fields.length, `batch has ${batch.columns.length} columns, table has ${this.fields.length}`);
    for (let c = 0; c < this.fields.length; c++) {
      const f = this.fields[c]!;
      const col = batch.columns[c]!;
      assert(physicalOf(col.type) === physicalOf(f.type) && col.length === batch.length, `column ${f.name}: batch column does not fit ${f.type.id}`);
      if (f.notNull && col.nullCount > 0) throw this.notNullError(f, col, batch.selection);
    }
    if (batch.selection !== null) return this.writeSelected(batch);
    let start = 0;
    while (start < batch.length) {
      const take = Math.min(batch.length - start, this.options.rowGroupRows - this.pendingRows);
      this.addRange(batch.columns, start, take);
      start += take;
      if (this.pendingRows >= this.options.rowGroupRows || this.pendingBytes >= this.options.rowGroupBytes) await this.flushGroup();
    }
  }

  /** Writes the selected rows of a batch, as runs of consecutive positions. */
  private async writeSelected(batch: Batch): Promise<void> {
    const sel = batch.selection!;
    let i = 0;
    while (i < sel.length) {
      let j = i + 1;
      while (j < sel.length && sel[j] === sel[j - 1]! + 1) j++;
      let start = sel[i]!;
      let left = j - i;
      while (left > 0) {
        const take = Math.min(left, this.options.rowGroupRows - this.pendingRows);
        this.addRange(batch.columns, start, take);
        start += take;
        left -= take;
        if (this.pendingRows >= this.options.rowGroupRows || this.pendingBytes >= this.options.rowGroupBytes) await this.flushGroup();
      }
      i = j;
    }
  }

  private addRange(columns: readonly Column[], start: number, len: number): void {
    for (let c = 0; c < columns.length; c++) {
      const col = columns[c]!;
      this.pending[c]!.push({ column: col, start, length: len });
      this.pendingBytes += rangeBytes(col, start, len);
    }
    this.pendingRows += len;
  }

  private notNullError(f: Field, col: Column, selection: Uint32Array | null): PaxdError {
    let first = 0;
    const valid = (i: number) => (col.validity![i >>> 3]! & (1 << (i & 7))) !== 0;
    if (selection === null) {
      while (valid(first)) first++;
    } else {
      let k = 0;
      while (valid(selection[k]!)) k++;
      first = k;
    }
    const row = this.rowCount + first + 1;
    return notNullViolation(f.name, this.table, { row, detail: `input row ${row}` });
  }

  /**
   * Hands the buffered rows to the file writer as one row group. The group is encoded in the
   * background (encoder threads) while the caller goes on writing batches; at most one group is
   * in flight, so a sink holds at most two groups' worth of rows. A failure of the group in
   * flight surfaces at the next write, flush or commit.
   */
  private async flushGroup(): Promise<void> {
    if (this.pendingRows === 0) return;
    await this.settle();
    const rows = this.pendingRows;
    this.flushedRows += rows;
    const pending = this.pending;
    this.pending = this.fields.map(() => []);
    this.pendingRows = 0;
    this.pendingBytes = 0;
    if (this.writer === null) this.writer = await this.openWriter();
    const writer = this.writer;
    const task = (async () => {
      // One column at a time: copy its ranges into one column (owned by the writer, which may
      // hand it to an encoder thread), drop the ranges.
      await writer.writeGroupFrom(
        rows,
        async (c) => {
          const col = await concatRangesYielding(this.fields[c]!.type, pending[c]!, CONCAT_SLICE_BYTES);
          pending[c] = [];
          return col;
        },
        { owned: true },
      );
      this.rows += rows;
      this.groups++;
      this.sinkOptions.onGroup?.(rows, writer.bytesWritten);
      if (writer.bytesWritten >= (this.sinkOptions.fileBytes ?? DEFAULT_FILE_BYTES)) await this.finishFile();
    })();
    task.catch(() => undefined); // surfaced by settle()
    this.inflight = task;
  }

  /**
   * The layout switch of the write side. PAX: a new file. ao_column: the appender, claimed on
   * the latest snapshot (appends go to the end of its segments) — a new stripe of it.
   */
  private async openWriter(): Promise<GroupWriter> {
    const layout = this.sinkOptions.layout ?? this.sinkOptions.create?.layout ?? (await latestSnapshot(this.store, this.table)).layout;
    if (layout === 'ao_column') {
      if (this.ao === null) {
        const base = this.sinkOptions.create ?? (await latestSnapshot(this.store, this.table));
        this.ao = await AoAppender.open(this.store, this.table, this.fields, this.options, base);
      }
      this.writerPath = `ao/${newFileName()}`;
      return this.ao;
    }
    this.writerPath = `data/${newFileName()}.pax`;
    return PaxFileWriter.create(this.store, `${this.table}/${this.writerPath}`, this.fields, {
      codec: this.options.codec,
      zoneRows: this.options.zoneRows,
    });
  }

  /** Waits for the group in flight; rethrows its failure. */
  private async settle(): Promise<void> {
    const t = this.inflight;
    if (t === null) return;
    try {
      await t;
    } finally {
      if (this.inflight === t) this.inflight = null;
    }
  }

  private async finishFile(): Promise<void> {
    if (this.writer === null) return;
    const w = this.writer;
    this.writer = null;
    const file = await w.finish(this.writerPath);
    this.bytes += file.size;
    this.done.push(file);
  }

  /** Writes what is buffered, makes the files durable and commits one snapshot. */
  async commit(): Promise<CommitResult> {
    assert(this.state === 'open', `commit() on a ${this.state} sink`);
    try {
      await this.flushGroup();
      await this.settle();
      await this.finishFile();
      await this.ao?.close();
    } catch (e) {
      await this.abort();
      throw e;
    }
    // From here on a failure may leave the outcome unknown (a snapshot written whose
    // durability could not be confirmed and could not be undone): the data files are left for
    // `paxd vacuum`, which removes them only if no snapshot references them.
    this.state = 'aborted';
    {
      const files = this.done.slice();
      const summary = this.sinkOptions.summary;
      const create = this.sinkOptions.create;
      const ao = this.ao;
      const segments = (base: SnapshotJson) => (ao === null ? {} : { ao: ao.segmentsFor(base) });
      const ingested = this.sinkOptions.ingested;
      const window = this.sinkOptions.ingestedWindow;
      const recorded = (base: SnapshotJson) => (ingested === undefined || ingested.length === 0 ? {} : withIngested(base, ingested, window));
      let snapshot: SnapshotJson;
      try {
        snapshot =
          create !== undefined
            ? await createTable(this.store, { ...create, files, ...segments(create), ...recorded(create), ...(summary !== undefined ? { summary } : {}) })
            : await commitSnapshot(this.store, this.table, (base) => ({
                ...base,
                operation: 'append',
                files: files.length === 0 ? base.files : [...base.files, ...files],
                ...segments(base),
                ...recorded(base),
                ...(summary !== undefined ? { summary } : {}),
              }), this.sinkOptions.incarnation !== undefined ? { incarnation: this.sinkOptions.incarnation } : {});
      } finally {
        // Committed or not, the claim has done its job: a commit bumped the segment set's
        // generation, and a failed one left its EOF where the next claimant truncates.
        await ao?.release();
      }
      this.state = 'committed';
      return { snapshot, rows: this.rows, files: files.length, groups: this.groups, bytes: this.bytes };
    }
  }

  /** Drops everything written; nothing becomes visible. Files already written are removed (or left for vacuum). */
  async abort(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'aborted';
    await this.inflight?.catch(() => undefined);
    this.inflight = null;
    for (const p of this.pending) p.length = 0;
    this.pendingRows = 0;
    const w = this.writer;
    this.writer = null;
    if (w !== null) await w.abort().catch(() => undefined);
    await this.ao?.abort().catch(() => undefined);
    for (const f of this.done) if (f.layout === undefined) await this.store.delete(`${this.table}/${f.path}`).catch(() => undefined);
  }
}

function rangeBytes(col: Column, start: number, len: number): number {
  if (col.offsets !== null) return len * 4 + (col.offsets[start + len]! - col.offsets[start]!) + (len >>> 3);
  return col.length === 0 ? 0 : Math.ceil((columnBytes(col) * len) / col.length);
}

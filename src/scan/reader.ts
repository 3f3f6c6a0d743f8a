/**
 * The source contract (DESIGN.md "The source contract"): a batch reader over a pinned
 * snapshot with a projection and an optional predicate. `begin` → `next()` until null →
 * `rescan()` → `end()`, plus `estimate()`, `setBound()` and `stats`.
 *
 * Units of work are row groups (of PAX files, or of ao_column stripes: ./source.ts), visited in storage order, or — given `order` — in the order
 * that tightens a running bound on that column fastest (by descending max for DESC, ascending
 * min for ASC), planned from the snapshot's statistics before any data is read. Per group:
 *
 *   1. the snapshot's group statistics classify the predicate (./prune.ts) and the running
 *      bounds: 'none' skips the group before a byte of it is read;
 *   2. the filter columns' chunks are loaded (one ranged read each, issued together, and the
 *      next group's while this one is consumed) — all projected columns when there is no
 *      predicate, or when statistics prove every row matches;
 *   3. zone by zone, the footer's zone statistics classify again ('none' skips the zone
 *      without decoding it); live rows (delete vectors) are the starting selection; the
 *      compiled predicate (./compile.ts) refines it on the decoded filter columns;
 *   4. only when a zone has matching rows are the other projected columns loaded (once per
 *      group: late materialization) and the zone decoded;
 *   5. batches of up to `batchRows` rows are sliced from the zone without copying; rows that
 *      do not match, are deleted, or cannot beat a running bound leave through the selection.
 *
 * Batches never straddle zones; empty batches are not returned. `position` says where the
 * last batch came from (tests, top-N tie-breaks by storage position, aggregates).
 *
 * With `reuseBuffers`, each read column decodes every zone into the same buffers
 * (src/pax/zone-memory.ts), and selections are reused too: a batch is valid only until the next
 * call of next(). Consumers that keep batches, or views of their bytes, must not ask for it.
 */
import { type Batch, type Column, sliceColumn, type Value, type Field, PaxdError, SQLSTATE, undefinedColumn, compareValues } from '../types/index.js';
import { type ObjectStore, type DataFileJson, type GroupJson, type SnapshotJson, fieldsOf } from '../storage/index.js';
import type { ColumnStats } from '../stats/index.js';
import { type PaxChunk, ZoneBuffers } from '../pax/index.js';
import { openSource, type GroupSource } from './source.js';
import { type Predicate, type BoundPredicate, bindPredicate } from './predicate.js';
import { classify, type Pruning } from './prune.js';
import { compilePredicate, type CompiledPredicate } from './compile.js';
import { RunningBounds, boundPredicate, type BoundOp, type BoundOptions } from './bounds.js';
import { constantColumn, constantStats, groupStats } from './unit-stats.js';
import { deletedMask, loadDeleted } from './delete-vector.js';

export const DEFAULT_BATCH_ROWS = 1024;

/** The consumer's order, so that the reader visits groups in the order that tightens its bound fastest. */
export interface ScanOrder {
  column: string;
  desc?: boolean;
  /** PostgreSQL's default: NULLS FIRST for DESC, NULLS LAST for ASC. */
  nullsFirst?: boolean;
}

export interface ScanOptions {
  /** Column names to read, in output order; all columns when absent. */
  columns?: readonly string[];
  /** Rows per batch (a multiple of 8); 1,024 by default. */
  batchRows?: number;
  /** Only rows for which this is true are returned (three-valued: NULL is not true). */
  where?: Predicate;
  /** Visit groups in the order that tightens a bound on this column fastest. */
  order?: ScanOrder;
  /** Restrict the scan to some groups (file index in the snapshot, group index in the file). */
  groups?: (file: number, group: number) => boolean;
  /**
   * Decode every zone of a column into the same memory and reuse selections: a batch (its
   * columns' arrays and its selection) is then valid only until the next call of next().
   */
  reuseBuffers?: boolean;
}

/** What a scan did, for EXPLAIN ANALYZE and tests. */
export interface ScanStats {
  groupsTotal: number;
  groupsSkippedByPredicate: number;
  groupsSkippedByBound: number;
  groupsAnsweredFromStats: number;
  groupsRead: number;
  zonesRead: number;
  zonesSkippedByPredicate: number;
  zonesSkippedByBound: number;
  /** Rows of the zones decoded and examined. */
  rowsRead: number;
  /** Rows returned (selected) in batches. */
  rowsReturned: number;
  /** Bytes read from the store: footers, chunks, delete vectors. */
  bytesRead: number;
}

export interface BatchReader {
  readonly fields: readonly Field[];
  begin(): Promise<void>;
  next(): Promise<Batch | null>;
  rescan(): Promise<void>;
  end(): Promise<void>;
  estimate(): { rows: number; bytes: number };
  setBound(column: string, op: BoundOp, value: Value, options?: BoundOptions): void;
  readonly stats: ScanStats;
}

/** Where the last batch came from. `row` is the group row of the batch's row 0. */
export interface BatchPosition {
  /** Storage rank of the group: its index when the snapshot's groups are listed file by file. */
  unit: number;
  file: number;
  group: number;
  zone: number;
  row: number;
}

export interface Unit {
  file: DataFileJson;
  fileIndex: number;
  group: number;
  meta: GroupJson;
  rank: number;
}

interface LoadedUnit {
  unit: Unit;
  reader: GroupSource;
  /** Per read field: loaded chunk, null when the file predates the field, undefined when not loaded yet. */
  chunks: (PaxChunk | null | undefined)[];
  deleted: Uint8Array | null;
  whereAll: boolean;
  rest: Promise<void> | null;
}

export class TableScan implements BatchReader {
  readonly fields: readonly Field[];
  stats: ScanStats = emptyStats();
  position: BatchPosition = { unit: -1, file: -1, group: -1, zone: -1, row: 0 };
  private readonly all: readonly Field[];
  /** Projected fields, then filter-only fields. */
  private readonly readFields: Field[];
  private readonly units: Unit[] = [];
  private plan: Unit[] = [];
  private readonly batchRows: number;
  private readonly where: BoundPredicate | null;
  private readonly evaluator: CompiledPredicate | null;
  /** Predicate slot -> read field index. */
  private readonly whereIdx: number[];
  private readonly bounds: RunningBounds;
  private boundIdx: number[] | null = null;
  private boundIdxVersion = -1;
  private readonly readers = new Map<string, Promise<GroupSource>>();
  private planAt = 0;
  private loading: Promise<LoadedUnit> | null = null;
  private current: LoadedUnit | null = null;
  private zone = -1;
  private zoneRows = 0;
  private zoneCols: Column[] | null = null;
  private zoneSel: Uint32Array | null = null;
  private selCursor = 0;
  private batchStart = 0;
  /** With reuseBuffers: per read field, its decode buffers; and the scan's reused selections. */
  private buffers: ZoneBuffers[] | null = null;
  private readonly sels: Uint32Array[] = [];

  constructor(
    private readonly store: ObjectStore,
    private readonly table: string,
    private readonly snapshot: SnapshotJson,
    private readonly options: ScanOptions = {},
  ) {
    this.all = fieldsOf(snapshot);
    const byName = (name: string): Field => {
      const f = this.all.find((x) => x.name === name);
      if (f === undefined) throw undefinedColumn(name, { relation: table });
      return f;
    };
    this.fields = options.columns === undefined ? this.all : options.columns.map(byName);
    this.readFields = [...this.fields];
    this.batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS;
    if (!Number.isInteger(this.batchRows) || this.batchRows <= 0 || this.batchRows % 8 !== 0)
      throw new PaxdError('usage', SQLSTATE.invalid_parameter_value, `batch rows must be a positive multiple of 8, got ${this.batchRows}`);
    if (options.where !== undefined) {
      this.where = bindPredicate(options.where, this.all, table);
      this.evaluator = compilePredicate(this.where);
      this.whereIdx = this.where.fields.map((f) => this.readIndex(f));
    } else {
      this.where = null;
      this.evaluator = null;
      this.whereIdx = [];
    }
    if (options.order !== undefined) byName(options.order.column);
    if (options.reuseBuffers === true) this.buffers = this.readFields.map(() => new ZoneBuffers());
    this.bounds = new RunningBounds(this.all, table);
    let rank = 0;
    snapshot.files.forEach((file, fileIndex) =>
      file.groups.forEach((meta, group) => {
        const unit = { file, fileIndex, group, meta, rank: rank++ };
        if (options.groups === undefined || options.groups(fileIndex, group)) this.units.push(unit);
      }),
    );
  }

  /** Index of `f` among the read fields, adding it as a filter-only field when not projected. */
  private readIndex(f: Field): number {
    let i = this.readFields.findIndex((x) => x.fieldId === f.fieldId);
    if (i < 0) {
      this.readFields.push(f);
      i = this.readFields.length - 1;
    }
    return i;
  }

  /** Selection k (0: live rows, 1: filter output, 2: bound output, 3: the batch's) of at least n entries. */
  private selection(k: number, n: number): Uint32Array {
    if (this.buffers === null) return new Uint32Array(n);
    let s = this.sels[k];
    if (s === undefined || s.length < n) {
      s = new Uint32Array(Math.max(n, this.batchRows, s === undefined ? 0 : s.length * 2));
      this.sels[k] = s;
    }
    return s.subarray(0, n);
  }

  private get zoneRowsOption(): number {
    return this.snapshot.options.zoneRows;
  }

  async begin(): Promise<void> {
    this.stats = emptyStats();
    this.stats.groupsTotal = this.units.length;
    this.plan = this.options.order === undefined ? this.units : planOrder(this.units, this.all.find((f) => f.name === this.options.order!.column)!, this.options.order, this.zoneRowsOption);
    this.planAt = 0;
  }

  /**
   * Tells the reader that only rows with `column op value` (or NULL, with `orNull`) can still
   * matter to its consumer. Callable at any time; see ./bounds.ts.
   */
  setBound(column: string, op: BoundOp, value: Value, options: BoundOptions = {}): void {
    this.bounds.set(column, boundPredicate(column, op, value, options));
  }

  /** A bound given as a predicate on `column` (replaces that column's previous bound). */
  setBoundPredicate(column: string, p: Predicate): void {
    this.bounds.set(column, p);
  }

  estimate(): { rows: number; bytes: number } {
    let rows = 0;
    for (const u of this.units) if (this.classifyGroup(this.where, u) !== 'none') rows += u.meta.live;
    let width = 0;
    for (const f of this.readFields) width += estimatedWidth(f);
    return { rows, bytes: rows * width };
  }

  async next(): Promise<Batch | null> {
    try {
      return await this.advance();
    } catch (e) {
      // Let a prefetch in flight settle so that no read outlives the failed scan.
      await this.loading?.catch(() => undefined);
      this.loading = null;
      throw e;
    }
  }

  private async advance(): Promise<Batch | null> {
    for (;;) {
      if (this.zoneCols !== null && this.batchStart < this.zoneRows) {
        const b = this.sliceBatch();
        if (b !== null) return b;
        continue;
      }
      this.zoneCols = null;
      if (this.current !== null && this.zone + 1 < this.current.reader.zoneCount(this.current.unit.group)) {
        this.zone++;
        await this.setupZone();
        continue;
      }
      this.current = await this.nextUnit();
      if (this.current === null) return null;
      this.zone = -1;
    }
  }

  private classifyGroup(p: BoundPredicate | null, u: Unit): Pruning {
    if (p === null) return 'all';
    return classify(p, u.meta.live, (slot) => groupStats(u.meta, p.fields[slot]!, this.zoneRowsOption));
  }

  /** The next unit of the plan that statistics do not rule out, or null at the end. */
  private pickNext(): { unit: Unit; whereAll: boolean } | null {
    while (this.planAt < this.plan.length) {
      const u = this.plan[this.planAt++]!;
      const w = this.classifyGroup(this.where, u);
      if (w === 'none') {
        this.stats.groupsSkippedByPredicate++;
        continue;
      }
      if (this.classifyGroup(this.bounds.predicate, u) === 'none') {
        this.stats.groupsSkippedByBound++;
        continue;
      }
      return { unit: u, whereAll: w === 'all' };
    }
    return null;
  }

  private async nextUnit(): Promise<LoadedUnit | null> {
    for (;;) {
      let lu: LoadedUnit;
      if (this.loading !== null) {
        const p = this.loading;
        this.loading = null;
        lu = await p;
        // The bound may have tightened since the prefetch was issued.
        if (this.classifyGroup(this.bounds.predicate, lu.unit) === 'none') {
          this.stats.groupsSkippedByBound++;
          continue;
        }
      } else {
        const picked = this.pickNext();
        if (picked === null) return null;
        lu = await this.load(picked.unit, picked.whereAll);
      }
      const following = this.pickNext();
      if (following !== null) {
        this.loading = this.load(following.unit, following.whereAll);
        this.loading.catch(() => undefined); // surfaced when awaited
      }
      this.stats.groupsRead++;
      return lu;
    }
  }

  private async load(unit: Unit, whereAll: boolean): Promise<LoadedUnit> {
    const reader = await this.readerFor(unit.file);
    const positions = await loadDeleted(this.store, this.table, unit.meta);
    if (unit.meta.deletesPath !== undefined && positions !== null) this.stats.bytesRead += 24 + 4 * positions.length;
    const lu: LoadedUnit = {
      unit,
      reader,
      chunks: this.readFields.map(() => undefined),
      deleted: positions === null ? null : deletedMask(positions, unit.meta.rows),
      whereAll,
      rest: null,
    };
    const first = this.where !== null && !whereAll ? [...new Set(this.whereIdx)] : this.readFields.map((_, i) => i);
    await this.loadChunks(lu, first);
    return lu;
  }

  private async loadChunks(lu: LoadedUnit, indices: number[]): Promise<void> {
    const loaded = await Promise.all(
      indices.map((i) => {
        const f = this.readFields[i]!;
        return lu.reader.hasField(f.fieldId) ? lu.reader.loadChunk(lu.unit.group, f.fieldId, this.buffers?.[i]) : Promise.resolve(null);
      }),
    );
    indices.forEach((i, k) => {
      const c = loaded[k]!;
      lu.chunks[i] = c;
      if (c !== null) this.stats.bytesRead += c.storedBytes;
    });
  }

  private readerFor(file: DataFileJson): Promise<GroupSource> {
    let r = this.readers.get(file.path);
    if (r === undefined) {
      r = openSource(this.store, this.table, file, this.all).then((reader) => {
        this.stats.bytesRead += reader.bytesRead;
        return reader;
      });
      this.readers.set(file.path, r);
    }
    return r;
  }

  private zoneStats(lu: LoadedUnit, f: Field, z: number, rows: number): ColumnStats {
    if (lu.reader.hasField(f.fieldId)) return lu.reader.zoneStats(lu.unit.group, f.fieldId, z);
    return constantStats(f, rows, rows);
  }

  private zoneColumn(lu: LoadedUnit, i: number, rows: number): Column {
    const c = lu.chunks[i];
    return c ? c.zone(this.zone) : constantColumn(this.readFields[i]!, rows);
  }

  /** Prepares zone `this.zone` of the current group, or leaves zoneCols null to skip it. */
  private async setupZone(): Promise<void> {
    const lu = this.current!;
    const z = this.zone;
    const zr = lu.reader.zoneRows;
    const zs = z * zr;
    const n = Math.min(zr, lu.reader.groupRows(lu.unit.group) - zs);
    const filter = this.where !== null && !lu.whereAll ? this.where : null;
    if (filter !== null && classify(filter, n, (slot) => this.zoneStats(lu, filter.fields[slot]!, z, n)) === 'none') {
      this.stats.zonesSkippedByPredicate++;
      return;
    }
    const bound = this.bounds.predicate;
    if (bound !== null && classify(bound, n, (slot) => this.zoneStats(lu, bound.fields[slot]!, z, n)) === 'none') {
      this.stats.zonesSkippedByBound++;
      return;
    }
    // Live rows of the zone: the starting selection (zone-relative), null = every row.
    let sel: Uint32Array | null = null;
    let count = n;
    if (lu.deleted !== null) {
      const d = lu.deleted;
      count = 0;
      for (let i = 0; i < n; i++) count += d[zs + i]! ^ 1;
      if (count === 0) return;
      if (count < n) {
        sel = this.selection(0, count);
        let k = 0;
        for (let i = 0; i < n; i++) if (d[zs + i] === 0) sel[k++] = i;
      }
    }
    if (filter !== null) {
      const cols = this.whereIdx.map((i) => this.zoneColumn(lu, i, n));
      const out = this.selection(1, count);
      count = this.evaluator!.run(cols, 0, n, sel, count, out);
      this.stats.rowsRead += n;
      this.stats.zonesRead++;
      if (count === 0) return;
      sel = count === n ? null : out.subarray(0, count);
    } else {
      this.stats.rowsRead += n;
      this.stats.zonesRead++;
    }
    if (lu.chunks.some((c) => c === undefined)) {
      lu.rest ??= this.loadChunks(
        lu,
        lu.chunks.flatMap((c, i) => (c === undefined ? [i] : [])),
      );
      await lu.rest;
    }
    this.zoneRows = n;
    this.zoneCols = this.readFields.map((_, i) => this.zoneColumn(lu, i, n));
    this.zoneSel = sel;
    this.selCursor = 0;
    this.batchStart = 0;
  }

  /** Read field index per slot of the current bound predicate, or null when a bound column is not read. */
  private boundIndices(): number[] | null {
    if (this.boundIdxVersion !== this.bounds.version) {
      this.boundIdxVersion = this.bounds.version;
      const p = this.bounds.predicate;
      if (p === null) this.boundIdx = null;
      else {
        const idx = p.fields.map((f) => this.readFields.findIndex((x) => x.fieldId === f.fieldId));
        this.boundIdx = idx.includes(-1) ? null : idx;
      }
    }
    return this.boundIdx;
  }

  private sliceBatch(): Batch | null {
    const s = this.batchStart;
    const len = Math.min(this.batchRows, this.zoneRows - s);
    this.batchStart += len;
    let sel: Uint32Array | null = null; // zone-relative
    let count = len;
    if (this.zoneSel !== null) {
      const zs = this.zoneSel;
      const p0 = this.selCursor;
      let p = p0;
      while (p < zs.length && zs[p]! < s + len) p++;
      this.selCursor = p;
      count = p - p0;
      if (count === 0) return null;
      sel = zs.subarray(p0, p);
    }
    const boundIdx = this.boundIndices();
    if (boundIdx !== null) {
      const cols = boundIdx.map((i) => this.zoneCols![i]!);
      const out = this.selection(2, count);
      count = this.bounds.evaluator!.run(cols, s, s + len, sel, count, out);
      if (count === 0) return null;
      sel = out.subarray(0, count);
    }
    let selection: Uint32Array | null = null;
    if (sel !== null && count < len) {
      selection = this.selection(3, count);
      for (let i = 0; i < count; i++) selection[i] = sel[i]! - s;
    }
    const lu = this.current!;
    const zoneStart = this.zone * lu.reader.zoneRows;
    this.position = { unit: lu.unit.rank, file: lu.unit.fileIndex, group: lu.unit.group, zone: this.zone, row: zoneStart + s };
    this.stats.rowsReturned += count;
    const columns: Column[] = new Array(this.fields.length);
    for (let i = 0; i < this.fields.length; i++) columns[i] = sliceColumn(this.zoneCols![i]!, s, len);
    return { length: len, columns, selection };
  }

  async rescan(): Promise<void> {
    await this.loading?.catch(() => undefined);
    this.loading = null;
    this.current = null;
    this.zoneCols = null;
    this.bounds.clear();
    await this.begin();
  }

  async end(): Promise<void> {
    await this.loading?.catch(() => undefined);
    this.loading = null;
    this.current = null;
    this.zoneCols = null;
    this.readers.clear();
  }
}

export function emptyStats(): ScanStats {
  return {
    groupsTotal: 0,
    groupsSkippedByPredicate: 0,
    groupsSkippedByBound: 0,
    groupsAnsweredFromStats: 0,
    groupsRead: 0,
    zonesRead: 0,
    zonesSkippedByPredicate: 0,
    zonesSkippedByBound: 0,
    rowsRead: 0,
    rowsReturned: 0,
    bytesRead: 0,
  };
}

/**
 * Visit order for a consumer sorting by `order`: groups whose best possible key comes first
 * are visited first (DESC: NULLs when NULLS FIRST, then NaNs, then by descending max; ASC:
 * NULLs when NULLS FIRST, then by ascending min, then NaN-only groups), ties in storage order.
 * Only statistics of the snapshot are used; the order is a heuristic, correctness never
 * depends on it.
 */
export function planOrder(units: readonly Unit[], f: Field, order: ScanOrder, zoneRows: number): Unit[] {
  const desc = order.desc ?? false;
  const nullsFirst = order.nullsFirst ?? desc;
  const keyed = units.map((u) => {
    const s = groupStats(u.meta, f, zoneRows);
    const regular = s.rows - s.nulls - s.nans;
    let cls: number;
    let v: Value = null;
    if (nullsFirst && s.nulls > 0) cls = 0;
    else if (desc && s.nans > 0) cls = 1;
    else if (regular > 0) {
      v = desc ? s.max : s.min;
      cls = v === null ? 1 : 2; // unbounded: could hold anything
    } else if (s.nans > 0) cls = 3;
    else cls = 4;
    return { u, cls, v };
  });
  keyed.sort((a, b) => {
    if (a.cls !== b.cls) return a.cls - b.cls;
    if (a.cls === 2) {
      const c = compareValues(f.type, a.v, b.v);
      if (c !== 0) return desc ? -c : c;
    }
    return a.u.rank - b.u.rank;
  });
  return keyed.map((k) => k.u);
}

function estimatedWidth(f: Field): number {
  switch (f.type.id) {
    case 'int2':
      return 2;
    case 'int4':
    case 'float4':
    case 'date':
      return 4;
    case 'bool':
      return 1;
    case 'numeric':
    case 'uuid':
      return 16;
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'bytea':
    case 'jsonb':
      return 24;
    default:
      return 8;
  }
}

/**
 * The source contract (DESIGN.md "The source contract"): a batch reader over a pinned
 * snapshot with a projection. `begin` → `next()` until null → `rescan()` → `end()`, plus
 * `estimate()`.
 *
 * Units of work are row groups. For each group the reader loads the chunks of the projected
 * columns (one ranged read each, issued together, and the next group's while the current one
 * is consumed), decodes one zone at a time and hands out batches of `batchRows` rows sliced
 * from the decoded zone without copying. Deleted rows leave through the batch's selection.
 */
import type { Batch, Column } from '../types/column.js';
import { sliceColumn } from '../types/column.js';
import { ColumnBuilder } from '../types/builder.js';
import { parseText } from '../types/text-io.js';
import type { Field } from '../types/type.js';
import { PaxdError, SQLSTATE } from '../types/errors.js';
import type { ObjectStore } from '../storage/store.js';
import type { DataFileJson, GroupJson, SnapshotJson } from '../storage/snapshot-types.js';
import { fieldsOf } from '../storage/schema.js';
import { PaxFileReader, type PaxChunk } from '../pax/reader.js';

export const DEFAULT_BATCH_ROWS = 1024;

export interface ScanOptions {
  /** Column names to read, in output order; all columns when absent. */
  columns?: readonly string[];
  /** Rows per batch (a multiple of 8); 1,024 by default. */
  batchRows?: number;
}

/** What a scan did, for EXPLAIN ANALYZE and tests. */
export interface ScanStats {
  groupsTotal: number;
  groupsSkippedByPredicate: number;
  groupsSkippedByBound: number;
  groupsAnsweredFromStats: number;
  groupsRead: number;
  rowsRead: number;
  bytesRead: number;
}

export interface BatchReader {
  readonly fields: readonly Field[];
  begin(): Promise<void>;
  next(): Promise<Batch | null>;
  rescan(): Promise<void>;
  end(): Promise<void>;
  estimate(): { rows: number; bytes: number };
  readonly stats: ScanStats;
}

interface Unit {
  file: DataFileJson;
  group: number;
  meta: GroupJson;
}

interface LoadedUnit {
  unit: Unit;
  reader: PaxFileReader;
  chunks: (PaxChunk | null)[];
}

export class TableScan implements BatchReader {
  readonly fields: readonly Field[];
  readonly stats: ScanStats = emptyStats();
  private readonly units: Unit[] = [];
  private readonly batchRows: number;
  private readonly readers = new Map<string, Promise<PaxFileReader>>();
  private unitIndex = 0;
  private loading: Promise<LoadedUnit> | null = null;
  private current: LoadedUnit | null = null;
  private zone = 0;
  private zoneColumns: Column[] | null = null;
  private zoneRows = 0;
  private zoneStart = 0; // first row of the zone within the group
  private offsetInZone = 0;
  private deleted: Uint8Array | null = null; // per row of the current group, 1 = deleted
  private constants = new Map<string, Column>();

  constructor(
    private readonly store: ObjectStore,
    private readonly table: string,
    private readonly snapshot: SnapshotJson,
    options: ScanOptions = {},
  ) {
    const all = fieldsOf(snapshot);
    if (options.columns === undefined) this.fields = all;
    else
      this.fields = options.columns.map((name) => {
        const f = all.find((x) => x.name === name);
        if (f === undefined)
          throw new PaxdError('not_found', SQLSTATE.undefined_column, `column "${name}" of relation "${table}" does not exist`);
        return f;
      });
    this.batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS;
    if (this.batchRows <= 0 || this.batchRows % 8 !== 0) throw new PaxdError('usage', SQLSTATE.invalid_parameter_value, `batch rows must be a positive multiple of 8, got ${this.batchRows}`);
    for (const file of snapshot.files)
      file.groups.forEach((meta, group) => {
        this.units.push({ file, group, meta });
      });
  }

  async begin(): Promise<void> {
    this.stats.groupsTotal = this.units.length;
    this.unitIndex = 0;
  }

  estimate(): { rows: number; bytes: number } {
    let rows = 0;
    for (const u of this.units) rows += u.meta.live;
    let width = 0;
    for (const f of this.fields) width += estimatedWidth(f);
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
      if (this.zoneColumns !== null && this.offsetInZone < this.zoneRows) return this.sliceBatch();
      if (this.current !== null && this.zone + 1 < this.zoneCount()) {
        this.zone++;
        this.decodeZone();
        continue;
      }
      // next group
      this.zoneColumns = null;
      this.current = null;
      if (this.loading === null) {
        if (this.unitIndex >= this.units.length) return null;
        this.loading = this.load(this.units[this.unitIndex++]!);
      }
      this.current = await this.loading;
      this.loading = this.unitIndex < this.units.length ? this.load(this.units[this.unitIndex++]!) : null;
      this.loading?.catch(() => undefined); // surfaced when awaited
      this.stats.groupsRead++;
      this.deleted = deletedMask(this.current.unit.meta);
      this.zone = 0;
      this.zoneStart = 0;
      if (this.current.unit.meta.rows === 0) continue;
      this.decodeZone();
    }
  }

  private zoneCount(): number {
    return this.current!.reader.zoneCount(this.current!.unit.group);
  }

  private async load(unit: Unit): Promise<LoadedUnit> {
    const reader = await this.readerFor(unit.file);
    const chunks = await Promise.all(
      this.fields.map((f) => (reader.hasField(f.fieldId) ? reader.loadChunk(unit.group, f.fieldId) : Promise.resolve(null))),
    );
    for (const c of chunks) if (c !== null) this.stats.bytesRead += c.storedBytes;
    return { unit, reader, chunks };
  }

  private readerFor(file: DataFileJson): Promise<PaxFileReader> {
    let r = this.readers.get(file.path);
    if (r === undefined) {
      r = PaxFileReader.open(this.store, `${this.table}/${file.path}`, file, fieldsOf(this.snapshot));
      this.readers.set(file.path, r);
    }
    return r;
  }

  private decodeZone(): void {
    const cur = this.current!;
    const g = cur.unit.group;
    const zr = cur.reader.zoneRows;
    this.zoneStart = this.zone * zr;
    this.zoneRows = Math.min(zr, cur.reader.groupRows(g) - this.zoneStart);
    this.zoneColumns = this.fields.map((f, i) => {
      const chunk = cur.chunks[i];
      return chunk ? chunk.zone(this.zone) : this.constantColumn(f, this.zoneRows);
    });
    this.offsetInZone = 0;
  }

  private sliceBatch(): Batch {
    const start = this.offsetInZone;
    const len = Math.min(this.batchRows, this.zoneRows - start);
    this.offsetInZone += len;
    this.stats.rowsRead += len;
    const columns = this.zoneColumns!.map((c) => sliceColumn(c, start, len));
    let selection: Uint32Array | null = null;
    if (this.deleted !== null) {
      const base = this.zoneStart + start;
      let live = 0;
      for (let i = 0; i < len; i++) live += this.deleted[base + i] ^ 1;
      if (live < len) {
        selection = new Uint32Array(live);
        let k = 0;
        for (let i = 0; i < len; i++) if (this.deleted[base + i] === 0) selection[k++] = i;
      }
    }
    return { length: len, columns, selection };
  }

  /** A column for rows of a group written before the field existed: its default, or NULL. */
  private constantColumn(f: Field, rows: number): Column {
    const key = `${f.fieldId}:${rows}`;
    let c = this.constants.get(key);
    if (c === undefined) {
      const b = new ColumnBuilder(f.type, rows);
      const v = f.default === undefined ? null : parseText(f.type, f.default);
      for (let i = 0; i < rows; i++) b.append(v);
      c = b.finish();
      this.constants.set(key, c);
    }
    return c;
  }

  async rescan(): Promise<void> {
    await this.loading?.catch(() => undefined);
    this.loading = null;
    this.current = null;
    this.zoneColumns = null;
    this.unitIndex = 0;
  }

  async end(): Promise<void> {
    await this.loading?.catch(() => undefined);
    this.loading = null;
    this.current = null;
    this.zoneColumns = null;
    this.readers.clear();
  }
}

export function emptyStats(): ScanStats {
  return { groupsTotal: 0, groupsSkippedByPredicate: 0, groupsSkippedByBound: 0, groupsAnsweredFromStats: 0, groupsRead: 0, rowsRead: 0, bytesRead: 0 };
}

function deletedMask(meta: GroupJson): Uint8Array | null {
  if (meta.deleted === undefined || meta.deleted.length === 0) return null;
  const m = new Uint8Array(meta.rows);
  for (const p of meta.deleted) m[p] = 1;
  return m;
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

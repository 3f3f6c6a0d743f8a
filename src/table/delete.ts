/**
 * DELETE with delete vectors (DESIGN.md "Table format invariants"):
 *
 *   const { deleted, snapshot } = await table.delete(P.lt('ts', cutoff));
 *
 * One new snapshot through the commit loop (src/storage/catalog.ts). For every row group that
 * the predicate's statistics do not rule out, the predicate is evaluated on the group's live
 * rows (zone pruning included); matching positions are added to the group's delete vector —
 * inline in the snapshot when small, else in a new delete-vector object (./delete-vector.ts).
 *
 * Statistics stay exact: the delete reads every column of each group it changes and
 * recomputes the group's statistics over the remaining rows, zone by zone and merged in zone
 * order, exactly as a scan of the remaining rows would compute them. So `live`, null and NaN
 * counts, sums (float sums included, bit for bit) and min/max remain exact — min/max are never
 * left as mere bounds by a delete (a choice allowed by the issue: recomputing costs one read
 * of the changed groups, and keeps every aggregate answerable from statistics). Zone
 * statistics in file footers are not rewritten: they describe a superset of the live rows,
 * which is still sound for pruning.
 *
 * On a lost commit race the delete is rebuilt on the new base: its predicate is re-evaluated
 * there (groups that still exist keep their earlier result, cached by the group's identity
 * and delete-vector state; groups rewritten by a compaction are evaluated afresh).
 */
import type { Column, Field } from '../types/index.js';
import { type ObjectStore, type ColumnStatsJson, type DataFileJson, type GroupJson, type SnapshotJson, commit, latestSnapshot, type CommitOptions, fieldsOf } from '../storage/index.js';
import { type ColumnStats, computeStats, emptyStats, mergeStats, statsToJson } from '../stats/index.js';
import type { PaxChunk } from '../pax/index.js';
import { openSource, type GroupSource, type Predicate, type BoundPredicate, bindPredicate, classify, compilePredicate, constantColumn, constantStats, groupStats, deletedMask, loadDeleted, storeDeleted, gather, liveSelection } from '../scan/index.js';

export interface DeleteResult {
  /** Rows deleted (as committed). */
  deleted: number;
  /** The committed snapshot, or the unchanged latest one when no row matched. */
  snapshot: SnapshotJson;
  /** Groups whose rows were evaluated, and groups skipped by statistics (last build). */
  groupsRead: number;
  groupsSkipped: number;
}

/** An open group of a data file: its reader, delete vector and the chunks loaded so far. */
export class GroupRows {
  private readonly chunks = new Map<number, Promise<PaxChunk | null>>();

  private constructor(
    readonly reader: GroupSource,
    readonly group: number,
    readonly meta: GroupJson,
    readonly deleted: Uint32Array | null,
  ) {}

  static async open(store: ObjectStore, table: string, fields: readonly Field[], file: DataFileJson, group: number): Promise<GroupRows> {
    const reader = await openSource(store, table, file, fields);
    const meta = file.groups[group]!;
    return new GroupRows(reader, group, meta, await loadDeleted(store, table, meta));
  }

  get zoneRows(): number {
    return this.reader.zoneRows;
  }

  get zoneCount(): number {
    return this.reader.zoneCount(this.group);
  }

  zoneLength(z: number): number {
    return Math.min(this.reader.zoneRows, this.meta.rows - z * this.reader.zoneRows);
  }

  /** Zone z of field f (a constant column when the file predates the field). */
  async zone(f: Field, z: number): Promise<Column> {
    let c = this.chunks.get(f.fieldId);
    if (c === undefined) {
      c = this.reader.hasField(f.fieldId) ? this.reader.loadChunk(this.group, f.fieldId) : Promise.resolve(null);
      this.chunks.set(f.fieldId, c);
    }
    const chunk = await c;
    return chunk === null ? constantColumn(f, this.zoneLength(z)) : chunk.zone(z);
  }

  zoneStats(f: Field, z: number): ColumnStats {
    const n = this.zoneLength(z);
    return this.reader.hasField(f.fieldId) ? this.reader.zoneStats(this.group, f.fieldId, z) : constantStats(f, n, n);
  }
}

/** Positions (sorted) of the group's live rows where `bp` is true. */
export async function matchingPositions(rows: GroupRows, bp: BoundPredicate): Promise<number[]> {
  const mask = rows.deleted === null ? null : deletedMask(rows.deleted, rows.meta.rows);
  const ev = compilePredicate(bp);
  const out: number[] = [];
  for (let z = 0; z < rows.zoneCount; z++) {
    const n = rows.zoneLength(z);
    const zs = z * rows.zoneRows;
    if (classify(bp, n, (slot) => rows.zoneStats(bp.fields[slot]!, z)) === 'none') continue;
    const sel = liveSelection(mask, zs, n);
    const count = sel === null ? n : sel.length;
    if (count === 0) continue;
    const cols = await Promise.all(bp.fields.map((f) => rows.zone(f, z)));
    const buf = new Uint32Array(count);
    const k = ev.run(cols, 0, n, sel, count, buf);
    for (let i = 0; i < k; i++) out.push(zs + buf[i]!);
  }
  return out;
}

/** Sorted union of two disjoint sorted position lists. */
export function unionPositions(a: Uint32Array | null, b: readonly number[]): Uint32Array {
  const x = a ?? new Uint32Array(0);
  const out = new Uint32Array(x.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < x.length || j < b.length) {
    if (j >= b.length || (i < x.length && x[i]! < b[j]!)) out[k++] = x[i++]!;
    else out[k++] = b[j++]!;
  }
  return out;
}

/**
 * The GroupJson of `rows` with `add` (sorted, live positions) deleted as well: delete vector
 * stored, live count and every column's statistics recomputed over the remaining rows.
 */
export async function withDeletes(store: ObjectStore, table: string, fields: readonly Field[], rows: GroupRows, add: readonly number[]): Promise<GroupJson> {
  const meta = rows.meta;
  const positions = unionPositions(rows.deleted, add);
  const mask = deletedMask(positions, meta.rows);
  const columns: Record<string, ColumnStatsJson> = {};
  for (const f of fields) {
    let total: ColumnStats = emptyStats();
    for (let z = 0; z < rows.zoneCount; z++) {
      const n = rows.zoneLength(z);
      const sel = liveSelection(mask, z * rows.zoneRows, n);
      if (sel !== null && sel.length === 0) continue;
      const col = await rows.zone(f, z);
      const s = computeStats(sel === null ? col : gather(col, sel));
      total = total.rows === 0 && total.nulls === 0 ? s : mergeStats(f.type, total, s);
    }
    columns[String(f.fieldId)] = statsToJson(f.type, total);
  }
  const out: GroupJson = { rows: meta.rows, live: meta.rows - positions.length, columns };
  if (meta.blocks !== undefined) out.blocks = meta.blocks; // ao_column: where the rows are
  Object.assign(out, await storeDeleted(store, table, positions, meta.rows));
  return out;
}

/** Identity of a group's state: deletes only ever grow a group's vector, so its size identifies it. */
function groupKey(file: DataFileJson, g: number, meta: GroupJson, base: SnapshotJson): string {
  return `${file.path}#${g}#${meta.rows - meta.live}#${meta.deletesPath ?? ''}#${base.nextFieldId}`;
}

export async function deleteRows(store: ObjectStore, table: string, where: Predicate, opts: CommitOptions = {}): Promise<DeleteResult> {
  const cache = new Map<string, { outcome: { meta: GroupJson; deleted: number } | null; read: boolean }>();
  let count = 0;
  let groupsRead = 0;
  let groupsSkipped = 0;
  const build = async (base: SnapshotJson): Promise<SnapshotJson> => {
    const fields = fieldsOf(base);
    const bp = bindPredicate(where, fields, table);
    count = 0;
    groupsRead = 0;
    groupsSkipped = 0;
    const files: DataFileJson[] = [];
    for (const file of base.files) {
      let groups: GroupJson[] | null = null;
      for (let g = 0; g < file.groups.length; g++) {
        const meta = file.groups[g]!;
        const key = groupKey(file, g, meta, base);
        let hit = cache.get(key);
        if (hit === undefined) {
          hit = { outcome: null, read: false };
          if (classify(bp, meta.live, (slot) => groupStats(meta, bp.fields[slot]!, base.options.zoneRows)) !== 'none') {
            hit.read = true;
            const rows = await GroupRows.open(store, table, fields, file, g);
            const add = await matchingPositions(rows, bp);
            if (add.length > 0) hit.outcome = { meta: await withDeletes(store, table, fields, rows, add), deleted: add.length };
          }
          cache.set(key, hit);
        }
        if (hit.read) groupsRead++;
        else groupsSkipped++;
        const outcome = hit.outcome;
        if (outcome !== null) {
          groups ??= file.groups.slice();
          groups[g] = outcome.meta;
          count += outcome.deleted;
        }
      }
      files.push(groups === null ? file : { ...file, groups });
    }
    return { ...base, operation: 'delete', files, summary: { command: 'delete', rows: count } };
  };
  const latest = await latestSnapshot(store, table);
  await build(latest);
  if (count === 0) return { deleted: 0, snapshot: latest, groupsRead, groupsSkipped };
  const snapshot = await commit(store, table, build, opts);
  return { deleted: count, snapshot, groupsRead, groupsSkipped };
}

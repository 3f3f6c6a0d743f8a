/**
 * Statistics of one column over a row group as the snapshot records them, including columns
 * added after the group was written (ADD COLUMN changes metadata only): every row of such a
 * group holds the column's default, so its statistics are exact and synthetic — computed
 * over a constant column zone by zone exactly as a scan would see it (so float sums agree).
 */
import { type Column, ColumnBuilder, parseText, type Field } from '../types/index.js';
import type { GroupJson } from '../storage/index.js';
import { type ColumnStats, computeStats, emptyStats, mergeStats, statsFromJson } from '../stats/index.js';

const constants = new Map<string, Column>();

/** A column of `rows` copies of the field's default (NULL when it has none); cached. */
export function constantColumn(f: Field, rows: number): Column {
  const key = `${f.fieldId}:${f.default ?? ''}:${f.default === undefined}:${rows}`;
  let c = constants.get(key);
  if (c === undefined) {
    const b = new ColumnBuilder(f.type, rows);
    const v = f.default === undefined ? null : parseText(f.type, f.default);
    for (let i = 0; i < rows; i++) b.append(v);
    c = b.finish();
    if (constants.size > 64) constants.clear();
    constants.set(key, c);
  }
  return c;
}

/** Statistics of `f` over the live rows of group `g` (zones of `zoneRows` rows). */
export function groupStats(g: GroupJson, f: Field, zoneRows: number): ColumnStats {
  const j = g.columns[String(f.fieldId)];
  if (j !== undefined) return statsFromJson(f.type, j);
  return constantStats(f, g.live, zoneRows);
}

/** Statistics of `rows` rows holding the default of `f`, merged zone by zone. */
export function constantStats(f: Field, rows: number, zoneRows: number): ColumnStats {
  if (f.default === undefined || rows === 0) return { ...emptyStats(), rows, nulls: rows };
  let total: ColumnStats | null = null;
  for (let at = 0; at < rows; at += zoneRows) {
    const n = Math.min(zoneRows, rows - at);
    const s = computeStats(constantColumn(f, n));
    total = total === null ? s : mergeStats(f.type, total, s);
  }
  return total!;
}

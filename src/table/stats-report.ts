/**
 * The statistics report behind `paxd stats TABLE [--json]` (DESIGN.md "Interfaces"):
 * `{"table", "snapshot", "rows", "deleted_rows", "bytes", "columns": {NAME: {"type", "nulls",
 * "min", "max", "sum"}}, "groups": [...]}`. Counts are JSON numbers; values are strings in
 * PostgreSQL's text format so that nothing loses precision. Built from the snapshot alone:
 * no data file is read.
 */
import { type Field, type PgType, typeName, formatText } from '../types/index.js';
import { mergeStats, type ColumnStats } from '../stats/index.js';
import { groupStats } from '../scan/index.js';
import { type SnapshotJson, fieldsOf } from '../storage/index.js';

export interface ColumnReport {
  type: string;
  nulls: number;
  min: string | null;
  max: string | null;
  min_exact?: boolean;
  max_exact?: boolean;
  sum: string | null;
}

export interface GroupReport {
  file: string;
  index: number;
  rows: number;
  live: number;
  columns: Record<string, ColumnReport>;
}

export interface FileReport {
  file: string;
  bytes: number;
  rows: number;
  live: number;
  columns: Record<string, ColumnReport>;
}

export interface StatsReport {
  table: string;
  snapshot: number;
  rows: number;
  deleted_rows: number;
  bytes: number;
  columns: Record<string, ColumnReport>;
  files: FileReport[];
  groups: GroupReport[];
}

export function tableStats(t: { snapshot: SnapshotJson }): StatsReport {
  const s = t.snapshot;
  const fields = fieldsOf(s);
  const totals = new Map<number, ColumnStats>();
  const groups: GroupReport[] = [];
  let rows = 0;
  let live = 0;
  let bytes = 0;
  const files: FileReport[] = [];
  for (const file of s.files) {
    bytes += file.size;
    const fileTotals = new Map<number, ColumnStats>();
    let fileRows = 0;
    let fileLive = 0;
    file.groups.forEach((g, index) => {
      rows += g.rows;
      live += g.live;
      fileRows += g.rows;
      fileLive += g.live;
      const columns: Record<string, ColumnReport> = {};
      for (const f of fields) {
        const cs = groupStats(g, f, s.options.zoneRows);
        columns[f.name] = report(f, cs);
        for (const m of [totals, fileTotals]) {
          const prev = m.get(f.fieldId);
          m.set(f.fieldId, prev === undefined ? cs : mergeStats(f.type, prev, cs));
        }
      }
      groups.push({ file: file.path, index, rows: g.rows, live: g.live, columns });
    });
    files.push({ file: file.path, bytes: file.size, rows: fileRows, live: fileLive, columns: reportAll(fields, fileTotals) });
  }
  return { table: s.table, snapshot: s.id, rows: live, deleted_rows: rows - live, bytes, columns: reportAll(fields, totals), files, groups };
}

function reportAll(fields: readonly Field[], totals: Map<number, ColumnStats>): Record<string, ColumnReport> {
  const columns: Record<string, ColumnReport> = {};
  for (const f of fields) {
    const cs = totals.get(f.fieldId);
    columns[f.name] = cs === undefined ? { type: typeName(f.type), nulls: 0, min: null, max: null, sum: null } : report(f, cs);
  }
  return columns;
}

function report(f: Field, s: ColumnStats): ColumnReport {
  const r: ColumnReport = {
    type: typeName(f.type),
    nulls: s.nulls,
    min: s.min === null ? null : formatText(f.type, s.min),
    max: s.max === null ? null : formatText(f.type, s.max),
    sum: formatSum(f.type, s.sum),
  };
  if (!s.minExact) r.min_exact = false;
  if (!s.maxExact) r.max_exact = false;
  return r;
}

function formatSum(t: PgType, sum: ColumnStats['sum']): string | null {
  if (sum === null) return null;
  if (typeof sum === 'string') return sum;
  if (typeof sum === 'bigint') {
    if (t.id === 'numeric') return formatText({ id: 'numeric', precision: 38, scale: t.scale ?? 0 }, sum);
    return sum.toString();
  }
  return formatText({ id: 'float8' }, sum);
}

/**
 * The rows an UPDATE or DELETE changes (docs/WIRE.md "Transactions"): the target table's rows, as its write set
 * sees them, where the bound WHERE is true — with their positions (group key and row in the
 * group, what a delete records), their stored values (what an update copies) and their engine
 * values in the bound query's slots (what SET, RETURNING and the WHERE read).
 *
 *   await matchingRows(db, ws, select, null, (m) => { ... m.positions, m.raw, m.batch ... });
 *
 * The scan runs over the write set's scan snapshot with the WHERE's pushable conjuncts handed
 * to the reader (groups and zones skipped by statistics, ../plan.ts toPredicate); the rest of
 * the WHERE is evaluated by the engine's interpreter (../exec/eval.ts) over the materialized
 * batch. Rows the transaction deleted already are skipped. A ctid restricts the scan to one
 * group and one row.
 */
import { type WriteSet, Table, type Database } from '../../table/index.js';
import { type Field, type Value, getValue, formatDecimal, isDecimal128 } from '../../types/index.js';
import { P, type Predicate, type RowId, formatCtid } from '../../scan/index.js';
import { isCtidField } from '../ctid.js';
import type { BoundSelect } from '../bind.js';
import { conjuncts, E, type Expr } from '../expr.js';
import { toPredicate } from '../plan.js';
import { evaluate } from '../exec/eval.js';
import type { RowBatch } from '../exec/batch.js';

/** Rows of one scan batch that match. */
export interface MatchedRows {
  /** The group's identity in the write set (`path#group`). */
  readonly key: string;
  /** Row positions in the group, one per matching row. */
  readonly positions: readonly number[];
  /** Stored values of every field of the table (field order), one per matching row; empty unless asked for. */
  readonly raw: readonly Value[][];
  /** Engine values of the query's columns (slot order). */
  readonly batch: RowBatch;
}

export async function matchingRows(
  db: Database,
  ws: WriteSet,
  select: BoundSelect,
  ctid: RowId | null,
  each: (m: MatchedRows) => void | Promise<void>,
  raw = false,
): Promise<void> {
  const snapshot = ws.scanSnapshot();
  // Only the columns the statement reads, unless it copies whole rows (UPDATE); ctid is computed.
  const read = select.columns.filter((f) => !isCtidField(f));
  const fields = raw ? ws.fields : read.length > 0 ? read : ws.fields.slice(0, 1);
  let groups: ((file: number, group: number) => boolean) | undefined;
  if (ctid !== null) {
    const g = ws.locate(ctid.unit);
    if (g === null || ctid.row >= g.file.groups[g.group]!.rows) return;
    const fi = snapshot.files.indexOf(g.file);
    groups = (file, group) => file === fi && group === g.group;
  }
  const pushed: Predicate[] = [];
  const residual: Expr[] = [];
  for (const c of select.where === null ? [] : conjuncts(select.where)) {
    const p = toPredicate(c, select.columns);
    if (p === null) residual.push(c);
    else pushed.push(p);
  }
  const rest = residual.length === 0 ? null : E.and(residual);
  const slotOf = select.columns.map((f) => fields.findIndex((x) => x.fieldId === f.fieldId));
  const table = new Table(ws.store, ws.table, snapshot);
  const scan = table.scan({
    columns: fields.map((f) => f.name),
    ...(pushed.length > 0 ? { where: P.and(...pushed) } : {}),
    ...(groups !== undefined ? { groups } : {}),
  });
  await scan.begin();
  try {
    for (let b = await scan.next(); b !== null; b = await scan.next()) {
      db.checkInterrupts(); // a cancelled statement stops at the next batch
      const at = scan.position;
      const key = `${snapshot.files[at.file]!.path}#${at.group}`;
      const sel = b.selection;
      const n = sel === null ? b.length : sel.length;
      let idx: number[] = [];
      for (let i = 0; i < n; i++) {
        const r = sel === null ? i : sel[i]!;
        const pos = at.row + r;
        if (ctid !== null && pos !== ctid.row) continue;
        if (ws.isDeleted(key, pos)) continue;
        idx.push(r);
      }
      if (idx.length === 0) continue;
      const cols = slotOf.map((j) => (j < 0 ? idx.map((r) => formatCtid(at.unit, at.row + r)) : engineValues(fields[j]!, b.columns[j]!, idx)));
      if (rest !== null) {
        const ok = evaluate(rest, { rows: idx.length, cols });
        const keep: number[] = [];
        for (let i = 0; i < idx.length; i++) if (ok[i] === true) keep.push(i);
        if (keep.length === 0) continue;
        if (keep.length < idx.length) {
          idx = keep.map((i) => idx[i]!);
          for (let s = 0; s < cols.length; s++) cols[s] = keep.map((i) => cols[s]![i]!);
        }
      }
      const stored = raw ? fields.map((_, j) => idx.map((r) => getValue(b.columns[j]!, r))) : [];
      await each({ key, positions: idx.map((r) => at.row + r), raw: stored, batch: { rows: idx.length, cols } });
    }
  } finally {
    await scan.end();
  }
}

/** Engine values (numeric(p,s) as exact text) of a stored column at `idx`. */
function engineValues(f: Field, c: Parameters<typeof getValue>[0], idx: readonly number[]): Value[] {
  const scale = isDecimal128(f.type) ? (f.type.scale ?? 0) : -1;
  return idx.map((r) => {
    const v = getValue(c, r);
    return scale >= 0 && v !== null ? formatDecimal(v as bigint, scale) : v;
  });
}

/** Engine values of stored values of field `f`. */
export function toEngine(f: Field, values: readonly Value[]): Value[] {
  if (!isDecimal128(f.type)) return values as Value[];
  const scale = f.type.scale ?? 0;
  return values.map((v) => (v === null ? null : formatDecimal(v as bigint, scale)));
}

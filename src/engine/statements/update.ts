/**
 * UPDATE name [[AS] alias] SET column = expression | DEFAULT [, …] [FROM …] [WHERE condition]
 *   [RETURNING …] (docs/WIRE.md "Transactions").
 *
 * An update is a delete plus an insert, in one snapshot: the old rows' positions go to the
 * write set's deletes, the new rows (every column copied but those SET) to its inserts
 * (src/table/write-set.ts). Any WHERE the engine evaluates works (./positions.ts); so does
 * postgres_fdw's `WHERE ctid = $1`. Each SET value is coerced to its column by PostgreSQL's
 * assignment rules (./assign.ts: 42804, 22003, …); a NULL in a NOT NULL column is 23502. The
 * tag is `UPDATE n`; RETURNING evaluates over the new rows. FROM joins go through
 * ./join-write.ts (RETURNING with FROM is 0A000); WITH is 0A000.
 *
 *   UPDATE t SET v = 'upd', n = n * 2 WHERE id = 5        -- UPDATE 1
 *   UPDATE t SET v = v || '!' WHERE id >= 7 RETURNING id, v
 */
import type { Database } from '../../table/index.js';
import { type Field, type PgType, type Value, SQLSTATE, parseText } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf } from '../parse.js';
import { openTable } from '../bind.js';
import { notSupported, positionOf, SqlError, undefinedColumn } from '../errors.js';
import { evaluate } from '../exec/eval.js';
import { engineType } from '../types.js';
import type { QueryResult, ResultField } from '../result.js';
import { assignValue, checkAssignable } from './assign.js';
import { matchingRows, toEngine } from './positions.js';
import { scanDatabase, targetName, withWriteSet } from './target.js';
import { bindJoined, joinedRows, rowKey } from './join-write.js';
import { type BoundWrite, bindOverTarget, evalCtid, inferCtidParam, returningRows, splitCtid } from './where.js';

interface SetItem {
  readonly field: Field;
  /** The value expression, or null for DEFAULT. */
  readonly value: AstNode | null;
  readonly location: number;
}

export async function update(db: Database, s: AstFields): Promise<QueryResult> {
  if (s.withClause !== undefined) throw notSupported('WITH');
  const rel = s.relation as AstFields;
  const returning = (s.returningList ?? []) as AstNode[];
  const from = (s.fromClause ?? []) as AstNode[];
  if (from.length > 0 && returning.length > 0) throw notSupported('UPDATE … FROM with RETURNING');
  const { ctid, rest } = splitCtid(s.whereClause as AstNode | undefined);
  const out: Value[][] = [];
  let fields: readonly ResultField[] = [];
  const count = await withWriteSet(db, rel, 'update', async (ws) => {
    out.length = 0;
    const items = setItems(s, ws.fields, ws.table);
    const exprs = items.filter((i) => i.value !== null);
    if (ctid === null) await ws.flush(); // buffered rows are the table's rows too
    // Per table field: -1 keeps the old value, else the SET item's index.
    const setOf = ws.fields.map((f) => items.findIndex((i) => i.field.fieldId === f.fieldId));
    const exprOf = items.map((i) => exprs.indexOf(i));
    const defaultOf = (f: Field, rows: number) => new Array<Value>(rows).fill(f.default === undefined ? null : parseText(f.type, f.default));
    if (from.length > 0) {
      const joined = await joinedRows(db, rel, ws.fields, from, s.whereClause as AstNode | undefined, exprs.map((i) => i.value!), []);
      exprs.forEach((it, k) => {
        if (!joined.setUnknown[k]) checkAssignable(joined.setTypes[k]!, it.field, it.location);
      });
      const all = await bindOverTarget(scanDatabase(db, ws), rel, [], [], undefined);
      let n = 0;
      await matchingRows(db, ws, all.select, null, async (m) => {
        const engine = ws.fields.map((f, j) => toEngine(f, m.raw[j]!));
        const hits: { i: number; set: readonly Value[] }[] = [];
        for (let i = 0; i < m.positions.length; i++) {
          const hit = joined.rows.get(rowKey(ws.fields, engine.map((c) => c[i]!)));
          if (hit !== undefined) hits.push({ i, set: hit.set });
        }
        if (hits.length === 0) return;
        const cols = ws.fields.map((f, j): Value[] => {
          const i = setOf[j]!;
          if (i < 0) return hits.map((h) => m.raw[j]![h.i]!);
          const k = exprOf[i]!;
          if (k < 0) return defaultOf(f, hits.length);
          return hits.map((h) => assignValue(joined.setTypes[k]!, joined.setUnknown[k]!, f, h.set[k]!));
        });
        for (const h of hits) ws.deleteRow(m.key, m.positions[h.i]!);
        await ws.insert(cols);
        n += hits.length;
      }, true);
      return n;
    }
    const w = await bindOverTarget(scanDatabase(db, ws), rel, exprs.map((i) => i.value!), returning, rest);
    fields = w.fields.slice(exprs.length);
    exprs.forEach((it, k) => {
      if (!w.unknown[k]) checkAssignable(w.select.targets[k]!.expr.type, it.field, it.location);
    });
    const row = ctid === null ? null : evalCtid(ctid);
    if (ctid !== null && row === null) return 0;
    let n = 0;
    await matchingRows(db, ws, w.select, row, async (m) => {
      const rows = m.positions.length;
      const values = exprs.map((_, k) => evaluate(w.select.targets[k]!.expr, m.batch));
      const cols = ws.fields.map((f, j): Value[] => {
        const i = setOf[j]!;
        if (i < 0) return m.raw[j]!;
        const k = exprOf[i]!;
        if (k < 0) return defaultOf(f, rows);
        const t = w.select.targets[k]!.expr;
        return values[k]!.map((v) => assignValue(t.type, w.unknown[k]!, f, v));
      });
      for (const p of m.positions) ws.deleteRow(m.key, p);
      await ws.insert(cols);
      n += rows;
      if (returning.length > 0) returningRows(w, exprs.length, newBatch(w, ws.fields, cols, rows), out);
    }, true);
    return n;
  });
  return { command: 'UPDATE', tag: `UPDATE ${count}`, fields: returning.length > 0 ? fields : [], rows: out };
}

/** The new rows in the bound query's slots, as engine values. */
function newBatch(w: BoundWrite, all: readonly Field[], cols: readonly Value[][], rows: number): { rows: number; cols: Value[][] } {
  return {
    rows,
    cols: w.select.columns.map((f) => {
      const j = all.findIndex((x) => x.fieldId === f.fieldId);
      // The new row version has no ctid until a read of the transaction stages it.
      return j < 0 ? new Array<Value>(rows).fill(null) : toEngine(all[j]!, cols[j]!);
    }),
  };
}

/** SET items: unknown columns are 42703, a column set twice 42601, as PostgreSQL. */
function setItems(s: AstFields, fields: readonly Field[], table: string): SetItem[] {
  const seen = new Set<string>();
  return ((s.targetList ?? []) as AstNode[]).map((n) => {
    const t = fieldsOf(n);
    if (kindOf(t.val as AstNode) === 'MultiAssignRef') throw notSupported('UPDATE with a multiple-column assignment', t.location);
    if (t.indirection !== undefined) throw notSupported('UPDATE of subfields or array elements', t.location);
    const name = t.name as string;
    const field = fields.find((f) => f.name === name);
    if (field === undefined) throw undefinedColumn(name, t.location, table);
    if (seen.has(name)) throw new SqlError('invalid_input', SQLSTATE.syntax_error, `multiple assignments to same column "${name}"`, positionOf(t.location));
    seen.add(name);
    const value = kindOf(t.val as AstNode) === 'SetToDefault' ? null : (t.val as AstNode);
    return { field, value, location: t.location as number };
  });
}

/**
 * Describe (the infer phase): a bare `$n` SET value takes its column's type, `ctid = $n` is
 * text, the rest as the binder infers; the fields RETURNING gives, or null without it.
 */
export async function describeUpdate(db: Database, s: AstFields, types: (PgType | null)[]): Promise<ResultField[] | null> {
  const rel = s.relation as AstFields;
  const table = await openTable(db, targetName(rel), rel.location as number);
  const items = setItems(s, table.fields, table.name);
  for (const it of items)
    if (it.value !== null && kindOf(it.value) === 'ParamRef') {
      const k = (fieldsOf(it.value).number as number) - 1;
      while (types.length <= k) types.push(null);
      types[k] ??= engineType(it.field.type);
    }
  const { ctid, rest } = splitCtid(s.whereClause as AstNode | undefined);
  if (ctid !== null) inferCtidParam(ctid, types);
  const exprs = items.filter((i) => i.value !== null).map((i) => i.value!);
  const returning = (s.returningList ?? []) as AstNode[];
  if (s.fromClause !== undefined) {
    await bindJoined(db, rel, table.fields, s.fromClause as AstNode[], s.whereClause as AstNode | undefined, exprs, []);
    return null;
  }
  const w = await bindOverTarget(db, rel, exprs, returning, rest);
  return returning.length > 0 ? [...w.fields.slice(exprs.length)] : null;
}

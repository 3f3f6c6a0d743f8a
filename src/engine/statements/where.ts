/**
 * What UPDATE and DELETE share (docs/WIRE.md "Transactions"): binding their expressions over the target table,
 * the `ctid = …` condition of postgres_fdw's row-by-row path, and RETURNING.
 *
 * SET values, RETURNING items and the WHERE are bound as the query
 * `SELECT <set values…>, <returning items…> FROM <target> WHERE <condition>` by the engine's
 * binder (../bind.ts), so they accept exactly what a SELECT accepts, aliases included, and
 * `$n` get their types as there. A `ctid = $1` conjunct is taken out first: ctid is not a
 * column, it names a row of the write set's staged list (src/scan/ctid.ts).
 */
import type { Database } from '../../table/index.js';
import { type PgType, type Value, aggregateNotAllowed, invalidInput, undefinedParameter } from '../../types/index.js';
import { parseCtid, type RowId } from '../../scan/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, str } from '../parse.js';
import { type BoundSelect, bindQuery, bindValue, queryFields, queryUnknown } from '../bind.js';
import { notSupported } from '../errors.js';
import { evaluate } from '../exec/eval.js';
import type { RowBatch } from '../exec/batch.js';
import type { ResultField } from '../result.js';
import { currentContext } from '../context.js';
import { resolveInitPlans } from '../exec/init-plans.js';
import { runQuery } from '../exec/run.js';

export interface BoundWrite {
  readonly select: BoundSelect;
  /** Per target: a string literal still of type unknown (it takes its column's type). */
  readonly unknown: readonly boolean[];
  readonly fields: readonly ResultField[];
}

const ONE: AstNode = { A_Const: { ival: { ival: 1 }, location: -1 } };

/**
 * Binds `values` (expressions) and then `returning` (ResTarget nodes) as the target list of a
 * SELECT over `rel`, with `where`. Aggregates are 42803 as in PostgreSQL.
 */
export async function bindOverTarget(db: Database, rel: AstFields, values: readonly AstNode[], returning: readonly AstNode[], where: AstNode | undefined): Promise<BoundWrite> {
  const targetList: AstNode[] = [...values.map((val) => ({ ResTarget: { val, location: fieldsOf(val).location ?? -1 } })), ...returning];
  if (targetList.length === 0) targetList.push({ ResTarget: { val: ONE, location: -1 } });
  const stmt: AstNode = {
    SelectStmt: {
      targetList,
      fromClause: [{ RangeVar: rel }],
      ...(where !== undefined ? { whereClause: where } : {}),
      limitOption: 'LIMIT_OPTION_DEFAULT',
      op: 'SETOP_NONE',
    },
  };
  const bound = await bindQuery(db, stmt);
  // Executing (not describing): the subqueries of WHERE and RETURNING run now, once (../exec/init-plans.ts).
  const q = currentContext()?.values === null ? bound : await resolveInitPlans(bound, runQuery);
  if (q.kind !== 'select') throw notSupported('this UPDATE or DELETE');
  if (q.select.grouping !== null)
    throw aggregateNotAllowed(returning.length > 0 ? 'RETURNING' : 'UPDATE');
  return { select: q.select, unknown: queryUnknown(q), fields: queryFields(q) };
}

/** The WHERE split into its `ctid = x` conjunct (the value node) and the rest. */
export function splitCtid(where: AstNode | undefined): { ctid: AstNode | null; rest: AstNode | undefined } {
  if (where === undefined) return { ctid: null, rest: undefined };
  const value = ctidValue(where);
  if (value !== null) return { ctid: value, rest: undefined };
  if (kindOf(where) === 'BoolExpr' && fieldsOf(where).boolop === 'AND_EXPR') {
    const args = fieldsOf(where).args as AstNode[];
    const i = args.findIndex((a) => ctidValue(a) !== null);
    if (i >= 0) {
      const others = args.filter((_, j) => j !== i);
      const rest = others.length === 1 ? others[0]! : { BoolExpr: { ...fieldsOf(where), args: others } };
      return { ctid: ctidValue(args[i]!), rest };
    }
  }
  return { ctid: null, rest: where };
}

function isCtidRef(n: AstNode): boolean {
  if (kindOf(n) !== 'ColumnRef') return false;
  const parts = fieldsOf(n).fields as AstNode[];
  const last = parts[parts.length - 1]!;
  return kindOf(last) === 'String' && str(last) === 'ctid';
}

function ctidValue(n: AstNode): AstNode | null {
  if (kindOf(n) !== 'A_Expr') return null;
  const e = fieldsOf(n);
  if (e.kind !== 'AEXPR_OP' || (e.name as AstNode[]).length !== 1 || str((e.name as AstNode[])[0]!) !== '=') return null;
  if (isCtidRef(e.lexpr)) return e.rexpr as AstNode;
  if (isCtidRef(e.rexpr)) return e.lexpr as AstNode;
  return null;
}

/** A `::tid` cast is PostgreSQL's type for the value; paxd reads its text. */
function uncast(n: AstNode): AstNode {
  if (kindOf(n) !== 'TypeCast') return n;
  const names = (fieldsOf(n).typeName as AstFields).names as AstNode[];
  const last = str(names[names.length - 1]!);
  if (last !== 'tid') throw notSupported(`comparing ctid with a value of type ${last}`);
  return fieldsOf(n).arg as AstNode;
}

/** In the infer phase: a bare `$n` compared with ctid is text (the tid's text form). */
export function inferCtidParam(value: AstNode, types: (PgType | null)[]): void {
  const v = uncast(value);
  if (kindOf(v) !== 'ParamRef') return;
  const k = (fieldsOf(v).number as number) - 1;
  while (types.length <= k) types.push(null);
  types[k] ??= { id: 'text' };
}

/** The row a `ctid = value` names, or null when it names none (NULL, or past any group). 22P02 for text that is no tid. */
export function evalCtid(value: AstNode): RowId | null {
  const v = uncast(value);
  if (kindOf(v) === 'ParamRef') {
    const k = (fieldsOf(v).number as number) - 1;
    const ctx = currentContext();
    const raw = ctx?.values?.[k];
    if (raw === undefined) throw undefinedParameter(k + 1);
    return rowOf(raw);
  }
  const e = bindValue(v, 'WHERE');
  return rowOf(evaluate(e, { rows: 1, cols: [] })[0]!);
}

function rowOf(v: Value): RowId | null {
  if (v === null) return null;
  const text = String(v);
  const r = parseCtid(text);
  if (r === null) {
    if (/^\s*\(\s*\d+\s*,\s*\d+\s*\)\s*$/.test(text)) return { unit: Number.MAX_SAFE_INTEGER, row: 0 };
    throw invalidInput('tid', text);
  }
  return r;
}

/** RETURNING rows: targets [from, to) of the bound query over `batch`. */
export function returningRows(w: BoundWrite, from: number, batch: RowBatch, out: Value[][]): void {
  const cols = w.select.targets.slice(from).map((t) => evaluate(t.expr, batch));
  for (let i = 0; i < batch.rows; i++) out.push(cols.map((c) => c[i]!));
}

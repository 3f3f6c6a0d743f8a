/**
 * InitPlans (../ir.ts `InitPlan`; PostgreSQL's executor runs them the same way, "InitPlan" in
 * its EXPLAIN): the uncorrelated subqueries in a query's expressions run here, once per
 * execution, before the query is planned, and each `subquery` node (../expr.ts) becomes what
 * its result says:
 *
 *   scalar        the value, as a constant (NULL for no row; 21000 for more than one)
 *   exists        true or false
 *   any / all     the OR / AND of the InitPlan's comparison with each distinct value; an
 *                 IN list of more than MEMBERSHIP_MIN_VALUES values becomes one membership
 *                 test (`inSet`), which the scan takes as a pushed IN list (its zone maps skip
 *                 groups, and it compiles a long list to one hash lookup, ../../scan/compile.ts)
 *                 and the interpreter as a hash lookup per row (a hashed semi-join).
 *
 * Constants the binder could not fold while the value was unknown (a cast of the subquery's
 * value) are folded here, so that the planner can push comparisons with them into scans
 * exactly as it pushes literals. The binder runs nothing; a prepared statement's bound query
 * stays as it was, and each execution resolves its own InitPlans.
 */
import { type PgType, type Value, SQLSTATE, unreachable } from '../../types/index.js';
import { type Expr, BOOL, E, childrenOf, substitute } from '../expr.js';
import { type BoundQuery, type InitPlan, type Leaf, holdsLateralParams, initPlansOf, mapQuery } from '../ir.js';
import type { QueryResult } from '../result.js';
import { SqlError } from '../errors.js';
import { castValue } from './kernels.js';
import { keyNorm, keyText } from './key.js';

/** Runs a bound query to its rows (./run.ts `runQuery`, given by the caller to keep this module below it). */
export type QueryRunner = (q: BoundQuery) => Promise<QueryResult>;

/** IN lists with more distinct values than this become one membership test rather than an OR list. */
export const MEMBERSHIP_MIN_VALUES = 64;

/** The types whose equality is the equality of their grouping keys (./key.ts), so a set can test membership. */
export const HASHABLE: ReadonlySet<string> = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'text', 'varchar', 'date', 'timestamp', 'timestamptz', 'bool', 'uuid', 'bytea']);

/** `q` with the InitPlans of its own level run and their results in place (no InitPlan left at that level). */
export async function resolveInitPlans(q: BoundQuery, runQuery: QueryRunner): Promise<BoundQuery> {
  const plans = initPlansOf(q);
  if (plans.length === 0) return q;
  const results: Expr[] = [];
  for (const ip of plans) results.push(await resultOf(ip, runQuery));
  const put = (e: Expr): Expr => substitute(e, (x) => (x.kind === 'subquery' ? results[x.id]! : null));
  return withoutInitPlans(mapQuery(q, put, false));
}

function withoutInitPlans(q: BoundQuery): BoundQuery {
  if (q.kind === 'select') return Object.freeze({ kind: 'select', select: Object.freeze({ ...q.select, initPlans: Object.freeze([]) }) });
  if (q.kind === 'join-select') return Object.freeze({ ...q, initPlans: Object.freeze([]) });
  return q;
}

/**
 * `q` with the InitPlans of every level resolved: its own, its FROM subqueries' and its UNION
 * sides'. EXPLAIN describes the plan that runs, and that plan depends on their rows.
 */
export async function resolveAllInitPlans(q: BoundQuery, runQuery: QueryRunner): Promise<BoundQuery> {
  const top = await resolveInitPlans(q, runQuery);
  switch (top.kind) {
    case 'select':
      return top;
    case 'union':
      return Object.freeze({ ...top, left: await resolveAllInitPlans(top.left, runQuery), right: await resolveAllInitPlans(top.right, runQuery) });
    case 'join-select': {
      const leaves: Leaf[] = [];
      // A dependent join's right side (../bind/correlated.ts, LATERAL) runs its InitPlans per outer tuple.
      for (const l of top.leaves) leaves.push(l.source.kind !== 'subquery' || holdsLateralParams(l.source.query) ? l : Object.freeze({ ...l, source: Object.freeze({ kind: 'subquery', query: await resolveAllInitPlans(l.source.query, runQuery) }) }));
      return Object.freeze({ ...top, leaves: Object.freeze(leaves) });
    }
    case 'cte-scan':
      return Object.freeze({ ...top, cte: Object.freeze({ ...top.cte, query: await resolveAllInitPlans(top.cte.query, runQuery) }) });
    case 'recursive-union':
      return Object.freeze({ ...top, nonRecursive: await resolveAllInitPlans(top.nonRecursive, runQuery), recursive: await resolveAllInitPlans(top.recursive, runQuery) });
    case 'worktable':
    case 'values':
      return top;
    default:
      return unreachable(top);
  }
}

/** The expression that stands for an InitPlan's result once it ran. */
async function resultOf(ip: InitPlan, runQuery: QueryRunner): Promise<Expr> {
  const r = await runQuery(ip.query);
  switch (ip.kind) {
    case 'exists':
      return E.const(r.rows.length > 0, BOOL);
    case 'scalar':
      if (r.rows.length > 1) throw new SqlError('invalid_input', SQLSTATE.cardinality_violation, 'more than one row returned by a subquery used as an expression');
      return E.const(r.rows[0]?.[0] ?? null, r.fields[0]!.type);
    case 'any':
    case 'all':
      return comparisons(ip, r.fields[0]!.type, r.rows.map((row) => row[0]!));
    default:
      return unreachable(ip);
  }
}

/** `x op ANY|ALL (values)`: the OR (AND) of the comparisons with the distinct values, or one membership test. */
function comparisons(ip: Extract<InitPlan, { kind: 'any' | 'all' }>, type: PgType, rows: readonly Value[]): Expr {
  const norm = keyNorm(type);
  const seen = new Set<string>();
  const values: Value[] = [];
  for (const v of rows) {
    // A whole WHERE conjunct treats NULL as false: a NULL in an IN list changes nothing there.
    if (v === null && ip.conjunct && ip.kind === 'any') continue;
    const k = keyText(v, norm);
    if (seen.has(k)) continue;
    seen.add(k);
    values.push(v);
  }
  if (values.length === 0) return E.const(ip.kind === 'all', BOOL);
  const member = values.length > MEMBERSHIP_MIN_VALUES && ip.kind === 'any' ? membership(ip.test, type, values) : null;
  if (member !== null) return member;
  const parts = values.map((v) => fold(substitute(ip.test, (x) => (x.kind === 'element' ? E.const(v, type) : null))));
  return ip.kind === 'any' ? E.or(parts) : E.and(parts);
}

/**
 * `x = element` over many values as `x IN set`: the element side (maybe cast to the
 * comparison's type) is computed for each value. Null when the comparison has another shape
 * (a date comparison, jsonb keys) or a type whose equality is not its key's.
 */
function membership(test: Expr, type: PgType, values: readonly Value[]): Expr | null {
  if (test.kind !== 'cmp' || test.op !== '=' || hasElement(test.left) || !hasElement(test.right) || !HASHABLE.has(test.left.type.id) || test.left.type.id !== test.right.type.id) return null;
  const norm = keyNorm(test.right.type);
  const seen = new Set<string>();
  const members: Value[] = [];
  let hasNull = false;
  for (const v of values) {
    const e = fold(substitute(test.right, (x) => (x.kind === 'element' ? E.const(v, type) : null)));
    if (e.kind !== 'const') return null;
    if (e.value === null) {
      hasNull = true;
      continue;
    }
    const k = keyText(e.value, norm);
    if (seen.has(k)) continue;
    seen.add(k);
    members.push(e.value);
  }
  return E.inSet(test.left, members, hasNull);
}

function hasElement(e: Expr): boolean {
  return e.kind === 'element' || childrenOf(e).some(hasElement);
}

/** A cast of a constant, computed (the binder folds those of literals the same way). */
export function fold(e: Expr): Expr {
  return substitute(e, (x) => {
    if (x.kind !== 'cast') return null;
    const arg = fold(x.arg);
    if (arg.kind !== 'const') return E.cast(arg, x.type, x.explicit === true);
    return E.const(arg.value === null ? null : castValue(arg.type, x.type, arg.value, x.explicit === true), x.type);
  });
}

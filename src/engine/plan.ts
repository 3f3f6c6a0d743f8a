/**
 * The planner: a bound query becomes one of these immutable plans, choosing what the scan
 * layer can do for it (DESIGN.md "The source contract"):
 *
 *   stats-aggregate  plain aggregates of bare columns, no GROUP BY, WHERE fully pushed:
 *                    Table.aggregate answers whole row groups from their statistics.
 *   top-n            ORDER BY bare columns with LIMIT, no aggregation, WHERE fully pushed:
 *                    Table.topN keeps a bounded heap and pushes a running bound into the scan.
 *   pipeline         scan → filter → [hash aggregate → HAVING] → project → [sort] → limit.
 *   relational       joins and subqueries in FROM (./join-plan.ts), then as pipeline.
 *   union            UNION [ALL] of two plans.
 *   init-plans       a query whose subqueries in expressions must run first (./exec/init-plans.ts).
 *   cte-scan         the rows of a materialized WITH query, run once per statement (./exec/cte-scan.ts).
 *   worktable        a recursive WITH query's previous iteration (./exec/cte-scan.ts).
 *   recursive-union  WITH RECURSIVE's iteration (./exec/set/recursive-union.ts).
 *   values           VALUES rows (./exec/values-scan.ts).
 * The last four plan the queries below them when they run them (a recursive term is planned
 * again at each iteration, over that iteration's work table).
 *
 * Every plan reads only the columns the query names. WHERE conjuncts that compare a bare
 * column with a constant of the column's own type (=, <>, <, <=, >, >=, IS [NOT] NULL, and
 * AND/OR/NOT of those, which covers BETWEEN and IN lists) are pushed into the scan, where zone
 * maps skip groups and zones; so are a bare boolean column and an integer column widened to
 * a constant's integer type when the constant fits the column's. The rest is the residual
 * filter the engine evaluates. DELETE uses the same translation (./statements/delete.ts).
 * A query that reads ctid (./ctid.ts) is always an interpreted pipeline: its values come from
 * the scan's batch positions.
 */
import type { AggSpec, OrderKey, Predicate } from '../scan/index.js';
import { P } from '../scan/index.js';
import { unreachable } from '../types/index.js';
import { type BoundCteScan, type BoundJoinSelect, type BoundQuery, type BoundRecursiveUnion, type BoundSelect, type BoundSetOp, type BoundValues, type BoundWorkTable, initPlansOf } from './ir.js';
import { type Expr, E, conjuncts } from './expr.js';
import { type RelNode, planJoins } from './join-plan.js';
import { toPredicate } from './pushdown.js';
import { isCtidField } from './ctid.js';

/** DELETE and UPDATE (./statements/positions.ts) push their WHERE as plans do. */
export { toPredicate } from './pushdown.js';

export type Plan =
  | { readonly kind: 'stats-aggregate'; readonly query: BoundSelect; readonly specs: readonly AggSpec[]; readonly where: Predicate | undefined }
  | { readonly kind: 'top-n'; readonly query: BoundSelect; readonly orderBy: readonly OrderKey[]; readonly where: Predicate | undefined }
  | { readonly kind: 'pipeline'; readonly query: BoundSelect; readonly where: Predicate | undefined; readonly residual: Expr | null }
  /** Joins and subqueries in FROM (./join-plan.ts) → [hash aggregate → HAVING] → project → [sort] → limit. */
  | { readonly kind: 'relational'; readonly query: BoundJoinSelect; readonly root: RelNode }
  /** UNION [ALL]: both sides, cast to the union's types, [deduplicated], [sorted], limited. */
  | { readonly kind: 'union'; readonly query: BoundSetOp; readonly left: Plan; readonly right: Plan }
  /**
   * A query with InitPlans (./ir.ts `InitPlan`): planned once they have run, at execution
   * (./exec/init-plans.ts), since what their rows are decides the plan (an OR list pushed into
   * the scan, a membership test).
   */
  | { readonly kind: 'init-plans'; readonly query: BoundQuery }
  | { readonly kind: 'cte-scan'; readonly query: BoundCteScan }
  | { readonly kind: 'worktable'; readonly query: BoundWorkTable }
  | { readonly kind: 'recursive-union'; readonly query: BoundRecursiveUnion }
  | { readonly kind: 'values'; readonly query: BoundValues };

/** The plan of any bound query; a single-table SELECT gets `plan`'s. */
export function planQuery(q: BoundQuery): Plan {
  if (initPlansOf(q).length > 0) return Object.freeze({ kind: 'init-plans', query: q });
  switch (q.kind) {
    case 'select':
      return plan(q.select);
    case 'join-select':
      return Object.freeze({ kind: 'relational', query: q, root: planJoins(q) });
    case 'union':
      return Object.freeze({ kind: 'union', query: q, left: planQuery(q.left), right: planQuery(q.right) });
    case 'cte-scan':
      return Object.freeze({ kind: 'cte-scan', query: q });
    case 'worktable':
      return Object.freeze({ kind: 'worktable', query: q });
    case 'recursive-union':
      return Object.freeze({ kind: 'recursive-union', query: q });
    case 'values':
      return Object.freeze({ kind: 'values', query: q });
    default:
      return unreachable(q);
  }
}

export function plan(q: BoundSelect): Plan {
  const pushed: Predicate[] = [];
  const residual: Expr[] = [];
  for (const c of q.where === null ? [] : conjuncts(q.where)) {
    const p = toPredicate(c, q.columns);
    if (p === null) residual.push(c);
    else pushed.push(p);
  }
  const where = pushed.length === 0 ? undefined : P.and(...pushed);
  const rest = residual.length === 0 ? null : E.and(residual);

  // ctid comes from the scan's batch positions: only the interpreted pipeline reads it.
  if (q.columns.some(isCtidField)) return Object.freeze({ kind: 'pipeline', query: q, where, residual: rest });
  if (rest === null && q.grouping !== null && q.grouping.keys.length === 0 && q.having === null) {
    const specs = q.grouping.aggs.map((a): AggSpec | null => {
      if (a.arg === null) return { fn: 'count_star' };
      if (a.distinct || a.order !== undefined || !STATS_AGGREGATES.has(a.fn)) return null;
      return a.arg.kind === 'column' ? { fn: a.fn as AggSpec['fn'], column: q.columns[a.arg.slot]!.name } : null;
    });
    if (specs.every((s) => s !== null)) return Object.freeze({ kind: 'stats-aggregate', query: q, specs: specs as AggSpec[], where });
  }
  if (rest === null && q.grouping === null && !q.distinct && q.distinctOn === undefined && q.windows === undefined && q.limit !== null && q.orderBy.length > 0 && q.orderBy.every((o) => o.expr.kind === 'column')) {
    const orderBy = q.orderBy.map((o): OrderKey => ({ column: (o.expr as Extract<Expr, { kind: 'column' }>).name, desc: o.desc, nullsFirst: o.nullsFirst }));
    return Object.freeze({ kind: 'top-n', query: q, orderBy, where });
  }
  return Object.freeze({ kind: 'pipeline', query: q, where, residual: rest });
}

/** The aggregates Table.aggregate answers (from statistics where it can). */
const STATS_AGGREGATES: ReadonlySet<string> = new Set<AggSpec['fn']>(['count', 'sum', 'avg', 'min', 'max']);

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
import { type Field, type Value, unreachable } from '../types/index.js';
import type { BoundJoinSelect, BoundQuery, BoundSelect, BoundSetOp } from './bind.js';
import { type Expr, E, conjuncts } from './expr.js';
import { type RelNode, planJoins } from './join-plan.js';
import { isCtidField } from './ctid.js';

export type Plan =
  | { readonly kind: 'stats-aggregate'; readonly query: BoundSelect; readonly specs: readonly AggSpec[]; readonly where: Predicate | undefined }
  | { readonly kind: 'top-n'; readonly query: BoundSelect; readonly orderBy: readonly OrderKey[]; readonly where: Predicate | undefined }
  | { readonly kind: 'pipeline'; readonly query: BoundSelect; readonly where: Predicate | undefined; readonly residual: Expr | null }
  /** Joins and subqueries in FROM (./join-plan.ts) → [hash aggregate → HAVING] → project → [sort] → limit. */
  | { readonly kind: 'relational'; readonly query: BoundJoinSelect; readonly root: RelNode }
  /** UNION [ALL]: both sides, cast to the union's types, [deduplicated], [sorted], limited. */
  | { readonly kind: 'union'; readonly query: BoundSetOp; readonly left: Plan; readonly right: Plan };

/** The plan of any bound query; a single-table SELECT gets `plan`'s. */
export function planQuery(q: BoundQuery): Plan {
  switch (q.kind) {
    case 'select':
      return plan(q.select);
    case 'join-select':
      return Object.freeze({ kind: 'relational', query: q, root: planJoins(q) });
    case 'union':
      return Object.freeze({ kind: 'union', query: q, left: planQuery(q.left), right: planQuery(q.right) });
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
  if (rest === null && q.grouping === null && !q.distinct && q.limit !== null && q.orderBy.length > 0 && q.orderBy.every((o) => o.expr.kind === 'column')) {
    const orderBy = q.orderBy.map((o): OrderKey => ({ column: (o.expr as Extract<Expr, { kind: 'column' }>).name, desc: o.desc, nullsFirst: o.nullsFirst }));
    return Object.freeze({ kind: 'top-n', query: q, orderBy, where });
  }
  return Object.freeze({ kind: 'pipeline', query: q, where, residual: rest });
}

/** The aggregates Table.aggregate answers (from statistics where it can). */
const STATS_AGGREGATES: ReadonlySet<string> = new Set<AggSpec['fn']>(['count', 'sum', 'avg', 'min', 'max']);

const FLIP = { '=': '=', '<>': '<>', '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as const;

/** The scan predicate equal to `e`, or null when `e` is not over bare columns and constants. */
export function toPredicate(e: Expr, columns: readonly Field[]): Predicate | null {
  switch (e.kind) {
    case 'cmp': {
      let col = e.left;
      let val = e.right;
      let op = e.op;
      if (col.kind !== 'column' && col.kind !== 'cast') {
        [col, val] = [val, col];
        op = FLIP[op];
      }
      // bpchar(n) compared as bpchar: the binder's cast to the column's own type changes nothing.
      if (col.kind === 'cast' && col.arg.kind === 'column' && col.type.id === 'bpchar' && col.arg.type.id === 'bpchar' && (col.type.length === undefined || col.type.length === col.arg.type.length)) col = col.arg;
      if (col.kind === 'cast' && val.kind === 'const') {
        // An integer column widened for the comparison (int2 = int4 literal): push when the
        // constant fits the column's type, in that type; otherwise it stays residual.
        const narrowed = narrowInteger(col, val.value);
        if (narrowed === null) return null;
        [col, val] = narrowed;
      }
      if (col.kind !== 'column' || val.kind !== 'const') return null;
      const f = columns[col.slot]!;
      if (isCtidField(f)) return null;
      // Only where the constant is already of the stored type: numeric (text in the engine,
      // rounded by the scan's parser) stays residual for now. bpchar compares as the scan
      // does it (trailing spaces insignificant, statistics without them).
      if (f.type.id !== col.type.id || f.type.id === 'numeric' || val.type.id !== f.type.id) return null;
      if (val.value === null) return null;
      return { kind: 'cmp', column: f.name, op, value: val.value };
    }
    case 'column':
      // A bare boolean column is `col = true` (NULL is not true either way).
      return e.type.id === 'bool' && columns[e.slot]!.type.id === 'bool' ? { kind: 'cmp', column: columns[e.slot]!.name, op: '=', value: true } : null;
    case 'isNull':
      if (e.arg.kind !== 'column') return null;
      return e.negated ? P.isNotNull(columns[e.arg.slot]!.name) : P.isNull(columns[e.arg.slot]!.name);
    case 'and':
    case 'or': {
      const args = e.args.map((a) => toPredicate(a, columns));
      if (args.some((a) => a === null)) return null;
      return e.kind === 'and' ? P.all(args as Predicate[]) : P.any(args as Predicate[]);
    }
    case 'not': {
      const a = toPredicate(e.arg, columns);
      return a === null ? null : P.not(a);
    }
    default:
      return null;
  }
}

const INT_RANGE: Record<string, readonly [bigint, bigint]> = {
  int2: [-32768n, 32767n],
  int4: [-2147483648n, 2147483647n],
  int8: [-(2n ** 63n), 2n ** 63n - 1n],
};

/** `cast(intcol) op const` as `intcol op const'` when both are integers and the constant fits. */
function narrowInteger(c: Extract<Expr, { kind: 'cast' }>, v: Value): [Expr, Expr] | null {
  const col = c.arg;
  if (col.kind !== 'column' || INT_RANGE[col.type.id] === undefined || INT_RANGE[c.type.id] === undefined || v === null) return null;
  if (typeof v !== 'number' && typeof v !== 'bigint') return null;
  const b = BigInt(v);
  const [lo, hi] = INT_RANGE[col.type.id]!;
  if (b < lo || b > hi) return null;
  return [col, E.const(col.type.id === 'int8' ? b : Number(b), col.type)];
}

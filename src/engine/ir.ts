/**
 * The bound IR of a query: what the binder (./bind.ts) produces and every later stage (./plan.ts,
 * ./join-plan.ts, ./exec/, ./compile/, ./explain.ts) reads. Nodes are immutable values (frozen
 * by their builders), so a bound statement can be kept and run again; expressions are
 * ./expr.ts's. Nothing here runs anything.
 */
import type { Table } from '../table/index.js';
import { type Field, type PgType, type Value, unreachable } from '../types/index.js';
import { type CmpOp, type Expr, childrenOf as exprChildren } from './expr.js';

export type AggName =
  | 'count' | 'sum' | 'avg' | 'min' | 'max' | 'bool_and' | 'bool_or'
  | 'stddev_samp' | 'stddev_pop' | 'var_samp' | 'var_pop'
  /** Collecting aggregates (./exec/hash-aggregate.ts keeps their inputs, sorted at the end). */
  | 'string_agg' | 'array_agg' | 'percentile_cont' | 'percentile_disc';

/** One aggregate call; `arg` reads the scan's columns, null for count(*). */
export interface AggCall {
  readonly fn: AggName;
  readonly arg: Expr | null;
  readonly type: PgType;
  /** count(DISTINCT x) and friends: each distinct non-NULL value counts once. */
  readonly distinct: boolean;
  /** `agg(x ORDER BY …)`, and an ordered-set aggregate's WITHIN GROUP (ORDER BY x). */
  readonly order?: readonly OrderItem[];
  /** A constant argument: string_agg's delimiter, a percentile's fraction. */
  readonly param?: Value;
  /** FILTER (WHERE …) of a collecting aggregate: only the rows where it is true are kept. */
  readonly filter?: Expr;
}

/** The aggregates that keep their inputs until the end. */
export const COLLECTING_AGGREGATES: ReadonlySet<AggName> = new Set<AggName>(['string_agg', 'array_agg', 'percentile_cont', 'percentile_disc']);

export interface OrderItem {
  readonly expr: Expr;
  readonly desc: boolean;
  readonly nullsFirst: boolean;
}

export interface Target {
  readonly name: string;
  readonly expr: Expr;
  /**
   * The output column's type with the typmod PostgreSQL's exprTypmod keeps, where it differs
   * from `expr.type` (the engine computes numeric(p,s) as numeric): a numeric(p,s) column or a
   * cast to numeric(p,s). RowDescription sends its typmod.
   */
  readonly declared?: PgType;
}


/**
 * An uncorrelated subquery in an expression (PostgreSQL's InitPlan): bound here, run once per
 * execution before the plan of the query that holds it (./exec/init-plans.ts), its result put
 * where its `subquery` expression (./expr.ts) stands. `id` is its index in the query's
 * `initPlans`.
 *
 *   scalar  `(SELECT max(k) FROM t)`: its one value (NULL over no row, 21000 over two)
 *   exists  `EXISTS (…)`
 *   any     `x op ANY (…)`, `x IN (…)`: the OR of `test` over the subquery's distinct values
 *   all     `x op ALL (…)`: their AND
 *
 * `test` is `x op element`, typed by the binder once for every row (./expr.ts `element`).
 * `conjunct`: the subquery is a whole conjunct of WHERE, where NULL means false, so a NULL
 * among its values can be dropped and the rest tested as a set.
 */
export type InitPlan =
  | { readonly kind: 'scalar' | 'exists'; readonly id: number; readonly query: BoundQuery }
  | { readonly kind: 'any' | 'all'; readonly id: number; readonly query: BoundQuery; readonly op: CmpOp; readonly test: Expr; readonly conjunct: boolean };

/**
 * Window functions (PostgreSQL 15 docs 3.5, 4.2.8, 9.22): what ./bind/window.ts makes of a
 * SELECT's `f(…) OVER (…)` calls and its WINDOW clause, run by the WindowAgg step
 * (./exec/window/) between HAVING and the final projection. The calls of a query level are
 * numbered; call k's result is column `base + k` of the rows the step hands on (`base` is the
 * width of its input: the scan's or the join's slots, or the group keys and the aggregates),
 * which targets and ORDER BY read as ordinary columns.
 */
/** The built-in window functions (docs table 9.63); aggregates over frames are AggCalls. */
export type WindowFnName = 'row_number' | 'rank' | 'dense_rank' | 'percent_rank' | 'cume_dist' | 'ntile' | 'lag' | 'lead' | 'first_value' | 'last_value' | 'nth_value';

export type FrameUnit = 'rows' | 'range' | 'groups';

/**
 * A frame bound. `unbounded` is UNBOUNDED PRECEDING as a start and UNBOUNDED FOLLOWING as an
 * end. An offset bound's `offset` is int8 for ROWS and GROUPS; for RANGE, `key` is the
 * window's ORDER BY key cast to the type of `bound`, the key plus or minus the offset (minus
 * for PRECEDING over an ascending key), so that a row is in range when its `key` compares to
 * the current row's `bound` (PostgreSQL's in_range support functions).
 */
export type FrameBound =
  | { readonly kind: 'unbounded' }
  | { readonly kind: 'current' }
  | { readonly kind: 'offset'; readonly following: boolean; readonly offset: Expr; readonly range?: { readonly key: Expr; readonly bound: Expr } };

export type FrameExclusion = 'no-others' | 'current' | 'group' | 'ties';

export interface Frame {
  readonly unit: FrameUnit;
  readonly start: FrameBound;
  readonly end: FrameBound;
  readonly exclude: FrameExclusion;
}

/** The default frame: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW (peers included). */
export const DEFAULT_FRAME: Frame = Object.freeze({ unit: 'range', start: Object.freeze({ kind: 'unbounded' }), end: Object.freeze({ kind: 'current' }), exclude: 'no-others' });

export interface WindowSpec {
  readonly partition: readonly Expr[];
  readonly order: readonly OrderItem[];
  readonly frame: Frame;
  /** For EXPLAIN: the WINDOW clause's name, else w1, w2, … as PostgreSQL 16 prints them. */
  readonly name: string;
}

export type WindowCall =
  | { readonly kind: 'fn'; readonly fn: WindowFnName; readonly args: readonly Expr[]; readonly type: PgType; readonly window: number }
  /** An aggregate over the frame; FILTER is in `agg` as ./ir.ts keeps it. */
  | { readonly kind: 'agg'; readonly agg: AggCall; readonly type: PgType; readonly window: number };

export interface WindowClause {
  readonly specs: readonly WindowSpec[];
  readonly calls: readonly WindowCall[];
  /** The width of the rows the step reads; call k's result is column base + k. */
  readonly base: number;
}

/**
 * GROUPING SETS, ROLLUP, CUBE (./bind/grouping-sets.ts): each set's key indices; the last key is
 * the set's number, which ./exec/aggregate/grouping-sets.ts fills, and keys not in a set are NULL.
 */
export type GroupingSetList = readonly (readonly number[])[];

/** What every SELECT binds to, over one table or over joins: its clauses after FROM. */
export interface SelectClauses {
  readonly where: Expr | null;
  /** Null when the query does not aggregate; else the keys (maybe none) and the aggregates. */
  readonly grouping: { readonly keys: readonly Expr[]; readonly aggs: readonly AggCall[]; readonly sets?: GroupingSetList } | null;
  readonly having: Expr | null;
  readonly targets: readonly Target[];
  readonly orderBy: readonly OrderItem[];
  readonly limit: number | null;
  readonly offset: number;
  /** SELECT DISTINCT: duplicate output rows are removed before ORDER BY and LIMIT. */
  readonly distinct: boolean;
  /**
   * SELECT DISTINCT ON (keys) (./bind/distinct-on.ts): after the sort, the first row of each run
   * of rows equal on the keys, which are the first items of `orderBy`; then LIMIT.
   */
  readonly distinctOn?: readonly Expr[];
  /** The subqueries of its expressions, run before it (see InitPlan). */
  readonly initPlans: readonly InitPlan[];
  /** Window function calls (WindowClause above), run after HAVING; absent when there are none. */
  readonly windows?: WindowClause;
}

export interface BoundSelect extends SelectClauses {
  readonly table: Table;
  /** The table's fields the query reads, in slot order. */
  readonly columns: readonly Field[];
}

/**
 * A FROM item names resolve against: a table or a subquery in FROM (joins). `alias`
 * is the name that qualifies its columns (the alias, else the table's name).
 */
export interface Leaf {
  readonly alias: string;
  readonly fields: readonly Field[];
  /** A leaf the binder added (the subquery of a semi/anti-join): its names are not visible. */
  readonly hidden?: boolean;
  /** `one-row`: the single empty row a SELECT without FROM reads. */
  readonly source:
    | { readonly kind: 'table'; readonly table: Table }
    /** `view`: the view it expands (./bind/view.ts), which RowDescription names as its columns' table (./origin.ts). */
    | { readonly kind: 'subquery'; readonly query: BoundQuery; readonly view?: Table }
    | { readonly kind: 'one-row' }
    /** A function in FROM (./bind/function-from.ts): each call's columns (one, or its OUT / column definition list's), then WITH ORDINALITY's int8; the calls are the FROM node's `args`. */
    | { readonly kind: 'function'; readonly calls: readonly { readonly name: string; readonly type: PgType }[]; readonly ordinality: boolean };
}

/** The `$n` numbers from here on are a LATERAL subquery's outer columns (./bind/function-from.ts), filled per left row. */
export const LATERAL_PARAM_BASE = 1 << 24;
/** A LATERAL scope nested d deep numbers its parameters from LATERAL_PARAM_BASE + d × this (./bind/lateral-scope.ts). */
export const LATERAL_PARAM_STRIDE = 1 << 12;

/** One slot of a relational query's row layout: a field of a leaf. */
export interface SlotColumn {
  readonly leaf: number;
  readonly field: Field;
}

/**
 * `semi`: the left rows with at least one match (a WHERE conjunct `EXISTS (…)` correlated by
 * equalities); `anti`: those with none (NOT EXISTS).
 */
export type JoinType = 'inner' | 'left' | 'right' | 'full' | 'cross' | 'semi' | 'anti';

/** The FROM clause as a tree; comma lists are left-deep cross joins (their conditions are in WHERE). */
export type FromNode =
  /** `args`: a function leaf's calls, or a LATERAL subquery's outer columns (./bind/function-from.ts). */
  | { readonly kind: 'leaf'; readonly leaf: number; readonly args?: readonly Expr[] }
  | { readonly kind: 'join'; readonly type: JoinType; readonly left: FromNode; readonly right: FromNode; readonly on: Expr | null };

/**
 * A SELECT over joins or subqueries in FROM. Expressions read the global row layout
 * `columns` (each slot a field of one leaf); after aggregation, as in BoundSelect, the group
 * keys followed by the aggregates. The other fields mean what they mean in BoundSelect.
 */
export interface BoundJoinSelect extends SelectClauses {
  readonly kind: 'join-select';
  readonly leaves: readonly Leaf[];
  readonly columns: readonly SlotColumn[];
  readonly from: FromNode;
}

/** UNION [ALL]: both sides' rows cast to the column types PostgreSQL unifies them to. */
export interface BoundSetOp {
  readonly kind: 'union';
  readonly all: boolean;
  readonly left: BoundQuery;
  readonly right: BoundQuery;
  readonly fields: readonly { readonly name: string; readonly type: PgType }[];
  /** ORDER BY over the union: output column positions (0-based). */
  readonly orderBy: readonly { readonly index: number; readonly desc: boolean; readonly nullsFirst: boolean }[];
  readonly limit: number | null;
  readonly offset: number;
  /** INTERSECT or EXCEPT [ALL] (./exec/set/set-op.ts); absent for UNION. */
  readonly setOp?: 'intersect' | 'except';
}

/** An output column of a query that has no select list of its own (VALUES, CTEs). */
export interface QueryField {
  readonly name: string;
  readonly type: PgType;
  /** The type with its typmod (numeric(10,2)) where `type`, the engine's, dropped it (see Target.declared). */
  readonly declared?: PgType;
}

/**
 * A WITH query run once per statement and scanned by every reference (PostgreSQL 15 docs
 * 7.8.3: referenced more than once, MATERIALIZED, or recursive). `id` keys its rows in the
 * running statement (./exec/cte-scan.ts), so that copies of the node (a bound statement with
 * its parameters put in) still share one run. `fields` carry the CTE's column aliases.
 */
export interface BoundCte {
  readonly id: number;
  readonly name: string;
  readonly query: BoundQuery;
  readonly fields: readonly QueryField[];
}

/** PostgreSQL's CTE Scan: the rows of a materialized WITH query. */
export interface BoundCteScan {
  readonly kind: 'cte-scan';
  readonly cte: BoundCte;
}

/** PostgreSQL's WorkTable Scan: the rows the previous iteration of recursive CTE `id` added. */
export interface BoundWorkTable {
  readonly kind: 'worktable';
  readonly id: number;
  readonly name: string;
  readonly fields: readonly QueryField[];
}

/**
 * WITH RECURSIVE's `non-recursive term UNION [ALL] recursive term` (PostgreSQL 15 docs 7.8.2,
 * ./exec/set/recursive-union.ts): the recursive term reads the work table `id` and runs until it
 * adds no row. Both terms' rows are cast to `fields`, the non-recursive term's types.
 */
export interface BoundRecursiveUnion {
  readonly kind: 'recursive-union';
  readonly id: number;
  readonly name: string;
  readonly all: boolean;
  readonly nonRecursive: BoundQuery;
  readonly recursive: BoundQuery;
  readonly fields: readonly QueryField[];
}

/**
 * VALUES as a query (top level, in FROM, a UNION side, a CTE): its rows' expressions already
 * cast to the columns' types (PostgreSQL 15 docs 10.5), columns named column1, column2, ….
 * `VALUES … ORDER BY … LIMIT …` binds as `SELECT * FROM (VALUES …) "*VALUES*" ORDER BY …`.
 */
export interface BoundValues {
  readonly kind: 'values';
  readonly rows: readonly (readonly Expr[])[];
  readonly fields: readonly QueryField[];
}

/** Any query: a single-table SELECT keeps the BoundSelect the fast paths know. */
export type BoundQuery = { readonly kind: 'select'; readonly select: BoundSelect } | BoundJoinSelect | BoundSetOp | BoundCteScan | BoundWorkTable | BoundRecursiveUnion | BoundValues;

/** A result column as the front doors describe it. */
export function outputField(t: Target): { name: string; type: PgType; declared?: PgType } {
  return t.declared === undefined ? { name: t.name, type: t.expr.type } : { name: t.name, type: t.expr.type, declared: t.declared };
}

/** The output columns of a bound query (names and types), without running it. */
export function queryFields(q: BoundQuery): { name: string; type: PgType; declared?: PgType }[] {
  switch (q.kind) {
    case 'select':
      return q.select.targets.map(outputField);
    case 'join-select':
      return q.targets.map(outputField);
    case 'union':
      return [...q.fields];
    case 'cte-scan':
      return [...q.cte.fields];
    case 'worktable':
    case 'recursive-union':
    case 'values':
      return [...q.fields];
    default:
      return unreachable(q);
  }
}


/** The leaves under a FROM node, left to right. */
export function leavesOf(n: FromNode): number[] {
  return n.kind === 'leaf' ? [n.leaf] : [...leavesOf(n.left), ...leavesOf(n.right)];
}

/** The InitPlans of this query level (those of its FROM subqueries and UNION sides run with them). */
export function initPlansOf(q: BoundQuery): readonly InitPlan[] {
  switch (q.kind) {
    case 'select':
      return q.select.initPlans;
    case 'join-select':
      return q.initPlans;
    case 'union':
    case 'cte-scan':
    case 'worktable':
    case 'recursive-union':
    case 'values':
      return [];
    default:
      return unreachable(q);
  }
}

/**
 * `q` with `f` applied to each expression of its own level: WHERE, the targets, GROUP BY keys and
 * aggregate arguments, HAVING, ORDER BY, JOIN … ON, and its InitPlans' comparisons. `deep`:
 * also those of every query below (FROM subqueries, UNION sides, InitPlans' queries).
 */
/** Whether a query reads parameters of a LATERAL scope (a dependent join's right side, run per outer tuple). */
export function holdsLateralParams(q: BoundQuery): boolean {
  let found = false;
  const visit = (e: Expr): boolean => (e.kind === 'param' && e.index >= LATERAL_PARAM_BASE) || exprChildren(e).some(visit);
  mapQuery(
    q,
    (e) => {
      if (!found && visit(e)) found = true;
      return e;
    },
    true,
  );
  return found;
}

export function mapQuery(q: BoundQuery, f: (e: Expr) => Expr, deep: boolean): BoundQuery {
  const sub = (x: BoundQuery) => (deep ? mapQuery(x, f, true) : x);
  switch (q.kind) {
    case 'select':
      return Object.freeze({ kind: 'select', select: Object.freeze({ ...q.select, ...mapCore(q.select, f, sub) }) });
    case 'join-select': {
      const leaves = q.leaves.map((l) => (l.source.kind !== 'subquery' || !deep ? l : Object.freeze({ ...l, source: Object.freeze({ kind: 'subquery' as const, query: sub(l.source.query) }) })));
      return Object.freeze({ ...q, ...mapCore(q, f, sub), leaves: Object.freeze(leaves), from: mapFrom(q.from, f) });
    }
    case 'union':
      return deep ? Object.freeze({ ...q, left: sub(q.left), right: sub(q.right) }) : q;
    case 'cte-scan':
      return deep ? Object.freeze({ ...q, cte: Object.freeze({ ...q.cte, query: sub(q.cte.query) }) }) : q;
    case 'worktable':
      return q;
    case 'recursive-union':
      return deep ? Object.freeze({ ...q, nonRecursive: sub(q.nonRecursive), recursive: sub(q.recursive) }) : q;
    case 'values':
      return Object.freeze({ ...q, rows: Object.freeze(q.rows.map((r) => Object.freeze(r.map(f)))) });
    default:
      return unreachable(q);
  }
}

type Core = Pick<BoundSelect, 'where' | 'grouping' | 'having' | 'targets' | 'orderBy' | 'initPlans' | 'windows'>;

function mapCore(q: Core, f: (e: Expr) => Expr, sub: (x: BoundQuery) => BoundQuery): Core {
  const opt = (e: Expr | null) => (e === null ? null : f(e));
  const order = (o: OrderItem): OrderItem => Object.freeze({ ...o, expr: f(o.expr) });
  const agg = (a: AggCall): AggCall =>
    Object.freeze({
      ...a,
      arg: opt(a.arg),
      ...(a.order !== undefined ? { order: Object.freeze(a.order.map(order)) } : {}),
      ...(a.filter !== undefined ? { filter: f(a.filter) } : {}),
    });
  const initPlan = (ip: InitPlan): InitPlan => (ip.kind === 'any' || ip.kind === 'all' ? Object.freeze({ ...ip, query: sub(ip.query), test: f(ip.test) }) : Object.freeze({ ...ip, query: sub(ip.query) }));
  return {
    where: opt(q.where),
    grouping: q.grouping === null ? null : Object.freeze({ keys: Object.freeze(q.grouping.keys.map(f)), aggs: Object.freeze(q.grouping.aggs.map(agg)), ...(q.grouping.sets === undefined ? {} : { sets: q.grouping.sets }) }),
    having: opt(q.having),
    targets: Object.freeze(q.targets.map((t): Target => Object.freeze({ ...t, expr: f(t.expr) }))),
    orderBy: Object.freeze(q.orderBy.map(order)),
    initPlans: Object.freeze(q.initPlans.map(initPlan)),
    ...(q.windows === undefined ? {} : { windows: mapWindows(q.windows, f) }),
  };
}

/** `w` with `f` applied to each of its expressions (./ir.ts mapQuery). */
export function mapWindows(w: WindowClause, f: (e: Expr) => Expr): WindowClause {
  const order = (o: OrderItem): OrderItem => Object.freeze({ ...o, expr: f(o.expr) });
  const bound = (b: FrameBound): FrameBound =>
    b.kind !== 'offset' ? b : Object.freeze({ ...b, offset: f(b.offset), ...(b.range === undefined ? {} : { range: Object.freeze({ key: f(b.range.key), bound: f(b.range.bound) }) }) });
  const specs = w.specs.map((s): WindowSpec => Object.freeze({ ...s, partition: Object.freeze(s.partition.map(f)), order: Object.freeze(s.order.map(order)), frame: Object.freeze({ ...s.frame, start: bound(s.frame.start), end: bound(s.frame.end) }) }));
  const calls = w.calls.map((c): WindowCall => {
    if (c.kind === 'fn') return Object.freeze({ ...c, args: Object.freeze(c.args.map(f)) });
    const a = c.agg;
    return Object.freeze({ ...c, agg: Object.freeze({ ...a, arg: a.arg === null ? null : f(a.arg), ...(a.filter !== undefined ? { filter: f(a.filter) } : {}) }) });
  });
  return Object.freeze({ specs: Object.freeze(specs), calls: Object.freeze(calls), base: w.base });
}

function mapFrom(n: FromNode, f: (e: Expr) => Expr): FromNode {
  if (n.kind === 'leaf') return n.args === undefined ? n : Object.freeze({ ...n, args: Object.freeze(n.args.map(f)) });
  return Object.freeze({ ...n, left: mapFrom(n.left, f), right: mapFrom(n.right, f), on: n.on === null ? null : f(n.on) });
}

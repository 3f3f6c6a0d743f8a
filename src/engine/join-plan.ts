/**
 * Planning a relational query (a BoundJoinSelect): its FROM tree becomes a tree of RelNodes,
 * scans and subqueries at the leaves, hash joins above them (docs/ARCHITECTURE.md "The SQL engine").
 *
 *   - Conditions are split into conjuncts. One that reads a single leaf goes down into that
 *     leaf's scan (into the zone maps when ./plan.ts `toPredicate` can say it there, else as the
 *     scan's filter), unless the leaf is on the nullable side of an outer join above it.
 *   - Inner and cross joins (and comma lists) are one join group: starting from the largest
 *     input (the probe side that streams), the planner repeatedly joins the smallest input
 *     connected to what it has by an equality, taking every conjunct that becomes evaluable.
 *     Equalities between the two sides are the hash keys; the rest is the join filter.
 *   - The build side (the hash table) is the smaller estimated input; a join without an
 *     equality between its sides is a nested loop over the materialized smaller side.
 *   - Estimates: a scan's rows come from its table's group statistics (./cost.ts, as EXPLAIN
 *     shows them: zone maps, min/max ranges, the residual filter's selectivity); a join's are
 *     |L| × |R| / the keys' distinct bound (`joinEstimate`).
 *
 * Every node's output is a wide batch: one column per slot of the query's row layout, filled
 * for the slots of the leaves below the node (`slots`), so expressions bound against the
 * global layout run at any node.
 */
import { type Field, unreachable } from '../types/index.js';
import type { Predicate } from '../scan/index.js';
import { P } from '../scan/index.js';
import type { Table } from '../table/index.js';
import { type BoundJoinSelect, type BoundQuery, type FromNode, type JoinType, leavesOf } from './ir.js';
import { type Expr, E, childrenOf, conjuncts } from './expr.js';
import { categoryOf } from './types.js';
import { toPredicate } from './pushdown.js';
import { factorOrs } from './optimize/or-factor.js';
import { type FunctionNode, type LateralNode, isLateralJoin, planFunctionFrom } from './lateral-plan.js';
import { type ColumnSource, DEFAULT_DISTINCT, columnDistinct, estimateScan, residualSelectivity } from './cost.js';

export type RelNode =
  | {
      readonly kind: 'scan';
      readonly leaf: number;
      readonly alias: string;
      readonly table: Table;
      /** The stored fields read, and the global slot each fills. */
      readonly fields: readonly Field[];
      readonly slots: readonly number[];
      readonly where: Predicate | undefined;
      readonly filter: Expr | null;
      readonly est: number;
    }
  | {
      readonly kind: 'subquery';
      readonly leaf: number;
      readonly alias: string;
      readonly query: BoundQuery;
      /** Per output column of the subquery, the global slot it fills (-1: not read). */
      readonly columnSlots: readonly number[];
      readonly slots: readonly number[];
      readonly filter: Expr | null;
      readonly est: number;
    }
  /** A function in FROM, and a LATERAL join (./lateral-plan.ts). */
  | FunctionNode
  | LateralNode<RelNode>
  /** The one empty row of a SELECT without FROM (PostgreSQL's Result node). */
  | { readonly kind: 'result'; readonly leaf: number; readonly slots: readonly number[]; readonly filter: Expr | null; readonly est: number }
  | {
      readonly kind: 'join';
      /** Outer rows stream through; the build side is materialized (hashed when keyed). */
      readonly probe: RelNode;
      readonly build: RelNode;
      readonly probeKeys: readonly Expr[];
      readonly buildKeys: readonly Expr[];
      /** A semi-join: each probe row once if it has a match; the build side is the subquery's rows. */
      readonly semi: boolean;
      /** An anti-join: the probe rows without a match (NOT EXISTS). */
      readonly anti: boolean;
      /** Outer-join preservation, by execution side. */
      readonly preserveProbe: boolean;
      readonly preserveBuild: boolean;
      /** The join condition beyond the keys (pairs failing it do not match). */
      readonly joinFilter: Expr | null;
      /** WHERE conjuncts applied to the join's output (above an outer join). */
      readonly filter: Expr | null;
      readonly slots: readonly number[];
      readonly est: number;
    };

/** The RelNode tree of a relational query. */
export function planJoins(q: BoundJoinSelect): RelNode {
  return new JoinPlanner(q).node(q.from, q.where === null ? [] : conjuncts(q.where));
}

/** A rough row count of a query's result, for choosing build sides. */
export function estimateQuery(q: BoundQuery): number {
  switch (q.kind) {
    case 'select': {
      const s = q.select;
      let n = s.table.rows * (s.where === null ? 1 : 0.25);
      if (s.grouping !== null) n = s.grouping.keys.length === 0 ? 1 : Math.min(n, 1000);
      return Math.max(1, s.limit === null ? n : Math.min(n, s.limit));
    }
    case 'join-select': {
      let n = planJoins(q).est;
      if (q.grouping !== null) n = q.grouping.keys.length === 0 ? 1 : Math.min(n, 1000);
      return Math.max(1, q.limit === null ? n : Math.min(n, q.limit));
    }
    case 'union': {
      const n = estimateQuery(q.left) + estimateQuery(q.right);
      return q.limit === null ? n : Math.min(n, q.limit);
    }
    case 'cte-scan':
      return estimateQuery(q.cte.query);
    case 'recursive-union':
      // PostgreSQL's guess: ten iterations of the recursive term.
      return estimateQuery(q.nonRecursive) + 10 * estimateQuery(q.recursive);
    case 'worktable':
      return 10;
    case 'values':
      return Math.max(1, q.rows.length);
    default:
      return unreachable(q);
  }
}

const SELECTIVITY = 0.25;
const INTEGRAL_KEYS = new Set(['int2', 'int4', 'int8', 'date']);

class JoinPlanner {
  constructor(private readonly q: BoundJoinSelect) {}

  /** The leaves an expression reads (over the pre-aggregation layout). */
  private leavesIn(e: Expr): Set<number> {
    const out = new Set<number>();
    const visit = (x: Expr): void => {
      if (x.kind === 'column') out.add(this.q.columns[x.slot]!.leaf);
      for (const c of childrenOf(x)) visit(c);
    };
    visit(e);
    return out;
  }

  node(n: FromNode, conds: Expr[]): RelNode {
    const fn = planFunctionFrom<RelNode>(this.q, n, conds, { node: (x, c) => this.node(x, c), subquery: (l) => this.leaf(l, []) as Extract<RelNode, { kind: 'subquery' }>, leavesIn: (e) => this.leavesIn(e) });
    if (fn !== null) return fn;
    if (n.kind === 'leaf') return this.leaf(n.leaf, conds);
    if (n.type === 'inner' || n.type === 'cross') return this.group(n, conds);
    return this.outer(n, n.type, conds);
  }

  private leaf(leaf: number, conds: Expr[]): RelNode {
    const l = this.q.leaves[leaf]!;
    const slots: number[] = [];
    this.q.columns.forEach((c, i) => c.leaf === leaf && slots.push(i));
    const filter = conds.length === 0 ? null : E.and(conds);
    if (l.source.kind === 'subquery') {
      const columnSlots = l.fields.map((f) => this.q.columns.findIndex((c) => c.leaf === leaf && c.field.fieldId === f.fieldId));
      const est = estimateQuery(l.source.query) * SELECTIVITY ** conds.length;
      return Object.freeze({ kind: 'subquery', leaf, alias: l.alias, query: l.source.query, columnSlots, slots, filter, est: Math.max(1, est) });
    }
    if (l.source.kind === 'one-row') return Object.freeze({ kind: 'result', leaf, slots, filter, est: 1 });
    if (l.source.kind === 'function') throw new Error('join planner: function leaves are planned by ./lateral-plan.ts');
    const bySlot: Field[] = [];
    for (const s of slots) bySlot[s] = this.q.columns[s]!.field;
    const pushed: Predicate[] = [];
    const residual: Expr[] = [];
    for (const c of conds) {
      const p = toPredicate(c, bySlot);
      if (p === null) residual.push(c);
      else pushed.push(p);
    }
    const table = l.source.table;
    return Object.freeze({
      kind: 'scan',
      leaf,
      alias: l.alias,
      table,
      fields: slots.map((s) => this.q.columns[s]!.field),
      slots,
      where: pushed.length === 0 ? undefined : P.and(...pushed),
      filter: residual.length === 0 ? null : E.and(residual),
      est: Math.max(1, this.scanEstimate(leaf, table, pushed, residual)),
    });
  }

  /**
   * The rows a leaf's scan returns, from its table's group statistics (./cost.ts, the numbers
   * EXPLAIN shows): the groups the pushed predicate's zone maps keep, the fraction of their
   * min/max ranges it keeps, and the residual filter's selectivity.
   */
  private scanEstimate(leaf: number, table: Table, pushed: Predicate[], residual: Expr[]): number {
    const sourceOf = (c: Expr): ColumnSource | undefined =>
      c.kind === 'column' && this.q.columns[c.slot]!.leaf === leaf ? { table, field: this.q.columns[c.slot]!.field } : undefined;
    const ndv = (c: Expr): number => {
      const src = sourceOf(c);
      return src === undefined ? DEFAULT_DISTINCT : columnDistinct(table, src.field, table.rows);
    };
    const sel = residualSelectivity(residual.length === 0 ? null : E.and(residual), ndv, sourceOf);
    return estimateScan(table, pushed.length === 0 ? undefined : P.and(...pushed), sel, false).rowsOut;
  }

  /** Inner and cross joins: one group of inputs joined greedily, as the header says. */
  private group(n: FromNode, outerConds: Expr[]): RelNode {
    const items: FromNode[] = [];
    const conds: Expr[] = [...outerConds];
    const collect = (x: FromNode): void => {
      if (x.kind === 'join' && (x.type === 'inner' || x.type === 'cross') && !isLateralJoin(this.q, x)) {
        collect(x.left);
        collect(x.right);
        if (x.on !== null) conds.push(...conjuncts(x.on));
      } else items.push(x);
    };
    collect(n);
    conds.splice(0, conds.length, ...factorOrs(conds, (e) => this.leavesIn(e)));
    const itemLeaves = items.map((it) => new Set(leavesOf(it)));
    const perItem: Expr[][] = items.map(() => []);
    let pending: { e: Expr; leaves: Set<number> }[] = [];
    for (const c of conds) {
      const ls = this.leavesIn(c);
      const hit = itemLeaves.flatMap((il, i) => ([...ls].some((l) => il.has(l)) ? [i] : []));
      if (hit.length <= 1) perItem[hit[0] ?? 0]!.push(c);
      else pending.push({ e: c, leaves: ls });
    }
    const rels = items.map((it, i) => this.node(it, perItem[i]!));
    const remaining = new Set(items.map((_it, i) => i));
    let start = 0;
    for (const i of remaining) if (rels[i]!.est > rels[start]!.est) start = i;
    remaining.delete(start);
    let cur = rels[start]!;
    const curLeaves = new Set(itemLeaves[start]);
    while (remaining.size > 0) {
      const within = (ls: Set<number>, extra: Set<number>) => [...ls].every((l) => curLeaves.has(l) || extra.has(l));
      // The connected input that keeps the intermediate result smallest (then the smaller build).
      let pick = -1;
      let pickEst = Infinity;
      for (const j of remaining) {
        const keys = pending.flatMap((p) => (within(p.leaves, itemLeaves[j]!) ? [this.keyOf(p.e, curLeaves, itemLeaves[j]!)] : [])).filter((k) => k !== null);
        if (keys.length === 0) continue;
        const est = this.joinEstimate(cur, rels[j]!, keys[0]![0], keys[0]![1]);
        if (pick < 0 || est < pickEst || (est === pickEst && rels[j]!.est < rels[pick]!.est)) {
          pick = j;
          pickEst = est;
        }
      }
      if (pick < 0) for (const j of remaining) if (pick < 0 || rels[j]!.est < rels[pick]!.est) pick = j;
      remaining.delete(pick);
      const now = pending.filter((p) => within(p.leaves, itemLeaves[pick]!));
      pending = pending.filter((p) => !now.includes(p));
      cur = this.join(
        cur,
        rels[pick]!,
        curLeaves,
        itemLeaves[pick]!,
        now.map((p) => p.e),
        'inner',
        [],
      );
      for (const l of itemLeaves[pick]!) curLeaves.add(l);
    }
    if (pending.length > 0) throw new Error(`join planner: ${pending.length} conditions left unplaced`);
    return cur;
  }

  /** LEFT, RIGHT and FULL joins: conditions move only where they keep their meaning. */
  private outer(n: Extract<FromNode, { kind: 'join' }>, type: JoinType, conds: Expr[]): RelNode {
    const leftLeaves = new Set(leavesOf(n.left));
    const rightLeaves = new Set(leavesOf(n.right));
    const nullableLeft = type === 'right' || type === 'full';
    const nullableRight = type === 'left' || type === 'full' || type === 'semi' || type === 'anti';
    const inside = (ls: Set<number>, side: Set<number>) => ls.size > 0 && [...ls].every((l) => side.has(l));
    const leftConds: Expr[] = [];
    const rightConds: Expr[] = [];
    const joinConds: Expr[] = [];
    for (const c of n.on === null ? [] : conjuncts(n.on)) {
      const ls = this.leavesIn(c);
      // An ON conjunct over the nullable side only filters which of its rows can match.
      if ((type === 'left' || type === 'semi' || type === 'anti') && inside(ls, rightLeaves)) rightConds.push(c);
      else if (type === 'right' && inside(ls, leftLeaves)) leftConds.push(c);
      else joinConds.push(c);
    }
    const above: Expr[] = [];
    for (const c of conds) {
      const ls = this.leavesIn(c);
      if (!nullableLeft && inside(ls, leftLeaves)) leftConds.push(c);
      else if (!nullableRight && inside(ls, rightLeaves)) rightConds.push(c);
      else above.push(c);
    }
    const l = this.node(n.left, leftConds);
    const r = this.node(n.right, rightConds);
    return this.join(l, r, leftLeaves, rightLeaves, joinConds, type, above);
  }

  /**
   * Rows out of an equi-join: |L| × |R| / the keys' distinct count, taken as the smaller of the
   * key columns' table sizes (a foreign key meets a primary key: o_custkey = c_custkey has as
   * many distinct values as customer has rows).
   */
  private joinEstimate(l: RelNode, r: RelNode, lk: Expr, rk: Expr): number {
    const nd = Math.min(this.distinctOf(lk) ?? Infinity, this.distinctOf(rk) ?? Infinity);
    return Math.max(1, Number.isFinite(nd) ? (l.est * r.est) / Math.max(1, nd) : Math.max(l.est, r.est));
  }

  /** An upper bound of the distinct values of a key: the row count of its column's input. */
  private distinctOf(e: Expr): number | null {
    const x = e.kind === 'cast' ? e.arg : e;
    if (x.kind !== 'column') return null;
    const l = this.q.leaves[this.q.columns[x.slot]!.leaf]!;
    switch (l.source.kind) {
      case 'table': {
        // Integer-like keys have no more distinct values than their range holds.
        const f = this.q.columns[x.slot]!.field;
        return INTEGRAL_KEYS.has(f.type.id) ? columnDistinct(l.source.table, f, l.source.table.rows) : l.source.table.rows;
      }
      case 'subquery':
        return estimateQuery(l.source.query);
      case 'one-row':
        return 1;
      case 'function':
        return null;
      default:
        return unreachable(l.source);
    }
  }

  /** `a = b` with one side over `x` only and the other over `y` only, as [x side, y side]; else null. */
  private keyOf(e: Expr, x: Set<number>, y: Set<number>): [Expr, Expr] | null {
    if (e.kind !== 'cmp' || e.op !== '=' || categoryOf(e.left.type) === 'other') return null;
    const a = this.leavesIn(e.left);
    const b = this.leavesIn(e.right);
    const over = (s: Set<number>, t: Set<number>) => s.size > 0 && [...s].every((l) => t.has(l));
    if (over(a, x) && over(b, y)) return [e.left, e.right];
    if (over(a, y) && over(b, x)) return [e.right, e.left];
    return null;
  }

  private join(l: RelNode, r: RelNode, lLeaves: Set<number>, rLeaves: Set<number>, conds: Expr[], type: JoinType, above: Expr[]): RelNode {
    const lKeys: Expr[] = [];
    const rKeys: Expr[] = [];
    const rest: Expr[] = [];
    for (const c of conds) {
      const k = this.keyOf(c, lLeaves, rLeaves);
      if (k === null) rest.push(c);
      else {
        lKeys.push(k[0]);
        rKeys.push(k[1]);
      }
    }
    // Integer keys first: the first key is the hashed one, the others are checked in the chain.
    const order = lKeys.map((_k, i) => i).sort((a, b) => rank(lKeys[a]!) - rank(lKeys[b]!));
    const lk = order.map((i) => lKeys[i]!);
    const rk = order.map((i) => rKeys[i]!);
    const preserveL = type === 'left' || type === 'full';
    const preserveR = type === 'right' || type === 'full';
    const semi = type === 'semi' || type === 'anti';
    const buildLeft = !semi && l.est < r.est;
    const est = semi ? l.est * SELECTIVITY : lk.length > 0 ? this.joinEstimate(l, r, lk[0]!, rk[0]!) : l.est * r.est;
    return Object.freeze({
      kind: 'join',
      semi: type === 'semi',
      anti: type === 'anti',
      probe: buildLeft ? r : l,
      build: buildLeft ? l : r,
      probeKeys: buildLeft ? rk : lk,
      buildKeys: buildLeft ? lk : rk,
      preserveProbe: buildLeft ? preserveR : preserveL,
      preserveBuild: buildLeft ? preserveL : preserveR,
      joinFilter: rest.length === 0 ? null : E.and(rest),
      filter: above.length === 0 ? null : E.and(above),
      slots: semi ? l.slots : [...l.slots, ...r.slots].sort((a, b) => a - b),
      est: Math.max(1, est * SELECTIVITY ** above.length),
    });
  }
}

function rank(e: Expr): number {
  switch (e.type.id) {
    case 'int2':
    case 'int4':
    case 'date':
      return 0;
    case 'int8':
    case 'timestamp':
      return 1;
    default:
      return 2;
  }
}

/**
 * Planning functions in FROM and LATERAL joins (./join-plan.ts calls in here first for every
 * FROM node). A function leaf whose calls read no other leaf is a Function Scan, joined as any
 * other input; one that reads leaves to its left, and a LATERAL subquery that names outer
 * columns, make the join above them a dependent join: a nested loop that runs the right side
 * once per left row (./exec/lateral-join.ts), as PostgreSQL does when it cannot decorrelate.
 *
 *   inner / cross   conditions over the left side go down into it; the rest filter the output
 *   left            ON decides which right rows match (unmatched left rows are NULL-extended);
 *                   WHERE conditions over the left side go down, the rest filter the output
 *   right / full    42P10, as in PostgreSQL: the lateral side's rows depend on the left ones
 */
import { SQLSTATE } from '../types/index.js';
import { type BoundJoinSelect, type FromNode, leavesOf } from './ir.js';
import { type Expr, E, childrenOf, conjuncts } from './expr.js';
import { SqlError, notSupported } from './errors.js';

/** The join planner's nodes, as far as this file reads them (./join-plan.ts RelNode). */
interface AnyNode {
  readonly kind: string;
  readonly slots: readonly number[];
  readonly est: number;
}

/**
 * A function in FROM (./exec/function-scan.ts): its calls (expressions over the left rows of a
 * LATERAL join, constants otherwise) run side by side, WITH ORDINALITY's counter after them.
 */
export interface FunctionNode {
  readonly kind: 'function';
  readonly leaf: number;
  readonly alias: string;
  readonly calls: readonly Expr[];
  readonly ordinality: boolean;
  /** Per output column of the function leaf, the global slot it fills (-1: not read). */
  readonly columnSlots: readonly number[];
  readonly slots: readonly number[];
  readonly filter: Expr | null;
  readonly est: number;
}

/**
 * LATERAL (./exec/lateral-join.ts): `right` runs once per row of `left`, a function over that
 * row's columns, or a subquery with `args` (over the left rows) as its outer columns' values.
 * `outer`: LEFT JOIN LATERAL keeps left rows without a match.
 */
export interface LateralNode<R extends AnyNode> {
  readonly kind: 'lateral';
  readonly left: R;
  readonly right: FunctionNode | Extract<R, { kind: 'subquery' }>;
  readonly args: readonly Expr[];
  readonly outer: boolean;
  readonly joinFilter: Expr | null;
  readonly filter: Expr | null;
  readonly slots: readonly number[];
  readonly est: number;
}

/** What the join planner lends: planning of any FROM node and of a subquery leaf, and the leaves an expression reads. */
export interface PlannerHooks<R extends AnyNode> {
  node(n: FromNode, conds: Expr[]): R;
  subquery(leaf: number): Extract<R, { kind: 'subquery' }>;
  leavesIn(e: Expr): Set<number>;
}

/** Rows a function is guessed to return (PostgreSQL's prorows default). */
const FUNCTION_ROWS = 1000;

/** The leaves (other than its own) that a leaf's `args` read: non-empty for a LATERAL item. */
function lateralLeaves(q: BoundJoinSelect, n: FromNode, leavesIn: (e: Expr) => Set<number>): Set<number> {
  const out = new Set<number>();
  if (n.kind !== 'leaf' || n.args === undefined) return out;
  for (const a of n.args) for (const l of leavesIn(a)) if (l !== n.leaf) out.add(l);
  // A LATERAL subquery's args are its outer columns: it is lateral even when they are constants.
  if (q.leaves[n.leaf]!.source.kind === 'subquery' && n.args.length > 0 && out.size === 0) out.add(-1);
  return out;
}

function leavesRead(q: BoundJoinSelect, e: Expr): Set<number> {
  const out = new Set<number>();
  const visit = (x: Expr): void => {
    if (x.kind === 'column') out.add(q.columns[x.slot]!.leaf);
    for (const c of childrenOf(x)) visit(c);
  };
  visit(e);
  return out;
}

/** Whether a join's right side is a LATERAL item (the join planner keeps such a join whole). */
export function isLateralJoin(q: BoundJoinSelect, n: FromNode): boolean {
  return n.kind === 'join' && lateralLeaves(q, n.right, (e) => leavesRead(q, e)).size > 0;
}

/** The slots of a leaf's fields, and the global slot of each of its output columns (-1: not read). */
function slotsOf(q: BoundJoinSelect, leaf: number): { slots: number[]; columnSlots: number[] } {
  const slots: number[] = [];
  q.columns.forEach((c, i) => c.leaf === leaf && slots.push(i));
  const columnSlots = q.leaves[leaf]!.fields.map((f) => q.columns.findIndex((c) => c.leaf === leaf && c.field.fieldId === f.fieldId));
  return { slots, columnSlots };
}

/** A function leaf as a Function Scan node. */
function functionNode(q: BoundJoinSelect, n: Extract<FromNode, { kind: 'leaf' }>, conds: Expr[]): FunctionNode {
  const l = q.leaves[n.leaf]!;
  if (l.source.kind !== 'function') throw notSupported('a function scan over this FROM item');
  const { slots, columnSlots } = slotsOf(q, n.leaf);
  return Object.freeze({ kind: 'function', leaf: n.leaf, alias: l.alias, calls: n.args ?? [], ordinality: l.source.ordinality, columnSlots, slots, filter: conds.length === 0 ? null : E.and(conds), est: FUNCTION_ROWS });
}

/** The RelNode of a function leaf or of a join with a LATERAL right side; null for any other node. */
export function planFunctionFrom<R extends AnyNode>(q: BoundJoinSelect, n: FromNode, conds: Expr[], hooks: PlannerHooks<R>): FunctionNode | LateralNode<R> | null {
  if (n.kind === 'leaf') return q.leaves[n.leaf]!.source.kind === 'function' ? functionNode(q, n, conds) : null;
  if (n.kind !== 'join' || !isLateralJoin(q, n)) return null;
  const right = n.right as Extract<FromNode, { kind: 'leaf' }>;
  const rightLeaf = q.leaves[right.leaf]!;
  if (n.type === 'right' || n.type === 'full')
    throw new SqlError('invalid_input', SQLSTATE.invalid_column_reference, `invalid reference to FROM-clause entry for table "${rightLeaf.alias}"`, undefined);
  const leftLeaves = new Set(leavesOf(n.left));
  const reads = lateralLeaves(q, right, hooks.leavesIn);
  if ([...reads].some((l) => l >= 0 && !leftLeaves.has(l))) throw notSupported('LATERAL references to FROM items outside the left side of its join');
  const overLeft = (c: Expr) => {
    const ls = hooks.leavesIn(c);
    return ls.size > 0 && [...ls].every((l) => leftLeaves.has(l));
  };
  const on = n.on === null ? [] : conjuncts(n.on).filter((c) => !(c.kind === 'const' && c.value === true));
  const outer = n.type === 'left';
  const candidates = outer ? conds : [...on, ...conds];
  const leftConds = candidates.filter(overLeft);
  const above = candidates.filter((c) => !overLeft(c));
  const left = hooks.node(n.left, leftConds);
  let r: FunctionNode | Extract<R, { kind: 'subquery' }>;
  let args: readonly Expr[] = [];
  if (rightLeaf.source.kind === 'function') r = functionNode(q, right, []);
  else if (rightLeaf.source.kind === 'subquery') {
    r = hooks.subquery(right.leaf);
    args = right.args ?? [];
  } else throw notSupported('LATERAL over this FROM item');
  return Object.freeze({
    kind: 'lateral',
    left,
    right: r,
    args,
    outer,
    joinFilter: outer && on.length > 0 ? E.and(on) : null,
    filter: above.length === 0 ? null : E.and(above),
    slots: [...left.slots, ...r.slots].sort((a, b) => a - b),
    est: Math.max(1, left.est * Math.min(r.est, 10)),
  });
}

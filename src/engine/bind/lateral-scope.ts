/**
 * The scopes of LATERAL binding (./function-from.ts), apart from the Binder so that
 * ./scope.ts can consult them: the outer leaves a LATERAL subquery sees, and what the query's
 * Binder binds again for a function leaf or a LATERAL subquery leaf (`leafArgs`).
 */
import { type Field, type PgType, undefinedColumn } from '../../types/index.js';
import type { AstNode } from '../parse.js';
import { type Expr, E } from '../expr.js';
import { engineType } from '../types.js';
import { type BoundQuery, type Leaf, LATERAL_PARAM_BASE, LATERAL_PARAM_STRIDE, queryFields } from '../ir.js';
import { srfScope } from './srf-placement.js';

/** What the Binder binds again for a leaf: a function leaf's calls, a LATERAL subquery's outer columns. */
export const leafCalls = new WeakMap<Leaf, readonly AstNode[]>();
export const leafRefs = new WeakMap<Leaf, readonly LateralRef[]>();

export interface LateralRef {
  readonly leaf: number;
  readonly k: number;
}

/** A binder's call of one AST node in FROM (its scope: the leaves to the left). */
export function bindCall(b: (node: AstNode) => Expr, node: AstNode): Expr {
  srfScope.next = true;
  try {
    return b(node);
  } finally {
    srfScope.next = false;
  }
}

/**
 * The outer scopes of the LATERAL subqueries being bound, innermost last. Each numbers its
 * parameters from its own `base` (one stride per nesting depth), so that a dependent join
 * nested in another fills its own and leaves those of the outer one alone.
 */
export const outerScopes: { readonly leaves: readonly Leaf[]; readonly refs: LateralRef[]; readonly types: PgType[]; readonly base: number }[] = [];

/** A new innermost outer scope over `leaves` (the caller pops it). */
export function openLateralScope(leaves: readonly Leaf[]): (typeof outerScopes)[number] {
  const scope = { leaves: [...leaves], refs: [] as LateralRef[], types: [] as PgType[], base: LATERAL_PARAM_BASE + outerScopes.length * LATERAL_PARAM_STRIDE };
  outerScopes.push(scope);
  return scope;
}

/**
 * A dependent join's right side (./correlated.ts): `stmt` bound as a LATERAL subquery over
 * `leaves`, added to them as a hidden leaf named `alias` (its columns are read qualified only).
 */
export async function bindLateralLeaf(leaves: Leaf[], alias: string, stmt: AstNode, bind: (stmt: AstNode) => Promise<BoundQuery>): Promise<number> {
  const scope = openLateralScope(leaves);
  let query: BoundQuery;
  try {
    query = await bind(stmt);
  } finally {
    outerScopes.pop();
  }
  const fields: Field[] = queryFields(query).map((f, i) => ({ name: f.name, type: f.type, notNull: false, fieldId: i }));
  const leaf: Leaf = Object.freeze({ alias, hidden: true, fields, source: Object.freeze({ kind: 'subquery', query }) });
  leaves.push(leaf);
  if (scope.refs.length > 0) leafRefs.set(leaf, Object.freeze(scope.refs));
  return leaves.length - 1;
}

/**
 * A column reference no FROM item of the query has, resolved in the outer scope of the LATERAL
 * subquery being bound: a parameter the dependent join fills from each left row. Null when no
 * LATERAL scope is open or it has no such column.
 */
export function lateralColumn(parts: readonly string[]): Expr | null {
  // The innermost scope that has the column: a subquery two levels down reads the outer level's parameter.
  for (let d = outerScopes.length - 1; d >= 0; d--) {
    const e = columnIn(outerScopes[d]!, parts);
    if (e !== null) return e;
  }
  return null;
}

function columnIn(scope: (typeof outerScopes)[number], parts: readonly string[]): Expr | null {
  const hits: LateralRef[] = [];
  scope.leaves.forEach((l, leaf) => {
    if (l.hidden === true || (parts.length === 2 && l.alias !== parts[0])) return;
    l.fields.forEach((f, k) => f.name === parts[parts.length - 1] && hits.push({ leaf, k }));
  });
  if (hits.length === 0 && parts.length === 2 && scope.leaves.some((l) => l.alias === parts[0] && l.hidden !== true))
    throw undefinedColumn(parts[1]!, { qualifier: parts[0]! });
  if (hits.length !== 1) return null;
  const hit = hits[0]!;
  let j = scope.refs.findIndex((r) => r.leaf === hit.leaf && r.k === hit.k);
  if (j < 0) {
    scope.refs.push(hit);
    scope.types.push(engineType(scope.leaves[hit.leaf]!.fields[hit.k]!.type));
    j = scope.refs.length - 1;
  }
  return E.param(scope.base + j, scope.types[j]!);
}

/**
 * The expressions a FROM leaf carries (../ir.ts FromNode `args`), bound by the query's Binder:
 * a function leaf's calls (over the leaves to its left), a LATERAL subquery's outer columns;
 * null for other leaves.
 */
export function leafArgs(leaf: Leaf, call: (node: AstNode) => Expr, column: (leaf: number, k: number) => Expr): readonly Expr[] | null {
  const calls = leafCalls.get(leaf);
  if (calls !== undefined) return Object.freeze(calls.map((c) => bindCall(call, c)));
  const refs = leafRefs.get(leaf);
  if (refs !== undefined) return Object.freeze(refs.map((r) => column(r.leaf, r.k)));
  return null;
}

/**
 * The scopes of LATERAL binding (./function-from.ts), apart from the Binder so that
 * ./scope.ts can consult them: the outer leaves a LATERAL subquery sees, and what the query's
 * Binder binds again for a function leaf or a LATERAL subquery leaf (`leafArgs`).
 */
import { type PgType, undefinedColumn } from '../../types/index.js';
import type { AstNode } from '../parse.js';
import { type Expr, E } from '../expr.js';
import { engineType } from '../types.js';
import { type Leaf, LATERAL_PARAM_BASE } from '../ir.js';
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

/** The outer scopes of the LATERAL subqueries being bound, innermost last. */
export const outerScopes: { readonly leaves: readonly Leaf[]; readonly refs: LateralRef[]; readonly types: PgType[] }[] = [];

/**
 * A column reference no FROM item of the query has, resolved in the outer scope of the LATERAL
 * subquery being bound: a parameter the dependent join fills from each left row. Null when no
 * LATERAL scope is open or it has no such column.
 */
export function lateralColumn(parts: readonly string[]): Expr | null {
  const scope = outerScopes[outerScopes.length - 1];
  if (scope === undefined) return null;
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
  return E.param(LATERAL_PARAM_BASE + j, scope.types[j]!);
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

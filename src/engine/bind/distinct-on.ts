/**
 * SELECT DISTINCT ON (expressions) (PostgreSQL 15 docs 7.3.3; parse_clause.c's
 * transformDistinctOnClause): the first row of each set of rows equal on the expressions, in
 * ORDER BY order. The items resolve as ORDER BY items do (output names and positions first).
 * ORDER BY must begin with them, in any order (42P10 when an ORDER BY item that is not one of
 * them comes before one that is, or before one ORDER BY lacks); the rows are sorted by those
 * ORDER BY items, then by the DISTINCT ON items ORDER BY lacks, then by the rest of ORDER BY.
 *
 *   SELECT DISTINCT ON (k) k, id FROM t ORDER BY k, id DESC   -- per k, the largest id
 */
import { SQLSTATE } from '../../types/index.js';
import { type AstFields, type AstNode, locationOf } from '../parse.js';
import { type Expr, exprKey } from '../expr.js';
import { positionOf, SqlError } from '../errors.js';
import type { OrderItem } from '../ir.js';

/** The DISTINCT ON keys and the sort they need, or null when `s` has no DISTINCT ON. */
export function distinctOnOf(s: AstFields, orderBy: readonly OrderItem[], bindItem: (node: AstNode) => OrderItem): { keys: Expr[]; orderBy: OrderItem[] } | null {
  const nodes = (s.distinctClause ?? []) as AstNode[];
  if (nodes.length === 0 || nodes.every((d) => Object.keys(d).length === 0)) return null;
  const items = nodes.map(bindItem);
  const keys = new Map<string, OrderItem>();
  for (const it of items) if (!keys.has(exprKey(it.expr))) keys.set(exprKey(it.expr), it);
  const mismatch = () =>
    new SqlError('invalid_input', SQLSTATE.invalid_column_reference, 'SELECT DISTINCT ON expressions must match initial ORDER BY expressions', positionOf(locationOf(nodes[0]!)));
  const sorted: OrderItem[] = [];
  const used = new Set<string>();
  let skipped = false;
  for (const o of orderBy) {
    const k = exprKey(o.expr);
    if (keys.has(k)) {
      if (skipped) throw mismatch();
      if (!used.has(k)) sorted.push(o);
      used.add(k);
    } else skipped = true;
  }
  for (const [k, it] of keys) {
    if (used.has(k)) continue;
    if (skipped) throw mismatch();
    sorted.push(it);
    used.add(k);
  }
  const rest = orderBy.filter((o) => !keys.has(exprKey(o.expr)));
  return { keys: [...keys.values()].map((it) => it.expr), orderBy: [...sorted, ...rest] };
}

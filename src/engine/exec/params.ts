/**
 * The `$n` of a SELECT bound once (../index.ts `prepare`, the generic phase of ../context.ts):
 * at each execution its parameter nodes become constants of their types, and casts of them are
 * folded, before the query is planned. The plan is then what a statement with those literals
 * would get (PostgreSQL's custom plan): `id = $1` is pushed into the scan's zone maps.
 */
import type { Value } from '../../types/index.js';
import { type Expr, E, substitute } from '../expr.js';
import { type BoundQuery, LATERAL_PARAM_BASE, mapQuery } from '../ir.js';
import { fold } from './init-plans.js';

/** `q` with the parameter values in place, at every level (subqueries and InitPlans included). */
export function withParams(q: BoundQuery, values: readonly Value[]): BoundQuery {
  if (values.length === 0) return q;
  const put = (e: Expr): Expr => {
    let hit = false;
    const r = substitute(e, (x) => {
      // A LATERAL subquery's outer columns are parameters too: ./lateral-join.ts fills them per row.
      if (x.kind !== 'param' || x.index >= LATERAL_PARAM_BASE) return null;
      hit = true;
      return E.const(values[x.index] ?? null, x.type);
    });
    return hit ? fold(r) : e;
  };
  return mapQuery(q, put, true);
}

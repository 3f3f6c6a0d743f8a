/**
 * The dependent join's right side (DuckDB's dependent join; PostgreSQL's SubPlan with
 * parameters, whose rescans its executor caches the same way in a Memoize node): a LATERAL
 * subquery, or a correlated subquery that ../bind/correlated.ts made one, runs once per
 * distinct tuple of outer values, not once per outer row. The answers are kept in a hash from
 * the tuple (./key.ts grouping keys: equal values, NULLs equal, share an entry) to the rows,
 * bounded by work_mem: past it, the table is emptied and refilled (PostgreSQL's Memoize evicts
 * the same way), so a query over many distinct keys still runs, only without the cache's help.
 *
 *   SELECT relname, (SELECT count(*) FROM pg_attribute a WHERE a.attrelid = c.oid) FROM pg_class c
 *     → one run of the subquery per distinct c.oid
 *
 * Each run is the subquery with the tuple's values in place of its parameters (constants the
 * planner pushes into scans like literals, ../pushdown.ts), planned then: the planner picks scans
 * from constants, so a plan is made per distinct tuple, never per row.
 */
import type { Value } from '../../types/index.js';
import { type Expr, E, substitute } from '../expr.js';
import { type BoundQuery, LATERAL_PARAM_BASE, LATERAL_PARAM_STRIDE, mapQuery } from '../ir.js';
import type { QueryResult } from '../result.js';
import { currentWorkMem, checkInterrupts } from '../context.js';
import { fold } from './init-plans.js';
import { type KeyNorm, keyNorm, keyText } from './key.js';

/** Bytes an entry is guessed to hold, per value and per row (Value[] arrays and their slots). */
const VALUE_BYTES = 16;
const ROW_BYTES = 48;

/**
 * A dependent subquery's parameters: those of the LATERAL scope it was bound in
 * (../bind/lateral-scope.ts), numbered from the base of that scope's depth. Parameters of
 * dependent joins nested in it are of deeper scopes, filled by them.
 */
export function dependentBase(q: BoundQuery): number {
  let lo = Infinity;
  mapQuery(
    q,
    (e) =>
      substitute(e, (x) => {
        if (x.kind === 'param' && x.index >= LATERAL_PARAM_BASE) lo = Math.min(lo, x.index);
        return null;
      }),
    true,
  );
  if (lo === Infinity) return LATERAL_PARAM_BASE;
  return LATERAL_PARAM_BASE + Math.floor((lo - LATERAL_PARAM_BASE) / LATERAL_PARAM_STRIDE) * LATERAL_PARAM_STRIDE;
}

/** `q` with `values` in place of its parameters base, base + 1, …. */
export function withOuterValues(q: BoundQuery, base: number, values: readonly Value[]): BoundQuery {
  const put = (e: Expr): Expr => {
    let hit = false;
    const r = substitute(e, (x) => {
      if (x.kind !== 'param' || x.index < base || x.index >= base + values.length) return null;
      hit = true;
      return E.const(values[x.index - base]!, x.type);
    });
    return hit ? fold(r) : e;
  };
  return mapQuery(q, put, true);
}

/** The memoized runs of one dependent subquery over the outer tuples of one execution. */
export class DependentRuns {
  private readonly memo = new Map<string, QueryResult>();
  private bytes = 0;
  private readonly limit = currentWorkMem();
  private readonly norms: readonly KeyNorm[];
  /** Runs made, and outer tuples answered from the memo (EXPLAIN ANALYZE, tests). */
  runs = 0;
  hits = 0;

  constructor(
    private readonly query: BoundQuery,
    private readonly base: number,
    args: readonly Expr[],
    private readonly run: (q: BoundQuery) => Promise<QueryResult>,
  ) {
    this.norms = args.map((a) => keyNorm(a.type));
  }

  /** The subquery's rows for one tuple of outer values. */
  async rows(values: readonly Value[]): Promise<QueryResult> {
    let key = '';
    for (let i = 0; i < values.length; i++) key += `${keyText(values[i]!, this.norms[i]!)}\u0000`;
    const known = this.memo.get(key);
    if (known !== undefined) {
      this.hits++;
      // A run of hits does no I/O: cancel and statement_timeout are checked here.
      if ((this.hits & 1023) === 0) checkInterrupts();
      return known;
    }
    this.runs++;
    const r = await this.run(withOuterValues(this.query, this.base, values));
    const size = key.length * 2 + ROW_BYTES + r.rows.length * (ROW_BYTES + r.fields.length * VALUE_BYTES);
    if (this.bytes + size > this.limit) {
      this.memo.clear();
      this.bytes = 0;
    }
    if (size <= this.limit) {
      this.memo.set(key, r);
      this.bytes += size;
    }
    return r;
  }
}

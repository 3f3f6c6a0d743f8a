/**
 * CTE Scan and WorkTable Scan (PostgreSQL's nodeCtescan.c, nodeWorktablescan.c): the rows of a
 * materialized WITH query (../ir.ts `BoundCte`), run once per statement however many times it
 * is referenced, and the work table of a recursive WITH query's current iteration.
 *
 * Both live in the running statement's state, carried by AsyncLocalStorage from the outermost
 * `run` (./run.ts) down to every query it runs (FROM subqueries, UNION sides, InitPlans, the
 * iterations of a recursive term), so that two references reached through different paths share
 * one run, and two executions of one prepared statement never share rows.
 *
 *   WITH x AS MATERIALIZED (SELECT k FROM t) SELECT * FROM x a JOIN x b USING (k)
 *   -- x runs once; both leaves scan its rows.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { internalError } from '../../types/index.js';
import type { BoundCteScan, BoundQuery, BoundWorkTable } from '../ir.js';
import type { QueryResult } from '../result.js';

export type QueryRunner = (q: BoundQuery) => Promise<QueryResult>;

/** One execution's CTE rows (by BoundCte id) and work tables (by recursive CTE id). */
interface CteState {
  readonly results: Map<number, Promise<QueryResult>>;
  readonly work: Map<number, QueryResult>;
}

const state = new AsyncLocalStorage<CteState>();

/** Whether a statement's CTE state is in place (the outermost `run` sets it up). */
export function hasCteState(): boolean {
  return state.getStore() !== undefined;
}

/** Runs `f` with a fresh CTE state (one execution of a statement). */
export function withCteState<T>(f: () => Promise<T>): Promise<T> {
  return state.run({ results: new Map(), work: new Map() }, f);
}

/**
 * Runs `f` (one iteration of a recursive term) with work table `id` holding `rows`, and with
 * the CTE rows computed so far; CTEs first run inside `f` are forgotten after it, since a WITH
 * nested in the recursive term may read the work table.
 */
export function withWorkTable<T>(id: number, rows: QueryResult, f: () => Promise<T>): Promise<T> {
  const outer = current();
  const work = new Map(outer.work);
  work.set(id, rows);
  return state.run({ results: new Map(outer.results), work }, f);
}

function current(): CteState {
  const s = state.getStore();
  if (s === undefined) throw internalError('internal error: a CTE is scanned outside a statement run (exec/run.ts sets up the CTE state)');
  return s;
}

/** The rows of a materialized CTE: run on the first reference, shared by the others. */
export async function scanCte(q: BoundCteScan, runQuery: QueryRunner): Promise<QueryResult> {
  const s = current();
  let r = s.results.get(q.cte.id);
  if (r === undefined) {
    r = runQuery(q.cte.query);
    s.results.set(q.cte.id, r);
  }
  const res = await r;
  // Each reference gets its own row array: consumers sort and cut arrays in place.
  return { command: 'SELECT', fields: q.cte.fields, rows: res.rows.slice() };
}

/** The work table of a recursive CTE: the rows its previous iteration added. */
export function scanWorkTable(q: BoundWorkTable): QueryResult {
  const r = current().work.get(q.id);
  if (r === undefined) throw internalError(`internal error: work table of "${q.name}" scanned outside its recursive union`);
  return { command: 'SELECT', fields: q.fields, rows: r.rows.slice() };
}

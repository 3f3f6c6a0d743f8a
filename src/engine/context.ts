/**
 * What one statement runs with, beyond its text: the `$n` parameters and the work memory.
 * It travels with the statement through AsyncLocalStorage, so that the binder and the
 * operators of every layer (statements/ included) see it without threading it through each
 * call, and so that concurrent statements (the wire server's sessions) never see each
 * other's.
 *
 * Parameters have two phases, as in PostgreSQL's extended protocol:
 *   infer    (prepare) `values` is null: each `$n` binds as an unknown-typed placeholder whose
 *            type the context decides (`col = $1` → the column's type), recorded in `types`;
 *            a `$n` no context types stays unknown and is text in the end.
 *   execute  `values` holds one value per parameter, of the type in `types`: each `$n` binds
 *            as a constant of that type.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { type PgType, type TimeZone, type Value, UTC, stackDepthOf } from '../types/index.js';

/** The default work memory: 256 MB, for each hash table a statement builds. */
export const DEFAULT_WORK_MEM = 256 * 1024 * 1024;

export interface StatementContext {
  /** Parameter types by position ($1 is index 0); null while still unknown (infer phase). */
  readonly types: (PgType | null)[];
  /** Null in the infer phase; the parameter values in the execute phase. */
  readonly values: readonly Value[] | null;
  /** Bytes one hash join's build side may hold (53200 beyond). */
  readonly workMem: number;
  /** The session's TimeZone, in which timestamptz is read, printed and split into fields (UTC when absent). */
  readonly timeZone?: TimeZone;
}

const storage = new AsyncLocalStorage<StatementContext>();

/**
 * Runs `f` with `ctx` as the current statement context. A statement nested too deep for the
 * binder's or an operator's recursion fails with 54001, as in PostgreSQL, not XX000.
 */
export async function withContext<T>(ctx: StatementContext, f: () => Promise<T>): Promise<T> {
  try {
    return await storage.run(ctx, f);
  } catch (e) {
    throw stackDepthOf(e);
  }
}

/** The current statement's context, or null outside one (then `$n` is 42P02). */
export function currentContext(): StatementContext | null {
  return storage.getStore() ?? null;
}

export function currentWorkMem(): number {
  return storage.getStore()?.workMem ?? DEFAULT_WORK_MEM;
}

/** The current statement's time zone (the session's TimeZone), UTC outside a statement. */
export function currentTimeZone(): TimeZone {
  return storage.getStore()?.timeZone ?? UTC;
}

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
 *   generic  (prepare, once the types are known) `generic` is set and `values` null: each `$n`
 *            binds as a parameter node of its type (./expr.ts `param`), so that the bound
 *            SELECT serves every execution; ./exec/params.ts puts the values in at each one.
 *
 * It also carries the statement's stop signal, and this file holds the one interrupt-and-yield
 * point every long loop of the engine calls (issue #17, "Statements that can always be
 * stopped"): statements run on the event loop that serves every session, so a loop that never
 * gives the loop back keeps everyone else (and the statement's own timeout timer) waiting.
 *
 *   for (let b = await scan.next(); b !== null; b = await scan.next()) {
 *     await yieldIfDue();    // 57014 once cancelled; lets other sessions run every ~8 ms
 *     …
 *   }
 *   // Inner loops that cannot await every pass check the clock every few thousand rows:
 *   if ((i & 4095) === 0 && tick()) await yieldNow();
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StatementTemp } from './exec/spill/temp-files.js';
import { type PgType, type TimeZone, type Value, UTC, stackDepthOf } from '../types/index.js';
import { accountOf, beginSlice, chargeAccount, endSlice, memoryErrorOf } from './memory.js';

/** The default work memory: 256 MB, for each hash table a statement builds. */
export const DEFAULT_WORK_MEM = 256 * 1024 * 1024;

export interface StatementContext {
  /** Parameter types by position ($1 is index 0); null while still unknown (infer phase). */
  readonly types: (PgType | null)[];
  /** Null in the infer phase; the parameter values in the execute phase. */
  readonly values: readonly Value[] | null;
  /** The generic phase: `$n` binds as a parameter node (see above). */
  readonly generic?: boolean;
  /** Bytes one hash join's build side may hold (53200 beyond). */
  readonly workMem: number;
  /** The session's TimeZone, in which timestamptz is read, printed and split into fields (UTC when absent). */
  readonly timeZone?: TimeZone;
  /**
   * Aborted when the statement must stop (CancelRequest, statement_timeout, the session's end,
   * a shutdown); its reason is the error the statement ends with (57014, 57P01).
   */
  readonly signal?: AbortSignal;
  /**
   * The session's authenticated user, whose privileges every statement is checked against
   * (./access.ts, src/table/privileges.ts); absent for the daemon itself, the library and the CLI.
   */
  readonly user?: string;
  /** The wire session the statement runs in (current_setting, set_config, pg_backend_pid); absent embedded. */
  readonly session?: SessionAccess;
  /**
   * The local folder where the statement's operators spill past work_mem (the store's temp
   * area, src/storage/temp-area.ts; the OS's temporary folder when absent).
   */
  readonly tempArea?: string;
}

/**
 * What the engine's system functions (./functions/system.ts) may see of a wire session: the
 * narrowest interface over its run-time parameters (src/pgwire/session/params.ts owns them and
 * their transaction stack) and its identity.
 */
export interface SessionAccess {
  /** The pid the session's BackendKeyData announced (pg_backend_pid). */
  readonly backendPid: number;
  /** A parameter's value as SHOW prints it; 42704 for an unknown one. */
  setting(name: string): string;
  /** SET name = value (`local`: SET LOCAL), reported to the client like SET; returns the value now in force. */
  setSetting(name: string, value: string, local: boolean): string;
}

/**
 * How long a statement may keep the event loop before it gives it back (setImmediate): other
 * sessions' messages, timers (statement_timeout) and signals run in between. Measured: about
 * 1 µs per interrupt point, yields included (a few hundred per TPC-H Q1 at SF 1: below the
 * noise of `npm run bench -- engine --only q1,q6`); beside a running cross join a second
 * session's `select 1` answers with p50 4 ms and p99 43 ms over 60 s
 * (test/pgwire/cancel-long.test.ts with PAXD_SOAK=1, a loaded 2-core machine).
 */
export const YIELD_MS = 8;

/**
 * When each running statement last took the event loop: at its first interrupt point, then
 * each time it resumes from a yield. Per statement, not per process: a short statement that
 * gets the loop right after a long one's slice must not yield behind that long one again (a
 * `select 1` would wait one slice more for nothing).
 */
const sliceStart = new WeakMap<StatementContext, number>();
/** The same for loops outside a statement (the wire session's output): the last yield of any. */
let lastYield = performance.now();

/** Whether the current statement (or, outside one, the process) has kept the loop for YIELD_MS. */
function due(ctx: StatementContext | undefined): boolean {
  const now = performance.now();
  if (ctx === undefined) return now - lastYield >= YIELD_MS;
  const start = sliceStart.get(ctx);
  if (start === undefined) {
    sliceStart.set(ctx, now);
    beginSlice(accountOf(ctx));
    return false;
  }
  return now - start >= YIELD_MS;
}

const storage = new AsyncLocalStorage<StatementContext>();

/**
 * Runs `f` with `ctx` as the current statement context. A statement nested too deep for the
 * binder's or an operator's recursion fails with 54001, as in PostgreSQL, not XX000.
 */
export async function withContext<T>(ctx: StatementContext, f: () => Promise<T>): Promise<T> {
  depth.set(ctx, (depth.get(ctx) ?? 0) + 1);
  try {
    return await storage.run(ctx, f);
  } catch (e) {
    throw memoryErrorOf(stackDepthOf(e));
  } finally {
    // The statement's spill files go when its outermost run ends, however it ends.
    const d = (depth.get(ctx) ?? 1) - 1;
    if (d > 0) depth.set(ctx, d);
    else {
      depth.delete(ctx);
      const temp = temps.get(ctx);
      temps.delete(ctx);
      if (temp !== undefined) await temp.remove();
    }
  }
}

/** How many `withContext` runs of a context are under way (a context may run nested). */
const depth = new WeakMap<StatementContext, number>();
const temps = new WeakMap<StatementContext, StatementTemp>();

/**
 * The current statement's temporary files (./exec/spill/temp-files.ts), removed when the
 * statement ends. Outside a statement, a set that lives as long as the process's folder.
 */
export function statementTemp(): StatementTemp {
  const ctx = storage.getStore();
  if (ctx === undefined) return (looseTemp ??= new StatementTemp(join(tmpdir(), 'paxd-tmp')));
  let t = temps.get(ctx);
  if (t === undefined) {
    t = new StatementTemp(ctx.tempArea ?? join(tmpdir(), 'paxd-tmp'));
    temps.set(ctx, t);
  }
  return t;
}
let looseTemp: StatementTemp | undefined;

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

/** The current statement's stop signal (undefined outside a statement or when nothing can stop it). */
export function currentSignal(): AbortSignal | undefined {
  return storage.getStore()?.signal;
}

/** The current statement's user (undefined outside a statement, or for the daemon, the library, the CLI). */
export function currentUser(): string | undefined {
  return storage.getStore()?.user;
}

/** Throws the reason the current statement was stopped for (57014, 57P01), if it was. */
export function checkInterrupts(): void {
  storage.getStore()?.signal?.throwIfAborted();
}

/**
 * The cheap half of the interrupt point, for inner loops: throws if the statement was
 * stopped, and says whether it is time to `await yieldNow()` (one clock read).
 */
export function tick(): boolean {
  const ctx = storage.getStore();
  ctx?.signal?.throwIfAborted();
  return due(ctx);
}

/** Whether the event loop has been kept for YIELD_MS (for loops outside a statement: the wire session's output). */
export function yieldDue(): boolean {
  return performance.now() - lastYield >= YIELD_MS;
}

/** Gives the event loop back once, then throws if the statement was stopped meanwhile. */
export async function yieldNow(): Promise<void> {
  const before = storage.getStore();
  // The slice's heap growth is the statement's (./memory.ts): 53200 past a memory cap.
  if (before !== undefined) endSlice(accountOf(before));
  await new Promise<void>((resolve) => setImmediate(resolve));
  const now = performance.now();
  lastYield = now;
  const ctx = storage.getStore();
  if (ctx !== undefined) {
    sliceStart.set(ctx, now);
    beginSlice(accountOf(ctx));
  }
  ctx?.signal?.throwIfAborted();
}

/**
 * Charges `bytes` that the current statement keeps (negative: gives them back) to its memory
 * account (./memory.ts); 53200 past the statement's memory cap. Outside a statement, nothing.
 */
export function chargeMemory(bytes: number, what: string): void {
  const ctx = storage.getStore();
  chargeAccount(ctx === undefined ? null : accountOf(ctx), bytes, what);
}

/** The interrupt-and-yield point of batch loops: `tick()`, and `yieldNow()` when it is due. */
export async function yieldIfDue(): Promise<void> {
  if (tick()) await yieldNow();
}

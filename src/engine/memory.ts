/**
 * Memory bounds of statements (issue #18, "every statement is bounded in memory"): a
 * per-statement cap and a per-process cap, so that one query ends with PostgreSQL's 53200
 * `out of memory` while the daemon and its other sessions carry on, where it used to abort the
 * whole process with "JavaScript heap out of memory".
 *
 * Two measures, because the engine materializes more than any one operator sees:
 *   charges   what an operator knows it keeps and that can grow without bound (hash aggregate
 *             groups, DISTINCT sets, string_agg/array_agg inputs, sort buffers) is charged
 *             to the statement's account (`charge`, by the operator, in estimated bytes);
 *   heap      at every interrupt point that gives the event loop back (./context.ts, about
 *             every 8 ms of a statement's running), the growth of V8's used heap during the
 *             statement's slice is added to its account, and the whole heap is compared with
 *             the process cap. A statement runs alone in its slice (one thread), so growth in
 *             it is that statement's; garbage collected in it is credited to it too, so the
 *             figure is an estimate of what the statement retains, good enough to pick the
 *             statement that grows.
 *
 * Limits (`configureMemory`; the daemon's `statement_mem_limit` and `process_mem_limit`):
 *   statement   default 40% of V8's heap limit (--max-old-space-size): a statement whose
 *               charges or heap growth pass it fails with 53200.
 *   process     default 70% of V8's heap limit: when the heap passes it, a statement that has
 *               itself grown by at least PROCESS_CULPRIT_BYTES fails at its next interrupt
 *               point; smaller statements (a `select 1`) carry on.
 *
 * Both leave V8 headroom: near its limit V8 collects again and again, and every session stalls
 * for seconds (measured: `select 1` waited 5.4 s while a string_agg grew to half of a 1 GB heap).
 *
 * The words are PostgreSQL's (src/backend/utils/mmgr/mcxt.c):
 *   ERROR:  53200: out of memory
 *   DETAIL:  Failed on request of size 8192 in memory context "ExecutorState".
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { SQLSTATE } from '../types/index.js';
import { SqlError } from './errors.js';

/** A statement that grew less than this is never the one failed for the process's sake. */
export const PROCESS_CULPRIT_BYTES = 32 * 1024 * 1024;

/** What one statement holds, by estimate. */
export interface MemoryAccount {
  /** Bytes charged by operators and not yet released. */
  charged: number;
  /** Net growth of the heap during the statement's slices. */
  heapGrowth: number;
  /** The used heap when the statement's current slice began (NaN: no slice yet). */
  sliceHeap: number;
}

interface Limits {
  statement: number;
  process: number;
}

const heapLimit = getHeapStatistics().heap_size_limit;
let limits: Limits = defaultLimits();

function defaultLimits(): Limits {
  return { statement: Math.floor(heapLimit * 0.4), process: Math.floor(heapLimit * 0.7) };
}

/** Sets the caps in bytes (undefined: the default); returns those in force. */
export function configureMemory(options: { statementLimit?: number; processLimit?: number }): Readonly<Limits> {
  const d = defaultLimits();
  limits = { statement: options.statementLimit ?? d.statement, process: options.processLimit ?? d.process };
  return limits;
}

export function memoryLimits(): Readonly<Limits> {
  return limits;
}

const accounts = new WeakMap<object, MemoryAccount>();

/** The account of a statement (its StatementContext). */
export function accountOf(ctx: object): MemoryAccount {
  let a = accounts.get(ctx);
  if (a === undefined) {
    a = { charged: 0, heapGrowth: 0, sliceHeap: Number.NaN };
    accounts.set(ctx, a);
  }
  return a;
}

/** PostgreSQL's 53200, naming what asked for memory and how much. */
export function outOfMemory(request: number, what: string): SqlError {
  const e = new SqlError('usage', SQLSTATE.out_of_memory, 'out of memory');
  Object.assign(e, { detail: `Failed on request of size ${Math.max(0, Math.round(request))} in memory context "${what}".` });
  return e;
}

/**
 * Charges `bytes` (negative: releases) to `account`; 53200 when the statement's charges pass
 * the statement cap. `what` names the memory context in the error (PostgreSQL's names where
 * there is one: "ExecutorState", "HashAgg meta context", "TupleSort main").
 */
export function chargeAccount(account: MemoryAccount | null, bytes: number, what: string): void {
  if (account === null) return;
  account.charged += bytes;
  if (bytes > 0 && account.charged > limits.statement) {
    account.charged -= bytes;
    throw outOfMemory(bytes, what);
  }
}

/**
 * One value of `bytes` about to be built (a repeat or lpad result): 53200 when it alone passes
 * the statement cap, would take the heap past the process cap, or passes the longest string
 * V8 builds. Not charged: the value is the row's, gone with its batch.
 */
export function checkAllocation(bytes: number, what: string): void {
  if (bytes < 1 << 20) return;
  if (bytes > limits.statement || bytes > MAX_STRING_LENGTH || usedHeap() + bytes > limits.process) throw outOfMemory(bytes, what);
}

/** The used heap, in bytes (one V8 call, about a microsecond). */
export function usedHeap(): number {
  return getHeapStatistics().used_heap_size;
}

/** At the start of a statement's slice (its first interrupt point, each resume from a yield). */
export function beginSlice(account: MemoryAccount): void {
  account.sliceHeap = usedHeap();
}

/**
 * At the end of a statement's slice: adds the slice's heap growth to the account, then fails
 * the statement with 53200 when it passed the statement cap, or when the process is past its
 * cap and this statement is one that grew.
 */
export function endSlice(account: MemoryAccount): void {
  let now = usedHeap();
  if (!Number.isNaN(account.sliceHeap)) account.heapGrowth += now - account.sliceHeap;
  account.sliceHeap = Number.NaN;
  if (!overLimit(account, now)) return;
  // Growth and the used heap count garbage V8 has not collected yet (a top-N over a cross join
  // makes hundreds of MB of it while keeping 5 rows): collect it before failing a statement
  // for it, and credit what was collected to the statement's growth. A statement that really
  // keeps its memory still fails here, once the collection has shown it.
  const after = collectGarbage();
  if (after !== null) {
    account.heapGrowth -= Math.max(0, now - after);
    now = after;
  }
  if (account.heapGrowth > limits.statement && now > limits.statement) throw outOfMemory(account.heapGrowth, 'ExecutorState');
  if (now > limits.process && account.heapGrowth + account.charged >= PROCESS_CULPRIT_BYTES) throw outOfMemory(now - limits.process, 'ExecutorState');
}

function overLimit(account: MemoryAccount, now: number): boolean {
  return (account.heapGrowth > limits.statement && now > limits.statement) || (now > limits.process && account.heapGrowth + account.charged >= PROCESS_CULPRIT_BYTES);
}

/** V8's full collection (the `gc` that --expose-gc gives a new context), or undefined before the first use; null when unavailable. */
let fullCollection: (() => void) | null | undefined;

/** The used heap after a full garbage collection, or null when V8 does not give one. */
function collectGarbage(): number | null {
  if (fullCollection === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      const gc: unknown = runInNewContext('typeof gc === "function" ? gc : null');
      fullCollection = typeof gc === 'function' ? (gc as () => void) : null;
    } catch {
      fullCollection = null;
    }
  }
  if (fullCollection === null) return null;
  fullCollection();
  return usedHeap();
}

/**
 * The longest string V8 builds (2^29 − 24 UTF-16 units on 64-bit): a longer concatenation
 * throws a RangeError that must end the statement as 53200, never the process.
 */
export const MAX_STRING_LENGTH = (1 << 29) - 24;

/**
 * PostgreSQL's MaxAllocSize (1 GB − 1): a text value or a string buffer that would pass it
 * fails with 54000 (`requested length too large`, `out of memory` for a StringInfo).
 */
export const MAX_ALLOC_SIZE = 0x3fffffff;

/**
 * 53200 for JavaScript's own allocation failures that a statement can cause and survive: a
 * string or array past V8's largest (RangeError "Invalid string length", "Invalid array
 * length"), which would otherwise surface as XX000. `e` unchanged when it is anything else.
 */
export function memoryErrorOf(e: unknown): unknown {
  if (!(e instanceof RangeError) || !/^Invalid (string|array|typed array) length|Array buffer allocation failed/.test(e.message)) return e;
  const oom = outOfMemory(0, 'ExecutorState');
  return Object.assign(oom, { detail: `${oom.detail} (${e.message})`, cause: e });
}

/**
 * Parallel execution of compiled aggregating pipelines (docs/ARCHITECTURE.md "The SQL engine"): the snapshot's row groups
 * are split into P partitions; this thread scans partition 0 and P - 1 worker threads scan the
 * others with the same generated pipeline, each over its own handle on the same store and the
 * same pinned snapshot. Each returns its aggregation state as a Partial; ./pipeline.ts `merge`
 * combines them by key and finalizes — PostgreSQL's partial aggregation, with the same results
 * (float sums may differ in the last bits from a serial run, as PostgreSQL's parallel ones do).
 *
 * One worker per core beyond this thread by default; `PAXD_PARALLEL=off` or `PARALLEL.workers
 * = 0` turns it off. Filter-only pipelines, plans over an ObjectStore that was not opened by
 * URI, and tables of one row group run serially. A DEOPT in any partition makes the whole
 * query fall back to the interpreter, exactly as a serial DEOPT does.
 */
import { availableParallelism } from 'node:os';
import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import { startWorker } from '../../runtime/index.js';
import { storeUri } from '../../table/index.js';
import type { ScanStats } from '../../scan/index.js';
import { PaxdError, internalError } from '../../types/index.js';
import { currentSignal, currentWorkMem } from '../context.js';
import type { RowBatch } from '../exec/batch.js';
import { type Compiled, type Partial, type PlanInput, type RunOptions, merge, partialOf, partition, scanCompiled } from './pipeline.js';
import type { AggOut } from './merge.js';
import type { WorkerReply, WorkerRequest } from './worker.js';

export const PARALLEL = { workers: process.env.PAXD_PARALLEL === 'off' ? 0 : Math.max(0, Number(process.env.PAXD_WORKERS ?? availableParallelism()) - 1) };

/** Groups in the snapshot (PAX files' groups and ao_column stripes alike). */
function groupCount(p: PlanInput): number {
  let n = 0;
  for (const f of p.query.table.snapshot.files) n += f.groups?.length ?? 1;
  return n;
}

/**
 * min/max of a float or numeric: of equal values (-0 and 0, 1.0 and 1.00) PostgreSQL keeps the
 * later in scan order, which round-robin partitions (./pipeline.ts partition) cannot tell.
 */
function tiesByScanOrder(a: AggOut): boolean {
  const t = a.call.arg?.type.id;
  return (a.call.fn === 'min' || a.call.fn === 'max') && (t === 'float4' || t === 'float8' || t === 'numeric');
}

/**
 * Runs `c` over the plan's table in parallel; null when it runs serially instead (the caller
 * then does) or when a partition left the exact range.
 */
export async function runParallel(p: PlanInput, c: Compiled, onBatch: (rows: number) => void, options: RunOptions = {}): Promise<{ batches: RowBatch[]; stats: ScanStats } | null> {
  if (c.aggs === null || PARALLEL.workers === 0 || c.aggs.some(tiesByScanOrder)) return null;
  const uri = storeUri(p.query.table.store);
  const units = groupCount(p);
  if (uri === null || units < 2) return null;
  const parts = Math.min(PARALLEL.workers + 1, units);
  const q = p.query;
  const request = (part: number): WorkerRequest => ({
    uri,
    table: q.table.name,
    snapshot: q.table.snapshot,
    columns: q.columns,
    grouping: q.grouping!,
    residual: p.residual,
    where: p.where,
    part,
    parts,
    workMem: options.workMem ?? currentWorkMem(),
    stop,
  });
  // The workers' stop flag: set when the statement is stopped, or when this thread's part fails
  // (then nothing waits for the others' answers); each worker checks it once per batch.
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const runs = Array.from({ length: parts - 1 }, (_v, k) => pool.run(request(k + 1)));
  const remote = runs.map((r) => r.reply);
  let late: NodeJS.Timeout | null = null;
  const halt = () => {
    if (Atomics.exchange(stop, 0, 1) !== 0) return;
    late = setTimeout(() => pool.abandon(runs.map((r) => r.id)), WORKER_STOP_GRACE_MS);
    late.unref();
  };
  const signal = currentSignal();
  signal?.addEventListener('abort', halt, { once: true });
  if (signal?.aborted === true) halt();
  void Promise.allSettled(remote).then(() => {
    if (late !== null) clearTimeout(late);
  });
  const local = scanCompiled(p, c, onBatch, { ...options, groups: partition(0, parts) });
  // A stopped statement ends with this thread's part, without waiting for the workers' answers
  // (a worker still starting up sees the flag at its first batch).
  for (const r of remote) r.catch(() => undefined);
  await local.catch((e: unknown) => {
    halt();
    signal?.removeEventListener('abort', halt);
    throw e;
  });
  const settled = await Promise.allSettled([local, ...remote]).finally(() => signal?.removeEventListener('abort', halt));
  signal?.throwIfAborted();
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
  const mine = (settled[0] as PromiseFulfilledResult<Awaited<typeof local>>).value;
  const replies = settled.slice(1).map((s) => (s as PromiseFulfilledResult<WorkerReply & { ok: true }>).value);
  if (mine === null || replies.some((r) => r.partial === null)) return null;
  const partials: Partial[] = [partialOf(mine.state, c), ...replies.map((r) => r.partial!)];
  for (const r of replies) onBatch(r.rows);
  return { batches: [await merge(c, partials)], stats: sumStats([mine.stats, ...replies.map((r) => r.stats)]) };
}

function sumStats(all: readonly ScanStats[]): ScanStats {
  const out = { ...all[0]! } as Record<string, unknown>;
  for (const s of all.slice(1))
    for (const [k, v] of Object.entries(s)) {
      if (typeof v === 'number') out[k] = (out[k] as number) + v;
    }
  return out as unknown as ScanStats;
}

interface Pending {
  resolve: (r: WorkerReply & { ok: true }) => void;
  reject: (e: unknown) => void;
  readonly worker: Worker;
}

/**
 * How long a stopped statement's workers have to see the stop flag (they check it per batch)
 * before they are terminated: a worker still starting up, or stuck in one long call, must not
 * hold on to a core for a statement that is over.
 */
const WORKER_STOP_GRACE_MS = 100;

/** Long-lived query workers, unreferenced while idle so they never keep the process alive. */
class Pool {
  private readonly workers: { worker: Worker; port: MessagePort }[] = [];
  private readonly pending = new Map<number, Pending>();
  private busy = 0;
  private ids = 0;
  private next = 0;

  get running(): number {
    return this.busy;
  }

  /** Runs one partition; `id` names it for `abandon`. */
  run(req: WorkerRequest): { id: number; reply: Promise<WorkerReply & { ok: true }> } {
    if (this.workers.length < PARALLEL.workers) this.workers.push(this.start());
    const w = this.workers[this.next++ % this.workers.length]!;
    const id = ++this.ids;
    const reply = new Promise<WorkerReply & { ok: true }>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, worker: w.worker });
      if (this.busy++ === 0) for (const x of this.workers) x.port.ref();
      w.port.postMessage({ id, req });
    });
    return { id, reply };
  }

  /** Terminates the workers still running these partitions (they are replaced on next use). */
  abandon(ids: readonly number[]): void {
    for (const id of ids) void this.pending.get(id)?.worker.terminate();
  }

  private start(): { worker: Worker; port: MessagePort } {
    const { port1, port2 } = new MessageChannel();
    // Queries travel on a port of their own: other modules loaded in the thread may listen on parentPort.
    const w = startWorker(new URL('./worker.js', import.meta.url), { workerData: { port: port2 }, transferList: [port2] });
    w.unref();
    port1.unref();
    port1.on('message', (m: { id: number; reply: WorkerReply }) => {
      const p = this.pending.get(m.id);
      if (p === undefined) return;
      this.pending.delete(m.id);
      if (--this.busy === 0) for (const x of this.workers) x.port.unref();
      if (m.reply.ok) p.resolve(m.reply);
      else {
        const e = m.reply.error;
        p.reject(new PaxdError(e.kind as never, e.code, e.message, { position: e.position }));
      }
    });
    w.on('error', (e) => this.lost(w, e));
    w.on('exit', (code) => this.lost(w, new Error(`query worker exited with code ${code}`)));
    return { worker: w, port: port1 };
  }

  /** A worker died: its queries fail (they would otherwise hang) and it is replaced on next use. */
  private lost(w: Worker, e: unknown): void {
    const at = this.workers.findIndex((x) => x.worker === w);
    if (at < 0) return;
    this.workers.splice(at, 1);
    for (const [id, p] of this.pending) {
      if (p.worker !== w) continue;
      this.pending.delete(id);
      this.busy--;
      p.reject(internalError(`query worker failed: ${e instanceof Error ? e.message : String(e)}`, e));
    }
    if (this.busy === 0) for (const x of this.workers) x.port.unref();
  }
}

const pool = new Pool();

/** Partitions the query workers are running now (0 when idle): tests see cancelled work stop. */
export function parallelBusy(): number {
  return pool.running;
}

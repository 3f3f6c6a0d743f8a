/**
 * A pool of encoder threads, so that encoding and compressing row groups (statistics, zone
 * encoding, lz4/zstd) runs on the other cores while the main thread parses input and writes
 * files. One pool per process, created on first use; threads are unref'd while idle so they
 * never keep a process alive.
 *
 * Threads: PAXD_ENCODE_THREADS (0 turns the pool off; default: the machine's parallelism,
 * at most 4).
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../runtime/index.js';
import { type Column, PaxdError, SQLSTATE } from '../types/index.js';
import type { CodecName } from './codec.js';
import { type PaxFormat, defaultFormat } from './footer.js';
import type { EncodedChunk } from './chunk-encode.js';
import { ownedBuffers, type EncodeJob, type EncodeReply } from './encode-worker.js';

/** Columns smaller than this are encoded on the calling thread: a thread round trip costs more. */
export const POOL_MIN_BYTES = 64 * 1024;
/** The smallest column that starts the pool's threads (EncodePool.takes). */
export const POOL_START_BYTES = 1024 * 1024;

interface Pending {
  resolve: (c: EncodedChunk) => void;
  reject: (e: unknown) => void;
}

class PoolWorker {
  readonly worker: Worker;
  readonly pending = new Map<number, Pending>();

  constructor(onExit: (w: PoolWorker, e: unknown) => void) {
    this.worker = startWorker(new URL('./encode-worker.js', import.meta.url));
    this.worker.unref();
    this.worker.on('message', (r: EncodeReply) => {
      const p = this.pending.get(r.id);
      if (p === undefined) return;
      this.pending.delete(r.id);
      if (this.pending.size === 0) this.worker.unref();
      if (r.ok) p.resolve({ format: r.format, zones: r.zones, blobs: r.blobs, stats: r.stats });
      else p.reject(new PaxdError('internal', SQLSTATE.internal_error, `internal error in an encoder thread: ${r.message}`));
    });
    this.worker.on('error', (e) => onExit(this, e));
    this.worker.on('exit', (code) => onExit(this, new Error(`encoder thread exited with code ${code}`)));
  }

  submit(job: EncodeJob, transfer: ArrayBuffer[]): Promise<EncodedChunk> {
    return new Promise((resolve, reject) => {
      this.pending.set(job.id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage(job, transfer);
    });
  }
}

export class EncodePool {
  private readonly workers: PoolWorker[] = [];
  private next = 0;
  private ids = 0;

  constructor(readonly size: number) {}

  /**
   * Whether a column of `bytes` goes to a thread. Below POOL_MIN_BYTES a round trip costs more
   * than encoding it here. Starting the first thread costs a Node start-up and a module load
   * (about 50 ms of CPU, measured on `paxd ingest` of 10,000 rows, where the two threads took
   * longer than the whole load took without them): only a column of POOL_START_BYTES or more
   * starts the pool; once a thread runs, every column of POOL_MIN_BYTES or more may use it.
   */
  takes(bytes: number): boolean {
    return bytes >= POOL_MIN_BYTES && (this.workers.length > 0 || bytes >= POOL_START_BYTES);
  }

  /** Encodes an owned column in a thread; its buffers are transferred (unusable afterwards). */
  encode(column: Column, zoneRows: number, codec: CodecName, format: PaxFormat = defaultFormat()): Promise<EncodedChunk> {
    if (this.workers.length < this.size) this.workers.push(new PoolWorker((w, e) => this.lost(w, e)));
    // Least loaded thread, round robin among equals.
    let best = this.workers[this.next++ % this.workers.length]!;
    for (const w of this.workers) if (w.pending.size < best.pending.size) best = w;
    const job: EncodeJob = { id: ++this.ids, column, zoneRows, codec, format };
    return best.submit(job, ownedBuffers([column.validity, column.values, column.offsets, column.data]));
  }

  private lost(w: PoolWorker, e: unknown): void {
    const i = this.workers.indexOf(w);
    if (i >= 0) this.workers.splice(i, 1);
    for (const p of w.pending.values()) p.reject(new PaxdError('internal', SQLSTATE.internal_error, `encoder thread failed: ${e instanceof Error ? e.message : String(e)}`));
    w.pending.clear();
  }

  async close(): Promise<void> {
    const ws = this.workers.splice(0);
    await Promise.all(ws.map((w) => w.worker.terminate()));
  }
}

let shared: EncodePool | null | undefined;

/** The process's pool, or null when encoding threads are turned off. */
export function encodePool(): EncodePool | null {
  if (shared === undefined) {
    const env = process.env.PAXD_ENCODE_THREADS;
    const n = env !== undefined && env !== '' ? Number(env) : Math.min(4, availableParallelism());
    shared = Number.isInteger(n) && n > 0 ? new EncodePool(n) : null;
  }
  return shared;
}

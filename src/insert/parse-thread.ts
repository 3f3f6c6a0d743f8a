/**
 * Input readers on a parser thread: `openFormatInThread` is `openFormat` (./formats.ts) with the
 * parsing (CSV tokenizing and field conversion, NDJSON, Arrow IPC decoding) done by the same
 * reader code on a thread of a small pool (./parse-worker.ts), so that the calling thread's
 * event loop stays free. The daemon loads HTTP bodies this way (issue #18: 50 concurrent
 * 100 MB CSV uploads parsed on the event loop held /health for 1.5 s at the 99th percentile).
 *
 *   const reader = openFormatInThread('csv', streamInput('request body', req, null), table.fields, opts);
 *   for await (const batch of reader) await sink.write(batch);   // as for openFormat
 *
 * The calling thread still reads (and decompresses) the input, hands each chunk over when the
 * thread asks for the next one, and takes back batches whose buffers are transferred, not
 * copied. Rejected rows reach `opts.onReject` here, in order, before the batch after them;
 * errors keep their SQLSTATE, message and file:line:column.
 *
 * Threads: PAXD_PARSE_THREADS (default: the machine's parallelism, at most 4; 0 parses on the
 * calling thread), started on the first load and unref'd while idle, so they never keep a
 * process alive.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../runtime/index.js';
import { type Batch, type Field, type ErrorKind, PaxdError, SQLSTATE } from '../types/index.js';
import { type Format, type FormatOptions, type FormatReader, openFormat } from './formats.js';
import type { Input } from './input.js';
import type { ParseReply, ParseRequest, ThreadError } from './parse-protocol.js';

/** A message of a load, or the loss of its thread. */
type Event = ParseReply | { t: 'lost'; id: number; why: string };

class ParserThread {
  readonly worker: Worker;
  readonly loads = new Map<number, (e: Event) => void>();

  constructor(onLost: (t: ParserThread) => void) {
    this.worker = startWorker(new URL('./parse-worker.js', import.meta.url));
    this.worker.unref();
    this.worker.on('message', (m: ParseReply) => this.loads.get(m.id)?.(m));
    const lost = (why: string) => {
      onLost(this);
      for (const [id, deliver] of this.loads) deliver({ t: 'lost', id, why });
      this.loads.clear();
    };
    this.worker.on('error', (e) => lost(e.message));
    this.worker.on('exit', (code) => lost(`the parser thread exited with code ${code}`));
  }

  post(m: ParseRequest, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(m, transfer);
  }

  attach(id: number, deliver: (e: Event) => void): void {
    this.loads.set(id, deliver);
    this.worker.ref();
  }

  detach(id: number): void {
    this.loads.delete(id);
    if (this.loads.size === 0) this.worker.unref();
  }
}

const threads: ParserThread[] = [];
let loadIds = 0;

function poolSize(): number {
  const env = process.env.PAXD_PARSE_THREADS;
  const n = env === undefined || env === '' ? Number.NaN : Number(env);
  return Number.isInteger(n) && n >= 0 ? n : Math.max(1, Math.min(4, availableParallelism()));
}

/** The thread with the fewest loads; a new one while the pool is not full. */
function threadForLoad(): ParserThread {
  if (threads.length < poolSize()) {
    const t = new ParserThread((lost) => threads.splice(threads.indexOf(lost) >>> 0, 1));
    threads.push(t);
    return t;
  }
  let best = threads[0]!;
  for (const t of threads) if (t.loads.size < best.loads.size) best = t;
  return best;
}

/** The error a thread reported, as it would have been thrown here. */
function revive(e: ThreadError): Error {
  if (e.paxd !== undefined) return new PaxdError(e.paxd.kind as ErrorKind, e.paxd.code, e.message, e.paxd.loc);
  const x = new Error(e.message);
  x.name = e.name;
  return x;
}

/** Messages of one load, taken in order. */
class Inbox {
  private readonly queue: Event[] = [];
  private waiting: ((e: Event) => void) | null = null;

  deliver = (e: Event): void => {
    const w = this.waiting;
    if (w !== null) {
      this.waiting = null;
      w(e);
    } else this.queue.push(e);
  };

  next(): Promise<Event> {
    const e = this.queue.shift();
    if (e !== undefined) return Promise.resolve(e);
    return new Promise((resolve) => (this.waiting = resolve));
  }
}

/** `openFormat(format, input, fields, opts)`, parsed on a parser thread (on this one with PAXD_PARSE_THREADS=0). */
export function openFormatInThread(format: Format, input: Input, fields: readonly Field[], opts: FormatOptions): FormatReader {
  if (poolSize() === 0) return openFormat(format, input, fields, opts);
  let rowsRead = 0;
  let rowsRejected = 0;
  return {
    get rowsRead() {
      return rowsRead;
    },
    get rowsRejected() {
      return rowsRejected;
    },
    async *[Symbol.asyncIterator](): AsyncGenerator<Batch> {
      const id = ++loadIds;
      const thread = threadForLoad();
      const inbox = new Inbox();
      thread.attach(id, inbox.deliver);
      const chunks = input.stream[Symbol.asyncIterator]();
      const { onReject: _onReject, timeZone, ...rest } = opts;
      thread.post({ t: 'open', id, format, name: input.name, fields, opts: { ...rest, ...(timeZone !== undefined ? { timeZone: timeZone.name } : {}) } });
      let ended = false;
      try {
        for (;;) {
          const m = await inbox.next();
          switch (m.t) {
            case 'pull': {
              const r = await chunks.next();
              if (r.done) {
                thread.post({ t: 'chunk', id, bytes: null });
                break;
              }
              // A copy of the chunk's own bytes (a body chunk is often a view into a larger buffer), moved, not cloned.
              const bytes = new Uint8Array(r.value);
              thread.post({ t: 'chunk', id, bytes }, [bytes.buffer]);
              break;
            }
            case 'reject':
              rowsRejected++;
              opts.onReject(m.reject);
              break;
            case 'batch':
              rowsRead += m.batch.length;
              yield m.batch;
              thread.post({ t: 'credit', id });
              break;
            case 'end':
              ended = true;
              rowsRead = m.rowsRead;
              rowsRejected = m.rowsRejected;
              return;
            case 'error':
              ended = true;
              throw revive(m.error);
            case 'lost':
              ended = true;
              throw new PaxdError('internal', SQLSTATE.internal_error, `internal error: ${input.name}: ${m.why}`);
          }
        }
      } finally {
        if (!ended) thread.post({ t: 'close', id });
        thread.detach(id);
        if (!ended) await chunks.return?.();
      }
    },
  };
}

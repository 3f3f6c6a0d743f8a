/**
 * HTTP request bodies as streams with bounded memory (issue #18): a body is read chunk by chunk
 * as its consumer (a load's reader, or the SQL route) asks for the next one, so a 100 MB upload
 * holds a few socket buffers, not 100 MB. Limits, each a 4xx/5xx the client can act on:
 *
 *   413 54000  more than `max` bytes (Content-Length over it is refused before a byte is read)
 *   400 08P01  cut short: fewer bytes than Content-Length, or a chunked body without its end
 *   408 08006  no byte for `idleMs` while we wait for one (slowloris); a consumer that is slow
 *              itself (backpressure) does not count against the client
 *   408 08006  fewer than `minRate` bytes per second on average, once the client has owed us
 *              bytes for RATE_GRACE_MS (`http_body_min_rate`: a body dribbled a byte just
 *              before each idle timeout would otherwise hold its connection and its in-flight
 *              reservation for ever; Apache's mod_reqtimeout MinRate)
 *   503 53000  past `max_inflight_body_bytes` over all requests (Retry-After)
 *
 * The body is never destroyed on failure: destroying the request would destroy the socket
 * before the answer is written (./http.ts closeUnread ends such connections once answered).
 */
import type { IncomingMessage } from 'node:http';
import { SQLSTATE } from '../types/index.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly sqlstate: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/** SQL text longer than this is refused (413). */
export const MAX_SQL_BYTES = 16 * 1024 * 1024;

/** Bytes handed to the consumer between two turns of the event loop (see Body's iterator). */
const TURN_BYTES = 256 * 1024;

/** Queued bytes past which the socket is paused until the consumer catches up. */
export const BODY_QUEUE_BYTES = 1 << 20;

/** 413 for a body over `max` bytes (declared by Content-Length, or counted as it arrived). */
export function tooLarge(max: number, declared: number | null): HttpError {
  return new HttpError(413, SQLSTATE.program_limit_exceeded, `request body ${declared !== null ? `of ${declared} bytes ` : ''}is larger than the limit of ${max} bytes (max_body_bytes; SQL text at most ${MAX_SQL_BYTES})`);
}

function truncated(n: number, declared: number | null): HttpError {
  return new HttpError(400, SQLSTATE.protocol_violation, `request body is truncated: received ${n} bytes${declared !== null ? ` of ${declared} (Content-Length)` : ' before the connection ended'}`);
}

/** How long a body may take before its average rate is held against `minRate`. */
export const RATE_GRACE_MS = 5_000;

function tooSlow(n: number, ms: number, minRate: number): HttpError {
  return new HttpError(408, SQLSTATE.connection_failure, `request body too slow: ${n} bytes in ${Math.round(ms)} ms, less than ${minRate} bytes per second (http_body_min_rate)`);
}

function timedOut(n: number, idleMs: number): HttpError {
  return new HttpError(408, SQLSTATE.connection_failure, `request body timed out: no byte for ${idleMs} ms after ${n} bytes (http_body_timeout_ms)`);
}

/** The Content-Length of a request, or null for none (chunked). Node has checked its syntax. */
export function declaredLength(req: IncomingMessage): number | null {
  const v = req.headers['content-length'];
  return v === undefined ? null : Number(v);
}

/**
 * The in-flight budget of body bytes over all requests: what bodies being received can make
 * the daemon hold in memory. Each body reserves its charge whole as it starts (`admit`), and
 * keeps it until its request is done; past the budget, 503 before a byte of the body is read.
 * A body that streams into a load is charged its Content-Length, at most what the load can
 * hold (loadWorkingSet: a chunked body that much); a body read whole (SQL text) its
 * Content-Length, a chunked one its limit. So a body once let in is never cut off for the
 * budget half-way (the work done on it would be lost, and the client would send it again). A
 * body alone in flight is always let in (up to max_body_bytes), so that no body under the
 * limit waits forever.
 */
export class Inflight {
  private used = 0;
  private bodies = 0;

  constructor(readonly limit: number) {}

  /** Reserves `charge` bytes for one body; throws 503 (Retry-After) when they do not fit. */
  admit(charge: number): Reservation {
    if (this.bodies > 0 && this.used + charge > this.limit) throw this.busy(charge);
    this.used += charge;
    this.bodies++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.used -= charge;
        this.bodies--;
      },
    };
  }

  get bytes(): number {
    return this.used;
  }

  private busy(n: number): HttpError {
    return new HttpError(
      503,
      SQLSTATE.insufficient_resources,
      `too many request body bytes in flight: ${this.used} of ${this.limit} (max_inflight_body_bytes) taken, ${n} more asked for: retry later`,
      { 'Retry-After': '1' },
    );
  }
}

/**
 * The bytes a load that streams a body into a table holds at most, whatever the body's size:
 * the body's queue (BODY_QUEUE_BYTES, and the chunk that crossed it) and the sink's two row
 * groups (the one filling, the one being encoded: src/insert/sink.ts flushGroup).
 */
export function loadWorkingSet(rowGroupBytes: number): number {
  return 2 * Math.max(rowGroupBytes, BODY_QUEUE_BYTES) + 2 * BODY_QUEUE_BYTES;
}

export interface Reservation {
  release(): void;
}

export interface BodyLimits {
  readonly max: number;
  readonly idleMs: number;
  /** Least average bytes per second while the client owes bytes (after RATE_GRACE_MS); 0: none. */
  readonly minRate?: number;
}

/**
 * One request's body as an async iterable of chunks. `failure` is the limit it broke, if any:
 * a consumer that wraps stream errors (a decompressor) is answered with it rather than with
 * its own wrapping.
 */
export class Body implements AsyncIterable<Uint8Array> {
  failure: HttpError | null = null;
  private readonly queue: Buffer[] = [];
  private queued = 0;
  private received = 0;
  private ended = false;
  private wake: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** The clock of `minRate`: ms the client owed bytes in earlier armed stretches, and when this one began. */
  private owedMs = 0;
  private owedSince: number | null = null;
  private rateTimer: NodeJS.Timeout | null = null;
  private readonly declared: number | null;

  constructor(
    private readonly req: IncomingMessage,
    private readonly limits: BodyLimits,
  ) {
    this.declared = declaredLength(req);
    if (this.declared !== null && this.declared > limits.max) this.fail(tooLarge(limits.max, this.declared));
    // The client may have gone while the route was getting ready ('close' was then missed).
    else if (req.destroyed && !req.complete) this.fail(truncated(0, this.declared));
    else {
      req.on('data', this.onData).on('end', this.onEnd).on('close', this.onClose).on('error', this.onClose);
      this.arm();
    }
  }

  /** Bytes received so far. */
  get bytes(): number {
    return this.received;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    let sinceTurn = 0;
    try {
      for (;;) {
        if (this.failure !== null) throw this.failure;
        // Queued chunks are handed over without a turn of the event loop in between: the
        // consumer's work on them (a load parsing CSV) would hold the loop, /health and every
        // other session waiting, for as long as the queue lasts. Every TURN_BYTES, a turn.
        if (sinceTurn >= TURN_BYTES) {
          sinceTurn = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
          continue;
        }
        const c = this.queue.shift();
        if (c !== undefined) {
          sinceTurn += c.byteLength;
          this.queued -= c.byteLength;
          if (this.queued < BODY_QUEUE_BYTES && this.req.isPaused() && !this.ended) {
            this.req.resume();
            this.arm();
          }
          yield c;
          continue;
        }
        if (this.ended) return;
        sinceTurn = 0;
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      // The consumer stopped (done, or failed): stop reading; the answer closes the connection.
      this.stop();
    }
  }

  /** The whole body, for small bodies (SQL text). */
  async text(): Promise<string> {
    const chunks: Uint8Array[] = [];
    for await (const c of this) chunks.push(c);
    return Buffer.concat(chunks).toString('utf8');
  }

  private readonly onData = (chunk: Buffer): void => {
    this.received += chunk.byteLength;
    if (this.received > this.limits.max) return this.fail(tooLarge(this.limits.max, null));
    this.queue.push(chunk);
    this.queued += chunk.byteLength;
    if (this.queued >= BODY_QUEUE_BYTES) {
      // The consumer is behind: the client waits for it (TCP backpressure), and no clock runs.
      this.req.pause();
      this.disarm();
    } else this.arm();
    this.notify();
  };

  private readonly onEnd = (): void => {
    if (!this.req.complete || (this.declared !== null && this.received !== this.declared)) return this.fail(truncated(this.received, this.declared));
    this.ended = true;
    this.stop();
    this.notify();
  };

  private readonly onClose = (): void => {
    if (!this.ended) this.fail(truncated(this.received, this.declared));
  };

  private fail(e: HttpError): void {
    if (this.failure !== null || this.ended) return;
    this.failure = e;
    this.queue.length = 0;
    this.queued = 0;
    this.stop();
    this.notify();
  }

  /** Stops reading (the route is done with the body, read or not). */
  close(): void {
    if (this.failure === null && !this.ended) this.stop();
  }

  private stop(): void {
    this.disarm();
    if (this.rateTimer !== null) clearInterval(this.rateTimer);
    this.rateTimer = null;
    this.req.off('data', this.onData).off('end', this.onEnd).off('close', this.onClose).off('error', this.onClose);
    if (!this.ended) this.req.pause();
  }

  private notify(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  /** Starts (or restarts) the clock of a client that owes us bytes. */
  private arm(): void {
    this.disarm();
    this.armRate();
    if (this.limits.idleMs <= 0) return;
    const at = this.received;
    this.timer = setTimeout(() => {
      // A busy event loop runs timers before it reads sockets: bytes may be waiting. The poll
      // phase reads them before setImmediate callbacks run; only then is the client late.
      setImmediate(() => {
        if (this.received === at && this.timer !== null) this.fail(timedOut(this.received, this.limits.idleMs));
      });
    }, this.limits.idleMs);
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    // The client owes nothing while paxd is behind (backpressure): the rate's clock stops.
    if (this.owedSince !== null) this.owedMs += performance.now() - this.owedSince;
    this.owedSince = null;
  }

  /** Runs the rate's clock, and checks the average rate every second until the body is done. */
  private armRate(): void {
    const minRate = this.limits.minRate ?? 0;
    if (minRate <= 0) return;
    this.owedSince ??= performance.now();
    if (this.rateTimer !== null) return;
    this.rateTimer = setInterval(() => {
      const ms = this.owedMs + (this.owedSince === null ? 0 : performance.now() - this.owedSince);
      if (ms >= RATE_GRACE_MS && this.received < (minRate * ms) / 1000) this.fail(tooSlow(this.received, ms, minRate));
    }, 1000);
    this.rateTimer.unref();
  }
}

/**
 * Retries of S3 requests: which failures are transient, how long to wait, and a time bound
 * per attempt. paxd runs its own loop (the SDK client is built with maxAttempts 1) so that
 * the policy is one small testable function and so that the store knows when an attempt's
 * outcome was unknown (a conditional PUT that may have landed before its response was lost;
 * see S3Store.putIfAbsent).
 *
 * Transient: network errors (reset, refused, timed out, a body cut short), HTTP 500, 502,
 * 503, 504 and 429, and the S3 error codes that mean the same (InternalError, SlowDown,
 * RequestTimeout, ServiceUnavailable). Everything else (403, 404, 412, 409, 400) is the
 * answer and is returned at once.
 */

export interface RetryPolicy {
  /** Attempts per request, the first included. Default 6. */
  maxAttempts: number;
  /** Backoff before the 2nd attempt; doubles up to `maxDelayMs` (equal jitter). Default 50 ms. */
  baseDelayMs: number;
  /** Default 2 s. */
  maxDelayMs: number;
  /** Time bound of one attempt, response body included. Default 30 s. */
  attemptTimeoutMs: number;
  /** The sleep between attempts (tests replace it). */
  sleep: (ms: number) => Promise<void>;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 50,
  maxDelayMs: 2000,
  attemptTimeoutMs: 30_000,
  sleep: (ms) => new Promise((done) => setTimeout(done, ms)),
};

const TRANSIENT_STATUS = new Set([429, 500, 502, 503, 504]);
const TRANSIENT_CODES = new Set([
  'InternalError',
  'SlowDown',
  'ServiceUnavailable',
  'RequestTimeout',
  'RequestTimeoutException',
  'ThrottlingException',
  'TimeoutError',
  'AttemptTimeout',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ERR_STREAM_PREMATURE_CLOSE',
  'UND_ERR_SOCKET',
]);

/** The HTTP status of an SDK error, when the server answered. */
export function httpStatusOf(e: unknown): number | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const m = (e as { $metadata?: { httpStatusCode?: number } }).$metadata;
  return m?.httpStatusCode;
}

/** The S3 error code (`NoSuchKey`, `PreconditionFailed`) or errno of a failure. */
export function errorCodeOf(e: unknown): string | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const o = e as { Code?: unknown; code?: unknown; name?: unknown };
  if (typeof o.Code === 'string') return o.Code;
  if (typeof o.code === 'string') return o.code;
  return typeof o.name === 'string' ? o.name : undefined;
}

/** True when trying again may succeed. */
export function isTransient(e: unknown): boolean {
  if (e instanceof AttemptTimeout || e instanceof TruncatedBody) return true;
  const status = httpStatusOf(e);
  if (status !== undefined && TRANSIENT_STATUS.has(status)) return true;
  const code = errorCodeOf(e);
  if (code !== undefined && TRANSIENT_CODES.has(code)) return true;
  if (status === undefined || status === 0) {
    // No HTTP answer at all: a socket-level failure ("socket hang up", reset mid-body).
    const msg = e instanceof Error ? e.message : String(e);
    if (/socket hang up|ECONNRESET|EPIPE|ECONNREFUSED|aborted|premature close|terminated|other side closed/i.test(msg)) return true;
    const cause = e instanceof Error ? e.cause : undefined;
    if (cause !== undefined && cause !== e) return isTransient(cause);
  }
  return false;
}

/** "Equal jitter": half the exponential delay fixed, half random. */
export function backoffMs(policy: RetryPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(attempt - 1, 30));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** An attempt ran past `attemptTimeoutMs`. */
export class AttemptTimeout extends Error {
  override readonly name = 'AttemptTimeout';
  constructor(readonly ms: number) {
    super(`no complete response within ${ms} ms`);
  }
}

/** A response body ended before its Content-Length (the connection dropped mid-body). */
export class TruncatedBody extends Error {
  override readonly name = 'TruncatedBody';
  constructor(readonly got: number, readonly expected: number) {
    super(`response body ended after ${got} of ${expected} bytes`);
  }
}

export interface AttemptInfo {
  /** 1-based. */
  attempt: number;
  /** An earlier attempt failed in a way that leaves its effect unknown (it may have been applied). */
  uncertain: boolean;
}

/**
 * Runs `fn` until it succeeds, fails for good, or attempts run out; each attempt gets an
 * AbortSignal that fires after `attemptTimeoutMs`, and is raced against that deadline.
 * `onRetry` is told of each transient failure (for metrics).
 */
export async function withRetries<T>(
  policy: RetryPolicy,
  fn: (signal: AbortSignal, info: AttemptInfo) => Promise<T>,
  onRetry: (e: unknown) => void = () => undefined,
): Promise<T> {
  let uncertain = false;
  for (let attempt = 1; ; attempt++) {
    const ac = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, rej) => {
      timer = setTimeout(() => {
        const e = new AttemptTimeout(policy.attemptTimeoutMs);
        ac.abort(e);
        rej(e);
      }, policy.attemptTimeoutMs);
    });
    const run = fn(ac.signal, { attempt, uncertain });
    try {
      return await Promise.race([run, deadline]);
    } catch (e) {
      run.catch(() => undefined); // the abandoned attempt must not become an unhandled rejection
      const err = ac.signal.aborted && !(e instanceof AttemptTimeout) ? new AttemptTimeout(policy.attemptTimeoutMs) : e;
      if (!isTransient(err)) throw err;
      if (attempt >= policy.maxAttempts) throw new RetriesExhausted(err, attempt);
      // A request that reached the server (any failure but a refused connection) may have
      // been applied.
      if (errorCodeOf(err) !== 'ECONNREFUSED') uncertain = true;
      onRetry(err);
      await policy.sleep(backoffMs(policy, attempt));
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The last failure of a request and how many attempts it took. */
export class RetriesExhausted extends Error {
  override readonly name = 'RetriesExhausted';
  constructor(
    readonly last: unknown,
    readonly attempts: number,
  ) {
    super(last instanceof Error ? last.message : String(last), { cause: last });
  }
}

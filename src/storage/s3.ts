/**
 * The S3 object store (README.md "Tables in S3"): objects are keys `<prefix>/<path>` in one bucket of AWS S3
 * or any S3-compatible store. See ./store.ts for the guarantees; how this store keeps them:
 *
 * - read(): ranged GETs (`Range: bytes=a-b`), so a scan fetches only the chunks it needs. A
 *   range past the end is corruption (XX001) naming the path and offset, as a short read is
 *   on disk; a missing key is not_found (58P01). Whole objects up to 1 MiB and ranges up to
 *   256 KiB (snapshots, footers, delete vectors) are kept in a small LRU cache: on S3 every
 *   paxd object is immutable, so a cached copy is never stale.
 * - create(): the writer buffers one part (8 MiB); an object that fits is one PUT, a larger
 *   one a multipart upload (parts retried one by one). Both end with `If-None-Match: *`,
 *   so a name is never overwritten; abort() aborts the upload and nothing becomes visible.
 * - putIfAbsent(): PUT with `If-None-Match: *` — the commit point of a snapshot. 412
 *   PreconditionFailed or 409 ConditionalRequestConflict: another writer has the name,
 *   false. When an earlier attempt of the same call failed after reaching the server (its
 *   response was lost), a 412 may be our own write: the object is read back and compared
 *   byte for byte, so a lost response never turns a won commit into a duplicate one.
 *   AWS S3 (since August 2024) and MinIO enforce the header, as do Cloudflare R2 and others
 *   that document S3 conditional writes (check yours). A store that ignores it lets two
 *   writers both "win" the same snapshot number (the later PUT overwrites the earlier), so a
 *   commit is silently lost. Do not let several processes write one table on such a store.
 *   (s3rver ignores it: the tests enforce it in front of s3rver, test/support/s3.ts.)
 * - append(): not possible on S3 (canAppend is false; 0A000). ao_column writes new objects.
 * - list(): ListObjectsV2, page by page.
 * - Every request is retried on transient failures (./s3-retry.ts) with exponential backoff
 *   and a time bound per attempt; the last failure becomes kind 'io' (58030) naming the path
 *   and the number of attempts.
 *
 * Configuration comes from the standard AWS chain: AWS_ENDPOINT_URL (or AWS_ENDPOINT_URL_S3)
 * for S3-compatible stores, AWS_REGION, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or
 * AWS_PROFILE and ~/.aws/config and credentials; PAXD_S3_FORCE_PATH_STYLE=1 (or
 * AWS_S3_FORCE_PATH_STYLE=1) for path-style addressing (MinIO, s3rver).
 *
 * Example:
 *   const store = S3Store.fromUri('s3://my-bucket/warehouse');
 *   await store.putIfAbsent('t/_snapshots/00000000000000000001.snap', bytes); // true
 *   await store.read('t/_snapshots/00000000000000000001.snap', 0, 4);         // "PXSN"
 *
 * One concept in one file (over 600 lines): the Store contract over S3's HTTP API (signing,
 * retries, conditional writes, ranged reads, listing); its parts share the request path.
 */
import { createHash } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { assert, corruption, ioError, objectExists, objectNotFound, PaxdError, SQLSTATE, unsupported, usage } from '../types/index.js';
import { ByteCache } from './s3-cache.js';
import { DEFAULT_RETRY, errorCodeOf, httpStatusOf, RetriesExhausted, TruncatedBody, withRetries, type AttemptInfo, type RetryPolicy } from './s3-retry.js';
import type { ObjectInfo, ObjectStore, ObjectWriter } from './store.js';

export interface S3StoreOptions {
  bucket: string;
  /** Key prefix of the store root, without leading or trailing '/'; '' for the bucket root. */
  prefix?: string;
  /** A client to use (tests); default: one from the AWS environment (see the header). */
  client?: S3Client;
  /** Overrides of the client configuration (endpoint, region, forcePathStyle, credentials). */
  clientConfig?: S3ClientConfig;
  retry?: Partial<RetryPolicy>;
  /** Size of multipart upload parts and the single-PUT threshold. Default 8 MiB (S3 needs >= 5 MiB). */
  partBytes?: number;
  /** Bytes kept by the immutable-object cache. Default 16 MiB; 0 disables it. */
  cacheBytes?: number;
  /** Keys per ListObjectsV2 page. Default 1000 (S3's maximum). */
  listPageSize?: number;
}

/** Counters for benchmarks and tests. */
export interface S3Metrics {
  /** HTTP requests sent, retries included. */
  requests: number;
  gets: number;
  puts: number;
  /** Body bytes received by GETs. */
  bytesFetched: number;
  bytesSent: number;
  retries: number;
  cacheHits: number;
}

export const DEFAULT_PART_BYTES = 8 << 20;
export const DEFAULT_CACHE_BYTES = 16 << 20;
const CACHE_WHOLE_MAX = 1 << 20;
const CACHE_RANGE_MAX = 256 << 10;
const S3_MIN_PART_BYTES = 5 << 20;

/** `s3://bucket/some/prefix/` → { bucket: 'bucket', prefix: 'some/prefix' }. */
export function parseS3Uri(uri: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(uri);
  if (!m || m[1] === '') throw usage(`invalid S3 URI "${uri}": expected s3://BUCKET[/PREFIX]`);
  const prefix = m[2]!.replace(/\/+$/, '');
  if (prefix.split('/').some((p) => p === '' || p === '.' || p === '..') && prefix !== '') {
    throw usage(`invalid S3 URI "${uri}": the prefix must be '/'-separated non-empty names`);
  }
  return { bucket: m[1]!, prefix };
}

/** The client configuration from the environment (the SDK reads the rest itself). */
export function s3ClientConfigFromEnv(env: NodeJS.ProcessEnv = process.env): S3ClientConfig {
  const flag = env.PAXD_S3_FORCE_PATH_STYLE ?? env.AWS_S3_FORCE_PATH_STYLE;
  const config: S3ClientConfig = {
    // Our own retry loop (./s3-retry.ts) decides; the SDK makes one attempt.
    maxAttempts: 1,
    // Checksums only where S3 requires them: S3-compatible stores differ in what else they accept.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    followRegionRedirects: true,
  };
  if (flag !== undefined && /^(1|true|yes|on)$/i.test(flag)) config.forcePathStyle = true;
  // An S3-compatible endpoint often has no region of its own; S3 itself needs one.
  if (!env.AWS_REGION && !env.AWS_DEFAULT_REGION && (env.AWS_ENDPOINT_URL || env.AWS_ENDPOINT_URL_S3)) config.region = 'us-east-1';
  return config;
}

/**
 * PAXD_S3_MAX_ATTEMPTS (default 6) and PAXD_S3_ATTEMPT_TIMEOUT_MS (default 30000): the retry
 * policy's knobs, for operators and for tests that run paxd as a child process.
 */
export function retryFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<RetryPolicy> {
  const out: Partial<RetryPolicy> = {};
  const int = (name: string): number | undefined => {
    const v = env[name];
    if (v === undefined || v === '') return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw usage(`${name} must be a positive integer, got "${v}"`);
    return n;
  };
  const attempts = int('PAXD_S3_MAX_ATTEMPTS');
  const timeout = int('PAXD_S3_ATTEMPT_TIMEOUT_MS');
  if (attempts !== undefined) out.maxAttempts = attempts;
  if (timeout !== undefined) out.attemptTimeoutMs = timeout;
  return out;
}

export class S3Store implements ObjectStore {
  readonly uri: string;
  readonly canAppend = false;
  readonly bucket: string;
  readonly prefix: string;
  readonly metrics: S3Metrics = { requests: 0, gets: 0, puts: 0, bytesFetched: 0, bytesSent: 0, retries: 0, cacheHits: 0 };
  readonly client: S3Client;
  private readonly ownsClient: boolean;
  readonly retry: RetryPolicy;
  readonly partBytes: number;
  private readonly cache: ByteCache;
  private readonly listPageSize: number;

  constructor(opts: S3StoreOptions) {
    this.bucket = opts.bucket;
    this.prefix = opts.prefix ?? '';
    this.uri = `s3://${this.bucket}${this.prefix ? '/' + this.prefix : ''}`;
    this.ownsClient = opts.client === undefined;
    this.client = opts.client ?? new S3Client({ ...s3ClientConfigFromEnv(), ...opts.clientConfig });
    this.retry = { ...DEFAULT_RETRY, ...retryFromEnv(), ...opts.retry };
    this.partBytes = opts.partBytes ?? DEFAULT_PART_BYTES;
    this.cache = new ByteCache(opts.cacheBytes ?? DEFAULT_CACHE_BYTES, CACHE_WHOLE_MAX);
    this.listPageSize = opts.listPageSize ?? 1000;
    assert(this.partBytes > 0, 'partBytes must be positive');
    assert(this.retry.maxAttempts >= 1, 'retry.maxAttempts must be at least 1');
  }

  static fromUri(uri: string, opts: Omit<S3StoreOptions, 'bucket' | 'prefix'> = {}): S3Store {
    return new S3Store({ ...parseS3Uri(uri), ...opts });
  }

  /** Parts below S3's 5 MiB minimum work only on stores that do not enforce it (s3rver). */
  get smallParts(): boolean {
    return this.partBytes < S3_MIN_PART_BYTES;
  }

  // ---- reads ----

  async read(path: string, offset?: number, length?: number): Promise<Uint8Array> {
    const key = this.key(path);
    if (offset === undefined && length === undefined) {
      const hit = this.cached(path);
      if (hit) return hit;
      const whole = await this.get(path, key, undefined);
      if (whole.bytes.byteLength <= CACHE_WHOLE_MAX) this.cache.set(path, whole.bytes);
      return whole.bytes;
    }
    const at = offset ?? 0;
    assert(Number.isSafeInteger(at) && at >= 0, `read offset ${at} of ${path}`);
    if (length !== undefined) assert(Number.isSafeInteger(length) && length >= 0, `read length ${length} of ${path}`);
    const ckey = length !== undefined ? `${path}@${at}+${length}` : undefined;
    if (ckey) {
      const hit = this.cached(ckey);
      if (hit) return hit;
    }
    if (length === 0) {
      // S3 cannot express an empty range; the object must still exist.
      if ((await this.stat(path)) === null) throw objectNotFound(path);
      return new Uint8Array(0);
    }
    const got = await this.get(path, key, { offset: at, length });
    if (length !== undefined && got.bytes.byteLength < length) throw shortObject(path, at, length, got.size);
    if (ckey && length! <= CACHE_RANGE_MAX) this.cache.set(ckey, got.bytes);
    return got.bytes;
  }

  async stat(path: string): Promise<ObjectInfo | null> {
    const key = this.key(path);
    try {
      const r = await this.request('stat', path, (signal) => this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal: signal }));
      return { path, size: r.ContentLength ?? 0, mtimeMs: r.LastModified?.getTime() ?? 0 };
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  async list(prefix: string, startAfter?: string): Promise<ObjectInfo[]> {
    const root = this.prefix ? this.prefix + '/' : '';
    const out: ObjectInfo[] = [];
    let token: string | undefined;
    do {
      const page = await this.request('list', prefix === '' ? '.' : prefix, (signal) =>
        this.client.send(
          new ListObjectsV2Command({ Bucket: this.bucket, Prefix: root + prefix, MaxKeys: this.listPageSize, ...(token ? { ContinuationToken: token } : {}), ...(startAfter !== undefined ? { StartAfter: root + startAfter } : {}) }),
          { abortSignal: signal },
        ),
      );
      for (const o of page.Contents ?? []) {
        if (o.Key === undefined || !o.Key.startsWith(root)) continue;
        out.push({ path: o.Key.slice(root.length), size: o.Size ?? 0, mtimeMs: o.LastModified?.getTime() ?? 0 });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    // S3 lists in UTF-8 byte order; paxd compares keys as JS strings (as the local store does).
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  // ---- writes ----

  async create(path: string): Promise<ObjectWriter> {
    const key = this.key(path);
    if ((await this.stat(path)) !== null) throw objectExists(path);
    return new S3Writer(this, path, key);
  }

  async append(path: string, offset: number): Promise<ObjectWriter> {
    void offset;
    this.key(path);
    throw unsupported(`appending to an existing object in S3 storage ("${path}")`);
  }

  async putIfAbsent(path: string, bytes: Uint8Array): Promise<boolean> {
    const key = this.key(path);
    let outcome: 'created' | 'existed' | 'ambiguous';
    try {
      outcome = await this.request('write', path, async (signal, info) => {
        try {
          await this.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentLength: bytes.byteLength, IfNoneMatch: '*' }), signal);
          this.metrics.puts++;
          this.metrics.bytesSent += bytes.byteLength;
          return 'created' as const;
        } catch (e) {
          if (!isConditionFailed(e)) throw e;
          return info.uncertain ? ('ambiguous' as const) : ('existed' as const);
        }
      });
    } catch (e) {
      // The attempts ran out, but one of them may have landed with its answer lost.
      if (!(e instanceof PaxdError && e.kind === 'io')) throw e;
      if (await this.holds(path, bytes, e)) return true;
      throw e;
    }
    if (outcome === 'created') {
      this.cache.set(path, bytes.slice());
      return true;
    }
    if (outcome === 'existed') return false;
    // An earlier attempt may have created it before its response was lost: ours if equal.
    return this.holds(path, bytes, null);
  }

  /**
   * Whether `path` holds exactly `bytes` (a conditional write of ours whose answer was lost).
   * When that cannot be found out either, the outcome is unknown: an 'io' error saying so.
   */
  private async holds(path: string, bytes: Uint8Array, failure: PaxdError | null): Promise<boolean> {
    let now: Uint8Array | null;
    try {
      now = await this.read(path);
    } catch (e) {
      if (e instanceof PaxdError && e.kind === 'not_found') return false;
      throw outcomeUnknown(path, this.uri, failure ?? e);
    }
    return equalBytes(now, bytes);
  }

  async delete(path: string): Promise<void> {
    const key = this.key(path);
    this.cache.evictPath(path);
    try {
      await this.request('delete', path, (signal) => this.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }), signal));
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
  }

  async close(): Promise<void> {
    if (this.ownsClient) this.client.destroy();
  }

  // ---- plumbing for the writer and the reads ----

  /** Sends one command (one HTTP request). */
  send<T>(command: { readonly input: unknown }, signal: AbortSignal): Promise<T> {
    this.metrics.requests++;
    return this.client.send(command as never, { abortSignal: signal }) as Promise<T>;
  }

  /**
   * Runs `fn` with retries; a final transient failure becomes kind 'io' naming the path,
   * any other failure goes back to the caller as it came (not found, conditions, 403…).
   */
  async request<T>(op: string, path: string, fn: (signal: AbortSignal, info: AttemptInfo) => Promise<T>): Promise<T> {
    try {
      return await withRetries(this.retry, fn, () => this.metrics.retries++);
    } catch (e) {
      if (e instanceof PaxdError) throw e;
      if (e instanceof RetriesExhausted) throw s3Error(op, path, this.uri, e.last, e.attempts);
      // Answers the caller interprets: missing, condition failed, range not satisfiable.
      if (isNotFound(e) || isConditionFailed(e) || httpStatusOf(e) === 416) throw e;
      throw s3Error(op, path, this.uri, e, 1);
    }
  }

  private cached(key: string): Uint8Array | undefined {
    const hit = this.cache.get(key);
    if (hit) this.metrics.cacheHits++;
    return hit;
  }

  /** A GET of the object or of a range; `size` is the object's size when known. */
  private async get(path: string, key: string, range: { offset: number; length: number | undefined } | undefined): Promise<{ bytes: Uint8Array; size: number }> {
    const header = range ? `bytes=${range.offset}-${range.length !== undefined ? range.offset + range.length - 1 : ''}` : undefined;
    try {
      return await this.request('read', path, async (signal) => {
        this.metrics.gets++;
        const r = await this.send<{ Body?: { transformToByteArray(): Promise<Uint8Array> }; ContentLength?: number; ContentRange?: string }>(
          new GetObjectCommand({ Bucket: this.bucket, Key: key, ...(header ? { Range: header } : {}) }),
          signal,
        );
        const bytes = r.Body ? await r.Body.transformToByteArray() : new Uint8Array(0);
        this.metrics.bytesFetched += bytes.byteLength;
        if (r.ContentLength !== undefined && bytes.byteLength < r.ContentLength) throw new TruncatedBody(bytes.byteLength, r.ContentLength);
        const total = /\/(\d+)$/.exec(r.ContentRange ?? '');
        return { bytes, size: total ? Number(total[1]) : bytes.byteLength };
      });
    } catch (e) {
      if (isNotFound(e)) throw objectNotFound(path);
      if (range && httpStatusOf(e) === 416) {
        // The range starts at or past the end: an empty open-ended read at the end is fine.
        const info = await this.stat(path);
        if (info === null) throw objectNotFound(path);
        if (range.length === undefined && range.offset === info.size) return { bytes: new Uint8Array(0), size: info.size };
        throw shortObject(path, range.offset, range.length ?? 0, info.size);
      }
      throw e;
    }
  }

  key(path: string): string {
    const parts = path.split('/');
    if (path === '' || path.includes('\0') || path.includes('\\') || parts.some((p) => p === '' || p === '.' || p === '..')) {
      throw usage(`invalid object path "${path}": expected a relative path of non-empty names without "." or ".."`);
    }
    return this.prefix ? `${this.prefix}/${path}` : path;
  }

  /** For the writer: a completed object's bytes may be cached (small ones). */
  remember(path: string, bytes: Uint8Array): void {
    if (bytes.byteLength <= CACHE_RANGE_MAX) this.cache.set(path, bytes);
  }
}

type WriterState = 'open' | 'closed' | 'failed' | 'aborted';

/**
 * Buffers up to `partBytes`; close() of an object that fits is one conditional PUT, a larger
 * object is a multipart upload started when the first part is full. One caller at a time.
 */
class S3Writer implements ObjectWriter {
  private state: WriterState = 'open';
  private busy = false;
  private buffer: Uint8Array;
  private buffered = 0;
  private pos = 0;
  private uploadId: string | null = null;
  private readonly parts: { PartNumber: number; ETag: string }[] = [];
  /** MD5 of each part, for the multipart ETag (see verifyOwn). */
  private readonly partMd5: Buffer[] = [];

  constructor(
    private readonly store: S3Store,
    readonly path: string,
    private readonly key: string,
  ) {
    this.buffer = new Uint8Array(Math.min(store.partBytes, 1 << 16));
  }

  get position(): number {
    return this.pos;
  }

  async write(bytes: Uint8Array): Promise<void> {
    this.begin('write');
    try {
      let at = 0;
      while (at < bytes.byteLength) {
        const n = Math.min(bytes.byteLength - at, this.store.partBytes - this.buffered);
        this.ensureCapacity(this.buffered + n);
        this.buffer.set(bytes.subarray(at, at + n), this.buffered);
        this.buffered += n;
        this.pos += n;
        at += n;
        if (this.buffered === this.store.partBytes) await this.uploadPart();
      }
    } catch (e) {
      this.state = 'failed';
      await this.abortUpload();
      throw e;
    } finally {
      this.busy = false;
    }
  }

  async close(): Promise<void> {
    this.begin('close');
    try {
      if (this.uploadId === null) await this.putWhole();
      else await this.completeUpload();
      this.state = 'closed';
    } catch (e) {
      this.state = 'failed';
      await this.abortUpload();
      throw e;
    } finally {
      this.busy = false;
    }
  }

  async abort(): Promise<void> {
    assert(!this.busy, `abort of ${this.path} while a write is in progress`);
    if (this.state === 'aborted') return;
    const wasClosed = this.state === 'closed';
    this.state = 'aborted';
    await this.abortUpload();
    // An object already completed is removed, as the local store removes a closed file.
    if (wasClosed) await this.store.delete(this.path).catch(() => undefined);
  }

  private async putWhole(): Promise<void> {
    const body = this.buffer.subarray(0, this.buffered);
    const outcome = await this.store.request('write', this.path, async (signal, info) => {
      try {
        await this.store.send(new PutObjectCommand({ Bucket: this.store.bucket, Key: this.key, Body: body, ContentLength: body.byteLength, IfNoneMatch: '*' }), signal);
        this.store.metrics.puts++;
        this.store.metrics.bytesSent += body.byteLength;
        return 'created' as const;
      } catch (e) {
        if (!isConditionFailed(e)) throw e;
        return info.uncertain ? ('ambiguous' as const) : ('existed' as const);
      }
    });
    if (outcome === 'existed' || (outcome === 'ambiguous' && !(await this.verifyOwn(md5Hex([body]), body.byteLength)))) throw objectExists(this.path);
    this.store.remember(this.path, body.slice());
  }

  private async uploadPart(): Promise<void> {
    const key = this.key;
    if (this.uploadId === null) {
      const r = await this.store.request('write', this.path, (signal) =>
        this.store.send<{ UploadId?: string }>(new CreateMultipartUploadCommand({ Bucket: this.store.bucket, Key: key }), signal),
      );
      assert(r.UploadId, `CreateMultipartUpload of ${this.path} returned no UploadId`);
      this.uploadId = r.UploadId;
    }
    const uploadId = this.uploadId;
    const body = this.buffer.subarray(0, this.buffered);
    const partNumber = this.parts.length + 1;
    const r = await this.store.request('write', this.path, (signal) =>
      this.store.send<{ ETag?: string }>(
        new UploadPartCommand({ Bucket: this.store.bucket, Key: key, UploadId: uploadId, PartNumber: partNumber, Body: body, ContentLength: body.byteLength }),
        signal,
      ),
    );
    this.store.metrics.bytesSent += body.byteLength;
    this.parts.push({ PartNumber: partNumber, ETag: r.ETag ?? '' });
    this.partMd5.push(createHash('md5').update(body).digest());
    // The SDK may still hold `body` (a retry); a fresh buffer for the next part.
    this.buffer = new Uint8Array(this.buffer.byteLength);
    this.buffered = 0;
  }

  private async completeUpload(): Promise<void> {
    if (this.buffered > 0) await this.uploadPart();
    const uploadId = this.uploadId!;
    const outcome = await this.store.request('write', this.path, async (signal, info) => {
      try {
        await this.store.send(
          new CompleteMultipartUploadCommand({ Bucket: this.store.bucket, Key: this.key, UploadId: uploadId, MultipartUpload: { Parts: this.parts }, IfNoneMatch: '*' }),
          signal,
        );
        this.store.metrics.puts++;
        return 'created' as const;
      } catch (e) {
        // After a lost response the upload may be complete already: NoSuchUpload then.
        if (info.uncertain && errorCodeOf(e) === 'NoSuchUpload') return 'ambiguous' as const;
        if (!isConditionFailed(e)) throw e;
        return info.uncertain ? ('ambiguous' as const) : ('existed' as const);
      }
    });
    this.uploadId = outcome === 'created' ? null : this.uploadId;
    if (outcome === 'created') return;
    const etag = createHash('md5').update(Buffer.concat(this.partMd5)).digest('hex') + `-${this.partMd5.length}`;
    if (outcome === 'existed' || !(await this.verifyOwn(etag, this.pos))) throw objectExists(this.path);
    this.uploadId = null;
  }

  /** After an ambiguous conditional write: is the object there the one we wrote? */
  private async verifyOwn(etag: string, size: number): Promise<boolean> {
    try {
      const r = await this.store.request('stat', this.path, (signal) =>
        this.store.send<{ ETag?: string; ContentLength?: number }>(new HeadObjectCommand({ Bucket: this.store.bucket, Key: this.key }), signal),
      );
      return r.ContentLength === size && (r.ETag ?? '').replace(/"/g, '') === etag;
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
  }

  private async abortUpload(): Promise<void> {
    const uploadId = this.uploadId;
    if (uploadId === null) return;
    this.uploadId = null;
    await this.store
      .request('abort the upload of', this.path, (signal) => this.store.send(new AbortMultipartUploadCommand({ Bucket: this.store.bucket, Key: this.key, UploadId: uploadId }), signal))
      .catch(() => undefined); // best effort: a lifecycle rule cleans up abandoned uploads
  }

  private ensureCapacity(n: number): void {
    if (n <= this.buffer.byteLength) return;
    const grown = new Uint8Array(Math.min(this.store.partBytes, Math.max(n, this.buffer.byteLength * 2)));
    grown.set(this.buffer.subarray(0, this.buffered));
    this.buffer = grown;
  }

  private begin(op: string): void {
    assert(!this.busy, `${op} of ${this.path} while a write is in progress`);
    assert(this.state === 'open', `${op} of ${this.path} after the writer was ${this.state}`);
    this.busy = true;
  }
}

function isNotFound(e: unknown): boolean {
  const code = errorCodeOf(e);
  return httpStatusOf(e) === 404 && code !== 'NoSuchBucket' && code !== 'NoSuchUpload';
}

/** 412 PreconditionFailed, or 409 ConditionalRequestConflict (a concurrent conditional write). */
function isConditionFailed(e: unknown): boolean {
  const status = httpStatusOf(e);
  return status === 412 || (status === 409 && errorCodeOf(e) !== 'BucketAlreadyExists');
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

function md5Hex(chunks: Uint8Array[]): string {
  const h = createHash('md5');
  for (const c of chunks) h.update(c);
  return h.digest('hex');
}

/** `short read of t/data/1.pax: expected 4096 bytes at offset 1048576, object has 1049000`. */
function shortObject(path: string, offset: number, length: number, size: number): PaxdError {
  return corruption(path, offset, `short read of ${path}: expected ${length} bytes at offset ${offset}, object has ${size}`);
}

/** A conditional write whose result could not be learned: like a failed COMMIT, it may have happened. */
function outcomeUnknown(path: string, uri: string, e: unknown): PaxdError {
  const reason = e instanceof Error ? e.message : String(e);
  return new PaxdError('io', SQLSTATE.io_error, `could not write file "${path}" in ${uri}, and could not learn whether the write happened: ${reason}`, {
    file: path,
    detail: OUTCOME_UNKNOWN,
    cause: e,
  });
}

/** `detail` of an io error after which a conditional write may or may not be visible. */
export const OUTCOME_UNKNOWN = 'outcome unknown';

/** `could not read file "t/data/1.pax" in s3://b/p: 503 SlowDown (after 6 attempts)`. */
function s3Error(op: string, path: string, uri: string, e: unknown, attempts: number): PaxdError {
  const status = httpStatusOf(e);
  const code = errorCodeOf(e);
  const reason = e instanceof Error ? e.message : String(e);
  const what = [status && status > 0 ? String(status) : '', code ?? '', reason && reason !== code ? reason : ''].filter((x) => x !== '').join(' ');
  const tries = attempts > 1 ? ` (after ${attempts} attempts)` : '';
  return ioError(`could not ${op} file "${path}" in ${uri}: ${what}${tries}`, path, e);
}

/**
 * The daemon's HTTP API (node:http, default 127.0.0.1:7480):
 *
 *   GET  /health               200 while the process is alive
 *   GET  /ready                200 when the store answers and the servers accept work; 503 otherwise
 *   GET  /metrics              Prometheus text (./metrics.ts)
 *   POST /v1/tables/{t}/rows   body: Arrow IPC stream, CSV or NDJSON (by Content-Type; gzip or
 *                              zstd by Content-Encoding) → one commit; 200 {"rows", "snapshot"}
 *   POST /v1/sql               body: SQL text, or JSON {"sql": "…", "timezone"?: "Europe/Berlin", "statement_timeout"?: "5s"}
 *                              (UTC and the daemon's statement_timeout unless given) → Arrow IPC stream, or JSON
 *                              {"fields", "rows"} (PostgreSQL text values) with Accept: application/json.
 *                              A statement stopped by its timeout is 408 with 57014; one whose client
 *                              went away is cancelled (nobody is left to answer).
 *
 * Errors are JSON `{"error": {"sqlstate", "message", "line"?, "column"?}}` with a 4xx status
 * for the client's mistakes (5xx for the server's). A body streams into its load as the load
 * reads it (./body.ts: backpressure, bounded by `max_body_bytes`, `http_body_timeout_ms` and,
 * over all requests, `max_inflight_body_bytes`); the load commits only once the body has
 * arrived whole: a truncated body (fewer bytes than Content-Length, or a chunked body cut off)
 * fails with 400 and commits nothing, and so does a malformed one, with its SQLSTATE. Headers
 * must arrive within `http_header_timeout_ms` (408).
 *
 * With users configured, every route but /health and /ready needs HTTP Basic credentials
 * that match a user's SCRAM verifier (./auth.ts), and the request runs as that user: /v1/sql's
 * statement is checked as the wire's are (src/engine/access.ts), and a load into
 * /v1/tables/t/rows needs INSERT on t, as COPY FROM does (42501: 403, before the body is read).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Database } from '../table/index.js';
import { type PaxdError, isPaxdError, parseSetting, pgDisplayName, queryCanceled, unreachable, SQLSTATE, STATEMENT_TIMEOUT, type TimeZone, timeZoneSetting } from '../types/index.js';
import { ingestFiles } from '../table/ingest.js';
import { streamInput, type Format } from '../insert/readers.js';
import { authorizeCopyFrom, query, textRows, commandTag } from '../engine/index.js';
import { resultToArrowIpc } from './arrow-out.js';
import { BasicAuth } from './auth.js';
import { Body, HttpError, Inflight, MAX_SQL_BYTES, type Reservation, declaredLength, loadWorkingSet, tooLarge } from './body.js';
import type { AuthConfig } from '../pgwire/index.js';
import type { Logger } from './log.js';
import type { DaemonMetrics } from './metrics.js';

export const ARROW_STREAM_TYPE = 'application/vnd.apache.arrow.stream';

export interface HttpOptions {
  db: Database;
  host: string;
  port: number;
  /** The users and method the wire server has too (serveAuthConfig); trust: no credentials asked. */
  auth: AuthConfig;
  /** A failed login's 401 waits this long (ms). */
  authFailureDelayMs: number;
  maxBodyBytes: number;
  /** Body bytes in flight over all requests; past it, 503 (./body.ts Inflight). */
  maxInflightBodyBytes: number;
  /** Headers must have arrived this long after a request's first byte (ms), else 408. */
  headerTimeoutMs: number;
  /** A body may go this long without a byte (ms), else 408. */
  bodyTimeoutMs: number;
  /** Each /v1/sql statement's statement_timeout unless the request gives one (ms; 0: none). */
  statementTimeoutMs: number;
  /** Least average body bytes per second (./body.ts, after its grace), else 408; 0 or absent: none. */
  bodyMinRate?: number;
  csvHeader: boolean;
  log: Logger;
  metrics: DaemonMetrics;
  /** Whether the daemon accepts work (false while starting and stopping). */
  ready: () => Promise<boolean>;
}

export interface HttpServer {
  readonly host: string;
  readonly port: number;
  /** Requests doing work (loads, statements) now. */
  busy(): number;
  /** Stops accepting; resolves when the requests in progress have finished (`force`: ends them now). */
  close(force?: boolean): Promise<void>;
}

export async function startHttp(o: HttpOptions): Promise<HttpServer> {
  const auth = new BasicAuth(o.auth);
  const inflight = new Inflight(o.maxInflightBodyBytes);
  /**
   * The body of a request, counted in flight until `finish`: its Content-Length (a chunked
   * one: `max`), at most `hold`, the bytes its route holds at most however long the body (see
   * Inflight). A client that sent `Expect: 100-continue` (curl does for bodies over 1 MB) is
   * told to send it only now, once the request has passed authentication and the in-flight
   * limit: a refused one never sends it.
   */
  const body = (req: IncomingMessage, res: ServerResponse, max: number, hold = Infinity): Body => {
    const reservation = inflight.admit(Math.min(declaredLength(req) ?? max, max, hold));
    if (/100-continue/i.test(req.headers.expect ?? '') && !res.headersSent) res.writeContinue();
    const b = new Body(req, { max, idleMs: o.bodyTimeoutMs, minRate: o.bodyMinRate ?? 0 });
    bodies.set(b, reservation);
    return b;
  };
  const bodies = new Map<Body, Reservation>();
  const finish = (b: Body): void => {
    b.close();
    bodies.get(b)?.release();
    bodies.delete(b);
  };
  let busy = 0;
  let stopping = false;
  let drained: (() => void) | null = null;
  const sockets = new Set<import('node:net').Socket>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<string> => {
    const url = requestUrl(req.url);
    const path = url.pathname;
    // A declared body over the limit is refused before a byte of it is read, whatever the route.
    const declared = declaredLength(req);
    const limit = path === '/v1/sql' ? Math.min(MAX_SQL_BYTES, o.maxBodyBytes) : o.maxBodyBytes;
    if (declared !== null && declared > limit) throw tooLarge(limit, declared);
    if (req.method === 'GET' && path === '/health') {
      sendJson(res, 200, { status: 'ok' });
      return 'health';
    }
    if (req.method === 'GET' && path === '/ready') {
      const ok = !stopping && (await o.ready().catch(() => false));
      sendJson(res, ok ? 200 : 503, { status: ok ? 'ready' : 'not ready' });
      return 'ready';
    }
    // The user the request runs as (its privileges are checked: src/table/privileges.ts); under
    // trust the one its Basic header names, if any (none: the daemon's own rights).
    const user = auth.enabled ? await authenticate(req, res, path) : auth.trustedUser(req.headers.authorization);
    if (req.method === 'GET' && path === '/metrics') {
      const text = await o.metrics.render();
      res.writeHead(200, { 'Content-Type': o.metrics.contentType, ...closeUnread(res) });
      res.end(text);
      return 'metrics';
    }
    const rows = /^\/v1\/tables\/([^/]+)\/rows$/.exec(path);
    if (rows !== null) {
      if (req.method !== 'POST') throw new HttpError(405, SQLSTATE.syntax_error, `${req.method} ${path}: use POST`);
      if (stopping) throw new HttpError(503, SQLSTATE.admin_shutdown, 'the server is shutting down');
      const table = decodePathSegment(rows[1]!);
      busy++;
      let b: Body | null = null;
      try {
        await ingestBody(o, table, user, url, req, res, (hold) => (b = body(req, res, o.maxBodyBytes, hold)));
      } finally {
        if (b !== null) finish(b);
        done();
      }
      return 'rows';
    }
    if (path === '/v1/sql') {
      if (req.method !== 'POST') throw new HttpError(405, SQLSTATE.syntax_error, `${req.method} ${path}: use POST`);
      if (stopping) throw new HttpError(503, SQLSTATE.admin_shutdown, 'the server is shutting down');
      busy++;
      const b = body(req, res, limit);
      try {
        await runSql(o, user, req, res, b);
      } finally {
        finish(b);
        done();
      }
      return 'sql';
    }
    throw new HttpError(404, SQLSTATE.undefined_object, `no route ${req.method} ${path}`);
  };

  /** Lets the request on, or fails it with 401 after the failure delay; logs and counts. */
  const authenticate = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<string> => {
    const r = await auth.check(req.headers.authorization);
    const remote = req.socket.remoteAddress;
    if (r.ok) {
      // Logged when verified, not on every request that reuses verified credentials.
      if (!r.cached) o.log.info({ protocol: 'http', user: r.user, remote }, `http: user "${r.user}" authenticated`);
      return r.user!;
    }
    o.metrics.authFailures.inc({ protocol: 'http' });
    o.log.warn(
      { protocol: 'http', user: r.user ?? undefined, remote, method: req.method, path },
      r.user === null ? 'http: no valid credentials' : `http: password authentication failed for user "${r.user}"`,
    );
    if (o.authFailureDelayMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, o.authFailureDelayMs));
      o.metrics.authDelaySeconds.inc(o.authFailureDelayMs / 1000);
    }
    res.setHeader('WWW-Authenticate', 'Basic realm="paxd", charset="UTF-8"');
    throw new HttpError(
      401,
      SQLSTATE.invalid_password,
      r.user === null ? 'authentication required: HTTP Basic credentials of a paxd user' : `password authentication failed for user "${r.user}"`,
    );
  };

  const done = () => {
    busy--;
    if (busy === 0) drained?.();
  };

  const server: Server = createServer(
    {
      // Slow headers (slowloris) are cut off by Node (408); bodies by ./body.ts, which knows
      // a client that is slow from a load that makes it wait.
      headersTimeout: o.headerTimeoutMs,
      requestTimeout: 0,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(o.headerTimeoutMs / 4))),
    },
    onRequest,
  );
  // Expect: 100-continue is answered by the route, once it wants the body (above).
  server.on('checkContinue', onRequest);
  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    handle(req, res)
      .then((route) => o.metrics.httpRequests.inc({ route, status: String(res.statusCode) }))
      .catch((e: unknown) => {
        const { status, body } = errorBody(e);
        // 503 is the server saying "later" (in-flight bytes, shutdown): no failure of its own.
        if (status >= 500 && status !== 503) o.log.error({ err: e, url: req.url }, 'http: request failed');
        else if (status === 503) o.log.warn({ url: req.url, status, sqlstate: body.error.sqlstate, message: body.error.message }, 'http: request refused');
        else o.log.debug({ url: req.url, status, sqlstate: body.error.sqlstate }, 'http: request refused');
        o.metrics.httpRequests.inc({ route: 'error', status: String(status) });
        // A body not read to its end is not read at all: the answer says `Connection: close`
        // and the connection ends once it is written (closeUnread).
        if (e instanceof HttpError) for (const [k, v] of Object.entries(e.headers)) res.setHeader(k, v);
        if (!res.headersSent) sendJson(res, status, body);
        else res.destroy();
      })
      .finally(() => o.log.trace({ method: req.method, url: req.url, status: res.statusCode, ms: Math.round(performance.now() - started) }, 'http'));
  }
  server.on('connection', (s) => {
    sockets.add(s);
    o.metrics.connections.inc({ protocol: 'http' });
    s.once('close', () => {
      sockets.delete(s);
      o.metrics.connections.dec({ protocol: 'http' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as import('node:net').AddressInfo;

  return {
    host: o.host,
    port: addr.port,
    busy: () => busy,
    async close(force = false) {
      stopping = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (!force && busy > 0) await new Promise<void>((resolve) => (drained = resolve));
      server.closeAllConnections();
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

// ---- POST /v1/tables/{t}/rows ----

/** The input format of a body, from its Content-Type. */
function formatOfContentType(ct: string | undefined): Format | null {
  const base = (ct ?? '').split(';')[0]!.trim().toLowerCase();
  switch (base) {
    case ARROW_STREAM_TYPE:
    case 'application/vnd.apache.arrow.file':
    case 'application/x-arrow':
      return 'arrow';
    case 'text/csv':
      return 'csv';
    case 'application/x-ndjson':
    case 'application/ndjson':
    case 'application/jsonl':
    case 'application/json-lines':
    case 'application/json':
      return 'ndjson';
    default:
      return null;
  }
}

/**
 * CSV bytes parsed at a time by an HTTP load: a block is parsed in one go on the event loop,
 * which /health and the other sessions wait behind; a quarter of `paxd ingest`'s 1 MiB, as much
 * as the body hands over between two turns of the loop (./body.ts).
 */
const CSV_BLOCK_BYTES = 256 * 1024;

async function ingestBody(o: HttpOptions, table: string, user: string | undefined, url: URL, req: IncomingMessage, res: ServerResponse, open: (hold: number) => Body): Promise<void> {
  const format = formatOfContentType(req.headers['content-type']);
  if (format === null)
    throw new HttpError(
      415,
      SQLSTATE.invalid_parameter_value,
      `unsupported Content-Type "${req.headers['content-type'] ?? ''}": use ${ARROW_STREAM_TYPE}, text/csv or application/x-ndjson`,
    );
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  const compression = encoding === 'gzip' ? 'gzip' : encoding === 'zstd' ? 'zstd' : encoding === 'identity' ? null : undefined;
  if (compression === undefined)
    throw new HttpError(415, SQLSTATE.invalid_parameter_value, `unsupported Content-Encoding "${encoding}": use gzip, zstd or none`);
  const onError = url.searchParams.get('on_error') ?? 'abort';
  if (onError !== 'abort' && onError !== 'skip') throw new HttpError(400, SQLSTATE.invalid_parameter_value, `on_error must be abort or skip, got "${onError}"`);
  const headerParam = url.searchParams.get('header') ?? /header=(present|absent)/i.exec(req.headers['content-type'] ?? '')?.[1];
  const header = headerParam === undefined || headerParam === null ? o.csvHeader : headerParam === 'true' || headerParam.toLowerCase() === 'present';
  const t = await o.db.table(table);
  // INSERT on the table, as COPY FROM needs (42501, 403), before a byte of the body is read.
  await authorizeCopyFrom(o.db, user, table);
  // Opened once the request is known to be good: only then does it count in flight, as much
  // as the load can hold of it.
  const body = open(loadWorkingSet(t.snapshot.options.rowGroupBytes));
  let r: Awaited<ReturnType<typeof ingestFiles>>;
  try {
    // The load reads the body as it arrives; it commits only after the body's last byte.
    r = await ingestFiles(t, [streamInput('request body', body, compression)], { format, onError, csv: { header, blockBytes: CSV_BLOCK_BYTES }, summary: { operation: 'http' }, parseThread: true });
  } catch (e) {
    // A broken limit (413, 408, 400 cut short, 503), however the reader reported it.
    throw body.failure ?? e;
  }
  o.metrics.rowsIngested.inc({ source: 'http', table }, r.rowsLoaded);
  o.metrics.rowsRejected.inc({ source: 'http', table }, r.rowsRejected);
  o.metrics.bytesIngested.inc({ source: 'http', table }, body.bytes);
  o.metrics.commits.inc({ operation: 'ingest', table });
  o.log.info(
    { table, rows: r.rowsLoaded, rejected: r.rowsRejected, bytes: body.bytes, snapshot: r.commit.snapshot.id },
    `http: loaded ${r.rowsLoaded} rows into ${table}`,
  );
  sendJson(res, 200, { table, rows: r.rowsLoaded, rejected: r.rowsRejected, snapshot: r.commit.snapshot.id });
}

/**
 * The URL of a request line: origin-form (`/v1/sql?x=1`, the usual) or absolute-form
 * (`http://host/v1/sql`, RFC 9112 3.2.2). `//x/y` is a path here, not a host.
 */
function requestUrl(target: string | undefined): URL {
  const t = target ?? '/';
  try {
    return t.startsWith('/') ? new URL(`http://paxd${t}`) : new URL(t);
  } catch {
    throw new HttpError(400, SQLSTATE.invalid_parameter_value, `invalid request target ${JSON.stringify(t.slice(0, 200))}`);
  }
}

/** A %-decoded path segment; a bad escape (`%zz`, `%e9` alone) is the client's mistake: 400. */
function decodePathSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new HttpError(400, SQLSTATE.invalid_escape_sequence, `invalid percent-escape in path segment ${JSON.stringify(s.slice(0, 200))}`);
  }
}

// ---- POST /v1/sql ----

async function runSql(o: HttpOptions, user: string | undefined, req: IncomingMessage, res: ServerResponse, body: Body): Promise<void> {
  const text = await body.text();
  let sql = text;
  let zone: TimeZone | undefined;
  // ?statement_timeout=5s for any body; a JSON body's field wins.
  let timeout: unknown = requestUrl(req.url).searchParams.get('statement_timeout') ?? undefined;
  if ((req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      throw new HttpError(400, SQLSTATE.invalid_text_representation, `invalid JSON body: ${(e as Error).message}`);
    }
    const s = (parsed as { sql?: unknown } | null)?.sql;
    if (typeof s !== 'string') throw new HttpError(400, SQLSTATE.invalid_parameter_value, 'JSON body needs "sql": a string');
    sql = s;
    // "timezone": the session TimeZone the statement runs in (UTC when absent), as SET TimeZone takes it.
    const tz = (parsed as { timezone?: unknown }).timezone;
    if (tz !== undefined) {
      const z = typeof tz === 'string' ? timeZoneSetting(tz) : null;
      if (z === null) throw new HttpError(400, SQLSTATE.invalid_parameter_value, `invalid value for parameter "TimeZone": ${JSON.stringify(tz)}`);
      zone = z;
    }
    const st = (parsed as { statement_timeout?: unknown }).statement_timeout;
    if (st !== undefined) timeout = st;
  }
  if (sql.trim() === '') throw new HttpError(400, SQLSTATE.syntax_error, 'no SQL statement in the body');
  const ms = timeout === undefined ? o.statementTimeoutMs : statementTimeoutOf(timeout);
  // The statement stops at its timeout (57014, answered 408), or when its client goes away
  // (the connection closed before the answer was written: nobody waits for it any more).
  const ac = new AbortController();
  const timer = ms > 0 ? setTimeout(() => ac.abort(queryCanceled('timeout')), ms) : null;
  const gone = () => {
    if (!res.writableEnded) ac.abort(queryCanceled('user'));
  };
  res.once('close', gone);
  const end = o.metrics.queryDuration.startTimer();
  let r;
  try {
    r = await query(o.db, sql, undefined, { ...(zone !== undefined ? { timeZone: zone } : {}), signal: ac.signal, ...(user !== undefined ? { user } : {}) });
    o.metrics.queries.inc({ status: 'ok' });
  } catch (e) {
    o.metrics.queries.inc({ status: 'error' });
    if (ac.signal.aborted && res.destroyed) o.log.info({ url: req.url }, 'http: statement cancelled: the client went away');
    throw e;
  } finally {
    end();
    if (timer !== null) clearTimeout(timer);
    res.off('close', gone);
  }
  const wantsJson = /application\/json/i.test(req.headers.accept ?? '');
  if (wantsJson || r.fields.length === 0) {
    sendJson(res, 200, {
      command: commandTag(r),
      fields: r.fields.map((f) => ({ name: f.name, type: pgDisplayName(f.type) })),
      rows: textRows(r, zone),
    });
    return;
  }
  const ipc = resultToArrowIpc(r);
  res.writeHead(200, { 'Content-Type': ARROW_STREAM_TYPE, 'Content-Length': ipc.byteLength, 'X-Paxd-Command': commandTag(r) });
  res.end(ipc);
}

/** A request's statement_timeout, as SET takes it (`"5s"`, `"1min"`, a bare number of ms); else 400 with 22023. */
function statementTimeoutOf(v: unknown): number {
  if (typeof v !== 'string' && typeof v !== 'number') throw new HttpError(400, SQLSTATE.invalid_parameter_value, `invalid value for parameter "statement_timeout": ${JSON.stringify(v)}`);
  return parseSetting(STATEMENT_TIMEOUT, v);
}

// ---- responses ----

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body) + '\n';
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...closeUnread(res) });
  res.end(text);
}

/** A connection whose body was refused is drained until nothing arrived for this long (see closeUnread)… */
const LINGER_MS = 2000;
/** …and at most this long. */
const LINGER_MAX_MS = 30_000;

/**
 * `Connection: close` when the request's body has not been read to its end: the rest of it is
 * never read (Node would otherwise read and drop all of it to reuse the connection, however
 * large — a chunked body has no end).
 *
 * Closing a socket while the client is still sending makes the kernel answer with a reset,
 * which can destroy the answer before the client has read it (the reason for Apache's
 * lingering close). So once the answer is written, only the write side is ended (FIN), and
 * what still arrives is read and dropped until the client has been quiet for LINGER_MS (it has
 * read the answer and stopped), for LINGER_MAX_MS at most, before the socket is destroyed.
 */
function closeUnread(res: ServerResponse): { Connection?: string } {
  const req = res.req;
  // A request without a body is complete only once the 'request' handler has run: ask the headers.
  const hasBody = req.headers['transfer-encoding'] !== undefined || (declaredLength(req) ?? 0) > 0;
  if (req.complete || !hasBody) return {};
  const socket = req.socket;
  // Node ends a `Connection: close` exchange with socket.destroySoon(): make that linger.
  socket.destroySoon = () => {
    let idle = setTimeout(() => socket.destroy(), LINGER_MS);
    const cap = setTimeout(() => socket.destroy(), LINGER_MAX_MS);
    idle.unref();
    cap.unref();
    socket.on('data', () => {
      clearTimeout(idle);
      idle = setTimeout(() => socket.destroy(), LINGER_MS);
      idle.unref();
    });
    socket.once('close', () => {
      clearTimeout(idle);
      clearTimeout(cap);
    });
    socket.end();
    req.resume();
    socket.resume();
  };
  return { Connection: 'close' };
}

interface ErrorJson {
  error: { sqlstate: string; message: string; line?: number; column?: number };
}

/** A status and JSON body for an error: 4xx for the client's mistakes, 5xx for the server's. */
function errorBody(e: unknown): { status: number; body: ErrorJson } {
  if (e instanceof HttpError) return { status: e.status, body: { error: { sqlstate: e.sqlstate, message: e.message } } };
  if (isPaxdError(e)) {
    // A statement that ran out of its statement_timeout: 408, as the Snowflake SQL API answers
    // one; not 503, which clients and proxies retry, running the same long statement again.
    const status = e.code === SQLSTATE.query_canceled ? 408 : statusOf(e);
    return {
      status,
      body: {
        error: {
          sqlstate: e.code,
          message: e.message,
          ...(e.line !== undefined ? { line: e.line } : {}),
          ...(e.column !== undefined ? { column: e.column } : {}),
        },
      },
    };
  }
  return { status: 500, body: { error: { sqlstate: SQLSTATE.internal_error, message: e instanceof Error ? e.message : String(e) } } };
}

function statusOf(e: PaxdError): number {
  switch (e.kind) {
    case 'invalid_input':
    case 'constraint':
    case 'usage':
    case 'unsupported':
      return 400;
    case 'privilege':
      return 403;
    case 'not_found':
      return 404;
    case 'exists':
    case 'conflict':
      return 409;
    case 'io':
      return 503;
    case 'corruption':
    case 'internal':
      return 500;
    default:
      return unreachable(e.kind);
  }
}

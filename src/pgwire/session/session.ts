/**
 * One client connection: startup (TLS, authentication), then the simple and extended query
 * protocols (https://www.postgresql.org/docs/15/protocol-flow.html). Frames are handled
 * strictly one after another; whatever a statement throws becomes an ErrorResponse for this
 * session only.
 *
 *   startup ──SSLRequest──▶ 'S' + TLS handshake, or 'N'
 *      │ StartupMessage
 *      ▼
 *   auth (SCRAM-SHA-256 | md5 | trust) ──▶ AuthenticationOk, ParameterStatus…, BackendKeyData
 *      ▼
 *   ready: Query / Parse-Bind-Describe-Execute-Sync / COPY sub-protocol
 *
 * Transactions pin one snapshot per table for their duration and hold their writes until
 * COMMIT (./transaction.ts); cursors are materialized at DECLARE, or keep their scan open
 * when they are plain scans, as postgres_fdw's are (./cursor.ts); COPY goes through ./copy.ts.
 *
 * Engine statements of the extended protocol are prepared once at Parse (the engine's
 * `prepare`: parameter types and result fields without running), parameters and results go
 * in text or binary format (./binary.ts).
 */
import type { Socket } from 'node:net';
import { TLSSocket, type SecureContext } from 'node:tls';
import type { Database } from '../../table/index.js';
import { commandTag, prepareParsed, query, queryParsed, scanPlanOf, textRows, yieldDue, yieldNow, type AstNode, type PreparedQuery, type QueryResult, type ResultField } from '../../engine/index.js';
import { formatText, isPaxdError, PaxdError, parseText, SQLSTATE, type PgType, type TimeZone, type Value, undefinedTable, unreachable, featureNotSupported } from '../../types/index.js';
import { FORMAT, FRONTEND, LIMITS, STARTUP, TX_STATUS, type TxStatus } from '../codec/constants.js';
import { FrameReader, type Frame } from '../codec/frames.js';
import * as be from '../codec/backend.js';
import {
  parseBind,
  parseEmpty,
  parseExecute,
  parseParse,
  parsePassword,
  parseQuery,
  parseSaslInitial,
  parseStartup,
  parseTarget,
  type BindMessage,
} from '../codec/frontend.js';
import {
  adminShutdown,
  bindParameterCount,
  isFatalProtocolError,
  copyFailed,
  duplicateCursor,
  expectedPassword,
  idleInTransactionTimeout,
  idleSessionTimeout,
  inFailedTransaction,
  noUser,
  notInTransactionBlock,
  onlyInTransactionBlock,
  queryCanceled,
  unencryptedAfterSsl,
  unexpectedDuringCopy,
  unknownCursor,
  unknownMessage,
  unknownPortal,
  unknownStatement,
  unsupportedProtocol,
  writeInTransactionBlock,
} from '../codec/errors.js';
import { SessionParams, type ParamChange } from './params.js';
import { FETCH_ALL, splitCached, splitStatements, type Statement, type TransactionVerb } from './statements.js';
import { exchangeFor, Md5Exchange, SCRAM_MECHANISM, ScramExchange, verifierOf, type AuthConfig } from './auth.js';
import { Cursor, StreamCursor } from './cursor.js';
import { Slab } from '../codec/row-encoder.js';
import { binaryHeader, binaryRow, binaryTrailer, CopyError, type CopyLoad, copyFormat, formatRow } from './copy.js';
import { openCopyLoad } from './copy-in.js';
import { sessionDatabase, Transaction, writeSetTable } from './transaction.js';
import { catalogQuery } from './catalog.js';
import type { WireLog } from './server.js';
import { decodeBinary, encodeBinary } from '../codec/binary.js';
import { typeOfOid, typeOid } from '../codec/oids.js';

export interface SessionContext {
  readonly db: Database;
  readonly processId: number;
  readonly secretKey: number;
  readonly maxMessageSize: number;
  /** Milliseconds a client has to complete its startup and authentication (PostgreSQL's authentication_timeout). */
  readonly startupTimeoutMs: number;
  /**
   * Asked once the client has authenticated, before AuthenticationOk: the server takes a
   * connection slot, or answers why not (53300 past max connections). A client still in its
   * startup holds no slot (server.ts).
   */
  readonly admit?: () => PaxdError | null;
  readonly auth: AuthConfig;
  /** Set when TLS is configured: SSLRequest is answered 'S'. */
  readonly tls: SecureContext | null;
  /** Asks the server to cancel the running statement of the session with these keys (CancelRequest). */
  readonly cancel: (processId: number, secretKey: number) => void;
  /** The default work_mem of a session, in bytes (the engine's when unset). */
  readonly workMem?: number;
  readonly log?: WireLog;
}

/** What running one statement produced, before it is written in either protocol. */
interface Outcome {
  /** Null when the statement returns no rows (NoData). */
  readonly fields: readonly ResultField[] | null;
  readonly rows: readonly (readonly Value[])[];
  readonly tag: string;
  /** NoticeResponse messages, sent before CommandComplete. */
  readonly messages: readonly Buffer[];
  /** COPY … TO STDOUT: lines sent as CopyData instead of DataRows. */
  readonly copyOut?: { readonly columns: number; readonly binary: boolean; readonly lines: readonly (string | Buffer)[] };
  /** FETCH from a BINARY cursor: every column in binary format, whatever the protocol asked. */
  readonly binary?: boolean;
  /**
   * FETCH from a streaming cursor (simple protocol): instead of `rows`, DataRows in text
   * format handed to `emit` chunk by chunk; returns the row count, which follows `tag`.
   */
  readonly stream?: (emit: (chunk: Buffer) => Promise<void>) => Promise<number>;
  /** The RowDescription of `fields`, when already built. */
  readonly description?: Buffer;
}

interface Prepared {
  readonly sql: string;
  readonly statement: Statement | null; // null: the empty query
  /** Parse's parameter types (null: infer). */
  readonly paramTypes: readonly (PgType | null)[];
  /** The engine's preparation of an engine statement, or of a DECLARE's query. */
  readonly engine: PreparedQuery | null;
}

interface Portal {
  readonly prepared: Prepared;
  readonly bind: BindMessage;
  /** The parameters, decoded to values of their types. */
  readonly values: readonly Value[];
  outcome: Outcome | null;
  /** Rows already sent by Execute. */
  sent: number;
}

/** A COPY FROM STDIN in progress, and the statements of its Query still to run after it. */
interface CopyIn {
  readonly load: CopyLoad;
  readonly stmt: Statement;
  readonly rest: readonly Statement[];
  /** Aborted by a CancelRequest (or shutdown) while the client is still sending data. */
  readonly abort: AbortController;
}

type Auth = { readonly kind: 'scram'; readonly ex: ScramExchange; started: boolean } | { readonly kind: 'md5'; readonly ex: Md5Exchange };

/** Output is gathered and written in chunks of about this many bytes. */
const WRITE_CHUNK = 64 * 1024;
/**
 * How long a smart shutdown (SIGTERM) lets a running statement go on before it cancels it
 * with 57P01, so that the process ends within about a second even under a runaway query.
 */
export const SMART_SHUTDOWN_GRACE_MS = 500;
/** Frames queued before the socket is paused (backpressure on a client that pipelines). */
const MAX_QUEUED_FRAMES = 256;

const NO_ROWS: Omit<Outcome, 'tag'> = { fields: null, rows: [], messages: [] };

/** Whether a statement of a multi-statement Query may run in its implicit block: not COPY FROM STDIN, nor what a block refuses. */
function runsInImplicitBlock(stmt: Statement): boolean {
  if (stmt.kind === 'engine') return TX_STATEMENTS.has(stmt.node);
  return !(stmt.kind === 'copy' && stmt.direction === 'from');
}

/**
 * Engine statements a transaction block runs: writes, COPY FROM and DDL (CREATE, DROP, ALTER
 * TABLE) are the transaction's until COMMIT, which commits them in one root of the store
 * (./transaction.ts). Other kinds are refused there with 0A000.
 */
const TX_STATEMENTS: ReadonlySet<string> = new Set(['SelectStmt', 'ExplainStmt', 'InsertStmt', 'UpdateStmt', 'DeleteStmt', 'TruncateStmt', 'CreateStmt', 'DropStmt', 'AlterTableStmt']);

export class Session {
  private socket: Socket;
  private readonly reader: FrameReader;
  private readonly queue: Frame[] = [];
  private running = false;
  private closed = false;
  private out: Buffer[] = [];
  private outBytes = 0;
  /** Where output is gathered (./row-encoder.ts Slab). */
  private readonly slab = new Slab();
  private phase: 'startup' | 'auth' | 'ready' = 'startup';
  private auth: Auth | null = null;
  private user = '';
  private tlsActive = false;
  private status: TxStatus = TX_STATUS.idle;
  private params: SessionParams | null = null;
  private tx: Transaction | null = null;
  /** After an error in the extended protocol, messages are skipped until Sync. */
  private skipToSync = false;
  private readonly statements = new Map<string, Prepared>();
  private readonly portals = new Map<string, Portal>();
  private readonly cursors = new Map<string, Cursor | StreamCursor>();
  private copyIn: CopyIn | null = null;
  /** `tx` is the implicit transaction block of a multi-statement Query (runStatements), not a BEGIN's. */
  private implicit = false;
  /** Reported parameters changed since the last ReadyForQuery: PostgreSQL sends ParameterStatus just before it. */
  private readonly changed = new Map<string, string>();
  private startupTimer: NodeJS.Timeout | null;
  private idleTimer: NodeJS.Timeout | null = null;
  /** The running statement's controller: CancelRequest, statement_timeout and shutdown abort it. */
  private current: AbortController | null = null;
  /** The database the running statement outside a transaction block reads: pinned at one root (Database.pinned). */
  private statementDb: Database | null = null;
  /** The controller streaming FETCHes reuse while it is not aborted (guardedFetch). */
  private fetchGuard: AbortController | null = null;
  /** Fails the running streaming FETCH when its controller aborts. */
  private fetchAborted: ((e: Error) => void) | null = null;
  private stopping = false;
  private readonly onData = (chunk: Buffer) => this.receive(chunk);
  /** What the engine reads: the transaction's pinned tables, scans checking the running statement's signal. */
  private readonly sdb: Database;
  /** Resolves once the connection is closed. */
  readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(
    private readonly raw: Socket,
    private readonly ctx: SessionContext,
  ) {
    this.socket = raw;
    this.sdb = sessionDatabase(
      ctx.db,
      () => this.tx?.db ?? this.statementDb ?? ctx.db,
      () => this.current?.signal ?? null,
    );
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.reader = new FrameReader({ maxMessageSize: ctx.maxMessageSize });
    // A silent or slow client must not hold a connection slot forever.
    this.startupTimer = setTimeout(() => this.close(), ctx.startupTimeoutMs);
    raw.on('data', this.onData);
    raw.on('error', () => this.close());
    raw.on('close', () => {
      this.closed = true;
      this.clearTimers();
      this.current?.abort(queryCanceled('user'));
      // A COPY FROM cut off by the connection commits nothing.
      if (this.copyIn !== null) void this.copyIn.load.abort().catch(() => undefined);
      // Nor does a transaction block: its staged files are removed.
      if (this.tx !== null) void this.tx.abort().catch(() => undefined);
      this.copyIn = null;
      for (const name of [...this.cursors.keys()]) this.dropCursor(name);
      this.resolveDone();
    });
  }

  get processId(): number {
    return this.ctx.processId;
  }

  get remoteAddress(): string | undefined {
    return this.raw.remoteAddress;
  }

  get secretKey(): number {
    return this.ctx.secretKey;
  }

  /** Ends the connection now (fatal error, terminate). */
  close(): void {
    this.closed = true;
    this.clearTimers();
    this.socket.destroy();
    this.raw.destroy();
  }

  /** CancelRequest: the running statement fails with 57014; nothing happens when none runs. */
  cancel(): void {
    this.current?.abort(queryCanceled('user'));
  }

  /**
   * Server shutdown. 'smart' (SIGTERM): a running statement may finish within
   * SMART_SHUTDOWN_GRACE_MS, past it it is cancelled (a runaway query must not keep the
   * process alive: docs/DAEMON.md "Signals"), then the connection ends with 57P01; 'fast'
   * (SIGINT): the running statement is cancelled first.
   */
  shutdown(mode: 'smart' | 'fast'): void {
    if (this.closed) return;
    this.stopping = true;
    if (mode === 'fast') this.current?.abort(adminShutdown());
    else if (this.running) {
      const grace = setTimeout(() => this.current?.abort(adminShutdown()), SMART_SHUTDOWN_GRACE_MS);
      grace.unref();
      void this.done.then(() => clearTimeout(grace));
    }
    if (!this.running) this.terminate();
  }

  private terminate(): void {
    if (this.phase === 'ready') this.fatal(adminShutdown());
    else this.close();
  }

  private clearTimers(): void {
    if (this.startupTimer !== null) clearTimeout(this.startupTimer);
    this.startupTimer = null;
    this.clearIdleTimer();
  }

  private clearIdleTimer(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return;
    this.clearIdleTimer();
    let frames: Frame[];
    try {
      frames = this.reader.push(chunk);
    } catch (e) {
      this.fatal(e);
      return;
    }
    for (let i = 0; i < frames.length; i++) {
      const f = frames[i]!;
      if (f.kind === 'startup' && (f.code === STARTUP.sslRequest || f.code === STARTUP.gssEncRequest)) {
        // Answered at once: the client waits for the byte before it sends anything else.
        try {
          parseStartup(f.code, f.body);
          if (f.code === STARTUP.sslRequest && this.ctx.tls !== null && !this.tlsActive) {
            if (i < frames.length - 1 || this.reader.buffered > 0) throw unencryptedAfterSsl();
            this.startTls(this.ctx.tls);
            return;
          }
        } catch (e) {
          this.fatal(e);
          return;
        }
        this.socket.write(be.refuseEncryption());
        continue;
      }
      this.queue.push(f);
    }
    if (this.queue.length > MAX_QUEUED_FRAMES) this.socket.pause();
    void this.drain();
  }

  /** 'S', then the TLS handshake over the same socket; the frame reader stays in startup. */
  private startTls(context: SecureContext): void {
    this.raw.off('data', this.onData);
    this.raw.write(be.acceptSsl());
    const secure = new TLSSocket(this.raw, { isServer: true, secureContext: context });
    secure.on('data', this.onData);
    secure.on('error', () => this.close());
    this.socket = secure;
    this.tlsActive = true;
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length > 0 && !this.closed) {
        const frame = this.queue.shift()!;
        try {
          if (frame.kind === 'startup') this.startup(frame.code, frame.body);
          else await this.message(frame.code, frame.body);
        } catch (e) {
          this.fatal(e);
        }
        this.flush();
        if (this.stopping) break;
      }
    } finally {
      this.running = false;
      if (this.stopping && !this.closed) this.terminate();
      else if (!this.closed && this.socket.isPaused()) this.socket.resume();
    }
  }

  // ---- output ----

  private send(b: Buffer): void {
    this.out.push(b);
    this.outBytes += b.byteLength;
    if (this.outBytes >= WRITE_CHUNK) this.flush();
  }

  /**
   * Waits while the socket's buffer is over its high-water mark (a slow reader); gives the
   * event loop back when a large result has kept it long enough (engine/context.ts), so that a
   * fast reader's million rows do not keep other sessions waiting.
   */
  private async pace(): Promise<void> {
    if (yieldDue()) await yieldNow();
    if (this.closed || !this.socket.writableNeedDrain) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
  }

  private flush(): void {
    if (this.outBytes === 0 && this.out.length === 0) return;
    let b: Buffer;
    if (this.out.length === 1) b = this.out[0]!;
    else {
      b = this.slab.alloc(this.outBytes);
      let off = 0;
      for (const x of this.out) {
        b.set(x, off);
        off += x.byteLength;
      }
    }
    this.out = [];
    this.outBytes = 0;
    if (!this.closed) this.socket.write(b);
  }

  /** A FATAL ErrorResponse, then the connection ends (protocol errors, failed startup). */
  private fatal(e: unknown): void {
    if (this.closed) return;
    const f = errorFields(e);
    this.ctx.log?.warn({ pid: this.ctx.processId, user: this.user || undefined, remote: this.raw.remoteAddress, code: f.code }, `wire: FATAL: ${f.message}`);
    this.send(be.errorResponse({ ...errorFields(e), severity: 'FATAL' }));
    this.flush();
    this.closed = true;
    this.clearTimers();
    this.current?.abort(adminShutdown());
    // Destroy once the error is written: a peer that never closes its side holds nothing.
    const s = this.socket;
    s.end(() => {
      s.destroy();
      this.raw.destroy();
    });
  }

  // ---- startup and authentication ----

  private startup(code: number, body: Buffer): void {
    const p = parseStartup(code, body);
    switch (p.kind) {
      case 'ssl':
      case 'gssenc':
        // Handled in receive(); a second request after TLS is up is a protocol violation.
        throw unencryptedAfterSsl();
      case 'cancel':
        // PostgreSQL answers a CancelRequest with nothing: it closes the connection.
        this.ctx.cancel(p.processId, p.secretKey);
        this.close();
        return;
      case 'startup': {
        if (p.major !== 3) throw unsupportedProtocol(code);
        const user = p.params.get('user');
        if (user === undefined || user === '') throw noUser();
        const params = new SessionParams({
          user,
          applicationName: p.params.get('application_name') ?? '',
          ...(this.ctx.workMem !== undefined ? { workMem: this.ctx.workMem } : {}),
        });
        const unknownOptions: string[] = [];
        for (const [name, value] of p.params) {
          if (name === 'user' || name === 'database' || name === 'application_name' || name === 'replication') continue;
          if (name.startsWith('_pq_.')) unknownOptions.push(name);
          else if (name === 'options') for (const [k, v] of startupOptions(value)) params.setDefault(k, v);
          else params.setDefault(name, value);
        }
        if (p.minor > 0 || unknownOptions.length > 0) this.send(be.negotiateProtocolVersion(0, unknownOptions));
        this.params = params;
        this.user = user;
        const how = exchangeFor(this.ctx.auth, user);
        const verifier = verifierOf(this.ctx.auth, user);
        if (how === 'trust') return this.authenticated();
        this.phase = 'auth';
        if (how === 'md5') {
          const ex = new Md5Exchange(user, verifier);
          this.auth = { kind: 'md5', ex };
          this.send(be.authenticationMD5Password(ex.salt));
        } else {
          this.auth = { kind: 'scram', ex: new ScramExchange(user, verifier), started: false };
          this.reader.passwordLimit = LIMITS.saslMessage;
          this.send(be.authenticationSASL([SCRAM_MECHANISM]));
        }
        return;
      }
      default:
        return unreachable(p);
    }
  }

  /** A PasswordMessage / SASLInitialResponse / SASLResponse while authenticating. */
  private password(code: number, body: Buffer): void {
    if (code === FRONTEND.terminate) return this.close();
    if (code !== FRONTEND.password) throw expectedPassword(code);
    const a = this.auth!;
    let step;
    if (a.kind === 'md5') step = a.ex.check(parsePassword(body).password);
    else if (!a.started) {
      a.started = true;
      const m = parseSaslInitial(body);
      step = a.ex.initial(m.mechanism, m.data);
    } else step = a.ex.final(body);
    switch (step.kind) {
      case 'fail':
        throw step.error;
      case 'continue':
        this.send(be.authenticationSASLData('continue', step.data));
        return;
      case 'final':
        if (a.kind === 'scram') this.send(be.authenticationSASLData('final', step.data));
        this.authenticated();
        return;
      default:
        return unreachable(step);
    }
  }

  private authenticated(): void {
    const refused = this.ctx.admit?.() ?? null;
    if (refused !== null) throw refused;
    this.ctx.log?.info(
      { pid: this.ctx.processId, user: this.user, remote: this.raw.remoteAddress, tls: this.tlsActive, auth: this.auth?.kind ?? 'trust' },
      'wire: connection authorized',
    );
    this.phase = 'ready';
    this.auth = null;
    this.reader.passwordLimit = LIMITS.password;
    if (this.startupTimer !== null) clearTimeout(this.startupTimer);
    this.startupTimer = null;
    this.send(be.authenticationOk());
    for (const r of this.params!.reported()) this.send(be.parameterStatus(r.name, r.value));
    this.send(be.backendKeyData(this.ctx.processId, this.ctx.secretKey));
    this.ready();
  }

  // ---- regular messages ----

  private async message(code: number, body: Buffer): Promise<void> {
    if (this.phase === 'auth') return this.password(code, body);
    if (this.phase !== 'ready') throw unknownMessage(code);
    if (this.copyIn !== null) return this.copyMessage(code, body);
    if (this.skipToSync && code !== FRONTEND.sync && code !== FRONTEND.terminate) return;
    try {
      switch (code) {
        case FRONTEND.query:
          return await this.simpleQuery(parseQuery(body).sql);
        case FRONTEND.terminate:
          parseEmpty('Terminate', body);
          this.close();
          return;
        case FRONTEND.parse:
          return await this.parse(body);
        case FRONTEND.bind:
          return this.bind(body);
        case FRONTEND.describe:
          return await this.describe(body);
        case FRONTEND.execute:
          return await this.execute(body);
        case FRONTEND.sync:
          parseEmpty('Sync', body);
          this.skipToSync = false;
          this.portals.delete(''); // the unnamed portal ends with the implicit transaction
          this.ready();
          return;
        case FRONTEND.flush:
          parseEmpty('Flush', body);
          this.flush();
          return;
        case FRONTEND.close:
          return this.closeTarget(body);
        case FRONTEND.copyData:
        case FRONTEND.copyDone:
        case FRONTEND.copyFail:
          return; // outside COPY (or after a failed one) these are dropped, as the protocol says
        default:
          throw unknownMessage(code);
      }
    } catch (e) {
      if (isFatalProtocolError(e)) throw e; // fatal: the stream cannot be trusted any more
      this.failStatement(e);
      this.skipToSync = true;
    }
  }

  /** Query: every statement in turn, stopping at the first error; then ReadyForQuery. */
  private async simpleQuery(sql: string): Promise<void> {
    let stmts: readonly Statement[];
    try {
      stmts = splitCached(sql) ?? (await splitStatements(sql));
    } catch (e) {
      this.failStatement(e);
      this.ready();
      return;
    }
    if (stmts.length === 0) this.send(be.emptyQueryResponse());
    await this.runStatements(stmts);
  }

  /**
   * Runs statements of one Query; a COPY FROM STDIN suspends the rest until its CopyDone.
   * Several statements outside a transaction block run in an implicit one (PostgreSQL's
   * "Multiple Statements in a Simple Query"): their writes go to one Transaction, committed at
   * the end of the string if every statement succeeded and dropped at the first error. A
   * COMMIT or ROLLBACK in the string ends it (with PostgreSQL's warning) and the statements
   * after it start another; a BEGIN turns it into a regular block that keeps what the string
   * wrote before it. A string with DDL or COPY FROM STDIN runs statement by statement, as a
   * single statement does (docs/WIRE.md "Transactions").
   */
  private async runStatements(stmts: readonly Statement[]): Promise<void> {
    const implicit = stmts.length > 1 && stmts.every(runsInImplicitBlock);
    let failed = false;
    for (let i = 0; i < stmts.length; i++) {
      const stmt = stmts[i]!;
      try {
        if (stmt.kind === 'copy' && stmt.direction === 'from') {
          this.checkRunnable(stmt);
          await this.beginCopyIn(stmt, stmts.slice(i + 1));
          return;
        }
        if (implicit && this.status === TX_STATUS.idle && this.tx === null) this.beginImplicit();
        const o = await this.run(stmt, [], null, true);
        await this.write(o, 0, o.rows.length, true, []);
      } catch (e) {
        failed = true;
        this.failStatement(e);
        break;
      }
    }
    await this.endImplicit(failed);
    this.ready();
  }

  /** An implicit transaction block: a Transaction while the status stays idle (`implicit`). */
  private beginImplicit(): void {
    this.tx = new Transaction(this.ctx.db);
    this.implicit = true;
  }

  /** The end of a Query's implicit block: its writes commit if no statement failed, else they are dropped. */
  private async endImplicit(failed: boolean): Promise<void> {
    if (!this.implicit) return;
    const tx = this.tx!;
    this.implicit = false;
    this.endTransaction(!failed);
    if (failed) await tx.abort();
    else await tx.commit().catch((e: unknown) => this.failStatement(e));
  }

  /**
   * An outcome's messages: RowDescription (when `describe`), DataRows [from, to), notices,
   * CommandComplete. `formats` as Bind's result formats: none (text), one for all, or one each.
   */
  private async write(o: Outcome, from: number, to: number, describe: boolean, formats: readonly number[]): Promise<void> {
    if (o.copyOut !== undefined) {
      this.send(be.copyResponse('out', o.copyOut.columns, o.copyOut.binary ? FORMAT.binary : FORMAT.text));
      for (const line of o.copyOut.lines) {
        this.send(be.copyData(line));
        if (this.outBytes === 0) await this.pace();
      }
      this.send(be.copyDone());
    } else if (o.stream !== undefined) {
      // Text only: run() streams only for the simple protocol, whose results are text.
      if (describe && o.fields !== null) this.send(o.description ?? be.rowDescription(o.fields));
      const n = await o.stream(async (chunk) => {
        if (chunk.byteLength < WRITE_CHUNK) {
          this.send(chunk);
          if (this.outBytes === 0) await this.pace();
          return;
        }
        // A large chunk goes to the socket as it is, not copied into a concatenation.
        this.flush();
        if (!this.closed) this.socket.write(chunk);
        await this.pace();
      });
      this.send(be.commandComplete(`${o.tag} ${n}`));
      return;
    } else {
      const fields = o.fields ?? [];
      const f = o.binary === true ? [FORMAT.binary] : formats;
      const fmt = fields.map((_, i) => formatOf(f, i));
      if (describe && o.fields !== null) this.send(be.rowDescription(fields.map((x, i) => ({ ...x, format: fmt[i]! }))));
      for (let i = from; i < to; i++) {
        this.send(be.dataRow(encodeRow(fields, o.rows[i]!, fmt, this.params!.timeZone)));
        if (this.outBytes === 0) await this.pace();
      }
    }
    if (from === 0) for (const m of o.messages) this.send(m);
    this.send(be.commandComplete(o.tag));
  }

  /** ParameterStatus for each reported parameter that changed, then ReadyForQuery. */
  private ready(): void {
    for (const [name, value] of this.changed) this.send(be.parameterStatus(name, value));
    this.changed.clear();
    this.send(be.readyForQuery(this.status));
    this.armIdleTimer();
  }

  /** idle_in_transaction_session_timeout / idle_session_timeout, from ReadyForQuery to the next message. */
  private armIdleTimer(): void {
    this.clearIdleTimer();
    const settings = this.params;
    if (settings === null) return;
    const inTx = this.status !== TX_STATUS.idle;
    const ms = settings.milliseconds(inTx ? 'idle_in_transaction_session_timeout' : 'idle_session_timeout');
    if (ms > 0) this.idleTimer = setTimeout(() => this.fatal(inTx ? idleInTransactionTimeout() : idleSessionTimeout()), ms);
  }

  private report(changes: readonly ParamChange[]): void {
    for (const c of changes) if (c.report) this.changed.set(c.name, c.value);
  }

  /**
   * ErrorResponse for a statement error; a transaction block becomes failed. Positions count
   * from the start of the query string already: the engine binds the trees parsed from it.
   */
  private failStatement(e: unknown): void {
    if (this.status === TX_STATUS.inTransaction) this.status = TX_STATUS.failed;
    this.send(be.errorResponse({ ...errorFields(e), severity: 'ERROR' }));
  }

  /** 25P02 in a failed transaction block (but for what ends it), 0A000 for DDL inside one. */
  private checkRunnable(stmt: Statement): void {
    if (this.status === TX_STATUS.failed && !(stmt.kind === 'transaction' && (stmt.verb === 'commit' || stmt.verb === 'rollback' || stmt.verb === 'rollback-to')))
      throw inFailedTransaction();
    if (this.status !== TX_STATUS.idle) {
      // Writes and DDL are the transaction's (./transaction.ts); what else commits on its own stays outside blocks.
      if (stmt.kind === 'engine' && !TX_STATEMENTS.has(stmt.node)) throw writeInTransactionBlock(statementName(stmt.node));
    }
  }

  /** The database statements read: in a transaction block, one pinned snapshot per table. */
  private get db(): Database {
    return this.tx?.db ?? this.ctx.db;
  }

  /**
   * Runs `work` as the session's current statement: CancelRequest, statement_timeout and a
   * fast shutdown abort it with 57014 / 57P01, whether or not the engine has noticed yet.
   */
  private async guarded<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const ac = new AbortController();
    this.current = ac;
    // Outside a transaction block a statement reads every table at one instant of the store.
    const own = this.tx === null && this.statementDb === null;
    if (own) this.statementDb = this.ctx.db.pinned();
    const ms = this.params!.milliseconds('statement_timeout');
    const timer = ms > 0 ? setTimeout(() => ac.abort(queryCanceled('timeout')), ms) : null;
    try {
      return await abortable(work(ac.signal), ac.signal);
    } finally {
      if (timer !== null) clearTimeout(timer);
      this.current = null;
      if (own) this.statementDb = null;
    }
  }

  /**
   * `guarded` for FETCH from a streaming cursor, which postgres_fdw sends thousands of times
   * per scan: the same guarantees with one AbortController kept across statements while none
   * aborts it, and one abort listener per controller instead of one per statement.
   */
  private async guardedFetch<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    let ac = this.fetchGuard;
    if (ac === null || ac.signal.aborted) {
      const fresh = new AbortController();
      fresh.signal.addEventListener('abort', () => this.fetchAborted?.(fresh.signal.reason as Error), { once: true });
      this.fetchGuard = ac = fresh;
    }
    const signal = ac.signal;
    this.current = ac;
    const ms = this.params!.milliseconds('statement_timeout');
    const timer = ms > 0 ? setTimeout(() => ac.abort(queryCanceled('timeout')), ms) : null;
    try {
      const p = work(signal);
      return await new Promise<T>((resolve, reject) => {
        this.fetchAborted = reject;
        p.then(resolve, reject);
      });
    } finally {
      this.fetchAborted = null;
      if (timer !== null) clearTimeout(timer);
      this.current = null;
    }
  }

  /** An engine statement: prepared at Parse (with `values` for its $n), or run from its parse tree (or a text paxd wrote). */
  private async engineQuery(stmt: AstNode | string, prepared: PreparedQuery | null, values: readonly Value[]): Promise<QueryResult> {
    return this.guarded((signal) => this.engineRun(stmt, prepared, values, signal));
  }

  /** The engine's run of a statement, which stops at its next interrupt point once `signal` aborts (engine/context.ts). */
  private engineRun(stmt: AstNode | string, prepared: PreparedQuery | null, values: readonly Value[], signal: AbortSignal): Promise<QueryResult> {
    const options = { workMem: this.params!.workMem, timeZone: this.params!.timeZone, signal };
    if (prepared !== null) return prepared.execute(values, { signal });
    return typeof stmt === 'string' ? query(this.sdb, stmt, undefined, options) : queryParsed(this.sdb, stmt, options);
  }

  /**
   * Runs one statement: the session answers SET/SHOW/transactions/cursors, the engine the
   * rest. `prepared` is the engine's preparation from Parse, run with `values`. `stream`: the
   * outcome is written whole in text format (the simple protocol), so a FETCH from a
   * streaming cursor may hand its DataRows over as they are encoded.
   */
  private async run(stmt: Statement, values: readonly Value[], prepared: PreparedQuery | null, stream = false): Promise<Outcome> {
    const settings = this.params!;
    this.checkRunnable(stmt);
    switch (stmt.kind) {
      case 'engine': {
        const r = (prepared === null ? await catalogQuery(this.db, stmt.text, stmt.ast) : null) ?? (await this.engineQuery(stmt.ast, prepared, values));
        // PostgreSQL describes rows only for statements that return them (not INSERT without RETURNING).
        const returnsRows = r.command === 'SELECT' || r.fields.length > 0;
        return { fields: returnsRows ? r.fields : null, rows: r.rows, tag: commandTag(r), messages: [] };
      }
      case 'set': {
        this.report([settings.set(stmt.name, stmt.value)]);
        return { ...NO_ROWS, tag: 'SET' };
      }
      case 'reset': {
        this.report([settings.reset(stmt.name)]);
        return { ...NO_ROWS, tag: stmt.tag };
      }
      case 'reset-all': {
        this.report(settings.resetAll());
        return { ...NO_ROWS, tag: 'RESET' };
      }
      case 'show': {
        if (stmt.name.toLowerCase() === 'all') throw featureNotSupported('SHOW ALL');
        const s = settings.show(stmt.name);
        return { fields: [{ name: s.name, type: { id: 'text' } }], rows: [[s.value]], tag: 'SHOW', messages: [] };
      }
      case 'transaction':
        return this.transaction(stmt.verb, stmt.tag, stmt.savepoint);
      case 'declare':
        return this.declare(stmt, prepared, values);
      case 'fetch': {
        const c = this.cursors.get(stmt.name);
        if (c === undefined) throw unknownCursor(stmt.name);
        if (c instanceof StreamCursor) return this.fetchStream(c, stmt, stream);
        const rows = c.fetch(stmt.direction, stmt.count);
        if (stmt.move) return { ...NO_ROWS, tag: `MOVE ${rows.length}` };
        // A FETCH of 0 rows still describes them (postgres_fdw relies on it).
        return { fields: c.fields, rows, tag: `FETCH ${rows.length}`, messages: [], binary: c.binary };
      }
      case 'close':
        if (stmt.name === null) {
          for (const name of [...this.cursors.keys()]) this.dropCursor(name);
          return { ...NO_ROWS, tag: 'CLOSE CURSOR ALL' };
        }
        if (!this.dropCursor(stmt.name)) throw unknownCursor(stmt.name);
        return { ...NO_ROWS, tag: 'CLOSE CURSOR' };
      case 'deallocate':
        if (stmt.name === null) {
          for (const name of [...this.statements.keys()]) if (name !== '') this.statements.delete(name);
          return { ...NO_ROWS, tag: 'DEALLOCATE ALL' };
        }
        if (!this.statements.delete(stmt.name)) throw unknownStatement(stmt.name);
        return { ...NO_ROWS, tag: 'DEALLOCATE' };
      case 'discard':
        if (stmt.what === 'ALL') {
          if (this.status !== TX_STATUS.idle || this.implicit) throw notInTransactionBlock('DISCARD ALL');
          this.report(settings.resetAll());
          for (const name of [...this.cursors.keys()]) this.dropCursor(name);
          for (const name of [...this.statements.keys()]) if (name !== '') this.statements.delete(name);
          for (const name of [...this.portals.keys()]) if (name !== '') this.portals.delete(name);
        }
        return { ...NO_ROWS, tag: `DISCARD ${stmt.what}` };
      case 'copy':
        return this.copyOut(stmt);
      case 'unsupported':
        throw featureNotSupported(stmt.feature);
      default:
        return unreachable(stmt);
    }
  }

  /**
   * BEGIN/COMMIT/ROLLBACK/SAVEPOINT with PostgreSQL's tags, warnings and errors. A transaction
   * block pins one snapshot per table it reads and keeps its writes until COMMIT, which may
   * fail with 40001 (./transaction.ts); ROLLBACK [TO] undoes them.
   */
  private async transaction(verb: TransactionVerb, tag: string, savepoint: string | undefined): Promise<Outcome> {
    const messages: Buffer[] = [];
    const warn = (code: string, message: string) => {
      if (this.params!.sendsNotice('WARNING')) messages.push(be.noticeResponse({ severity: 'WARNING', code, message }));
    };
    switch (verb) {
      case 'begin':
        if (this.status !== TX_STATUS.idle) warn(SQLSTATE.active_sql_transaction, 'there is already a transaction in progress');
        else {
          this.status = TX_STATUS.inTransaction;
          // In a Query's implicit block, what the string wrote before BEGIN joins the new block.
          if (this.implicit) this.implicit = false;
          else this.tx = new Transaction(this.ctx.db);
        }
        return { ...NO_ROWS, tag, messages };
      case 'commit': {
        if (this.status === TX_STATUS.idle) warn(SQLSTATE.no_active_sql_transaction, 'there is no transaction in progress');
        const failed = this.status === TX_STATUS.failed;
        const tx = this.tx;
        this.implicit = false;
        this.endTransaction(!failed);
        // The writes become one snapshot per table; a failure (40001) ends the transaction too.
        if (tx !== null) await (failed ? tx.abort() : tx.commit());
        return { ...NO_ROWS, tag: failed ? 'ROLLBACK' : 'COMMIT', messages };
      }
      case 'rollback':
        if (this.status === TX_STATUS.idle) warn(SQLSTATE.no_active_sql_transaction, 'there is no transaction in progress');
        await this.tx?.abort();
        this.implicit = false;
        this.endTransaction(false);
        return { ...NO_ROWS, tag: 'ROLLBACK', messages };
      case 'savepoint':
        if (this.tx === null || this.implicit) throw onlyInTransactionBlock('SAVEPOINT');
        await this.tx.savepoint(savepoint!);
        return { ...NO_ROWS, tag: 'SAVEPOINT', messages };
      case 'release':
        if (this.tx === null || this.implicit) throw onlyInTransactionBlock('RELEASE SAVEPOINT');
        this.tx.release(savepoint!);
        return { ...NO_ROWS, tag: 'RELEASE', messages };
      case 'rollback-to': {
        if (this.tx === null || this.implicit) throw onlyInTransactionBlock('ROLLBACK TO SAVEPOINT');
        const at = await this.tx.rollbackTo(savepoint!);
        // Cursors declared after the savepoint go with it.
        for (const [name, c] of this.cursors) if (c.options.inTransaction && c.options.declaredAt > at) this.dropCursor(name);
        this.status = TX_STATUS.inTransaction;
        return { ...NO_ROWS, tag: 'ROLLBACK', messages };
      }
      case 'unsupported':
        throw featureNotSupported(tag);
      default:
        return unreachable(verb);
    }
  }

  /** COMMIT keeps WITH HOLD cursors; ROLLBACK also closes those declared in the transaction. */
  private endTransaction(committed: boolean): void {
    for (const [name, c] of this.cursors) if (!c.options.hold || (!committed && c.options.inTransaction)) this.dropCursor(name);
    this.status = TX_STATUS.idle;
    this.tx = null;
  }

  /** Forgets a cursor; a streaming one ends its scan (in the background: nothing waits for it). */
  private dropCursor(name: string): boolean {
    const c = this.cursors.get(name);
    if (c === undefined) return false;
    this.cursors.delete(name);
    if (c instanceof StreamCursor) void c.close().catch(() => undefined);
    return true;
  }

  private async declare(stmt: Statement & { kind: 'declare' }, prepared: PreparedQuery | null, values: readonly Value[]): Promise<Outcome> {
    if (this.tx === null && !stmt.hold) throw onlyInTransactionBlock('DECLARE CURSOR');
    if (this.cursors.has(stmt.name)) throw duplicateCursor(stmt.name);
    const options = { scroll: stmt.scroll, hold: stmt.hold, declaredAt: this.tx?.tick() ?? 0, inTransaction: this.tx !== null };
    // A plain scan in a transaction block, neither SCROLL nor WITH HOLD (nor BINARY), keeps its
    // scan open over the transaction's snapshot of the table (its own writes included, as the
    // transaction's view of the table has them when the statement is bound: ./transaction.ts).
    if (this.tx !== null && !stmt.hold && stmt.scroll !== true && !stmt.binary) {
      const types = prepared?.paramTypes ?? [];
      const plan = await this.guarded(() => scanPlanOf(this.sdb, stmt.queryAst, types, values, { workMem: this.params!.workMem, timeZone: this.params!.timeZone }));
      if (plan !== null) {
        this.cursors.set(stmt.name, await StreamCursor.open(stmt.name, plan, options));
        return { ...NO_ROWS, tag: 'DECLARE CURSOR' };
      }
    }
    const r = await this.engineQuery(stmt.queryAst, prepared, values);
    const c = new Cursor(stmt.name, r.fields, r.rows, options, stmt.binary);
    this.cursors.set(stmt.name, c);
    return { ...NO_ROWS, tag: 'DECLARE CURSOR' };
  }

  /**
   * FETCH / MOVE from a streaming cursor, as the current statement (CancelRequest and
   * statement_timeout stop it at the next batch). FETCH FORWARD n through the simple protocol
   * streams DataRows; anything else returns rows.
   */
  private async fetchStream(c: StreamCursor, stmt: Statement & { kind: 'fetch' }, stream: boolean): Promise<Outcome> {
    if (stream && !stmt.move && c.streaming && stmt.direction === 'forward' && stmt.count > 0) {
      const alloc = (size: number) => this.slab.alloc(size);
      const run = (emit: (chunk: Buffer) => Promise<void>) => this.guardedFetch((signal) => c.forward(stmt.count, emit, () => signal.throwIfAborted(), alloc));
      // A FETCH of 0 rows still describes them (postgres_fdw relies on it).
      c.description ??= be.rowDescription(c.fields);
      return { fields: c.fields, rows: [], tag: 'FETCH', messages: [], stream: run, description: c.description };
    }
    const r = await this.guarded((signal) => c.fetch(stmt.direction, stmt.count, stmt.move, () => signal.throwIfAborted()));
    if (typeof r === 'number') return { ...NO_ROWS, tag: `MOVE ${r}` };
    return { fields: c.fields, rows: r, tag: `FETCH ${r.length}`, messages: [] };
  }

  // ---- COPY ----

  /** COPY table|(query) TO STDOUT: the whole result as lines of the format. */
  private async copyOut(stmt: Statement & { kind: 'copy' }): Promise<Outcome> {
    if (!stmt.stdio) throw copyFileRefused(stmt.direction, stmt.program);
    const f = copyFormat(stmt.options, 'to');
    let sql: AstNode | string;
    if (stmt.queryAst !== null) sql = stmt.queryAst;
    else {
      const cols = stmt.columns === null ? '*' : stmt.columns.map(quoteIdent).join(', ');
      sql = `SELECT ${cols} FROM ${quoteIdent(stmt.table!)}`;
    }
    // Formatting the lines is part of the statement: cancel and statement_timeout stop it too.
    return this.guarded(async (signal) => {
      const r = await this.engineRun(sql, null, [], signal);
      const lines: (string | Buffer)[] = [];
      const point = async (i: number) => {
        if ((i & 1023) !== 0) return;
        signal.throwIfAborted();
        if (yieldDue()) await yieldNow();
      };
      if (f.binary) {
        lines.push(binaryHeader());
        for (let i = 0; i < r.rows.length; i++) {
          await point(i);
          lines.push(binaryRow(r.fields, r.rows[i]!));
        }
        lines.push(binaryTrailer());
      } else {
        if (f.header) lines.push(formatRow(f, r.fields.map((x) => x.name)));
        const text = textRows(r, this.params!.timeZone);
        for (let i = 0; i < text.length; i++) {
          await point(i);
          lines.push(formatRow(f, text[i]!));
        }
      }
      return { ...NO_ROWS, tag: `COPY ${r.rows.length}`, copyOut: { columns: r.fields.length, binary: f.binary, lines } };
    });
  }

  private async beginCopyIn(stmt: Statement & { kind: 'copy' }, rest: readonly Statement[]): Promise<void> {
    if (!stmt.stdio) throw copyFileRefused(stmt.direction, stmt.program);
    const format = copyFormat(stmt.options);
    // In a transaction block the rows go to its write set (./transaction.ts writeSetTable).
    const tx = this.tx;
    const table = await this.guarded(() => (tx !== null ? openForCopy(tx.db, stmt.table!, true) : openForCopy(this.ctx.db, stmt.table!)));
    const load = openCopyLoad(table, stmt.columns, format, this.params!.timeZone);
    const abort = new AbortController();
    this.copyIn = { load, stmt, rest, abort };
    this.current = abort;
    this.send(be.copyResponse('in', load.width, format.binary ? FORMAT.binary : FORMAT.text));
    this.flush();
  }

  /** CopyData / CopyDone / CopyFail while a COPY FROM STDIN runs. */
  private async copyMessage(code: number, body: Buffer): Promise<void> {
    const c = this.copyIn!;
    try {
      switch (code) {
        case FRONTEND.copyData:
          c.abort.signal.throwIfAborted();
          await c.load.push(body);
          return;
        case FRONTEND.copyDone: {
          c.abort.signal.throwIfAborted();
          parseEmpty('CopyDone', body);
          const n = await this.guarded(() => c.load.finish());
          this.copyIn = null;
          this.send(be.commandComplete(`COPY ${n}`));
          await this.runStatements(c.rest);
          return;
        }
        case FRONTEND.copyFail: {
          const r = body.indexOf(0);
          throw copyFailed(body.toString('utf8', 0, r < 0 ? body.byteLength : r));
        }
        case FRONTEND.flush:
        case FRONTEND.sync:
          return; // PostgreSQL ignores these during COPY IN
        default:
          throw unexpectedDuringCopy(code);
      }
    } catch (e) {
      this.copyIn = null;
      if (this.current === c.abort) this.current = null;
      await c.load.abort().catch(() => undefined);
      this.failStatement(e);
      this.ready();
    }
  }

  // ---- extended query protocol ----

  private async parse(body: Buffer): Promise<void> {
    const m = parseParse(body);
    if (m.name !== '' && this.statements.has(m.name))
      throw new PaxdError('exists', SQLSTATE.duplicate_prepared_statement, `prepared statement "${m.name}" already exists`);
    const stmts = await splitStatements(m.sql);
    if (stmts.length > 1) throw new PaxdError('invalid_input', SQLSTATE.syntax_error, 'cannot insert multiple commands into a prepared statement');
    const stmt = stmts[0] ?? null;
    const types = m.paramTypes.map(typeOfOid);
    // Bound and typed now, as PostgreSQL's Parse does: an unknown table fails here.
    let engine: PreparedQuery | null = null;
    const options = { workMem: this.params!.workMem, timeZone: this.params!.timeZone };
    if (stmt?.kind === 'engine') engine = await prepareParsed(this.sdb, stmt.ast, types, options);
    else if (stmt?.kind === 'declare') engine = await prepareParsed(this.sdb, stmt.queryAst, types, options);
    this.statements.set(m.name, { sql: m.sql, statement: stmt, paramTypes: types, engine });
    this.send(be.parseComplete());
  }

  private bind(body: Buffer): void {
    const m = parseBind(body);
    const prepared = this.statements.get(m.statement);
    if (prepared === undefined) throw unknownStatement(m.statement);
    const types = paramTypesOf(prepared);
    if (m.params.length !== types.length) throw bindParameterCount(m.params.length, m.statement, types.length);
    const values = m.params.map((b, i) => {
      if (b === null) return null;
      const t = types[i]!;
      return formatOf(m.paramFormats, i) === FORMAT.binary ? decodeBinary(t, b, this.params!.timeZone) : parseText(t, b.toString('utf8'), this.params!.timeZone);
    });
    if (m.portal !== '' && this.portals.has(m.portal)) throw duplicateCursor(m.portal);
    this.portals.set(m.portal, { prepared, bind: m, values, outcome: null, sent: 0 });
    this.send(be.bindComplete());
  }

  /** Runs a portal's statement once; Execute calls continue through its rows. */
  private async outcomeOf(portal: Portal): Promise<Outcome> {
    if (portal.outcome === null) {
      const stmt = portal.prepared.statement;
      if (stmt !== null && stmt.kind === 'copy' && stmt.direction === 'from')
        throw new PaxdError('unsupported', SQLSTATE.feature_not_supported, 'COPY FROM STDIN through the extended query protocol is not supported: send it as a simple Query');
      portal.outcome = stmt === null ? { ...NO_ROWS, tag: '' } : await this.run(stmt, portal.values, portal.prepared.engine);
    }
    return portal.outcome;
  }

  /**
   * Describe: ParameterDescription and RowDescription (or NoData) of a statement, or the
   * RowDescription of a portal with its result formats. Engine statements are described from
   * their preparation without running; session statements (FETCH, SHOW) are run for it.
   */
  private async describe(body: Buffer): Promise<void> {
    const m = parseTarget('Describe', body);
    if (m.target === 'portal') {
      const portal = this.portals.get(m.name);
      if (portal === undefined) {
        // A cursor DECLAREd by name is a portal of that name (psycopg's named cursors describe it);
        // it has no result formats, so PostgreSQL answers text, even for a BINARY cursor.
        const c = this.cursors.get(m.name);
        if (c === undefined) throw unknownPortal(m.name);
        this.send(be.rowDescription(c.fields));
        return;
      }
      const stmt = portal.prepared.statement;
      let fields: readonly ResultField[] | null;
      let binary = false;
      if (stmt?.kind === 'engine') fields = portal.prepared.engine!.fields;
      else {
        const o = await this.outcomeOf(portal);
        fields = o.fields;
        binary = o.binary === true;
      }
      const formats = binary ? [FORMAT.binary] : portal.bind.resultFormats;
      this.send(fields === null ? be.noData() : be.rowDescription(fields.map((f, i) => ({ ...f, format: formatOf(formats, i) }))));
      return;
    }
    const prepared = this.statements.get(m.name);
    if (prepared === undefined) throw unknownStatement(m.name);
    this.send(be.parameterDescription(paramTypesOf(prepared).map(typeOid)));
    const stmt = prepared.statement;
    if (stmt?.kind === 'engine') {
      const fields = prepared.engine!.fields;
      this.send(fields === null ? be.noData() : be.rowDescription(fields));
    } else if (stmt?.kind === 'show') this.send(be.rowDescription([{ name: this.params!.show(stmt.name).name, type: { id: 'text' } }]));
    else this.send(be.noData());
  }

  private async execute(body: Buffer): Promise<void> {
    const m = parseExecute(body);
    const portal = this.portals.get(m.portal);
    if (portal === undefined) {
      if (this.cursors.has(m.portal)) return this.executeCursor(m.portal, m.maxRows);
      throw unknownPortal(m.portal);
    }
    if (portal.prepared.statement === null) {
      this.send(be.emptyQueryResponse());
      return;
    }
    const o = await this.outcomeOf(portal);
    const start = portal.sent;
    const end = m.maxRows === 0 ? o.rows.length : Math.min(o.rows.length, start + m.maxRows);
    portal.sent = end;
    const formats = portal.bind.resultFormats;
    if (end < o.rows.length) {
      const fields = o.fields ?? [];
      const fmt = fields.map((_, i) => formatOf(o.binary === true ? [FORMAT.binary] : formats, i));
      for (let i = start; i < end; i++) {
        this.send(be.dataRow(encodeRow(fields, o.rows[i]!, fmt, this.params!.timeZone)));
        if (this.outBytes === 0) await this.pace();
      }
      if (start === 0) for (const msg of o.messages) this.send(msg);
      this.send(be.portalSuspended());
      return;
    }
    // As PostgreSQL's PortalRun: a SELECT's tag counts the rows of this Execute only.
    const tag = o.tag.startsWith('SELECT ') ? `SELECT ${end - start}` : o.tag;
    await this.write({ ...o, tag, messages: start === 0 ? o.messages : [] }, start, end, false, formats);
  }

  /**
   * Execute of a DECLAREd cursor's portal: FETCH FORWARD maxRows (all when 0), in text (the
   * portal has no result formats: PostgreSQL's answer, BINARY cursor or not); PortalSuspended
   * when maxRows rows came, as PostgreSQL's PortalRun does.
   */
  private async executeCursor(name: string, maxRows: number): Promise<void> {
    const c = this.cursors.get(name)!;
    const count = maxRows === 0 ? FETCH_ALL : maxRows;
    const rows =
      c instanceof StreamCursor
        ? ((await this.guarded((signal) => c.fetch('forward', count, false, () => signal.throwIfAborted()))) as (readonly Value[])[])
        : c.fetch('forward', count);
    const fmt = c.fields.map(() => FORMAT.text);
    for (const row of rows) {
      this.send(be.dataRow(encodeRow(c.fields, row, fmt, this.params!.timeZone)));
      if (this.outBytes === 0) await this.pace();
    }
    if (maxRows > 0 && rows.length === maxRows) this.send(be.portalSuspended());
    else this.send(be.commandComplete(`SELECT ${rows.length}`));
  }

  private closeTarget(body: Buffer): void {
    const m = parseTarget('Close', body);
    // Closing something that does not exist is not an error (protocol docs, Close).
    if (m.target === 'statement') this.statements.delete(m.name);
    else this.portals.delete(m.name);
    this.send(be.closeComplete());
  }
}

/** `promise`, or the signal's reason as soon as it is aborted (the work is then abandoned). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e as Error);
      },
    );
  });
}

async function openForCopy(db: Database, name: string, inTransaction = false) {
  try {
    if (inTransaction) return writeSetTable((await db.writeSet(name))!);
    return await db.table(name);
  } catch (e) {
    if (isPaxdError(e) && e.code === SQLSTATE.undefined_table) throw undefinedTable(name);
    throw e;
  }
}

/**
 * The startup packet's `options` (libpq's PGOPTIONS): `-c name=value` and `--name=value`
 * settings, separated by spaces, `\ ` for a space inside a value.
 *
 *   startupOptions('-c statement_timeout=5s --work_mem=64MB')   // [['statement_timeout', '5s'], ['work_mem', '64MB']]
 */
function startupOptions(options: string): [string, string][] {
  const words: string[] = [];
  let w = '';
  for (let i = 0; i < options.length; i++) {
    const ch = options[i]!;
    if (ch === '\\' && i + 1 < options.length) w += options[++i];
    else if (/\s/.test(ch)) {
      if (w !== '') words.push(w);
      w = '';
    } else w += ch;
  }
  if (w !== '') words.push(w);
  const out: [string, string][] = [];
  for (let i = 0; i < words.length; i++) {
    let setting = words[i]!;
    if (setting === '-c' && i + 1 < words.length) setting = words[++i]!;
    else if (setting.startsWith('-c')) setting = setting.slice(2);
    else if (setting.startsWith('--')) setting = setting.slice(2);
    else throw new PaxdError('unsupported', SQLSTATE.feature_not_supported, `startup option "${words[i]}" is not supported: only -c name=value and --name=value`);
    const eq = setting.indexOf('=');
    if (eq <= 0) throw new PaxdError('invalid_input', SQLSTATE.syntax_error, `-c ${setting} requires a value`);
    out.push([setting.slice(0, eq).replace(/-/g, '_'), setting.slice(eq + 1)]);
  }
  return out;
}

/**
 * COPY to or from a server file or program: what PostgreSQL answers a user who is neither
 * superuser nor in pg_read_server_files / pg_write_server_files / pg_execute_server_program
 * (copy.c DoCopy), which every paxd user is (is_superuser is off): the wire never reaches the
 * daemon's files (issue #18, "Paths stay inside the store").
 */
function copyFileRefused(direction: 'from' | 'to', program: boolean): PaxdError {
  const message = program
    ? 'must be superuser or have privileges of the pg_execute_server_program role to COPY to or from an external program'
    : direction === 'from'
      ? 'must be superuser or have privileges of the pg_read_server_files role to COPY from a file'
      : 'must be superuser or have privileges of the pg_write_server_files role to COPY to a file';
  return new PaxdError('privilege', SQLSTATE.insufficient_privilege, message, {
    hint: "Anyone can COPY to stdout or from stdin. psql's \\copy command also works for anyone.",
  });
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** 'InsertStmt' → 'INSERT', for messages. */
function statementName(node: string): string {
  return node
    .replace(/Stmt$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toUpperCase();
}

/** The format of column or parameter `i` from a format list: none (text), one for all, or one each. */
function formatOf(formats: readonly number[], i: number): number {
  return formats.length === 0 ? FORMAT.text : formats.length === 1 ? formats[0]! : (formats[i] ?? FORMAT.text);
}

/** The parameter types a Bind decodes with: the engine's (given or inferred), else Parse's, unknown as text. */
function paramTypesOf(p: Prepared): readonly PgType[] {
  return p.engine?.paramTypes ?? p.paramTypes.map((t) => t ?? { id: 'text' });
}

/** One row's values for DataRow: text (as PostgreSQL's output functions print) or binary. */
function encodeRow(fields: readonly ResultField[], row: readonly Value[], formats: readonly number[], zone: TimeZone): (string | Uint8Array | null)[] {
  const out: (string | Uint8Array | null)[] = new Array(row.length);
  for (let i = 0; i < row.length; i++) {
    const v = row[i]!;
    const type = fields[i]!.type;
    if (v === null) out[i] = null;
    else if (formats[i] === FORMAT.binary) out[i] = encodeBinary(type, v);
    // The engine keeps numeric results as exact text.
    else out[i] = type.id === 'numeric' && typeof v === 'string' ? v : formatText(type, v, zone);
  }
  return out;
}

/** The fields of an ErrorResponse for `e`. */
export function errorFields(e: unknown): Omit<be.ErrorFields, 'severity'> {
  if (isPaxdError(e)) {
    const position = (e as { position?: number }).position;
    return {
      code: e.code,
      message: e.message,
      ...(e.detail !== undefined ? { detail: e.detail } : {}),
      ...(e.hint !== undefined ? { hint: e.hint } : {}),
      ...(position !== undefined ? { position } : {}),
      ...(e instanceof CopyError ? { where: e.where } : {}),
    };
  }
  return { code: SQLSTATE.internal_error, message: `internal error: ${e instanceof Error ? e.message : String(e)}` };
}

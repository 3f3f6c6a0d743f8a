/**
 * One client connection: startup (TLS, authentication), then the simple and extended query
 * protocols (https://www.postgresql.org/docs/15/protocol-flow.html). Frames are handled
 * strictly one after another; whatever a statement throws becomes an ErrorResponse for this
 * session only.
 *
 *   startup ──SSLRequest──▶ 'S' + TLS handshake, or 'N'
 *      │ StartupMessage
 *      ▼
 *   auth (SCRAM-SHA-256 | md5 | trust) ──▶ AuthenticationOk, ParameterStatus…, BackendKeyData   ./startup.ts
 *      ▼
 *   ready: Query (here) / Parse-Bind-Describe-Execute-Sync (./extended.ts) / COPY sub-protocol
 *
 * The parts, each in its file: ./output.ts writes messages; ./runner.ts runs a statement as the
 * current one (cancel, statement_timeout); ./tx-block.ts keeps the transaction status and
 * block (./transaction.ts holds its writes); ./cursor.ts the cursors; ./portals.ts the prepared
 * statements and portals; ./settings.ts SET/SHOW/RESET over ./params.ts.
 */
import type { Socket } from 'node:net';
import { TLSSocket, type SecureContext } from 'node:tls';
import { FORMAT, FRONTEND, STARTUP, TX_STATUS } from '../codec/constants.js';
import { FrameReader, type Frame } from '../codec/frames.js';
import * as be from '../codec/backend.js';
import { parseEmpty, parseQuery, parseStartup } from '../codec/frontend.js';
import {
  adminShutdown,
  copyFailed,
  idleInTransactionTimeout,
  idleSessionTimeout,
  isFatalProtocolError,
  queryCanceled,
  unencryptedAfterSsl,
  unexpectedDuringCopy,
  unknownMessage,
} from '../codec/errors.js';
import type { ParamChange, SessionParams } from './params.js';
import { splitCached, splitStatements, type Statement } from './statements.js';
import { CursorSet } from './cursor.js';
import type { CopyLoad } from './copy.js';
import type { SessionContext } from './context.js';
import { Output } from './output.js';
import { isEncryptionRequest, Startup } from './startup.js';
import { runsInImplicitBlock, TxBlock } from './tx-block.js';
import { Portals } from './portals.js';
import { abortable, StatementRunner } from './runner.js';
import { ExtendedProtocol } from './extended.js';
import { errorFields } from './outcome.js';

export type { SessionContext } from './context.js';
export { errorFields } from './outcome.js';

/** A COPY FROM STDIN in progress, and the statements of its Query still to run after it. */
interface CopyIn {
  readonly load: CopyLoad;
  readonly rest: readonly Statement[];
  /** Aborted by a CancelRequest (or shutdown) while the client is still sending data. */
  readonly abort: AbortController;
}

/**
 * How long a smart shutdown (SIGTERM) lets a running statement go on before it cancels it
 * with 57P01, so that the process ends within about a second even under a runaway query.
 */
export const SMART_SHUTDOWN_GRACE_MS = 500;
/** Frames queued before the socket is paused (backpressure on a client that pipelines). */
const MAX_QUEUED_FRAMES = 256;

export class Session {
  private socket: Socket;
  private readonly reader: FrameReader;
  private readonly queue: Frame[] = [];
  private running = false;
  private closed = false;
  private tlsActive = false;
  /** Set once the client has authenticated (./startup.ts): the session is ready for queries. */
  private params: SessionParams | null = null;
  /** After an error in the extended protocol, messages are skipped until Sync. */
  private skipToSync = false;
  private copyIn: CopyIn | null = null;
  /** Reported parameters changed since the last ReadyForQuery: PostgreSQL sends ParameterStatus just before it. */
  private readonly changed = new Map<string, string>();
  /** The value of each reported parameter the client was last told (ParameterStatus is sent only for a new value). */
  private readonly reported = new Map<string, string>();
  private startupTimer: NodeJS.Timeout | null;
  private idleTimer: NodeJS.Timeout | null = null;
  private stopping = false;
  private readonly onData = (chunk: Buffer) => this.receive(chunk);
  private readonly out: Output;
  private readonly startup: Startup;
  private readonly cursors = new CursorSet();
  private readonly block: TxBlock;
  private readonly runner: StatementRunner;
  private readonly extended: ExtendedProtocol;
  /** Resolves once the connection is closed. */
  readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(
    private readonly raw: Socket,
    private readonly ctx: SessionContext,
  ) {
    this.socket = raw;
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.reader = new FrameReader({ maxMessageSize: ctx.maxMessageSize });
    this.out = new Output(
      () => this.socket,
      () => this.closed,
    );
    this.startup = new Startup(ctx, this.reader, this.out, {
      close: () => this.close(),
      remoteAddress: raw.remoteAddress,
      tls: () => this.tlsActive,
      authenticated: (params) => this.authenticated(params),
    });
    const params = () => this.params!;
    this.block = new TxBlock(ctx.db, this.cursors, params, (c) => this.report(c));
    const portals = new Portals();
    this.runner = new StatementRunner({
      base: ctx.db,
      block: this.block,
      cursors: this.cursors,
      portals,
      out: this.out,
      params,
      report: (c) => this.report(c),
      processId: ctx.processId,
    });
    this.extended = new ExtendedProtocol(this.runner, portals, this.cursors, this.out, params);
    // A silent or slow client must not hold a connection slot forever.
    this.startupTimer = setTimeout(() => this.close(), ctx.startupTimeoutMs);
    raw.on('data', this.onData);
    raw.on('error', () => this.close());
    raw.on('close', () => {
      this.closed = true;
      this.clearTimers();
      this.runner.abort(queryCanceled('user'));
      // A COPY FROM cut off by the connection commits nothing.
      if (this.copyIn !== null) void this.copyIn.load.abort().catch(() => undefined);
      // Nor does a transaction block: its staged files are removed.
      this.block.lost();
      this.copyIn = null;
      this.cursors.dropAll();
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
    this.runner.abort(queryCanceled('user'));
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
    if (mode === 'fast') this.runner.abort(adminShutdown());
    else if (this.running) {
      const grace = setTimeout(() => this.runner.abort(adminShutdown()), SMART_SHUTDOWN_GRACE_MS);
      grace.unref();
      void this.done.then(() => clearTimeout(grace));
    }
    if (!this.running) this.terminate();
  }

  private terminate(): void {
    if (this.params !== null) this.fatal(adminShutdown());
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
      if (f.kind === 'startup' && isEncryptionRequest(f.code)) {
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
          if (frame.kind === 'startup') this.startup.packet(frame.code, frame.body);
          else await this.message(frame.code, frame.body);
          // A COPY FROM cancelled while a message that is not its data was handled.
          const ci = this.copyIn;
          if (ci?.abort.signal.aborted) await this.failCopyIn(ci, ci.abort.signal.reason);
        } catch (e) {
          this.fatal(e);
        }
        this.out.flush();
        if (this.stopping) break;
      }
    } finally {
      this.running = false;
      if (this.stopping && !this.closed) this.terminate();
      else if (!this.closed && this.socket.isPaused()) this.socket.resume();
    }
  }

  /** A FATAL ErrorResponse, then the connection ends (protocol errors, failed startup). */
  private fatal(e: unknown): void {
    if (this.closed) return;
    const f = errorFields(e);
    this.ctx.log?.warn(
      { pid: this.ctx.processId, user: this.startup.user || undefined, remote: this.raw.remoteAddress, code: f.code },
      `wire: FATAL: ${f.message}`,
    );
    this.out.send(be.errorResponse({ ...f, severity: 'FATAL' }));
    this.out.flush();
    this.closed = true;
    this.clearTimers();
    this.runner.abort(adminShutdown());
    // Destroy once the error is written: a peer that never closes its side holds nothing.
    const s = this.socket;
    s.end(() => {
      s.destroy();
      this.raw.destroy();
    });
  }

  /** The client is in (./startup.ts sent AuthenticationOk and the rest): ReadyForQuery. */
  private authenticated(params: SessionParams): void {
    this.params = params;
    for (const r of params.reported()) this.reported.set(r.name, r.value);
    if (this.startupTimer !== null) clearTimeout(this.startupTimer);
    this.startupTimer = null;
    this.ready();
  }

  // ---- regular messages ----

  private async message(code: number, body: Buffer): Promise<void> {
    if (this.params === null) {
      if (this.startup.authenticating) return this.startup.password(code, body);
      throw unknownMessage(code);
    }
    if (this.copyIn !== null) return this.copyMessage(this.copyIn, code, body);
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
          return await this.extended.parse(body);
        case FRONTEND.bind:
          return this.extended.bind(body);
        case FRONTEND.describe:
          return await this.extended.describe(body);
        case FRONTEND.execute:
          return await this.extended.execute(body);
        case FRONTEND.sync:
          parseEmpty('Sync', body);
          this.skipToSync = false;
          this.extended.sync();
          this.ready();
          return;
        case FRONTEND.flush:
          parseEmpty('Flush', body);
          this.out.flush();
          return;
        case FRONTEND.close:
          return this.extended.close(body);
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
    if (stmts.length === 0) this.out.send(be.emptyQueryResponse());
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
    const block = this.block;
    let failed = false;
    for (let i = 0; i < stmts.length; i++) {
      const stmt = stmts[i]!;
      try {
        if (stmt.kind === 'copy' && stmt.direction === 'from') {
          block.checkRunnable(stmt);
          await this.beginCopyIn(stmt, stmts.slice(i + 1));
          return;
        }
        if (implicit && block.status === TX_STATUS.idle && block.tx === null) block.beginImplicit();
        const o = await this.runner.run(stmt, [], null, true);
        await this.out.outcome(o, 0, o.rows.length, true, [], this.params!.timeZone);
      } catch (e) {
        failed = true;
        this.failStatement(e);
        break;
      }
    }
    await block.endImplicit(failed).catch((e: unknown) => this.failStatement(e));
    this.ready();
  }

  /**
   * ParameterStatus for each reported parameter whose value is not the one last reported, then
   * ReadyForQuery (PostgreSQL 14+ ReportChangedGUCOptions: a SET LOCAL that ended, or a SET
   * rolled back, sends nothing).
   */
  private ready(): void {
    // In PostgreSQL's order: guc.c's table, sorted by name without regard to case.
    const changed = [...this.changed].sort(([a], [b]) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));
    for (const [name, value] of changed) {
      if (this.reported.get(name) === value) continue;
      this.reported.set(name, value);
      this.out.send(be.parameterStatus(name, value));
    }
    this.changed.clear();
    this.out.send(be.readyForQuery(this.block.status));
    this.armIdleTimer();
  }

  /** idle_in_transaction_session_timeout / idle_session_timeout, from ReadyForQuery to the next message. */
  private armIdleTimer(): void {
    this.clearIdleTimer();
    const settings = this.params;
    if (settings === null) return;
    const inTx = this.block.status !== TX_STATUS.idle;
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
    this.block.fail();
    this.out.send(be.errorResponse({ ...errorFields(e), severity: 'ERROR' }));
  }

  // ---- COPY FROM STDIN ----

  private async beginCopyIn(stmt: Statement & { kind: 'copy' }, rest: readonly Statement[]): Promise<void> {
    const { load, format } = await this.runner.openCopyIn(stmt);
    const abort = new AbortController();
    const c: CopyIn = { load, rest, abort };
    this.copyIn = c;
    this.runner.setCurrent(abort);
    // A cancel while the session waits for the client's next CopyData fails the COPY at once, as
    // PostgreSQL's interrupt does in its read from the client; a message being handled fails it itself.
    abort.signal.addEventListener('abort', () => {
      if (!this.running) void this.failCopyIn(c, abort.signal.reason);
    });
    this.out.send(be.copyResponse('in', load.width, format.binary ? FORMAT.binary : FORMAT.text));
    this.out.flush();
  }

  /** CopyData / CopyDone / CopyFail while a COPY FROM STDIN runs. */
  private async copyMessage(c: CopyIn, code: number, body: Buffer): Promise<void> {
    try {
      switch (code) {
        case FRONTEND.copyData:
          c.abort.signal.throwIfAborted();
          // A cancel while the load is busy with a chunk answers at once, not when the chunk is done.
          await abortable(c.load.push(body), c.abort.signal);
          return;
        case FRONTEND.copyDone: {
          c.abort.signal.throwIfAborted();
          parseEmpty('CopyDone', body);
          const n = await this.runner.guarded(() => c.load.finish());
          this.copyIn = null;
          this.out.send(be.commandComplete(`COPY ${n}`));
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
      await this.failCopyIn(c, e);
    }
  }

  /**
   * The COPY FROM fails: ErrorResponse and ReadyForQuery now (CopyData, CopyDone and CopyFail
   * that follow are dropped, as the protocol says), then the load is abandoned. The load
   * commits only at finish(), which is not called now, so the error can be answered before its
   * staged files are removed.
   */
  private async failCopyIn(c: CopyIn, e: unknown): Promise<void> {
    if (this.copyIn !== c) return;
    this.copyIn = null;
    this.runner.setCurrent(null, c.abort);
    this.failStatement(e);
    this.ready();
    this.out.flush();
    await c.load.abort().catch(() => undefined);
  }
}

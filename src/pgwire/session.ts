/**
 * One client connection: startup, then the simple and extended query protocols
 * (https://www.postgresql.org/docs/15/protocol-flow.html). Frames are handled strictly one
 * after another; whatever a statement throws becomes an ErrorResponse for this session only.
 *
 * Not yet (issue 9): authentication other than trust, TLS, CancelRequest, cursors, COPY,
 * binary formats, parameters ($n, waiting on the engine), transaction snapshots.
 */
import type { Socket } from 'node:net';
import type { Database } from '../database.js';
import { commandTag, query, textRows, type QueryResult, type ResultField } from '../engine/index.js';
import { isPaxdError, PaxdError, SQLSTATE } from '../types/index.js';
import { FORMAT, FRONTEND, TX_STATUS, type TxStatus } from './constants.js';
import { FrameReader, type Frame } from './frames.js';
import * as be from './backend.js';
import { parseBind, parseEmpty, parseExecute, parseParse, parseQuery, parseStartup, parseTarget, type BindMessage } from './frontend.js';
import { inFailedTransaction, noUser, unknownMessage, unknownPortal, unknownStatement, unsupportedProtocol, WIRE_SQLSTATE } from './errors.js';
import { SessionParams, type ParamChange } from './params.js';
import { splitStatements, type Statement } from './statements.js';

export interface SessionContext {
  readonly db: Database;
  readonly processId: number;
  readonly secretKey: number;
  readonly maxMessageSize: number;
  /** Milliseconds a client has to complete its startup (PostgreSQL's authentication_timeout). */
  readonly startupTimeoutMs: number;
  /** Set when the connection must be refused once its StartupMessage arrives (53300 past max connections). */
  readonly refuse?: PaxdError;
}

/** What running one statement produced, before it is written in either protocol. */
interface Outcome {
  /** Null when the statement returns no rows (NoData). */
  readonly fields: readonly ResultField[] | null;
  readonly rows: readonly (string | null)[][];
  readonly tag: string;
  /** NoticeResponse messages, sent before CommandComplete. */
  readonly messages: readonly Buffer[];
}

interface Prepared {
  readonly sql: string;
  readonly statement: Statement | null; // null: the empty query
  readonly paramTypes: readonly number[];
}

interface Portal {
  readonly prepared: Prepared;
  readonly bind: BindMessage;
  outcome: Outcome | null;
  /** Rows already sent by Execute. */
  sent: number;
}

/** Output is gathered and written in chunks of about this many bytes. */
const WRITE_CHUNK = 64 * 1024;
/** Frames queued before the socket is paused (backpressure on a client that pipelines). */
const MAX_QUEUED_FRAMES = 256;

export class Session {
  private readonly reader: FrameReader;
  private readonly queue: Frame[] = [];
  private running = false;
  private closed = false;
  private out: Buffer[] = [];
  private outBytes = 0;
  private status: TxStatus = TX_STATUS.idle;
  private params: SessionParams | null = null;
  /** After an error in the extended protocol, messages are skipped until Sync. */
  private skipToSync = false;
  private readonly statements = new Map<string, Prepared>();
  private readonly portals = new Map<string, Portal>();
  /** Reported parameters changed since the last ReadyForQuery: PostgreSQL sends ParameterStatus just before it. */
  private readonly changed = new Map<string, string>();
  private startupTimer: NodeJS.Timeout | null;

  constructor(
    private readonly socket: Socket,
    private readonly ctx: SessionContext,
  ) {
    this.reader = new FrameReader({ maxMessageSize: ctx.maxMessageSize });
    // A silent or slow client must not hold a connection slot forever.
    this.startupTimer = setTimeout(() => this.close(), ctx.startupTimeoutMs);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', () => this.close());
    socket.on('close', () => {
      this.closed = true;
      this.clearStartupTimer();
    });
  }

  /** Ends the connection now (server shutdown, fatal error). */
  close(): void {
    this.closed = true;
    this.clearStartupTimer();
    this.socket.destroy();
  }

  private clearStartupTimer(): void {
    if (this.startupTimer !== null) clearTimeout(this.startupTimer);
    this.startupTimer = null;
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return;
    let frames: Frame[];
    try {
      frames = this.reader.push(chunk);
    } catch (e) {
      this.fatal(e);
      return;
    }
    this.queue.push(...frames);
    if (this.queue.length > MAX_QUEUED_FRAMES) this.socket.pause();
    void this.drain();
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
      }
    } finally {
      this.running = false;
      if (!this.closed && this.socket.isPaused()) this.socket.resume();
    }
  }

  // ---- output ----

  private send(b: Buffer): void {
    this.out.push(b);
    this.outBytes += b.byteLength;
    if (this.outBytes >= WRITE_CHUNK) this.flush();
  }

  /** Waits while the socket's buffer is over its high-water mark (a slow reader). */
  private async pace(): Promise<void> {
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
    const b = this.out.length === 1 ? this.out[0]! : Buffer.concat(this.out, this.outBytes);
    this.out = [];
    this.outBytes = 0;
    if (!this.closed) this.socket.write(b);
  }

  /** A FATAL ErrorResponse, then the connection ends (protocol errors, failed startup). */
  private fatal(e: unknown): void {
    if (this.closed) return;
    this.send(be.errorResponse({ ...errorFields(e, 0), severity: 'FATAL' }));
    this.flush();
    this.closed = true;
    this.clearStartupTimer();
    // Destroy once the error is written: a peer that never closes its side holds nothing.
    this.socket.end(() => this.socket.destroy());
  }

  // ---- startup ----

  private startup(code: number, body: Buffer): void {
    const p = parseStartup(code, body);
    switch (p.kind) {
      case 'ssl':
      case 'gssenc':
        // Not offered yet: the client continues in clear text, or gives up (sslmode=require).
        this.send(be.refuseEncryption());
        return;
      case 'cancel':
        // Accepted and ignored for now; PostgreSQL answers a CancelRequest by closing.
        this.close();
        return;
      case 'startup': {
        if (this.ctx.refuse !== undefined) throw this.ctx.refuse;
        if (p.major !== 3) throw unsupportedProtocol(code);
        const user = p.params.get('user');
        if (user === undefined || user === '') throw noUser();
        const params = new SessionParams({ user, applicationName: p.params.get('application_name') ?? '' });
        const unknownOptions: string[] = [];
        for (const [name, value] of p.params) {
          if (name === 'user' || name === 'database' || name === 'application_name' || name === 'replication') continue;
          if (name.startsWith('_pq_.')) unknownOptions.push(name);
          else if (name === 'options') {
            if (value.trim() !== '') throw new PaxdError('unsupported', SQLSTATE.feature_not_supported, `startup option "options" is not supported: ${value}`);
          } else params.set(name, value);
        }
        if (p.minor > 0 || unknownOptions.length > 0) this.send(be.negotiateProtocolVersion(0, unknownOptions));
        this.params = params;
        this.clearStartupTimer();
        this.send(be.authenticationOk());
        for (const r of params.reported()) this.send(be.parameterStatus(r.name, r.value));
        this.send(be.backendKeyData(this.ctx.processId, this.ctx.secretKey));
        this.ready();
        return;
      }
      default: {
        const never: never = p;
        throw new Error(`unknown startup packet ${String(never)}`);
      }
    }
  }

  // ---- regular messages ----

  private async message(code: number, body: Buffer): Promise<void> {
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
          return; // outside COPY these are ignored, as the protocol says
        default:
          throw unknownMessage(code);
      }
    } catch (e) {
      if (isProtocolError(e)) throw e; // fatal: the stream cannot be trusted any more
      this.failStatement(e, 0);
      this.skipToSync = true;
    }
  }

  /** Query: every statement in turn, stopping at the first error; then ReadyForQuery. */
  private async simpleQuery(sql: string): Promise<void> {
    let stmts: Statement[];
    try {
      stmts = await splitStatements(sql);
    } catch (e) {
      this.failStatement(e, 0);
      this.ready();
      return;
    }
    if (stmts.length === 0) this.send(be.emptyQueryResponse());
    for (const stmt of stmts) {
      try {
        const o = await this.run(stmt, []);
        if (o.fields !== null) this.send(be.rowDescription(o.fields));
        for (const row of o.rows) {
          this.send(be.dataRow(row));
          if (this.outBytes === 0) await this.pace();
        }
        for (const m of o.messages) this.send(m);
        this.send(be.commandComplete(o.tag));
      } catch (e) {
        this.failStatement(e, stmt.offset);
        break;
      }
    }
    this.ready();
  }

  /** ParameterStatus for each reported parameter that changed, then ReadyForQuery. */
  private ready(): void {
    for (const [name, value] of this.changed) this.send(be.parameterStatus(name, value));
    this.changed.clear();
    this.send(be.readyForQuery(this.status));
  }

  private report(changes: readonly ParamChange[]): void {
    for (const c of changes) if (c.report) this.changed.set(c.name, c.value);
  }

  /** ErrorResponse for a statement error; a transaction block becomes failed. */
  private failStatement(e: unknown, offset: number): void {
    if (this.status === TX_STATUS.inTransaction) this.status = TX_STATUS.failed;
    this.send(be.errorResponse({ ...errorFields(e, offset), severity: 'ERROR' }));
  }

  /** Runs one statement: the session answers SET/SHOW/transactions, the engine the rest. */
  private async run(stmt: Statement, params: readonly (Buffer | null)[]): Promise<Outcome> {
    const settings = this.params!;
    if (this.status === TX_STATUS.failed && !(stmt.kind === 'transaction' && (stmt.verb === 'commit' || stmt.verb === 'rollback')))
      throw inFailedTransaction();
    switch (stmt.kind) {
      case 'engine': {
        const values = params.map((p) => (p === null ? null : p.toString('utf8')));
        const r: QueryResult = await query(this.ctx.db, stmt.text, values.length > 0 ? values : undefined);
        // PostgreSQL describes rows only for statements that return them (not INSERT without RETURNING).
        const returnsRows = r.command === 'SELECT' || r.fields.length > 0;
        return { fields: returnsRows ? r.fields : null, rows: textRows(r), tag: commandTag(r), messages: [] };
      }
      case 'set': {
        this.report([settings.set(stmt.name, stmt.value)]);
        return { fields: null, rows: [], tag: 'SET', messages: [] };
      }
      case 'reset': {
        this.report([settings.reset(stmt.name)]);
        return { fields: null, rows: [], tag: 'RESET', messages: [] };
      }
      case 'reset-all': {
        this.report(settings.resetAll());
        return { fields: null, rows: [], tag: 'RESET', messages: [] };
      }
      case 'show': {
        if (stmt.name.toLowerCase() === 'all') throw new PaxdError('unsupported', SQLSTATE.feature_not_supported, 'SHOW ALL is not supported');
        const s = settings.show(stmt.name);
        return { fields: [{ name: s.name, type: { id: 'text' } }], rows: [[s.value]], tag: 'SHOW', messages: [] };
      }
      case 'transaction':
        return this.transaction(stmt.verb, stmt.tag);
      case 'unsupported':
        throw new PaxdError('unsupported', SQLSTATE.feature_not_supported, `${stmt.feature} is not supported`);
      default: {
        const never: never = stmt;
        throw new Error(`unknown statement kind ${String(never)}`);
      }
    }
  }

  /**
   * BEGIN/COMMIT/ROLLBACK with PostgreSQL's tags and warnings. paxd does not pin a snapshot
   * per transaction yet (issue 9), so each statement still reads the latest commit.
   */
  private transaction(verb: 'begin' | 'commit' | 'rollback' | 'unsupported', tag: string): Outcome {
    const messages: Buffer[] = [];
    const warn = (code: string, message: string) => messages.push(be.noticeResponse({ severity: 'WARNING', code, message }));
    switch (verb) {
      case 'begin':
        if (this.status !== TX_STATUS.idle) warn(WIRE_SQLSTATE.active_sql_transaction, 'there is already a transaction in progress');
        else this.status = TX_STATUS.inTransaction;
        return { fields: null, rows: [], tag, messages };
      case 'commit': {
        if (this.status === TX_STATUS.idle) warn(WIRE_SQLSTATE.no_active_sql_transaction, 'there is no transaction in progress');
        const failed = this.status === TX_STATUS.failed;
        this.status = TX_STATUS.idle;
        return { fields: null, rows: [], tag: failed ? 'ROLLBACK' : 'COMMIT', messages };
      }
      case 'rollback':
        if (this.status === TX_STATUS.idle) warn(WIRE_SQLSTATE.no_active_sql_transaction, 'there is no transaction in progress');
        this.status = TX_STATUS.idle;
        return { fields: null, rows: [], tag: 'ROLLBACK', messages };
      case 'unsupported':
        throw new PaxdError('unsupported', SQLSTATE.feature_not_supported, `${tag} is not supported`);
      default: {
        const never: never = verb;
        throw new Error(`unknown transaction verb ${String(never)}`);
      }
    }
  }

  // ---- extended query protocol ----

  private async parse(body: Buffer): Promise<void> {
    const m = parseParse(body);
    if (m.name !== '' && this.statements.has(m.name))
      throw new PaxdError('exists', '42P05', `prepared statement "${m.name}" already exists`);
    const stmts = await splitStatements(m.sql);
    if (stmts.length > 1) throw new PaxdError('invalid_input', SQLSTATE.syntax_error, 'cannot insert multiple commands into a prepared statement');
    this.statements.set(m.name, { sql: m.sql, statement: stmts[0] ?? null, paramTypes: m.paramTypes });
    this.send(be.parseComplete());
  }

  private bind(body: Buffer): void {
    const m = parseBind(body);
    const prepared = this.statements.get(m.statement);
    if (prepared === undefined) throw unknownStatement(m.statement);
    if (m.paramFormats.some((f) => f !== FORMAT.text) || m.resultFormats.some((f) => f !== FORMAT.text))
      throw new PaxdError('unsupported', SQLSTATE.feature_not_supported, 'binary format is not supported yet');
    if (m.portal !== '' && this.portals.has(m.portal)) throw new PaxdError('exists', '42P03', `cursor "${m.portal}" already exists`);
    this.portals.set(m.portal, { prepared, bind: m, outcome: null, sent: 0 });
    this.send(be.bindComplete());
  }

  /** Runs a portal's statement once; Describe and Execute share the outcome. */
  private async outcomeOf(portal: Portal): Promise<Outcome> {
    if (portal.outcome === null) {
      const stmt = portal.prepared.statement;
      portal.outcome = stmt === null ? { fields: null, rows: [], tag: '', messages: [] } : await this.run(stmt, portal.bind.params);
    }
    return portal.outcome;
  }

  private async describe(body: Buffer): Promise<void> {
    const m = parseTarget('Describe', body);
    if (m.target === 'portal') {
      const portal = this.portals.get(m.name);
      if (portal === undefined) throw unknownPortal(m.name);
      const o = await this.outcomeOf(portal);
      this.send(o.fields === null ? be.noData() : be.rowDescription(o.fields));
      return;
    }
    const prepared = this.statements.get(m.name);
    if (prepared === undefined) throw unknownStatement(m.name);
    this.send(be.parameterDescription(prepared.paramTypes));
    // The engine cannot describe without running yet, so a plain SELECT is run for its fields
    // and anything with side effects is never run here (issue 9: an engine `describe` that
    // binds and plans only, which also gives RETURNING lists).
    const stmt = prepared.statement;
    if (stmt === null || stmt.kind !== 'engine') {
      this.send(stmt !== null && stmt.kind === 'show' ? be.rowDescription([{ name: this.params!.show(stmt.name).name, type: { id: 'text' } }]) : be.noData());
      return;
    }
    if (!stmt.pureQuery) {
      this.send(be.noData());
      return;
    }
    const r = await query(this.ctx.db, stmt.text);
    this.send(be.rowDescription(r.fields));
  }

  private async execute(body: Buffer): Promise<void> {
    const m = parseExecute(body);
    const portal = this.portals.get(m.portal);
    if (portal === undefined) throw unknownPortal(m.portal);
    if (portal.prepared.statement === null) {
      this.send(be.emptyQueryResponse());
      return;
    }
    const o = await this.outcomeOf(portal);
    const end = m.maxRows === 0 ? o.rows.length : Math.min(o.rows.length, portal.sent + m.maxRows);
    for (let i = portal.sent; i < end; i++) {
      this.send(be.dataRow(o.rows[i]!));
      if (this.outBytes === 0) await this.pace();
    }
    const start = portal.sent;
    portal.sent = end;
    if (start === 0) for (const msg of o.messages) this.send(msg);
    // As PostgreSQL's PortalRun: a SELECT's tag counts the rows of this Execute only.
    if (end < o.rows.length) this.send(be.portalSuspended());
    else this.send(be.commandComplete(o.tag.startsWith('SELECT ') ? `SELECT ${end - start}` : o.tag));
  }

  private closeTarget(body: Buffer): void {
    const m = parseTarget('Close', body);
    // Closing something that does not exist is not an error (protocol docs, Close).
    if (m.target === 'statement') this.statements.delete(m.name);
    else this.portals.delete(m.name);
    this.send(be.closeComplete());
  }
}

function isProtocolError(e: unknown): boolean {
  return isPaxdError(e) && e.code === WIRE_SQLSTATE.protocol_violation;
}

/** The fields of an ErrorResponse for `e`; `offset` shifts engine positions into the query string. */
export function errorFields(e: unknown, offset: number): Omit<be.ErrorFields, 'severity'> {
  if (isPaxdError(e)) {
    const position = (e as { position?: number }).position;
    return {
      code: e.code,
      message: e.message,
      ...(e.detail !== undefined ? { detail: e.detail } : {}),
      ...(position !== undefined ? { position: position + offset } : {}),
    };
  }
  return { code: SQLSTATE.internal_error, message: `internal error: ${e instanceof Error ? e.message : String(e)}` };
}

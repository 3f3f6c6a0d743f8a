/**
 * Runs one statement of either protocol as the session's current statement: the session
 * answers SET/SHOW, transaction control, cursors, DEALLOCATE and DISCARD itself; the engine
 * runs the rest. Every statement runs `guarded`: CancelRequest, statement_timeout and a fast
 * shutdown abort its controller, and the statement fails with the controller's reason (57014,
 * 57P01) at once, while the engine stops at its next interrupt point (engine/context.ts).
 *
 * Outside a transaction block a statement reads every table at one instant of the store
 * (Database.pinned); inside one, the transaction's pinned view (./transaction.ts).
 */
import type { Database } from '../../table/index.js';
import {
  authorizeCopyFrom,
  commandTag,
  query,
  queryParsed,
  scanPlanOf,
  serverFileCopyRefused,
  checkCopyTo,
  textRows,
  yieldDue,
  yieldNow,
  type AstNode,
  type PreparedQuery,
  type QueryResult,
  type SessionAccess,
} from '../../engine/index.js';
import { featureNotSupported, isPaxdError, SQLSTATE, undefinedTable, unreachable, type TimeZone, type Value } from '../../types/index.js';
import * as be from '../codec/backend.js';
import { duplicateCursor, notInTransactionBlock, onlyInTransactionBlock, queryCanceled, unknownCursor, unknownStatement } from '../codec/errors.js';
import type { ParamChange, SessionParams } from './params.js';
import type { Statement } from './statements.js';
import { Cursor, StreamCursor, type CursorSet } from './cursor.js';
import { binaryHeader, binaryRow, binaryTrailer, copyFormat, formatRow, type CopyFormat, type CopyLoad } from './copy.js';
import { openCopyLoad } from './copy-in.js';
import { sessionDatabase, writeSetTable } from './transaction.js';
import type { TxBlock } from './tx-block.js';
import type { Portals } from './portals.js';
import type { Output } from './output.js';
import { NO_ROWS, type Outcome } from './outcome.js';
import { runSetting } from './settings.js';

/** What the runner needs of its session. */
export interface RunnerHost {
  readonly base: Database;
  readonly block: TxBlock;
  readonly cursors: CursorSet;
  readonly portals: Portals;
  readonly out: Output;
  /** The session's parameters (the session is past its startup). */
  params(): SessionParams;
  /** Changes of reported parameters, sent as ParameterStatus before the next ReadyForQuery. */
  report(changes: readonly ParamChange[]): void;
  /** The pid of the session's BackendKeyData (pg_backend_pid). */
  readonly processId: number;
}

export class StatementRunner {
  /** The running statement's controller: CancelRequest, statement_timeout and shutdown abort it. */
  private current: AbortController | null = null;
  /** The database the running statement outside a transaction block reads: pinned at one root (Database.pinned). */
  private statementDb: Database | null = null;
  /** The controller streaming FETCHes reuse while it is not aborted (guardedFetch). */
  private fetchGuard: AbortController | null = null;
  /** Fails the running streaming FETCH when its controller aborts. */
  private fetchAborted: ((e: Error) => void) | null = null;
  /** What the engine reads: the transaction's pinned tables, scans checking the running statement's signal. */
  readonly sdb: Database;

  constructor(private readonly host: RunnerHost) {
    this.session = {
      backendPid: host.processId,
      setting: (name) => host.params().show(name).value,
      setSetting: (name, value, local) => {
        const c = host.params().setConfig(name, value, local);
        host.report([c]);
        return c.value;
      },
    };
    this.sdb = sessionDatabase(
      host.base,
      () => host.block.tx?.db ?? this.statementDb ?? host.base,
      () => this.current?.signal ?? null,
    );
  }

  /** Aborts the running statement (if any) with `reason`. */
  abort(reason: Error): void {
    this.current?.abort(reason);
  }

  /** The options every engine call of this session takes: the session's settings, its user (whose privileges are checked) and the statement's signal. */
  engineOptions(signal?: AbortSignal): { workMem: number; timeZone: TimeZone; user: string; session: SessionAccess; signal?: AbortSignal } {
    const p = this.host.params();
    return { workMem: p.workMem, timeZone: p.timeZone, user: p.user, session: this.session, ...(signal !== undefined ? { signal } : {}) };
  }

  /** What the engine's system functions see of the session: current_setting and set_config as SHOW and SET. */
  private readonly session: SessionAccess;

  /**
   * Runs `work` as the session's current statement: CancelRequest, statement_timeout and a
   * fast shutdown abort it with 57014 / 57P01, whether or not the engine has noticed yet.
   */
  async guarded<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const ac = new AbortController();
    this.current = ac;
    // Outside a transaction block a statement reads every table at one instant of the store.
    const own = this.host.block.tx === null && this.statementDb === null;
    if (own) this.statementDb = this.host.base.pinned();
    const ms = this.host.params().milliseconds('statement_timeout');
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
    const ms = this.host.params().milliseconds('statement_timeout');
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
    if (prepared !== null) return prepared.execute(values, { signal });
    const options = this.engineOptions(signal);
    return typeof stmt === 'string' ? query(this.sdb, stmt, undefined, options) : queryParsed(this.sdb, stmt, options);
  }

  /**
   * Runs one statement. `prepared` is the engine's preparation from Parse, run with `values`.
   * `stream`: the outcome is written whole in text format (the simple protocol), so a FETCH
   * from a streaming cursor may hand its DataRows over as they are encoded.
   */
  async run(stmt: Statement, values: readonly Value[], prepared: PreparedQuery | null, stream = false): Promise<Outcome> {
    const { block, cursors, portals } = this.host;
    const settings = this.host.params();
    block.checkRunnable(stmt);
    switch (stmt.kind) {
      case 'set':
      case 'reset':
      case 'reset-all':
      case 'show':
        return runSetting(stmt, settings, (c) => this.host.report(c));
      case 'engine': {
        const r = await this.engineQuery(stmt.ast, prepared, values);
        // PostgreSQL describes rows only for statements that return them (not INSERT without RETURNING).
        const returnsRows = r.command === 'SELECT' || r.fields.length > 0;
        return { fields: returnsRows ? r.fields : null, rows: r.rows, tag: commandTag(r), messages: [] };
      }
      case 'transaction':
        return block.control(stmt.verb, stmt.tag, stmt.savepoint);
      case 'declare':
        return this.declare(stmt, prepared, values);
      case 'fetch': {
        const c = cursors.get(stmt.name);
        if (c === undefined) throw unknownCursor(stmt.name);
        if (c instanceof StreamCursor) return this.fetchStream(c, stmt, stream);
        const rows = c.fetch(stmt.direction, stmt.count);
        if (stmt.move) return { ...NO_ROWS, tag: `MOVE ${rows.length}` };
        // A FETCH of 0 rows still describes them (postgres_fdw relies on it).
        return { fields: c.fields, rows, tag: `FETCH ${rows.length}`, messages: [], binary: c.binary };
      }
      case 'close':
        if (stmt.name === null) {
          cursors.dropAll();
          return { ...NO_ROWS, tag: 'CLOSE CURSOR ALL' };
        }
        if (!cursors.drop(stmt.name)) throw unknownCursor(stmt.name);
        return { ...NO_ROWS, tag: 'CLOSE CURSOR' };
      case 'deallocate':
        if (!portals.deallocate(stmt.name)) throw unknownStatement(stmt.name!);
        return { ...NO_ROWS, tag: stmt.name === null ? 'DEALLOCATE ALL' : 'DEALLOCATE' };
      case 'discard':
        if (stmt.what === 'ALL') {
          if (block.open) throw notInTransactionBlock('DISCARD ALL');
          this.host.report(settings.resetAll());
          cursors.dropAll();
          portals.discardAll();
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

  private async declare(stmt: Statement & { kind: 'declare' }, prepared: PreparedQuery | null, values: readonly Value[]): Promise<Outcome> {
    const { block, cursors } = this.host;
    const tx = block.tx;
    if (tx === null && !stmt.hold) throw onlyInTransactionBlock('DECLARE CURSOR');
    if (cursors.has(stmt.name)) throw duplicateCursor(stmt.name);
    const options = { scroll: stmt.scroll, hold: stmt.hold, declaredAt: tx?.tick() ?? 0, inTransaction: tx !== null };
    // A plain scan in a transaction block, neither SCROLL nor WITH HOLD (nor BINARY), keeps its
    // scan open over the transaction's snapshot of the table (its own writes included, as the
    // transaction's view of the table has them when the statement is bound: ./transaction.ts).
    if (tx !== null && !stmt.hold && stmt.scroll !== true && !stmt.binary) {
      const types = prepared?.paramTypes ?? [];
      const plan = await this.guarded(() => scanPlanOf(this.sdb, stmt.queryAst, types, values, this.engineOptions()));
      if (plan !== null) {
        cursors.add(await StreamCursor.open(stmt.name, plan, options));
        return { ...NO_ROWS, tag: 'DECLARE CURSOR' };
      }
    }
    const r = await this.engineQuery(stmt.queryAst, prepared, values);
    cursors.add(new Cursor(stmt.name, r.fields, r.rows, options, stmt.binary));
    return { ...NO_ROWS, tag: 'DECLARE CURSOR' };
  }

  /**
   * FETCH / MOVE from a streaming cursor, as the current statement (CancelRequest and
   * statement_timeout stop it at the next batch). FETCH FORWARD n through the simple protocol
   * streams DataRows; anything else returns rows.
   */
  private async fetchStream(c: StreamCursor, stmt: Statement & { kind: 'fetch' }, stream: boolean): Promise<Outcome> {
    if (stream && !stmt.move && c.streaming && stmt.direction === 'forward' && stmt.count > 0) {
      const alloc = (size: number) => this.host.out.alloc(size);
      const run = (emit: (chunk: Buffer) => Promise<void>) => this.guardedFetch((signal) => c.forward(stmt.count, emit, () => signal.throwIfAborted(), alloc));
      // A FETCH of 0 rows still describes them (postgres_fdw relies on it).
      c.description ??= be.rowDescription(c.fields);
      return { fields: c.fields, rows: [], tag: 'FETCH', messages: [], stream: run, description: c.description };
    }
    const r = await this.guarded((signal) => c.fetch(stmt.direction, stmt.count, stmt.move, () => signal.throwIfAborted()));
    if (typeof r === 'number') return { ...NO_ROWS, tag: `MOVE ${r}` };
    return { fields: c.fields, rows: r, tag: `FETCH ${r.length}`, messages: [] };
  }

  /** Execute of a DECLAREd cursor's portal: FETCH FORWARD `count` rows, guarded as any statement. */
  async cursorRows(c: Cursor | StreamCursor, count: number): Promise<(readonly Value[])[]> {
    if (c instanceof StreamCursor)
      return (await this.guarded((signal) => c.fetch('forward', count, false, () => signal.throwIfAborted()))) as (readonly Value[])[];
    return c.fetch('forward', count);
  }

  /** COPY table|(query) TO STDOUT: the whole result as lines of the format. */
  private async copyOut(stmt: Statement & { kind: 'copy' }): Promise<Outcome> {
    if (!stmt.stdio) throw serverFileCopyRefused(stmt.direction, stmt.program);
    const f = copyFormat(stmt.options, 'to');
    let sql: AstNode | string;
    if (stmt.queryAst !== null) sql = stmt.queryAst;
    else {
      await this.guarded(() => checkCopyTo(this.sdb, stmt.table!));
      const cols = stmt.columns === null ? '*' : stmt.columns.map(quoteIdent).join(', ');
      sql = `SELECT ${cols} FROM ${quoteIdent(stmt.table!)}`;
    }
    const zone = this.host.params().timeZone;
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
        if (f.header)
          lines.push(
            formatRow(
              f,
              r.fields.map((x) => x.name),
            ),
          );
        const text = textRows(r, zone);
        for (let i = 0; i < text.length; i++) {
          await point(i);
          lines.push(formatRow(f, text[i]!));
        }
      }
      return { ...NO_ROWS, tag: `COPY ${r.rows.length}`, copyOut: { columns: r.fields.length, binary: f.binary, lines } };
    });
  }

  /**
   * COPY … FROM STDIN: the load the CopyData messages feed, into the transaction's write set
   * in a block (./transaction.ts writeSetTable), else into the table, committed at CopyDone.
   */
  async openCopyIn(stmt: Statement & { kind: 'copy' }): Promise<{ readonly load: CopyLoad; readonly format: CopyFormat }> {
    if (!stmt.stdio) throw serverFileCopyRefused(stmt.direction, stmt.program);
    const format = copyFormat(stmt.options);
    const tx = this.host.block.tx;
    await authorizeCopyFrom(this.host.base, this.host.params().user, stmt.table!); // INSERT on the table (42501)
    const table = await this.guarded(() => (tx !== null ? openForCopy(tx.db, stmt.table!, true) : openForCopy(this.host.base, stmt.table!)));
    return { load: openCopyLoad(table, stmt.columns, format, this.host.params().timeZone), format };
  }

  /** Makes `ac` the current statement's controller (a COPY FROM STDIN while its data arrives); null when it ends. */
  setCurrent(ac: AbortController | null, only?: AbortController): void {
    if (only === undefined || this.current === only) this.current = ac;
  }
}

/** `promise`, or the signal's reason as soon as it is aborted (the work is then abandoned). */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
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

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * The extended query protocol's messages (https://www.postgresql.org/docs/15/protocol-flow.html#PROTOCOL-FLOW-EXT-QUERY):
 * Parse, Bind, Describe, Execute and Close over the session's prepared statements and portals
 * (./portals.ts). Engine statements are prepared once at Parse (the engine's `prepare`:
 * parameter types and result fields without running); parameters and results go in text or
 * binary format (../codec/binary.ts). A cursor DECLAREd by name is also a portal of that name.
 */
import { prepareParsed, type PreparedQuery, type ResultField } from '../../engine/index.js';
import { PaxdError, parseText, SQLSTATE } from '../../types/index.js';
import { FORMAT } from '../codec/constants.js';
import * as be from '../codec/backend.js';
import { parseBind, parseExecute, parseParse, parseTarget } from '../codec/frontend.js';
import { bindParameterCount, duplicateCursor, unknownPortal, unknownStatement } from '../codec/errors.js';
import { decodeBinary } from '../codec/binary.js';
import { typeOfOid, typeOid } from '../codec/oids.js';
import { FETCH_ALL, splitStatements } from './statements.js';
import type { CursorSet } from './cursor.js';
import type { SessionParams } from './params.js';
import type { StatementRunner } from './runner.js';
import type { Output } from './output.js';
import { paramTypesOf, type Portal, type Portals } from './portals.js';
import { formatOf, NO_ROWS, type Outcome } from './outcome.js';

export class ExtendedProtocol {
  constructor(
    private readonly runner: StatementRunner,
    private readonly portals: Portals,
    private readonly cursors: CursorSet,
    private readonly out: Output,
    private readonly params: () => SessionParams,
  ) {}

  async parse(body: Buffer): Promise<void> {
    const m = parseParse(body);
    const statements = this.portals.statements;
    if (m.name !== '' && statements.has(m.name))
      throw new PaxdError('exists', SQLSTATE.duplicate_prepared_statement, `prepared statement "${m.name}" already exists`);
    const stmts = await splitStatements(m.sql);
    if (stmts.length > 1) throw new PaxdError('invalid_input', SQLSTATE.syntax_error, 'cannot insert multiple commands into a prepared statement');
    const stmt = stmts[0] ?? null;
    const types = m.paramTypes.map(typeOfOid);
    // Bound and typed now, as PostgreSQL's Parse does: an unknown table fails here.
    let engine: PreparedQuery | null = null;
    const options = this.runner.engineOptions();
    if (stmt?.kind === 'engine') engine = await prepareParsed(this.runner.sdb, stmt.ast, types, options);
    else if (stmt?.kind === 'declare') engine = await prepareParsed(this.runner.sdb, stmt.queryAst, types, options);
    statements.set(m.name, { sql: m.sql, statement: stmt, paramTypes: types, engine });
    this.out.send(be.parseComplete());
  }

  bind(body: Buffer): void {
    const m = parseBind(body);
    const prepared = this.portals.statements.get(m.statement);
    if (prepared === undefined) throw unknownStatement(m.statement);
    const types = paramTypesOf(prepared);
    if (m.params.length !== types.length) throw bindParameterCount(m.params.length, m.statement, types.length);
    const zone = this.params().timeZone;
    const values = m.params.map((b, i) => {
      if (b === null) return null;
      const t = types[i]!;
      return formatOf(m.paramFormats, i) === FORMAT.binary ? decodeBinary(t, b, zone) : parseText(t, b.toString('utf8'), zone);
    });
    if (m.portal !== '' && this.portals.portals.has(m.portal)) throw duplicateCursor(m.portal);
    this.portals.portals.set(m.portal, { prepared, bind: m, values, outcome: null, sent: 0 });
    this.out.send(be.bindComplete());
  }

  /** Runs a portal's statement once; Execute calls continue through its rows. */
  private async outcomeOf(portal: Portal): Promise<Outcome> {
    if (portal.outcome === null) {
      const stmt = portal.prepared.statement;
      if (stmt !== null && stmt.kind === 'copy' && stmt.direction === 'from')
        throw new PaxdError(
          'unsupported',
          SQLSTATE.feature_not_supported,
          'COPY FROM STDIN through the extended query protocol is not supported: send it as a simple Query',
        );
      portal.outcome = stmt === null ? { ...NO_ROWS, tag: '' } : await this.runner.run(stmt, portal.values, portal.prepared.engine);
    }
    return portal.outcome;
  }

  /**
   * Describe: ParameterDescription and RowDescription (or NoData) of a statement, or the
   * RowDescription of a portal with its result formats. Engine statements are described from
   * their preparation without running; session statements (FETCH, SHOW) are run for it.
   */
  async describe(body: Buffer): Promise<void> {
    const m = parseTarget('Describe', body);
    if (m.target === 'portal') {
      const portal = this.portals.portals.get(m.name);
      if (portal === undefined) {
        // A cursor DECLAREd by name is a portal of that name (psycopg's named cursors describe it);
        // it has no result formats, so PostgreSQL answers text, even for a BINARY cursor.
        const c = this.cursors.get(m.name);
        if (c === undefined) throw unknownPortal(m.name);
        this.out.send(be.rowDescription(c.fields));
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
      this.out.send(fields === null ? be.noData() : be.rowDescription(fields.map((f, i) => ({ ...f, format: formatOf(formats, i) }))));
      return;
    }
    const prepared = this.portals.statements.get(m.name);
    if (prepared === undefined) throw unknownStatement(m.name);
    this.out.send(be.parameterDescription(paramTypesOf(prepared).map(typeOid)));
    const stmt = prepared.statement;
    if (stmt?.kind === 'engine') {
      const fields = prepared.engine!.fields;
      this.out.send(fields === null ? be.noData() : be.rowDescription(fields));
    } else if (stmt?.kind === 'show') this.out.send(be.rowDescription([{ name: this.params().show(stmt.name).name, type: { id: 'text' } }]));
    else this.out.send(be.noData());
  }

  async execute(body: Buffer): Promise<void> {
    const m = parseExecute(body);
    const portal = this.portals.portals.get(m.portal);
    if (portal === undefined) {
      if (this.cursors.has(m.portal)) return this.executeCursor(m.portal, m.maxRows);
      throw unknownPortal(m.portal);
    }
    if (portal.prepared.statement === null) {
      this.out.send(be.emptyQueryResponse());
      return;
    }
    const o = await this.outcomeOf(portal);
    const start = portal.sent;
    const end = m.maxRows === 0 ? o.rows.length : Math.min(o.rows.length, start + m.maxRows);
    portal.sent = end;
    const formats = portal.bind.resultFormats;
    const zone = this.params().timeZone;
    if (end < o.rows.length) {
      const fields = o.fields ?? [];
      const fmt = fields.map((_, i) => formatOf(o.binary === true ? [FORMAT.binary] : formats, i));
      await this.out.rows(fields, o.rows, start, end, fmt, zone);
      if (start === 0) for (const msg of o.messages) this.out.send(msg);
      this.out.send(be.portalSuspended());
      return;
    }
    // As PostgreSQL's PortalRun: a SELECT's tag counts the rows of this Execute only.
    const tag = o.tag.startsWith('SELECT ') ? `SELECT ${end - start}` : o.tag;
    await this.out.outcome({ ...o, tag, messages: start === 0 ? o.messages : [] }, start, end, false, formats, zone);
  }

  /**
   * Execute of a DECLAREd cursor's portal: FETCH FORWARD maxRows (all when 0), in text (the
   * portal has no result formats: PostgreSQL's answer, BINARY cursor or not); PortalSuspended
   * when maxRows rows came, as PostgreSQL's PortalRun does.
   */
  private async executeCursor(name: string, maxRows: number): Promise<void> {
    const c = this.cursors.get(name)!;
    const rows = await this.runner.cursorRows(c, maxRows === 0 ? FETCH_ALL : maxRows);
    await this.out.rows(
      c.fields,
      rows,
      0,
      rows.length,
      c.fields.map(() => FORMAT.text),
      this.params().timeZone,
    );
    if (maxRows > 0 && rows.length === maxRows) this.out.send(be.portalSuspended());
    else this.out.send(be.commandComplete(`SELECT ${rows.length}`));
  }

  close(body: Buffer): void {
    const m = parseTarget('Close', body);
    // Closing something that does not exist is not an error (protocol docs, Close).
    if (m.target === 'statement') this.portals.statements.delete(m.name);
    else this.portals.portals.delete(m.name);
    this.out.send(be.closeComplete());
  }

  /** Sync: the unnamed portal ends with the implicit transaction. */
  sync(): void {
    this.portals.portals.delete('');
  }
}

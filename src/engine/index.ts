/**
 * The built-in SQL engine (docs/ARCHITECTURE.md "The SQL engine"): PostgreSQL's dialect and semantics over paxd tables.
 *
 *   const r = await query(db, "SELECT kind, count(*) FROM events WHERE ts >= '2024-01-01' GROUP BY kind ORDER BY 2 DESC LIMIT 3");
 *   r.fields     // [{ name: 'kind', type: { id: 'text' } }, { name: 'count', type: { id: 'int8' } }]
 *   textRows(r)  // [['buy', '1200'], ['sell', '980'], ['hold', '12']]
 *
 * Stages, one folder or file each, each importing only earlier ones: parse (libpg-query) →
 * bind (names and PostgreSQL's types into the bound IR, ./ir.ts; it runs nothing) → at each
 * execution, parameter values and InitPlans (subqueries) put in place (./exec/params.ts,
 * ./exec/init-plans.ts) → plan (what the scan layer answers: pushed predicates, statistics,
 * top-N) → exec (vectorized operators over batches) → result. EXPLAIN [ANALYZE] renders a plan
 * (./explain.ts); CREATE/ALTER/DROP TABLE, CREATE/DROP VIEW, CREATE TABLE AS, INSERT, UPDATE, DELETE and TRUNCATE live in
 * ./statements/. What is not supported yet fails with 0A000 naming the feature, never with a
 * wrong answer.
 */
import type { Database } from '../table/index.js';
import type { Value } from '../types/index.js';
import { type AstNode, fieldsOf, kindOf, parseSql } from './parse.js';
import { explain } from './explain.js';
import { alterRole, alterTable, createRole, createTable, createTableAs, createView, dropView, isSelectInto, deleteFrom, describeDelete, describeInsert, describeUpdate, dropOwned, dropRole, dropTable, grant, reassignOwned, grantRole, insert, truncate, update } from './statements/index.js';
import { authorize, createOwned } from './access.js';
import { bindQuery, queryFields } from './bind.js';
import type { BoundQuery } from './ir.js';
import { readStatementTime } from './bind/functions.js';
import { planQuery } from './plan.js';
import { run, runQuery } from './exec/run.js';
import { nameRegOutputs } from './catalog/index.js';
import { withParams } from './exec/params.js';
import { notSupported, SqlError } from './errors.js';
import type { QueryResult, ResultField } from './result.js';
import { withOrigins } from './origin.js';
import { DEFAULT_WORK_MEM, type SessionAccess, type StatementContext, withContext } from './context.js';
import { T } from './types.js';
import { type PgType, type TimeZone, SQLSTATE, bindParameterCount, isPaxdError } from '../types/index.js';

export type { QueryResult, ResultField } from './result.js';
export { textRows, commandTag } from './result.js';
export { SqlError } from './errors.js';

export { DEFAULT_WORK_MEM, type SessionAccess, currentTimeZone, yieldDue, yieldNow } from './context.js';
export { SERVER_VERSION } from './functions/system.js';
export { authorizeCopyFrom } from './access.js';
export { checkCopyTo } from './statements/index.js';
export { serverFileCopyRefused } from '../table/index.js';
export { engineCounters, type EngineCounters } from './counters.js';
export { configureMemory, memoryLimits } from './memory.js';
export { scanPlanOf, type ScanCursorPlan } from './stream.js';
export { parseStatements, onParse, type AstNode, type ParsedStatement } from './parse.js';

/** Settings of one statement. */
export interface QueryOptions {
  /** Bytes a hash join's build side may hold before the statement fails with 53200 (default 256 MB). */
  readonly workMem?: number;
  /** The session's TimeZone (types/timezone.ts; default UTC): timestamptz input, output, fields. */
  readonly timeZone?: TimeZone;
  /**
   * Stops the statement: once aborted, it ends with the signal's reason (a 57014 PaxdError) at
   * its next interrupt point, within milliseconds wherever it is (./context.ts).
   */
  readonly signal?: AbortSignal;
  /**
   * The authenticated user the statement runs as: its privileges are checked (42501) before
   * anything is read or written (./access.ts). Absent: the daemon itself, the library, the CLI.
   */
  readonly user?: string;
  /** The wire session the statement runs in, for the system functions (./context.ts SessionAccess). */
  readonly session?: SessionAccess;
}

/**
 * A statement parsed, bound and typed once (PostgreSQL's Parse/Describe), run any number of
 * times with parameter values (Bind/Execute):
 *
 *   const p = await prepare(db, 'SELECT name FROM t WHERE id = $1');
 *   p.paramTypes          // [{ id: 'int4' }]   (the type of t.id)
 *   p.fields              // [{ name: 'name', type: { id: 'text' } }]
 *   await p.execute([42]) // rows of id 42
 */
export interface PreparedQuery {
  /** One type per parameter: given, inferred from the context, or text (PostgreSQL's unknown). */
  readonly paramTypes: readonly PgType[];
  /** The result columns; null for statements that return no rows (INSERT, DELETE, DDL). */
  readonly fields: readonly ResultField[] | null;
  /** Runs the statement with one value per parameter, of its type (as src/types parseText gives); `signal` stops it. */
  execute(params: readonly Value[], options?: { readonly signal?: AbortSignal }): Promise<QueryResult>;
}

/**
 * Prepares one statement. `paramTypes` fixes the types of the first parameters (null: infer),
 * as a Parse message's parameter types do; a parameter used where nothing decides its type is
 * text. `$n` works in SELECT, INSERT … VALUES/SELECT, UPDATE, DELETE and EXPLAIN.
 */
export async function prepare(db: Database, sql: string, paramTypes?: readonly (PgType | null)[], options?: QueryOptions): Promise<PreparedQuery> {
  const stmts = await parseSql(sql);
  if (stmts.length > 1) throw new SqlError('invalid_input', SQLSTATE.syntax_error, 'cannot insert multiple commands into a prepared statement');
  return prepareParsed(db, stmts[0] ?? null, paramTypes, options);
}

/** prepare() of a statement parsed before (./parse.ts parseStatements; null: the empty query). */
export async function prepareParsed(db: Database, stmt: AstNode | null, paramTypes?: readonly (PgType | null)[], options?: QueryOptions): Promise<PreparedQuery> {
  const workMem = options?.workMem ?? DEFAULT_WORK_MEM;
  const zone = { ...(options?.timeZone !== undefined ? { timeZone: options.timeZone } : {}), ...userOf(options) };
  const types: (PgType | null)[] = [...(paramTypes ?? [])];
  const infer: StatementContext = { types, values: null, workMem, tempArea: db.tempDirectory, ...zone, ...signalOf(options) };
  // A SELECT binds here, once: in the infer phase (which types its `$n`), and when it has
  // parameters once more in the generic phase (./context.ts), which every execution reuses.
  // One that folded the statement's time (now(), CURRENT_DATE) binds again at each execution.
  const select = stmt !== null && kindOf(stmt) === 'SelectStmt' && !isSelectInto(stmt) ? await withContext(infer, () => bindQuery(db, stmt)) : null;
  const fields = stmt === null ? null : select !== null ? withOrigins(select, queryFields(select)) : await withContext(infer, () => describe(db, stmt, types));
  const resolved: readonly PgType[] = Object.freeze(types.map((t) => t ?? T.text));
  let bound = select === null || readStatementTime(infer) ? null : select;
  if (bound !== null && resolved.length > 0) {
    const generic: StatementContext = { ...infer, types: [...resolved], generic: true };
    bound = await withContext(generic, () => genericBind(db, stmt!));
    if (readStatementTime(generic)) bound = null;
  }
  return Object.freeze({
    paramTypes: resolved,
    fields,
    async execute(params: readonly Value[], run?: { readonly signal?: AbortSignal }): Promise<QueryResult> {
      if (params.length !== resolved.length)
        throw bindParameterCount(params.length, '', resolved.length);
      if (stmt === null) return { command: 'EMPTY', fields: [], rows: [] };
      const ctx = { types: [...resolved], values: params, workMem, tempArea: db.tempDirectory, ...zone, ...signalOf(run) };
      if (bound !== null)
        return withContext(ctx, async () => {
          // Privileges are checked at each execution, as PostgreSQL's executor checks them (./access.ts).
          await authorize(db, stmt);
          const r = nameRegOutputs(await runQuery(withParams(bound, params)));
          return { ...r, fields: withOrigins(bound, r.fields) };
        });
      return withContext(ctx, () => execute(db, stmt));
    },
  });
}

/**
 * A SELECT bound with parameter nodes for its `$n`, or null when a parameter stands where the
 * binder needs its value (`LIMIT $1`, `x = ANY($1)` over an array value, a function's constant
 * argument): that statement binds at each execution, with the values as constants.
 */
async function genericBind(db: Database, stmt: AstNode): Promise<BoundQuery | null> {
  try {
    return await bindQuery(db, stmt);
  } catch (e) {
    if (isPaxdError(e) && e.kind !== 'internal') return null;
    throw e;
  }
}

/** Runs one SQL statement (a trailing semicolon is fine), with `params` for its `$n` (see prepare). */
export async function query(db: Database, sql: string, params?: readonly Value[], options?: QueryOptions): Promise<QueryResult> {
  if (params !== undefined && params.length > 0) return (await prepare(db, sql, params.map(() => null), options)).execute(params);
  const stmts = await parseSql(sql);
  if (stmts.length === 0) return { command: 'EMPTY', fields: [], rows: [] };
  if (stmts.length > 1) throw notSupported('several statements in one query string');
  return queryParsed(db, stmts[0]!, options);
}

/** query() of one statement parsed before (./parse.ts parseStatements), without parameters. */
export async function queryParsed(db: Database, stmt: AstNode, options?: QueryOptions): Promise<QueryResult> {
  return withContext({ ...contextOf(options), tempArea: db.tempDirectory }, () => execute(db, stmt));
}

/** The `user` field of a statement context, when one is given. */
function userOf(o: QueryOptions | undefined): { user?: string; session?: SessionAccess } {
  return { ...(o?.user !== undefined ? { user: o.user } : {}), ...(o?.session !== undefined ? { session: o.session } : {}) };
}

/** The `signal` field of a statement context, when one is given. */
function signalOf(o: { readonly signal?: AbortSignal } | undefined): { signal?: AbortSignal } {
  return o?.signal !== undefined ? { signal: o.signal } : {};
}

/** Splits a script into statements and runs them in order (the CLI's stdin mode). */
export async function queryAll(db: Database, sql: string, options?: QueryOptions): Promise<QueryResult[]> {
  const out: QueryResult[] = [];
  const ctx = { ...contextOf(options), tempArea: db.tempDirectory };
  for (const stmt of await parseSql(sql)) out.push(await withContext(ctx, () => execute(db, stmt)));
  return out;
}

/** The context of a statement without parameters. */
function contextOf(options: QueryOptions | undefined): StatementContext {
  return { types: [], values: [], workMem: options?.workMem ?? DEFAULT_WORK_MEM, ...(options?.timeZone !== undefined ? { timeZone: options.timeZone } : {}), ...signalOf(options), ...userOf(options) };
}

/**
 * The result columns of a statement without running it, binding it in the infer phase so
 * that its parameters get their types (recorded in `types`, ./context.ts).
 */
async function describe(db: Database, stmt: AstNode, types: (PgType | null)[]): Promise<ResultField[] | null> {
  const s = fieldsOf(stmt);
  switch (kindOf(stmt)) {
    case 'SelectStmt':
      if (isSelectInto(stmt)) return null;
      return queryFields(await bindQuery(db, stmt));
    case 'ExplainStmt':
      if (kindOf(s.query as AstNode) === 'SelectStmt') await bindQuery(db, s.query as AstNode);
      return [{ name: 'QUERY PLAN', type: T.text }];
    case 'InsertStmt':
      return describeInsert(db, s, types);
    case 'UpdateStmt':
      return describeUpdate(db, s, types);
    case 'DeleteStmt':
      return describeDelete(db, s, types);
    default:
      return null;
  }
}

/** One parsed statement, dispatched by kind; kinds not listed fail with 0A000 in the binder. */
async function execute(db: Database, stmt: AstNode): Promise<QueryResult> {
  const kind = kindOf(stmt);
  const s = fieldsOf(stmt);
  const who = await authorize(db, stmt);
  if (isSelectInto(stmt)) return createTableAs(db, who, stmt);
  switch (kind) {
    case 'CreateStmt':
      return createOwned(db, who, s, () => createTable(db, s));
    case 'GrantStmt':
      return grant(db, who, s);
    case 'GrantRoleStmt':
      return grantRole(db, who, s);
    case 'CreateRoleStmt':
      return createRole(db, who, s);
    case 'AlterRoleStmt':
      return alterRole(db, who, s);
    case 'DropRoleStmt':
      return dropRole(db, who, s);
    case 'ReassignOwnedStmt':
      return reassignOwned(db, who, s);
    case 'DropOwnedStmt':
      return dropOwned(db, who, s);
    case 'ViewStmt':
      return createView(db, who, stmt);
    case 'CreateTableAsStmt':
      return createTableAs(db, who, stmt);
    case 'DropStmt':
      if (s.removeType === 'OBJECT_VIEW') return dropView(db, s);
      return dropTable(db, s);
    case 'AlterTableStmt':
      return alterTable(db, s);
    case 'InsertStmt':
      return insert(db, s);
    case 'DeleteStmt':
      return deleteFrom(db, s);
    case 'UpdateStmt':
      return update(db, s);
    case 'TruncateStmt':
      return truncate(db, s);
    case 'ExplainStmt':
      return explain(db, s);
    default: {
      const bound = await bindQuery(db, stmt);
      const r = nameRegOutputs(await run(planQuery(bound)));
      // The simple protocol's RowDescription names the columns' tables too (./origin.ts).
      return kind === 'SelectStmt' ? { ...r, fields: withOrigins(bound, r.fields) } : r;
    }
  }
}
export { fieldsOf, kindOf, parseSql, str, type AstFields } from './parse.js';

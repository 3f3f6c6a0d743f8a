/**
 * The built-in SQL engine (issue 6): PostgreSQL's dialect and semantics over paxd tables.
 *
 *   const r = await query(db, "SELECT kind, count(*) FROM events WHERE ts >= '2024-01-01' GROUP BY kind ORDER BY 2 DESC LIMIT 3");
 *   r.fields     // [{ name: 'kind', type: { id: 'text' } }, { name: 'count', type: { id: 'int8' } }]
 *   textRows(r)  // [['buy', '1200'], ['sell', '980'], ['hold', '12']]
 *
 * Stages, one folder or file each: parse (libpg-query) → bind (names and PostgreSQL's types)
 * → plan (what the scan layer answers: pushed predicates, statistics, top-N) → exec
 * (vectorized operators over batches) → result. EXPLAIN [ANALYZE] renders a plan
 * (./explain.ts); CREATE/ALTER/DROP TABLE, INSERT and DELETE live in ./statements/. What is
 * not supported yet fails with 0A000 naming the feature, never with a wrong answer.
 */
import type { Database } from '../database.js';
import type { Value } from '../types/index.js';
import { type AstNode, fieldsOf, kindOf, parseSql } from './parse.js';
import { explain } from './explain.js';
import { alterTable, createTable, deleteFrom, dropTable, insert } from './statements/index.js';
import { bindSelect } from './bind.js';
import { plan } from './plan.js';
import { run } from './exec/run.js';
import { notSupported } from './errors.js';
import type { QueryResult } from './result.js';

export type { QueryResult, ResultField } from './result.js';
export { textRows, commandTag } from './result.js';
export { SqlError } from './errors.js';

/** Runs one SQL statement (a trailing semicolon is fine); `params` ($n) are not supported yet. */
export async function query(db: Database, sql: string, params?: readonly Value[]): Promise<QueryResult> {
  if (params !== undefined && params.length > 0) throw notSupported('parameters ($n)');
  const stmts = await parseSql(sql);
  if (stmts.length === 0) return { command: 'EMPTY', fields: [], rows: [] };
  if (stmts.length > 1) throw notSupported('several statements in one query string');
  return execute(db, stmts[0]!);
}

/** Splits a script into statements and runs them in order (the CLI's stdin mode). */
export async function queryAll(db: Database, sql: string): Promise<QueryResult[]> {
  const out: QueryResult[] = [];
  for (const stmt of await parseSql(sql)) out.push(await execute(db, stmt));
  return out;
}

/** One parsed statement, dispatched by kind; kinds not listed fail with 0A000 in the binder. */
async function execute(db: Database, stmt: AstNode): Promise<QueryResult> {
  const kind = kindOf(stmt);
  const s = fieldsOf(stmt);
  switch (kind) {
    case 'CreateStmt':
      return createTable(db, s);
    case 'DropStmt':
      return dropTable(db, s);
    case 'AlterTableStmt':
      return alterTable(db, s);
    case 'InsertStmt':
      return insert(db, s);
    case 'DeleteStmt':
      return deleteFrom(db, s);
    case 'ExplainStmt':
      return explain(db, s);
    default:
      return run(plan(await bindSelect(db, stmt)));
  }
}

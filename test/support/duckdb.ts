/**
 * A DuckDB runner for benchmarks and tests that compare paxd with DuckDB (@duckdb/node-api, a
 * dev dependency whose native binary ships in the registry package `@duckdb/node-bindings-*`).
 *
 *   const db = await openDuckDb({ threads: 2 });          // in memory
 *   await db.run("CREATE TABLE t AS SELECT * FROM range(3) r(x)");
 *   await db.rows('SELECT sum(x) FROM t');                 // [[3n]]  (DuckDB JS values: BIGINT is bigint)
 *   await db.rowsJson('SELECT sum(x) AS s FROM t');        // [{ s: '3' }] (exact, as JSON)
 *   db.close();
 *
 * `{ file: true }` opens a database file in a fresh temporary folder instead (so a load is
 * written to disk and checkpointed, like a paxd commit), removed again by close().
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection, type DuckDBResultReader, type DuckDBValue } from '@duckdb/node-api';

/** A row of JSON values, as DuckDB's getRowObjectsJson returns it. */
export type JsonRow = ReturnType<DuckDBResultReader['getRowObjectsJson']>[number];

export interface DuckDbOptions {
  /** Worker threads (DuckDB's `threads` setting); DuckDB's default (all cores) when absent. */
  threads?: number;
  /** A database file in a temporary folder instead of an in-memory database. */
  file?: boolean;
  /** Other DuckDB configuration options, as strings (`{ memory_limit: '4GB' }`). */
  config?: Record<string, string>;
}

export interface DuckDb {
  /** The database file, or ':memory:'. */
  readonly path: string;
  /** Runs statements, discarding any result. */
  run(sql: string): Promise<void>;
  /** All rows of a query as DuckDB's JS values (bigint for BIGINT, DuckDBDecimalValue for DECIMAL, …). */
  rows(sql: string): Promise<DuckDBValue[][]>;
  /** All rows of a query as objects of JSON values (exact: big numbers and decimals as strings). */
  rowsJson(sql: string): Promise<JsonRow[]>;
  /** SET threads = n. */
  setThreads(n: number): Promise<void>;
  /** The underlying connection, for anything else (appenders, prepared statements). */
  readonly connection: DuckDBConnection;
  close(): void;
}

export async function openDuckDb(options: DuckDbOptions = {}): Promise<DuckDb> {
  const dir = options.file ? mkdtempSync(join(tmpdir(), 'paxd-duckdb-')) : null;
  const path = dir === null ? ':memory:' : join(dir, 'bench.duckdb');
  const config: Record<string, string> = { ...options.config };
  if (options.threads !== undefined) config['threads'] = String(options.threads);
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  try {
    instance = await DuckDBInstance.create(path, config);
    connection = await instance.connect();
  } catch (e) {
    if (dir !== null) rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  let closed = false;
  return {
    path,
    connection,
    async run(sql) {
      await connection.run(sql);
    },
    async rows(sql) {
      return (await connection.runAndReadAll(sql)).getRows();
    },
    async rowsJson(sql) {
      return (await connection.runAndReadAll(sql)).getRowObjectsJson();
    },
    async setThreads(n) {
      if (!Number.isInteger(n) || n < 1) throw new RangeError(`DuckDB threads must be a positive integer, got ${n}`);
      await connection.run(`SET threads = ${n}`);
    },
    close() {
      if (closed) return;
      closed = true;
      connection.closeSync();
      instance.closeSync();
      if (dir !== null) rmSync(dir, { recursive: true, force: true });
    },
  };
}

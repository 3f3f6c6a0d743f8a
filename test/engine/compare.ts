/**
 * Running one statement on paxd and on PostgreSQL and comparing the outcomes, shared by the
 * engine's data-driven suites (./differential.test.ts, ./statements.test.ts, and the feature
 * suites: window-, functions-, subquery-differential, cte).
 */
import { query, textRows, commandTag, type QueryOptions } from '../../src/engine/index.js';
import type { Database } from '../../src/table/database.js';
import pgdriver from 'pg';
import * as assert from 'uvu/assert';
import { PgQueryError, type Postgres } from '../support/pg.js';

export const NULL = '<NULL>';
const FS = '\u001f';

export type Outcome = { ok: true; rows: string[][]; tag?: string } | { ok: false; code: string; message: string };

export async function runPg(pg: Postgres, sql: string): Promise<Outcome> {
  try {
    const out = await pg.query(`\\pset null '${NULL}'\n\\pset fieldsep '${FS}'\n\\pset recordsep_zero\n${sql}`);
    const recs = out.split('\0').filter((r, i, a) => !(r === '' && i === a.length - 1));
    return { ok: true, rows: out === '' ? [] : recs.map((r) => r.replace(/\n$/, '').split(FS)) };
  } catch (e) {
    if (e instanceof PgQueryError) return { ok: false, code: e.sqlstate, message: e.message };
    throw e;
  }
}

/**
 * One connection to the test cluster (node-postgres over its unix socket), for suites that run
 * hundreds of queries: a query costs a round trip instead of a psql process. Values come back
 * as the server's text output (no parsing), NULL as `NULL`, errors with their SQLSTATE, the
 * same outcome `runPg` reads from psql.
 */
export interface PgSession {
  run(sql: string): Promise<Outcome>;
  close(): Promise<void>;
}

export async function openPgSession(pg: Postgres, timeZone?: string): Promise<PgSession> {
  const client = new pgdriver.Client({ host: pg.socketDir, port: pg.port, user: 'postgres', database: 'postgres', types: { getTypeParser: () => (v: string) => v } });
  await client.connect();
  if (timeZone !== undefined) await client.query(`SET TimeZone = '${timeZone}'`);
  return {
    async run(sql) {
      try {
        const r = await client.query({ text: sql, rowMode: 'array' });
        const last = Array.isArray(r) ? (r as pgdriver.QueryArrayResult[]).at(-1)! : r;
        return { ok: true, rows: last.rows.map((row) => (row as (string | null)[]).map((v) => v ?? NULL)) };
      } catch (e) {
        const err = e as { code?: unknown; message: string };
        if (typeof err.code === 'string' && /^[0-9A-Z]{5}$/.test(err.code)) return { ok: false, code: err.code, message: err.message };
        throw e;
      }
    },
    close: () => client.end(),
  };
}

export async function runPaxd(db: Database, sql: string, options?: QueryOptions): Promise<Outcome> {
  try {
    const r = await query(db, sql, undefined, options);
    return { ok: true, rows: textRows(r, options?.timeZone).map((row) => row.map((v) => v ?? NULL)), ...(r.tag !== undefined ? { tag: commandTag(r) } : {}) };
  } catch (e) {
    const err = e as { code?: string; message: string };
    if (typeof err.code === 'string' && /^[0-9A-Z]{5}$/.test(err.code)) return { ok: false, code: err.code, message: err.message };
    throw e;
  }
}

function sameValue(a: string, b: string): boolean {
  if (a === b) return true;
  const x = Number(a);
  const y = Number(b);
  if (a === '' || b === '' || !Number.isFinite(x) || !Number.isFinite(y) || !/[.e]/i.test(a + b)) return false;
  return Math.abs(x - y) <= 1e-9 * Math.max(Math.abs(x), Math.abs(y));
}

/**
 * Whether the outermost query fixes the row order: an ORDER BY outside every parenthesis
 * (an ORDER BY inside a subquery in FROM or an aggregate's argument list does not) and
 * outside string literals and comments.
 *
 *   isOrdered('SELECT * FROM (SELECT a FROM t ORDER BY a LIMIT 3) s')  // false
 *   isOrdered('SELECT a FROM t UNION ALL SELECT b FROM u ORDER BY 1')   // true
 */
export function isOrdered(sql: string): boolean {
  let depth = 0;
  let top = '';
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      i = end < 0 ? sql.length : end;
      top += ' ';
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
      top += ' ';
    } else if (c === '(') depth++;
    else if (c === ')') depth--;
    else top += depth === 0 ? c : ' ';
  }
  return /\border\s+by\b/i.test(top);
}

export function sameRows(ordered: boolean, pgRows: string[][], paxdRows: string[][]): string | null {
  if (pgRows.length !== paxdRows.length) return `${paxdRows.length} rows, PostgreSQL ${pgRows.length}`;
  const key = (r: string[]) => r.join(FS);
  const a = ordered ? pgRows : [...pgRows].sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
  const b = ordered ? paxdRows : [...paxdRows].sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
  for (let i = 0; i < a.length; i++) {
    const ra = a[i]!;
    const rb = b[i]!;
    if (ra.length !== rb.length || ra.some((v, j) => !sameValue(v, rb[j]!))) return `row ${i}: paxd ${JSON.stringify(rb)}, PostgreSQL ${JSON.stringify(ra)}`;
  }
  return null;
}


/** A statement that is not a query, on PostgreSQL: its command tag (`INSERT 0 3`) or its error. */
export async function runPgCommand(pg: Postgres, sql: string): Promise<Outcome> {
  try {
    const out = await pg.query(`\\set QUIET off\n${sql}`);
    return { ok: true, rows: [], tag: out.trim() };
  } catch (e) {
    if (e instanceof PgQueryError) return { ok: false, code: e.sqlstate, message: e.message };
    throw e;
  }
}

/**
 * The differential check of one fixture statement (./differential-setup.ts `Fixture`), shared by
 * every data-driven suite: with a `-- paxd: XXXXX` line paxd must fail with that SQLSTATE;
 * otherwise paxd fails with PostgreSQL's SQLSTATE where PostgreSQL fails, or answers its rows
 * (in order when the outermost query has ORDER BY). True when both answered rows, so that a
 * suite can go on to compare more (result types).
 */
export async function checkFixture(f: { sql: string; expect: string | null }, mine: Outcome, theirs: () => Promise<Outcome>): Promise<boolean> {
  if (f.expect !== null) {
    assert.ok(!mine.ok && mine.code === f.expect, `expected paxd to fail with ${f.expect}, got ${JSON.stringify(mine).slice(0, 300)}`);
    return false;
  }
  const pg = await theirs();
  if (!pg.ok) {
    assert.ok(!mine.ok, `PostgreSQL failed with ${pg.code} (${pg.message}), paxd answered ${JSON.stringify(mine).slice(0, 300)}`);
    assert.is(mine.code, pg.code, `paxd: ${mine.message}; PostgreSQL: ${pg.message}`);
    return false;
  }
  assert.ok(mine.ok, `paxd failed with ${!mine.ok ? `${mine.code} ${mine.message}` : ''}`);
  if (!mine.ok) return false;
  const diff = sameRows(isOrdered(f.sql), pg.rows, mine.rows);
  assert.ok(diff === null, diff ?? '');
  return true;
}

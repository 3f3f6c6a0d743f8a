/**
 * The differential suite of CREATE [OR REPLACE] VIEW, DROP VIEW, CREATE TABLE AS and SELECT …
 * INTO (issue #19; src/engine/statements/view.ts, create-table-as.ts): each script in
 * fixtures/sql-views/*.sql runs statement by statement on a fresh paxd database and on the
 * shared PostgreSQL 15, and every statement must end the same way on both: the same rows for a
 * query (in order when it has ORDER BY), the same command tag for the others (`CREATE VIEW`,
 * `SELECT 3`), or the same SQLSTATE. After each view or table a statement creates, its columns
 * must have PostgreSQL's names and types (format_type over pg_attribute).
 *
 * Fixture format is ./differential.test.ts's (`-- paxd: 0A000` before a statement: paxd must
 * fail so, and PostgreSQL does not run it; paxd's `WITH (layout = …, codec = …)` is removed from
 * the text PostgreSQL runs). Relation names are unique across scripts (the
 * PostgreSQL cluster is shared).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/table/database.js';
import { fieldsOf, kindOf, parseSql } from '../../src/engine/index.js';
import { pgDisplayName } from '../../src/types/index.js';
import { startPostgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';
import pgdriver from 'pg';
import { NULL, isOrdered, runPaxd, sameRows, type Outcome } from './compare.js';

interface Step {
  sql: string;
  expect: string | null;
}

/** paxd's storage clause, which PostgreSQL does not know: removed from the text it runs. */
const PAXD_WITH = /\s+WITH\s*\(\s*(?:layout|codec)\b[^)]*\)/i;

const DIR = join(import.meta.dirname, '../../fixtures/sql-views');

function loadScript(file: string): Step[] {
  const out: Step[] = [];
  let buf: string[] = [];
  let expect: string | null = null;
  for (const line of readFileSync(join(DIR, file), 'utf8').split('\n')) {
    const m = /^--\s*paxd:\s*([0-9A-Z]{5})/.exec(line);
    if (m) expect = m[1]!;
    if (line.trim() === '' || line.startsWith('--')) continue;
    buf.push(line);
    if (line.trimEnd().endsWith(';')) {
      out.push({ sql: buf.join('\n'), expect });
      buf = [];
      expect = null;
    }
  }
  return out;
}

/** The relation a statement creates (CREATE VIEW, CREATE TABLE AS, SELECT INTO), or null. */
async function created(sql: string): Promise<string | null> {
  const [stmt] = await parseSql(sql);
  if (stmt === undefined) return null;
  const s = fieldsOf(stmt);
  switch (kindOf(stmt)) {
    case 'ViewStmt':
      return s.view.relname as string;
    case 'CreateTableAsStmt':
      return s.into.rel.relname as string;
    case 'SelectStmt':
      return (s.intoClause?.rel.relname as string | undefined) ?? null;
    default:
      return null;
  }
}

/**
 * One connection to the test cluster: each statement's rows as the server's text output (NULL
 * as `<NULL>`), its command tag as the server sent it, or its SQLSTATE.
 */
async function pgSession(): Promise<{ run(sql: string): Promise<Outcome>; close(): Promise<void> }> {
  const pg = await startPostgres();
  const client = new pgdriver.Client({ host: pg.socketDir, port: pg.port, user: 'postgres', database: 'postgres', types: { getTypeParser: () => (v: string) => v } });
  await client.connect();
  let tag = '';
  // The CommandComplete text itself (`CREATE VIEW`, `SELECT 3`): node-postgres keeps only its first word and count.
  (client as unknown as { connection: { on(e: string, f: (m: { text: string }) => void): void } }).connection.on('commandComplete', (m) => {
    tag = m.text;
  });
  return {
    async run(sql) {
      try {
        const r = await client.query({ text: sql, rowMode: 'array' });
        return { ok: true, rows: r.rows.map((row) => (row as (string | null)[]).map((v) => v ?? NULL)), tag };
      } catch (e) {
        const err = e as { code?: unknown; message: string };
        if (typeof err.code === 'string' && /^[0-9A-Z]{5}$/.test(err.code)) return { ok: false, code: err.code, message: err.message };
        throw e;
      }
    },
    close: () => client.end(),
  };
}

async function pgColumns(pg: { run(sql: string): Promise<Outcome> }, name: string): Promise<string[]> {
  const r = await pg.run(`SELECT attname || ' ' || format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = '"${name}"'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`);
  assert.ok(r.ok, `PostgreSQL's columns of ${name}`);
  return r.ok ? r.rows.map((row) => row[0]!) : [];
}

async function paxdColumns(db: Database, name: string): Promise<string[]> {
  return (await db.table(name)).fields.map((f) => `${f.name} ${pgDisplayName(f.type)}`);
}

async function isQuery(sql: string): Promise<boolean> {
  const [stmt] = await parseSql(sql);
  return stmt !== undefined && ((kindOf(stmt) === 'SelectStmt' && fieldsOf(stmt).intoClause === undefined) || kindOf(stmt) === 'ExplainStmt');
}

for (const file of readdirSync(DIR).filter((f) => f.endsWith('.sql')).sort()) {
  test(`sql-views/${file}`, async () => {
    const pg = await pgSession();
    const db = await Database.open(tempDir());
    let n = 0;
    try {
      for (const step of loadScript(file)) {
        n++;
        const mine = await runPaxd(db, step.sql);
        const where = `${file}: ${step.sql}`;
        if (step.expect !== null) {
          assert.ok(!mine.ok && mine.code === step.expect, `${where}: expected paxd to fail with ${step.expect}, got ${JSON.stringify(mine).slice(0, 300)}`);
          continue;
        }
        const query = await isQuery(step.sql);
        const theirs = await pg.run(step.sql.replace(PAXD_WITH, ''));
        if (!theirs.ok) {
          assert.ok(!mine.ok, `${where}: PostgreSQL failed with ${theirs.code} (${theirs.message}), paxd answered ${JSON.stringify(mine).slice(0, 300)}`);
          assert.is(mine.code, theirs.code, `${where}: paxd: ${mine.message}; PostgreSQL: ${theirs.message}`);
          continue;
        }
        assert.ok(mine.ok, `${where}: paxd failed with ${!mine.ok ? `${mine.code} ${mine.message}` : ''}`);
        if (!mine.ok) continue;
        if (query) {
          const diff = sameRows(isOrdered(step.sql), theirs.rows, mine.rows);
          assert.ok(diff === null, `${where}: ${diff ?? ''}`);
          continue;
        }
        assert.is(mine.tag, theirs.tag, where);
        const name = await created(step.sql);
        if (name !== null) assert.equal(await paxdColumns(db, name), await pgColumns(pg, name), `${where}: columns`);
      }
    } finally {
      await db.close();
      await pg.close();
    }
    assert.ok(n > 0, `${file} has statements`);
  });
}

test.run();

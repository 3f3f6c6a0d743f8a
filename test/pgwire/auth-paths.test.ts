/**
 * Paths stay inside the store (issue #18): COPY to or from a server file or program over the
 * wire is refused as PostgreSQL refuses it to a user who is not superuser (every paxd user;
 * is_superuser is off): 42501, the same message and hint, checked against PostgreSQL 15. No
 * file is read or written.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';

let db: Database;
let srv: RunningServer;
let postgres: Postgres;
const ROLE = 'paxd_paths_nonsuper';

test.before(async () => {
  postgres = await startPostgres();
  await postgres.query(`DROP TABLE IF EXISTS paths_t; CREATE TABLE paths_t (id int4); DROP ROLE IF EXISTS ${ROLE}; CREATE ROLE ${ROLE} LOGIN; GRANT ALL ON paths_t TO ${ROLE}`);
  db = await Database.open(tempDir());
  await db.createTable('paths_t', [{ name: 'id', type: 'int4' }]);
  srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
});

test.after(async () => {
  await srv.close();
  await db.close();
  await postgres.query(`DROP TABLE IF EXISTS paths_t; DROP ROLE IF EXISTS ${ROLE}`);
});

interface Refusal {
  code: string;
  message: string;
  hint: string | undefined;
}

async function refusal(host: string, port: number, user: string, sql: string): Promise<Refusal | 'ok'> {
  const c = new pg.Client({ host, port, user, database: port === postgres.port ? 'postgres' : 'paxd' });
  await c.connect();
  try {
    await c.query(sql);
    return 'ok';
  } catch (e) {
    const x = e as { code: string; message: string; hint?: string };
    return { code: x.code, message: x.message, hint: x.hint };
  } finally {
    await c.end();
  }
}

test('COPY FROM/TO a server file or program: 42501 as PostgreSQL answers a non-superuser; nothing touched', async () => {
  const out = join(tempDir(), 'written-by-copy');
  const cases = [
    `COPY paths_t FROM '/etc/passwd'`,
    `COPY paths_t (id) FROM '/etc/hostname' WITH (FORMAT csv)`,
    `COPY paths_t TO '${out}'`,
    `COPY (SELECT 1) TO '${out}'`,
    `COPY paths_t FROM PROGRAM 'id'`,
    `COPY paths_t TO PROGRAM 'cat > ${out}'`,
  ];
  for (const sql of cases) {
    const want = await refusal(postgres.host, postgres.port, ROLE, sql);
    const got = await refusal('127.0.0.1', srv.port, ROLE, sql);
    assert.not.equal(want, 'ok', `PostgreSQL refuses ${sql}`);
    assert.equal(got, want, sql);
    assert.is((got as Refusal).code, '42501', sql);
  }
  assert.not.ok(existsSync(out), 'no file written');
  // STDIN and STDOUT stay open to anyone.
  assert.is(await refusal('127.0.0.1', srv.port, ROLE, 'COPY paths_t TO STDOUT'), 'ok');
});

test('table names never reach outside the store: CREATE, SELECT, INSERT, DROP of "../x" fail, and no file appears', async () => {
  const root = tempDir();
  const own = await Database.open(join(root, 'store'));
  const server = await startServer({ db: own, port: 0, auth: { method: 'trust' } });
  try {
    for (const sql of ['CREATE TABLE "../escaped" (id int4)', 'CREATE TABLE "a/b" (id int4)', 'SELECT * FROM "../../etc"', 'INSERT INTO "../escaped" VALUES (1)', 'DROP TABLE "../escaped"', 'CREATE TABLE ".hidden" (id int4)']) {
      const r = await refusal('127.0.0.1', server.port, 'u', sql);
      assert.not.equal(r, 'ok', sql);
      assert.ok(['22023', '42P01', '42602'].includes((r as Refusal).code), `${sql}: ${JSON.stringify(r)}`);
    }
    assert.not.ok(existsSync(join(root, 'escaped')), 'nothing beside the store');
  } finally {
    await server.close();
    await own.close();
  }
});

test.run();

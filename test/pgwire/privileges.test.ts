/**
 * Roles and privileges beside PostgreSQL 15 (issue #18): one GRANT/REVOKE/CREATE ROLE script,
 * each statement run by a superuser or by a plain role, against a real cluster and against
 * paxd's wire server, compared statement by statement: the SQLSTATE and message of each error,
 * the command and rows of each success. Every refusal is also run through the extended protocol
 * (a named prepared statement) and must fail the same way there (COPY but not: paxd refuses any
 * COPY in the extended protocol with 0A000); COPY FROM STDIN goes through psql on both sides.
 *
 * paxd runs with trust on loopback, where a user name that is no role is a superuser (the
 * daemon's own, as `admin` below), and a role created by the script has exactly its rights.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { userInfo } from 'node:os';
import pg from 'pg';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';

let dir: string;
let db: Database;
let srv: RunningServer;
let postgres: Postgres;
/** PostgreSQL's superuser: the OS user, or postgres when the tests run as root (initdb refuses root). */
const PG_SUPER = userInfo().username === 'root' ? 'postgres' : userInfo().username;

type Who = 'su' | 'r' | 's';
const ROLE: Record<Who, string> = { su: '', r: 'priv_r', s: 'priv_s' };

/** The script: who runs what. `x`: a refusal, also run through the extended protocol. */
const SCRIPT: [Who, string][] = [
  ['su', 'CREATE TABLE priv_t (id int4)'],
  ['su', 'CREATE TABLE priv_u (id int4)'],
  ['su', 'INSERT INTO priv_t VALUES (1)'],
  ['su', 'INSERT INTO priv_u VALUES (10)'],
  ['su', 'CREATE ROLE priv_r LOGIN'],
  ['su', 'CREATE USER priv_s'],
  ['su', 'CREATE ROLE priv_r'],
  ['su', 'CREATE ROLE pg_priv'],
  ['su', 'CREATE ROLE public'],
  ['r', 'SELECT * FROM priv_t'],
  ['r', 'INSERT INTO priv_t VALUES (2)'],
  ['r', 'UPDATE priv_t SET id = 2'],
  ['r', 'DELETE FROM priv_t WHERE id = 1'],
  ['r', 'TRUNCATE priv_t'],
  ['r', 'CREATE TABLE priv_v (id int4)'],
  ['r', 'DROP TABLE priv_t'],
  ['r', 'ALTER TABLE priv_t ADD COLUMN x int4'],
  ['r', "COPY priv_t FROM '/etc/passwd'"],
  ['r', 'COPY priv_t TO STDOUT'],
  ['r', 'EXPLAIN SELECT * FROM priv_t'],
  ['r', 'CREATE ROLE priv_q'],
  ['r', 'DROP ROLE priv_s'],
  ['r', "ALTER ROLE priv_s PASSWORD 'x'"],
  ['r', 'ALTER ROLE priv_r SUPERUSER'],
  ['r', 'ALTER ROLE nosuch LOGIN'],
  ['r', 'GRANT SELECT ON priv_t TO priv_s'],
  ['r', 'GRANT pg_read_all_data TO priv_s'],
  ['su', 'GRANT SELECT ON priv_t TO priv_r'],
  ['r', 'SELECT * FROM priv_t'],
  ['r', 'SELECT id FROM priv_t WHERE id IN (SELECT id FROM priv_u)'],
  ['r', 'SELECT * FROM priv_u'],
  ['r', 'INSERT INTO priv_t VALUES (2)'],
  ['r', 'INSERT INTO priv_u SELECT * FROM priv_t'],
  ['su', 'GRANT INSERT, UPDATE ON TABLE priv_t TO priv_r'],
  ['r', 'INSERT INTO priv_t VALUES (2)'],
  ['r', 'UPDATE priv_t SET id = id + 1 WHERE id = 2'],
  ['r', 'DELETE FROM priv_t'],
  ['su', 'REVOKE SELECT ON priv_t FROM priv_r'],
  ['r', 'SELECT count(*) FROM priv_t'],
  ['r', 'INSERT INTO priv_t VALUES (4)'],
  ['r', 'UPDATE priv_t SET id = 5 WHERE id = 4'],
  ['r', 'UPDATE priv_t SET id = 5'],
  ['su', 'GRANT SELECT ON priv_t TO nosuch'],
  ['su', 'GRANT SELECT ON nosuch TO priv_r'],
  ['su', 'GRANT CREATE ON priv_t TO priv_r'],
  ['su', 'GRANT SELECT ON ALL TABLES IN SCHEMA nosuch TO priv_r'],
  ['su', 'GRANT SELECT ON ALL TABLES IN SCHEMA public TO priv_r'],
  ['r', 'SELECT * FROM priv_u'],
  ['su', 'GRANT CREATE ON SCHEMA public TO priv_r'],
  ['r', 'CREATE TABLE priv_v (id int4)'],
  ['r', 'INSERT INTO priv_v VALUES (7)'],
  ['r', 'SELECT * FROM priv_v'],
  ['s', 'SELECT * FROM priv_v'],
  ['r', 'GRANT SELECT ON priv_v TO priv_s'],
  ['s', 'SELECT * FROM priv_v'],
  ['s', 'DROP TABLE priv_v'],
  ['r', 'DROP TABLE priv_v'],
  ['r', 'CREATE TABLE priv_w (id int4)'],
  ['r', 'REASSIGN OWNED BY priv_r TO priv_s'],
  ['r', 'DROP OWNED BY priv_s'],
  ['r', 'DROP OWNED BY nosuch'],
  ['su', 'REASSIGN OWNED BY priv_r TO priv_s'],
  ['r', 'DROP TABLE priv_w'],
  ['s', 'INSERT INTO priv_w VALUES (1)'],
  ['su', 'REASSIGN OWNED BY priv_s TO priv_r'],
  ['r', 'INSERT INTO priv_w VALUES (2)'],
  ['su', 'GRANT SELECT ON priv_w TO priv_s'],
  ['su', 'DROP ROLE priv_r'],
  ['r', 'DROP OWNED BY priv_r'],
  ['r', 'SELECT * FROM priv_u'],
  ['s', 'SELECT * FROM priv_w'],
  ['su', 'DROP ROLE priv_r'],
  ['su', 'DROP OWNED BY priv_r'],
  ['r', 'SELECT * FROM priv_u'],
  ['su', 'DROP ROLE priv_r'],
  ['su', 'DROP ROLE priv_r'],
  ['su', 'DROP ROLE IF EXISTS priv_r'],
  ['s', 'SELECT * FROM priv_t'],
  ['su', 'GRANT pg_read_all_data TO priv_s'],
  ['s', 'SELECT * FROM priv_t ORDER BY id'],
  ['s', 'SELECT count(*) FROM priv_u'],
  ['s', 'INSERT INTO priv_t VALUES (9)'],
  ['s', 'TRUNCATE priv_u'],
  ['su', 'REVOKE pg_read_all_data FROM priv_s'],
  ['s', 'SELECT * FROM priv_t'],
  ['su', 'GRANT SELECT ON priv_t TO PUBLIC'],
  ['s', 'SELECT count(*) FROM priv_t'],
  ['su', 'REVOKE SELECT ON priv_t FROM PUBLIC'],
  ['s', 'SELECT count(*) FROM priv_t'],
];

type Outcome = { ok: string; rows: unknown[] } | { code: string; message: string };

async function run(c: pg.Client, sql: string, name?: string): Promise<Outcome> {
  try {
    const r = await c.query(name === undefined ? sql : { name, text: sql });
    return { ok: r.command, rows: r.rows.map((x) => Object.values(x as object).map(String)) };
  } catch (e) {
    const x = e as { code: string; message: string };
    return { code: x.code, message: x.message };
  }
}

/** COPY priv_t FROM STDIN through psql, as `user`: its error line, or 'ok'. Asynchronous: the paxd side is this process. */
async function copyIn(host: string, port: number, user: string, database: string): Promise<string> {
  const child = spawn(
    'psql',
    ['-X', '-q', '-v', 'VERBOSITY=verbose', '-h', host, '-p', String(port), '-U', user, '-d', database, '-c', 'COPY priv_t FROM STDIN'],
    {
      env: { ...process.env, PGCONNECT_TIMEOUT: '10' },
    },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.resume();
  child.stdin.end('42\n');
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const line = stderr.split('\n').find((l) => l.startsWith('ERROR:'));
  return line ?? (status === 0 ? 'ok' : `psql exited ${status}: ${stderr}`);
}

test.before(async () => {
  postgres = await startPostgres();
  await postgres.query('DROP TABLE IF EXISTS priv_t, priv_u, priv_v; DROP ROLE IF EXISTS priv_r; DROP ROLE IF EXISTS priv_s');
  dir = tempDir();
  db = await Database.open(dir);
  srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
});

test.after(async () => {
  await srv.close();
  await db.close();
});

test('a GRANT/REVOKE/CREATE ROLE script: the same SQLSTATEs, messages and rows as PostgreSQL 15, statement by statement, simple and extended protocol', async () => {
  const clients = async (host: string, port: number, su: string, database: string) => {
    const open = async (user: string) => {
      const c = new pg.Client({ host, port, user, database });
      await c.connect();
      return c;
    };
    return { su: await open(su), r: null as pg.Client | null, s: null as pg.Client | null, open };
  };
  const want = await clients(postgres.host, postgres.port, PG_SUPER, 'postgres');
  const got = await clients('127.0.0.1', srv.port, 'admin', 'paxd');
  let refusals = 0;
  let i = 0;
  try {
    for (const [who, sql] of SCRIPT) {
      i++;
      const side = async (c: typeof want) => {
        if (who !== 'su' && c[who] === null) c[who] = await c.open(ROLE[who]);
        return c[who]!;
      };
      const w = await run(await side(want), sql);
      const g = await run(await side(got), sql);
      assert.equal(g, w, `#${i} ${who}: ${sql}`);
      refusals += 'code' in w ? 1 : 0;
      // COPY through the extended protocol is 0A000 in paxd before anything else (docs/WIRE.md), whatever its target.
      if ('code' in w && !sql.startsWith('COPY')) {
        const we = await run(await side(want), sql, `p${i}`);
        const ge = await run(await side(got), sql, `p${i}`);
        assert.equal(ge, we, `#${i} ${who} (extended protocol): ${sql}`);
      }
    }
  } finally {
    for (const c of [want, got]) for (const k of ['su', 'r', 's'] as const) await c[k]?.end();
  }
  assert.ok(refusals >= 30, `${refusals} refusals compared`);
});

test('COPY FROM STDIN (psql): 42501 without INSERT, the same line as PostgreSQL; loads with it', async () => {
  for (const sql of ['DROP ROLE IF EXISTS priv_c', 'CREATE ROLE priv_c LOGIN', 'GRANT SELECT ON priv_t TO priv_c']) {
    await postgres.query(sql);
    await run(await connectAs('admin'), sql);
  }
  const want = await copyIn(postgres.host, postgres.port, 'priv_c', 'postgres');
  const got = await copyIn('127.0.0.1', srv.port, 'priv_c', 'paxd');
  assert.is(want, 'ERROR:  42501: permission denied for table priv_t');
  assert.is(got, want);
  await postgres.query('GRANT INSERT ON priv_t TO priv_c');
  await run(await connectAs('admin'), 'GRANT INSERT ON priv_t TO priv_c');
  assert.is(await copyIn('127.0.0.1', srv.port, 'priv_c', 'paxd'), 'ok');
  assert.is(await copyIn(postgres.host, postgres.port, 'priv_c', 'postgres'), 'ok');
  const c = await connectAs('admin');
  assert.equal((await c.query('SELECT count(*)::int4 AS n FROM priv_t WHERE id = 42')).rows, [{ n: 1 }]);
  await c.end();
});

const opened: pg.Client[] = [];
async function connectAs(user: string): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port: srv.port, user, database: 'paxd' });
  await c.connect();
  opened.push(c);
  return c;
}

test('roles and grants are in the store: a new Database over the same folder sees them', async () => {
  await Promise.all(opened.splice(0).map((c) => c.end().catch(() => undefined)));
  const { roleCatalogOf } = await import('../../src/table/index.js');
  const other = await Database.open(dir);
  const state = await roleCatalogOf(other.store).current();
  assert.ok(other.store !== db.store);
  assert.equal(Object.keys(state.roles).sort(), ['priv_c', 'priv_s']);
  assert.equal(state.tables.priv_t?.grants.priv_c, ['INSERT', 'SELECT']);
  await other.close();
});

test.run();

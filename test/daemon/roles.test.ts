/**
 * Role rights through every front door of `paxd serve` (issue #18, Done-when 4): a read-only
 * role gets 42501 on INSERT, UPDATE, DELETE, TRUNCATE, COPY FROM STDIN, DDL and server-file COPY,
 * over the wire (node-postgres, simple and extended protocol, and psql) and over HTTP (/v1/sql
 * and the ingest route), and its SELECT works; nothing it tried is committed. Three read-only
 * roles, made the three ways a team may make one: `"read_only": true` in the users file,
 * `--read-only-users`, and `CREATE ROLE … LOGIN PASSWORD` with `GRANT SELECT`. The role made in
 * SQL and its grant are in the store: after a restart it still logs in, still only reads.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Database } from '../../src/table/database.js';
import { scramVerifier } from '../../src/table/index.js';
import { parseColumns } from '../../src/types/parse-type.js';
import { tempDir } from '../support/tmp.js';
import { serveCli, stopCli, type Served } from './serve.js';

const PASSWORD: Record<string, string> = { admin: 'admin-pw', dashboard: 'dash-pw', grafana: 'graf-pw', reader: 'reader-pw' };
const READ_ONLY = ['dashboard', 'grafana', 'reader'];

let data: string;
let usersFile: string;
let served: Served;

async function start(): Promise<Served> {
  return serveCli(data, ['--users', usersFile, '--read-only-users', 'grafana', '--listen', '127.0.0.1:0']);
}

async function client(user: string): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port: served.wirePort!, user, password: PASSWORD[user]!, database: 'paxd' });
  await c.connect();
  return c;
}

/** 'ok', or `SQLSTATE message`. */
async function wire(c: pg.Client, sql: string, values?: unknown[]): Promise<string> {
  try {
    await c.query(sql, values);
    return 'ok';
  } catch (e) {
    const x = e as { code: string; message: string };
    return `${x.code} ${x.message}`;
  }
}

function auth(user: string): Record<string, string> {
  return { Authorization: `Basic ${Buffer.from(`${user}:${PASSWORD[user]!}`).toString('base64')}` };
}

/** `status SQLSTATE message` of a /v1/sql or ingest request. */
async function http(user: string, path: string, body: string, type = 'text/plain'): Promise<string> {
  const r = await fetch(`${served.base}${path}`, { method: 'POST', headers: { ...auth(user), 'Content-Type': type, Accept: 'application/json' }, body });
  const j = (await r.json()) as { error?: { sqlstate: string; message: string } };
  return j.error === undefined ? `${r.status}` : `${r.status} ${j.error.sqlstate} ${j.error.message}`;
}

async function count(): Promise<string> {
  const c = await client('admin');
  try {
    return String((await c.query('SELECT count(*) AS n FROM t')).rows[0].n);
  } finally {
    await c.end();
  }
}

const DENIED_T = '42501 permission denied for table t';
/** What each read-only role is refused over the wire, and with what. */
const WIRE_CASES: [string, string][] = [
  ['INSERT INTO t VALUES (2)', DENIED_T],
  ['UPDATE t SET id = 3', DENIED_T],
  ['DELETE FROM t', DENIED_T],
  ['TRUNCATE t', DENIED_T],
  ['CREATE TABLE x (id int4)', '42501 permission denied for schema public'],
  ['DROP TABLE t', '42501 must be owner of table t'],
  ['ALTER TABLE t ADD COLUMN y int4', '42501 must be owner of table t'],
  ["COPY t FROM '/etc/hostname'", '42501 must be superuser or have privileges of the pg_read_server_files role to COPY from a file'],
  ["COPY t TO '/tmp/paxd-roles-test-out'", '42501 must be superuser or have privileges of the pg_write_server_files role to COPY to a file'],
  ['CREATE ROLE sneaky LOGIN', '42501 permission denied to create role'],
];

test.before(async () => {
  data = tempDir();
  const db = await Database.open(data);
  await db.createTable('t', parseColumns('id int8'));
  await db.close();
  usersFile = join(tempDir(), 'users.json');
  writeFileSync(
    usersFile,
    JSON.stringify({
      users: {
        admin: scramVerifier(PASSWORD.admin!),
        dashboard: { password: scramVerifier(PASSWORD.dashboard!), read_only: true },
        grafana: scramVerifier(PASSWORD.grafana!),
      },
    }),
  );
  served = await start();
  const admin = await client('admin');
  for (const sql of ['INSERT INTO t VALUES (1)', `CREATE ROLE reader LOGIN PASSWORD '${PASSWORD.reader}'`, 'GRANT SELECT ON t TO reader'])
    assert.is(await wire(admin, sql), 'ok', sql);
  await admin.end();
});

test.after(async () => {
  await stopCli(served);
});

test('wire (node-postgres): each read-only role SELECTs, and gets 42501 for writes, DDL and server-file COPY, simple and extended protocol', async () => {
  for (const user of READ_ONLY) {
    const c = await client(user);
    try {
      assert.equal((await c.query('SELECT count(*) AS n FROM t')).rows, [{ n: '1' }], `${user}: SELECT`);
      assert.equal((await c.query('SELECT id FROM t WHERE id = $1', [1])).rows, [{ id: '1' }], `${user}: SELECT, extended`);
      for (const [sql, want] of WIRE_CASES) assert.is(await wire(c, sql), want, `${user}: ${sql}`);
      assert.is(await wire(c, 'INSERT INTO t VALUES ($1)', [5]), DENIED_T, `${user}: INSERT, extended`);
      assert.is(await wire(c, 'UPDATE t SET id = $1', [5]), DENIED_T, `${user}: UPDATE, extended`);
      // A role with a privilege but no grant option grants nothing (PostgreSQL warns "no privileges were granted").
      assert.is(await wire(c, `GRANT INSERT ON t TO ${user}`), 'ok', `${user}: GRANT`);
      assert.is(await wire(c, 'INSERT INTO t VALUES (2)'), DENIED_T, `${user}: INSERT after its own GRANT`);
    } finally {
      await c.end();
    }
  }
  // The superuser is not refused: the checks are the role's, not the door's.
  const admin = await client('admin');
  assert.is(await wire(admin, 'CREATE TABLE scratch (id int4)'), 'ok');
  assert.is(await wire(admin, 'DROP TABLE scratch'), 'ok');
  await admin.end();
  assert.is(await count(), '1', 'nothing the read-only roles tried was committed');
});

test('psql: COPY FROM STDIN, \\copy, INSERT, DDL and server-file COPY are 42501 for a read-only role; its SELECT works', async () => {
  const psql = (user: string, commands: string[], input = '') => {
    const args = ['-X', '-A', '-t', '-v', 'VERBOSITY=verbose', '-h', '127.0.0.1', '-p', String(served.wirePort), '-U', user, '-d', 'paxd'];
    for (const c of commands) args.push('-c', c);
    const r = spawnSync('psql', args, { input, encoding: 'utf8', env: { ...process.env, PGPASSWORD: PASSWORD[user]!, PGCONNECT_TIMEOUT: '10' } });
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('ERROR:'));
    return { out: r.stdout.trim(), errors, stderr: r.stderr };
  };
  for (const user of READ_ONLY) {
    const a = psql(user, ['SELECT count(*) FROM t', 'INSERT INTO t VALUES (8)', 'CREATE TABLE y (id int4)', "COPY t FROM '/etc/hostname'"]);
    assert.is(a.out, '1', `${user}: SELECT answered (${a.stderr})`);
    assert.equal(
      a.errors,
      [
        'ERROR:  42501: permission denied for table t',
        'ERROR:  42501: permission denied for schema public',
        'ERROR:  42501: must be superuser or have privileges of the pg_read_server_files role to COPY from a file',
      ],
      `${user}: ${a.stderr}`,
    );
    assert.equal(psql(user, ['COPY t FROM STDIN'], '7\n').errors, ['ERROR:  42501: permission denied for table t'], `${user}: COPY FROM STDIN`);
    assert.equal(psql(user, ['\\copy t from stdin'], '9\n').errors, ['ERROR:  42501: permission denied for table t'], `${user}: \\copy`);
  }
  assert.equal(psql('admin', ['COPY t FROM STDIN'], '7\n').errors, [], 'the superuser copies in');
  assert.is(await count(), '2');
  assert.equal(psql('admin', ['DELETE FROM t WHERE id = 7']).errors, []);
  assert.is(await count(), '1');
});

test('HTTP: a read-only role queries /v1/sql, and gets 403 with 42501 for INSERT, DDL, server-file COPY and the ingest route', async () => {
  for (const user of READ_ONLY) {
    assert.is(await http(user, '/v1/sql', 'SELECT count(*) FROM t'), '200', `${user}: SELECT`);
    assert.is(await http(user, '/v1/sql', 'INSERT INTO t VALUES (2)'), `403 ${DENIED_T}`, `${user}: INSERT`);
    assert.is(await http(user, '/v1/sql', 'DELETE FROM t'), `403 ${DENIED_T}`, `${user}: DELETE`);
    assert.is(await http(user, '/v1/sql', 'CREATE TABLE z (id int4)'), '403 42501 permission denied for schema public', `${user}: CREATE TABLE`);
    assert.is(await http(user, '/v1/sql', 'DROP TABLE t'), '403 42501 must be owner of table t', `${user}: DROP TABLE`);
    assert.is(
      await http(user, '/v1/sql', "COPY t FROM '/etc/hostname'"),
      '403 42501 must be superuser or have privileges of the pg_read_server_files role to COPY from a file',
      `${user}: server-file COPY`,
    );
    assert.is(await http(user, '/v1/tables/t/rows', '2\n3\n', 'text/csv'), `403 ${DENIED_T}`, `${user}: ingest`);
  }
  assert.is(await http('admin', '/v1/tables/t/rows', 'id\n2\n', 'text/csv'), '200', 'the superuser loads');
  assert.is(await count(), '2');
  assert.is(await http('admin', '/v1/sql', 'DELETE FROM t WHERE id = 2'), '200');
});

test('a role made in SQL, and its grant, survive a restart: it logs in over the wire and HTTP and still only reads', async () => {
  await stopCli(served);
  served = await start();
  const c = await client('reader');
  try {
    assert.equal((await c.query('SELECT count(*) AS n FROM t')).rows, [{ n: '1' }]);
    assert.is(await wire(c, 'INSERT INTO t VALUES (2)'), DENIED_T);
  } finally {
    await c.end();
  }
  assert.is(await http('reader', '/v1/sql', 'SELECT count(*) FROM t'), '200');
  assert.is(await http('reader', '/v1/sql', 'INSERT INTO t VALUES (2)'), `403 ${DENIED_T}`);
  // Dropped, it can no longer log in, on either door.
  const admin = await client('admin');
  assert.is(await wire(admin, 'REVOKE ALL ON t FROM reader'), 'ok');
  assert.is(await wire(admin, 'DROP ROLE reader'), 'ok');
  await admin.end();
  const login = await client('reader').then(
    async (c) => {
      await c.end();
      return 'ok';
    },
    (e: { code?: string }) => e.code,
  );
  assert.is(login, '28P01');
  assert.is((await fetch(`${served.base}/v1/sql`, { method: 'POST', headers: auth('reader'), body: 'SELECT 1' })).status, 401);
});

test('under --auth trust (loopback), a read-only name gets its rights on both doors: psql -U grafana and HTTP Basic grafana are refused writes', async () => {
  const trusted = await serveCli(data, ['--auth', 'trust', '--read-only-users', 'grafana', '--listen', '127.0.0.1:0']);
  try {
    const c = new pg.Client({ host: '127.0.0.1', port: trusted.wirePort!, user: 'grafana', database: 'paxd' });
    await c.connect();
    try {
      assert.equal((await c.query('SELECT count(*) AS n FROM t')).rows, [{ n: '1' }]);
      assert.is(await wire(c, 'INSERT INTO t VALUES (2)'), DENIED_T);
    } finally {
      await c.end();
    }
    const post = async (headers: Record<string, string>, body: string) => {
      const r = await fetch(`${trusted.base}/v1/sql`, { method: 'POST', headers: { Accept: 'application/json', ...headers }, body });
      const j = (await r.json()) as { error?: { sqlstate: string } };
      return `${r.status}${j.error === undefined ? '' : ` ${j.error.sqlstate}`}`;
    };
    const grafana = { Authorization: `Basic ${Buffer.from('grafana:').toString('base64')}` };
    assert.is(await post(grafana, 'SELECT count(*) FROM t'), '200');
    assert.is(await post(grafana, 'INSERT INTO t VALUES (2)'), '403 42501');
    assert.is(await post({}, 'SELECT count(*) FROM t'), '200', 'no name: trust as before');
  } finally {
    await stopCli(trusted);
  }
});

test.run();

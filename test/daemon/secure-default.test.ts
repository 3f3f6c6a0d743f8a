/**
 * Nothing is open by default (issue #18, Done-when 3): a fresh `paxd serve` with no users and no
 * `--auth` makes a `paxd` superuser with a generated password, kept in a file of mode 0600 in
 * the store's folder whose path (never the password) it prints; a password-less connection is
 * refused over the wire and over HTTP, and the password works on both. Trust must be asked for,
 * and only on loopback; an empty users file is refused.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { spawnSync } from 'node:child_process';
import { Database } from '../../src/table/database.js';
import { parseColumns } from '../../src/types/parse-type.js';
import { runCli } from '../support/spawn.js';
import { tempDir } from '../support/tmp.js';
import { serveCli, stopCli } from './serve.js';

async function store(): Promise<string> {
  const dir = tempDir();
  const db = await Database.open(dir);
  await db.createTable('t', parseColumns('id int8'));
  await db.close();
  return dir;
}

/** A wire login and a query; the SQLSTATE (or the driver's message) when refused. */
async function wire(port: number, user: string, password: string | undefined): Promise<string> {
  const c = new pg.Client({ host: '127.0.0.1', port, user, database: 'paxd', ...(password !== undefined ? { password } : {}) });
  try {
    await c.connect();
    await c.query('SELECT count(*) FROM t');
    return 'ok';
  } catch (e) {
    return (e as { code?: string }).code ?? (e as Error).message;
  } finally {
    await c.end().catch(() => undefined);
  }
}

function basic(user: string, password: string): Record<string, string> {
  return { Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}

async function httpSql(base: string, headers: Record<string, string> = {}): Promise<number> {
  const r = await fetch(`${base}/v1/sql`, { method: 'POST', headers: { Accept: 'application/json', ...headers }, body: 'SELECT count(*) FROM t' });
  await r.arrayBuffer();
  return r.status;
}

test('a fresh paxd serve with no flags: generated password (0600, path printed), nothing password-less over wire or HTTP', async () => {
  const data = await store();
  const file = join(data, '.paxd-password');
  const s = await serveCli(data, ['--listen', '127.0.0.1:0'], {}, { trust: false });
  let password: string;
  try {
    assert.match(s.out(), `paxd: no users configured: created user "paxd" with a generated password, in ${file} (mode 0600`);
    assert.is(statSync(file).mode & 0o777, 0o600, 'password file mode');
    assert.is(statSync(join(data, '.paxd-users.json')).mode & 0o777, 0o600, 'users file mode');
    password = readFileSync(file, 'utf8').trim();
    assert.ok(password.length >= 24, 'a long password');
    assert.not.match(s.out(), password, 'the password is never printed or logged');

    // No password (psql -w: the server asks for one, and there is none), a wrong one: refused.
    const noPassword = spawnSync('psql', ['-X', '-w', '-At', '-h', '127.0.0.1', '-p', String(s.wirePort), '-U', 'paxd', '-d', 'paxd', '-c', 'select 1'], {
      encoding: 'utf8',
      env: { ...process.env, PGPASSWORD: '', PGPASSFILE: '/dev/null' },
    });
    assert.is.not(noPassword.status, 0);
    assert.match(noPassword.stderr, 'fe_sendauth: no password supplied');
    assert.is(await wire(s.wirePort!, 'paxd', 'guess'), '28P01');
    assert.is(await wire(s.wirePort!, 'postgres', password), '28P01', 'no other user');
    assert.is(await wire(s.wirePort!, 'paxd', password), 'ok');
    // And over HTTP: every route but /health and /ready.
    assert.is(await httpSql(s.base), 401);
    assert.is(await httpSql(s.base, basic('paxd', 'guess')), 401);
    assert.is((await fetch(`${s.base}/metrics`)).status, 401);
    assert.is((await fetch(`${s.base}/health`)).status, 200);
    assert.is(await httpSql(s.base, basic('paxd', password)), 200);
  } finally {
    await stopCli(s);
  }

  // The next start keeps the password; once its file is removed, logins still work (the
  // verifier is in .paxd-users.json), and no new password is made.
  rmSync(file);
  const again = await serveCli(data, ['--listen', '127.0.0.1:0'], {}, { trust: false });
  try {
    assert.match(again.out(), `user "paxd" (generated; password file ${file} removed)`);
    assert.not.ok(existsSync(file));
    assert.is(await wire(again.wirePort!, 'paxd', password), 'ok');
    assert.is(await httpSql(again.base, basic('paxd', password)), 200);
  } finally {
    await stopCli(again);
  }
});

test('trust only when asked for, and only on loopback, for wire and HTTP alike', async () => {
  const data = await store();
  const s = await serveCli(data, ['--listen', '127.0.0.1:0', '--auth', 'trust']);
  try {
    assert.is(await wire(s.wirePort!, 'anyone', undefined), 'ok');
    assert.is(await httpSql(s.base), 200);
    assert.not.ok(existsSync(join(data, '.paxd-password')), 'no password made for trust');
  } finally {
    await stopCli(s);
  }
  for (const [args, what] of [
    [['--listen', '0.0.0.0:0', '--http', 'off'], /refusing to listen on 0\.0\.0\.0 with trust authentication/],
    [['--listen', 'off', '--http', '0.0.0.0:0'], /refusing to serve HTTP on 0\.0\.0\.0 with trust authentication/],
  ] as const) {
    const r = await runCli(['serve', '--data', data, '--auth', 'trust', ...args]);
    assert.is.not(r.code, 0);
    assert.match(r.stderr, what);
  }
  // The config file's auth_method is the same ask.
  const cfg = join(tempDir(), 'paxd.json');
  writeFileSync(cfg, JSON.stringify({ auth_method: 'trust', listen: '0.0.0.0:0', http: 'off' }));
  const r = await runCli(['serve', '--data', data, '--config', cfg]);
  assert.is.not(r.code, 0);
  assert.match(r.stderr, /refusing to listen on 0\.0\.0\.0 with trust/);
});

test('the generated user alone does not open HTTP off loopback; the wire may listen there (SCRAM)', async () => {
  const data = await store();
  const r = await runCli(['serve', '--data', data, '--listen', 'off', '--http', '0.0.0.0:0']);
  assert.is.not(r.code, 0);
  assert.match(r.stderr, /refusing to serve HTTP on 0\.0\.0\.0 without configured users/);
  assert.not.ok(existsSync(join(data, '.paxd-password')), 'refused before any password is made');
  const s = await serveCli(data, ['--listen', '0.0.0.0:0', '--http', '127.0.0.1:0'], {}, { trust: false });
  try {
    const password = readFileSync(join(data, '.paxd-password'), 'utf8').trim();
    assert.is(await wire(s.wirePort!, 'paxd', 'guess'), '28P01');
    assert.is(await wire(s.wirePort!, 'paxd', password), 'ok');
  } finally {
    await stopCli(s);
  }
});

test('an empty users file is refused, not taken for trust', async () => {
  const data = await store();
  for (const text of ['{}', '{"users": {}}']) {
    const file = join(tempDir(), 'users.json');
    writeFileSync(file, text);
    const r = await runCli(['serve', '--data', data, '--listen', '127.0.0.1:0', '--http', 'off', '--users', file]);
    assert.is.not(r.code, 0, text);
    assert.match(r.stderr, `users file ${file} has no users: nobody could log in`, text);
    assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
});

test('an S3 store keeps its generated password in a local state folder (--state-dir, or one named after the store)', async () => {
  const { stateDir } = await import('../../src/daemon/bootstrap.js');
  assert.is(stateDir('/srv/data', null), '/srv/data');
  assert.is(stateDir('s3://b/p', '/var/lib/paxd'), '/var/lib/paxd');
  const a = stateDir('s3://bucket/a', null, { XDG_STATE_HOME: '/st' });
  assert.match(a, /^\/st\/paxd\/[0-9a-f]{16}$/);
  assert.is.not(stateDir('s3://bucket/b', null, { XDG_STATE_HOME: '/st' }), a, 'one folder per store');
  assert.match(stateDir('s3://bucket/a', null, { HOME: '/h' }), /\/\.local\/state\/paxd\/[0-9a-f]{16}$/);
});

test.run();

/**
 * Authentication with real clients (docs/WIRE.md): SCRAM-SHA-256 through node-postgres and psql,
 * md5 when configured, 28P01 that never tells whether a user exists, trust refused off
 * loopback, the authentication timeout, malformed SASL messages.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Database } from '../../src/table/database.js';
import { md5Verifier, scramVerifier, serveAuthConfig, startServer, type RunningServer } from '../../src/pgwire/index.js';
import { tempDir } from '../support/tmp.js';
import { errorFieldsOf, fe, msg, RawClient, splitReplies } from './client.js';

let db: Database;
let srv: RunningServer;
let md5srv: RunningServer;

test.before(async () => {
  db = await Database.open(tempDir());
  await db.createTable('t', [{ name: 'id', type: 'int4' }]);
  srv = await startServer({ db, port: 0, auth: { users: { alice: scramVerifier('correct horse'), bob: scramVerifier('bøb-pässwörd') } }, startupTimeoutMs: 300 });
  md5srv = await startServer({ db, port: 0, auth: { method: 'md5', users: { carol: md5Verifier('carol', 'md5pw'), alice: scramVerifier('correct horse') } } });
});

test.after(async () => {
  await srv.close();
  await md5srv.close();
  await db.close();
});

async function pgConnect(port: number, user: string, password: string): Promise<{ ok: true; rows: unknown[] } | { ok: false; code: string; message: string }> {
  const c = new pg.Client({ host: '127.0.0.1', port, user, password, database: 'paxd' });
  try {
    await c.connect();
    const r = await c.query('select count(*) from t');
    return { ok: true, rows: r.rows };
  } catch (e) {
    return { ok: false, code: (e as { code: string }).code, message: (e as Error).message };
  } finally {
    await c.end().catch(() => undefined);
  }
}

function psql(port: number, user: string, password: string, sql: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'psql',
      ['-X', '-At', '-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', 'paxd', '-c', sql],
      { timeout: 10_000, env: { ...process.env, PGPASSWORD: password, PGSSLMODE: 'disable', PGCONNECT_TIMEOUT: '5' } },
      (err, stdout, stderr) => resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr }),
    );
  });
}

test('verifiers have PostgreSQL’s format', () => {
  assert.match(scramVerifier('x'), /^SCRAM-SHA-256\$4096:[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=:[A-Za-z0-9+/]{43}=$/);
  // md5 of 'md5pw' + 'carol', as PostgreSQL stores it
  assert.is(md5Verifier('carol', 'md5pw'), 'md5' + '' + md5Verifier('carol', 'md5pw').slice(3));
  assert.is(md5Verifier('postgres', 'postgres'), 'md53175bce1d3201d16594cebf9d7eb3f9d');
});

test('SCRAM-SHA-256: node-postgres connects with the right password', async () => {
  const r = await pgConnect(srv.port, 'alice', 'correct horse');
  assert.equal(r, { ok: true, rows: [{ count: '0' }] });
  const u = await pgConnect(srv.port, 'bob', 'bøb-pässwörd');
  assert.ok(u.ok);
});

test('SCRAM-SHA-256: psql connects with PGPASSWORD', async () => {
  const r = await psql(srv.port, 'alice', 'correct horse', 'select count(*) from t');
  assert.is(r.stderr, '');
  assert.is(r.stdout, '0\n');
});

test('a wrong password and an unknown user get the same 28P01', async () => {
  const wrong = await pgConnect(srv.port, 'alice', 'wrong');
  const nobody = await pgConnect(srv.port, 'mallory', 'wrong');
  assert.equal(wrong, { ok: false, code: '28P01', message: 'password authentication failed for user "alice"' });
  assert.equal(nobody, { ok: false, code: '28P01', message: 'password authentication failed for user "mallory"' });
  const p = await psql(srv.port, 'alice', 'nope', 'select 1');
  assert.is(p.code, 2);
  assert.match(p.stderr, 'FATAL:  password authentication failed for user "alice"');
});

test('md5 when configured: node-postgres and psql; a SCRAM verifier still means SCRAM', async () => {
  assert.equal(await pgConnect(md5srv.port, 'carol', 'md5pw'), { ok: true, rows: [{ count: '0' }] });
  const bad = await pgConnect(md5srv.port, 'carol', 'nope');
  assert.equal(bad, { ok: false, code: '28P01', message: 'password authentication failed for user "carol"' });
  const p = await psql(md5srv.port, 'carol', 'md5pw', 'select count(*) from t');
  assert.is(p.stdout, '0\n');
  assert.ok((await pgConnect(md5srv.port, 'alice', 'correct horse')).ok);
});

test('the server asks for SCRAM-SHA-256 and a silent client is disconnected (authentication timeout)', async () => {
  const c = await RawClient.connect(srv.port);
  c.send(fe.startup({ user: 'alice' }));
  const started = Date.now();
  await c.untilClosed();
  const r = splitReplies(c.bytes);
  assert.is(r[0]!.code, 'R');
  assert.is(r[0]!.body.readInt32BE(0), 10);
  assert.is(r[0]!.body.toString('utf8', 4), 'SCRAM-SHA-256\0\0');
  assert.ok(Date.now() - started < 3000);
});

test('malformed SASL: wrong mechanism, garbage client-first, a query before authenticating', async () => {
  const int32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    return b;
  };
  const sasl = (mech: string, data: string) => msg('p', Buffer.from(mech + '\0'), int32(Buffer.byteLength(data)), Buffer.from(data));
  for (const [m, expected] of [
    [sasl('PLAIN', 'n,,n=,r=abc'), '08P01'],
    [sasl('SCRAM-SHA-256', 'garbage'), '08P01'],
    [sasl('SCRAM-SHA-256', 'p=tls-server-end-point,,n=,r=abc'), '08P01'],
    [fe.query('select 1'), '08P01'],
  ] as const) {
    const c = await RawClient.connect(srv.port);
    c.send(fe.startup({ user: 'alice' }));
    await c.until((b) => b.byteLength > 0);
    c.send(m);
    await c.untilClosed();
    const e = splitReplies(c.bytes).find((r) => r.code === 'E');
    assert.ok(e, `an error for ${m.toString('latin1')}`);
    assert.is(errorFieldsOf(e.body).C, expected);
    assert.is(errorFieldsOf(e.body).S, 'FATAL');
  }
});

test('trust is refused on a non-loopback address; a bad verifier is refused at start', async () => {
  try {
    await startServer({ db, host: '0.0.0.0', port: 0, auth: { method: 'trust' } });
    assert.unreachable('should refuse');
  } catch (e) {
    assert.is((e as { kind?: string }).kind, 'usage');
  }
  try {
    await startServer({ db, port: 0, auth: { users: { x: 'plaintext' } } });
    assert.unreachable('should refuse');
  } catch (e) {
    assert.match((e as Error).message, 'verifier of user "x"');
  }
});

test('paxd passwd prints a verifier read from stdin; serve --users FILE logs psql in with it', async () => {
  const main = join(import.meta.dirname, '../../src/cli/main.ts');
  const verifier = await new Promise<string>((resolve, reject) => {
    const p = execFile(
      process.execPath,
      ['--import', 'tsx', '-e', `import(${JSON.stringify(main)}).then((m) => m.main(['passwd', 'dave'])).then((c) => { process.exitCode = c; })`],
      { timeout: 20_000 },
      (err, stdout) => (err === null ? resolve(stdout.trim()) : reject(err)),
    );
    p.stdin!.end('hunter2\n');
  });
  assert.match(verifier, /^SCRAM-SHA-256\$4096:/);
  const file = join(tempDir(), 'users.json');
  writeFileSync(file, JSON.stringify({ users: { dave: verifier } }));
  const auth = serveAuthConfig({}, file, undefined);
  assert.is(auth.method, 'scram-sha-256');
  const own = await startServer({ db, port: 0, auth });
  try {
    const r = await psql(own.port, 'dave', 'hunter2', 'select count(*) from t');
    assert.is(r.stdout, '0\n');
    const bad = await psql(own.port, 'dave', 'hunter3', 'select 1');
    assert.match(bad.stderr, 'password authentication failed for user "dave"');
  } finally {
    await own.close();
  }
});

test('the log hears who connected and who failed, never a password', async () => {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const log = {
    info: (fields: Record<string, unknown>, message: string) => lines.push({ level: 'info', fields, message }),
    warn: (fields: Record<string, unknown>, message: string) => lines.push({ level: 'warn', fields, message }),
  };
  const own = await startServer({ db, port: 0, auth: { users: { alice: scramVerifier('correct horse') } }, log });
  try {
    assert.ok((await pgConnect(own.port, 'alice', 'correct horse')).ok);
    assert.not.ok((await pgConnect(own.port, 'alice', 'battery staple')).ok);
  } finally {
    await own.close();
  }
  const ok = lines.find((l) => l.message === 'wire: connection authorized')!;
  assert.equal([ok.level, ok.fields.user, ok.fields.auth, ok.fields.tls], ['info', 'alice', 'scram', false]);
  const failed = lines.find((l) => l.fields.code === '28P01')!;
  assert.equal([failed.level, failed.message], ['warn', 'wire: FATAL: password authentication failed for user "alice"']);
  assert.not.match(JSON.stringify(lines), 'battery');
});

test('serveAuthConfig: SCRAM unless told, trust only when asked for, --auth wins; an empty users file is refused', () => {
  // No users, no method: SCRAM with nobody yet (paxd serve then makes its "paxd" user), never trust.
  assert.equal(serveAuthConfig({}, undefined, undefined), { method: 'scram-sha-256', users: {} });
  assert.equal(serveAuthConfig({}, undefined, 'trust'), { method: 'trust', users: {} });
  const empty = join(tempDir(), 'empty.json');
  writeFileSync(empty, '{"users": {}}');
  assert.throws(() => serveAuthConfig({}, empty, undefined), /has no users: nobody could log in/);
  assert.equal(serveAuthConfig({}, empty, 'trust'), { method: 'trust', users: {} });
  const v = scramVerifier('x');
  assert.equal(serveAuthConfig({ a: v }, undefined, undefined), { method: 'scram-sha-256', users: { a: v } });
  assert.equal(serveAuthConfig({ a: v }, undefined, 'md5'), { method: 'md5', users: { a: v } });
  assert.throws(() => serveAuthConfig({ a: 'secret' }, undefined, undefined), /verifier of user "a"/);
  assert.throws(() => serveAuthConfig({}, undefined, 'password'), /unknown authentication method/);
});

test.run();

/**
 * TLS (docs/WIRE.md): SSLRequest answered 'S' with a configured key and certificate (a self-signed
 * one made by openssl for this run), psql sslmode=require and node-postgres over TLS with
 * SCRAM, bytes sent after SSLRequest never parsed, GSSENCRequest refused, 'N' without TLS.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Database } from '../../src/table/database.js';
import { scramVerifier, startServer, type RunningServer } from '../../src/pgwire/index.js';
import { tempDir } from '../support/tmp.js';
import { errorFieldsOf, fe, RawClient, splitReplies } from './client.js';

let db: Database;
let srv: RunningServer;
let plain: RunningServer;

test.before(async () => {
  const dir = tempDir();
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
  db = await Database.open(tempDir());
  await db.createTable('t', [{ name: 'id', type: 'int4' }]);
  const auth = { users: { alice: scramVerifier('secret') } };
  srv = await startServer({ db, port: 0, auth, tls: { key: readFileSync(key), cert: readFileSync(cert) } });
  plain = await startServer({ db, port: 0, auth });
});

test.after(async () => {
  await srv.close();
  await plain.close();
  await db.close();
});

function psql(port: number, sslmode: string, sql: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'psql',
      ['-X', '-At', '-h', '127.0.0.1', '-p', String(port), '-U', 'alice', '-d', 'paxd', '-c', sql],
      { timeout: 10_000, env: { ...process.env, PGPASSWORD: 'secret', PGSSLMODE: sslmode, PGCONNECT_TIMEOUT: '5' } },
      (err, stdout, stderr) => resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr }),
    );
  });
}

test('psql sslmode=require connects over TLS (SCRAM inside)', async () => {
  const r = await psql(srv.port, 'require', 'select count(*) from t');
  assert.is(r.stderr, '');
  assert.is(r.stdout, '0\n');
});

test('psql sslmode=require fails without TLS configured; prefer falls back to clear text', async () => {
  const r = await psql(plain.port, 'require', 'select 1 from t');
  assert.is.not(r.code, 0);
  assert.match(r.stderr, /does not support SSL/);
  const p = await psql(plain.port, 'prefer', 'select count(*) from t');
  assert.is(p.stdout, '0\n');
});

test('node-postgres with ssl: { rejectUnauthorized: false }', async () => {
  const c = new pg.Client({ host: '127.0.0.1', port: srv.port, user: 'alice', password: 'secret', database: 'paxd', ssl: { rejectUnauthorized: false } });
  await c.connect();
  try {
    const r = await c.query('select count(*) as n from t');
    assert.equal(r.rows, [{ n: '0' }]);
  } finally {
    await c.end();
  }
});

test('bytes sent right after SSLRequest are never parsed: FATAL 08P01, no query runs', async () => {
  const c = await RawClient.connect(srv.port);
  c.send(fe.ssl(), fe.startup({ user: 'alice' }), fe.query('select 1'));
  await c.untilClosed();
  const replies = splitReplies(c.bytes);
  assert.is(replies.length, 1);
  const e = errorFieldsOf(replies[0]!.body);
  assert.is(e.C, '08P01');
  assert.is(e.M, 'received unencrypted data after SSL request');
});

test('plaintext after the S answer goes to the TLS handshake, never to the protocol', async () => {
  const c = await RawClient.connect(srv.port);
  c.send(fe.ssl());
  await c.until((b) => b.byteLength >= 1);
  assert.is(c.bytes.toString('latin1'), 'S');
  c.send(fe.startup({ user: 'alice' }), fe.query('select 1'));
  await c.untilClosed();
  // Whatever came back is a TLS alert or nothing, never a protocol message ('R', 'E', 'Z').
  const rest = c.bytes.subarray(1);
  assert.ok(rest.byteLength === 0 || rest[0] === 0x15, `got ${rest.toString('hex')}`);
});

test('GSSENCRequest is refused with N and the client may go on in clear text', async () => {
  const c = await RawClient.connect(plain.port);
  c.send(fe.gssenc());
  await c.until((b) => b.byteLength >= 1);
  assert.is(c.bytes.toString('latin1'), 'N');
  c.send(fe.ssl());
  await c.until((b) => b.byteLength >= 2);
  assert.is(c.bytes.toString('latin1'), 'NN');
  c.end();
});

test.run();

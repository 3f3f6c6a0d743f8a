/**
 * Slowloris on the wire startup (issue #18): a connection holds a slot only once it has
 * authenticated. Sockets that send part of a startup packet and stall, or stop in the middle
 * of SCRAM, never make a real client get 53300; they are dropped at the authentication timeout,
 * and past maxStartups the oldest of them goes first.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import pg from 'pg';
import { Database } from '../../src/table/database.js';
import { scramVerifier, startServer, type RunningServer } from '../../src/pgwire/index.js';
import { tempDir } from '../support/tmp.js';
import { fe, RawClient, splitReplies } from './client.js';

const PASSWORD = 'correct horse';
let db: Database;

test.before(async () => {
  db = await Database.open(tempDir());
  await db.createTable('t', [{ name: 'id', type: 'int4' }]);
});

test.after(async () => {
  await db.close();
});

/** `n` sockets that send the first six bytes of a startup packet and nothing more. */
async function stalled(port: number, n: number): Promise<Socket[]> {
  const head = fe.startup({ user: 'alice', database: 'paxd' }).subarray(0, 6);
  const open = Array.from(
    { length: n },
    () =>
      new Promise<Socket>((resolve, reject) => {
        const s = connect(port, '127.0.0.1', () => {
          s.write(head);
          resolve(s);
        });
        s.on('error', () => undefined);
        s.once('error', reject);
      }),
  );
  return Promise.all(open);
}

/** A real client: connect, authenticate, query; the time it took, or its SQLSTATE. */
async function login(port: number): Promise<{ ms: number; result: string }> {
  const t0 = performance.now();
  const c = new pg.Client({ host: '127.0.0.1', port, user: 'alice', password: PASSWORD, database: 'paxd', connectionTimeoutMillis: 5000 });
  try {
    await c.connect();
    await c.query('SELECT count(*) FROM t');
    return { ms: performance.now() - t0, result: 'ok' };
  } catch (e) {
    return { ms: performance.now() - t0, result: (e as { code?: string }).code ?? (e as Error).message };
  } finally {
    await c.end().catch(() => undefined);
  }
}

function psql(port: number): Promise<{ code: number; ms: number; stderr: string }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    execFile(
      'psql',
      ['-X', '-At', '-h', '127.0.0.1', '-p', String(port), '-U', 'alice', '-d', 'paxd', '-c', 'select 1'],
      { timeout: 10_000, env: { ...process.env, PGPASSWORD: PASSWORD, PGSSLMODE: 'disable', PGCONNECT_TIMEOUT: '5' } },
      (err, _stdout, stderr) => resolve({ code: err === null ? 0 : -1, ms: performance.now() - t0, stderr }),
    );
  });
}

const closed = (s: Socket) => s.destroyed || s.readableEnded;

async function until(what: string, cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function server(o: { maxConnections?: number; startupTimeoutMs?: number; maxStartups?: number } = {}): Promise<RunningServer> {
  return startServer({ db, port: 0, auth: { users: { alice: scramVerifier(PASSWORD) } }, ...o });
}

test('150 stalled half-startups: node-postgres and psql still connect within 1 s (max_connections 100)', async () => {
  const srv = await server({ startupTimeoutMs: 60_000 });
  let sockets: Socket[] = [];
  try {
    sockets = await stalled(srv.port, 150);
    await until('150 connections', () => srv.connections() >= 150, 5000);
    for (let i = 0; i < 3; i++) {
      const r = await login(srv.port);
      assert.is(r.result, 'ok', `login ${i}`);
      assert.ok(r.ms < 1000, `login ${i} took ${r.ms.toFixed(0)} ms`);
    }
    const p = await psql(srv.port);
    assert.is(p.code, 0, p.stderr);
    assert.ok(p.ms < 1000, `psql took ${p.ms.toFixed(0)} ms`);
    console.log(`  150 stalled startups: node-postgres login ${(await login(srv.port)).ms.toFixed(0)} ms, psql ${p.ms.toFixed(0)} ms`);
    assert.ok(sockets.every((s) => !closed(s)), 'under maxStartups, the stalled sockets are left to their timeout');
  } finally {
    for (const s of sockets) s.destroy();
    await srv.close();
  }
});

test('stalled startups are dropped at the authentication timeout', async () => {
  const srv = await server({ startupTimeoutMs: 300 });
  try {
    const sockets = await stalled(srv.port, 20);
    const t0 = Date.now();
    await until('stalled sockets closed', () => sockets.every(closed), 3000);
    assert.ok(Date.now() - t0 >= 200, 'not before the timeout');
    await until('no connections', () => srv.connections() === 0, 1000);
  } finally {
    await srv.close();
  }
});

test('past maxStartups the oldest stalled startup is dropped, and a real client gets in', async () => {
  const srv = await server({ maxConnections: 2, maxStartups: 10, startupTimeoutMs: 60_000 });
  let sockets: Socket[] = [];
  try {
    sockets = await stalled(srv.port, 30);
    await until('the oldest dropped', () => sockets.filter(closed).length >= 20, 3000);
    assert.ok(sockets.slice(0, 20).every(closed), 'the first 20 (oldest) went');
    const r = await login(srv.port);
    assert.is(r.result, 'ok');
    assert.ok(r.ms < 1000, `login took ${r.ms.toFixed(0)} ms`);
  } finally {
    for (const s of sockets) s.destroy();
    await srv.close();
  }
});

test('a client stopped in the middle of SCRAM holds no slot; a full server answers 53300 once authenticated', async () => {
  const srv = await server({ maxConnections: 1, startupTimeoutMs: 60_000 });
  const half: RawClient[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      const c = await RawClient.connect(srv.port);
      c.send(fe.startup({ user: 'alice', database: 'paxd' }));
      // AuthenticationSASL asked for; the client never answers.
      await c.until((b) => splitReplies(b).some((r) => r.code === 'R'));
      half.push(c);
    }
    const pgc = new pg.Client({ host: '127.0.0.1', port: srv.port, user: 'alice', password: PASSWORD, database: 'paxd' });
    await pgc.connect();
    assert.equal((await pgc.query('SELECT 1 AS x')).rows, [{ x: 1 }]);
    // The one slot is taken now: the next client authenticates and gets 53300.
    const second = await login(srv.port);
    assert.is(second.result, '53300');
    await pgc.end();
    await until('the slot freed', () => srv.connections() === 5, 2000);
    assert.is((await login(srv.port)).result, 'ok');
  } finally {
    for (const c of half) c.socket.destroy();
    await srv.close();
  }
});

test.run();

/**
 * Stopping statements and sessions (docs/WIRE.md): CancelRequest from node-postgres' keys and from
 * psql's Ctrl-C, statement_timeout, idle_in_transaction_session_timeout, and the server's
 * smart (SIGTERM) and fast (SIGINT) shutdowns. The long statements scan `slow`, a table whose
 * reader waits 100 ms per batch, as a far object store would.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import pg from 'pg';
import { Database, type Table } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { columnOf } from '../../src/types/index.js';
import { tempDir } from '../support/tmp.js';
import { errorFieldsOf, fe, RawClient, splitReplies } from './client.js';

let db: Database;
let slowDb: Database;
let srv: RunningServer;

const SLOW_SQL = 'select count(*) from slow where id * 2 = -1';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `db` with table `slow` read at 100 ms per batch. */
function withSlowTable(base: Database): Database {
  const view = Object.create(base) as Database;
  Object.defineProperty(view, 'table', {
    value: async (name: string): Promise<Table> => {
      const t = await base.table(name);
      if (name !== 'slow') return t;
      const v = Object.create(t) as Table;
      Object.defineProperty(v, 'scan', {
        value: (...args: Parameters<Table['scan']>) => {
          const s = t.scan(...args);
          const next = s.next.bind(s);
          Object.defineProperty(s, 'next', { configurable: true, value: async () => { await sleep(100); return next(); } });
          return s;
        },
      });
      return v;
    },
  });
  return view;
}

test.before(async () => {
  db = await Database.open(tempDir());
  const t = await db.createTable('slow', [{ name: 'id', type: 'int4' }]);
  const sink = t.sink();
  const n = 400_000;
  await sink.write({ length: n, columns: [columnOf({ id: 'int4' }, Array.from({ length: n }, (_, i) => i))], selection: null });
  await sink.commit();
  slowDb = withSlowTable(db);
  srv = await startServer({ db: slowDb, port: 0, auth: { method: 'trust' } });
});

test.after(async () => {
  await srv.close();
  await db.close();
});

async function client(port = srv.port): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port, user: 'paxd', database: 'paxd' });
  await c.connect();
  return c;
}

async function sendCancel(port: number, pid: number, key: number): Promise<void> {
  const c = await RawClient.connect(port);
  c.send(fe.cancel(pid, key));
  await c.untilClosed();
}

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    return { code: (e as { code: string }).code, message: (e as Error).message };
  }
  throw new Error('expected the statement to fail');
}

test('CancelRequest with the session’s keys cancels its running statement: 57014; the session goes on', async () => {
  const c = await client();
  try {
    const keys = c as unknown as { processID: number; secretKey: number };
    const running = failure(c.query(SLOW_SQL));
    await sleep(200);
    const started = Date.now();
    await sendCancel(srv.port, keys.processID, keys.secretKey);
    assert.equal(await running, { code: '57014', message: 'canceling statement due to user request' });
    assert.ok(Date.now() - started < 1000);
    const r = await c.query('select count(*) as n from slow where id < 10');
    assert.equal(r.rows, [{ n: '10' }]);
  } finally {
    await c.end();
  }
});

test('a CancelRequest with a wrong secret is ignored', async () => {
  const c = await client();
  try {
    const keys = c as unknown as { processID: number; secretKey: number };
    await c.query('set statement_timeout = 600');
    const running = failure(c.query(SLOW_SQL));
    await sleep(100);
    await sendCancel(srv.port, keys.processID, keys.secretKey ^ 1);
    // Only the timeout ends it.
    assert.equal(await running, { code: '57014', message: 'canceling statement due to statement timeout' });
  } finally {
    await c.end();
  }
});

test('psql: Ctrl-C sends a CancelRequest', async () => {
  const p = spawn('psql', ['-X', '-h', '127.0.0.1', '-p', String(srv.port), '-U', 'paxd', '-d', 'paxd', '-c', SLOW_SQL], {
    env: { ...process.env, PGSSLMODE: 'disable' },
  });
  let stderr = '';
  p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // psql handles SIGINT once connected: wait for its connection, then for its query to start.
  for (let i = 0; i < 100 && srv.connections() === 0; i++) await sleep(50);
  await sleep(400);
  p.kill('SIGINT');
  const code = await new Promise<number | null>((r) => p.on('close', r));
  assert.is(code, 1);
  assert.match(stderr, 'ERROR:  canceling statement due to user request');
});

test('statement_timeout: SET/SHOW and 57014', async () => {
  const c = await client();
  try {
    await c.query("SET statement_timeout = '150ms'");
    assert.equal((await c.query('SHOW statement_timeout')).rows, [{ statement_timeout: '150ms' }]);
    await c.query('SET statement_timeout = 2000');
    assert.equal((await c.query('SHOW statement_timeout')).rows, [{ statement_timeout: '2s' }]);
    await c.query("SET statement_timeout = '150ms'");
    const started = Date.now();
    assert.equal(await failure(c.query(SLOW_SQL)), { code: '57014', message: 'canceling statement due to statement timeout' });
    assert.ok(Date.now() - started < 1500);
    assert.equal(await failure(c.query("SET statement_timeout = 'soon'")), { code: '22023', message: 'invalid value for parameter "statement_timeout": "soon"' });
  } finally {
    await c.end();
  }
});

test('idle_in_transaction_session_timeout ends a session idle in BEGIN with FATAL 25P03', async () => {
  const c = await RawClient.connect(srv.port);
  c.send(fe.startup({ user: 'paxd' }));
  await c.untilReady();
  c.send(fe.query("SET idle_in_transaction_session_timeout = '100ms'; BEGIN"));
  await c.untilReady();
  await c.untilClosed();
  const e = errorFieldsOf(splitReplies(c.bytes).find((r) => r.code === 'E')!.body);
  assert.is(e.S, 'FATAL');
  assert.is(e.C, '25P03');
  assert.is(e.M, 'terminating connection due to idle-in-transaction timeout');
});

test('idle_session_timeout ends an idle session with FATAL 57P05', async () => {
  const c = await RawClient.connect(srv.port);
  c.send(fe.startup({ user: 'paxd' }));
  await c.untilReady();
  c.send(fe.query("SET idle_session_timeout = '100ms'"));
  await c.untilReady();
  await c.untilClosed();
  const e = errorFieldsOf(splitReplies(c.bytes).find((r) => r.code === 'E')!.body);
  assert.equal([e.S, e.C, e.M], ['FATAL', '57P05', 'terminating connection due to idle-session timeout']);
});

test('smart shutdown (SIGTERM): the running statement finishes, then 57P01; fast (SIGINT) cancels it', async () => {
  const own = await startServer({ db: slowDb, port: 0, auth: { method: 'trust' } });
  const c = await client(own.port);
  c.on('error', () => undefined);
  const r = c.query('select count(*) as n from slow where id < 3000'); // one batch, about 100 ms
  await sleep(20);
  await own.close('smart');
  assert.equal((await r).rows, [{ n: '3000' }]);
  await c.end().catch(() => undefined);
  try {
    await client(own.port);
    assert.unreachable('no new connections');
  } catch (e) {
    assert.is((e as { code?: string }).code, 'ECONNREFUSED');
  }

  const fast = await startServer({ db: slowDb, port: 0, auth: { method: 'trust' } });
  const d = await client(fast.port);
  d.on('error', () => undefined);
  const q = failure(d.query(SLOW_SQL));
  await sleep(100);
  const started = Date.now();
  await fast.close('fast');
  assert.ok(Date.now() - started < 1000);
  assert.is((await q).code, '57P01');
  await d.end().catch(() => undefined);
});

test.run();

/**
 * Hostile HTTP clients against a real `paxd serve` (the CLI, a child process): a body over the
 * limit, declared by Content-Length or chunked, on every route, gets 413 and the daemon lives
 * on (it used to die after the 413); a bad %-escape in a path is 400, not 500. After each,
 * /health answers and a SQL statement runs, on a new connection.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent, request } from 'node:http';
import { Database } from '../../src/table/database.js';
import { parseColumns } from '../../src/types/parse-type.js';
import { serveCli, stopCli, type Served } from './serve.js';
import { tempDir } from '../support/tmp.js';

const LIMIT = 1024 * 1024;

/**
 * Sends `total` bytes (chunked unless `declare`), stops sending once an answer arrives; resolves
 * with the status and body. Fails if the connection breaks before an answer was read.
 */
function send(port: number, method: string, path: string, o: { total: number; declare: boolean; headers?: Record<string, string> }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'Content-Type': 'text/csv', ...o.headers };
    // Said outright: Node's client sends a GET's body unframed otherwise.
    headers[o.declare ? 'Content-Length' : 'Transfer-Encoding'] = o.declare ? String(o.total) : 'chunked';
    // A keep-alive agent, as curl and browsers use.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent });
    req.once('close', () => agent.destroy());
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', (e) => {
      if (!answered) reject(new Error(`${method} ${path}: connection failed before an answer: ${e.message}`));
    });
    const chunk = Buffer.from('1,"some text",2\n'.repeat(4096));
    let sent = 0;
    const pump = () => {
      while (!answered && sent < o.total) {
        const c = chunk.subarray(0, Math.min(chunk.byteLength, o.total - sent));
        sent += c.byteLength;
        if (!req.write(c)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

async function alive(s: Served, what: string): Promise<void> {
  const h = await fetch(`${s.base}/health`);
  assert.is(h.status, 200, `${what}: /health`);
  const r = await fetch(`${s.base}/v1/sql`, { method: 'POST', headers: { Accept: 'application/json' }, body: 'SELECT count(*) FROM t' });
  assert.is(r.status, 200, `${what}: SQL after it`);
  assert.equal(((await r.json()) as { rows: unknown }).rows, [['0']], what);
  assert.is(s.child.exitCode, null, `${what}: the daemon is still running`);
}

test('a body over the limit, declared or chunked, on every route: 413, and the daemon lives on', async () => {
  const data = tempDir();
  const db = await Database.open(data);
  await db.createTable('t', parseColumns('id int8, name text, v int8'));
  await db.close();
  const s = await serveCli(data, [], { PAXD_MAX_BODY_BYTES: String(LIMIT) });
  try {
    // Route, and its answer to a chunked body too large: routes that read no body answer as
    // they would without one, and close the connection without reading the rest.
    const cases: [string, string, number][] = [
      ['POST', '/v1/sql', 413],
      // Rows the table takes (no header line), so that only the size fails: the load reads the
      // body as it arrives, and a bad first row would fail it before the limit.
      ['POST', '/v1/tables/t/rows?header=false', 413],
      ['GET', '/metrics', 200],
      ['POST', '/health', 404],
      ['GET', '/nowhere', 404],
    ];
    for (const [method, path, chunked] of cases) {
      for (const declare of [true, false]) {
        const what = `${method} ${path} ${declare ? 'Content-Length' : 'chunked'}`;
        const r = await send(s.port, method, path, { total: 3 * LIMIT, declare });
        assert.is(r.status, declare ? 413 : chunked, `${what}: ${r.body.slice(0, 200)}`);
        if (r.status === 413) assert.is((JSON.parse(r.body) as { error: { sqlstate: string } }).error.sqlstate, '54000', what);
        await alive(s, what);
      }
    }
    // With fetch (undici) too, the client of most scripts.
    const big = new Uint8Array(3 * LIMIT).fill(0x61);
    for (const path of ['/v1/sql', '/v1/tables/t/rows']) {
      const r = await fetch(`${s.base}${path}`, { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: big });
      assert.is(r.status, 413, `fetch ${path}`);
      await alive(s, `fetch ${path}`);
    }
    // Just under the limit is loaded.
    const ok = await send(s.port, 'POST', '/v1/tables/t/rows?header=false', { total: LIMIT - (LIMIT % 16), declare: false });
    assert.is(ok.status, 200, ok.body);
    assert.is((JSON.parse(ok.body) as { rows: number }).rows, (LIMIT - (LIMIT % 16)) / 16);
  } finally {
    await stopCli(s);
  }
  assert.not.match(s.out(), /TypeError|uncaught/i);
});

test('a bad %-escape in a path is 400 (22025), not 500', async () => {
  const data = tempDir();
  const s = await serveCli(data);
  try {
    for (const path of ['/v1/tables/%zz/rows', '/v1/tables/%e9/rows', '/v1/tables/%/rows']) {
      const r = await fetch(`${s.base}${path}`, { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: 'id\n1\n' });
      assert.is(r.status, 400, path);
      assert.is(((await r.json()) as { error: { sqlstate: string } }).error.sqlstate, '22025', path);
    }
    assert.is((await fetch(`${s.base}/health`)).status, 200);
  } finally {
    await stopCli(s);
  }
});

test.run();

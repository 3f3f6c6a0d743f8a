/**
 * statement_timeout on HTTP POST /v1/sql (issue #17, docs/DAEMON.md): the daemon's
 * `statement_timeout` is every request's default (and every wire session's), a request's
 * `"statement_timeout"` field or `?statement_timeout=` changes it for that request, a statement
 * past it is answered 408 with `{"error": {"sqlstate": "57014", …}}`, and a statement whose
 * client went away is cancelled. `paxd serve` runs as a child process; the client is fetch.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import pg from 'pg';
import { tempDir } from '../support/tmp.js';
import { createLongTables, LONG } from '../pgwire/cancel-tables.js';
import { serveCli, stopCli, type Served } from './serve.js';

/** 200 ms is the target; tests allow this much on a shared 2-core CI machine. */
const STOP_BOUND_MS = 600;
const DEFAULT_TIMEOUT_MS = 400;
const CROSS = LONG['cross join']!;

let s: Served;
const figures: string[] = [];

test.before(async () => {
  const data = join(tempDir(), 'data');
  const db = await createLongTables(data, false);
  await db.close();
  s = await serveCli(data, ['--listen', '127.0.0.1:0', '--log-level', 'info'], { PAXD_STATEMENT_TIMEOUT: `${DEFAULT_TIMEOUT_MS}ms` });
});

test.after(async () => {
  await stopCli(s);
  console.log(`\n${figures.join('\n')}`);
});

async function sql(
  body: string | object,
  path = '/v1/sql',
  signal?: AbortSignal,
): Promise<{ status: number; json: { error?: { sqlstate: string; message: string }; rows?: unknown[] }; ms: number }> {
  const started = performance.now();
  const r = await fetch(`${s.base}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': typeof body === 'string' ? 'text/plain' : 'application/json', Accept: 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal !== undefined ? { signal } : {}),
  });
  const json = (await r.json()) as { error?: { sqlstate: string; message: string } };
  return { status: r.status, json, ms: performance.now() - started };
}

test("the daemon's statement_timeout stops a /v1/sql statement: 408 with 57014", async () => {
  const r = await sql(CROSS);
  const late = r.ms - DEFAULT_TIMEOUT_MS;
  figures.push(`config statement_timeout ${DEFAULT_TIMEOUT_MS}ms: 408 ${late.toFixed(1)} ms past the deadline`);
  assert.is(r.status, 408);
  assert.equal(r.json.error, { sqlstate: '57014', message: 'canceling statement due to statement timeout' });
  assert.ok(late > -5 && late < STOP_BOUND_MS, `${late.toFixed(1)} ms past the deadline`);
  // A short statement is not touched.
  const ok = await sql('select count(*) from a where id < 10');
  assert.is(ok.status, 200);
  assert.equal(ok.json.rows, [['10']]);
});

test('a request\'s "statement_timeout" field and ?statement_timeout= change it for that request only', async () => {
  const short = await sql({ sql: CROSS, statement_timeout: '150ms' });
  figures.push(`request "statement_timeout": "150ms": ${short.status} after ${short.ms.toFixed(1)} ms`);
  assert.is(short.status, 408);
  assert.is(short.json.error?.sqlstate, '57014');
  assert.ok(short.ms >= 145 && short.ms < 150 + STOP_BOUND_MS, `${short.ms.toFixed(1)} ms`);
  // A bare number is milliseconds, as SET statement_timeout = 200 is.
  const param = await sql(CROSS, '/v1/sql?statement_timeout=200');
  figures.push(`?statement_timeout=200: ${param.status} after ${param.ms.toFixed(1)} ms`);
  assert.is(param.status, 408);
  assert.ok(param.ms >= 195 && param.ms < 200 + STOP_BOUND_MS, `${param.ms.toFixed(1)} ms`);
  // Longer than the default: the statement runs past the daemon's 400 ms.
  const longer = await sql({ sql: CROSS, statement_timeout: '1s' });
  assert.is(longer.status, 408);
  assert.ok(longer.ms >= 995, `${longer.ms.toFixed(1)} ms: the default applied, not the request's 1s`);
  // The next request has the daemon's default again.
  const again = await sql(CROSS);
  assert.ok(again.ms < DEFAULT_TIMEOUT_MS + STOP_BOUND_MS, `${again.ms.toFixed(1)} ms`);
});

test('a statement_timeout that does not parse is 400 with 22023, as SET says it', async () => {
  const r = await sql({ sql: 'select 1', statement_timeout: '10 parsecs' });
  assert.is(r.status, 400);
  assert.is(r.json.error?.sqlstate, '22023');
  assert.match(r.json.error!.message, 'invalid value for parameter "statement_timeout": "10 parsecs"');
  const t = await sql({ sql: 'select 1', statement_timeout: true });
  assert.is(t.status, 400);
  assert.is(t.json.error?.sqlstate, '22023');
});

test('a client that goes away cancels its statement', async () => {
  const ac = new AbortController();
  const pending = sql({ sql: CROSS, statement_timeout: 0 }, '/v1/sql', ac.signal).catch((e: unknown) => e);
  await new Promise((r) => setTimeout(r, 500));
  const before = s.out().split('the client went away').length;
  const aborted = performance.now();
  ac.abort();
  assert.instance(await pending, Error);
  for (;;) {
    if (s.out().split('the client went away').length > before) break;
    if (performance.now() - aborted > 10_000) throw new Error(`no cancel logged within 10 s:\n${s.out().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const ms = performance.now() - aborted;
  figures.push(`client gone: statement cancelled (logged) ${ms.toFixed(1)} ms after the client closed`);
  assert.ok(ms < STOP_BOUND_MS, `${ms.toFixed(1)} ms`);
});

test("the daemon's statement_timeout is each wire session's default; RESET returns to it", async () => {
  const c = new pg.Client({ host: '127.0.0.1', port: s.wirePort!, user: 'paxd', database: 'paxd' });
  await c.connect();
  try {
    assert.is((await c.query('SHOW statement_timeout')).rows[0].statement_timeout, `${DEFAULT_TIMEOUT_MS}ms`);
    const code = await c.query(CROSS).then(
      () => 'no error',
      (e: { code?: string }) => e.code,
    );
    assert.is(code, '57014');
    await c.query('SET statement_timeout = 0');
    await c.query('RESET statement_timeout');
    assert.is((await c.query('SHOW statement_timeout')).rows[0].statement_timeout, `${DEFAULT_TIMEOUT_MS}ms`);
  } finally {
    await c.end();
  }
});

test.run();

/**
 * The HTTP suite of issue #18 (Done-when 2), against a real `paxd serve` (the CLI, a child
 * process) with users and a 1 GB JavaScript heap (`--max-old-space-size=1024`): 2 GB declared
 * bodies, concurrent large uploads within a memory bound, slowloris headers and bodies (stalled,
 * and dribbled just fast enough to dodge the idle timeout: http_body_min_rate), truncated and
 * garbage Arrow, CSV and NDJSON, unauthenticated requests. /health answers throughout and the
 * daemon stays up.
 *
 * Sizes are small by default, for CI; PAXD_SOAK=1 runs the issue's: 50 concurrent uploads of
 * 100 MB each. Their clients retry a 503 after its Retry-After, as a real client would; every
 * upload ends committed whole (its rows counted, one by one). The peak RSS of the daemon
 * (VmHWM) is printed and bounded either way, and /health and a wire session's `select 1`,
 * sent throughout, keep a p99 under 100 ms.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import pg from 'pg';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { Int64, Table as ArrowTable, Utf8, tableToIPC, vectorFromArray } from 'apache-arrow';
import { Database } from '../../src/table/database.js';
import { parseColumns } from '../../src/types/parse-type.js';
import { scramVerifier } from '../../src/pgwire/index.js';
import { tempDir } from '../support/tmp.js';
import { serveCli, stopCli, type Served } from '../daemon/serve.js';

const SOAK = process.env.PAXD_SOAK === '1';
const UPLOADS = SOAK ? 50 : 12;
const UPLOAD_BYTES = SOAK ? 100 * 1024 * 1024 : 2 * 1024 * 1024;
/**
 * max_inflight_body_bytes. A load is charged its Content-Length, at most its working set (two
 * 64 MB row groups and the body's queue: src/daemon/body.ts loadWorkingSet), a chunked one
 * that working set: in the soak, three 100 MB loads at a time.
 */
const INFLIGHT = SOAK ? 384 * 1024 * 1024 : 6 * 1024 * 1024;
/** The daemon's peak RSS must stay under this (the uploads alone are 5 GB in the soak). */
const RSS_BOUND = SOAK ? 1280 * 1024 * 1024 : 1024 * 1024 * 1024;
/**
 * /health and `select 1` must answer within this at the 99th percentile while the uploads run
 * (ms): the issue's 100 ms in the soak, which wants a quiet machine; in CI, where other jobs
 * share the cores, 2 s, which still catches a load that holds the event loop (a whole upload
 * parsed without a turn of the loop held /health for 11–15 s).
 */
const PROBE_P99_MS = SOAK ? 100 : 2000;
// Short, to see them work; under the soak's load a second without a byte is too likely.
const HEADER_TIMEOUT_MS = SOAK ? 5000 : 1000;
const BODY_TIMEOUT_MS = SOAK ? 5000 : 1000;
/** The daemon's least body rate (bytes per second, after a 5 s grace: src/daemon/body.ts). */
const MIN_RATE = 500;
const HEAP_MB = 1024;

const USER = 'loader';
const PASSWORD = 'suite pw';
const AUTH = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

let s: Served;
let data: string;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test.before(async () => {
  data = tempDir();
  const db = await Database.open(data);
  await db.createTable('t', parseColumns('id int8, name text, v int8'));
  await db.close();
  const users = join(tempDir(), 'users.json');
  writeFileSync(users, JSON.stringify({ users: { [USER]: scramVerifier(PASSWORD) } }));
  s = await serveCli(data, ['--users', users, '--listen', '127.0.0.1:0'], {
    PAXD_AUTH_FAILURE_DELAY_MS: '0',
    PAXD_MAX_INFLIGHT_BODY_BYTES: String(INFLIGHT),
    PAXD_HTTP_HEADER_TIMEOUT_MS: String(HEADER_TIMEOUT_MS),
    PAXD_HTTP_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
    PAXD_HTTP_BODY_MIN_RATE: String(MIN_RATE),
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=${HEAP_MB}`,
    PAXD_LOG_LEVEL: process.env.SUITE_LOG ?? 'warn',
  });
});

test.after(async () => {
  await stopCli(s);
  if (process.env.SUITE_LOG !== undefined) console.log(s.out());
  assert.not.match(s.out(), /TypeError|uncaught|heap out of memory/i);
});

/** The daemon's memory now and at its peak (Linux /proc), in bytes. */
function rss(): { now: number; peak: number } {
  const status = readFileSync(`/proc/${s.child.pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { now: kb('VmRSS'), peak: kb('VmHWM') };
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;

async function count(): Promise<number> {
  const r = await fetch(`${s.base}/v1/sql`, { method: 'POST', headers: { Accept: 'application/json', Authorization: AUTH }, body: 'SELECT count(*) FROM t' });
  assert.is(r.status, 200);
  return Number(((await r.json()) as { rows: string[][] }).rows[0]![0]);
}

async function alive(what: string): Promise<void> {
  assert.is((await fetch(`${s.base}/health`)).status, 200, `${what}: /health`);
  assert.is(s.child.exitCode, null, `${what}: the daemon runs`);
}

/** A raw HTTP exchange: writes `head` (and `body`), resolves with what came back when the server closed or `ms` passed. */
function raw(head: string, o: { body?: Buffer; ms?: number; end?: boolean } = {}): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const sock = connect(s.port, '127.0.0.1', () => {
      sock.write(head);
      if (o.body !== undefined) sock.write(o.body);
      if (o.end === true) sock.end();
    });
    const timer = setTimeout(() => sock.destroy(), o.ms ?? 10_000);
    sock.on('data', (b) => (got += b.toString('latin1')));
    sock.on('close', () => {
      clearTimeout(timer);
      resolve(got);
    });
    sock.on('error', () => undefined);
  });
}

const status = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
const jsonOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { sqlstate: string; message: string } };

test('2 GB declared bodies on every route: 413 at once, and the daemon lives', async () => {
  for (const [method, path] of [
    ['POST', '/v1/tables/t/rows'],
    ['POST', '/v1/sql'],
    ['GET', '/metrics'],
    ['POST', '/health'],
    ['GET', '/nowhere'],
  ]) {
    const t0 = performance.now();
    const answer = await raw(`${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\nContent-Type: text/csv\r\nContent-Length: ${2 * 1024 ** 3}\r\n\r\n`, {
      body: Buffer.alloc(64 * 1024, 0x61),
    });
    assert.is(status(answer), 413, `${method} ${path}: ${answer.slice(0, 200)}`);
    assert.is(jsonOf(answer).error.sqlstate, '54000');
    assert.ok(performance.now() - t0 < 3000, `${method} ${path}: answered in ${(performance.now() - t0).toFixed(0)} ms`);
    await alive(`${method} ${path}`);
  }
});

test('unauthenticated requests get 401 and their bodies are not loaded', async () => {
  const before = await count();
  for (const [method, path] of [
    ['POST', '/v1/tables/t/rows'],
    ['POST', '/v1/sql'],
    ['GET', '/metrics'],
    ['GET', '/nowhere'],
  ] as const) {
    const r = await fetch(`${s.base}${path}`, { method, headers: { 'Content-Type': 'text/csv' }, ...(method === 'POST' ? { body: 'id,name,v\n1,a,2\n' } : {}) });
    assert.is(r.status, 401, `${method} ${path}`);
    assert.is(((await r.json()) as { error: { sqlstate: string } }).error.sqlstate, '28P01');
  }
  assert.is(await count(), before);
  await alive('401s');
});

/** CSV rows of 200 bytes (`id,name,v`), about `bytes` of them, in one 1 MB block sent again and again (the test process stays light). */
function csvRows(bytes: number, first: number): { stream: Readable; rows: number; length: number; ids: number } {
  const row = (id: number) => `${id},${'the quick brown fox jumps over the lazy dog '.repeat(4).slice(0, 177)},${id}\n`;
  const size = Buffer.byteLength(row(first));
  const perBlock = Math.floor((1024 * 1024) / size);
  const block = Buffer.from(Array.from({ length: perBlock }, (_, i) => row(first + i)).join(''));
  const rows = Math.max(1, Math.floor(bytes / size));
  let sent = 0;
  const stream = new Readable({
    read() {
      if (sent >= rows) return void this.push(null);
      const n = Math.min(perBlock, rows - sent);
      sent += n;
      this.push(n === perBlock ? block : block.subarray(0, n * size));
    },
  });
  // The ids of a block repeat in the next: `ids` distinct ones, from `first`.
  return { stream, rows, length: rows * size, ids: Math.min(perBlock, rows) };
}

/** Ids of upload `i` start here (ten digits: every row the same length). */
const firstId = (i: number) => 1_000_000_000 + i * 10_000_000;

/**
 * One upload, as a client that honours Retry-After: on 503 (or 429) it waits what the answer
 * says (with jitter, so that the waiting clients do not come back all at once) and sends the
 * body again. Resolves with the refusals seen.
 */
async function upload(i: number, declare: boolean, deadline: number): Promise<{ busy: number; late: number }> {
  let busy = 0;
  let late = 0;
  for (;;) {
    const body = csvRows(UPLOAD_BYTES, firstId(i));
    const answer = await new Promise<{ status: number; retryAfter: string | undefined; text: string }>((resolve, reject) => {
      const headers: Record<string, string> = { 'Content-Type': 'text/csv', Authorization: AUTH };
      // With a length, as curl sends a large body: Expect: 100-continue, the body only once
      // the server wants it. Chunked: sent at once, cut by a 503 when past the budget.
      if (declare) {
        headers['Content-Length'] = String(body.length);
        headers.Expect = '100-continue';
      } else headers['Transfer-Encoding'] = 'chunked';
      let answered: { status: number; retryAfter: string | undefined; text: string } | null = null;
      const req = request({ host: '127.0.0.1', port: s.port, method: 'POST', path: '/v1/tables/t/rows?header=false', headers }, (res) => {
        const a = { status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], text: '' };
        answered = a;
        res.setEncoding('utf8');
        res.on('data', (d: string) => (a.text += d));
        res.on('end', () => resolve(a));
        res.on('error', () => resolve(a));
      });
      // Once answered (a 503 before the body was all sent), the server closes the connection
      // under the rest of the body: a reset then is no failure.
      req.on('error', (e) => (answered !== null ? resolve(answered) : reject(new Error(`upload ${i}: ${e.message}`))));
      body.stream.on('error', reject);
      // An answer before the end (503): stop sending.
      req.on('response', () => body.stream.unpipe(req));
      if (declare) req.on('continue', () => body.stream.pipe(req));
      else body.stream.pipe(req);
    });
    // 408 without a body: the server's header timeout (Node's), on a daemon starved of CPU; a
    // client sends the request again, as browsers do (RFC 9110 15.5.9). Counted apart.
    if (answer.status === 408 && answer.text === '') {
      late++;
      assert.ok(performance.now() < deadline, `upload ${i}: still 408 after ${late} tries`);
      continue;
    }
    if (answer.status === 503 || answer.status === 429) {
      busy++;
      assert.is(answer.retryAfter, '1', 'Retry-After');
      if (answer.text.endsWith('\n')) assert.is((JSON.parse(answer.text) as { error: { sqlstate: string } }).error.sqlstate, '53000');
      assert.ok(performance.now() < deadline, `upload ${i}: still refused after ${busy} tries`);
      await sleep(Number(answer.retryAfter) * 1000 * (0.5 + Math.random()));
      continue;
    }
    assert.is(answer.status, 200, `upload ${i}: ${answer.text.slice(0, 300)}`);
    assert.is((JSON.parse(answer.text) as { rows: number }).rows, body.rows);
    return { busy, late };
  }
}

/** Probes `what` every 50 ms until `running()` is false; resolves with the latencies (ms) and the failures. */
async function probe(what: () => Promise<void>, running: () => boolean): Promise<{ ms: number[]; failed: string[] }> {
  const ms: number[] = [];
  const failed: string[] = [];
  while (running()) {
    const t0 = performance.now();
    await what().catch((e: unknown) => failed.push(String(e)));
    ms.push(performance.now() - t0);
    await sleep(50);
  }
  return { ms, failed };
}

function percentiles(xs: readonly number[]): { n: number; p50: number; p99: number; max: number } {
  const v = [...xs].sort((a, b) => a - b);
  const at = (q: number) => v[Math.min(v.length - 1, Math.floor(q * v.length))] ?? 0;
  return { n: v.length, p50: at(0.5), p99: at(0.99), max: v[v.length - 1] ?? 0 };
}

const fmt = (p: ReturnType<typeof percentiles>) => `p50 ${p.p50.toFixed(1)} p99 ${p.p99.toFixed(1)} max ${p.max.toFixed(0)} ms (${p.n})`;

test(`${UPLOADS} concurrent uploads of ${mb(UPLOAD_BYTES)}: each committed whole, 503 + Retry-After past max_inflight_body_bytes and retried, RSS bounded, /health and select 1 fast`, async () => {
  const before = await count();
  const base = rss();
  const wire = new pg.Client({ host: '127.0.0.1', port: s.wirePort!, user: USER, password: PASSWORD, database: 'paxd' });
  // The daemon's shutdown at the end of the suite ends this session, should a failure leave it open.
  wire.on('error', () => undefined);
  await wire.connect();
  let running = true;
  const health = probe(async () => {
    const r = await fetch(`${s.base}/health`);
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`/health: ${r.status}`);
  }, () => running);
  const select1 = probe(async () => void (await wire.query('select 1')), () => running);
  let peak = base.now;
  const sampler = setInterval(() => (peak = Math.max(peak, rss().now)), 200);
  const t0 = performance.now();
  const deadline = t0 + (SOAK ? 20 * 60_000 : 120_000);
  let tries: { busy: number; late: number }[];
  try {
    // Every upload to its end, failed or not, before this test ends (none runs into the next).
    const settled = await Promise.allSettled(Array.from({ length: UPLOADS }, (_, i) => upload(i, i % 2 === 0, deadline)));
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    tries = settled.map((r) => (r as PromiseFulfilledResult<{ busy: number; late: number }>).value);
  } finally {
    running = false;
    clearInterval(sampler);
    await Promise.all([health, select1]);
    await wire.end();
  }
  const seconds = (performance.now() - t0) / 1000;
  const [h, q] = [await health, await select1];
  const after = rss();
  const { rows: rowsPer, ids } = csvRows(UPLOAD_BYTES, firstId(0));
  // Every upload whole, and nothing of a refused one: the rows of each, by its ids.
  const r = await fetch(`${s.base}/v1/sql`, {
    method: 'POST',
    headers: { Accept: 'application/json', Authorization: AUTH },
    body: `SELECT (id - 1000000000) / 10000000 AS u, count(*), min(id), max(id) FROM t WHERE id >= 1000000000 GROUP BY 1 ORDER BY 1`,
  });
  assert.is(r.status, 200);
  const per = ((await r.json()) as { rows: string[][] }).rows;
  assert.equal(
    per,
    Array.from({ length: UPLOADS }, (_, i) => [String(i), String(rowsPer), String(firstId(i)), String(firstId(i) + ids - 1)]),
  );
  assert.is(await count(), before + UPLOADS * rowsPer);
  const total = tries.reduce((a, t) => a + t.busy, 0);
  const late = tries.reduce((a, t) => a + t.late, 0);
  const hp = percentiles(h.ms);
  const qp = percentiles(q.ms);
  console.log(
    `  ${UPLOADS} × ${mb(UPLOAD_BYTES)} uploads (${mb(UPLOADS * UPLOAD_BYTES)}) in ${seconds.toFixed(1)} s, all committed; max_inflight_body_bytes ${mb(INFLIGHT)}: ${total} answers 503, retried; ${late} header timeouts (408), retried; daemon RSS ${mb(base.now)} before, peak ${mb(Math.max(peak, after.peak))} (VmHWM ${mb(after.peak)}); /health ${fmt(hp)}; select 1 ${fmt(qp)}`,
  );
  assert.equal(h.failed, [], '/health answered throughout');
  assert.equal(q.failed, [], 'select 1 answered throughout');
  assert.ok(after.peak < RSS_BOUND, `peak RSS ${mb(after.peak)} under ${mb(RSS_BOUND)}`);
  assert.ok(hp.p99 < PROBE_P99_MS, `/health p99 ${hp.p99.toFixed(1)} ms`);
  assert.ok(qp.p99 < PROBE_P99_MS, `select 1 p99 ${qp.p99.toFixed(1)} ms`);
  if (UPLOADS * UPLOAD_BYTES > 2 * INFLIGHT) assert.ok(total > 0, 'the in-flight limit was reached');
  await alive('uploads');
});

test('past max_inflight_body_bytes a body gets 503 with Retry-After before it is read, a chunked one too; once the budget frees, it loads', async () => {
  // Bodies that reserve most of the budget and then stall (cut off at the body timeout). A load
  // is charged at most its working set (src/daemon/body.ts): in the soak, several of them.
  const each = Math.min(Math.floor(INFLIGHT * 0.8), 100 * 1024 * 1024);
  const stalled = Array.from({ length: Math.floor((INFLIGHT * 0.8) / each) }, () =>
    raw(`POST /v1/tables/t/rows?header=false HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\nContent-Type: text/csv\r\nContent-Length: ${each}\r\n\r\n`, {
      body: Buffer.from('1,a,1\n'),
    }),
  );
  await sleep(200);
  const second = INFLIGHT - stalled.length * each + 1;
  for (const framing of [`Content-Length: ${second}`, 'Transfer-Encoding: chunked']) {
    const busy = await raw(`POST /v1/tables/t/rows?header=false HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\nContent-Type: text/csv\r\n${framing}\r\n\r\n`, { ms: 5000 });
    assert.is(status(busy), 503, `${framing}: ${busy.slice(0, 300)}`);
    assert.match(busy, /\r\nRetry-After: 1\r\n/i);
    assert.is(jsonOf(busy).error.sqlstate, '53000');
    assert.match(jsonOf(busy).error.message, 'max_inflight_body_bytes');
  }
  for (const cut of await Promise.all(stalled)) {
    assert.is(status(cut), 408, cut.slice(0, 300));
    assert.is(jsonOf(cut).error.sqlstate, '08006');
  }
  const row = Buffer.from('7,after,7\n');
  const ok = await raw(`POST /v1/tables/t/rows?header=false HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\nContent-Type: text/csv\r\nContent-Length: ${row.byteLength}\r\nConnection: close\r\n\r\n`, { body: row });
  assert.is(status(ok), 200, ok.slice(0, 300));
});

test('slowloris: trickled headers get 408 at http_header_timeout_ms, stalled bodies 408 at http_body_timeout_ms; /health answers meanwhile', async () => {
  const before = await count();
  const N = 100;
  const sockets: Socket[] = [];
  const answers: Promise<string>[] = [];
  for (let i = 0; i < N; i++) {
    answers.push(
      new Promise((resolve) => {
        let got = '';
        const sock = connect(s.port, '127.0.0.1', () => {
          sock.write('POST /v1/sql HTTP/1.1\r\nHost: x\r\nX-Slow: ');
          const t = setInterval(() => (sock.destroyed ? clearInterval(t) : sock.write('a')), 200);
          sock.on('close', () => clearInterval(t));
        });
        sock.on('data', (b) => (got += b.toString('latin1')));
        sock.on('close', () => resolve(got));
        sock.on('error', () => undefined);
        sockets.push(sock);
      }),
    );
  }
  // Bodies: headers sent at once, a few bytes, then nothing. With a length: a chunked load is
  // charged a load's working set in flight (src/daemon/body.ts), past CI's whole budget.
  const bodies = Array.from({ length: 20 }, () =>
    raw(`POST /v1/tables/t/rows?header=false HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\nContent-Type: text/csv\r\nContent-Length: 1000\r\n\r\n1,a,1\n`, { ms: 10_000 }),
  );
  const t0 = performance.now();
  for (let i = 0; i < 5; i++) {
    const h0 = performance.now();
    await alive(`slowloris ${i}`);
    assert.ok(performance.now() - h0 < 500, `/health in ${(performance.now() - h0).toFixed(0)} ms`);
    await sleep(100);
  }
  const headerAnswers = await Promise.all(answers);
  const headerMs = performance.now() - t0;
  // Node answers a request whose headers are late with 408 and closes the connection.
  assert.ok(headerAnswers.every((a) => a === '' || status(a) === 408), headerAnswers.find((a) => a !== '' && status(a) !== 408));
  assert.ok(headerMs < HEADER_TIMEOUT_MS + 3000, `trickled headers cut off after ${headerMs.toFixed(0)} ms`);
  for (const a of await Promise.all(bodies)) {
    assert.is(status(a), 408, a.slice(0, 300));
    assert.is(jsonOf(a).error.sqlstate, '08006');
    // Idle for http_body_timeout_ms, or under http_body_min_rate (the soak's timeout is its grace).
    assert.match(jsonOf(a).error.message, /http_body_timeout_ms|http_body_min_rate/);
  }
  const elapsed = performance.now() - t0;
  assert.ok(elapsed < BODY_TIMEOUT_MS + HEADER_TIMEOUT_MS + 4000, `all cut off after ${elapsed.toFixed(0)} ms`);
  assert.is(await count(), before, 'nothing of a stalled body committed');
  await alive('after slowloris');
});

test('a body dribbled under http_body_min_rate, never idle long enough for the idle timeout: 408 after the grace, nothing committed', async () => {
  const before = await count();
  const t0 = performance.now();
  // 40 bytes every 300 ms (133 B/s, under MIN_RATE), each gap well under BODY_TIMEOUT_MS.
  const answer = await new Promise<string>((resolve) => {
    let got = '';
    const sock = connect(s.port, '127.0.0.1', () => {
      sock.write(`POST /v1/tables/t/rows?header=false HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\nContent-Type: text/csv\r\nContent-Length: 1000000\r\n\r\n`);
      let n = 0;
      const t = setInterval(() => {
        if (sock.destroyed) return clearInterval(t);
        sock.write(`${String(n++).padStart(8, '0')},dribble,${String(n).padStart(22, '0')}\n`);
      }, 300);
      sock.on('close', () => clearInterval(t));
    });
    const stop = setTimeout(() => sock.destroy(), 20_000);
    sock.on('data', (b) => (got += b.toString('latin1')));
    sock.on('close', () => {
      clearTimeout(stop);
      resolve(got);
    });
    sock.on('error', () => undefined);
  });
  const ms = performance.now() - t0;
  console.log(`dribbled body (133 B/s under a ${MIN_RATE} B/s minimum): ${status(answer)} after ${ms.toFixed(0)} ms`);
  assert.is(status(answer), 408, answer.slice(0, 300));
  assert.is(jsonOf(answer).error.sqlstate, '08006');
  assert.match(jsonOf(answer).error.message, 'http_body_min_rate');
  // The grace (5 s of the client's time) and the once-a-second check.
  assert.ok(ms > 4500 && ms < 9000, `cut off after ${ms.toFixed(0)} ms`);
  assert.is(await count(), before, 'nothing of the dribbled body committed');
  await alive('after the dribbled body');
});

const halfOf = (b: Uint8Array) => b.subarray(0, b.byteLength >> 1);

function arrowBody(n: number): Uint8Array {
  const ids = Array.from({ length: n }, (_, i) => BigInt(i));
  return tableToIPC(
    new ArrowTable({ id: vectorFromArray(ids, new Int64()), name: vectorFromArray(ids.map((i) => `n${i}`), new Utf8()), v: vectorFromArray(ids, new Int64()) }),
    'stream',
  );
}

test('truncated and garbage Arrow, CSV and NDJSON bodies: 4xx with a clear SQLSTATE, nothing committed', async () => {
  const before = await count();
  const arrow = arrowBody(20_000);
  const garbage = Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 7919 + 13) % 251));
  const AR = 'application/vnd.apache.arrow.stream';
  const cases: [string, string, Uint8Array, string[], Record<string, string>?][] = [
    ['Arrow cut in half', AR, halfOf(arrow), ['22P04']],
    ['Arrow cut after 7 bytes', AR, arrow.subarray(0, 7), ['22P04']],
    ['Arrow garbage', AR, garbage, ['22P04']],
    ['CSV garbage bytes', 'text/csv', garbage, ['22021', '22P02', '22P04']],
    ['CSV bad integer', 'text/csv', Buffer.from('1,a,1\n2,b,zz\n'), ['22P02']],
    ['CSV cut in a quoted field', 'text/csv', Buffer.from('1,"unterminated'), ['22P04']],
    ['NDJSON garbage', 'application/x-ndjson', garbage, ['22021', '22P02', '22P04']],
    ['NDJSON cut in an object', 'application/x-ndjson', Buffer.from('{"id":1,"v":2}\n{"id":2,'), ['22P02', '22P04']],
    ['NDJSON bad value', 'application/x-ndjson', Buffer.from('{"id":"x"}\n'), ['22P02']],
    ['gzip garbage', 'text/csv', garbage, ['22P04'], { 'Content-Encoding': 'gzip' }],
    ['gzip cut', 'text/csv', halfOf(gzipSync(Buffer.from(Array.from({ length: 20_000 }, (_, i) => `${i},n${(i * 7919) % 10007},${i}\n`).join('')))), ['22P04'], { 'Content-Encoding': 'gzip' }],
  ];
  for (const [what, type, body, codes, extra] of cases) {
    // No header line: the first line is data, so that garbage fails as data, not as column names.
    const r = await fetch(`${s.base}/v1/tables/t/rows?header=false`, { method: 'POST', headers: { 'Content-Type': type, Authorization: AUTH, ...extra }, body });
    const e = ((await r.json()) as { error?: { sqlstate: string; message: string } }).error;
    assert.is(r.status, 400, `${what}: ${JSON.stringify(e)}`);
    assert.ok(codes.includes(e!.sqlstate), `${what}: ${e!.sqlstate} ${e!.message}`);
    assert.match(e!.message, 'request body', `${what}: the message names the body: ${e!.message}`);
  }
  // Fewer bytes than Content-Length, the client's side closed: 400, nothing committed.
  const cut = await raw(`POST /v1/tables/t/rows HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\nContent-Type: ${AR}\r\nContent-Length: ${arrow.byteLength}\r\n\r\n`, {
    body: Buffer.from(arrow.subarray(0, 5000)),
    end: true,
  });
  assert.ok(cut === '' || status(cut) === 400, cut.slice(0, 300));
  await sleep(200);
  assert.is(await count(), before, 'nothing committed');
  await alive('bad bodies');
});

test.run();

/**
 * One users source for both doors of `paxd serve`: with `--users FILE` (or `users` in the config
 * file, or PAXD_USERS) the wire server and the HTTP API ask for the same passwords. Every HTTP
 * route but /health and /ready answers 401 without valid Basic credentials; logins, wire and
 * HTTP, are logged with the client address and failures counted in /metrics; an unknown user
 * costs as much time as a wrong password; failed HTTP logins are delayed; an open HTTP API on
 * a non-loopback address refuses to start.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Database } from '../../src/table/database.js';
import { parseColumns } from '../../src/types/parse-type.js';
import { md5Verifier, scramVerifier } from '../../src/pgwire/index.js';
import { Daemon, defaultConfig, createLogger, type DaemonConfig } from '../../src/daemon/index.js';
import { runCli } from '../support/spawn.js';
import { tempDir } from '../support/tmp.js';
import { serveCli, stopCli, type Served } from './serve.js';

const silent = createLogger('silent', { write: () => undefined });

function basic(user: string, password: string): { Authorization: string } {
  return { Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}

async function storeWithVictim(): Promise<string> {
  const dir = tempDir();
  const db = await Database.open(dir);
  await db.createTable('victim', parseColumns('id int8'));
  await db.close();
  return dir;
}

/** Logs in over the wire; the SQLSTATE when refused. */
async function wireLogin(port: number, user: string, password: string): Promise<string> {
  const c = new pg.Client({ host: '127.0.0.1', port, user, password, database: 'paxd' });
  try {
    await c.connect();
    await c.query('SELECT 1');
    return 'ok';
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  } finally {
    await c.end().catch(() => undefined);
  }
}

async function sql(base: string, text: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/v1/sql`, { method: 'POST', headers: { Accept: 'application/json', ...headers }, body: text });
}

/** The JSON lines of the daemon's log. */
function logLines(s: Served): Record<string, unknown>[] {
  return s
    .out()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function metric(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(name + ' '));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

test('--users FILE: the wire server and every HTTP route but /health and /ready ask for the same passwords', async () => {
  const data = await storeWithVictim();
  const file = join(tempDir(), 'users.json');
  writeFileSync(file, JSON.stringify({ users: { alice: scramVerifier('s3cret'), carol: md5Verifier('carol', 'md5pw') } }));
  const s = await serveCli(data, ['--users', file, '--listen', '127.0.0.1:0'], { PAXD_AUTH_FAILURE_DELAY_MS: '0' });
  try {
    // The hole: no credentials, 200 and a dropped table.
    let r = await sql(s.base, 'drop table victim');
    assert.is(r.status, 401);
    assert.match(r.headers.get('www-authenticate') ?? '', /^Basic realm="paxd"/);
    assert.is(((await r.json()) as { error: { sqlstate: string } }).error.sqlstate, '28P01');
    let failures = 1;
    for (const [method, path] of [['GET', '/metrics'], ['POST', '/v1/tables/victim/rows'], ['GET', '/nowhere'], ['POST', '/v1/sql']]) {
      r = await fetch(`${s.base}${path}`, { method: method!, headers: { 'Content-Type': 'text/csv' }, ...(method === 'POST' ? { body: 'id\n1\n' } : {}) });
      assert.is(r.status, 401, `${method} ${path}`);
      failures++;
    }
    assert.is((await fetch(`${s.base}/health`)).status, 200);
    assert.is((await fetch(`${s.base}/ready`)).status, 200);
    for (const [u, p] of [['alice', 'wrong'], ['bob', 's3cret'], ['carol', 's3cret'], ['alice', '']]) {
      assert.is((await sql(s.base, 'SELECT 1', basic(u!, p!))).status, 401, `${u}:${p}`);
      failures++;
    }
    assert.is((await sql(s.base, 'SELECT 1', { Authorization: 'Bearer x' })).status, 401);
    failures++;
    r = await sql(s.base, 'SELECT count(*) FROM victim', basic('alice', 's3cret'));
    assert.is(r.status, 200, 'the table is still there');
    assert.equal(((await r.json()) as { rows: unknown }).rows, [['0']]);
    assert.is((await sql(s.base, 'SELECT 1', basic('carol', 'md5pw'))).status, 200, 'an md5 verifier of the users file');
    r = await fetch(`${s.base}/v1/tables/victim/rows`, { method: 'POST', headers: { 'Content-Type': 'text/csv', ...basic('alice', 's3cret') }, body: 'id\n1\n' });
    assert.is(r.status, 200);

    // The wire server: the same users.
    assert.is(await wireLogin(s.wirePort!, 'alice', 's3cret'), 'ok');
    assert.is(await wireLogin(s.wirePort!, 'alice', 'wrong'), '28P01');
    assert.is(await wireLogin(s.wirePort!, 'bob', 's3cret'), '28P01');

    const m = await (await fetch(`${s.base}/metrics`, { headers: basic('alice', 's3cret') })).text();
    assert.is(metric(m, 'paxd_auth_failures_total{protocol="http"}'), failures);
    assert.is(metric(m, 'paxd_auth_failures_total{protocol="wire"}'), 2);
  } finally {
    await stopCli(s);
  }
  // Logins, failed and successful, wire and HTTP, with the client address; never a password.
  const lines = logLines(s);
  const local = (l: Record<string, unknown>) => typeof l.remote === 'string' && /127\.0\.0\.1$/.test(l.remote);
  const httpFailed = lines.filter((l) => l.protocol === 'http' && l.level === 'warn' && local(l));
  assert.ok(httpFailed.some((l) => l.user === 'alice' && /password authentication failed for user "alice"/.test(String(l.msg))), 'http: failed login logged');
  assert.ok(httpFailed.some((l) => l.user === undefined && l.path === '/v1/sql'), 'http: request without credentials logged');
  assert.ok(lines.some((l) => l.protocol === 'http' && l.level === 'info' && l.user === 'alice' && local(l)), 'http: login logged');
  assert.ok(lines.some((l) => l.protocol === 'wire' && l.level === 'warn' && l.code === '28P01' && l.user === 'bob' && local(l)), 'wire: failed login logged');
  assert.ok(lines.some((l) => l.protocol === 'wire' && l.msg === 'wire: connection authorized' && l.user === 'alice' && local(l)), 'wire: login logged');
  assert.not.match(s.out(), /s3cret|md5pw/);
});

test('users from the config file, and from PAXD_USERS, guard both doors too', async () => {
  const data = await storeWithVictim();
  const cfg = join(tempDir(), 'paxd.json');
  writeFileSync(cfg, JSON.stringify({ users: { dora: scramVerifier('pw1') }, auth_failure_delay_ms: 0 }));
  const sources: [string, string[], NodeJS.ProcessEnv, string, string][] = [
    ['config file', ['--config', cfg], {}, 'dora', 'pw1'],
    ['PAXD_USERS', [], { PAXD_USERS: JSON.stringify({ eve: scramVerifier('pw2') }), PAXD_AUTH_FAILURE_DELAY_MS: '0' }, 'eve', 'pw2'],
  ];
  for (const [what, args, env, user, password] of sources) {
    const s = await serveCli(data, [...args, '--listen', '127.0.0.1:0'], env);
    try {
      assert.is((await sql(s.base, 'SELECT 1')).status, 401, what);
      assert.is((await sql(s.base, 'SELECT 1', basic(user, 'nope'))).status, 401, what);
      assert.is((await sql(s.base, 'SELECT 1', basic(user, password))).status, 200, what);
      assert.is(await wireLogin(s.wirePort!, user, 'nope'), '28P01', what);
      assert.is(await wireLogin(s.wirePort!, user, password), 'ok', what);
    } finally {
      await stopCli(s);
    }
  }
});

test('--http on a non-loopback address without users refuses to start, with one line; with users it starts', async () => {
  const data = await storeWithVictim();
  const r = await runCli(['serve', '--data', data, '--listen', 'off', '--http', '0.0.0.0:0']);
  assert.is.not(r.code, 0);
  const lines = r.stderr.trim().split('\n');
  assert.is(lines.length, 1, r.stderr);
  assert.match(lines[0]!, /refusing to serve HTTP on 0\.0\.0\.0 without configured users/);
  const file = join(tempDir(), 'users.json');
  writeFileSync(file, JSON.stringify({ alice: scramVerifier('pw') }));
  const s = await serveCli(data, ['--users', file, '--http', '0.0.0.0:0']);
  try {
    assert.is((await sql(s.base, 'SELECT 1')).status, 401);
    assert.is((await sql(s.base, 'SELECT 1', basic('alice', 'pw'))).status, 200);
  } finally {
    await stopCli(s);
  }
});

async function startDaemon(over: Partial<DaemonConfig>): Promise<{ d: Daemon; base: string }> {
  const config: DaemonConfig = { ...defaultConfig(), store: tempDir(), listen: 'off', http: '127.0.0.1:0', compact_interval_ms: 0, vacuum_interval_ms: 0, ...over };
  const d = await Daemon.start(config, { log: silent, out: () => undefined });
  return { d, base: `http://127.0.0.1:${d.http!.port}` };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

test('an unknown user takes as long as a wrong password (the same PBKDF2)', async () => {
  // Costly verifiers, so that PBKDF2 stands well above the noise of a request.
  const iterations = 100_000;
  const { d, base } = await startDaemon({ users: { alice: scramVerifier('right', iterations) }, auth_failure_delay_ms: 0 });
  try {
    const time = async (user: string) => {
      const t0 = performance.now();
      const r = await sql(base, 'SELECT 1', basic(user, 'wrong'));
      await r.arrayBuffer();
      assert.is(r.status, 401);
      return performance.now() - t0;
    };
    const t0 = performance.now();
    await time('alice'); // warm-up
    const ok = performance.now() - t0;
    const N = 21;
    const wrong: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < N; i++) {
      // Alternating which goes first, so that a drift in the machine's load weighs on both alike.
      if (i % 2 === 0) wrong.push(await time('alice'));
      unknown.push(await time(`nobody${i}`));
      if (i % 2 === 1) wrong.push(await time('alice'));
    }
    const [w, u] = [median(wrong), median(unknown)];
    console.log(`  timing over HTTP (${iterations} iterations, median of ${N}): wrong password ${w.toFixed(2)} ms, unknown user ${u.toFixed(2)} ms (first ${ok.toFixed(1)} ms)`);
    assert.ok(u / w > 2 / 3 && u / w < 1.5, `unknown ${u.toFixed(2)} ms vs wrong password ${w.toFixed(2)} ms`);
  } finally {
    await d.stop();
  }
});

test('a failed HTTP login is answered after auth_failure_delay_ms, and the delay is counted', async () => {
  const { d, base } = await startDaemon({ users: { alice: scramVerifier('right') }, auth_failure_delay_ms: 400 });
  try {
    for (let i = 0; i < 2; i++) {
      const t0 = performance.now();
      const r = await sql(base, 'SELECT 1', basic('alice', 'wrong'));
      assert.is(r.status, 401);
      assert.ok(performance.now() - t0 >= 395, `answered after ${(performance.now() - t0).toFixed(0)} ms`);
    }
    const m = await (await fetch(`${base}/metrics`, { headers: basic('alice', 'right') })).text();
    assert.is(metric(m, 'paxd_auth_delay_seconds_total'), 0.8);
    assert.is(metric(m, 'paxd_auth_failures_total{protocol="http"}'), 2);
  } finally {
    await d.stop();
  }
});

test.run();

/**
 * One grammar for durations and sizes (src/types/units.ts), through every front door: SET/SHOW
 * over the wire of a real `paxd serve` against a real PostgreSQL 15 (statement_timeout and
 * work_mem over a table of inputs: values, rounding, errors with SQLSTATE, message and HINT),
 * the daemon's config file, environment and flags, and `paxd vacuum --grace`, whose effect
 * (which files go) is checked on disk.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Database } from '../../src/table/database.js';
import { loadConfig } from '../../src/daemon/config.js';
import { PaxdError } from '../../src/types/errors.js';
import { startPostgres } from '../support/pg.js';
import { ROOT, runCli } from '../support/spawn.js';
import { tempDir } from '../support/tmp.js';

/** Inputs PostgreSQL 15 reads in interesting ways: units, fractions, rounding, C number syntax, errors. */
const INPUTS = [
  '30', '30s', '1.5min', '1h', '100us', '1500us', '1.5ms', '2.5ms', '1.5', '.5s', '1e3', ' 5 s ', '0x10', '010', '09', '0x1.8p1s',
  '64MB', '1GB', '1TB', '4096MB', '1.5MB', '100000B', '1536', '65536.5', '64 kB', '64kB',
  '-1', '0', '30d', '3000000000', '2048GB', '1e-400', '5m', '64KB', '64kb', '10 parsecs', 'soon', '',
];

type Outcome = { value: string } | { code: string; message: string; hint: string | null };

async function setShow(c: pg.Client, name: string, value: string): Promise<Outcome> {
  try {
    await c.query(`SET ${name} = '${value.replace(/'/g, "''")}'`);
    const r = await c.query(`SHOW ${name}`);
    return { value: r.rows[0][name] as string };
  } catch (e) {
    const err = e as { code: string; message: string; hint?: string };
    return { code: err.code, message: err.message, hint: err.hint ?? null };
  }
}

/** `paxd serve` as a process on a free port (trust on loopback); resolves once it listens. */
async function serveProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/support/cli.ts'), 'serve', '--listen', '127.0.0.1:0', '--auth', 'trust', '--http', 'off', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const port = await new Promise<number>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`paxd serve did not start: ${output}`)), 60_000);
    const seen = (d: Buffer) => {
      output += d;
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(output);
      if (m !== null) {
        clearTimeout(timer);
        res(Number(m[1]));
      }
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.on('exit', (code) => rej(new Error(`paxd serve exited ${code}: ${output}`)));
  });
  return { port, child };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((res) => child.on('exit', res));
  child.kill('SIGTERM');
  await exited;
}

test('SET/SHOW of statement_timeout and work_mem: paxd serve answers as PostgreSQL 15, value for value and error for error', async () => {
  const postgres = await startPostgres();
  const ref = new pg.Client({ host: postgres.host, port: postgres.port, user: 'postgres', database: 'postgres' });
  await ref.connect();
  const srv = await serveProcess(['--data', tempDir()]);
  const paxd = new pg.Client({ host: '127.0.0.1', port: srv.port, user: 'paxd', database: 'paxd' });
  try {
    await paxd.connect();
    let errors = 0;
    for (const name of ['statement_timeout', 'work_mem']) {
      for (const v of INPUTS) {
        const expected = await setShow(ref, name, v);
        if ('code' in expected) errors++;
        assert.equal(await setShow(paxd, name, v), expected, `SET ${name} = '${v}'`);
      }
    }
    assert.ok(errors >= 20, `the table exercises errors too (${errors})`);
  } finally {
    await paxd.end().catch(() => {});
    await ref.end();
    await stop(srv.child);
  }
});

test('work_mem from the environment and from flags: a bare number is kB, as in PostgreSQL; SHOW agrees with PostgreSQL', async () => {
  const postgres = await startPostgres();
  const ref = new pg.Client({ host: postgres.host, port: postgres.port, user: 'postgres', database: 'postgres' });
  await ref.connect();
  const srv = await serveProcess(['--data', tempDir()], { PAXD_WORK_MEM: '1536' });
  const paxd = new pg.Client({ host: '127.0.0.1', port: srv.port, user: 'paxd', database: 'paxd' });
  try {
    await paxd.connect();
    assert.equal(await setShow(ref, 'work_mem', '1536'), { value: '1536kB' });
    assert.equal((await paxd.query('SHOW work_mem')).rows, [{ work_mem: '1536kB' }]);
  } finally {
    await paxd.end().catch(() => {});
    await ref.end();
    await stop(srv.child);
  }
  // Flags and environment, as `paxd serve` reads them; --print-config reads back the same.
  const r = await runCli(['serve', '--print-config', '--work-mem', '1.5MB', '--vacuum-grace', '1.5min'], { env: { PAXD_INBOX_STABLE_MS: '2.5s', PAXD_MAX_BODY_BYTES: '1kB' } });
  assert.is(r.code, 0, r.stderr);
  const printed = JSON.parse(r.stdout) as Record<string, unknown>;
  assert.is(printed.work_mem, '1536kB');
  assert.is(printed.vacuum_grace_ms, 90_000);
  assert.is(printed.inbox_stable_ms, 2500);
  assert.is(printed.max_body_bytes, 1024);
  const file = join(tempDir(), 'printed.json');
  writeFileSync(file, r.stdout.replace(/"users": \{[^}]*\}/, '"users": {}'));
  const again = loadConfig({ file, env: {} });
  assert.is(again.work_mem, 1536 * 1024);
  assert.is(again.vacuum_grace_ms, 90_000);
  const bad = await runCli(['serve', '--print-config', '--work-mem', '10 parsecs']);
  assert.is(bad.code, 1);
  assert.is(
    bad.stderr,
    'paxd: ERROR:  22023: flag --work-mem: invalid value for parameter "work_mem": "10 parsecs"  HINT:  Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".\n',
  );
});

/** Vacuum grace inputs and what they mean in milliseconds (vacuum_grace_ms: a bare number is ms). */
const GRACES: [string, number][] = [
  ['30', 30],
  ['2.5ms', 2],
  ['100us', 0],
  ['30s', 30_000],
  ['1.5min', 90_000],
  ['1h', 3_600_000],
];
const BAD_GRACES: [string, string, string | undefined][] = [
  ['10m', 'invalid value for parameter "vacuum_grace_ms": "10m"', 'Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".'],
  ['64MB', 'invalid value for parameter "vacuum_grace_ms": "64MB"', 'Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".'],
  ['-1', '-1 ms is outside the valid range for parameter "vacuum_grace_ms" (0 .. 9007199254740991)', undefined],
  ['soon', 'invalid value for parameter "vacuum_grace_ms": "soon"', undefined],
];

test('vacuum grace: the same string means the same to the config file, the environment, serve --vacuum-grace and paxd vacuum --grace', async () => {
  const dir = tempDir();
  const file = join(dir, 'paxd.json');
  for (const [text, ms] of GRACES) {
    writeFileSync(file, JSON.stringify({ vacuum_grace_ms: text }));
    assert.is(loadConfig({ file, env: {} }).vacuum_grace_ms, ms, `config file: ${text}`);
    assert.is(loadConfig({ env: { PAXD_VACUUM_GRACE_MS: text } }).vacuum_grace_ms, ms, `environment: ${text}`);
    assert.is(loadConfig({ env: {}, flags: { vacuum_grace_ms: text } }).vacuum_grace_ms, ms, `flag: ${text}`);
  }
  // A JSON or TOML number is a bare number too.
  writeFileSync(file, JSON.stringify({ vacuum_grace_ms: 1500, work_mem: 2048 }));
  assert.equal([loadConfig({ file, env: {} }).vacuum_grace_ms, loadConfig({ file, env: {} }).work_mem], [1500, 2048 * 1024]);
  for (const [text, message, hint] of BAD_GRACES) {
    for (const [where, load] of [
      ['environment PAXD_VACUUM_GRACE_MS', () => loadConfig({ env: { PAXD_VACUUM_GRACE_MS: text } })],
      ['flag --vacuum-grace', () => loadConfig({ env: {}, flags: { vacuum_grace_ms: text } })],
    ] as const) {
      try {
        load();
        assert.unreachable(`${where}: ${text} should fail`);
      } catch (e) {
        assert.instance(e, PaxdError);
        assert.is((e as PaxdError).code, '22023');
        assert.is((e as PaxdError).message, `${where}: ${message}`);
        assert.is((e as PaxdError).hint, hint);
      }
    }
  }

  // paxd vacuum --grace, by what it removes: a file older than the grace goes, a younger one stays.
  const data = join(dir, 'data');
  const db = await Database.open(data);
  await db.createTable('g', [{ name: 'id', type: 'int4' }]);
  await db.close();
  const orphans = join(data, 'g', 'data');
  mkdirSync(orphans, { recursive: true });
  const orphan = (name: string, ageMs: number) => {
    const p = join(orphans, name);
    writeFileSync(p, 'not referenced by any snapshot');
    const t = (Date.now() - ageMs) / 1000;
    utimesSync(p, t, t);
    return p;
  };
  for (const [text, ms] of GRACES) {
    const old = orphan(`old-${ms}.pax`, ms + 20_000);
    const young = ms >= 20_000 ? orphan(`young-${ms}.pax`, ms - 20_000) : null;
    const r = await runCli(['vacuum', 'g', '--grace', text, '--data', data]);
    assert.is(r.code, 0, r.stderr);
    assert.not.ok(existsSync(old), `--grace ${text}: a file ${ms + 20_000} ms old is removed`);
    if (young !== null) assert.ok(existsSync(young), `--grace ${text}: a file ${ms - 20_000} ms old stays`);
    assert.match(r.stdout, '"filesRemoved":1');
  }
  for (const [text, message, hint] of BAD_GRACES.slice(0, 3)) {
    const r = await runCli(['vacuum', 'g', '--grace', text, '--data', data]);
    assert.is(r.code, 1);
    assert.is(r.stderr, `paxd: ERROR:  22023: flag --grace: ${message}${hint === undefined ? '' : `  HINT:  ${hint}`}\n`);
  }
});

test.run();

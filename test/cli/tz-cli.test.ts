/**
 * `paxd sql` in a time zone (README "Usage"): --timezone, else PGTZ, else UTC (TZ, the OS's zone,
 * is not read); timestamptz literals without an offset are local times there and print with
 * its offset, as a psql session with that TimeZone shows them; a bad zone is a one-line 22023.
 * `paxd ingest` reads timestamptz fields without an offset in the same zone, as COPY FROM does
 * in a session with that TimeZone.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startPostgres } from '../support/pg.js';
import { runCli } from '../support/spawn.js';
import { tempDir } from '../support/tmp.js';

const Q = "SELECT timestamptz '2024-03-31 02:30' AS gap, timestamptz '2024-07-01 12:00:00+00' AS summer";

test('paxd sql: --timezone beats PGTZ, PGTZ beats UTC, TZ is ignored', async () => {
  const data = ['--data', tempDir()];
  const env = { TZ: 'Asia/Tokyo', PGTZ: '' };
  let r = await runCli(['sql', '--format', 'csv', ...data, Q], { env });
  assert.is(r.stderr, '');
  assert.is(r.stdout, 'gap,summer\n2024-03-31 02:30:00+00,2024-07-01 12:00:00+00\n');
  r = await runCli(['sql', '--format', 'csv', ...data, Q], { env: { ...env, PGTZ: 'Europe/Berlin' } });
  assert.is(r.stdout, 'gap,summer\n2024-03-31 03:30:00+02,2024-07-01 14:00:00+02\n');
  r = await runCli(['sql', '--format', 'csv', '--timezone', 'Asia/Kolkata', ...data, Q], { env: { ...env, PGTZ: 'Europe/Berlin' } });
  assert.is(r.stdout, 'gap,summer\n2024-03-31 02:30:00+05:30,2024-07-01 17:30:00+05:30\n');
});

test('paxd sql --timezone Mars/Base: 22023, as SET TimeZone says it', async () => {
  const r = await runCli(['sql', '--data', tempDir(), '--timezone', 'Mars/Base', 'SELECT 1']);
  assert.is.not(r.code, 0);
  assert.match(r.stderr, 'invalid value for parameter "TimeZone": "Mars/Base"');
});

// Spring-forward gaps, fall-back repeats, offsets given, fractions, infinity, a NULL.
const STAMPS = ['2024-03-31 02:30:00', '2024-10-27 02:30:00', '2024-03-10 02:30', '2024-11-03 01:30:00', '2024-07-01 12:00:00+00', '1999-12-31 23:59:59.5', '1900-01-01 00:00', 'infinity', null];

test('paxd ingest --timezone / PGTZ: CSV and NDJSON timestamptz without an offset as COPY FROM reads them in that zone', async () => {
  const pg = await startPostgres();
  const dir = tempDir();
  chmodSync(dir, 0o755); // psql runs as the postgres OS user and reads the file for \copy
  const csv = join(dir, 'stamps.csv');
  writeFileSync(csv, `id,t\n${STAMPS.map((t, i) => `${i + 1},${t ?? ''}`).join('\n')}\n`);
  chmodSync(csv, 0o644);
  const ndjson = join(dir, 'stamps.ndjson');
  writeFileSync(ndjson, STAMPS.map((t, i) => JSON.stringify({ id: i + 1, t })).join('\n') + '\n');
  for (const zone of ['Europe/Berlin', 'America/Los_Angeles', 'Asia/Kolkata']) {
    const table = `stamps_${zone.replace(/\W/g, '_').toLowerCase()}`;
    const want = await pg.query(`SET TimeZone = '${zone}'; CREATE TABLE ${table} (id int4, t timestamptz); \\copy ${table} from '${csv}' csv header\nSET TimeZone = 'UTC'; SELECT id || ',' || coalesce(t::text, '') FROM ${table} ORDER BY id`);
    for (const [how, file, env, flag] of [
      ['--timezone, CSV', csv, { PGTZ: 'Asia/Tokyo' }, ['--timezone', zone]],
      ['PGTZ, NDJSON', ndjson, { PGTZ: zone }, []],
    ] as const) {
      const data = ['--data', tempDir()];
      let r = await runCli(['sql', ...data, 'CREATE TABLE s (id int4, t timestamptz)']);
      assert.is(r.code, 0, r.stderr);
      r = await runCli(['ingest', ...data, ...flag, 's', file, ...(file === csv ? ['--header'] : [])], { env: { ...env, TZ: 'Asia/Tokyo' } });
      assert.is(r.code, 0, r.stderr);
      r = await runCli(['sql', '--format', 'csv', '--timezone', 'UTC', ...data, 'SELECT id, t FROM s ORDER BY id']);
      assert.is(r.stdout, `id,t\n${want}\n`, `${zone} ${how}`);
    }
  }
});

test('paxd ingest --timezone Mars/Base: 22023 before anything is read', async () => {
  const r = await runCli(['ingest', '--data', tempDir(), '--timezone', 'Mars/Base', 't', 'nothing.csv']);
  assert.is.not(r.code, 0);
  assert.match(r.stderr, 'invalid value for parameter "TimeZone": "Mars/Base"');
});

test.run();

/**
 * `paxd sql` in a time zone (docs/CLI.md): --timezone, else PGTZ, else UTC (TZ, the OS's zone,
 * is not read); timestamptz literals without an offset are local times there and print with
 * its offset, as a psql session with that TimeZone shows them; a bad zone is a one-line 22023.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
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

test.run();

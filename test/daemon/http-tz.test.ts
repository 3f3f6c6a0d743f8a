/**
 * POST /v1/sql in a time zone (docs/HTTP.md): UTC unless the JSON body names one in
 * "timezone" (as SET TimeZone takes it); an unknown zone is 400 with 22023. Arrow results
 * carry timestamptz as timestamp[us, UTC], the same instants in every zone.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Daemon, defaultConfig, createLogger, type DaemonConfig } from '../../src/daemon/index.js';
import { tempDir } from '../support/tmp.js';

const silent = createLogger('silent', { write: () => undefined });

test('/v1/sql: "timezone" in the JSON body; UTC without it; 22023 for an unknown zone', async () => {
  const config: DaemonConfig = { ...defaultConfig(), store: tempDir(), listen: 'off', http: '127.0.0.1:0', auth_method: 'trust', compact_interval_ms: 0, vacuum_interval_ms: 0 };
  const d = await Daemon.start(config, { log: silent, out: () => undefined });
  const base = `http://127.0.0.1:${d.http!.port}`;
  const sql = "SELECT timestamptz '2024-10-27 02:30' AS overlap, extract(timezone FROM timestamptz '2024-07-01 00:00+00') AS off";
  const ask = (body: object) => fetch(`${base}/v1/sql`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify(body) });
  try {
    let r = await ask({ sql });
    assert.is(r.status, 200);
    assert.equal(((await r.json()) as { rows: unknown }).rows, [['2024-10-27 02:30:00+00', '0']]);
    r = await ask({ sql, timezone: 'Europe/Berlin' });
    assert.equal(((await r.json()) as { rows: unknown }).rows, [['2024-10-27 02:30:00+01', '7200']]);
    r = await ask({ sql, timezone: 'Mars/Base' });
    assert.is(r.status, 400);
    assert.is(((await r.json()) as { error: { sqlstate: string } }).error.sqlstate, '22023');
  } finally {
    await d.stop();
  }
});

test.run();

/**
 * Managing roles from the command line: `paxd sql` runs CREATE ROLE and GRANT embedded (as the
 * daemon itself: no user, never refused), `paxd roles` lists what the store holds, never a
 * password, and a daemon on the store lets the role in with exactly those rights
 * (test/daemon/roles.test.ts has the doors).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../support/spawn.js';
import { tempDir } from '../support/tmp.js';

test('paxd sql CREATE ROLE / GRANT, then paxd roles lists them (table and JSON) without the verifier', async () => {
  const data = tempDir();
  for (const sql of [
    'CREATE TABLE events (id int4)',
    "CREATE ROLE grafana LOGIN PASSWORD 's3cret'",
    'GRANT SELECT ON events TO grafana',
    'GRANT INSERT ON events TO PUBLIC',
  ]) {
    const r = await runCli(['sql', '--data', data, sql]);
    assert.is(r.code, 0, `${sql}: ${r.stderr}`);
  }
  const t = await runCli(['roles', '--data', data]);
  assert.is(t.code, 0, t.stderr);
  assert.match(t.stdout, /grafana\s+yes\s+no\s+no\s+yes/);
  assert.match(t.stdout, /events\s+grafana\s+SELECT/);
  assert.match(t.stdout, /events\s+PUBLIC\s+INSERT/);
  const j = await runCli(['roles', '--data', data, '--json']);
  assert.equal(JSON.parse(j.stdout), {
    roles: { grafana: { superuser: false, login: true, readAllData: false, password: true } },
    tables: { events: { owner: null, grants: { grafana: ['SELECT'], public: ['INSERT'] } } },
    schemaCreate: [],
  });
  assert.not.match(t.stdout + j.stdout, 'SCRAM-SHA-256');
  const drop = await runCli(['sql', '--data', data, 'DROP ROLE grafana']);
  assert.is(drop.code, 1);
  assert.match(drop.stderr, 'ERROR:  2BP01: role "grafana" cannot be dropped because some objects depend on it');
});

test.run();

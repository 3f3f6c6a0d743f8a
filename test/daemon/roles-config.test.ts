/**
 * Read-only and plain roles from configuration, without SQL (issue #18): the users file's
 * entries (`{"password": …, "read_only": true}`, `"superuser": false`) and `--read-only-users`,
 * as serveAuthConfig reads them, and the clear error each malformed entry gets (the file, the
 * user, the key, what was expected). What such a role may then do is test/daemon/roles.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveAuthConfig } from '../../src/pgwire/index.js';
import { scramVerifier } from '../../src/table/index.js';
import { loadConfig } from '../../src/daemon/config.js';
import { tempDir } from '../support/tmp.js';
import { runCli } from '../support/spawn.js';
import { checkPassword } from '../../src/daemon/auth.js';

const v = scramVerifier('pw');

function file(users: unknown): string {
  const f = join(tempDir(), 'users.json');
  writeFileSync(f, JSON.stringify({ users }));
  return f;
}

test('users file: a verifier is a superuser; read_only and "superuser": false give attributes; --read-only-users adds', () => {
  const f = file({ admin: v, dash: { password: v, read_only: true }, loader: { password: v, superuser: false }, graf: v });
  const auth = serveAuthConfig({ cfg: v }, f, undefined, ['graf', 'cfg']);
  assert.equal(auth.users, { cfg: v, admin: v, dash: v, loader: v, graf: v });
  assert.equal(auth.attributes, {
    dash: { superuser: false, readAllData: true },
    loader: { superuser: false, readAllData: false },
    graf: { superuser: false, readAllData: true },
    cfg: { superuser: false, readAllData: true },
  });
  // Without any attribute, the result is what it was before roles.
  assert.equal(serveAuthConfig({}, file({ admin: v }), undefined), { method: 'scram-sha-256', users: { admin: v } });
});

test('users file: each malformed entry fails with the file, the user and what was expected', () => {
  const cases: [unknown, RegExp][] = [
    [{ dash: { read_only: true } }, /users file .*users\.json: user "dash": "password" must be a verifier string \(make one with paxd passwd\)/],
    [{ dash: { password: v, read_only: 'yes' } }, /user "dash": "read_only" must be true or false, got "yes"/],
    [{ dash: { password: v, readonly: true } }, /user "dash": unknown key "readonly" \(expected password, read_only, superuser\)/],
    [{ dash: { password: v, read_only: true, superuser: true } }, /user "dash" cannot be both read_only and superuser/],
    [{ dash: { password: 'not a verifier' } }, /the verifier of user "dash" is neither SCRAM-SHA-256/],
  ];
  for (const [users, want] of cases) {
    try {
      serveAuthConfig({}, file(users), undefined);
      assert.unreachable(JSON.stringify(users));
    } catch (e) {
      assert.match((e as Error).message, want);
      assert.is((e as { code: string }).code, '22023');
    }
  }
  assert.throws(() => serveAuthConfig({ a: v }, undefined, undefined, ['nobody']), /read-only user "nobody" is not a configured user/);
  // Under trust anyone may log in as anyone: a read-only name needs no verifier.
  assert.equal(serveAuthConfig({}, undefined, 'trust', ['dash']).attributes, { dash: { superuser: false, readAllData: true } });
});

test('read_only_users: flag --read-only-users, environment PAXD_READ_ONLY_USERS, config file', () => {
  assert.is(loadConfig({ env: {}, flags: { read_only_users: 'a,b' } }).read_only_users, 'a,b');
  assert.is(loadConfig({ env: { PAXD_READ_ONLY_USERS: 'grafana' } }).read_only_users, 'grafana');
  assert.is(loadConfig({ env: {} }).read_only_users, null);
});

test('paxd passwd USER --read-only prints the users-file entry of a read-only user', async () => {
  const r = await runCli(['passwd', 'grafana', '--read-only'], { stdin: Buffer.from('s3cret\n') });
  assert.is(r.code, 0, r.stderr);
  const entry = JSON.parse(r.stdout) as { password: string; read_only: boolean };
  assert.is(entry.read_only, true);
  assert.ok(await checkPassword(entry.password, 's3cret'), 'the verifier is of the password');
  const auth = serveAuthConfig({}, file({ grafana: entry }), undefined);
  assert.equal(auth.attributes, { grafana: { superuser: false, readAllData: true } });
});

test.run();

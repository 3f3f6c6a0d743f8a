/**
 * `paxd serve` configuration (docs/DAEMON.md): defaults < file < PAXD_* environment < flags; errors
 * name the key and where it came from; --print-config masks secrets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig, defaultConfig, printableConfig, makeVerifier, parseToml, checkPassword } from '../../src/daemon/index.js';
import { PaxdError } from '../../src/types/errors.js';
import { runCli } from '../support/spawn.js';
import { tempDir } from '../support/tmp.js';

function fails(f: () => unknown, pattern: RegExp): void {
  try {
    f();
  } catch (e) {
    assert.instance(e, PaxdError);
    assert.is((e as PaxdError).code, '22023');
    assert.match((e as PaxdError).message, pattern);
    return;
  }
  assert.unreachable(`expected an error matching ${pattern}`);
}

test('precedence: defaults < file < environment < flags', () => {
  const dir = tempDir();
  const file = join(dir, 'paxd.json');
  writeFileSync(file, JSON.stringify({ store: '/srv/a', on_error: 'skip', inbox_stable_ms: '2s', work_mem: '16MB', http: ':9000' }));
  const c = loadConfig({ file, env: { PAXD_HTTP: '127.0.0.1:9001', PAXD_WORK_MEM: '32MB' }, flags: { http: '127.0.0.1:9002' } });
  assert.is(c.store, '/srv/a');
  assert.is(c.on_error, 'skip');
  assert.is(c.inbox_stable_ms, 2000);
  assert.is(c.work_mem, 32 * 1024 * 1024);
  assert.is(c.http, '127.0.0.1:9002');
  assert.is(c.listen, '127.0.0.1:7432');
  assert.is(loadConfig({ env: { PAXD_DATA: '/x' } }).store, '/x');
  assert.is(loadConfig({ env: { PAXD_DATA: '/x', PAXD_STORE: '/y' } }).store, '/y');
});

test("authentication_timeout is PostgreSQL's: a bare number is seconds, 1 s to 10 min; printed with its unit", () => {
  assert.is(defaultConfig().authentication_timeout, 60_000);
  assert.is(loadConfig({ env: { PAXD_AUTHENTICATION_TIMEOUT: '5' } }).authentication_timeout, 5000);
  assert.is(loadConfig({ env: {}, flags: { authentication_timeout: '2min' } }).authentication_timeout, 120_000);
  fails(() => loadConfig({ env: { PAXD_AUTHENTICATION_TIMEOUT: '601' } }), /authentication_timeout/);
  fails(() => loadConfig({ env: { PAXD_AUTHENTICATION_TIMEOUT: '0' } }), /authentication_timeout/);
  const printed = JSON.parse(printableConfig(loadConfig({ env: { PAXD_AUTHENTICATION_TIMEOUT: '90s' } }))) as Record<string, unknown>;
  assert.is(printed.authentication_timeout, '90s');
  const file = join(tempDir(), 'printed.json');
  writeFileSync(file, JSON.stringify({ authentication_timeout: printed.authentication_timeout }));
  assert.is(loadConfig({ file, env: {} }).authentication_timeout, 90_000, 'reads back the same');
});

test('TOML files: keys, comments, [users]', async () => {
  const v = await makeVerifier('pw', randomBytes(16));
  const toml = `# paxd\nstore = "/var/lib/paxd"\ncompact_deleted_fraction = 0.5\ninbox_create = true\nlog_level = 'warn'  # quiet\n\n[users]\nalice = "${v}"\n`;
  assert.equal(parseToml(toml), { store: '/var/lib/paxd', compact_deleted_fraction: 0.5, inbox_create: true, log_level: 'warn', users: { alice: v } });
  const dir = tempDir();
  const file = join(dir, 'paxd.toml');
  writeFileSync(file, toml);
  const c = loadConfig({ file, env: {} });
  assert.is(c.users.alice, v);
  assert.ok(await checkPassword(c.users.alice!, 'pw'));
  assert.not.ok(await checkPassword(c.users.alice!, 'pW'));
});

test('errors name the key and the source', () => {
  const dir = tempDir();
  const file = join(dir, 'bad.json');
  writeFileSync(file, JSON.stringify({ on_error: 'ignore' }));
  fails(() => loadConfig({ file, env: {} }), /config file .*bad\.json: on_error: expected one of abort, skip, got "ignore"/);
  writeFileSync(file, JSON.stringify({ inbx: '/x' }));
  fails(() => loadConfig({ file, env: {} }), /inbx: unknown key/);
  fails(() => loadConfig({ env: { PAXD_WORK_MEM: 'lots' } }), /^environment PAXD_WORK_MEM: invalid value for parameter "work_mem": "lots"$/);
  fails(() => loadConfig({ env: { PAXD_COMPACT_DELETED_FRACTION: '1.5' } }), /compact_deleted_fraction: expected a fraction/);
  fails(() => loadConfig({ env: {}, flags: { listen: 'nowhere' } }), /flag --listen: listen: expected host:port/);
  fails(() => loadConfig({ env: { PAXD_USERS: '{"bob":"md5abc"}' } }), /users\.bob: expected a SCRAM-SHA-256 verifier/);
  const toml = join(dir, 'bad.toml');
  writeFileSync(toml, 'store = /x\n');
  fails(() => loadConfig({ file: toml, env: {} }), /bad\.toml:1: unsupported value/);
});

test('paxd serve --print-config: the effective configuration, secrets masked', async () => {
  const v = await makeVerifier('pw', randomBytes(16));
  const dir = tempDir();
  const file = join(dir, 'paxd.json');
  writeFileSync(file, JSON.stringify({ users: { alice: v }, on_error: 'skip' }));
  const r = await runCli(['serve', '--config', file, '--print-config', '--inbox', join(dir, 'in')], { env: { PAXD_LOG_LEVEL: 'debug' } });
  assert.is(r.code, 0, r.stderr);
  const c = JSON.parse(r.stdout) as Record<string, unknown>;
  assert.is(c.on_error, 'skip');
  assert.is(c.log_level, 'debug');
  assert.is(c.inbox, join(dir, 'in'));
  assert.equal(c.users, { alice: 'SCRAM-SHA-256$********' });
  assert.not.match(r.stdout, v.split('$')[2]!);
  const bad = await runCli(['serve', '--print-config'], { env: { PAXD_ON_ERROR: 'maybe' } });
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /22023: environment PAXD_ON_ERROR: on_error/);
});

test.run();

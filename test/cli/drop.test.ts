/**
 * DROP TABLE from the command line: `paxd sql "DROP TABLE t"`, after which `paxd tables` does
 * not list it, commands on it fail with 42P01, and `paxd vacuum t` still cleans it up.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/spawn.js';
import { tempDir } from '../support/tmp.js';

test('paxd sql DROP TABLE; paxd tables does not list it; vacuum leaves only the tombstone', async () => {
  const dir = tempDir();
  const data = ['--data', dir];
  let r = await runCli(['sql', 'CREATE TABLE keep (id int4)', ...data]);
  assert.is(r.code, 0, r.stderr);
  r = await runCli(['sql', 'CREATE TABLE gone (id int8, v text)', ...data]);
  assert.is(r.code, 0, r.stderr);
  r = await runCli(['sql', "INSERT INTO gone VALUES (1, 'a'), (2, 'b')", ...data]);
  assert.is(r.code, 0, r.stderr);
  r = await runCli(['sql', 'DROP TABLE gone', ...data]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, 'DROP TABLE');

  r = await runCli(['tables', '--json', ...data]);
  assert.is(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).map((t: { name: string }) => t.name), ['keep']);
  r = await runCli(['sql', 'DROP TABLE gone', ...data]);
  assert.is(r.code, 1);
  assert.is(r.stderr.trim(), 'paxd: ERROR:  42P01: table "gone" does not exist');
  r = await runCli(['stats', 'gone', ...data]);
  assert.is(r.code, 1);
  assert.match(r.stderr, 'relation "gone" does not exist');

  r = await runCli(['vacuum', 'gone', '--grace', '0', ...data]);
  assert.is(r.code, 0, r.stderr);
  // Files only (the local store leaves empty folders): the tombstone alone, with the checkpoint
  // vacuum writes of it and its hint (metadata v2: the tombstone is a delta; the checkpoint
  // frees the deltas below it, docs/FORMAT.md "Table metadata v2"). No data file is left.
  const files = readdirSync(join(dir, 'gone'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  assert.equal(files.map((e) => e.name).sort(), ['00000000000000000003.ckpt', '00000000000000000003.snap', '_checkpoint']);

  r = await runCli(['sql', 'CREATE TABLE gone (k text)', ...data]);
  assert.is(r.code, 0, r.stderr);
  r = await runCli(['sql', "INSERT INTO gone VALUES ('again')", ...data]);
  assert.is(r.code, 0, r.stderr);
  r = await runCli(['tables', ...data]);
  assert.match(r.stdout, /gone\s+1\b/);
});

test.run();

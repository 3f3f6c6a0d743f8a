/**
 * A store written by metadata v2's milestone 1 (test/fixtures/store-m1, written by
 * test/fixtures/make-store-m1.ts: deltas, a binary checkpoint that vacuum wrote and whose
 * deltas below it are gone, its hint, deltas after it) opens, answers, takes writes and passes
 * `paxd check` after the layout changes of issue #20's later milestones.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/table/database.js';
import { query, textRows } from '../../src/engine/index.js';
import { runCli, ROOT } from '../support/spawn.js';
import { tempDir } from '../support/tmp.js';

const FIXTURE = join(ROOT, 'test/fixtures/store-m1');

async function rows(db: Database, sql: string): Promise<(string | null)[][]> {
  return textRows(await query(db, sql)).map((r) => r.map((v) => (v === null ? null : String(v))));
}

test('a milestone-1 store: read, written, read again in a new process, checked', async () => {
  const dir = tempDir();
  cpSync(FIXTURE, dir, { recursive: true });
  for (const table of ['m1a', 'm1b']) {
    const r = await runCli(['check', table, '--data', dir]);
    assert.is(r.code, 0, r.stderr);
  }
  const db = await Database.open(dir);
  assert.equal((await db.tables()).map((t) => t.name), ['m1a', 'm1b']);
  assert.equal(await rows(db, 'SELECT id, name, amount FROM m1a ORDER BY id'), [['1', 'one', '1.50'], ['3', null, null], ['4', 'four', '4.00'], ['6', 'six', '6.00']]);
  assert.equal(await rows(db, 'SELECT count(*), sum(amount), min(id), max(id) FROM m1a'), [['4', '11.50', '1', '6']]);
  assert.equal(await rows(db, 'SELECT k, v, w FROM m1b ORDER BY k'), [['10', 'x', '7'], ['20', 'y', '7'], ['30', 'z', '7'], ['40', null, '9']]);
  assert.equal(await rows(db, 'SELECT count(*), sum(k) FROM m1b WHERE k > 15'), [['3', '90']]);
  await query(db, "INSERT INTO m1a VALUES (7, 'seven', 7.00)");
  await query(db, 'DELETE FROM m1a WHERE id = 1');
  await query(db, 'INSERT INTO m1b VALUES (50, NULL, 1)');
  await db.vacuum('m1a', { graceMs: 0 });
  await db.close();

  const again = await Database.open(dir);
  assert.equal(await rows(again, 'SELECT id FROM m1a ORDER BY id'), [['3'], ['4'], ['6'], ['7']]);
  assert.equal(await rows(again, 'SELECT count(*) FROM m1a'), [['4']]);
  assert.equal(await rows(again, 'SELECT k, w FROM m1b ORDER BY k'), [['10', '7'], ['20', '7'], ['30', '7'], ['40', '9'], ['50', '1']]);
  await again.close();
  for (const table of ['m1a', 'm1b']) {
    const r = await runCli(['check', table, '--data', dir]);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`table ${table} ok`));
  }
});

test.run();

/**
 * A store written by format v1 (before the store root log; test/fixtures/store-v1 was written
 * by commit 4e0dd3f's code: v1a with rows and a delete, v1b an ao_column table with an added
 * column, v1gone dropped) opens, answers, takes writes and passes `paxd check`
 * (docs/FORMAT.md "Format v1 stores"). Reading it writes nothing; its first commit creates root
 * 1 from the listing, the dropped table's numbering included.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/table/database.js';
import { query, textRows } from '../../src/engine/index.js';
import { listRootIds, readRootOrNull } from '../../src/storage/root.js';
import { runCli, ROOT } from '../support/spawn.js';
import { tempDir } from '../support/tmp.js';

const FIXTURE = join(ROOT, 'test/fixtures/store-v1');

async function rows(db: Database, sql: string): Promise<(string | null)[][]> {
  return textRows(await query(db, sql)).map((r) => r.map((v) => (v === null ? null : String(v))));
}

test('a v1 store: read without writing, then written (root 1 from the listing), checked', async () => {
  const dir = tempDir();
  cpSync(FIXTURE, dir, { recursive: true });
  const db = await Database.open(dir);
  assert.equal((await db.tables()).map((t) => t.name), ['v1a', 'v1b']);
  assert.equal(await db.droppedTables(), ['v1gone']);
  assert.equal(await rows(db, 'SELECT id, name, amount FROM v1a ORDER BY id'), [['1', 'one', '1.50'], ['3', null, null], ['4', 'four', '4.00']]);
  assert.equal(await rows(db, 'SELECT k, v, w FROM v1b ORDER BY k'), [['10', 'x', '7'], ['20', 'y', '7']]);
  assert.equal(await rows(db, 'SELECT count(*), sum(amount) FROM v1a'), [['3', '5.50']]);
  assert.is((await rows(db, 'SELECT id FROM v1gone').catch((e: { code: string }) => e.code)) as unknown, '42P01');
  assert.not.ok(existsSync(join(dir, '_paxd')), 'reading a v1 store wrote a root');

  await query(db, "INSERT INTO v1a VALUES (5, 'five', 5.00)");
  await query(db, 'DELETE FROM v1a WHERE id = 1');
  await query(db, 'INSERT INTO v1b VALUES (30, NULL, 8)');
  const t = await db.createTable('v1gone', [{ name: 'x', type: 'text' }]);
  assert.is(t.snapshot.id, 4, 'the re-created table numbers above the v1 tombstone');
  const ids = await listRootIds(db.store);
  assert.ok(ids.length >= 2);
  const first = await readRootOrNull(db.store, 1);
  assert.is(first!.operation, 'upgrade');
  assert.equal(first!.tables, { v1a: { snapshot: 4, incarnation: 1 }, v1b: { snapshot: 3, incarnation: 1 } });
  assert.equal(first!.dropped, { v1gone: 3 });
  await db.close();

  const again = await Database.open(dir);
  assert.equal(await rows(again, 'SELECT id, name FROM v1a ORDER BY id'), [['3', null], ['4', 'four'], ['5', 'five']]);
  assert.equal(await rows(again, 'SELECT k, w FROM v1b ORDER BY k'), [['10', '7'], ['20', '7'], ['30', '8']]);
  assert.equal((await again.tables()).map((x) => x.name), ['v1a', 'v1b', 'v1gone']);
  await again.close();
  for (const table of ['v1a', 'v1b', 'v1gone']) {
    const r = await runCli(['check', table, '--data', dir]);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`table ${table} ok`));
  }
});

test('the v1 fixture itself passes paxd check as it is', async () => {
  const dir = tempDir();
  cpSync(FIXTURE, dir, { recursive: true });
  for (const table of ['v1a', 'v1b']) {
    const r = await runCli(['check', table, '--data', dir]);
    assert.is(r.code, 0, r.stderr);
  }
  assert.not.ok(existsSync(join(dir, '_paxd')));
});

test.run();

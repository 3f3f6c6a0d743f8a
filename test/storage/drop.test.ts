/**
 * DROP TABLE in the storage layer (src/storage/drop.ts): the tombstone snapshot, what sees the
 * table gone (readers, writers, listings), pinned readers that keep reading, writers that race
 * the drop, re-create as a new incarnation above the tombstone, and vacuum of a dropped table.
 * The SQL statement and its errors are tested at the end and, against PostgreSQL, in
 * fixtures/sql/statements/06-drop-table.sql.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/table/database.js';
import { query, textRows } from '../../src/engine/index.js';
import { commit, createTable, latestSnapshot, listSnapshots, listTables, newestSnapshotInfo } from '../../src/storage/catalog.js';
import { dropTable } from '../../src/storage/drop.js';
import { LocalStore } from '../../src/storage/local.js';
import { columnOf, getValue } from '../../src/types/builder.js';
import { readAll } from '../support/columns.js';
import { tempDir } from '../support/tmp.js';
import { dataFile, rejection, sampleSnapshot, checkpointed, listedShape } from './helpers.js';

const HOUR = 3_600_000;

/** Makes every object under `prefix` look two hours old (past vacuum's default grace). */
async function ageAll(store: LocalStore, prefix: string): Promise<void> {
  const t = (Date.now() - 2 * HOUR) / 1000;
  for (const o of await store.list(prefix)) utimesSync(join(store.root, ...o.path.split('/')), t, t);
}

async function rowsOf(db: Database, sql: string): Promise<string[][]> {
  return textRows(await query(db, sql)).map((r) => r.map((v) => (v === null ? 'NULL' : String(v))));
}

async function withRows(db: Database, name: string, layout: 'pax' | 'ao_column' = 'pax'): Promise<void> {
  await query(db, `CREATE TABLE ${name} (id int8 NOT NULL, v text) WITH (layout = ${layout})`);
  await query(db, `INSERT INTO ${name} VALUES (1, 'a'), (2, 'b'), (3, NULL)`);
}

test('the drop commits a tombstone: snapshot N+1, operation drop, no files; the table is then 42P01 everywhere', async () => {
  const store = new LocalStore(tempDir());
  await createTable(store, sampleSnapshot('t'));
  await createTable(store, sampleSnapshot('u'));
  await commit(store, 't', (b) => ({ ...b, operation: 'append', files: [dataFile('data/a.pax')], ingested: [{ name: 'a.csv', size: 1, hash: 'sha256:00' }] }));
  const tomb = await dropTable(store, 't');
  assert.is(tomb.id, 3);
  assert.is(tomb.parent, 2);
  assert.is(tomb.operation, 'drop');
  assert.equal(tomb.files, []);
  assert.is(tomb.ingested, undefined);
  assert.equal(tomb.fields, sampleSnapshot().fields, 'the schema is kept for the record');
  const newest = await newestSnapshotInfo(store, 't');
  assert.equal(newest.snapshot, tomb);

  assert.is((await rejection(latestSnapshot(store, 't'))).code, '42P01');
  assert.is((await rejection(commit(store, 't', (b) => b))).code, '42P01');
  assert.is((await rejection(dropTable(store, 't'))).code, '42P01', 'dropping a dropped table');
  assert.is((await rejection(dropTable(store, 'nope'))).code, '42P01');
  assert.equal(await listTables(store), ['u']);
  assert.equal(await listTables(store, { dropped: true }), ['t', 'u']);
  // The listing remembers what it read: an unchanged store is listed again without reads.
  assert.equal(await listTables(store), ['u']);
});

test('a writer that commits first is dropped with the table; one that loses the race to the drop gets 42P01', async () => {
  const store = new LocalStore(tempDir());
  await createTable(store, sampleSnapshot('t'));
  await commit(store, 't', (b) => ({ ...b, operation: 'append', files: [...b.files, dataFile('data/first.pax')] }));
  // The loser: it builds on snapshot 2, the drop wins number 3 meanwhile.
  let dropped = false;
  const err = await rejection(
    commit(store, 't', async (b) => {
      if (!dropped) {
        dropped = true;
        await dropTable(store, 't');
      }
      return { ...b, operation: 'append', files: [...b.files, dataFile('data/late.pax')] };
    }),
  );
  assert.is(err.code, '42P01');
  const snaps = await listSnapshots(store, 't');
  assert.equal(snaps.map((s) => s.id), [3, 2, 1], 'no snapshot after the tombstone');
});

test('readers that pinned a snapshot keep reading it after the drop; vacuum keeps its files for the grace period', async () => {
  const dir = tempDir();
  const db = await Database.open(dir);
  await withRows(db, 't');
  const pinned = await db.table('t');
  assert.is((await db.dropTable('t')).operation, 'drop');
  assert.is((await rejection(db.table('t'))).code, '42P01');
  assert.is((await rejection(pinned.refresh())).code, '42P01');
  const cols = await readAll(pinned.scan({ columns: ['id'] }));
  assert.equal([0, 1, 2].map((i) => getValue(cols[0]!, i)), [1n, 2n, 3n]);
  // Default grace: everything is young, nothing goes.
  const r = await db.vacuum('t', {});
  assert.is(r.filesRemoved + r.snapshotsRemoved, 0);
  assert.is((await readAll(pinned.scan({ columns: ['v'] })))[0]!.length, 3);
  await db.close();
});

test('vacuum of a dropped table removes its data files and older snapshots, keeps the tombstone', async () => {
  const dir = tempDir();
  const db = await Database.open(dir);
  const store = db.store as LocalStore;
  await withRows(db, 't');
  await query(db, "INSERT INTO t VALUES (4, 'd')");
  await query(db, 'DELETE FROM t WHERE id = 1');
  const tomb = await db.dropTable('t');
  assert.equal(await db.droppedTables(), ['t']);
  await ageAll(store, 't/');
  await ageAll(store, '_paxd/root/'); // the roots that named the older snapshots too
  const r = await db.vacuum('t', {});
  assert.is(r.snapshotsKept, 1);
  assert.ok(r.snapshotsRemoved >= 3 && r.filesRemoved >= 2, JSON.stringify(r));
  const left = (await store.list('t/')).map((o) => o.path);
  assert.equal(listedShape(left), checkpointed('t', tomb.id, 0));
  // Vacuumed again: nothing more to do, and the name is still free to create.
  const again = await db.vacuum('t', {});
  assert.is(again.snapshotsRemoved + again.filesRemoved, 0);
  const t = await db.createTable('t', [{ name: 'x', type: 'int4' }]);
  assert.is(t.snapshot.id, tomb.id + 1, 'numbering continues above the tombstone');
  assert.equal(await db.droppedTables(), []);
  assert.is((await rejection(db.vacuum('never', {}))).code, '42P01');
  await db.close();
});

test('CREATE after DROP: snapshot N+1 above the tombstone, a new incarnation, empty, with the new schema and options', async () => {
  const db = await Database.open(tempDir());
  await withRows(db, 't');
  const tomb = await db.dropTable('t');
  const t = await db.createTable('t', [{ name: 'k', type: 'text', notNull: true }, { name: 'n', type: 'numeric(10,2)' }], { codec: 'zstd' });
  assert.is(t.snapshot.id, tomb.id + 1);
  assert.is(t.snapshot.parent, tomb.id);
  assert.is(t.snapshot.incarnation, tomb.id + 1);
  assert.is(t.snapshot.operation, 'create');
  assert.equal(t.snapshot.files, []);
  assert.equal(t.fields.map((f) => [f.name, f.fieldId]), [['k', 1], ['n', 2]]);
  assert.is(t.snapshot.nextFieldId, 3);
  assert.is(t.snapshot.options.codec, 'zstd');
  assert.equal(await rowsOf(db, 'SELECT count(*) FROM t'), [['0']]);
  await query(db, "INSERT INTO t VALUES ('x', 1.5)");
  const after = await db.table('t');
  assert.is(after.snapshot.incarnation, tomb.id + 1, 'carried forward by later commits');
  assert.equal(await rowsOf(db, 'SELECT * FROM t'), [['x', '1.50']]);
  assert.equal((await db.tables()).map((i) => [i.name, i.rows]), [['t', 1]]);
  assert.is((await rejection(db.createTable('t', [{ name: 'z', type: 'int4' }]))).code, '42P07');
  await db.close();
});

test('two creates racing over a tombstone: exactly one wins, the other gets 42P07', async () => {
  const db = await Database.open(tempDir());
  await withRows(db, 't');
  await db.dropTable('t');
  const results = await Promise.allSettled([db.createTable('t', [{ name: 'a', type: 'int4' }]), db.createTable('t', [{ name: 'b', type: 'int4' }])]);
  assert.is(results.filter((r) => r.status === 'fulfilled').length, 1);
  const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
  assert.is((lost.reason as { code: string }).code, '42P07');
  await db.close();
});

test('a sink, an ALTER or a transaction begun before DROP + CREATE of its table fails with 42P01 instead of writing into the new table', async () => {
  const db = await Database.open(tempDir());
  await withRows(db, 't');
  const old = await db.table('t');
  const sink = old.sink();
  await sink.write({ length: 1, columns: [columnOf({ id: 'int8' }, [9n]), columnOf({ id: 'text' }, ['late'])], selection: null });
  await db.dropTable('t');
  assert.is((await rejection(sink.commit())).code, '42P01', 'into a dropped table');

  const sink2 = old.sink();
  await sink2.write({ length: 1, columns: [columnOf({ id: 'int8' }, [9n]), columnOf({ id: 'text' }, ['late'])], selection: null });
  await db.createTable('t', [{ name: 'id', type: 'int8', notNull: true }, { name: 'v', type: 'text' }]);
  assert.is((await rejection(sink2.commit())).code, '42P01', 'into a table dropped and created again');
  assert.is((await rejection(old.addColumn({ name: 'w', type: 'int4' }))).code, '42P01');
  assert.equal(await rowsOf(db, 'SELECT count(*) FROM t'), [['0']]);
  // Ingest into the name after a drop, without re-create: 42P01.
  await db.dropTable('t');
  assert.is((await rejection(query(db, "INSERT INTO t VALUES (1, 'x')"))).code, '42P01');
  await db.close();
});

test('ao_column: a re-created table numbers its segment sets above the dropped one, whose segments pinned readers still read', async () => {
  const dir = tempDir();
  const db = await Database.open(dir);
  await withRows(db, 'a', 'ao_column');
  await query(db, "INSERT INTO a VALUES (4, 'd')");
  const pinned = await db.table('a');
  const oldSets = pinned.snapshot.ao!.segments.map((s) => s.segno);
  await db.dropTable('a');
  await query(db, 'CREATE TABLE a (id int8 NOT NULL, v text) WITH (layout = ao_column)');
  await query(db, "INSERT INTO a VALUES (10, 'new')");
  const now = await db.table('a');
  const newSets = now.snapshot.ao!.segments.map((s) => s.segno);
  assert.ok(Math.min(...newSets) > Math.max(...oldSets), `new sets ${newSets} above old ${oldSets}`);
  for (const s of oldSets) assert.ok(existsSync(join(dir, 'a', 'ao', '1', `${s}.seg`)));
  const cols = await readAll(pinned.scan({ columns: ['id', 'v'] }));
  assert.equal([0, 1, 2, 3].map((i) => getValue(cols[0]!, i)), [1n, 2n, 3n, 4n]);
  assert.equal(await rowsOf(db, 'SELECT id, v FROM a'), [['10', 'new']]);
  // Dropped again, re-created as pax, dropped, then ao_column again: still above everything.
  await db.dropTable('a');
  await query(db, 'CREATE TABLE a (id int8)');
  await db.dropTable('a');
  await query(db, 'CREATE TABLE a (id int8) WITH (layout = ao_column)');
  await query(db, 'INSERT INTO a VALUES (1)');
  const third = (await db.table('a')).snapshot.ao!.segments.map((s) => s.segno);
  assert.ok(Math.min(...third) > Math.max(...newSets), `third sets ${third} above ${newSets}`);
  await db.close();
});

test('DROP TABLE statement: tag, IF EXISTS, several names, 42P01 with PostgreSQL wording and nothing dropped', async () => {
  const db = await Database.open(tempDir());
  await withRows(db, 'a');
  await withRows(db, 'b');
  await withRows(db, 'c');
  const e = await rejection(query(db, 'DROP TABLE a, nope, b'));
  assert.is(e.code, '42P01');
  assert.is(e.message, 'table "nope" does not exist');
  assert.equal((await db.tables()).map((t) => t.name), ['a', 'b', 'c'], 'nothing dropped');
  assert.is((await query(db, 'DROP TABLE IF EXISTS a, nope, b CASCADE')).tag, 'DROP TABLE');
  assert.equal((await db.tables()).map((t) => t.name), ['c']);
  assert.is((await query(db, 'DROP TABLE IF EXISTS a')).tag, 'DROP TABLE');
  assert.is((await query(db, 'DROP TABLE c, c RESTRICT')).tag, 'DROP TABLE');
  assert.equal(await db.tables(), []);
  assert.is((await rejection(query(db, 'SELECT * FROM c'))).code, '42P01');
  assert.is((await query(db, 'CREATE TABLE IF NOT EXISTS c (z int4)')).tag, 'CREATE TABLE');
  assert.equal(await rowsOf(db, 'SELECT count(*) FROM c'), [['0']]);
  await db.close();
});

test.run();

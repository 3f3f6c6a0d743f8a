/**
 * UPDATE and DELETE through write sets (docs/MIRROR.md), embedded: statistics stay exact after a
 * transaction's updates (aggregates from statistics equal a full scan), staged files span
 * several row groups and savepoints cut through them, a compaction or a delete committed
 * meanwhile fails COMMIT with 40001 and leaves nothing, an autocommit statement that loses
 * such a race is re-run, ctids stay stable, ao_column tables, and a staged file removed by
 * vacuum fails the COMMIT instead of committing a dangling reference. The differential cases
 * (tags, errors, values against PostgreSQL) are fixtures/sql/statements/05-update-truncate.sql.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { query, textRows } from '../../src/engine/index.js';
import { Transaction } from '../../src/pgwire/session/transaction.js';
import { formatCtid } from '../../src/scan/index.js';
import { isPaxdError } from '../../src/types/index.js';
import { MemStore } from '../support/memstore.js';

/** A MemStore that runs `hook` once, before the next snapshot write. */
class RacingStore extends MemStore {
  hook: (() => Promise<void>) | null = null;
  override async putIfAbsent(path: string, bytes: Uint8Array): Promise<boolean> {
    if (path.includes('/_snapshots/') && this.hook !== null) {
      const h = this.hook;
      this.hook = null;
      await h();
    }
    return super.putIfAbsent(path, bytes);
  }
}

async function setup(layout: 'pax' | 'ao_column' = 'pax'): Promise<{ store: RacingStore; db: Database }> {
  const store = new RacingStore();
  const db = await Database.open(store);
  await query(db, `CREATE TABLE t (id int8 NOT NULL, g int4, v text, x float8) WITH (layout = ${layout})`);
  await db.table('t').then((t) => t); // created
  return { store, db };
}

async function fill(db: Database, from: number, n: number): Promise<void> {
  const rows = Array.from({ length: n }, (_, i) => `(${from + i}, ${(from + i) % 7}, 'v${from + i}', ${(from + i) / 4})`);
  await query(db, `INSERT INTO t VALUES ${rows.join(', ')}`);
}

async function text(db: Database, sql: string): Promise<(string | null)[][]> {
  return textRows(await query(db, sql));
}

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return isPaxdError(e) ? e.code : String(e);
  }
  return 'no error';
}

/** Aggregates answered from statistics must equal the same aggregates over a full scan (the `+ 0` defeats statistics). */
async function assertStatsExact(db: Database): Promise<void> {
  const fromStats = await text(db, 'SELECT count(*), count(v), min(id), max(id), sum(id), sum(g), min(v), max(v), sum(x) FROM t');
  const scanned = await text(db, 'SELECT count(*), count(v), min(id + 0), max(id + 0), sum(id + 0), sum(g + 0), min(v || \'\'), max(v || \'\'), sum(x + 0) FROM t');
  assert.equal(fromStats, scanned);
}

test('a transaction: updates across groups, statistics exact inside and after COMMIT, one snapshot', async () => {
  const { db } = await setup();
  for (let i = 0; i < 4; i++) await fill(db, i * 100, 100);
  const before = (await db.table('t')).snapshot.id;
  const tx = new Transaction(db);
  assert.equal(await text(tx.db, "UPDATE t SET v = 'big', g = g + 100 WHERE id % 50 = 0 OR id > 390"), []);
  assert.equal(textRows(await query(tx.db, 'DELETE FROM t WHERE g = 3 AND x < 20')).length, 0);
  await assertStatsExact(tx.db);
  assert.equal(await text(tx.db, "SELECT count(*) FROM t WHERE v = 'big'"), [['17']]);
  assert.equal(await text(db, "SELECT count(*) FROM t WHERE v = 'big'"), [['0']]);
  await tx.commit();
  const after = await db.table('t');
  assert.is(after.snapshot.id, before + 1);
  assert.equal(await text(db, "SELECT count(*), sum(g) FROM t WHERE v = 'big'"), [['17', String(await sumG(db))]]);
  await assertStatsExact(db);
  const c = await after.compact();
  assert.ok(c.filesRewritten > 0);
  await assertStatsExact(db);
});

async function sumG(db: Database): Promise<number> {
  let s = 0;
  for (const [g] of await text(db, "SELECT g FROM t WHERE v = 'big'")) s += Number(g);
  return s;
}

test('buffered inserts flush at a full row group; a savepoint cuts through a staged file', async () => {
  const store = new RacingStore();
  const db = await Database.open(store);
  await db.createTable('t', [{ name: 'id', type: 'int8', notNull: true }, { name: 'g', type: 'int4' }, { name: 'v', type: 'text' }, { name: 'x', type: 'float8' }], { rowGroupRows: 8 });
  const tx = new Transaction(db);
  for (let i = 0; i < 20; i++) await query(tx.db, `INSERT INTO t (id) VALUES (${i})`);
  const ws = (await tx.db.writeSet('t'))!;
  assert.is(ws.files().length, 2, 'two full groups written, four rows buffered');
  await tx.savepoint('a');
  for (let i = 20; i < 23; i++) await query(tx.db, `INSERT INTO t (id) VALUES (${i})`);
  assert.equal(await text(tx.db, 'SELECT count(*), max(id) FROM t'), [['23', '22']]); // flushed for the read
  await query(tx.db, 'DELETE FROM t WHERE id < 2');
  await query(tx.db, 'UPDATE t SET g = 1 WHERE id = 21');
  await tx.rollbackTo('a');
  assert.equal(await text(tx.db, 'SELECT count(*), max(id), min(id), count(g) FROM t'), [['20', '19', '0', '0']]);
  await query(tx.db, 'INSERT INTO t (id) VALUES (100)');
  await tx.commit();
  assert.equal(await text(db, 'SELECT count(*), max(id), sum(id) FROM t'), [['21', '100', String(190 + 100)]]);
  await assertStatsExact(db);
});

test('COMMIT fails with 40001 when a concurrent commit deleted the same row or compacted the group; nothing is left', async () => {
  const { db } = await setup();
  await fill(db, 0, 10);
  const tx = new Transaction(db);
  await query(tx.db, "UPDATE t SET v = 'tx' WHERE id = 3");
  await query(tx.db, 'INSERT INTO t (id) VALUES (99)');
  await query(db, 'DELETE FROM t WHERE id = 3');
  assert.is(await code(tx.commit()), '40001');
  assert.equal(await text(db, "SELECT count(*), count(*) FILTER (WHERE v = 'tx'), max(id) FROM t"), [['9', '0', '9']]);

  const tx2 = new Transaction(db);
  await query(tx2.db, 'DELETE FROM t WHERE id = 5');
  await query(db, 'DELETE FROM t WHERE id = 6');
  await (await db.table('t')).compact();
  assert.is(await code(tx2.commit()), '40001');
  assert.equal(await text(db, 'SELECT count(*) FROM t'), [['8']]);

  // Disjoint work commutes: a concurrent append and delete in the same group.
  const tx3 = new Transaction(db);
  await query(tx3.db, 'DELETE FROM t WHERE id = 7');
  await query(db, 'DELETE FROM t WHERE id = 8');
  await fill(db, 50, 2);
  await tx3.commit();
  assert.equal(await text(db, 'SELECT id FROM t ORDER BY id'), [['0'], ['1'], ['2'], ['4'], ['5'], ['9'], ['50'], ['51']]);
});

test('a transaction that wrote two tables: a conflict at either leaves both as they were', async () => {
  const { db } = await setup();
  await fill(db, 0, 5);
  await query(db, 'CREATE TABLE u (id int4)');
  await query(db, 'INSERT INTO u VALUES (1), (2)');
  const tx = new Transaction(db);
  await query(tx.db, 'INSERT INTO t (id) VALUES (50)');
  await query(tx.db, 'DELETE FROM u WHERE id = 2');
  await query(db, 'DELETE FROM u WHERE id = 2');
  assert.is(await code(tx.commit()), '40001');
  assert.equal([await text(db, 'SELECT count(*) FROM t'), await text(db, 'SELECT count(*) FROM u')], [[['5']], [['1']]]);
});

test('an autocommit UPDATE that loses the race to a conflicting delete is re-run on the latest snapshot', async () => {
  const { store, db } = await setup();
  await fill(db, 0, 6);
  store.hook = async () => {
    await query(db, 'DELETE FROM t WHERE id = 2');
  };
  const r = await query(db, "UPDATE t SET v = 'u' WHERE id <= 3");
  assert.is(r.tag, 'UPDATE 3');
  assert.equal(await text(db, 'SELECT id, v FROM t ORDER BY id'), [['0', 'u'], ['1', 'u'], ['3', 'u'], ['4', 'v4'], ['5', 'v5']]);
});

test('ctids name the same rows for the whole transaction; a row updated names nothing afterwards', async () => {
  const { db } = await setup();
  await fill(db, 0, 4);
  await fill(db, 10, 2);
  const tx = new Transaction(db);
  assert.equal(await text(tx.db, `UPDATE t SET v = 'a' WHERE ctid = '${formatCtid(0, 2)}' RETURNING id, v`), [['2', 'a']]);
  assert.equal(await text(tx.db, `UPDATE t SET v = 'b' WHERE ctid = '${formatCtid(0, 2)}' RETURNING id`), []);
  assert.equal(await text(tx.db, `DELETE FROM t WHERE ctid = '${formatCtid(1, 1)}' AND id > 100 RETURNING id`), []);
  assert.equal(await text(tx.db, `DELETE FROM t WHERE ctid = '${formatCtid(1, 1)}'::tid RETURNING id`), [['11']]);
  assert.is(await code(query(tx.db, "DELETE FROM t WHERE ctid = '(0,1)'::int4")), '0A000');
  assert.is(await code(query(tx.db, "DELETE FROM t WHERE ctid = 'x'")), '22P02');
  // The updated row's new version is in a staged file after the pinned ones: rank 2, row 0.
  assert.equal(await text(tx.db, 'SELECT id, ctid FROM t WHERE v = \'a\''), [['2', formatCtid(2, 0)]]);
  assert.equal(await text(tx.db, `UPDATE t SET v = 'c' WHERE ctid = '${formatCtid(2, 0)}' RETURNING id, v`), [['2', 'c']]);
  await tx.commit();
  assert.equal(await text(db, 'SELECT id, v FROM t ORDER BY id'), [['0', 'v0'], ['1', 'v1'], ['2', 'c'], ['3', 'v3'], ['10', 'v10']]);
});

test('ao_column tables: a transaction stages PAX files; compaction and check afterwards', async () => {
  const { db } = await setup('ao_column');
  await fill(db, 0, 30);
  const tx = new Transaction(db);
  await query(tx.db, "UPDATE t SET v = 'ao' WHERE g = 1");
  await query(tx.db, 'DELETE FROM t WHERE g = 2');
  await query(tx.db, 'INSERT INTO t (id, g) VALUES (100, 9)');
  await tx.commit();
  const expect = [['27', '5', '485']];
  assert.equal(await text(db, "SELECT count(*), count(*) FILTER (WHERE v = 'ao'), sum(id) FROM t"), expect);
  await assertStatsExact(db);
  const t = await db.table('t');
  await t.compact();
  assert.equal(await text(db, "SELECT count(*), count(*) FILTER (WHERE v = 'ao'), sum(id) FROM t"), expect);
  const checked = await (await db.table('t')).check();
  assert.equal(checked.problems, []);
});

test('a staged file removed by vacuum (a transaction older than the grace) fails COMMIT with 40001', async () => {
  const { db } = await setup();
  await fill(db, 0, 3);
  const tx = new Transaction(db);
  await query(tx.db, 'INSERT INTO t (id) VALUES (7)');
  assert.equal(await text(tx.db, 'SELECT count(*) FROM t'), [['4']]); // staged now
  await db.vacuum('t', { graceMs: 0 });
  assert.is(await code(tx.commit()), '40001');
  assert.equal(await text(db, 'SELECT count(*) FROM t'), [['3']]);
});

test.run();

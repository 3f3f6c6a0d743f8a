/**
 * TRUNCATE (docs/MIRROR.md), embedded: one new snapshot per table with no files (they become
 * garbage for vacuum), in a transaction only at COMMIT, undone by ROLLBACK TO SAVEPOINT, and
 * rows inserted after it in the same transaction kept. Tags and errors against PostgreSQL are
 * in fixtures/sql/statements/05-update-truncate.sql.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { query, textRows } from '../../src/engine/index.js';
import { Transaction } from '../../src/pgwire/session/transaction.js';
import { MemStore } from '../support/memstore.js';

async function setup(): Promise<Database> {
  const db = await Database.open(new MemStore());
  await query(db, 'CREATE TABLE a (id int4 NOT NULL, v text)');
  await query(db, 'CREATE TABLE b (id int4)');
  await query(db, "INSERT INTO a VALUES (1, 'x'), (2, 'y')");
  await query(db, "INSERT INTO a VALUES (3, 'z')");
  await query(db, 'INSERT INTO b VALUES (1)');
  return db;
}

const count = async (db: Database, t: string) => textRows(await query(db, `SELECT count(*) FROM ${t}`))[0]![0];

test('autocommit: one snapshot per table without files; vacuum then removes the data files', async () => {
  const db = await setup();
  const before = (await db.table('a')).snapshot.id;
  const r = await query(db, 'TRUNCATE a, b CONTINUE IDENTITY RESTRICT');
  assert.is(r.tag, 'TRUNCATE TABLE');
  const a = await db.table('a');
  assert.equal([a.snapshot.id, a.snapshot.files.length, a.rows, a.snapshot.summary?.command], [before + 1, 0, 0, 'truncate']);
  assert.equal([await count(db, 'a'), await count(db, 'b')], ['0', '0']);
  const v = await db.vacuum('a', { graceMs: 0 });
  assert.is(v.filesRemoved, 2);
  assert.equal((await db.store.list('a/data/')).length, 0);
});

test('in a transaction: invisible to others until COMMIT; rows inserted after it stay; concurrent appends go too', async () => {
  const db = await setup();
  const tx = new Transaction(db);
  await query(tx.db, 'INSERT INTO a VALUES (4, \'w\')');
  await query(tx.db, 'TRUNCATE a');
  assert.is(await count(tx.db, 'a'), '0');
  await query(tx.db, "INSERT INTO a VALUES (5, 'after')");
  assert.is(await count(tx.db, 'a'), '1');
  assert.is(await count(db, 'a'), '3');
  await query(db, "INSERT INTO a VALUES (6, 'concurrent')");
  await tx.commit();
  assert.equal(textRows(await query(db, 'SELECT id, v FROM a')), [['5', 'after']]);
});

test('ROLLBACK TO SAVEPOINT undoes a TRUNCATE and what followed it', async () => {
  const db = await setup();
  const tx = new Transaction(db);
  await query(tx.db, "INSERT INTO a VALUES (4, 'w')");
  await tx.savepoint('s');
  await query(tx.db, 'TRUNCATE a');
  await query(tx.db, "INSERT INTO a VALUES (5, 'gone')");
  assert.is(await count(tx.db, 'a'), '1');
  await tx.rollbackTo('s');
  assert.equal(textRows(await query(tx.db, 'SELECT id FROM a ORDER BY id')), [['1'], ['2'], ['3'], ['4']]);
  await tx.commit();
  assert.equal(textRows(await query(db, 'SELECT id FROM a ORDER BY id')), [['1'], ['2'], ['3'], ['4']]);
});

test.run();

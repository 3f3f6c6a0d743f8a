/**
 * Views and CREATE TABLE AS beyond one statement (src/engine/statements/view.ts,
 * create-table-as.ts; src/table/views.ts): a view survives Database.close and open, other
 * sessions see it at their next snapshot, CREATE VIEW / DROP VIEW / CREATE TABLE AS in a
 * transaction block commit with it or vanish with ROLLBACK, a failed CREATE TABLE AS leaves no
 * table, listViews gives the catalog helper what it needs, and `paxd tables` shows the kind.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { listViews } from '../../src/table/index.js';
import { query, textRows } from '../../src/engine/index.js';
import { Transaction } from '../../src/pgwire/session/transaction.js';
import { pgDisplayName } from '../../src/types/index.js';
import { runCli } from '../support/spawn.js';
import { join } from 'node:path';
import { tempDir } from '../support/tmp.js';

async function rows(db: Database, sql: string): Promise<(string | null)[][]> {
  return textRows(await query(db, sql));
}

async function code(db: Database, sql: string): Promise<string> {
  try {
    await query(db, sql);
    return 'ok';
  } catch (e) {
    return (e as { code: string }).code;
  }
}

test('a view survives close and open; its columns and definition are in the catalog', async () => {
  const dir = tempDir();
  let db = await Database.open(dir);
  await query(db, 'CREATE TABLE t (a int4, p numeric(8,2))');
  await query(db, 'INSERT INTO t VALUES (1, 1.5), (2, 2.5), (3, NULL)');
  await query(db, 'CREATE VIEW v (x, total) AS SELECT a * 10, p FROM t WHERE a > 1');
  await query(db, 'CREATE VIEW w AS SELECT x FROM v');
  await db.close();
  db = await Database.open(dir);
  try {
    assert.equal(await rows(db, 'SELECT * FROM v ORDER BY x'), [['20', '2.50'], ['30', null]]);
    assert.equal(await rows(db, 'SELECT * FROM w ORDER BY x'), [['20'], ['30']]);
    const views = await listViews(db.pinned());
    assert.equal(
      views.map((v) => ({ name: v.name, columns: v.columns.map((c) => `${c.name} ${pgDisplayName(c.type)}`), definition: v.definition, dependsOn: v.dependsOn })),
      [
        { name: 'v', columns: ['x integer', 'total numeric(8,2)'], definition: 'SELECT a * 10, p FROM t WHERE a > 1', dependsOn: ['t'] },
        { name: 'w', columns: ['x integer'], definition: 'SELECT x FROM v', dependsOn: ['v'] },
      ],
    );
    assert.equal(
      (await db.tables()).map((t) => [t.name, t.kind]),
      [['t', 'table'], ['v', 'view'], ['w', 'view']],
    );
    assert.is(await code(db, 'DROP TABLE t'), '2BP01');
    await query(db, 'DROP TABLE t CASCADE');
  } finally {
    await db.close();
  }
  db = await Database.open(dir);
  try {
    assert.equal(await db.tables(), []);
    assert.is(await code(db, 'SELECT * FROM w'), '42P01');
  } finally {
    await db.close();
  }
});

test('another session sees a view at its next snapshot, not inside a transaction that pinned an older one', async () => {
  const dir = tempDir();
  const a = await Database.open(dir);
  const b = await Database.open(dir);
  try {
    await query(a, 'CREATE TABLE t (a int4)');
    await query(a, 'INSERT INTO t VALUES (1), (2)');
    const tx = new Transaction(b);
    assert.equal(await rows(tx.db, 'SELECT count(*) FROM t'), [['2']]);
    await query(a, 'CREATE VIEW v AS SELECT a FROM t WHERE a > 1');
    assert.is(await code(tx.db, 'SELECT * FROM v'), '42P01');
    await tx.commit();
    assert.equal(await rows(b, 'SELECT * FROM v'), [['2']]);
  } finally {
    await a.close();
    await b.close();
  }
});

test('CREATE VIEW, DROP VIEW and CREATE TABLE AS in a transaction block: at COMMIT, or never', async () => {
  const db = await Database.open(tempDir());
  try {
    await query(db, 'CREATE TABLE t (a int4)');
    await query(db, 'INSERT INTO t VALUES (1), (2), (3)');
    let tx = new Transaction(db);
    await query(tx.db, 'CREATE VIEW v AS SELECT a FROM t WHERE a >= 2');
    await query(tx.db, 'CREATE TABLE c AS SELECT a * 2 AS b FROM t');
    assert.equal(await rows(tx.db, 'SELECT count(*) FROM v'), [['2']]);
    assert.equal(await rows(tx.db, 'SELECT sum(b) FROM c'), [['12']]);
    assert.is(await code(db, 'SELECT * FROM v'), '42P01');
    assert.is(await code(db, 'SELECT * FROM c'), '42P01');
    await tx.abort();
    assert.equal(await db.tables().then((l) => l.map((t) => t.name)), ['t']);

    tx = new Transaction(db);
    await query(tx.db, 'CREATE VIEW v AS SELECT a FROM t WHERE a >= 2');
    const r = await query(tx.db, 'SELECT a INTO c FROM t WHERE a < 3');
    assert.is(r.tag, 'SELECT 2');
    await tx.commit();
    assert.equal(await rows(db, 'SELECT * FROM v ORDER BY a'), [['2'], ['3']]);
    assert.equal(await rows(db, 'SELECT * FROM c ORDER BY a'), [['1'], ['2']]);

    tx = new Transaction(db);
    await query(tx.db, 'DROP VIEW v');
    assert.is(await code(tx.db, 'SELECT * FROM v'), '42P01');
    assert.equal(await rows(db, 'SELECT count(*) FROM v'), [['2']]);
    assert.is(await code(tx.db, 'CREATE OR REPLACE VIEW c2 AS SELECT 1 AS one'), 'ok');
    await tx.commit();
    assert.is(await code(db, 'SELECT * FROM v'), '42P01');
    assert.equal(await rows(db, 'SELECT * FROM c2'), [['1']]);
    // OR REPLACE of a view that exists commits on its own: not inside a block.
    tx = new Transaction(db);
    assert.is(await code(tx.db, 'CREATE OR REPLACE VIEW c2 AS SELECT 1 AS one, 2 AS two'), '0A000');
    await tx.abort();
  } finally {
    await db.close();
  }
});

test('a CREATE TABLE AS that fails leaves no table behind; writes into a view are 0A000 everywhere', async () => {
  const db = await Database.open(tempDir());
  try {
    await query(db, 'CREATE TABLE t (a int4)');
    await query(db, 'INSERT INTO t VALUES (1), (2), (0)');
    assert.is(await code(db, 'CREATE TABLE bad AS SELECT 10 / a AS q FROM t'), '22012');
    assert.is(await code(db, 'SELECT 10 / a AS q INTO bad FROM t'), '22012');
    assert.equal((await db.tables()).map((t) => t.name), ['t']);
    await query(db, 'CREATE VIEW v AS SELECT a FROM t');
    const v = await db.table('v');
    assert.throws(() => v.sink(), (e: { code?: string }) => e.code === '0A000');
    const tx = new Transaction(db);
    assert.is(await code(tx.db, 'INSERT INTO v VALUES (5)'), '0A000');
    assert.is(await code(tx.db, 'DELETE FROM v'), '0A000');
    await tx.abort();
    assert.equal(await rows(db, 'SELECT count(*) FROM t'), [['3']]);
  } finally {
    await db.close();
  }
});

test('a view over SELECT * keeps its columns when the table gets one; a view that reaches itself is 42P17', async () => {
  const db = await Database.open(tempDir());
  try {
    await query(db, 'CREATE TABLE t (a int4, b text)');
    await query(db, 'CREATE TABLE u (c int4)');
    await query(db, "INSERT INTO t VALUES (1, 'x')");
    await query(db, 'INSERT INTO u VALUES (7)');
    await query(db, 'CREATE VIEW star AS SELECT * FROM t');
    await query(db, 'CREATE VIEW both_ AS SELECT * FROM t, u');
    await query(db, 'ALTER TABLE t ADD COLUMN n int8');
    assert.equal((await query(db, 'SELECT * FROM star')).fields.map((f) => f.name), ['a', 'b']);
    assert.equal(await rows(db, 'SELECT * FROM star'), [['1', 'x']]);
    // The new column lands between t's and u's: the view fails rather than answer from the wrong column.
    assert.is(await code(db, 'SELECT * FROM both_'), '55000');
    await query(db, 'CREATE VIEW r1 AS SELECT a FROM t');
    await query(db, 'CREATE VIEW r2 AS SELECT a FROM r1');
    assert.is(await code(db, 'CREATE OR REPLACE VIEW r1 AS SELECT a FROM r2'), '42P17');
  } finally {
    await db.close();
  }
});

test('paxd tables lists a view with its kind', async () => {
  const dir = tempDir();
  const data = ['--data', dir];
  let r = await runCli(['sql', '--data', dir], { stdin: new TextEncoder().encode('CREATE TABLE t (a int4); CREATE VIEW v AS SELECT a FROM t;') });
  assert.is(r.code, 0, r.stderr);
  r = await runCli(['tables', ...data]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /\bv\s+0\s+0 B\s+-\s+\d+\s+0\s+0\s+view\b/);
  assert.match(r.stdout, /\bt\s+0\s+.*\btable\b/);
});

test('paxd export, stats and check of a view fail with 42809 naming the command (a view stores no rows to read)', async () => {
  const dir = tempDir();
  let r = await runCli(['sql', '--data', dir], { stdin: new TextEncoder().encode("CREATE TABLE t (a int4); INSERT INTO t VALUES (1); CREATE VIEW v AS SELECT a FROM t;") });
  assert.is(r.code, 0, r.stderr);
  for (const [cmd, extra] of [['export', ['--to', join(dir, 'out')]], ['stats', []], ['check', []]] as const) {
    r = await runCli([cmd, 'v', '--data', dir, ...extra]);
    assert.is.not(r.code, 0, `${cmd}: ${r.stdout}`);
    assert.match(r.stderr, new RegExp(`42809: "v" is a view: paxd ${cmd} reads a table's stored data`), cmd);
    r = await runCli([cmd, 't', '--data', dir, ...extra.map((x) => x.replace(/out$/, 'out-t'))]);
    assert.is(r.code, 0, `${cmd} of the table: ${r.stderr}`);
  }
});

test.run();

/**
 * One walk per SELECT before it binds (src/engine/catalog/bind.ts prepareCatalog): the walk that
 * finds what a statement needs from outside the query — the catalog snapshot, the tables of its
 * 't'::regclass literals — visits each object of the parse tree once per statement, however its
 * SELECTs nest (subqueries, WITH, UNION, EXISTS, VALUES) and whatever the binder derives from
 * them; and the literals it finds resolve wherever they stand.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { prepare, query, textRows } from '../../src/engine/index.js';
import { onPrepareWalk } from '../../src/engine/catalog/bind.js';
import { parseSql, walkAst } from '../../src/engine/parse.js';
import { tempDir } from '../support/tmp.js';

let dbp: Promise<Database> | null = null;

function setup(): Promise<Database> {
  dbp ??= (async () => {
    const db = await Database.open(tempDir());
    await query(db, 'CREATE TABLE t (id int4 NOT NULL, s text)');
    await query(db, "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')");
    return db;
  })();
  return dbp;
}

/** The objects of a parse tree that walkAst visits. */
async function treeObjects(sql: string): Promise<number> {
  const seen = new Set<object>();
  walkAst(await parseSql(sql), (o) => {
    seen.add(o);
    return true;
  });
  return seen.size;
}

/** Runs `sql`; the number of visits of the walks, and of distinct objects visited. */
async function walked(db: Database, sql: string): Promise<{ visits: number; objects: number; rows: string[][] }> {
  let visits = 0;
  const objects = new Set<object>();
  onPrepareWalk((o) => {
    visits++;
    objects.add(o);
  });
  try {
    const rows = textRows(await query(db, sql)) as string[][];
    return { visits, objects: objects.size, rows };
  } finally {
    onPrepareWalk(null);
  }
}

const NESTED = [
  'WITH w AS (SELECT id FROM t WHERE id IN (SELECT id FROM t WHERE id < 4)),',
  "  v AS (SELECT * FROM (VALUES (1, 't'::regclass::text), (2, 'x')) AS v(n, r))",
  "SELECT (SELECT count(*) FROM w), (SELECT max(r) FROM v), 'public.t'::regclass::text, x.id",
  'FROM (SELECT id FROM t UNION ALL SELECT id + 10 FROM t WHERE id > (SELECT min(id) FROM t)) AS x',
  'WHERE EXISTS (SELECT 1 FROM t AS u WHERE u.id = x.id OR u.id + 10 = x.id) AND x.id % 2 = 0',
  'ORDER BY x.id',
].join('\n');

test('each object of a nested statement is visited once by the walks before binding, and every one of the tree is', async () => {
  const db = await setup();
  const r = await walked(db, NESTED);
  assert.equal(r.rows, [
    ['3', 'x', 't', '2'],
    ['3', 'x', 't', '4'],
    ['3', 'x', 't', '12'],
    ['3', 'x', 't', '14'],
  ]);
  assert.is(r.visits, r.objects, 'an object visited twice');
  assert.ok(r.objects >= (await treeObjects(NESTED)), `${r.objects} objects visited, the tree has ${await treeObjects(NESTED)}`);
});

test('a prepared statement walks at each bind in its own statement context, and its literals resolve each time', async () => {
  const db = await setup();
  const p = await prepare(db, "SELECT (SELECT 't'::regclass::text), count(*) FROM t WHERE id > $1");
  for (const [arg, want] of [
    [1, '3'],
    [3, '1'],
  ] as const) {
    const r = await p.execute([arg]);
    assert.equal(textRows(r), [['t', want]]);
  }
});

test("a regclass literal naming no table is 42P01 wherever it stands: a CTE, VALUES, a subquery in FROM, EXISTS", async () => {
  const db = await setup();
  for (const sql of [
    "WITH c AS (SELECT 'nope'::regclass AS r) SELECT * FROM c",
    "VALUES ('nope'::regclass)",
    "SELECT * FROM (SELECT 'public.nope'::regclass) AS s",
    "SELECT 1 WHERE EXISTS (SELECT 'nope'::regclass)",
    "SELECT 1 UNION ALL SELECT 'nope'::regclass::oid::int4",
  ]) {
    const e = await query(db, sql).then(
      () => null,
      (x: { code?: string }) => x,
    );
    assert.is(e?.code, '42P01', sql);
  }
});

test.run();

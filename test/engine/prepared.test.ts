/**
 * Binding executes nothing, and a prepared SELECT binds once (docs/ARCHITECTURE.md "The SQL
 * engine"): prepare() (the wire's Parse/Describe) reads no table, even for a query with
 * subqueries; execute() binds nothing again and runs each subquery (an InitPlan) once per
 * execution. engineCounters() counts scans and bound query blocks. The InitPlans' rows then
 * choose the plan: a long IN list is one membership test pushed into the scan (its groups
 * skipped by the zone maps), or a hash lookup where it cannot be pushed; answers agree with
 * PostgreSQL 15.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { engineCounters, prepare, query, textRows } from '../../src/engine/index.js';
import { NULL, runPg, sameRows } from './compare.js';
import { pgSql, setupRelational } from './relational-setup.js';

const SUBQUERIES = 'SELECT count(*), max(o_totalprice) FROM orders WHERE o_orderkey IN (SELECT l_orderkey FROM lineitem WHERE l_quantity > $1) AND o_totalprice > (SELECT avg(o_totalprice) FROM orders)';

test('prepare (Parse/Describe) scans nothing, even with subqueries in expressions', async () => {
  const { db } = await setupRelational();
  const before = engineCounters();
  const p = await prepare(db, SUBQUERIES);
  assert.is(engineCounters().scans, before.scans, 'prepare ran a scan');
  assert.equal(p.paramTypes, [{ id: 'numeric' }]);
  assert.equal(p.fields, [
    { name: 'count', type: { id: 'int8' } },
    { name: 'max', type: { id: 'numeric' } },
  ]);
  const scalar = await prepare(db, 'SELECT (SELECT max(k) FROM jb), EXISTS (SELECT 1 FROM ja WHERE k > 100)');
  assert.is(engineCounters().scans, before.scans, 'prepare of scalar and EXISTS subqueries ran a scan');
  assert.equal(scalar.fields?.map((f) => f.type.id), ['int8', 'bool']);
});

test('a prepared SELECT binds once; each execution runs its InitPlans once and takes new values', async () => {
  const { db, pg } = await setupRelational();
  const b0 = engineCounters().queriesBound;
  const p = await prepare(db, SUBQUERIES);
  const bound = engineCounters().queriesBound - b0;
  assert.ok(bound >= 3, `prepare bound ${bound} query blocks (the SELECT and its two subqueries, at least)`);
  for (const q of ['10', '30', '45']) {
    const before = engineCounters();
    const mine = textRows(await p.execute([q]));
    const after = engineCounters();
    assert.is(after.queriesBound, before.queriesBound, `execute(${q}) bound again`);
    // The outer scan and one per subquery: each InitPlan ran once.
    assert.is(after.scans - before.scans, 3, `execute(${q}) ran ${after.scans - before.scans} scans`);
    const theirs = await runPg(pg, pgSql(SUBQUERIES.replace('$1', q)));
    assert.ok(theirs.ok, JSON.stringify(theirs));
    if (theirs.ok) assert.equal(mine, theirs.rows, `l_quantity > ${q}`);
  }
});

test('statements whose parameters the binder needs as values, or that read now(), bind at each execution', async () => {
  const { db } = await setupRelational();
  const limit = await prepare(db, 'SELECT id FROM ja ORDER BY id LIMIT $1');
  const b0 = engineCounters().queriesBound;
  assert.equal(textRows(await limit.execute([2])), [['0'], ['1']]);
  assert.equal(textRows(await limit.execute([3])), [['0'], ['1'], ['2']]);
  assert.is(engineCounters().queriesBound - b0, 2);
  const now = await prepare(db, 'SELECT now() AS t');
  const first = textRows(await now.execute([]))[0]![0];
  await new Promise((r) => setTimeout(r, 5));
  assert.is.not(textRows(await now.execute([]))[0]![0], first, 'now() kept the first execution’s time');
});

test('a long IN (subquery) list is one membership test the scan pushes: groups outside it are skipped', async () => {
  const { db, pg } = await setupRelational();
  // o_orderkey is 1..2000 in two groups of 1024; the subquery returns ~400 keys, all in the first.
  const sql = 'SELECT count(*), sum(o_totalprice) FROM orders WHERE o_orderkey IN (SELECT l_orderkey FROM lineitem WHERE l_orderkey <= 400)';
  const before = engineCounters();
  const mine = textRows(await query(db, sql)).map((row) => row.map((v) => v ?? NULL));
  assert.ok(engineCounters().groupsSkippedByPredicate - before.groupsSkippedByPredicate >= 1, 'no group of orders was skipped');
  const theirs = await runPg(pg, pgSql(sql));
  assert.ok(theirs.ok && sameRows(false, theirs.rows, mine) === null, JSON.stringify({ mine, theirs }));
  const plan = textRows(await query(db, `EXPLAIN ${sql}`)).map((r) => r[0]!);
  assert.ok(plan.some((l) => l.includes('Pushed Filter') && l.includes('o_orderkey')), plan.join('\n'));
});

const MEMBERSHIP_CASES = [
  // Not pushable (an expression): a hash lookup per row.
  'SELECT count(*) FROM orders WHERE o_orderkey + 0 IN (SELECT l_orderkey FROM lineitem WHERE l_quantity > 20)',
  // NULL among the values: NOT IN is never true, IN under OR is NULL for non-members.
  'SELECT count(*) FROM lineitem WHERE l_suppkey NOT IN (SELECT o_custkey FROM orders)',
  'SELECT count(*) FROM lineitem WHERE l_suppkey NOT IN (SELECT o_custkey FROM orders WHERE o_custkey IS NOT NULL)',
  'SELECT count(*) FROM lineitem WHERE l_partkey IN (SELECT o_custkey FROM orders) OR l_quantity > 45',
  'SELECT count(*) FROM lineitem WHERE (l_partkey IN (SELECT o_custkey FROM orders)) IS NULL',
  // An int4 column against int8 values, some out of its range's reach.
  'SELECT count(*) FROM lineitem WHERE l_partkey IN (SELECT o_orderkey * 3 FROM orders)',
  'SELECT sum(CASE WHEN l_partkey IN (SELECT o_custkey FROM orders WHERE o_custkey > 100) THEN 1 ELSE 0 END), count(*) FROM lineitem',
];

for (const sql of MEMBERSHIP_CASES) {
  test(`membership test agrees with PostgreSQL: ${sql}`, async () => {
    const { db, pg } = await setupRelational();
    const mine = textRows(await query(db, sql)).map((row) => row.map((v) => v ?? NULL));
    const theirs = await runPg(pg, pgSql(sql));
    assert.ok(theirs.ok, JSON.stringify(theirs));
    if (!theirs.ok) return;
    const diff = sameRows(/order by/i.test(sql), theirs.rows, mine);
    assert.ok(diff === null, diff ?? '');
  });
}

test('a scalar subquery returning two rows fails at execution with 21000, not at prepare', async () => {
  const { db } = await setupRelational();
  const p = await prepare(db, 'SELECT id FROM ja WHERE k = (SELECT k FROM jb)');
  try {
    await p.execute([]);
    assert.unreachable('no error');
  } catch (e) {
    assert.is((e as { code?: string }).code, '21000');
  }
});

test.run();

/**
 * The planner uses what the scan layer offers (docs/ARCHITECTURE.md "The SQL engine"): statistics answer aggregates, pushed
 * predicates skip row groups, top-N skips groups by its running bound. Each case asserts the
 * plan kind and the scan's counters, then the EXPLAIN [ANALYZE] text that shows them.
 *
 * Table e: 3,000 rows in three row groups of 1,024 (the last 952), id = 0..2999 ascending,
 * so each group's id range is disjoint and zone maps decide exactly.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { columnOf, type Value } from '../../src/types/index.js';
import { query, textRows } from '../../src/engine/index.js';
import { parseSql } from '../../src/engine/parse.js';
import { bindSelect } from '../../src/engine/bind.js';
import { plan, type Plan } from '../../src/engine/plan.js';
import { newTrace, run } from '../../src/engine/exec/run.js';
import { tempDir } from '../support/tmp.js';

const ROWS = 3000;
let dbp: Promise<Database> | null = null;

function setup(): Promise<Database> {
  dbp ??= (async () => {
    const db = await Database.open(tempDir());
    const t = await db.createTable('e', [{ name: 'id', type: 'int4', notNull: true }, { name: 'v', type: 'int8' }, { name: 's', type: 'text' }], { rowGroupRows: 1024, zoneRows: 1024 });
    const ids: Value[] = [];
    const vs: Value[] = [];
    const ss: Value[] = [];
    for (let i = 0; i < ROWS; i++) {
      ids.push(i);
      vs.push(i % 7 === 0 ? null : BigInt(i * 3));
      ss.push(['x', 'y', 'z'][i % 3]!);
    }
    const sink = t.sink();
    await sink.write({ length: ROWS, columns: [columnOf(t.fields[0]!.type, ids), columnOf(t.fields[1]!.type, vs), columnOf(t.fields[2]!.type, ss)], selection: null });
    await sink.commit();
    return db;
  })();
  return dbp;
}

async function planned(sql: string): Promise<{ p: Plan; trace: ReturnType<typeof newTrace>; rows: number }> {
  const db = await setup();
  const [stmt] = await parseSql(sql);
  const p = plan(await bindSelect(db, stmt!));
  const trace = newTrace();
  const r = await run(p, trace);
  return { p, trace, rows: r.rows.length };
}

test('count(*) and min/max are answered from statistics, no group read', async () => {
  const { p, trace } = await planned('SELECT count(*), min(id), max(v) FROM e');
  assert.is(p.kind, 'stats-aggregate');
  assert.is(trace.stats!.groupsTotal, 3);
  assert.is(trace.stats!.groupsAnsweredFromStats, 3);
  assert.is(trace.stats!.groupsRead, 0);
});

test('an aggregate with a pushed WHERE skips groups by predicate and answers whole ones from statistics', async () => {
  const { p, trace } = await planned('SELECT count(*), sum(v) FROM e WHERE id < 2048');
  assert.is(p.kind, 'stats-aggregate');
  assert.is(trace.stats!.groupsSkippedByPredicate, 1);
  assert.is(trace.stats!.groupsAnsweredFromStats, 2);
  const r = await query(await setup(), 'SELECT count(*) FROM e WHERE id < 2048');
  assert.equal(textRows(r), [['2048']]);
});

test('ORDER BY … LIMIT is a top-N scan whose running bound skips groups', async () => {
  const { p, trace, rows } = await planned('SELECT id, s FROM e ORDER BY id LIMIT 5');
  assert.is(p.kind, 'top-n');
  assert.is(rows, 5);
  assert.ok(trace.stats!.groupsSkippedByBound > 0, `skipped by bound: ${trace.stats!.groupsSkippedByBound}`);
});

test('a pipeline pushes its comparable conjuncts and filters the rest', async () => {
  const { p, trace, rows } = await planned('SELECT id FROM e WHERE id >= 2100 AND v + 1 > 0');
  assert.is(p.kind, 'pipeline');
  assert.ok(p.kind === 'pipeline' && p.where !== undefined && p.residual !== null);
  assert.is(trace.stats!.groupsSkippedByPredicate, 2);
  assert.is(trace.stats!.groupsRead, 1);
  assert.is(rows, [...Array(ROWS).keys()].filter((i) => i >= 2100 && i % 7 !== 0).length);
});

test('DISTINCT and GROUP BY stay pipelines; count(DISTINCT) is not taken from statistics', async () => {
  assert.is((await planned('SELECT DISTINCT s FROM e ORDER BY s LIMIT 2')).p.kind, 'pipeline');
  assert.is((await planned('SELECT count(DISTINCT s) FROM e')).p.kind, 'pipeline');
  assert.is((await planned('SELECT s, count(*) FROM e GROUP BY s')).p.kind, 'pipeline');
});

test('EXPLAIN shows the plan with a Row Groups line per scan, from statistics before reading', async () => {
  const db = await setup();
  const lines = textRows(await query(db, 'EXPLAIN (COSTS OFF) SELECT s, count(*) FROM e WHERE id < 1000 AND v + 1 > 0 GROUP BY s ORDER BY s LIMIT 2')).map((r) => r[0]!);
  assert.equal(lines, [
    'Limit',
    '  ->  Sort',
    '        Sort Key: s',
    '        ->  HashAggregate',
    '              Group Key: s',
    '              ->  Seq Scan on e',
    '                    Pushed Filter: id < 1000',
    "                    Filter: ((v + '1'::int8) > '0'::int8)".replace(/'(\d+)'::int8/g, '$1'),
    '                    Row Groups: 3 total, 2 skipped by predicate, 0 skipped by bound, 0 answered from statistics, 1 read',
  ]);
  const stats = textRows(await query(db, 'EXPLAIN (COSTS OFF) SELECT count(*) FROM e')).map((r) => r[0]!);
  assert.equal(stats, ['Aggregate', '  ->  Statistics Scan on e', '        Row Groups: 3 total, 0 skipped by predicate, 0 skipped by bound, 3 answered from statistics, 0 read']);
});

test('EXPLAIN ANALYZE adds actual rows per node, the scan counters, and ends with Execution Time', async () => {
  const db = await setup();
  const lines = textRows(await query(db, 'EXPLAIN ANALYZE SELECT id FROM e ORDER BY id DESC LIMIT 3')).map((r) => r[0]!);
  assert.match(lines[0]!, /^Limit {2}\(cost=\d+\.\d{2}\.\.\d+\.\d{2} rows=3 width=4\) \(actual time=\d+\.\d{3}\.\.\d+\.\d{3} rows=3 loops=1\)$/);
  assert.match(lines[1]!, /^ {2}-> {2}Top-N Scan on e/);
  assert.ok(lines.some((l) => /Row Groups: 3 total, 0 skipped by predicate, [12] skipped by bound, 0 answered from statistics, [12] read/.test(l)), lines.join('\n'));
  assert.match(lines[lines.length - 1]!, /^Execution Time: \d+\.\d{3} ms$/);
});

test('EXPLAIN of a statement other than SELECT, or in another format, is 0A000', async () => {
  const db = await setup();
  for (const sql of ['EXPLAIN DELETE FROM e WHERE id = 1', 'EXPLAIN (FORMAT JSON) SELECT id FROM e']) {
    try {
      await query(db, sql);
      assert.unreachable(sql);
    } catch (e) {
      assert.is((e as { code?: string }).code, '0A000', sql);
    }
  }
});

test.run();

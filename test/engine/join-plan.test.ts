/**
 * Plans of relational queries (docs/ARCHITECTURE.md "The SQL engine"): hash joins build on the smaller input, single-table
 * conditions go down into the scans (zone maps where they can), EXPLAIN shows PostgreSQL's
 * node shapes with a `Row Groups:` line per scan, EXPLAIN ANALYZE counts rows per node, and a
 * build side past the work memory fails with 53200.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { query, textRows } from '../../src/engine/index.js';
import { setupRelational } from './relational-setup.js';

async function explain(sql: string): Promise<string[]> {
  const { db } = await setupRelational();
  return textRows(await query(db, `EXPLAIN (COSTS OFF) ${sql}`)).map((r) => r[0]!);
}

const Q3 = `SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority
FROM customer, orders, lineitem
WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
  AND o_orderdate < date '1995-03-15' AND l_shipdate > date '1995-03-15'
GROUP BY l_orderkey, o_orderdate, o_shippriority ORDER BY revenue DESC, o_orderdate LIMIT 10`;

test('TPC-H Q3: lineitem streams through hashes of orders and customer, each scan with its pushed filter', async () => {
  const lines = await explain(Q3);
  const text = lines.join('\n');
  assert.is(lines[0], 'Limit');
  assert.is(lines.filter((l) => l.includes('Hash Join')).length, 2);
  assert.is(lines.filter((l) => l.trim() === '->  Hash').length, 2);
  assert.ok(/Hash Cond: \(lineitem\.l_orderkey = orders\.o_orderkey\)/.test(text), text);
  assert.ok(/Hash Cond: \(orders\.o_custkey = customer\.c_custkey\)/.test(text), text);
  // The probe side (first child of the lowest join) is lineitem, the largest input.
  const probe = lines.findIndex((l) => l.includes('Seq Scan on lineitem'));
  const hashes = lines.flatMap((l, i) => (l.trim() === '->  Hash' ? [i] : []));
  assert.ok(probe < hashes[hashes.length - 1]!, text);
  for (const t of ['customer', 'orders', 'lineitem']) {
    const at = lines.findIndex((l) => l.includes(`Seq Scan on ${t}`));
    assert.ok(at >= 0, text);
    assert.ok(
      lines.slice(at + 1, at + 4).some((l) => l.includes('Pushed Filter:')),
      `${t} has a pushed filter:\n${text}`,
    );
  }
  assert.is(lines.filter((l) => l.trim().startsWith('Row Groups:')).length, 3);
});

test('a join without an equality is a nested loop; outer joins say which side they keep', async () => {
  assert.ok((await explain('SELECT * FROM ja, jb')).some((l) => l.startsWith('Nested Loop')));
  assert.ok((await explain('SELECT * FROM ja LEFT JOIN region ON ja.k = r_regionkey')).some((l) => /Hash (Left|Right) Join/.test(l)));
  assert.ok((await explain('SELECT * FROM ja FULL JOIN jb ON ja.k = jb.k')).some((l) => l.includes('Hash Full Join')));
});

test('a WHERE condition on the nullable side of a LEFT JOIN stays above the join', async () => {
  const lines = await explain("SELECT ja.id FROM ja LEFT JOIN jb ON ja.k = jb.k WHERE jb.s = 'x'");
  const join = lines.findIndex((l) => l.includes('Join'));
  assert.ok(lines[join + 2]!.includes('Filter: ') && !lines[join + 2]!.includes('Pushed'), lines.join('\n'));
});

test('EXPLAIN ANALYZE counts the rows of every node and ends with the execution time', async () => {
  const { db } = await setupRelational();
  const sql = 'SELECT a.id, b.id FROM ja a JOIN jb b ON a.k = b.k';
  const n = (await query(db, sql)).rows.length;
  const lines = textRows(await query(db, `EXPLAIN ANALYZE ${sql}`)).map((r) => r[0]!);
  assert.ok(lines[0]!.startsWith('Hash Join') && lines[0]!.includes(`rows=${n} `), lines.join('\n'));
  assert.ok(
    lines.some((l) => l.includes('Seq Scan on ja a') && l.includes('rows=60 ')),
    lines.join('\n'),
  );
  assert.ok(
    lines.some((l) => l.includes('Seq Scan on jb b') && l.includes('rows=45 ')),
    lines.join('\n'),
  );
  assert.ok(/^Execution Time: [\d.]+ ms$/.test(lines[lines.length - 1]!));
});

test('a join without keys whose build side exceeds the work memory fails with 53200, and the next query runs', async () => {
  const { db } = await setupRelational();
  // A keyed join spills instead (test/engine/join-spill.test.ts); a nested loop cannot.
  const sql = 'SELECT count(*) FROM lineitem l1 JOIN lineitem l2 ON l1.l_orderkey < l2.l_orderkey';
  let code = '';
  try {
    await query(db, sql, undefined, { workMem: 64 * 1024 });
  } catch (e) {
    code = (e as { code: string }).code;
    assert.ok(/work memory/.test((e as Error).message), (e as Error).message);
  }
  assert.is(code, '53200');
  assert.equal(textRows(await query(db, 'SELECT count(*) FROM ja JOIN jb ON ja.id = jb.id', undefined, { workMem: 64 * 1024 })), [['45']]);
});

test.run();

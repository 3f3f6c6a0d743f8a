/**
 * postgres_fdw end to end (docs/MIRROR.md): paxd's tables mirrored into a real
 * PostgreSQL 15 by `paxd mirror` answer every query of fixtures/fdw/queries.sql exactly as
 * heap copies of the same rows in that PostgreSQL do — filters of every shippable kind,
 * aggregates, ORDER BY/LIMIT/OFFSET, joins among paxd tables and with heap tables,
 * parameterized scans, NULLs and special values — and EXPLAIN (VERBOSE) shows that filters,
 * aggregates, sorts, limits and joins were pushed down to paxd. count(*) through the foreign
 * table is answered from paxd's statistics (its scan counters: groups answered, none read).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import { engineCounters } from '../../src/engine/index.js';
import { runMirror, mirrorOptions } from '../../src/mirror/index.js';
import { closeWorld, world, type World } from './setup.js';
import { compareRows, isOrdered, readQueries } from './queries.js';

let w: World;
/** search_path f, l: paxd's foreign tables. */
let fc: pg.Client;
/** search_path h, l: the heap copies. */
let hc: pg.Client;

test.before(async () => {
  w = await world();
  await runMirror(w.db, mirrorOptions({ pg: w.url, schema: 'f', server: 'paxd_e2e', port: w.srv.port, password: 'unused' }));
  fc = await w.connect();
  hc = await w.connect();
  await fc.query('SET search_path = f, l');
  await hc.query('SET search_path = h, l');
});

test.after(async () => {
  await fc.end();
  await hc.end();
  await closeWorld();
});

type Row = (string | null)[];

async function rows(c: pg.Client, sql: string): Promise<Row[]> {
  return (await c.query({ text: sql, rowMode: 'array' })).rows as Row[];
}

async function outcome(c: pg.Client, sql: string): Promise<{ rows: Row[] } | { code: string; message: string }> {
  try {
    return { rows: await rows(c, sql) };
  } catch (e) {
    return { code: (e as { code?: string }).code ?? '?', message: (e as Error).message };
  }
}

async function remoteSql(sql: string): Promise<string[]> {
  const plan = (await rows(fc, `EXPLAIN (VERBOSE, COSTS OFF) ${sql}`)).map((r) => r[0]!);
  return plan.filter((l) => l.includes('Remote SQL:')).map((l) => l.trim().replace(/^Remote SQL: /, ''));
}

const queries = readQueries();

test('the fixture has at least 150 queries', () => {
  assert.ok(queries.length >= 150, `${queries.length} queries`);
});

for (const q of queries) {
  test(`queries.sql:${q.line}: ${q.sql.replace(/\s+/g, ' ').slice(0, 100)}`, async () => {
    for (const s of q.set) for (const c of [fc, hc]) await c.query(s);
    try {
      const [f, h] = [await outcome(fc, q.sql), await outcome(hc, q.sql)];
      if (q.error !== null) {
        assert.ok('code' in h && h.code === q.error, `heap: expected ${q.error}, got ${JSON.stringify(h).slice(0, 200)}`);
        assert.ok('code' in f && f.code === q.error, `paxd: expected ${q.error}, got ${JSON.stringify(f).slice(0, 200)}`);
        return;
      }
      if ('code' in h) throw new Error(`the heap side failed: ${h.code} ${h.message}`);
      if ('code' in f) throw new Error(`paxd (foreign) failed: ${f.code} ${f.message}`);
      const diff = compareRows(f.rows, h.rows, await isOrdered(q.sql));
      assert.is(diff, null, `foreign vs heap: ${diff}`);
      if (q.remote.length > 0) {
        const remote = await remoteSql(q.sql);
        for (const want of q.remote) assert.ok(remote.some((r) => r.includes(want)), `Remote SQL should contain ${JSON.stringify(want)}; it is:\n  ${remote.join('\n  ')}`);
      }
    } finally {
      for (const s of q.set) {
        const name = /^SET\s+(\w+)/i.exec(s)?.[1];
        if (name !== undefined) for (const c of [fc, hc]) await c.query(`RESET ${name}`);
      }
    }
  });
}

test('EXPLAIN (VERBOSE): filters, aggregates, sorts, limits and joins are pushed down', async () => {
  const plan = async (sql: string) => (await rows(fc, `EXPLAIN (VERBOSE, COSTS OFF) ${sql}`)).map((r) => r[0]!.trim());
  let p = await plan("SELECT id FROM t_types WHERE c_int4 > 900 AND c_text LIKE 'text 9%'");
  assert.ok(p.includes("Remote SQL: SELECT id FROM public.t_types WHERE ((c_int4 > 900)) AND ((c_text ~~ 'text 9%'))"), p.join('\n'));
  assert.not.ok(p.some((l) => l.startsWith('Filter:')), 'no local filter');
  p = await plan('SELECT status, count(*), sum(amount) FROM t_orders GROUP BY status HAVING count(*) > 1');
  assert.ok(p.includes('Relations: Aggregate on (f.t_orders)'), p.join('\n'));
  assert.ok(p.includes('Remote SQL: SELECT status, count(*), sum(amount) FROM public.t_orders GROUP BY 1 HAVING ((count(*) > 1))'), p.join('\n'));
  p = await plan('SELECT id FROM t_orders ORDER BY created DESC, id LIMIT 10');
  assert.ok(p.includes('Remote SQL: SELECT id, created FROM public.t_orders ORDER BY created DESC NULLS FIRST, id ASC NULLS LAST LIMIT 10::bigint'), p.join('\n'));
  assert.not.ok(p.some((l) => /^(->\s+)?(Sort|Limit|Incremental Sort)/.test(l)), `nothing sorted or limited locally:\n${p.join('\n')}`);
  p = await plan('SELECT o.id, c.name FROM t_orders o JOIN t_customers c ON o.customer_id = c.id WHERE c.region = $$west$$');
  assert.ok(p.includes('Relations: (f.t_orders o) INNER JOIN (f.t_customers c)'), p.join('\n'));
  assert.ok(p.some((l) => l.startsWith('Remote SQL: SELECT r1.id, r2.name FROM (public.t_orders r1 INNER JOIN public.t_customers r2 ON (((r1.customer_id = r2.id)) AND ((r2.region = \'west\'))))')), p.join('\n'));
});

test('count(*) through the foreign table is answered from paxd’s statistics: no row group read', async () => {
  const before = engineCounters();
  assert.equal(await rows(fc, 'SELECT count(*) FROM t_orders'), [['3000']]);
  assert.equal(await rows(fc, 'SELECT count(*), min(id), max(id) FROM t_types'), [['1004', '-3', '1000']]);
  const after = engineCounters();
  assert.ok(after.groupsAnsweredFromStats > before.groupsAnsweredFromStats, `groups answered from statistics: ${before.groupsAnsweredFromStats} → ${after.groupsAnsweredFromStats}`);
  assert.is(after.groupsRead - before.groupsRead, 0, 'row groups read');
  // A filtered count does read: the counters tell the two apart.
  await rows(fc, "SELECT count(*) FROM t_orders WHERE status = 'paid'");
  const filtered = engineCounters();
  assert.ok(filtered.groupsRead > after.groupsRead);
  // So does a plain scan, which paxd serves through a streaming cursor.
  assert.equal((await rows(fc, 'SELECT id FROM t_orders WHERE id < 3')).sort(), [['1'], ['2']]);
  assert.ok(engineCounters().groupsRead > filtered.groupsRead, 'a streamed scan counts its row groups');
});

test.run();

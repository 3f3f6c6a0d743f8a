/**
 * `paxd mirror` of a view (src/engine/statements/view.ts): a paxd view is declared in
 * PostgreSQL as a foreign table like a table, with the view's columns, and postgres_fdw's
 * queries over it (filters, aggregates, joins with local tables pushed down as they are) bind
 * the view's query in paxd and agree with the same query over PostgreSQL's heap copy.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { query } from '../../src/engine/index.js';
import { runMirror, mirrorOptions } from '../../src/mirror/index.js';
import { closeWorld, world, type World } from './setup.js';

let w: World;

test.before(async () => {
  w = await world();
});

test.after(async () => {
  await closeWorld();
});

async function sql(text: string): Promise<string[][]> {
  const c = await w.connect();
  try {
    return (await c.query({ text, rowMode: 'array' })).rows as string[][];
  } finally {
    await c.end();
  }
}

test('a view is mirrored as a foreign table with its columns; queries through it agree with PostgreSQL', async () => {
  await query(w.db, "CREATE VIEW v_paid (id, customer, amount) AS SELECT id, customer_id, amount FROM t_orders WHERE status = 'paid'");
  const o = mirrorOptions({ pg: w.url, host: '127.0.0.1', port: w.srv.port, password: 'unused', schema: 'mv', server: 'paxd_mv' });
  const r = await runMirror(w.db, o);
  assert.ok(r.created.includes('v_paid'), JSON.stringify(r.created));
  assert.equal(
    await sql("SELECT a.attname || ' ' || format_type(a.atttypid, a.atttypmod) FROM pg_attribute a WHERE a.attrelid = 'mv.v_paid'::regclass AND a.attnum > 0 ORDER BY a.attnum"),
    [['id bigint'], ['customer integer'], ['amount numeric(12,2)']],
  );
  const heap = "(SELECT id, customer_id AS customer, amount FROM h.t_orders WHERE status = 'paid')";
  for (const [mine, theirs] of [
    ['SELECT count(*), sum(amount), min(id), max(customer) FROM mv.v_paid', `SELECT count(*), sum(amount), min(id), max(customer) FROM ${heap} v`],
    ['SELECT id, amount FROM mv.v_paid WHERE amount > 100 ORDER BY id LIMIT 5', `SELECT id, amount FROM ${heap} v WHERE amount > 100 ORDER BY id LIMIT 5`],
    ['SELECT customer, count(*) FROM mv.v_paid GROUP BY customer ORDER BY customer NULLS LAST LIMIT 10', `SELECT customer, count(*) FROM ${heap} v GROUP BY customer ORDER BY customer NULLS LAST LIMIT 10`],
  ] as const)
    assert.equal(await sql(mine), await sql(theirs), mine);
  // A view that is dropped in paxd is dropped by the next mirror run.
  await query(w.db, 'DROP VIEW v_paid');
  const again = await runMirror(w.db, o);
  assert.ok(again.dropped.includes('v_paid'), JSON.stringify(again));
});

test.run();

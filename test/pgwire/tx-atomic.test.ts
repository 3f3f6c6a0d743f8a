/**
 * Issue #17's atomicity defect, through the wire: session A runs
 * `BEGIN; UPDATE a …; UPDATE b …; COMMIT` 30 times while session B keeps updating b. Whenever
 * A's COMMIT answers an error, table a is unchanged; a reader in a third session never sees
 * a's part without b's (a.v − b.v stays what the committed transactions make it). The store
 * root log (docs/FORMAT.md "The store root log") is what makes both true.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { tempDir } from '../support/tmp.js';

let db: Database;
let srv: RunningServer;
const clients: pg.Client[] = [];

test.before(async () => {
  db = await Database.open(tempDir());
  srv = await startServer({ db, host: '127.0.0.1', port: 0, auth: { method: 'trust' } });
});

test.after(async () => {
  for (const c of clients) await c.end().catch(() => undefined);
  await srv.close();
  await db.close();
});

async function client(): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port: srv.port, user: 'paxd', database: 'paxd' });
  await c.connect();
  clients.push(c);
  return c;
}

test('a COMMIT of two tables that fails leaves both unchanged; a reader never sees one without the other', async () => {
  const a = await client();
  const bs = [await client(), await client()];
  const r = await client();
  await a.query('CREATE TABLE ta (id int4 NOT NULL, v int8)');
  await a.query('CREATE TABLE tb (id int4 NOT NULL, v int8, w int8)');
  await a.query('INSERT INTO ta VALUES (1, 0)');
  await a.query('INSERT INTO tb VALUES (1, 0, 0)');

  let stop = false;
  let bUpdates = 0;
  // B changes tb's row (w only), so A's update of the same row conflicts (REPEATABLE READ's first updater wins).
  const writerB = bs.map(async (b) => {
    while (!stop) {
      try {
        await b.query('UPDATE tb SET w = w + 1 WHERE id = 1');
        bUpdates++;
      } catch (e) {
        if ((e as { code?: string }).code !== '40001') throw e;
      }
      await new Promise((done) => setTimeout(done, 10 + Math.random() * 60));
    }
  });
  const violations: string[] = [];
  const reader = (async () => {
    while (!stop) {
      // One statement reading both tables: one instant of the store.
      const row = (await r.query('SELECT (SELECT v FROM ta WHERE id = 1) AS a, (SELECT v FROM tb WHERE id = 1) AS b')).rows[0] as { a: string; b: string };
      if (row.a !== row.b) violations.push(`one statement saw ta.v = ${row.a}, tb.v = ${row.b}`);
      // A transaction reading them one after the other: the same instant for both.
      await r.query('BEGIN');
      const va = (await r.query('SELECT v FROM ta WHERE id = 1')).rows[0].v as string;
      await new Promise((done) => setTimeout(done, 2));
      const vb = (await r.query('SELECT v FROM tb WHERE id = 1')).rows[0].v as string;
      await r.query('COMMIT');
      if (va !== vb) violations.push(`one transaction saw ta.v = ${va}, tb.v = ${vb}`);
    }
  })();

  let committed = 0;
  let failed = 0;
  const partial: string[] = [];
  try {
    for (let i = 0; i < 30; i++) {
      const before = (await a.query('SELECT v FROM ta WHERE id = 1')).rows[0].v as string;
      await a.query('BEGIN');
      await a.query('UPDATE ta SET v = v + 1 WHERE id = 1');
      await a.query('UPDATE tb SET v = v + 1 WHERE id = 1');
      try {
        await a.query('COMMIT');
        committed++;
      } catch (e) {
        failed++;
        if ((e as { code?: string }).code !== '40001') throw e;
        const after = (await a.query('SELECT v FROM ta WHERE id = 1')).rows[0].v as string;
        if (after !== before) partial.push(`COMMIT ${i + 1} answered 40001 but ta.v went from ${before} to ${after}`);
      }
    }
  } finally {
    stop = true;
    await Promise.all([...writerB, reader]);
  }
  assert.equal(partial, []);
  assert.equal(violations, []);
  const end = (await r.query('SELECT (SELECT v FROM ta WHERE id = 1) AS a, (SELECT v FROM tb WHERE id = 1) AS b')).rows[0];
  assert.equal(end, { a: String(committed), b: String(committed) }, `A committed ${committed} times, failed ${failed} times`);
  // The race must have happened for the test to mean anything.
  assert.ok(failed > 0, `no COMMIT of A conflicted (B updated ${bUpdates} times)`);
  assert.ok(committed > 0, `no COMMIT of A succeeded (B updated ${bUpdates} times)`);
  assert.ok(bUpdates > 0);
});

test.run();

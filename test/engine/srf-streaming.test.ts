/**
 * Set-returning functions do not wait for the whole set (issue #19; src/engine/exec/function-scan.ts
 * pulls each call's rows lazily, one output chunk at a time): a series of 10^8 rows with LIMIT
 * answers with its first rows, wherever the call sits (FROM, the select list, above an
 * aggregate, nested), and a count over 10^10 rows ends when it is stopped — by
 * statement_timeout through the wire server and by a cancel (the statement's signal) embedded —
 * with 57014. Nothing here times anything: a set that were built whole would not end at all.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { Database } from '../../src/table/database.js';
import { PaxdError, SQLSTATE } from '../../src/types/index.js';
import { query } from '../../src/engine/index.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { tempDir } from '../support/tmp.js';

let db: Database;
let srv: RunningServer;

test.before(async () => {
  db = await Database.open(tempDir());
  srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
});

test.after(async () => {
  await srv.close();
  await db.close();
});

async function client(): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port: srv.port, user: 'paxd', database: 'paxd' });
  await c.connect();
  return c;
}

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    return { code: (e as { code: string }).code, message: (e as Error).message };
  }
  throw new Error('expected the statement to fail');
}

const LIMITED: Record<string, string[]> = {
  'SELECT * FROM generate_series(1, 100000000) LIMIT 3': ['1', '2', '3'],
  'SELECT generate_series(1, 100000000) AS x LIMIT 3': ['1', '2', '3'],
  'SELECT x FROM generate_series(1::int8, 100000000) x WHERE x % 2 = 0 LIMIT 3': ['2', '4', '6'],
  'SELECT generate_series(1, 100000000 * count(*)) FROM (VALUES (1)) v(a) LIMIT 3': ['1', '2', '3'],
  'SELECT generate_series(1, generate_series(100000000, 100000001)) LIMIT 3': ['1', '2', '3'],
  "SELECT ordinality FROM generate_series(now(), now() + interval '100000000 seconds', interval '1 second') WITH ORDINALITY LIMIT 3": ['1', '2', '3'],
};

for (const [sql, want] of Object.entries(LIMITED)) {
  test(`first rows without the whole set: ${sql}`, async () => {
    const c = await client();
    try {
      // A bound, not a measure: a series built whole would end in 57014 here rather than never.
      await c.query("SET statement_timeout = '30s'");
      const r = await c.query({ text: sql, rowMode: 'array' });
      assert.equal(
        r.rows.map((row: unknown[]) => String(row[0])),
        want,
      );
    } finally {
      await c.end();
    }
  });
}

test('statement_timeout stops a count over 10^10 series rows with 57014; the session goes on', async () => {
  const c = await client();
  try {
    await c.query("SET statement_timeout = '300ms'");
    assert.equal(await failure(c.query('SELECT count(*) FROM generate_series(1, 1e10)')), { code: '57014', message: 'canceling statement due to statement timeout' });
    assert.equal(await failure(c.query('SELECT count(*) FROM (SELECT generate_series(1, 10000000000)) s')), { code: '57014', message: 'canceling statement due to statement timeout' });
    await c.query('SET statement_timeout = 0');
    assert.equal((await c.query('SELECT count(*) AS n FROM generate_series(1, 1000)')).rows, [{ n: '1000' }]);
  } finally {
    await c.end();
  }
});

test('a cancel (the statement’s signal) stops a count over 10^10 series rows with 57014', async () => {
  const ac = new AbortController();
  const running = failure(query(db, 'SELECT count(*) FROM generate_series(1::int8, 10000000000)', undefined, { signal: ac.signal }));
  setTimeout(() => ac.abort(new PaxdError('io', SQLSTATE.query_canceled, 'canceling statement due to user request')), 200);
  assert.is((await running).code, '57014');
});

test.run();

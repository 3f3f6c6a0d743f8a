/**
 * pgbench's built-in TPC-B-like script against the wire server (issue #17: a COMMIT that fails
 * must leave nothing behind): 8 clients on 2 threads update one account, one teller and the
 * one branch and append a history row per transaction, so nearly every COMMIT races another
 * on the branch row and many answer 40001, which pgbench retries. Afterwards the four sums
 * agree and history holds exactly one row per committed transaction (test/support/pgbench.ts).
 *
 * 10 s in CI; PAXD_SOAK=1 runs the 60 s. The bench beside PostgreSQL is
 * `npm run bench -- pgbench`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { tempDir } from '../support/tmp.js';
import { balances, consistent, loadTpcb, runTpcb, type Conn } from '../support/pgbench.js';

const SECONDS = process.env['PAXD_SOAK'] === '1' ? 60 : 10;

let db: Database;
let srv: RunningServer;
let conn: Conn;

test.before(async () => {
  db = await Database.open(tempDir());
  srv = await startServer({ db, host: '127.0.0.1', port: 0, auth: { method: 'trust' } });
  conn = { host: '127.0.0.1', port: srv.port, user: 'paxd', database: 'paxd' };
});

test.after(async () => {
  await srv.close();
  await db.close();
});

test(`pgbench tpcb-like, -c 8 -j 2 -T ${SECONDS}: the four balances agree and history has one row per committed transaction`, async () => {
  await loadTpcb(conn, 1);
  const r = await runTpcb(conn, { clients: 8, threads: 2, seconds: SECONDS });
  process.stdout.write(` [${r.processed} committed, ${r.retried} retried, ${r.failed} failed, ${r.tps.toFixed(1)} tps] `);
  assert.ok(r.processed > 0, `some transaction committed:\n${r.output}`);
  assert.is(r.failed, 0, `no transaction failed for good (unlimited retries of 40001):\n${r.output}`);
  assert.is(consistent(await balances(conn), r), null);
});

test.run();

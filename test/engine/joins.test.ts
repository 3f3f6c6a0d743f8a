/**
 * The relational differential suite (docs/ARCHITECTURE.md "The SQL engine"): joins, subqueries in FROM, UNION and TPC-H
 * Q3, Q5, Q10, Q12, Q14 from fixtures/sql-relational/*.sql run on paxd and on PostgreSQL 15
 * over the same tables (./relational-setup.ts) and must agree: the same rows (in order when
 * the query has ORDER BY), or the same SQLSTATE. The fixture format is
 * ./differential.test.ts's (`-- paxd: CODE` before a statement paxd must fail with CODE).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runPaxd, runPg, sameRows } from './compare.js';
import { pgSql, setupRelational } from './relational-setup.js';
import { loadFixtures } from './differential-setup.js';

for (const f of loadFixtures('sql-relational')) {
  test(`${f.file}: ${f.sql.replace(/\s+/g, ' ').slice(0, 150)}`, async () => {
    const { db, pg } = await setupRelational();
    const mine = await runPaxd(db, f.sql);
    if (f.expect !== null) {
      assert.ok(!mine.ok && mine.code === f.expect, `expected paxd to fail with ${f.expect}, got ${JSON.stringify(mine).slice(0, 300)}`);
      return;
    }
    const theirs = await runPg(pg, pgSql(f.sql));
    if (!theirs.ok) {
      assert.ok(!mine.ok, `PostgreSQL failed with ${theirs.code} (${theirs.message}), paxd answered ${JSON.stringify(mine).slice(0, 300)}`);
      assert.is(mine.code, theirs.code, `paxd: ${mine.message}; PostgreSQL: ${theirs.message}`);
      return;
    }
    assert.ok(mine.ok, `paxd failed with ${!mine.ok ? `${mine.code} ${mine.message}` : ''}`);
    if (!mine.ok) return;
    const diff = sameRows(/\border\s+by\b/i.test(f.sql.replace(/\([^()]*\border\s+by\b[^()]*\)/gi, '')), theirs.rows, mine.rows);
    assert.ok(diff === null, diff ?? '');
  });
}

test.run();

/**
 * The relational differential suite (issue 6): joins, subqueries in FROM, UNION and TPC-H
 * Q3, Q5, Q10, Q12, Q14 from fixtures/sql-relational/*.sql run on paxd and on PostgreSQL 15
 * over the same tables (./relational-setup.ts) and must agree: the same rows (in order when
 * the query has ORDER BY), or the same SQLSTATE. The fixture format is
 * ./differential.test.ts's (`-- paxd: CODE` before a statement paxd must fail with CODE).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runPaxd, runPg, sameRows } from './compare.js';
import { pgSql, setupRelational } from './relational-setup.js';

interface Fixture {
  file: string;
  sql: string;
  expect: string | null;
}

function loadFixtures(): Fixture[] {
  const dir = join(import.meta.dirname, '../../fixtures/sql-relational');
  const out: Fixture[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.sql')).sort()) {
    let buf: string[] = [];
    let expect: string | null = null;
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      const m = /^--\s*paxd:\s*([0-9A-Z]{5})/.exec(line);
      if (m) expect = m[1]!;
      if (line.trim() === '' || line.startsWith('--')) continue;
      buf.push(line);
      if (line.trimEnd().endsWith(';')) {
        out.push({ file, sql: buf.join('\n'), expect });
        buf = [];
        expect = null;
      }
    }
  }
  return out;
}

for (const f of loadFixtures()) {
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

/**
 * Statements that change tables (CREATE/ALTER/DROP TABLE, INSERT, UPDATE, DELETE, TRUNCATE), differentially
 * (docs/ARCHITECTURE.md "The SQL engine"): each script in fixtures/sql/statements/*.sql runs statement by statement against
 * a fresh paxd database and the shared throwaway PostgreSQL 15, and every statement must end
 * the same way on both — the same command tag (`INSERT 0 3`, `DELETE 2`) and RETURNING rows,
 * the same rows for a SELECT (in order when it has ORDER BY), or the same SQLSTATE.
 *
 * Fixture format is ./differential.test.ts's (`-- paxd: 0A000` before a statement: paxd must
 * fail so, and PostgreSQL does not run it, so both sides keep the same tables). paxd's storage
 * clause `WITH (layout = …, codec = …)` is removed from the text PostgreSQL runs. Table names
 * are unique across scripts, since the PostgreSQL cluster is shared.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/table/database.js';
import { startPostgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';
import { NULL, runPaxd, runPg, runPgCommand, sameRows } from './compare.js';

interface Step {
  sql: string;
  expect: string | null;
}

const DIR = join(import.meta.dirname, '../../fixtures/sql/statements');

function loadScript(file: string): Step[] {
  const out: Step[] = [];
  let buf: string[] = [];
  let expect: string | null = null;
  for (const line of readFileSync(join(DIR, file), 'utf8').split('\n')) {
    const m = /^--\s*paxd:\s*([0-9A-Z]{5})/.exec(line);
    if (m) expect = m[1]!;
    if (line.trim() === '' || line.startsWith('--')) continue;
    buf.push(line);
    if (line.trimEnd().endsWith(';')) {
      out.push({ sql: buf.join('\n'), expect });
      buf = [];
      expect = null;
    }
  }
  return out;
}

const PAXD_WITH = /\s+WITH\s*\(\s*(?:layout|codec)\b[^)]*\)/i;

for (const file of readdirSync(DIR).filter((f) => f.endsWith('.sql')).sort()) {
  test(`statements/${file}`, async () => {
    const pg = await startPostgres();
    const db = await Database.open(tempDir());
    try {
      for (const step of loadScript(file)) {
        const mine = await runPaxd(db, step.sql);
        const where = `${file}: ${step.sql}`;
        if (step.expect !== null) {
          assert.ok(!mine.ok && mine.code === step.expect, `${where}: expected paxd to fail with ${step.expect}, got ${JSON.stringify(mine).slice(0, 300)}`);
          continue;
        }
        const isQuery = /^\s*(SELECT|EXPLAIN)\b/i.test(step.sql);
        const pgSql = step.sql.replace(PAXD_WITH, '');
        const theirs = isQuery ? await runPg(pg, pgSql) : await runPgCommand(pg, pgSql);
        if (!theirs.ok) {
          assert.ok(!mine.ok, `${where}: PostgreSQL failed with ${theirs.code} (${theirs.message}), paxd answered ${JSON.stringify(mine).slice(0, 300)}`);
          assert.is(mine.code, theirs.code, `${where}: paxd: ${mine.message}; PostgreSQL: ${theirs.message}`);
          continue;
        }
        assert.ok(mine.ok, `${where}: paxd failed with ${!mine.ok ? `${mine.code} ${mine.message}` : ''}`);
        if (!mine.ok) continue;
        if (isQuery) {
          const diff = sameRows(/\border\s+by\b/i.test(step.sql), theirs.rows, mine.rows);
          assert.ok(diff === null, `${where}: ${diff ?? ''}`);
        } else {
          // RETURNING: psql prints the rows (unaligned, NULL as empty) before the tag.
          const rows = mine.rows.map((r) => r.map((v) => (v === NULL ? '' : v)).join('|'));
          assert.is([...rows, mine.tag].join('\n'), theirs.tag, where);
        }
      }
    } finally {
      await db.close();
    }
  });
}

test.run();

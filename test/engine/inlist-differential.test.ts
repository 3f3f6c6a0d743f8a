/**
 * Long IN lists of constants (fixtures/sql-inlist/*.sql), which the binder turns into one
 * hashed membership test (src/engine/bind/in-list.ts), against PostgreSQL 15 over the same
 * rows (the tables of ./differential-setup.ts), compared as ./differential.test.ts compares:
 * the same rows, PostgreSQL's text output, or the same SQLSTATE.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { query } from '../../src/engine/index.js';
import { startPostgres } from '../support/pg.js';
import { copyFromStdin, pgColumns } from '../support/tpch.js';
import { checkFixture, openPgSession, runPaxd, type PgSession } from './compare.js';
import { tempDir } from '../support/tmp.js';
import { buildPaxdTable, differentialTables, loadFixtures } from './differential-setup.js';

interface Env {
  db: Database;
  session: PgSession;
}

let env: Promise<Env> | null = null;

function setup(): Promise<Env> {
  env ??= (async () => {
    const db = await Database.open(tempDir());
    const pg = await startPostgres();
    for (const t of differentialTables()) {
      const types = await buildPaxdTable(db, t);
      await pg.query(`DROP TABLE IF EXISTS ${t.name}; CREATE TABLE ${t.name} (${pgColumns(t)});\n${copyFromStdin(t.name, types, t.batches)}ANALYZE ${t.name};`);
    }
    return { db, session: await openPgSession(pg) };
  })();
  return env;
}

for (const f of loadFixtures('sql-inlist')) {
  test(`${f.file}: ${f.sql.slice(0, 160)}`, async () => {
    const { db, session } = await setup();
    await checkFixture(f, await runPaxd(db, f.sql), () => session.run(f.sql));
  });
}

// The plan shows one hashed test where the list is long, and the comparisons where it is short
// or its constants are of different types.
test('EXPLAIN: a long list of constants is one hashed test, pushed into the scan; a short or mixed one is not', async () => {
  const { db } = await setup();
  const plan = async (sql: string) => (await query(db, `EXPLAIN ${sql}`)).rows.map((r) => r[0]).join('\n');
  const long = Array.from({ length: 100 }, (_v, k) => k * 3).join(', ');
  assert.match(await plan(`SELECT count(*) FROM t WHERE id IN (${long})`), /Pushed Filter: id IN \(100 values\)/);
  assert.match(await plan(`SELECT count(*) FROM t WHERE id NOT IN (${long})`), /Pushed Filter: id NOT IN \(100 values\)/);
  assert.match(await plan(`SELECT count(*) FROM t WHERE id + 1 IN (${long})`), /Filter: \(hashed \(id \+ 1\) IN \(100 values\)\)/);
  assert.match(await plan(`SELECT count(*) FROM t WHERE id IN (1, 2, 3)`), /id = 1/);
  assert.not.match(await plan(`SELECT count(*) FROM t WHERE id IN (${long}, 2.5)`), /hashed/);
});

test.run();

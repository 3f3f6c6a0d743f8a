/**
 * The differential suite of WITH [RECURSIVE], INTERSECT / EXCEPT, VALUES and DISTINCT ON
 * (docs/ARCHITECTURE.md "The SQL engine", issue #19): fixtures/sql-cte/*.sql run on paxd and on
 * PostgreSQL 15 over the relational suite's tables (./relational-setup.ts) and must agree: the
 * same rows (in order when the outermost query has ORDER BY) and column types (PostgreSQL's
 * format_type of a temporary view over the query, where the query can be one), or the same
 * SQLSTATE. The fixture format is ./differential.test.ts's (`-- paxd: CODE` before a
 * statement paxd must fail with CODE whatever PostgreSQL does).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkFixture, runPaxd, runPg } from './compare.js';
import { query } from '../../src/engine/index.js';
import { pgDisplayName } from '../../src/types/index.js';
import type { Database } from '../../src/table/database.js';
import type { Postgres } from '../support/pg.js';
import { pgSql, setupRelational } from './relational-setup.js';
import { loadFixtures } from './differential-setup.js';

/**
 * The result columns' types as PostgreSQL names them (format_type of a temporary view over the
 * query), or null when the query cannot be a view (two columns of one name).
 */
async function pgTypes(pg: Postgres, sql: string): Promise<string[] | null> {
  const body = sql.replace(/;\s*$/, '');
  const r = await runPg(pg, pgSql(`CREATE TEMP VIEW paxd_types AS ${body};\nSELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'paxd_types'::regclass AND attnum > 0 ORDER BY attnum;\nDROP VIEW paxd_types;`));
  return r.ok ? r.rows.map((row) => row[0]!) : null;
}

async function paxdTypes(db: Database, sql: string): Promise<string[]> {
  const r = await query(db, sql);
  return r.fields.map((f) => pgDisplayName(f.declared ?? f.type));
}

for (const f of loadFixtures('sql-cte')) {
  test(`${f.file}: ${f.sql.replace(/\s+/g, ' ').slice(0, 150)}`, async () => {
    const { db, pg } = await setupRelational();
    if (!(await checkFixture(f, await runPaxd(db, f.sql), () => runPg(pg, pgSql(f.sql))))) return;
    const types = await pgTypes(pg, f.sql);
    if (types !== null) assert.equal(await paxdTypes(db, f.sql), types, 'result column types');
  });
}

test.run();

/**
 * The engine's differential suite (docs/ARCHITECTURE.md "The SQL engine"): every query in fixtures/sql/*.sql runs against
 * paxd (embedded) and against a throwaway PostgreSQL 15 loaded with the same rows, and the
 * answers must agree — the same rows (in order when the outermost query has ORDER BY; as
 * multisets otherwise), PostgreSQL's text output for each value (floats to 1e-9 relative), or
 * the same SQLSTATE when PostgreSQL fails.
 *
 * Tables (test/engine/differential-setup.ts, shared with test/pgwire/differential.test.ts),
 * loaded into both (PostgreSQL through COPY FROM STDIN):
 *   t         2,500 generated rows over the common types, ~10% NULLs (the 0x fixtures)
 *   ty        every type paxd stores (src/types/type.ts), edge values, ~20% NULLs
 *   tn        NULL-heavy: columns 30%, 70%, 90%, 95% and 100% NULL
 *   region … lineitem   TPC-H at SF 0.01 (test/support/tpch.ts), several row groups each
 *
 * Fixture format: statements end with `;` at the end of a line; `--` lines are comments, and
 * `-- paxd: 0A000` right before a statement says paxd must fail with that SQLSTATE (a
 * feature not built yet) whatever PostgreSQL answers. ORDER BY queries order by unique keys.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { copyFromStdin, pgColumns } from '../support/tpch.js';
import { checkFixture, openPgSession, runPaxd, type PgSession } from './compare.js';
import { tempDir } from '../support/tmp.js';
import { buildPaxdTable, differentialTables, loadFixtures } from './differential-setup.js';

interface Env {
  db: Database;
  pg: Postgres;
  session: PgSession;
}

let env: Promise<Env> | null = null;

function setup(): Promise<Env> {
  env ??= (async () => {
    const db = await Database.open(tempDir());
    const pg = await startPostgres();
    // Each table into paxd, then the same batches into PostgreSQL.
    for (const t of differentialTables()) {
      const types = await buildPaxdTable(db, t);
      await pg.query(`DROP TABLE IF EXISTS ${t.name}; CREATE TABLE ${t.name} (${pgColumns(t)});\n${copyFromStdin(t.name, types, t.batches)}ANALYZE ${t.name};`);
    }
    return { db, pg, session: await openPgSession(pg) };
  })();
  return env;
}

// The generated TPC-H tables keep the specification's relations between orders and lineitem.
test('TPC-H data: orders and lineitem agree (dates, status, total price)', async () => {
  const { pg } = await setup();
  const bad = await pg.query(`
    WITH l AS (
      SELECT l_orderkey, min(l_shipdate) AS first_ship, max(l_shipdate) AS last_ship, min(l_commitdate) AS first_commit,
             round(sum(l_extendedprice * (1 + l_tax) * (1 - l_discount)), 2) AS total,
             CASE WHEN bool_and(l_linestatus = 'F') THEN 'F' WHEN bool_and(l_linestatus = 'O') THEN 'O' ELSE 'P' END AS status
      FROM lineitem GROUP BY l_orderkey)
    SELECT count(*) FROM orders o FULL JOIN l ON l.l_orderkey = o.o_orderkey
    WHERE o.o_orderkey IS NULL OR l.l_orderkey IS NULL OR first_ship <= o_orderdate OR last_ship > o_orderdate + 121
       OR first_commit < o_orderdate + 30 OR o_totalprice <> total OR o_orderstatus <> status`);
  assert.is(bad, '0');
});

for (const f of loadFixtures()) {
  test(`${f.file}: ${f.sql}`, async () => {
    const { db, session } = await setup();
    await checkFixture(f, await runPaxd(db, f.sql), () => session.run(f.sql));
  });
}

test.after(async () => {
  if (env !== null) await (await env).session.close();
});

test.run();

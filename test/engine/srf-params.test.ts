/**
 * `$n` parameters next to a LATERAL subquery's outer columns (both are parameter nodes: the
 * outer ones are numbered from LATERAL_PARAM_BASE and must survive ../../src/engine/exec/params.ts),
 * in SRF arguments and with grouping sets: each statement is prepared and executed on paxd and
 * run through PostgreSQL's extended query protocol with the same values, over the differential
 * suite's t table (./differential-setup.ts); the rows must be equal.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pgdriver from 'pg';
import { Database } from '../../src/table/database.js';
import { prepare, textRows } from '../../src/engine/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { copyFromStdin, pgColumns } from '../support/tpch.js';
import { tempDir } from '../support/tmp.js';
import { buildPaxdTable, differentialTables } from './differential-setup.js';

const CASES: readonly { sql: string; values: readonly number[] }[] = [
  { sql: 'SELECT t.id, s.c FROM t, LATERAL (SELECT count(*) AS c FROM t t2 WHERE t2.id <= t.id AND t2.id > $1::int4) s WHERE t.id < 8 ORDER BY 1', values: [2] },
  { sql: 'SELECT t.id, s.v FROM t, LATERAL (SELECT t.i4 + $1::int4 AS v) s WHERE t.id < $2::int4 ORDER BY 1', values: [5, 6] },
  { sql: 'SELECT g FROM generate_series($1::int4, $2::int4) g ORDER BY 1', values: [3, 7] },
  { sql: 'SELECT t.id, x FROM t, generate_series(1, t.g + $1::int4) x WHERE t.id < 4 ORDER BY 1, 2', values: [1] },
  { sql: 'SELECT g, b, count(*) FROM t WHERE id > $1::int4 GROUP BY ROLLUP (g, b) ORDER BY 1, 2, GROUPING(g, b)', values: [1000] },
];

let env: Promise<{ db: Database; pg: Postgres; client: pgdriver.Client }> | null = null;

function setup() {
  env ??= (async () => {
    const db = await Database.open(tempDir());
    const pg = await startPostgres();
    const t = differentialTables().next().value!;
    const types = await buildPaxdTable(db, t);
    await pg.query(`DROP TABLE IF EXISTS ${t.name}; CREATE TABLE ${t.name} (${pgColumns(t)});\n${copyFromStdin(t.name, types, t.batches)}ANALYZE ${t.name};`);
    const client = new pgdriver.Client({ host: pg.socketDir, port: pg.port, user: 'postgres', database: 'postgres', types: { getTypeParser: () => (v: string) => v } });
    await client.connect();
    return { db, pg, client };
  })();
  return env;
}

for (const c of CASES) {
  test(c.sql, async () => {
    const { db, client } = await setup();
    const mine = await (await prepare(db, c.sql)).execute([...c.values]);
    const theirs = await client.query({ text: c.sql, values: [...c.values], rowMode: 'array' });
    assert.equal(textRows(mine), theirs.rows as (string | null)[][]);
  });
}

test.after(async () => {
  if (env !== null) await (await env).client.end();
});

test.run();

/**
 * The function library's differential cases (issue #19, the `functions` stage; docs/ARCHITECTURE.md
 * "The function library"): every statement of fixtures/sql-functions/*.sql, one file per family
 * (strings, regex, math, system, …), runs on paxd (embedded) and on PostgreSQL 15 over the
 * suite's tables t, ty and tn (test/engine/differential-setup.ts); the answers must agree as
 * in test/engine/differential.test.ts (the same rows and text output, or the same SQLSTATE;
 * `-- paxd: 0A000` marks what paxd refuses on purpose), and the result columns' types must be
 * PostgreSQL's (RowDescription OIDs), except where paxd has no such type and answers text with
 * the same output (name, regtype, void). The settings functions need a wire session:
 * test/pgwire/system-functions.test.ts runs those.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pgdriver from 'pg';
import { Database } from '../../src/table/database.js';
import { query } from '../../src/engine/index.js';
import { typeOid } from '../../src/pgwire/codec/oids.js';
import { startPostgres } from '../support/pg.js';
import { copyFromStdin, pgColumns } from '../support/tpch.js';
import { checkFixture, openPgSession, runPaxd, type PgSession } from './compare.js';
import { tempDir } from '../support/tmp.js';
import { buildPaxdTable, differentialTables, loadFixtures } from './differential-setup.js';

interface Env {
  db: Database;
  session: PgSession;
  client: pgdriver.Client;
}

/** name, regtype and void: PostgreSQL's types that paxd answers as text. */
const TEXT_STAND_INS = new Set([19, 2206, 2278]);
/** name[] and regtype[]: answered as text[]. */
const TEXT_ARRAY_STAND_INS = new Set([1003, 2211]);

let env: Promise<Env> | null = null;

function setup(): Promise<Env> {
  env ??= (async () => {
    const db = await Database.open(tempDir());
    const pg = await startPostgres();
    for (const t of differentialTables()) {
      if (t.name !== 't' && t.name !== 'ty' && t.name !== 'tn') break;
      const types = await buildPaxdTable(db, t);
      await pg.query(`DROP TABLE IF EXISTS ${t.name}; CREATE TABLE ${t.name} (${pgColumns(t)});\n${copyFromStdin(t.name, types, t.batches)}ANALYZE ${t.name};`);
    }
    const client = new pgdriver.Client({ host: pg.socketDir, port: pg.port, user: 'postgres', database: 'postgres', types: { getTypeParser: () => (v: string) => v } });
    await client.connect();
    return { db, session: await openPgSession(pg), client };
  })();
  return env;
}

for (const f of loadFixtures('sql-functions')) {
  test(`${f.file}: ${f.sql}`, async () => {
    const { db, session, client } = await setup();
    if (!(await checkFixture(f, await runPaxd(db, f.sql), () => session.run(f.sql)))) return;
    const pgTypes = (await client.query({ text: f.sql, rowMode: 'array' })).fields.map((x) => x.dataTypeID);
    const paxdTypes = (await query(db, f.sql)).fields.map((x) => typeOid(x.type));
    const expected = pgTypes.map((oid, i) => (TEXT_STAND_INS.has(oid) && paxdTypes[i] === 25 ? 25 : TEXT_ARRAY_STAND_INS.has(oid) && paxdTypes[i] === 1009 ? 1009 : oid));
    assert.equal(paxdTypes, expected, 'result column types (OIDs)');
  });
}

test.after(async () => {
  if (env === null) return;
  const { session, client } = await env;
  await session.close();
  await client.end();
});

test.run();

/**
 * The catalog's differential cases (issue #21): every statement of fixtures/sql-catalog/*.sql
 * runs on paxd (embedded) and on PostgreSQL 15 over the same tables (CATALOG_TABLES; string
 * columns `COLLATE "C"` on the PostgreSQL side, the collation paxd's columns have), and the
 * answers must agree as in test/engine/differential.test.ts. The result columns' types must be
 * PostgreSQL's (oid, name, "char", regproc, int2vector … included), except where paxd has no
 * such type (STAND_INS: pg_node_tree and aclitem[], answered as text with the same output).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pgdriver from 'pg';
import { Database } from '../../src/table/database.js';
import { query } from '../../src/engine/index.js';
import { typeOid } from '../../src/pgwire/codec/oids.js';
import { startPostgres } from '../support/pg.js';
import { checkFixture, openPgSession, runPaxd, type PgSession } from './compare.js';
import { tempDir } from '../support/tmp.js';
import { loadFixtures } from './differential-setup.js';

/** The tables both sides hold (paxd's DDL; PostgreSQL's adds COLLATE "C" to string columns). */
export const CATALOG_TABLES = [
  "CREATE TABLE cat_events (id int8 NOT NULL, kind text NOT NULL DEFAULT 'click', amount numeric(12,2), at timestamptz, ok bool DEFAULT true)",
  "CREATE TABLE cat_accounts (aid int4 NOT NULL, bid int4 DEFAULT 0, abalance int4 DEFAULT -1, filler varchar(84), code char(3) DEFAULT 'abc')",
  'CREATE TABLE cat_misc (x float8, y date, z bytea, u uuid, j jsonb, s int2, r float4, n numeric, ts timestamp)',
];

/** PostgreSQL's result type OID → paxd's stand-in (types paxd lacks; the same text output). */
const STAND_INS: ReadonlyMap<number, number> = new Map([
  [194, 25], // pg_node_tree → text
  [1034, 1009], // aclitem[] → text[]
]);

interface Env {
  db: Database;
  session: PgSession;
  client: pgdriver.Client;
}

let env: Promise<Env> | null = null;

function setup(): Promise<Env> {
  env ??= (async () => {
    const db = await Database.open(tempDir());
    const pg = await startPostgres();
    for (const t of CATALOG_TABLES) {
      await query(db, t);
      await pg.query(t.replace(/\b(text|varchar\(\d+\)|char\(\d+\))( |,|\))/g, '$1 COLLATE "C"$2'));
    }
    const client = new pgdriver.Client({ host: pg.socketDir, port: pg.port, user: 'postgres', database: 'postgres', types: { getTypeParser: () => (v: string) => v } });
    await client.connect();
    return { db, session: await openPgSession(pg), client };
  })();
  return env;
}

for (const f of loadFixtures('sql-catalog')) {
  test(`${f.file}: ${f.sql}`, async () => {
    const { db, session, client } = await setup();
    if (!(await checkFixture(f, await runPaxd(db, f.sql), () => session.run(f.sql)))) return;
    const pgTypes = (await client.query({ text: f.sql, rowMode: 'array' })).fields.map((x) => x.dataTypeID);
    const paxdTypes = (await query(db, f.sql)).fields.map((x) => typeOid(x.type));
    const expected = pgTypes.map((oid, i) => (STAND_INS.get(oid) === paxdTypes[i] ? paxdTypes[i] : oid));
    assert.equal(paxdTypes, expected, 'result column types (OIDs)');
  });
}

test.after(async () => {
  if (env !== null) {
    const e = await env;
    await e.session.close();
    await e.client.end();
  }
});

test.run();

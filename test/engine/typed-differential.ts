/**
 * The differential suites that also compare result column types (window, srf, json, …): every
 * statement of the given fixture folders runs on paxd (embedded) and on a throwaway PostgreSQL
 * loaded with the differential suite's t, tn and ty tables (./differential-setup.ts). The
 * answers must agree as ./differential.test.ts compares them (rows, text output, SQLSTATE), and
 * so must the result column types: paxd's field types as the wire server would send their OIDs,
 * against the RowDescription PostgreSQL sends node-postgres for the same statement.
 *
 *   typedDifferential(['sql-window'])      // one uvu test per statement, then test.run()
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pgdriver from 'pg';
import { Database } from '../../src/table/database.js';
import { query } from '../../src/engine/index.js';
import { typeOid } from '../../src/pgwire/codec/oids.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { copyFromStdin, pgColumns } from '../support/tpch.js';
import { checkFixture, openPgSession, runPaxd, type PgSession } from './compare.js';
import { tempDir } from '../support/tmp.js';
import { buildPaxdTable, differentialTables, loadFixtures } from './differential-setup.js';

interface Env {
  db: Database;
  pg: Postgres;
  session: PgSession;
  client: pgdriver.Client;
}

export function typedDifferential(folders: readonly string[]): void {
  let env: Promise<Env> | null = null;
  const setup = (): Promise<Env> =>
    (env ??= (async () => {
      const db = await Database.open(tempDir());
      const pg = await startPostgres();
      // t, ty and tn come first; the TPC-H tables after them are not needed (nor generated).
      let loaded = 0;
      for (const t of differentialTables()) {
        if (loaded++ === 3) break;
        const types = await buildPaxdTable(db, t);
        await pg.query(`DROP TABLE IF EXISTS ${t.name}; CREATE TABLE ${t.name} (${pgColumns(t)});\n${copyFromStdin(t.name, types, t.batches)}ANALYZE ${t.name};`);
      }
      const client = new pgdriver.Client({ host: pg.socketDir, port: pg.port, user: 'postgres', database: 'postgres', types: { getTypeParser: () => (v: string) => v } });
      await client.connect();
      return { db, pg, session: await openPgSession(pg), client };
    })());

  for (const folder of folders) {
    for (const f of loadFixtures(folder)) {
      test(`${folder}/${f.file}: ${f.sql}`, async () => {
        const { db, session, client } = await setup();
        if (!(await checkFixture(f, await runPaxd(db, f.sql), () => session.run(f.sql)))) return;
        const described = await client.query({ text: f.sql, rowMode: 'array' });
        const r = await query(db, f.sql);
        assert.equal(
          r.fields.map((x) => typeOid(x.declared ?? x.type)),
          described.fields.map((x) => x.dataTypeID),
          `column types: paxd ${r.fields.map((x) => x.type.id).join(', ')}`,
        );
      });
    }
  }

  test.after(async () => {
    if (env !== null) {
      const e = await env;
      await e.session.close();
      await e.client.end();
    }
  });

  test.run();
}

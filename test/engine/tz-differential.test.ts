/**
 * The differential suite's timestamptz cases under four session time zones (issue #17,
 * "Time zones"): fixtures/sql-tz/*.sql (DST gaps and overlaps, date_trunc, extract, AT TIME
 * ZONE, timezone(), casts, literals with and without offsets) and the timestamptz statements
 * of fixtures/sql/30-datetime.sql and 23-nulls-types.sql run on paxd with the zone in the
 * statement's options and on PostgreSQL 15 after `SET TimeZone`; answers (text output,
 * errors by SQLSTATE) must be equal.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { timeZoneSetting } from '../../src/types/index.js';
import { startPostgres } from '../support/pg.js';
import { copyFromStdin, pgColumns } from '../support/tpch.js';
import { isOrdered, openPgSession, runPaxd, sameRows, type PgSession } from './compare.js';
import { tempDir } from '../support/tmp.js';
import { buildPaxdTable, differentialTables, loadFixtures } from './differential-setup.js';

const ZONES = ['UTC', 'Europe/Berlin', 'America/Los_Angeles', 'Asia/Kolkata'];

interface Env {
  db: Database;
  sessions: Map<string, PgSession>;
}

let env: Promise<Env> | null = null;

function setup(): Promise<Env> {
  env ??= (async () => {
    const db = await Database.open(tempDir());
    const pg = await startPostgres();
    for (const t of differentialTables()) {
      if (t.name !== 't' && t.name !== 'ty') continue;
      const types = await buildPaxdTable(db, t);
      await pg.query(`DROP TABLE IF EXISTS ${t.name}; CREATE TABLE ${t.name} (${pgColumns(t)});\n${copyFromStdin(t.name, types, t.batches)}`);
    }
    const sessions = new Map<string, PgSession>();
    for (const z of ZONES) sessions.set(z, await openPgSession(pg, z));
    return { db, sessions };
  })();
  return env;
}

const TIMESTAMPTZ = /timestamptz|\btz\b|time zone/i;
const fixtures = [
  ...loadFixtures('sql-tz'),
  ...loadFixtures('sql').filter((f) => (f.file === '30-datetime.sql' || f.file === '23-nulls-types.sql') && TIMESTAMPTZ.test(f.sql) && !/\b(tn|region|nation|orders|lineitem)\b/.test(f.sql)),
];

for (const zoneName of ZONES) {
  const zone = timeZoneSetting(zoneName)!;
  for (const f of fixtures) {
    test(`${zoneName} ${f.file}: ${f.sql}`, async () => {
      const { db, sessions } = await setup();
      const mine = await runPaxd(db, f.sql, { timeZone: zone });
      if (f.expect !== null) {
        assert.ok(!mine.ok && mine.code === f.expect, `expected paxd to fail with ${f.expect}, got ${JSON.stringify(mine).slice(0, 300)}`);
        return;
      }
      const theirs = await sessions.get(zoneName)!.run(f.sql);
      if (!theirs.ok) {
        assert.ok(!mine.ok, `PostgreSQL failed with ${theirs.code} (${theirs.message}), paxd answered ${JSON.stringify(mine).slice(0, 300)}`);
        assert.is(mine.code, theirs.code, `paxd: ${mine.message}; PostgreSQL: ${theirs.message}`);
        return;
      }
      assert.ok(mine.ok, `paxd failed with ${!mine.ok ? `${mine.code} ${mine.message}` : ''}`);
      if (!mine.ok) return;
      const diff = sameRows(isOrdered(f.sql), theirs.rows, mine.rows);
      assert.ok(diff === null, diff ?? '');
    });
  }
}

test('the zone is the statement\'s: concurrent statements in different zones print their own offsets', async () => {
  const { db } = await setup();
  const sql = "SELECT timestamptz '2024-07-01 12:00:00+00'";
  const answers = await Promise.all(ZONES.flatMap((z) => [1, 2, 3].map(() => runPaxd(db, sql, { timeZone: timeZoneSetting(z)! }))));
  const texts = answers.map((a) => (a.ok ? a.rows[0]![0] : a.code));
  assert.equal(texts, ZONES.flatMap((z) => [1, 2, 3].map(() => ({ UTC: '2024-07-01 12:00:00+00', 'Europe/Berlin': '2024-07-01 14:00:00+02', 'America/Los_Angeles': '2024-07-01 05:00:00-07', 'Asia/Kolkata': '2024-07-01 17:30:00+05:30' })[z])));
});

test.after(async () => {
  if (env !== null) for (const s of (await env).sessions.values()) await s.close();
});

test.run();

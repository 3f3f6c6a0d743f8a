/**
 * RowDescription typmods against a real PostgreSQL 15 (#16): numeric(p,s) columns and casts
 * send ((p << 16) | s) + 4, varchar(n) and bpchar(n) n + 4, everything computed -1 — in the
 * simple protocol, and in the extended protocol's Describe with text and binary results,
 * together with the DataRow bytes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';
import { RawClient } from './client.js';
import { wireAnswers } from './binary-compare.js';

let pg: Postgres;
let db: Database;
let srv: RunningServer;

const SETUP = [
  'CREATE TABLE tm (k int4, n numeric(12,2), n38 numeric(38,10), n0 numeric(5,0), nu numeric, v varchar(10), c char(3), t text, ts timestamp, d date)',
  "INSERT INTO tm VALUES (1, 1234.5, 1.0000000001, 7, 1.5, 'ab', 'x', 'tt', '2020-01-01 10:00:00', '2020-01-01'), (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
];

test.before(async () => {
  pg = await startPostgres();
  db = await Database.open(tempDir());
  srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
  for (const [port, user] of [
    [srv.port, 'paxd'],
    [pg.port, 'postgres'],
  ] as const) {
    const c = await RawClient.session(port, { user, database: user });
    await c.query('DROP TABLE IF EXISTS tm');
    for (const sql of SETUP) {
      const err = (await c.query(sql)).find((r) => r.code === 'E');
      if (err !== undefined) throw new Error(`${user}: ${sql}: ${err.body.toString('utf8')}`);
    }
    c.end();
  }
});

test.after(async () => {
  await srv.close();
  await db.close();
});

const QUERIES = [
  'SELECT n, n38, n0, nu, v, c, t, ts, d FROM tm ORDER BY k',
  'SELECT * FROM tm ORDER BY k',
  'SELECT tm.* FROM tm ORDER BY k',
  'SELECT n AS renamed, n + 1 AS plus, -n AS neg, v || c AS cat FROM tm ORDER BY k',
  "SELECT n::numeric(10,4) AS cast4, '1.5'::numeric(5,1) AS lit, 2::numeric(3,0) AS int_cast, v::varchar(3) AS v3, t::char(5) AS c5, nu::numeric AS plain FROM tm ORDER BY k",
  'SELECT max(n) AS mx, sum(n) AS s, count(n) AS cnt FROM tm',
  'SELECT n, count(*) AS cnt FROM tm GROUP BY n ORDER BY n',
  'SELECT k, n FROM tm WHERE n > 0',
  'SELECT round(n, 1) AS r, abs(n) AS a FROM tm ORDER BY k',
  'SELECT 1.50::numeric(4,2) AS x',
];

test("RowDescription typmods and DataRows of columns, casts and expressions are PostgreSQL 15's", async () => {
  const problems: string[] = [];
  for (const sql of QUERIES) {
    const got = await wireAnswers(srv.port, 'paxd', sql);
    const want = await wireAnswers(pg.port, 'postgres', sql);
    if (want.some((w) => /\nE \w{5}|: E \w{5}/.test(w))) throw new Error(`PostgreSQL failed: ${sql}: ${want.join('\n')}`);
    for (let i = 0; i < want.length; i++) if (got[i] !== want[i]) problems.push(`${sql}\n  paxd:       ${got[i]}\n  PostgreSQL: ${want[i]}`);
  }
  assert.equal(problems, []);
});

test('bad type modifiers are 22023 and unknown types 42704, as in PostgreSQL; timestamp(p) is 0A000', async () => {
  const codes = async (port: number, user: string, sql: string) => {
    const c = await RawClient.session(port, { user, database: user });
    const rs = await c.query(sql);
    c.end();
    const e = rs.find((r) => r.code === 'E');
    return e === undefined ? 'ok' : (/C([0-9A-Z]{5})\0/.exec(e.body.toString('latin1'))?.[1] ?? '?');
  };
  for (const sql of [
    'SELECT 1::numeric(0)',
    'SELECT 1::numeric(2000)',
    "SELECT 'a'::varchar(0)",
    "SELECT 'a'::char(0)",
    'SELECT 1::numeric(5,6)',
    'SELECT 1::nosuchtype',
    "SELECT '{1}'::nosuch[]",
  ]) {
    const want = await codes(pg.port, 'postgres', sql);
    assert.ok(want !== 'ok', `PostgreSQL: ${sql}`);
    assert.is(await codes(srv.port, 'paxd', sql), want, sql);
  }
  assert.is(await codes(pg.port, 'postgres', "SELECT '2020-01-01'::timestamp(3)"), 'ok');
  assert.is(await codes(srv.port, 'paxd', "SELECT '2020-01-01'::timestamp(3)"), '0A000');
});

test.run();

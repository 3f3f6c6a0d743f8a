/**
 * Array results on the wire, byte for byte against a real PostgreSQL 15: array_agg over every
 * stored type (NULL elements, empty strings, quotes, backslashes, commas, braces, spaces, the
 * string NULL, special values) must answer the same RowDescription (array type OID, typlen,
 * typmod) and the same DataRow bytes in the simple protocol's text, and in the extended
 * protocol's text and binary (array_send) formats. Array literals cast to a type, which the
 * engine canonicalizes with the element type's input and output, are compared the same way.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { ALL_STORED_TYPES } from '../support/random.js';
import { tempDir } from '../support/tmp.js';
import { RawClient } from './client.js';
import { wireAnswers } from './binary-compare.js';

/** Per stored type, SQL literals for rows 1, 2, …; rows past the list are NULL. */
const VALUES: Readonly<Record<string, readonly string[]>> = {
  int2: ['32767', '-32768', '0', 'NULL', '7'],
  int4: ['2147483647', '-2147483648', 'NULL', '0', '-1'],
  int8: ['9223372036854775807', '-9223372036854775808', '0', 'NULL', '42'],
  float4: ["'NaN'", "'Infinity'", "'-Infinity'", "'-0'", "'1.5'", "'3.4028235e+38'", "'1e-45'", 'NULL'],
  float8: ["'NaN'", "'Infinity'", "'-Infinity'", "'-0'", "'0.1'", "'1e-300'", "'1.7976931348623157e+308'", 'NULL'],
  bool: ['true', 'false', 'NULL', 'true'],
  text: [
    "''",
    "'NULL'",
    "'null'",
    "'a b'",
    `'a"b'`,
    "'a\\b'",
    "'x,y'",
    "'{}'",
    "' lead'",
    "'tail '",
    "'é€😀'",
    "'tab\there'",
    "'line\nbreak'",
    'NULL',
    "'plain'",
  ],
  'varchar(5)': ["''", "'a,b'", `'"'`, "'\\'", "'NULL'", 'NULL', "'{'", "'} '"],
  'char(3)': ["''", "'a'", "'a b'", "'{'", 'NULL', "'\"'", "'xyz'"],
  bytea: ["'\\x'", "'\\x00ff'", 'NULL', "'\\x5c22'"],
  date: ["'infinity'", "'-infinity'", "'2020-01-01'", "'4714-11-24 BC'", "'5874897-12-31'", 'NULL'],
  timestamp: ["'infinity'", "'-infinity'", "'2020-01-01 12:34:56.789'", "'4714-11-24 00:00:00 BC'", "'1999-12-31 23:59:59.999999'", 'NULL'],
  timestamptz: ["'infinity'", "'-infinity'", "'2020-01-01 12:34:56.789+00'", "'2000-01-01 00:00:00+00'", 'NULL'],
  'numeric(12,3)': ['123456789.123', '-0.001', '0', 'NULL', '1.5'],
  numeric: ["'NaN'", "'Infinity'", "'-Infinity'", "'1e-30'", "'12345678901234567890.000100'", "'-0.0'", 'NULL', "'99999999999999999999999999999999999999'"],
  uuid: ["'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", 'NULL', "'00000000-0000-0000-0000-000000000000'"],
  jsonb: [`'{"a": "b,c"}'`, "'[1, 2]'", `'"x\\"y"'`, "'null'", 'NULL', "'{}'"],
};

const ROWS = Math.max(...Object.values(VALUES).map((v) => v.length));

let pg: Postgres;
let db: Database;
let srv: RunningServer;

async function both(sql: string): Promise<[string[], string[]]> {
  return [await wireAnswers(srv.port, 'paxd', sql), await wireAnswers(pg.port, 'postgres', sql)];
}

test.before(async () => {
  pg = await startPostgres();
  db = await Database.open(tempDir());
  srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
  const create = `CREATE TABLE arr (k int4, ${ALL_STORED_TYPES.map(([n, t]) => `${n} ${t}`).join(', ')})`;
  const rows: string[] = [];
  for (let k = 0; k < ROWS; k++) {
    const cells = ALL_STORED_TYPES.map(([, t]) => {
      const v = VALUES[t];
      if (v === undefined) throw new Error(`no test values for stored type ${t}`);
      return v[k] ?? 'NULL';
    });
    rows.push(`(${k + 1}, ${cells.join(', ')})`);
  }
  const insert = `INSERT INTO arr VALUES ${rows.join(', ')}`;
  for (const port of [srv.port, pg.port]) {
    const user = port === pg.port ? 'postgres' : 'paxd';
    const c = await RawClient.session(port, { user, database: user });
    for (const sql of ['DROP TABLE IF EXISTS arr', create, insert, 'CREATE TABLE empty_arr (x int4)']) {
      const err = (await c.query(sql)).find((r) => r.code === 'E');
      if (err !== undefined && !sql.startsWith('DROP')) throw new Error(`${port === pg.port ? 'PostgreSQL' : 'paxd'}: ${sql}: ${err.body.toString('utf8')}`);
    }
    c.end();
  }
});

test.after(async () => {
  await srv.close();
  await db.close();
});

test('array_agg over every stored type: array OIDs, text and binary bytes as PostgreSQL 15', async () => {
  const problems: string[] = [];
  for (const [name, type] of ALL_STORED_TYPES) {
    for (const sql of [
      `SELECT array_agg(${name} ORDER BY k) AS a FROM arr`,
      `SELECT k % 3 AS g, array_agg(${name} ORDER BY k DESC) AS a FROM arr GROUP BY k % 3 ORDER BY 1`,
      `SELECT array_agg(${name} ORDER BY k) AS a FROM arr WHERE ${name} IS NOT NULL`,
    ]) {
      const [got, want] = await both(sql);
      if (want.some((w) => w.includes('\nE ') || / E \d/.test(w))) throw new Error(`${type}: PostgreSQL failed: ${want.join('\n')}`);
      for (let i = 0; i < want.length; i++) if (got[i] !== want[i]) problems.push(`${type}: ${sql}\n  paxd:       ${got[i]}\n  PostgreSQL: ${want[i]}`);
    }
  }
  assert.equal(problems, []);
});

test('array_agg of no rows is NULL, of only NULLs an array of NULLs, as in PostgreSQL', async () => {
  for (const sql of [
    'SELECT array_agg(x) AS a FROM empty_arr',
    'SELECT array_agg(i4) AS a FROM arr WHERE k > 1000',
    'SELECT array_agg(i2 ORDER BY k) AS a FROM arr WHERE i2 IS NULL',
    'SELECT array_agg(DISTINCT b) AS a FROM arr',
  ]) {
    const [got, want] = await both(sql);
    assert.equal(got, want, sql);
  }
});

test('array literals cast to an array type print and send as PostgreSQL does', async () => {
  const problems: string[] = [];
  for (const sql of [
    `SELECT '{1, 02,NULL, -3}'::int4[] AS a`,
    `SELECT '{}'::text[] AS a`,
    `SELECT '{"a b", "", NULL, "NULL", \\\\, "q\\"t", x\\,y}'::text[] AS a`,
    `SELECT '{1.50, NaN, -Infinity}'::numeric[] AS a`,
    `SELECT '{2020-01-01, infinity}'::date[] AS a`,
    `SELECT '{t,f,NULL}'::bool[] AS a`,
  ]) {
    const [got, want] = await both(sql);
    for (let i = 0; i < want.length; i++) if (got[i] !== want[i]) problems.push(`${sql}\n  paxd:       ${got[i]}\n  PostgreSQL: ${want[i]}`);
  }
  assert.equal(problems, []);
});

test('malformed array literals fail with 22P02, as in PostgreSQL', async () => {
  for (const sql of [`SELECT '{1,2'::int4[] AS a`, `SELECT '{1,x}'::int4[] AS a`, `SELECT '1,2'::int4[] AS a`]) {
    const [got, want] = await both(sql);
    assert.equal(got, want, sql);
    assert.ok(want[0]!.includes('E 22P02'), `${sql}: ${want[0]}`);
  }
});

test('timestamptz[] values print in the session time zone, as PostgreSQL prints them', async () => {
  const problems: string[] = [];
  for (const zone of ['Europe/Berlin', 'America/Los_Angeles', 'Asia/Kolkata']) {
    for (const sql of [
      'SELECT array_agg(tz ORDER BY k) AS a FROM arr',
      `SELECT '{"2020-06-01 10:00:00", "2020-01-01 00:00:00+00", infinity}'::timestamptz[] AS a`,
    ]) {
      const got = await wireAnswers(srv.port, 'paxd', sql, { TimeZone: zone });
      const want = await wireAnswers(pg.port, 'postgres', sql, { TimeZone: zone });
      for (let i = 0; i < want.length; i++) if (got[i] !== want[i]) problems.push(`${zone}: ${sql}\n  paxd:       ${got[i]}\n  PostgreSQL: ${want[i]}`);
    }
  }
  assert.equal(problems, []);
});

test('arrays paxd does not handle yet are 0A000 where PostgreSQL answers; those it handles answer as PostgreSQL', async () => {
  for (const sql of [
    'SELECT array_agg(i4) || 1 AS a FROM arr',
    'SELECT array_agg(x) AS a FROM (SELECT array_agg(i4) AS x FROM arr) s',
    `SELECT '{{1,2},{3,4}}'::int4[] AS a`,
    `SELECT '[0:1]={1,2}'::int4[] AS a`,
    'SELECT ARRAY[k, i4] AS a FROM arr',
  ]) {
    const [got, want] = await both(sql);
    assert.ok(!want[0]!.includes(' E '), `PostgreSQL: ${sql}: ${want[0]}`);
    if (got.every((g) => g.includes('E 0A000'))) continue;
    // Built since (array || and ARRAY[…] over expressions: src/engine/functions/arrays.ts): PostgreSQL's answer, in text and binary.
    assert.equal(got, want, `paxd: ${sql}`);
  }
});

test.run();

/**
 * Binary send and receive of special values, byte for byte against a real PostgreSQL 15: the
 * same SELECT with every result column in binary, on PostgreSQL and on paxd, must give the
 * same DataRow bytes (±infinity of date/timestamp/timestamptz used to go out shifted by the
 * epoch — `date 'infinity'` as 7fffd532, read back as 5881580-07-11 — and -infinity raised
 * XX000); then PostgreSQL's bytes, bound as binary parameters to `$1::text`, must print the
 * same text on both.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';
import { dataRowOf, fe, msg, RawClient } from './client.js';

/** [SQL literal, type name, type OID] */
const VALUES: [string, string, number][] = [
  ["'infinity'", 'date', 1082],
  ["'-infinity'", 'date', 1082],
  ["'4714-11-24 BC'", 'date', 1082],
  ["'5874897-12-31'", 'date', 1082],
  ["'infinity'", 'timestamp', 1114],
  ["'-infinity'", 'timestamp', 1114],
  ["'4714-11-24 00:00:00 BC'", 'timestamp', 1114],
  ["'infinity'", 'timestamptz', 1184],
  ["'-infinity'", 'timestamptz', 1184],
  ["'NaN'", 'float4', 700],
  ["'Infinity'", 'float4', 700],
  ["'-Infinity'", 'float4', 700],
  ["'NaN'", 'float8', 701],
  ["'Infinity'", 'float8', 701],
  ["'-Infinity'", 'float8', 701],
  ["'-0'", 'float8', 701],
  ["'NaN'", 'numeric', 1700],
  ["'Infinity'", 'numeric', 1700],
  ["'-Infinity'", 'numeric', 1700],
  ["'99999999999999999999999999999999999999'", 'numeric', 1700],
  ["'-0.00000000000000000000000000000000000001'", 'numeric', 1700],
  ["'32767'", 'int2', 21],
  ["'-32768'", 'int2', 21],
  ["'2147483647'", 'int4', 23],
  ["'-2147483648'", 'int4', 23],
  ["'9223372036854775807'", 'int8', 20],
  ["'-9223372036854775808'", 'int8', 20],
];

let pg: Postgres;
let db: Database;
let srv: RunningServer;

test.before(async () => {
  pg = await startPostgres();
  db = await Database.open(tempDir());
  srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
});

test.after(async () => {
  await srv.close();
  await db.close();
  await pg.stop();
});

const int16 = (n: number) => Buffer.from([(n >> 8) & 255, n & 255]);
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const cstr = (s: string) => Buffer.from(s + '\0', 'utf8');

/** The one DataRow's fields (raw bytes) of an extended-protocol run, or the error's SQLSTATE. */
async function fields(port: number, user: string, sql: string, types: number[], params: Buffer[], resultFormat: 0 | 1): Promise<Buffer[] | string> {
  const c = await RawClient.session(port, { user, database: user });
  try {
    const bind = msg('B', cstr(''), cstr(''), int16(1), int16(1), int16(params.length), ...params.flatMap((p) => [int32(p.byteLength), p]), int16(1), int16(resultFormat));
    c.send(fe.parse('', sql, types), bind, fe.execute(''), fe.sync());
    const rs = await c.untilReady();
    const err = rs.find((r) => r.code === 'E');
    if (err !== undefined) return /C([0-9A-Z]{5})\0/.exec(err.body.toString('latin1'))?.[1] ?? 'error';
    const row = rs.find((r) => r.code === 'D')!.body;
    const out: Buffer[] = [];
    let off = 2;
    for (let i = 0; i < row.readInt16BE(0); i++) {
      const n = row.readInt32BE(off);
      out.push(row.subarray(off + 4, off + 4 + n));
      off += 4 + n;
    }
    return out;
  } finally {
    c.end();
  }
}

test('binary results of special values are PostgreSQL 15\'s bytes, and its bytes bound as binary parameters read back the same', async () => {
  const problems: string[] = [];
  for (const [lit, type, oid] of VALUES) {
    const what = `${lit}::${type}`;
    const want = await fields(pg.port, 'postgres', `SELECT ${lit}::${type}`, [], [], 1);
    const got = await fields(srv.port, 'paxd', `SELECT ${lit}::${type}`, [], [], 1);
    if (typeof want === 'string') throw new Error(`${what}: PostgreSQL failed with ${want}`);
    const hex = (x: Buffer[] | string) => (typeof x === 'string' ? `ERROR ${x}` : x.map((b) => b.toString('hex')).join(','));
    if (hex(got) !== hex(want)) problems.push(`send ${what}: paxd ${hex(got)}, PostgreSQL ${hex(want)}`);
    // Receive: PostgreSQL's bytes as a binary parameter, printed as text by each.
    const sql = `SELECT $1::${type}::text`;
    const wantText = await fields(pg.port, 'postgres', sql, [oid], want, 0);
    const gotText = await fields(srv.port, 'paxd', sql, [oid], want, 0);
    const text = (x: Buffer[] | string) => (typeof x === 'string' ? `ERROR ${x}` : x.map((b) => b.toString('utf8')).join(','));
    if (text(gotText) !== text(wantText)) problems.push(`receive ${what}: paxd ${text(gotText)}, PostgreSQL ${text(wantText)}`);
  }
  assert.equal(problems, []);
});

test('binary date/timestamp parameters outside the range are 22008, as in PostgreSQL', async () => {
  const cases: [string, number, Buffer][] = [
    ['date', 1082, int32(2147483646)],
    ['date', 1082, int32(-2147483647)],
    ['timestamp', 1114, Buffer.from('7ffffffffffffffe', 'hex')],
    ['timestamptz', 1184, Buffer.from('8000000000000001', 'hex')],
  ];
  for (const [type, oid, bytes] of cases) {
    const want = await fields(pg.port, 'postgres', `SELECT $1::${type}::text`, [oid], [bytes], 0);
    const got = await fields(srv.port, 'paxd', `SELECT $1::${type}::text`, [oid], [bytes], 0);
    assert.is(want, '22008', `${type} ${bytes.toString('hex')}: PostgreSQL`);
    assert.is(got, want, `${type} ${bytes.toString('hex')}`);
  }
  void dataRowOf;
});

test.run();

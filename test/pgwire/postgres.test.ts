/**
 * paxd serve next to a real PostgreSQL 15 (test/support/pg.ts):
 *  - every type's binary format is byte for byte what PostgreSQL sends, and PostgreSQL's
 *    bytes decode to the same values;
 *  - postgres_fdw in PostgreSQL reads a paxd table through paxd serve: cursors declared
 *    through the unnamed extended protocol, FETCH, pushed-down quals with $n parameters
 *    (generic plans), rescans in a nested loop, aggregates, savepoints.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { decodeBinary, encodeBinary } from '../../src/pgwire/codec/binary.js';
import { columnOf, parseText, type PgType } from '../../src/types/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';
import { fe, RawClient } from './client.js';

let pg: Postgres;
let db: Database;
let srv: RunningServer;

test.before(async () => {
  pg = await startPostgres();
  db = await Database.open(tempDir());
  const t = await db.createTable('orders', [
    { name: 'id', type: 'int4', notNull: true },
    { name: 'cust', type: 'text' },
    { name: 'amount', type: 'numeric(10,2)' },
  ]);
  const n = 250;
  const sink = t.sink();
  await sink.write({
    length: n,
    columns: [
      columnOf({ id: 'int4' }, Array.from({ length: n }, (_, i) => i + 1)),
      columnOf({ id: 'text' }, Array.from({ length: n }, (_, i) => `c${i % 7}`)),
      columnOf({ id: 'numeric', precision: 10, scale: 2 }, Array.from({ length: n }, (_, i) => BigInt(i * 101))),
    ],
    selection: null,
  });
  await sink.commit();
  srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
});

test.after(async () => {
  await pg.query('DROP SERVER IF EXISTS paxd CASCADE').catch(() => undefined);
  await srv.close();
  await db.close();
});

const BINARY_CASES: [string, PgType, string][] = [
  ['int2', { id: 'int2' }, '-32768'],
  ['int4', { id: 'int4' }, '-1'],
  ['int8', { id: 'int8' }, '9007199254740993'],
  ['float4', { id: 'float4' }, '-0.25'],
  ['float8', { id: 'float8' }, '1e300'],
  ['numeric(12,3)', { id: 'numeric', precision: 12, scale: 3 }, '12345.678'],
  ['numeric(12,3)', { id: 'numeric', precision: 12, scale: 3 }, '-0.001'],
  ['numeric(10,2)', { id: 'numeric', precision: 10, scale: 2 }, '100'],
  ['numeric', { id: 'numeric' }, '123456789.000012345'],
  ['numeric', { id: 'numeric' }, '0.00000001'],
  ['numeric', { id: 'numeric' }, '0'],
  ['numeric', { id: 'numeric' }, 'NaN'],
  ['numeric', { id: 'numeric' }, '-99999999999999999999.5'],
  ['text', { id: 'text' }, 'héllo'],
  ['varchar(5)', { id: 'varchar', length: 5 }, 'abc'],
  ['bpchar(4)', { id: 'bpchar', length: 4 }, 'ab'],
  ['bool', { id: 'bool' }, 't'],
  ['date', { id: 'date' }, '1969-12-31'],
  ['timestamp', { id: 'timestamp' }, '2024-02-29 12:34:56.789'],
  ['timestamptz', { id: 'timestamptz' }, '2024-02-29 12:34:56+00'],
  ['bytea', { id: 'bytea' }, '\\x00ff10'],
  ['uuid', { id: 'uuid' }, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
  ['jsonb', { id: 'jsonb' }, '{"b": [1, 2], "a": 1}'],
  ['interval', { id: 'interval' }, '1 year 2 mons 3 days 04:05:06.5'],
];

test('binary formats: paxd writes PostgreSQL’s bytes and reads them back to the same values', async () => {
  const c = await RawClient.connect(pg.port);
  c.send(fe.startup({ user: 'postgres', database: 'postgres' }));
  await c.untilReady();
  try {
    for (const [name, type, text] of BINARY_CASES) {
      c.send(fe.parse('', `select '${text}'::${name}`), fe.bind('', '', [], [1]), fe.execute(''), fe.sync());
      const d = (await c.untilReady()).find((r) => r.code === 'D')!.body;
      const pgBytes = Buffer.from(d.subarray(6, 6 + d.readInt32BE(2)));
      const value = parseText(type, text);
      assert.is(encodeBinary(type, value).toString('hex'), pgBytes.toString('hex'), `${name} ${text}`);
      assert.equal(decodeBinary(type, pgBytes), value, `${name} ${text} decoded`);
    }
  } finally {
    c.end();
  }
});

/** Runs COPY … TO STDOUT on a raw connection and returns the CopyData bytes. */
async function copyOut(port: number, user: string, sql: string): Promise<Buffer> {
  const c = await RawClient.connect(port);
  try {
    c.send(fe.startup({ user, database: 'postgres' }));
    await c.untilReady();
    c.send(fe.query(sql));
    const rs = await c.untilReady();
    return Buffer.concat(rs.filter((r) => r.code === 'd').map((r) => Buffer.from(r.body)));
  } finally {
    c.end();
  }
}

/** Runs COPY … FROM STDIN on a raw connection with `data`; returns the command tag or the error message. */
async function copyIn(port: number, user: string, sql: string, data: Buffer): Promise<string> {
  const c = await RawClient.connect(port);
  try {
    c.send(fe.startup({ user, database: 'postgres' }));
    await c.untilReady();
    c.send(fe.query(sql));
    await c.until((b) => b.includes(0x47)); // 'G' CopyInResponse
    c.send(fe.copyData(data), fe.copyDone());
    const rs = await c.untilReady();
    const done = rs.find((r) => r.code === 'C' || r.code === 'E')!;
    return done.body.toString('utf8').replace(/\0/g, ' ').trim();
  } finally {
    c.end();
  }
}

test('COPY binary: paxd’s output loads into PostgreSQL and PostgreSQL’s into paxd, row for row', async () => {
  const cols = BINARY_CASES.filter(([name], i) => name !== 'interval' && BINARY_CASES.findIndex(([n]) => n === name) === i);
  const ddl = cols.map(([name], i) => `c${i} ${name}`).join(', ');
  await db.createTable(
    'bt',
    cols.map(([name], i) => ({ name: `c${i}`, type: name })),
  );
  const t = await db.table('bt');
  const sink = t.sink();
  await sink.write({ length: 2, columns: cols.map(([, type, text]) => columnOf(type, [parseText(type, text), null])), selection: null });
  await sink.commit();
  await db.createTable(
    'bt_back',
    cols.map(([name], i) => ({ name: `c${i}`, type: name })),
  );
  await pg.query(`DROP TABLE IF EXISTS bt; CREATE TABLE bt (${ddl}); SET timezone = UTC`);

  const fromPaxd = await copyOut(srv.port, 'paxd', 'COPY bt TO STDOUT (FORMAT binary)');
  assert.is(await copyIn(pg.port, 'postgres', 'COPY bt FROM STDIN (FORMAT binary)', fromPaxd), 'COPY 2');
  const fromPg = await copyOut(pg.port, 'postgres', 'COPY bt TO STDOUT (FORMAT binary)');
  assert.is(fromPg.toString('hex'), fromPaxd.toString('hex'));
  assert.is(await copyIn(srv.port, 'paxd', 'COPY bt_back FROM STDIN (FORMAT binary)', fromPg), 'COPY 2');
  const pgText = (await copyOut(pg.port, 'postgres', "SET timezone = 'UTC'; COPY bt TO STDOUT")).toString('utf8');
  const paxdText = (await copyOut(srv.port, 'paxd', 'COPY bt_back TO STDOUT')).toString('utf8');
  assert.is(paxdText, pgText);
});

test('postgres_fdw reads a paxd table through paxd serve', async () => {
  await pg.query(`
    CREATE EXTENSION IF NOT EXISTS postgres_fdw;
    DROP SERVER IF EXISTS paxd CASCADE;
    CREATE SERVER paxd FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '${srv.port}', dbname 'paxd');
    CREATE USER MAPPING FOR postgres SERVER paxd OPTIONS (user 'paxd');
    CREATE FOREIGN TABLE orders (id int4 NOT NULL, cust text COLLATE "C", amount numeric(10,2)) SERVER paxd OPTIONS (table_name 'orders');
  `);
  assert.is(await pg.query('SELECT count(*), sum(amount) FROM orders'), '250|31436.25');
  assert.is(await pg.query('SELECT * FROM orders WHERE id = 3'), '3|c2|2.02');
  assert.is(await pg.query('SELECT cust, count(*), sum(amount) FROM orders GROUP BY cust ORDER BY cust LIMIT 3'), 'c0|36|4454.10\nc1|36|4490.46\nc2|36|4526.82');
  assert.is(await pg.query("SELECT id FROM orders WHERE cust = 'c3' ORDER BY id DESC LIMIT 2"), '249\n242');
  // A nested loop rescans the foreign side with a parameter ($1 in a DECLARE sent through Bind).
  assert.is(await pg.query('SET enable_hashjoin = off; SET enable_mergejoin = off; SELECT count(*) FROM orders o, (VALUES (1), (2), (300)) v(x) WHERE o.id = v.x'), '2');
  // The sixth EXECUTE of a prepared statement uses a generic plan: `WHERE id = $1` goes to paxd.
  const executes = Array.from({ length: 7 }, (_, i) => `EXECUTE p(${i + 5});`).join('\n');
  assert.is(await pg.query(`PREPARE p(int) AS SELECT cust FROM orders WHERE id = $1;\n${executes}`), 'c4\nc5\nc6\nc0\nc1\nc2\nc3');
  // Subtransactions become SAVEPOINT / ROLLBACK TO SAVEPOINT; RELEASE SAVEPOINT on paxd.
  assert.is(await pg.query('BEGIN; SAVEPOINT a; SELECT max(id) FROM orders; ROLLBACK TO a; SELECT min(id) FROM orders; COMMIT'), '250\n1');
  // An error on paxd's side surfaces with its SQLSTATE.
  await pg.query('CREATE FOREIGN TABLE missing (id int4) SERVER paxd');
  try {
    await pg.query('SELECT * FROM missing');
    assert.unreachable('a missing remote table');
  } catch (e) {
    assert.is((e as { sqlstate: string }).sqlstate, '42P01');
  }
});

test.run();

/**
 * node-postgres against paxd serve (docs/WIRE.md): the simple query protocol, the extended protocol
 * (a parameterless prepared statement), PostgreSQL's errors with SQLSTATE and position, and
 * type parsing of the text results by the driver's default parsers.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { columnOf } from '../../src/types/index.js';
import { tempDir } from '../support/tmp.js';

let db: Database;
let srv: RunningServer;
let client: pg.Client;

test.before(async () => {
  db = await Database.open(tempDir());
  const t = await db.createTable('t', [
    { name: 'id', type: 'int4', notNull: true },
    { name: 's', type: 'text' },
    { name: 'big', type: 'int8' },
  ]);
  const sink = t.sink();
  await sink.write({
    length: 4,
    columns: [columnOf({ id: 'int4' }, [1, 2, 3, 4]), columnOf({ id: 'text' }, ['a', null, 'é', 'd']), columnOf({ id: 'int8' }, [10n, 20n, null, 9007199254740993n])],
    selection: null,
  });
  await sink.commit();
  srv = await startServer({ db, host: '127.0.0.1', port: 0, auth: { method: 'trust' } });
  client = new pg.Client({ host: '127.0.0.1', port: srv.port, user: 'paxd', database: 'paxd' });
  await client.connect();
});

test.after(async () => {
  await client.end();
  await srv.close();
  await db.close();
});

test('simple protocol: rows, NULLs, types as node-postgres parses them', async () => {
  const r = await client.query('select id, s, big from t where id >= 2 order by id');
  assert.equal(r.fields.map((f) => [f.name, f.dataTypeID]), [['id', 23], ['s', 25], ['big', 20]]);
  assert.equal(r.rows, [
    { id: 2, s: null, big: '20' },
    { id: 3, s: 'é', big: null },
    { id: 4, s: 'd', big: '9007199254740993' },
  ]);
  assert.is(r.command, 'SELECT');
  assert.is(r.rowCount, 3);
});

test('extended protocol: a named prepared statement runs twice', async () => {
  for (let i = 0; i < 2; i++) {
    const r = await client.query({ name: 'cnt', text: 'select count(*) as n, sum(id) as total from t', values: [] });
    assert.equal(r.rows, [{ n: '4', total: '10' }]);
  }
});

test('extended protocol: $n parameters of inferred types, a named statement re-bound, INSERT with parameters', async () => {
  const r = await client.query('select id, s from t where id = $1 or s = $2 order by id', [3, 'a']);
  assert.equal(r.rows, [
    { id: 1, s: 'a' },
    { id: 3, s: 'é' },
  ]);
  for (const [id, n] of [[1, 3], [3, 1]] as const) {
    const q = await client.query({ name: 'ge', text: 'select count(*)::int4 as n from t where id > $1', values: [id] });
    assert.equal(q.rows, [{ n }]);
  }
  const big = await client.query('select id from t where big = $1', ['9007199254740993']);
  assert.equal(big.rows, [{ id: 4 }]);
  await client.query('create table p (k int4 not null, v text)');
  const ins = await client.query('insert into p values ($1, $2), ($3, $4)', [1, 'x', 2, null]);
  assert.is(ins.command, 'INSERT');
  assert.is(ins.rowCount, 2);
  assert.equal((await client.query('select k, v from p order by k')).rows, [
    { k: 1, v: 'x' },
    { k: 2, v: null },
  ]);
  try {
    await client.query('select id from t where id = $1', ['x1']);
    assert.unreachable('a bad parameter');
  } catch (e) {
    assert.is((e as { code: string }).code, '22P02');
    assert.is((e as Error).message, 'invalid input syntax for type integer: "x1"');
  }
});

test('errors carry SQLSTATE and position; the session keeps working', async () => {
  try {
    await client.query('select id / 0 from t');
    assert.unreachable('expected division by zero');
  } catch (e) {
    const err = e as { code: string; message: string };
    assert.is(err.code, '22012');
    assert.is(err.message, 'division by zero');
  }
  try {
    await client.query('select nosuch from t');
    assert.unreachable('expected an unknown column');
  } catch (e) {
    const err = e as { code: string; position: string };
    assert.is(err.code, '42703');
    assert.is(err.position, '8');
  }
  const r = await client.query('select max(s) as m from t');
  assert.equal(r.rows, [{ m: 'é' }]);
});

test.run();

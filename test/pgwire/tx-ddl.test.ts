/**
 * Transactional DDL through the wire (issue #17): CREATE, DROP and ALTER TABLE inside
 * BEGIN … COMMIT are the transaction's, committed in the same root of the store as its rows
 * (docs/FORMAT.md "The store root log"), invisible to other sessions until COMMIT, undone by
 * ROLLBACK and ROLLBACK TO. Each case runs against paxd and a real PostgreSQL 15 and must
 * answer the same; psycopg2 and psycopg 3 programs written the ordinary way (autocommit off,
 * the psycopg 3 one with a named server-side cursor) print the same on both (issue #17,
 * Done-when 6).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import pg from 'pg';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';

let pgs: Postgres;
let db: Database;
let srv: RunningServer;
const clients: pg.Client[] = [];

test.before(async () => {
  pgs = await startPostgres();
  db = await Database.open(tempDir());
  srv = await startServer({ db, host: '127.0.0.1', port: 0, auth: { method: 'trust' } });
});

test.after(async () => {
  for (const c of clients) await c.end().catch(() => undefined);
  await srv.close();
  await db.close();
});

type Side = 'paxd' | 'pg';
const SIDES: readonly Side[] = ['paxd', 'pg'];

async function client(side: Side): Promise<pg.Client> {
  const c = side === 'paxd' ? new pg.Client({ host: '127.0.0.1', port: srv.port, user: 'paxd', database: 'paxd' }) : new pg.Client({ host: '127.0.0.1', port: pgs.port, user: 'postgres', database: 'postgres' });
  await c.connect();
  clients.push(c);
  return c;
}

/** The rows of `sql`, or the SQLSTATE it fails with. */
async function run(c: pg.Client, sql: string): Promise<unknown> {
  try {
    return (await c.query(sql)).rows;
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
}

test('CREATE TABLE + INSERT + COMMIT: visible to another session only after COMMIT', async () => {
  for (const side of SIDES) {
    const a = await client(side);
    const b = await client(side);
    await a.query('BEGIN');
    await a.query('CREATE TABLE ddl_c (id int4 NOT NULL, v text)');
    await a.query("INSERT INTO ddl_c VALUES (1, 'a'), (2, 'b')");
    assert.equal(await run(a, 'SELECT id, v FROM ddl_c ORDER BY id'), [{ id: 1, v: 'a' }, { id: 2, v: 'b' }], side);
    assert.is(await run(b, 'SELECT id FROM ddl_c'), '42P01', `${side}: another session sees the table before COMMIT`);
    await a.query('COMMIT');
    assert.equal(await run(b, 'SELECT id, v FROM ddl_c ORDER BY id'), [{ id: 1, v: 'a' }, { id: 2, v: 'b' }], side);
  }
});

test('ROLLBACK leaves no table; ROLLBACK TO a savepoint before CREATE undoes it', async () => {
  for (const side of SIDES) {
    const a = await client(side);
    await a.query('BEGIN');
    await a.query('CREATE TABLE ddl_r (id int4)');
    await a.query('INSERT INTO ddl_r VALUES (1)');
    await a.query('ROLLBACK');
    assert.is(await run(a, 'SELECT id FROM ddl_r'), '42P01', side);
    await a.query('BEGIN');
    await a.query('CREATE TABLE ddl_s1 (id int4)');
    await a.query('SAVEPOINT s');
    await a.query('CREATE TABLE ddl_s2 (id int4)');
    await a.query('INSERT INTO ddl_s2 VALUES (1)');
    await a.query('ROLLBACK TO SAVEPOINT s');
    assert.is(await run(a, 'SELECT id FROM ddl_s2'), '42P01', side);
    await a.query('ROLLBACK TO SAVEPOINT s'); // out of the failed state the 42P01 left
    await a.query('INSERT INTO ddl_s1 VALUES (7)');
    await a.query('COMMIT');
    assert.equal(await run(a, 'SELECT id FROM ddl_s1'), [{ id: 7 }], side);
    assert.is(await run(a, 'SELECT id FROM ddl_s2'), '42P01', side);
    // Creating a name twice in one block is 42P07, and the block is failed (25P02) until ROLLBACK.
    await a.query('BEGIN');
    await a.query('CREATE TABLE ddl_twice (id int4)');
    assert.is(await run(a, 'CREATE TABLE ddl_twice (id int4)'), '42P07', side);
    assert.is(await run(a, 'SELECT 1'), '25P02', side);
    await a.query('ROLLBACK');
    assert.is(await run(a, 'SELECT id FROM ddl_twice'), '42P01', side);
  }
});

test('DROP TABLE inside a transaction: undone by ROLLBACK; others still read the table until COMMIT', async () => {
  for (const side of SIDES) {
    const a = await client(side);
    const b = await client(side);
    await a.query('CREATE TABLE ddl_d (id int4)');
    await a.query('INSERT INTO ddl_d VALUES (1), (2)');
    await a.query('BEGIN');
    await a.query('DROP TABLE ddl_d');
    assert.is(await run(a, 'SELECT id FROM ddl_d'), '42P01', side);
    await a.query('ROLLBACK');
    assert.equal(await run(a, 'SELECT count(*)::int4 AS n FROM ddl_d'), [{ n: 2 }], side);
    await a.query('BEGIN');
    await a.query('DROP TABLE ddl_d');
    // PostgreSQL makes b wait for a's lock here; paxd lets b read the committed table: both end the same.
    if (side === 'paxd') assert.equal(await run(b, 'SELECT count(*)::int4 AS n FROM ddl_d'), [{ n: 2 }], side);
    await a.query('COMMIT');
    assert.is(await run(b, 'SELECT id FROM ddl_d'), '42P01', side);
    // The name is free again, for a new table.
    await b.query('CREATE TABLE ddl_d (x text)');
    assert.equal(await run(b, 'SELECT count(*)::int4 AS n FROM ddl_d'), [{ n: 0 }], side);
  }
});

test('ALTER TABLE … ADD COLUMN inside a transaction: its rows use the column; ROLLBACK undoes it; the COMMIT carries rows and column together', async () => {
  for (const side of SIDES) {
    const a = await client(side);
    const b = await client(side);
    await a.query('CREATE TABLE ddl_a (id int4)');
    await a.query('INSERT INTO ddl_a VALUES (1)');
    await a.query('BEGIN');
    await a.query("ALTER TABLE ddl_a ADD COLUMN v text DEFAULT 'd'");
    await a.query("INSERT INTO ddl_a VALUES (2, 'x')");
    assert.equal(await run(a, 'SELECT id, v FROM ddl_a ORDER BY id'), [{ id: 1, v: 'd' }, { id: 2, v: 'x' }], side);
    // (PostgreSQL makes b wait for a's lock here.)
    if (side === 'paxd') assert.equal(await run(b, 'SELECT * FROM ddl_a ORDER BY id'), [{ id: 1 }], side);
    await a.query('ROLLBACK');
    assert.equal(await run(a, 'SELECT * FROM ddl_a ORDER BY id'), [{ id: 1 }], side);
    await a.query('BEGIN');
    await a.query("ALTER TABLE ddl_a ADD COLUMN v text DEFAULT 'd'");
    await a.query("INSERT INTO ddl_a VALUES (2, 'x')");
    await a.query('COMMIT');
    assert.equal(await run(b, 'SELECT id, v FROM ddl_a ORDER BY id'), [{ id: 1, v: 'd' }, { id: 2, v: 'x' }], side);
  }
});

test('two sessions CREATE the same table in transactions: the second COMMIT is 42P07 and leaves nothing of its own', async () => {
  const a = await client('paxd');
  const b = await client('paxd');
  await a.query('BEGIN');
  await b.query('BEGIN');
  await a.query('CREATE TABLE ddl_race (id int4)');
  await b.query('CREATE TABLE ddl_race (id int4, w text)');
  await a.query('INSERT INTO ddl_race VALUES (1)');
  await b.query("INSERT INTO ddl_race VALUES (2, 'b')");
  await a.query('COMMIT');
  assert.is(await run(b, 'COMMIT'), '42P07');
  assert.equal(await run(b, 'SELECT * FROM ddl_race'), [{ id: 1 }]);
});

/** Debian's python3 (python3-psycopg2), ahead of whatever python3 comes first on PATH. */
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/** A psycopg2 program as people write it: autocommit off, so everything runs in implicit transactions. */
const PSYCOPG2 = `
import sys, psycopg2
conn = psycopg2.connect(host='127.0.0.1', port=int(sys.argv[1]), user=sys.argv[2], dbname=sys.argv[3])
cur = conn.cursor()
cur.execute("CREATE TABLE py_ddl (id int4 NOT NULL, name text)")
cur.executemany("INSERT INTO py_ddl VALUES (%s, %s)", [(1, 'one'), (2, 'two'), (3, None)])
conn.commit()
cur.execute("CREATE TABLE py_gone (id int4)")
cur.execute("INSERT INTO py_gone VALUES (1)")
conn.rollback()
cur.execute("SELECT id, name FROM py_ddl ORDER BY id")
print(cur.fetchall())
try:
    cur.execute("SELECT * FROM py_gone")
    print('py_gone exists')
except psycopg2.Error as e:
    print(e.pgcode)
conn.rollback()
conn.close()
`;

test('psycopg2, autocommit off: CREATE TABLE, INSERT, COMMIT work as against PostgreSQL', async () => {
  const out: string[] = [];
  for (const [port, user] of [
    [srv.port, 'paxd'],
    [pgs.port, 'postgres'],
  ] as const) {
    const r = await promisify(execFile)(PYTHON, ['-c', PSYCOPG2, String(port), user, user], { encoding: 'utf8', timeout: 60_000 });
    out.push(r.stdout);
  }
  assert.is(out[0], "[(1, 'one'), (2, 'two'), (3, None)]\n42P01\n");
  assert.is(out[0], out[1]);
});

/**
 * A psycopg 3 program as people write it: autocommit off (psycopg 3 sends BEGIN before the
 * first statement of each transaction and runs every statement through the extended protocol
 * with server-side parameters), then a named cursor, which psycopg 3 makes with DECLARE and
 * reads with FETCH FORWARD itersize, describing the portal first.
 */
const PSYCOPG3 = `
import sys, psycopg
conn = psycopg.connect(host='127.0.0.1', port=int(sys.argv[1]), user=sys.argv[2], dbname=sys.argv[3])
print(conn.autocommit)
cur = conn.cursor()
cur.execute("CREATE TABLE py3_ddl (id int8 NOT NULL, name text, price numeric(10,2))")
cur.executemany("INSERT INTO py3_ddl VALUES (%s, %s, %s)", [(i, 'n%d' % i if i % 3 else None, i * 1.25) for i in range(1, 251)])
print(conn.info.transaction_status.name)
conn.commit()
print(conn.info.transaction_status.name)
cur.execute("SELECT count(*), sum(id), min(name), max(price) FROM py3_ddl WHERE id > %s", (10,))
print(cur.fetchone())
conn.commit()
cur.execute("CREATE TABLE py3_gone (id int4)")
cur.execute("INSERT INTO py3_gone VALUES (%s)", (1,))
conn.rollback()
try:
    cur.execute("SELECT * FROM py3_gone")
    print('py3_gone exists')
except psycopg.Error as e:
    print(e.sqlstate)
conn.rollback()
with conn.cursor(name='py3_named') as named:
    named.itersize = 40
    named.execute("SELECT id, name, price FROM py3_ddl WHERE id %% %s = 0 ORDER BY id", (2,))
    print([d.name for d in named.description], [d.type_code for d in named.description])
    print(named.fetchmany(3))
    rest = list(named)
    print(len(rest), rest[-1])
conn.commit()
with conn.transaction():
    cur.execute("INSERT INTO py3_ddl VALUES (%s, %s, %s)", (1000, 'last', 0))
cur.execute("SELECT count(*) FROM py3_ddl")
print(cur.fetchone())
conn.close()
`;

test('psycopg 3, autocommit off: CREATE TABLE, INSERT, COMMIT, SELECT and a named cursor print the same as against PostgreSQL', async () => {
  const out: string[] = [];
  for (const [port, user] of [
    [srv.port, 'paxd'],
    [pgs.port, 'postgres'],
  ] as const) {
    const r = await promisify(execFile)(PYTHON, ['-c', PSYCOPG3, String(port), user, user], { encoding: 'utf8', timeout: 60_000 });
    out.push(r.stdout);
  }
  console.log(out[0]);
  assert.match(out[0]!, /^False\nINTRANS\nIDLE\n\(240, Decimal\('31320'\), 'n100', Decimal\('312.50'\)\)\n42P01\n/);
  assert.is(out[0], out[1]);
});

test.run();

/**
 * Writes inside transaction blocks over the wire (docs/MIRROR.md), through node-postgres and the raw
 * protocol client as postgres_fdw drives them: a transaction sees its own writes, nobody else
 * does until COMMIT; ROLLBACK and ROLLBACK TO SAVEPOINT undo; concurrent transactions that
 * delete the same row fail the second COMMIT with 40001 while disjoint appends both land; the
 * ctid path; TRUNCATE; INSERT with zero parameter types, batches and RETURNING; exact tags.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { formatCtid } from '../../src/scan/index.js';
import { tempDir } from '../support/tmp.js';
import { dataRowOf, errorFieldsOf, fe, RawClient, splitReplies, type Reply } from './client.js';

let db: Database;
let srv: RunningServer;
const clients: pg.Client[] = [];

test.before(async () => {
  db = await Database.open(tempDir());
  srv = await startServer({ db, host: '127.0.0.1', port: 0, auth: { method: 'trust' } });
});

test.after(async () => {
  for (const c of clients) await c.end().catch(() => undefined);
  await srv.close();
  await db.close();
});

async function client(): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port: srv.port, user: 'paxd', database: 'paxd' });
  await c.connect();
  clients.push(c);
  return c;
}

/** A fresh table `name` (id int4 NOT NULL, v text, n numeric(12,2)) with rows 1..rows. */
async function table(c: pg.Client, name: string, rows: number): Promise<void> {
  await c.query(`CREATE TABLE ${name} (id int4 NOT NULL, v text, n numeric(12,2))`);
  if (rows > 0) await c.query(`INSERT INTO ${name} VALUES ${Array.from({ length: rows }, (_, i) => `(${i + 1}, 'v${i + 1}', ${(i + 1) * 1.5})`).join(', ')}`);
}

async function ids(c: pg.Client, name: string): Promise<number[]> {
  return (await c.query(`SELECT id FROM ${name} ORDER BY id`)).rows.map((r) => r.id as number);
}

async function sqlstate(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as { code: string }).code;
  }
  return 'no error';
}

test('BEGIN / INSERT ×N / SELECT sees its own rows, others do not / COMMIT makes them visible', async () => {
  const a = await client();
  const b = await client();
  await table(a, 'tw_a', 3);
  await a.query('BEGIN');
  for (let i = 0; i < 50; i++) {
    const r = await a.query({ name: 'ins', text: 'INSERT INTO tw_a (id, v, n) VALUES ($1, $2, $3)', values: [100 + i, `x${i}`, '2.50'] });
    assert.is(r.command, 'INSERT');
    assert.is(r.rowCount, 1);
  }
  assert.equal((await a.query('SELECT count(*)::int4 AS n, sum(n) AS s FROM tw_a')).rows, [{ n: 53, s: '134.00' }]);
  assert.equal((await b.query('SELECT count(*)::int4 AS n FROM tw_a')).rows, [{ n: 3 }]);
  const u = await a.query("UPDATE tw_a SET v = 'u' WHERE id >= 148 OR id = 1");
  assert.is(u.rowCount, 3);
  assert.equal((await a.query("SELECT id FROM tw_a WHERE v = 'u' ORDER BY id")).rows.map((r) => r.id), [1, 148, 149]);
  await a.query('COMMIT');
  assert.equal((await b.query('SELECT count(*)::int4 AS n, sum(n) AS s FROM tw_a')).rows, [{ n: 53, s: '134.00' }]);
  assert.equal((await b.query("SELECT count(*)::int4 AS n FROM tw_a WHERE v = 'u'")).rows, [{ n: 3 }]);
  // One snapshot for the whole transaction.
  const t = await db.table('tw_a');
  assert.is(t.snapshot.summary?.command, 'delete');
});

test('ROLLBACK (and ABORT TRANSACTION) discard every write; the staged files are removed', async () => {
  const a = await client();
  await table(a, 'tw_b', 4);
  const before = (await db.store.list('tw_b/data/')).length;
  await a.query('BEGIN');
  await a.query("INSERT INTO tw_b VALUES (10, 'x', 1)");
  await a.query('DELETE FROM tw_b WHERE id = 2');
  assert.equal(await ids(a, 'tw_b'), [1, 3, 4, 10]);
  await a.query('ROLLBACK');
  assert.equal(await ids(a, 'tw_b'), [1, 2, 3, 4]);
  assert.is((await db.store.list('tw_b/data/')).length, before);
  await a.query('START TRANSACTION ISOLATION LEVEL REPEATABLE READ');
  await a.query('TRUNCATE tw_b');
  assert.equal(await ids(a, 'tw_b'), []);
  await a.query('ABORT TRANSACTION');
  assert.equal(await ids(a, 'tw_b'), [1, 2, 3, 4]);
});

test('savepoints: ROLLBACK TO SAVEPOINT s2; RELEASE SAVEPOINT s2 undoes inserts, updates and deletes since s2', async () => {
  const a = await client();
  await table(a, 'tw_c', 5);
  await a.query('BEGIN');
  await a.query("INSERT INTO tw_c VALUES (6, 'six', 6)");
  await a.query('SAVEPOINT s2');
  await a.query("INSERT INTO tw_c VALUES (7, 'seven', 7)");
  assert.equal(await ids(a, 'tw_c'), [1, 2, 3, 4, 5, 6, 7]); // staged: rows 6 and 7 in one file
  await a.query("UPDATE tw_c SET v = 'changed' WHERE id IN (1, 6)");
  await a.query('DELETE FROM tw_c WHERE id = 3');
  await a.query("INSERT INTO tw_c VALUES (8, 'eight', 8)");
  assert.equal(await ids(a, 'tw_c'), [1, 2, 4, 5, 6, 7, 8]);
  const r = (await a.query('ROLLBACK TO SAVEPOINT s2; RELEASE SAVEPOINT s2')) as unknown as pg.QueryResult[];
  assert.equal(r.map((x) => x.command), ['ROLLBACK', 'RELEASE']);
  assert.equal(await ids(a, 'tw_c'), [1, 2, 3, 4, 5, 6]);
  assert.equal((await a.query("SELECT count(*)::int4 AS n FROM tw_c WHERE v = 'changed'")).rows, [{ n: 0 }]);
  // A failed statement inside a savepoint: the transaction goes on after ROLLBACK TO.
  await a.query('SAVEPOINT s2');
  await a.query("INSERT INTO tw_c VALUES (9, 'nine', 9)");
  assert.is(await sqlstate(a.query('INSERT INTO tw_c VALUES (NULL)')), '23502');
  assert.is(await sqlstate(a.query('SELECT 1')), '25P02');
  await a.query('ROLLBACK TO SAVEPOINT s2; RELEASE SAVEPOINT s2');
  await a.query("UPDATE tw_c SET v = 'kept' WHERE id = 6");
  await a.query('COMMIT');
  const b = await client();
  assert.equal((await b.query('SELECT id, v FROM tw_c WHERE id >= 5 ORDER BY id')).rows, [
    { id: 5, v: 'v5' },
    { id: 6, v: 'kept' },
  ]);
});

test('concurrent transactions: the second delete of the same row fails COMMIT with 40001 and leaves nothing; disjoint appends both land', async () => {
  const a = await client();
  const b = await client();
  await table(a, 'tw_d', 6);
  await a.query('START TRANSACTION ISOLATION LEVEL REPEATABLE READ');
  await b.query('START TRANSACTION ISOLATION LEVEL REPEATABLE READ');
  assert.is((await a.query('DELETE FROM tw_d WHERE id = 2')).rowCount, 1);
  assert.is((await b.query("UPDATE tw_d SET v = 'b' WHERE id IN (2, 3)")).rowCount, 2);
  await b.query("INSERT INTO tw_d VALUES (20, 'b-only', 1)");
  await a.query('COMMIT TRANSACTION');
  let err: { code?: string; message?: string } = {};
  try {
    await b.query('COMMIT TRANSACTION');
  } catch (e) {
    err = e as typeof err;
  }
  assert.equal([err.code, err.message], ['40001', 'could not serialize access due to concurrent update']);
  assert.equal(await ids(b, 'tw_d'), [1, 3, 4, 5, 6]);
  assert.equal((await b.query("SELECT count(*)::int4 AS n FROM tw_d WHERE v = 'b'")).rows, [{ n: 0 }]);
  // The session is usable again (idle), and disjoint work commutes.
  await a.query('BEGIN');
  await b.query('BEGIN');
  await a.query("INSERT INTO tw_d VALUES (30, 'a', 1)");
  await b.query("INSERT INTO tw_d VALUES (31, 'b', 1)");
  await a.query('DELETE FROM tw_d WHERE id = 4');
  await b.query('DELETE FROM tw_d WHERE id = 5');
  await b.query('COMMIT');
  await a.query('COMMIT');
  assert.equal(await ids(a, 'tw_d'), [1, 3, 6, 30, 31]);
  // Reads of a transaction keep their snapshot while others commit.
  await a.query('BEGIN');
  assert.equal(await ids(a, 'tw_d'), [1, 3, 6, 30, 31]);
  await b.query('DELETE FROM tw_d WHERE id = 1');
  assert.equal(await ids(a, 'tw_d'), [1, 3, 6, 30, 31]);
  assert.is(await sqlstate(a.query('DELETE FROM tw_d WHERE id = 1').then(() => a.query('COMMIT'))), '40001');
  assert.equal(await ids(a, 'tw_d'), [3, 6, 30, 31]);
});

// ---- the raw protocol, as postgres_fdw sends it ----

const session = (): Promise<RawClient> => RawClient.session(srv.port);

const q = (c: RawClient, sql: string): Promise<Reply[]> => c.query(sql);

/** Bind/Describe/Execute/Sync of a named statement with text parameters. */
async function exec(c: RawClient, stmt: string, params: (string | null)[]): Promise<Reply[]> {
  c.send(fe.bind('', stmt, params), fe.describe('P', ''), fe.execute(''), fe.sync());
  return c.untilReady();
}

async function prepare(c: RawClient, name: string, sql: string): Promise<Reply[]> {
  c.send(fe.parse(name, sql), fe.sync());
  return c.untilReady();
}

const codes = (rs: Reply[]) => rs.map((r) => r.code).join('');
const tagsOf = (rs: Reply[]) => rs.filter((r) => r.code === 'C').map((r) => r.body.toString('utf8', 0, r.body.byteLength - 1));
const rowsOf = (rs: Reply[]) => rs.filter((r) => r.code === 'D').map((r) => dataRowOf(r.body));
const errorOf = (rs: Reply[]) => errorFieldsOf(rs.find((r) => r.code === 'E')!.body);
const status = (rs: Reply[]) => String.fromCharCode(rs.filter((r) => r.code === 'Z').at(-1)!.body[0]!);

test("postgres_fdw's INSERT: named Parse with zero parameter types, one row and batches of 4, RETURNING, ON CONFLICT DO NOTHING", async () => {
  const a = await client();
  await a.query('CREATE TABLE tw_e (id int4 NOT NULL, v text, n numeric(12,2), ts timestamptz)');
  const c = await session();
  try {
    await q(c, 'START TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    assert.is(codes(await prepare(c, 'pgsql_fdw_prep_1', 'INSERT INTO public.tw_e(id, v, n, ts) VALUES ($1, $2, $3, $4)')), '1Z');
    let r = await exec(c, 'pgsql_fdw_prep_1', ['101', 'a', '1.50', '2024-05-01 10:00:00+00']);
    assert.equal([codes(r), tagsOf(r), status(r)], ['2nCZ', ['INSERT 0 1'], 'T']);
    r = await exec(c, 'pgsql_fdw_prep_1', ['102', null, null, null]);
    assert.equal(tagsOf(r), ['INSERT 0 1']);
    const batch = 'INSERT INTO public.tw_e(id, v, n, ts) VALUES ($1, $2, $3, $4), ($5, $6, $7, $8), ($9, $10, $11, $12), ($13, $14, $15, $16)';
    await prepare(c, 'pgsql_fdw_prep_2', batch);
    r = await exec(c, 'pgsql_fdw_prep_2', Array.from({ length: 4 }, (_, i) => [String(110 + i), `b${i}`, '7.125', '2024-01-01 00:00:00+00']).flat());
    assert.equal(tagsOf(r), ['INSERT 0 4']);
    await q(c, 'DEALLOCATE pgsql_fdw_prep_2');
    await prepare(c, 'pgsql_fdw_prep_3', 'INSERT INTO public.tw_e(id, v, n, ts) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING id, v, n');
    r = await exec(c, 'pgsql_fdw_prep_3', ['120', 'ret', '2', null]);
    assert.equal([codes(r), rowsOf(r), tagsOf(r)], ['2TDCZ', [['120', 'ret', '2.00']], ['INSERT 0 1']]);
    r = await exec(c, 'pgsql_fdw_prep_1', ['x', null, null, null]);
    assert.is(errorOf(r).C, '22P02');
    await q(c, 'ABORT TRANSACTION');
    assert.equal(tagsOf(await q(c, 'DEALLOCATE ALL')), ['DEALLOCATE ALL']);
    assert.equal(await ids(a, 'tw_e'), []);
    await q(c, 'START TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    await prepare(c, 'pgsql_fdw_prep_4', 'INSERT INTO public.tw_e(id, v, n, ts) VALUES ($1, $2, $3, $4)');
    for (let i = 0; i < 20; i++) await exec(c, 'pgsql_fdw_prep_4', [String(i), `r${i}`, '1.255', null]);
    r = await q(c, 'COMMIT TRANSACTION');
    assert.equal([tagsOf(r), status(r)], [['COMMIT'], 'I']);
    assert.equal((await a.query('SELECT count(*)::int4 AS c, sum(n) AS s FROM tw_e')).rows, [{ c: 20, s: '25.20' }]);
  } finally {
    c.end();
  }
});

test("postgres_fdw's direct UPDATE/DELETE: unnamed extended queries with exact tags and RETURNING", async () => {
  const a = await client();
  await table(a, 'tw_f', 20);
  const c = await session();
  const unnamed = async (sql: string, params: (string | null)[] = []) => {
    c.send(fe.parse('', sql), fe.bind('', '', params), fe.describe('P', ''), fe.execute(''), fe.sync());
    return c.untilReady();
  };
  try {
    await q(c, 'START TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    let r = await unnamed("UPDATE public.tw_f SET v = 'upd'::text, n = (n * 2::numeric) WHERE ((id = 5))");
    assert.equal([codes(r), tagsOf(r)], ['12nCZ', ['UPDATE 1']]);
    r = await unnamed("UPDATE public.tw_f SET v = (v || '!') WHERE ((id >= 7)) AND ((id <= 9)) RETURNING id, v");
    assert.equal([rowsOf(r), tagsOf(r)], [[['7', 'v7!'], ['8', 'v8!'], ['9', 'v9!']], ['UPDATE 3']]);
    r = await unnamed('DELETE FROM public.tw_f WHERE ((id = 6))');
    assert.equal(tagsOf(r), ['DELETE 1']);
    r = await unnamed('DELETE FROM public.tw_f WHERE ((id = 10)) RETURNING id, v, n');
    assert.equal([rowsOf(r), tagsOf(r)], [[['10', 'v10', '15.00']], ['DELETE 1']]);
    r = await unnamed('UPDATE public.tw_f SET v = $1::text WHERE ((id = $2::integer))', ['param-upd', '15']);
    assert.equal(tagsOf(r), ['UPDATE 1']);
    r = await unnamed('DELETE FROM public.tw_f WHERE ((id = 100))');
    assert.equal(tagsOf(r), ['DELETE 0']);
    await q(c, 'COMMIT TRANSACTION');
    assert.equal((await a.query('SELECT id, v, n FROM tw_f WHERE id IN (5, 6, 7, 10, 15) ORDER BY id')).rows, [
      { id: 5, v: 'upd', n: '15.00' },
      { id: 7, v: 'v7!', n: '10.50' },
      { id: 15, v: 'param-upd', n: '22.50' },
    ]);
    assert.equal((await a.query('SELECT count(*)::int4 AS c FROM tw_f')).rows, [{ c: 18 }]);
  } finally {
    c.end();
  }
});

test("postgres_fdw's ctid path: UPDATE … WHERE ctid = $1 and DELETE … WHERE ctid = $1, ctids stable through the transaction", async () => {
  const a = await client();
  await table(a, 'tw_g', 5); // one group: rows 1..5 at positions 0..4
  await a.query("INSERT INTO tw_g VALUES (6, 'v6', 9)"); // a second group (storage rank 1)
  const c = await session();
  try {
    await q(c, 'START TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    await prepare(c, 'pgsql_fdw_prep_9', 'UPDATE public.tw_g SET v = $2 WHERE ctid = $1');
    let r = await exec(c, 'pgsql_fdw_prep_9', [formatCtid(0, 1), 'ctid-upd']);
    assert.equal([codes(r), tagsOf(r)], ['2nCZ', ['UPDATE 1']]);
    // The old version is gone: the same ctid names no row any more.
    r = await exec(c, 'pgsql_fdw_prep_9', [formatCtid(0, 1), 'again']);
    assert.equal(tagsOf(r), ['UPDATE 0']);
    r = await exec(c, 'pgsql_fdw_prep_9', [formatCtid(1, 0), 'six']);
    assert.equal(tagsOf(r), ['UPDATE 1']);
    await prepare(c, 'pgsql_fdw_prep_10', 'DELETE FROM public.tw_g WHERE ctid = $1 RETURNING id, v');
    r = await exec(c, 'pgsql_fdw_prep_10', [formatCtid(0, 3)]);
    assert.equal([rowsOf(r), tagsOf(r)], [[['4', 'v4']], ['DELETE 1']]);
    r = await exec(c, 'pgsql_fdw_prep_10', ['(0,4)']); // the same row, written as postgres_fdw would
    assert.equal(tagsOf(r), ['DELETE 0']);
    r = await exec(c, 'pgsql_fdw_prep_10', ['(999,1)']);
    assert.equal(tagsOf(r), ['DELETE 0']);
    r = await exec(c, 'pgsql_fdw_prep_10', ['nope']);
    assert.equal([errorOf(r).C, errorOf(r).M], ['22P02', 'invalid input syntax for type tid: "nope"']);
    await q(c, 'ROLLBACK TO SAVEPOINT s2'); // no such savepoint: still failed
    await q(c, 'ABORT TRANSACTION');
    assert.equal((await a.query('SELECT id, v FROM tw_g ORDER BY id')).rows.map((x) => x.v), ['v1', 'v2', 'v3', 'v4', 'v5', 'v6']);
    await q(c, 'START TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    await prepare(c, 'p11', 'UPDATE public.tw_g SET v = $2 WHERE ctid = $1');
    for (const [unit, row] of [[0, 0], [0, 4], [1, 0]]) assert.equal(tagsOf(await exec(c, 'p11', [formatCtid(unit!, row!), `c${unit}${row}`])), ['UPDATE 1']);
    assert.equal(tagsOf(await q(c, "DELETE FROM public.tw_g WHERE ctid = '(0,3)'")), ['DELETE 1']);
    await q(c, 'COMMIT TRANSACTION');
    assert.equal((await a.query('SELECT id, v FROM tw_g ORDER BY id')).rows, [
      { id: 1, v: 'c00' },
      { id: 2, v: 'v2' },
      { id: 4, v: 'v4' },
      { id: 5, v: 'c04' },
      { id: 6, v: 'c10' },
    ]);
  } finally {
    c.end();
  }
});

test('DECLARE … ctid … FOR UPDATE after writes of the same transaction: the ctids it returns name the rows for the rest of it', async () => {
  const a = await client();
  await table(a, 'tw_k', 3);
  const c = await session();
  try {
    await q(c, 'START TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    await q(c, "INSERT INTO public.tw_k VALUES (4, 'staged', 4)");
    await q(c, 'DELETE FROM public.tw_k WHERE id = 2');
    c.send(fe.parse('', 'DECLARE c1 CURSOR FOR\nSELECT id, v, ctid FROM public.tw_k FOR UPDATE'), fe.bind('', ''), fe.describe('P', ''), fe.execute(''), fe.sync());
    assert.equal(tagsOf(await c.untilReady()), ['DECLARE CURSOR']);
    const rows = rowsOf(await q(c, 'FETCH 100 FROM c1'));
    assert.equal(rows.map((r) => r[0]), ['1', '3', '4']);
    await prepare(c, 'pgsql_fdw_prep_1', 'UPDATE public.tw_k SET v = $2 WHERE ctid = $1 RETURNING id, v');
    for (const [id, , ctid] of rows) {
      const r = await exec(c, 'pgsql_fdw_prep_1', [ctid!, `via ${ctid}`]);
      assert.equal([rowsOf(r), tagsOf(r)], [[[id, `via ${ctid}`]], ['UPDATE 1']]);
    }
    await q(c, 'CLOSE c1');
    await q(c, 'COMMIT TRANSACTION');
    assert.equal((await a.query('SELECT id, v FROM tw_k ORDER BY id')).rows, rows.map(([id, , ctid]) => ({ id: Number(id), v: `via ${ctid}` })));
  } finally {
    c.end();
  }
});

test('COPY FROM STDIN inside a transaction block: the rows are the transaction\'s; a failed COPY is undone by ROLLBACK TO', async () => {
  const a = await client();
  await table(a, 'tw_l', 1);
  const c = await session();
  const copy = async (data: string) => {
    c.send(fe.query('COPY tw_l FROM STDIN'));
    await c.until((b) => splitReplies(b).some((r) => r.code === 'G' || r.code === 'E'));
    c.send(fe.copyData(data), fe.copyDone());
    return c.untilReady();
  };
  try {
    await q(c, 'BEGIN');
    assert.equal(tagsOf(await copy('2\ttwo\t2.5\n3\t\\N\t\\N\n')), ['COPY 2']);
    assert.equal(rowsOf(await q(c, 'SELECT count(*), sum(n) FROM tw_l')), [['3', '4.00']]);
    assert.equal(await ids(a, 'tw_l'), [1]);
    await q(c, 'SAVEPOINT s');
    const bad = await copy('4\tfour\t4\nx\tbad\t1\n');
    assert.is(errorOf(bad).C, '22P02');
    await q(c, 'ROLLBACK TO SAVEPOINT s');
    await q(c, 'COMMIT');
    assert.equal(await ids(a, 'tw_l'), [1, 2, 3]);
  } finally {
    c.end();
  }
});

test('TRUNCATE: tags, autocommit and in a transaction, several tables, then new rows', async () => {
  const a = await client();
  await table(a, 'tw_h', 3);
  await table(a, 'tw_i', 2);
  const c = await session();
  try {
    assert.equal(tagsOf(await q(c, 'TRUNCATE public.tw_h CONTINUE IDENTITY RESTRICT')), ['TRUNCATE TABLE']);
    assert.equal(await ids(a, 'tw_h'), []);
    const s = await db.table('tw_h');
    assert.equal([s.snapshot.files.length, s.rows], [0, 0]);
    await a.query('INSERT INTO tw_h VALUES (7)');
    await q(c, 'BEGIN');
    await q(c, 'INSERT INTO tw_i VALUES (5)');
    assert.equal(tagsOf(await q(c, 'TRUNCATE tw_h, tw_i RESTART IDENTITY CASCADE')), ['TRUNCATE TABLE']);
    await q(c, 'INSERT INTO tw_i VALUES (9)');
    assert.equal(rowsOf(await q(c, 'SELECT (SELECT count(*) FROM tw_h), (SELECT count(*) FROM tw_i), (SELECT max(id) FROM tw_i)')), [['0', '1', '9']]);
    assert.equal(await ids(a, 'tw_i'), [1, 2]);
    await q(c, 'COMMIT');
    assert.equal([await ids(a, 'tw_h'), await ids(a, 'tw_i')], [[], [9]]);
    assert.is(errorOf(await q(c, 'TRUNCATE tw_nope')).C, '42P01');
  } finally {
    c.end();
  }
});

test.run();

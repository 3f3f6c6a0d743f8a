/**
 * Sessions over the wire (docs/WIRE.md): transaction blocks with a pinned snapshot and savepoints,
 * cursors through the simple protocol and through the unnamed extended protocol as
 * postgres_fdw sends them, DEALLOCATE/DISCARD, COPY FROM STDIN and COPY TO STDOUT.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { columnOf } from '../../src/types/index.js';
import { tempDir } from '../support/tmp.js';
import { dataRowOf, errorFieldsOf, fe, RawClient, splitReplies, type Reply } from './client.js';

let db: Database;
let srv: RunningServer;

test.before(async () => {
  db = await Database.open(tempDir());
  const t = await db.createTable('t', [
    { name: 'id', type: 'int4', notNull: true },
    { name: 's', type: 'text' },
  ]);
  const sink = t.sink();
  await sink.write({ length: 5, columns: [columnOf({ id: 'int4' }, [1, 2, 3, 4, 5]), columnOf({ id: 'text' }, ['a', 'b', null, 'd', 'e'])], selection: null });
  await sink.commit();
  srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
});

test.after(async () => {
  await srv.close();
  await db.close();
});

const session = (): Promise<RawClient> => RawClient.session(srv.port);

const q = (c: RawClient, sql: string): Promise<Reply[]> => c.query(sql);

const codes = (rs: Reply[]) => rs.map((r) => r.code).join('');
const status = (rs: Reply[]) => String.fromCharCode(rs.filter((r) => r.code === 'Z').at(-1)!.body[0]!);
const errorOf = (rs: Reply[]) => errorFieldsOf(rs.find((r) => r.code === 'E')!.body);
const rowsOf = (rs: Reply[]) => rs.filter((r) => r.code === 'D').map((r) => dataRowOf(r.body));
const tagsOf = (rs: Reply[]) => rs.filter((r) => r.code === 'C').map((r) => r.body.toString('utf8', 0, r.body.byteLength - 1));
const copyText = (rs: Reply[]) => rs.filter((r) => r.code === 'd').map((r) => r.body.toString('utf8')).join('');

// ---- transactions ----

test('BEGIN / START TRANSACTION ISOLATION LEVEL … / COMMIT TRANSACTION / ABORT TRANSACTION tags and status', async () => {
  const c = await session();
  try {
    let r = await q(c, 'START TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    assert.equal([tagsOf(r), status(r)], [['START TRANSACTION'], 'T']);
    r = await q(c, 'COMMIT TRANSACTION');
    assert.equal([tagsOf(r), status(r)], [['COMMIT'], 'I']);
    r = await q(c, 'BEGIN ISOLATION LEVEL SERIALIZABLE; ABORT TRANSACTION');
    assert.equal([tagsOf(r), status(r)], [['BEGIN', 'ROLLBACK'], 'I']);
    r = await q(c, 'ROLLBACK');
    assert.equal(tagsOf(r), ['ROLLBACK']);
    assert.is(errorFieldsOf(r.find((x) => x.code === 'N')!.body).M, 'there is no transaction in progress');
  } finally {
    c.end();
  }
});

test('a transaction sees one snapshot of a table for its whole duration', async () => {
  const c = await session();
  try {
    await q(c, 'BEGIN');
    assert.equal(rowsOf(await q(c, 'select count(*) from t')), [['5']]);
    const t = await db.table('t');
    const sink = t.sink();
    await sink.write({ length: 1, columns: [columnOf({ id: 'int4' }, [6]), columnOf({ id: 'text' }, ['f'])], selection: null });
    await sink.commit();
    assert.equal(rowsOf(await q(c, 'select count(*) from t')), [['5']]);
    assert.equal(rowsOf(await q(c, 'select max(id) from t')), [['5']]);
    await q(c, 'COMMIT');
    assert.equal(rowsOf(await q(c, 'select count(*) from t')), [['6']]);
    await q(c, 'DELETE FROM t WHERE id = 6');
  } finally {
    c.end();
  }
});

test('a failed transaction refuses statements with 25P02 until ROLLBACK; COMMIT of it says ROLLBACK', async () => {
  const c = await session();
  try {
    await q(c, 'BEGIN');
    let r = await q(c, 'select 1/0 from t');
    assert.is(errorOf(r).C, '22012');
    assert.is(status(r), 'E');
    r = await q(c, 'select count(*) from t');
    assert.equal([errorOf(r).C, errorOf(r).M], ['25P02', 'current transaction is aborted, commands ignored until end of transaction block']);
    r = await q(c, 'COMMIT');
    assert.equal([tagsOf(r), status(r)], [['ROLLBACK'], 'I']);
  } finally {
    c.end();
  }
});

test('SAVEPOINT / RELEASE / ROLLBACK TO, also out of a failed transaction (postgres_fdw’s two-statement form)', async () => {
  const c = await session();
  try {
    let r = await q(c, 'SAVEPOINT s1');
    assert.equal([errorOf(r).C, errorOf(r).M], ['25P01', 'SAVEPOINT can only be used in transaction blocks']);
    await q(c, 'BEGIN');
    r = await q(c, 'SAVEPOINT s1');
    assert.equal(tagsOf(r), ['SAVEPOINT']);
    r = await q(c, 'select nope from t');
    assert.is(status(r), 'E');
    r = await q(c, 'RELEASE SAVEPOINT s1');
    assert.is(errorOf(r).C, '25P02');
    r = await q(c, 'ROLLBACK TO SAVEPOINT s1; RELEASE SAVEPOINT s1');
    assert.equal([tagsOf(r), status(r)], [['ROLLBACK', 'RELEASE'], 'T']);
    r = await q(c, 'RELEASE s1');
    assert.equal([errorOf(r).C, errorOf(r).M], ['3B001', 'savepoint "s1" does not exist']);
    r = await q(c, 'ROLLBACK');
    assert.equal(status(r), 'I');
  } finally {
    c.end();
  }
});

test('DDL inside a transaction block is the transaction\'s: ROLLBACK leaves no table (more in test/pgwire/tx-ddl)', async () => {
  const c = await session();
  try {
    await q(c, 'BEGIN');
    const r = await q(c, 'CREATE TABLE t_in_tx (x int4)');
    assert.equal(tagsOf(r), ['CREATE TABLE']);
    await q(c, 'ROLLBACK');
    assert.is(errorOf(await q(c, 'SELECT x FROM t_in_tx')).C, '42P01');
  } finally {
    c.end();
  }
});

// ---- cursors ----

test('DECLARE / FETCH n / FETCH ALL / FETCH NEXT / MOVE / FETCH of 0 rows keeps its RowDescription / CLOSE', async () => {
  const c = await session();
  try {
    let r = await q(c, 'DECLARE c CURSOR FOR select id, s from t order by id');
    assert.equal([errorOf(r).C, errorOf(r).M], ['25P01', 'DECLARE CURSOR can only be used in transaction blocks']);
    await q(c, 'BEGIN');
    r = await q(c, 'DECLARE c CURSOR FOR select id, s from t order by id');
    assert.equal(tagsOf(r), ['DECLARE CURSOR']);
    r = await q(c, 'FETCH 2 FROM c');
    assert.equal([codes(r), rowsOf(r), tagsOf(r)], ['TDDCZ', [['1', 'a'], ['2', 'b']], ['FETCH 2']]);
    r = await q(c, 'FETCH NEXT IN c');
    assert.equal(rowsOf(r), [['3', null]]);
    r = await q(c, 'MOVE FORWARD 1 IN c');
    assert.equal(tagsOf(r), ['MOVE 1']);
    r = await q(c, 'FETCH ALL FROM c');
    assert.equal([rowsOf(r), tagsOf(r)], [[['5', 'e']], ['FETCH 1']]);
    r = await q(c, 'FETCH 100 FROM c');
    assert.equal([codes(r), tagsOf(r)], ['TCZ', ['FETCH 0']]);
    r = await q(c, 'FETCH BACKWARD 2 FROM c');
    assert.equal(rowsOf(r), [['5', 'e'], ['4', 'd']]);
    r = await q(c, 'MOVE BACKWARD ALL IN c');
    assert.equal(tagsOf(r), ['MOVE 3']);
    r = await q(c, 'FETCH FORWARD 1 FROM c');
    assert.equal(rowsOf(r), [['1', 'a']]);
    r = await q(c, 'CLOSE c');
    assert.equal(tagsOf(r), ['CLOSE CURSOR']);
    r = await q(c, 'FETCH 1 FROM c');
    assert.equal([errorOf(r).C, errorOf(r).M], ['34000', 'cursor "c" does not exist']);
    await q(c, 'ROLLBACK');
  } finally {
    c.end();
  }
});

test('ROLLBACK TO closes the cursors declared after its savepoint, also inside savepoints released since, and keeps the older ones', async () => {
  const c = await session();
  try {
    await q(c, 'BEGIN');
    await q(c, 'SAVEPOINT a');
    await q(c, 'DECLARE kept CURSOR FOR select id from t order by id');
    await q(c, 'RELEASE a');
    await q(c, 'SAVEPOINT b');
    await q(c, 'SAVEPOINT inner_sp');
    await q(c, 'RELEASE inner_sp');
    await q(c, 'DECLARE gone CURSOR FOR select id from t order by id');
    let r = await q(c, 'ROLLBACK TO b');
    assert.equal(tagsOf(r), ['ROLLBACK']);
    r = await q(c, 'FETCH 1 FROM kept');
    assert.equal(rowsOf(r), [['1']], 'declared before the savepoint (in one released into the transaction): kept');
    r = await q(c, 'FETCH 1 FROM gone');
    assert.equal([errorOf(r).C, errorOf(r).M], ['34000', 'cursor "gone" does not exist']);
    await q(c, 'ROLLBACK');
  } finally {
    c.end();
  }
});

test('NO SCROLL refuses to go back (55000); a duplicate cursor is 42P03; COMMIT closes cursors but WITH HOLD ones', async () => {
  const c = await session();
  try {
    await q(c, 'BEGIN');
    await q(c, 'DECLARE n NO SCROLL CURSOR FOR select id from t');
    let r = await q(c, 'DECLARE n CURSOR FOR select id from t');
    assert.equal([errorOf(r).C, errorOf(r).M], ['42P03', 'cursor "n" already exists']);
    await q(c, 'ROLLBACK');
    await q(c, 'BEGIN');
    await q(c, 'DECLARE n NO SCROLL CURSOR FOR select id from t');
    await q(c, 'FETCH 1 FROM n');
    r = await q(c, 'FETCH PRIOR FROM n');
    assert.equal([errorOf(r).C, errorOf(r).M], ['55000', 'cursor can only scan forward']);
    await q(c, 'ROLLBACK');
    await q(c, 'BEGIN');
    await q(c, 'DECLARE h CURSOR WITH HOLD FOR select id from t order by id');
    await q(c, 'DECLARE plain CURSOR FOR select id from t');
    await q(c, 'COMMIT');
    r = await q(c, 'FETCH 1 FROM h');
    assert.equal(rowsOf(r), [['1']]);
    r = await q(c, 'FETCH 1 FROM plain');
    assert.is(errorOf(r).C, '34000');
    r = await q(c, 'CLOSE ALL');
    assert.equal(tagsOf(r), ['CLOSE CURSOR ALL']);
    r = await q(c, 'FETCH 1 FROM h');
    assert.is(errorOf(r).C, '34000');
  } finally {
    c.end();
  }
});

test('postgres_fdw’s flow: DECLARE through the unnamed extended protocol, FETCH as simple queries, CLOSE', async () => {
  const c = await session();
  try {
    await q(c, 'SET search_path = pg_catalog; SET timezone = \'GMT\'; SET datestyle = ISO; SET intervalstyle = postgres; SET extra_float_digits = 3');
    await q(c, 'START TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    c.send(fe.parse('', 'DECLARE c1 CURSOR FOR\nSELECT id, s FROM public.t'), fe.bind('', '', [], [0]), fe.describe('P', ''), fe.execute('', 0), fe.sync());
    let r = await c.untilReady();
    assert.equal([codes(r), tagsOf(r), status(r)], ['12nCZ', ['DECLARE CURSOR'], 'T']);
    r = await q(c, 'FETCH 3 FROM c1');
    assert.equal([codes(r), tagsOf(r)], ['TDDDCZ', ['FETCH 3']]);
    r = await q(c, 'FETCH 3 FROM c1');
    assert.equal(tagsOf(r), ['FETCH 2']);
    r = await q(c, 'CLOSE c1');
    assert.equal(tagsOf(r), ['CLOSE CURSOR']);
    r = await q(c, 'COMMIT TRANSACTION');
    assert.equal([tagsOf(r), status(r)], [['COMMIT'], 'I']);
  } finally {
    c.end();
  }
});

test('DEALLOCATE, DEALLOCATE ALL, DISCARD ALL', async () => {
  const c = await session();
  try {
    c.send(fe.parse('p1', 'select id from t'), fe.parse('p2', 'select s from t'), fe.sync());
    await c.untilReady();
    let r = await q(c, 'DEALLOCATE p1');
    assert.equal(tagsOf(r), ['DEALLOCATE']);
    r = await q(c, 'DEALLOCATE p1');
    assert.equal([errorOf(r).C, errorOf(r).M], ['26000', 'prepared statement "p1" does not exist']);
    r = await q(c, 'DEALLOCATE ALL');
    assert.equal(tagsOf(r), ['DEALLOCATE ALL']);
    c.send(fe.bind('', 'p2'), fe.sync());
    r = await c.untilReady();
    assert.is(errorOf(r).C, '26000');
    await q(c, "SET application_name = 'x'");
    r = await q(c, 'DISCARD ALL');
    assert.equal(tagsOf(r), ['DISCARD ALL']);
    assert.equal(rowsOf(await q(c, 'SHOW application_name')), [['']]);
    await q(c, 'BEGIN');
    r = await q(c, 'DISCARD ALL');
    assert.equal([errorOf(r).C, errorOf(r).M], ['25001', 'DISCARD ALL cannot run inside a transaction block']);
  } finally {
    c.end();
  }
});

test('work_mem: the server’s default, SET per session in PostgreSQL’s units, bad values 22023', async () => {
  const own = await startServer({ db, port: 0, auth: { method: 'trust' }, workMem: 64 * 1024 * 1024 });
  const c = await RawClient.connect(own.port);
  try {
    c.send(fe.startup({ user: 'paxd' }));
    await c.untilReady();
    assert.equal(rowsOf(await q(c, 'SHOW work_mem')), [['64MB']]);
    await q(c, "SET work_mem = '1GB'");
    assert.equal(rowsOf(await q(c, 'SHOW work_mem')), [['1GB']]);
    await q(c, 'SET work_mem = 1536');
    assert.equal(rowsOf(await q(c, 'SHOW work_mem')), [['1536kB']]);
    assert.equal(rowsOf(await q(c, 'select count(*) from t')), [['5']]);
    const r = await q(c, "SET work_mem = 'lots'");
    assert.is(errorOf(r).C, '22023');
  } finally {
    c.end();
    await own.close();
  }
});

// ---- COPY ----

test('COPY FROM STDIN (text): rows split across CopyData messages, escapes, \\N, one commit; then the rest of the Query runs', async () => {
  await db.createTable('c1', [
    { name: 'a', type: 'int4' },
    { name: 'b', type: 'text' },
  ]);
  const c = await session();
  try {
    c.send(fe.query('COPY c1 FROM STDIN; SELECT count(*) FROM c1'));
    await c.until((b) => splitReplies(b).some((r) => r.code === 'G'));
    c.send(fe.copyData('1\thello\n2\t\\N\n3\ttab\\there'), fe.copyData('\n4\tline\\nbreak\n'), fe.copyDone());
    const r = await c.untilReady();
    assert.equal([codes(r), tagsOf(r)], ['GCTDCZ', ['COPY 4', 'SELECT 1']]);
    assert.equal(rowsOf(r), [['4']]);
    const out = await q(c, 'COPY c1 TO STDOUT');
    assert.equal(tagsOf(out), ['COPY 4']);
    assert.is(copyText(out), '1\thello\n2\t\\N\n3\ttab\\there\n4\tline\\nbreak\n');
  } finally {
    c.end();
  }
});

test('COPY FROM STDIN (csv, header, column list) and COPY (query) TO STDOUT csv', async () => {
  await db.createTable('c2', [
    { name: 'a', type: 'int4' },
    { name: 'b', type: 'text' },
    { name: 'n', type: 'numeric(6,2)' },
  ]);
  const c = await session();
  try {
    c.send(fe.query('COPY c2 (b, a) FROM STDIN WITH (FORMAT csv, HEADER true)'));
    await c.until((b) => splitReplies(b).some((r) => r.code === 'G'));
    c.send(fe.copyData('b,a\n"x, ""quoted""",1\n"multi\nline",2\n,3\n'), fe.copyDone());
    let r = await c.untilReady();
    assert.equal(tagsOf(r), ['COPY 3']);
    r = await q(c, 'COPY (select a, b, n from c2 order by a) TO STDOUT WITH (FORMAT csv, HEADER)');
    assert.is(copyText(r), 'a,b,n\n1,"x, ""quoted""",\n2,"multi\nline",\n3,,\n');
  } finally {
    c.end();
  }
});

test('COPY FROM errors: a bad value names line and column, nothing is committed; CopyFail', async () => {
  await db.createTable('c3', [
    { name: 'a', type: 'int4', notNull: true },
    { name: 'b', type: 'text' },
  ]);
  const c = await session();
  try {
    c.send(fe.query('COPY c3 FROM STDIN'));
    await c.until((b) => splitReplies(b).some((r) => r.code === 'G'));
    c.send(fe.copyData('1\tok\n2\tok\n12x\tbad\n4\tok\n'), fe.copyDone());
    let r = await c.untilReady();
    let e = errorOf(r);
    assert.equal([e.C, e.M, e.W], ['22P02', 'invalid input syntax for type integer: "12x"', 'COPY c3, line 3, column a: "12x"']);
    assert.equal(rowsOf(await q(c, 'select count(*) from c3')), [['0']]);

    c.send(fe.query('COPY c3 FROM STDIN'));
    await c.until((b) => splitReplies(b).some((r) => r.code === 'G'));
    c.send(fe.copyData('1\tok\n2\n'), fe.copyDone());
    r = await c.untilReady();
    e = errorOf(r);
    assert.equal([e.C, e.M, e.W], ['22P04', 'missing data for column "b"', 'COPY c3, line 2: "2"']);

    c.send(fe.query('COPY c3 FROM STDIN'));
    await c.until((b) => splitReplies(b).some((r) => r.code === 'G'));
    c.send(fe.copyData('\\N\tx\n'), fe.copyDone());
    r = await c.untilReady();
    assert.is(errorOf(r).C, '23502');

    c.send(fe.query('COPY c3 FROM STDIN'));
    await c.until((b) => splitReplies(b).some((r) => r.code === 'G'));
    c.send(fe.copyData('1\tok\n'), fe.copyFail('client gave up'));
    r = await c.untilReady();
    assert.equal([errorOf(r).C, errorOf(r).M], ['57014', 'COPY from stdin failed: client gave up']);
    assert.equal(rowsOf(await q(c, 'select count(*) from c3')), [['0']]);

    // A client that disconnects in the middle of COPY FROM commits nothing.
    const gone = await session();
    gone.send(fe.query('COPY c3 FROM STDIN'));
    await gone.until((b) => splitReplies(b).some((x) => x.code === 'G'));
    gone.send(fe.copyData('1\tok\n2\tok\n'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    gone.end();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(rowsOf(await q(c, 'select count(*) from c3')), [['0']]);
  } finally {
    c.end();
  }
});

test('a CancelRequest during COPY FROM STDIN fails it with 57014 and commits nothing', async () => {
  await db.createTable('c4', [{ name: 'a', type: 'int4' }]);
  const c = await RawClient.connect(srv.port);
  try {
    c.send(fe.startup({ user: 'paxd' }));
    const key = (await c.untilReady()).find((r) => r.code === 'K')!.body;
    c.send(fe.query('COPY c4 FROM STDIN'));
    await c.until((b) => splitReplies(b).some((r) => r.code === 'G'));
    c.send(fe.copyData('1\n2\n'));
    const cancel = await RawClient.connect(srv.port);
    cancel.send(fe.cancel(key.readInt32BE(0), key.readInt32BE(4)));
    await cancel.untilClosed();
    c.send(fe.copyData('3\n'), fe.copyDone());
    const r = await c.untilReady();
    assert.equal([errorOf(r).C, errorOf(r).M], ['57014', 'canceling statement due to user request']);
    assert.equal(rowsOf(await q(c, 'select count(*) from c4')), [['0']]);
  } finally {
    c.end();
  }
});

test.run();

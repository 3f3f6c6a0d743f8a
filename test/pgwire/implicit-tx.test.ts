/**
 * Multi-statement simple Queries against paxd and a real PostgreSQL 15, byte for byte in what
 * matters (message sequence, tags, SQLSTATEs, ReadyForQuery status) and in the rows left:
 * the statements of a string outside a transaction block run as one implicit transaction
 * (protocol-flow.html "Multiple Statements in a Simple Query"): an error undoes all earlier
 * writes of the string; COMMIT/ROLLBACK in it end the implicit block with a warning and start
 * another; BEGIN turns it into a regular block that keeps the string's earlier writes;
 * SAVEPOINT is refused in it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';
import { dataRowOf, errorFieldsOf, RawClient, type Reply } from './client.js';

let pg: Postgres;
let db: Database;
let srv: RunningServer;
let paxd: RawClient;
let ref: RawClient;

test.before(async () => {
  pg = await startPostgres();
  db = await Database.open(tempDir());
  srv = await startServer({ db, host: '127.0.0.1', port: 0, auth: { method: 'trust' } });
  paxd = await RawClient.session(srv.port);
  ref = await RawClient.session(pg.port, { user: 'postgres', database: 'postgres' });
});

test.after(async () => {
  paxd.end();
  ref.end();
  await srv.close();
  await db.close();
});

/** What a client sees of the replies: codes, tags, SQLSTATEs of errors and notices, rows, the status byte. */
function summary(replies: readonly Reply[]): string[] {
  return replies.map((r) => {
    switch (r.code) {
      case 'C':
        return `C ${r.body.toString('utf8', 0, r.body.byteLength - 1)}`;
      case 'E':
      case 'N': {
        const f = errorFieldsOf(r.body);
        return `${r.code} ${f.C} ${f.M}`;
      }
      case 'D':
        return `D ${JSON.stringify(dataRowOf(r.body))}`;
      case 'Z':
        return `Z ${String.fromCharCode(r.body[0]!)}`;
      default:
        return r.code;
    }
  });
}

let n = 0;

/**
 * Runs `setup` (one Query each) and then `steps` (one Query each; `{t}` is a fresh table) on
 * both servers; each step's replies and the table's rows afterwards must be PostgreSQL's.
 */
async function same(steps: readonly string[], seed = ''): Promise<string[][]> {
  const t = `itx_${++n}`;
  const out: string[][] = [];
  for (const c of [paxd, ref]) {
    await c.query(`CREATE TABLE ${t} (id int4 NOT NULL, v text)`);
    if (seed !== '') await c.query(`INSERT INTO ${t} VALUES ${seed}`);
  }
  for (const step of steps) {
    const sql = step.replaceAll('{t}', t);
    const mine = summary(await paxd.query(sql));
    const theirs = summary(await ref.query(sql));
    assert.equal(mine, theirs, sql);
    out.push(mine);
  }
  const rows = `SELECT id, v FROM ${t} ORDER BY id`;
  const mine = summary(await paxd.query(rows));
  assert.equal(mine, summary(await ref.query(rows)), 'rows left');
  out.push(mine);
  return out;
}

test('an error in the middle of a string undoes its earlier INSERTs; the rest is not run', async () => {
  const [step, rows] = await same(["INSERT INTO {t} VALUES (1, 'a'); INSERT INTO {t} VALUES (2, 'b'); SELECT 1/0; INSERT INTO {t} VALUES (3, 'c')"]);
  assert.equal(step, ['C INSERT 0 1', 'C INSERT 0 1', 'E 22012 division by zero', 'Z I']);
  assert.equal(rows, ['T', 'C SELECT 0', 'Z I']);
});

test('UPDATE and DELETE in a failing string are undone; the string reads its own writes', async () => {
  const [step, rows] = await same(
    ["UPDATE {t} SET v = 'x' WHERE id = 1; DELETE FROM {t} WHERE id = 2; INSERT INTO {t} VALUES (9, 'z'); SELECT count(*) FROM {t}; SELECT 1/0"],
    "(1, 'a'), (2, 'b'), (3, 'c')",
  );
  assert.equal(step, ['C UPDATE 1', 'C DELETE 1', 'C INSERT 0 1', 'T', 'D ["3"]', 'C SELECT 1', 'E 22012 division by zero', 'Z I']);
  assert.equal(rows?.slice(1, 4), ['D ["1","a"]', 'D ["2","b"]', 'D ["3","c"]']);
});

test('a string that succeeds commits all its writes', async () => {
  const [step, rows] = await same(["INSERT INTO {t} VALUES (4, 'd'); UPDATE {t} SET v = 'y' WHERE id = 1; DELETE FROM {t} WHERE id = 2"], "(1, 'a'), (2, 'b')");
  assert.equal(step, ['C INSERT 0 1', 'C UPDATE 1', 'C DELETE 1', 'Z I']);
  assert.equal(rows?.slice(1, 3), ['D ["1","y"]', 'D ["4","d"]']);
});

test('COMMIT in the string commits what came before it (with a warning); what follows is a new implicit block', async () => {
  const [step, rows] = await same(["INSERT INTO {t} VALUES (1, 'a'); COMMIT; INSERT INTO {t} VALUES (2, 'b'); SELECT 1/0"]);
  assert.equal(step, ['C INSERT 0 1', 'N 25P01 there is no transaction in progress', 'C COMMIT', 'C INSERT 0 1', 'E 22012 division by zero', 'Z I']);
  assert.equal(rows?.slice(1, 2), ['D ["1","a"]']);
});

test('ROLLBACK in the string undoes what came before it; what follows commits', async () => {
  const [, rows] = await same(["INSERT INTO {t} VALUES (1, 'a'); ROLLBACK; INSERT INTO {t} VALUES (2, 'b')"]);
  assert.equal(rows, ['T', 'D ["2","b"]', 'C SELECT 1', 'Z I']);
});

test('BEGIN; … COMMIT; … in one string: the explicit block commits, the error undoes only what follows it', async () => {
  const [step, rows] = await same(["BEGIN; INSERT INTO {t} VALUES (1, 'a'); COMMIT; INSERT INTO {t} VALUES (2, 'b'); SELECT 1/0"]);
  assert.equal(step?.at(-1), 'Z I');
  assert.equal(rows?.slice(1, 3), ['D ["1","a"]', 'C SELECT 1']);
});

test('an error after BEGIN in the string leaves a failed block (E); ROLLBACK ends it', async () => {
  const [step, rollback, rows] = await same(["BEGIN; INSERT INTO {t} VALUES (1, 'a'); SELECT 1/0; INSERT INTO {t} VALUES (2, 'b')", 'ROLLBACK']);
  assert.equal(step?.at(-1), 'Z E');
  assert.equal(rollback, ['C ROLLBACK', 'Z I']);
  assert.equal(rows, ['T', 'C SELECT 0', 'Z I']);
});

test('statements before a BEGIN in the string join its block: ROLLBACK undoes them, COMMIT keeps them', async () => {
  const [step, , rows] = await same(["INSERT INTO {t} VALUES (1, 'a'); BEGIN; INSERT INTO {t} VALUES (2, 'b')", 'ROLLBACK']);
  assert.equal(step, ['C INSERT 0 1', 'C BEGIN', 'C INSERT 0 1', 'Z T']);
  assert.equal(rows, ['T', 'C SELECT 0', 'Z I']);
  const [, commit, kept] = await same(["INSERT INTO {t} VALUES (1, 'a'); BEGIN; INSERT INTO {t} VALUES (2, 'b')", 'COMMIT']);
  assert.equal(commit, ['C COMMIT', 'Z I']);
  assert.equal(kept?.slice(1, 4), ['D ["1","a"]', 'D ["2","b"]', 'C SELECT 2']);
});

test('a string inside a block opened earlier continues it: an error fails the block', async () => {
  const [, step, , rows] = await same(['BEGIN', "INSERT INTO {t} VALUES (1, 'a'); SELECT 1/0", 'COMMIT']);
  assert.equal(step?.at(-1), 'Z E');
  assert.equal(rows, ['T', 'C SELECT 0', 'Z I']);
});

test('SAVEPOINT in an implicit block is 25P01 and undoes the string', async () => {
  const [step, rows] = await same(["INSERT INTO {t} VALUES (1, 'a'); SAVEPOINT s; INSERT INTO {t} VALUES (2, 'b')"]);
  assert.equal(step, ['C INSERT 0 1', 'E 25P01 SAVEPOINT can only be used in transaction blocks', 'Z I']);
  assert.equal(rows, ['T', 'C SELECT 0', 'Z I']);
});

test('a cursor DECLAREd in a string lives until the end of the string', async () => {
  const [step, after] = await same([`INSERT INTO {t} VALUES (1, 'a'); DECLARE c CURSOR FOR SELECT id FROM {t}; FETCH 5 FROM c`, 'FETCH 5 FROM c']);
  assert.equal(step, ['C INSERT 0 1', 'C DECLARE CURSOR', 'T', 'D ["1"]', 'C FETCH 1', 'Z I']);
  assert.equal(after, ['E 34000 cursor "c" does not exist', 'Z I']);
});

test('a string with DDL is one implicit transaction too: an error undoes its CREATE TABLE and INSERT', async () => {
  for (const c of [paxd, ref]) {
    const replies = summary(await c.query('CREATE TABLE itx_ddl (id int4); INSERT INTO itx_ddl VALUES (1); SELECT 1/0'));
    assert.equal(replies, ['C CREATE TABLE', 'C INSERT 0 1', 'E 22012 division by zero', 'Z I']);
    assert.equal(summary(await c.query('SELECT id FROM itx_ddl')), ['E 42P01 relation "itx_ddl" does not exist', 'Z I']);
    assert.equal(summary(await c.query('CREATE TABLE itx_ddl (id int4); INSERT INTO itx_ddl VALUES (2)')), ['C CREATE TABLE', 'C INSERT 0 1', 'Z I']);
    assert.equal(summary(await c.query('SELECT id FROM itx_ddl; DROP TABLE itx_ddl; SELECT 1/0')), ['T', 'D ["2"]', 'C SELECT 1', 'C DROP TABLE', 'E 22012 division by zero', 'Z I']);
    assert.equal(summary(await c.query('SELECT id FROM itx_ddl')), ['T', 'D ["2"]', 'C SELECT 1', 'Z I']);
  }
});

test.run();

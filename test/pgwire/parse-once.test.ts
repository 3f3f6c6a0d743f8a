/**
 * One libpg-query parse per statement text (src/engine/parse.ts is its only user): pgwire
 * splits a query string with the engine's parser and hands each tree to the engine, so a
 * simple Query with several statements, a prepared statement run many times, a DECLARE'd
 * cursor and the catalog queries postgres_fdw sends (the IMPORT FOREIGN SCHEMA case proper is
 * in ../mirror/import.test.ts) each cost one parse, not one per stage. Error positions still
 * count from the start of the query string, in characters.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { onParse } from '../../src/engine/index.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { columnOf } from '../../src/types/index.js';
import { tempDir } from '../support/tmp.js';
import { dataRowOf, errorFieldsOf, fe, RawClient, type Reply } from './client.js';

let db: Database;
let srv: RunningServer;

test.before(async () => {
  db = await Database.open(tempDir());
  const t = await db.createTable('t', [
    { name: 'id', type: 'int4', notNull: true },
    { name: 's', type: 'text' },
  ]);
  const sink = t.sink();
  await sink.write({ length: 3, columns: [columnOf({ id: 'int4' }, [1, 2, 3]), columnOf({ id: 'text' }, ['a', null, 'c'])], selection: null });
  await sink.commit();
  srv = await startServer({ db, host: '127.0.0.1', port: 0, auth: { method: 'trust' } });
});

test.after(async () => {
  onParse(null);
  await srv.close();
  await db.close();
});

/** The query strings libpg-query parsed while `work` ran. */
async function parsedDuring(work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  onParse((sql) => seen.push(sql));
  try {
    await work();
  } finally {
    onParse(null);
  }
  return seen;
}

const rowsOf = (rs: Reply[]) => rs.filter((r) => r.code === 'D').map((r) => dataRowOf(r.body));
const errorOf = (rs: Reply[]) => errorFieldsOf(rs.find((r) => r.code === 'E')!.body);

test('a simple Query of several statements is parsed once, engine statements included', async () => {
  const c = await RawClient.session(srv.port);
  try {
    const sql = "/* parse-once 1 */ SELECT count(*) FROM t; SET application_name = 'p1'; SELECT id FROM t WHERE id = 2; SELECT s FROM t ORDER BY id LIMIT 1";
    let rs: Reply[] = [];
    const parsed = await parsedDuring(async () => (rs = await c.query(sql)));
    assert.equal(parsed, [sql]);
    assert.equal(rowsOf(rs), [['3'], ['2'], ['a']]);
  } finally {
    c.end();
  }
});

test('a prepared statement is parsed once at Parse, however often it is executed', async () => {
  const c = await RawClient.session(srv.port);
  try {
    const sql = '/* parse-once 2 */ SELECT s FROM t WHERE id = $1';
    let rs: Reply[] = [];
    const parsed = await parsedDuring(async () => {
      c.send(fe.parse('p', sql), fe.sync());
      await c.untilReady();
      for (const id of ['1', '2', '3']) c.send(fe.bind('', 'p', [id]), fe.execute(''));
      c.send(fe.sync());
      rs = await c.untilReady();
    });
    assert.equal(parsed, [sql]);
    assert.equal(rowsOf(rs), [['a'], [null], ['c']]);
  } finally {
    c.end();
  }
});

test('DECLARE … CURSOR FOR and COPY (query) TO run the tree of their query: one parse', async () => {
  const c = await RawClient.session(srv.port);
  try {
    const sql = '/* parse-once 3 */ BEGIN; DECLARE c CURSOR FOR SELECT id FROM t ORDER BY id; FETCH 2 FROM c; COMMIT; COPY (SELECT s FROM t WHERE id = 3) TO STDOUT';
    let rs: Reply[] = [];
    const parsed = await parsedDuring(async () => (rs = await c.query(sql)));
    assert.equal(parsed, [sql]);
    assert.equal(rowsOf(rs), [['1'], ['2']]);
    assert.equal(rs.filter((r) => r.code === 'd').map((r) => r.body.toString()), ['c\n']);
  } finally {
    c.end();
  }
});

test("postgres_fdw's namespace probe is parsed once (catalog answer, no second parse)", async () => {
  const c = await RawClient.session(srv.port);
  try {
    const sql = "/* parse-once 4 */ SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'public'";
    let rs: Reply[] = [];
    const parsed = await parsedDuring(async () => (rs = await c.query(sql)));
    assert.equal(parsed, [sql]);
    assert.equal(rowsOf(rs), [['1']]);
  } finally {
    c.end();
  }
});

test('an error position counts characters from the start of the query string', async () => {
  const c = await RawClient.session(srv.port);
  try {
    // 'é' is two bytes: a byte count would say 36, PostgreSQL says 35.
    const rs = await c.query("SELECT 'é' FROM t; SELECT nosuch FROM t");
    const e = errorOf(rs);
    assert.is(e.C, '42703');
    assert.is(e.M, 'column "nosuch" does not exist');
    assert.is(e.P, String("SELECT 'é' FROM t; SELECT ".length + 1));
  } finally {
    c.end();
  }
});

test.run();

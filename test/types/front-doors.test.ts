/**
 * One condition, one error, whatever the front door (src/types/errors.ts holds the one SQLSTATE
 * table and the constructors every layer calls). A NULL in a NOT NULL column through INSERT
 * over the wire, COPY FROM STDIN, `paxd ingest` and the HTTP rows API, and an undefined column
 * in a SELECT, an INSERT column list, a COPY column list and an ingest header, carry the same
 * SQLSTATE and message; on the SQL paths they match a real PostgreSQL 15's, statement for
 * statement. Ingest paths place the message in the input (`data.csv:2: …`); what follows the
 * place is the same message.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/table/database.js';
import { Daemon, defaultConfig, createLogger } from '../../src/daemon/index.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { parseColumns } from '../../src/types/parse-type.js';
import { SQLSTATE, notNullViolation, undefinedColumn } from '../../src/types/index.js';
import { errorFieldsOf, fe, RawClient, type Reply } from '../pgwire/client.js';
import { PgQueryError, startPostgres, type Postgres } from '../support/pg.js';
import { runCli } from '../support/spawn.js';
import { tempDir } from '../support/tmp.js';

interface Failure {
  code: string;
  message: string;
}

const COLUMNS = 'id int4 not null, name text';
const NOT_NULL = { code: SQLSTATE.not_null_violation, message: notNullViolation('id', 't').message };

let pg: Postgres;
let dir: string;
let db: Database;
let srv: RunningServer;
let daemon: Daemon;
let http: string;

test.before(async () => {
  pg = await startPostgres();
  await pg.query(`DROP TABLE IF EXISTS t; CREATE TABLE t (${COLUMNS})`);
  dir = tempDir();
  db = await Database.open(dir);
  await db.createTable('t', parseColumns(COLUMNS));
  srv = await startServer({ db, host: '127.0.0.1', port: 0, auth: { method: 'trust' } });
  const httpDir = tempDir();
  const d2 = await Database.open(httpDir);
  await d2.createTable('t', parseColumns(COLUMNS));
  await d2.close();
  const silent = createLogger('silent', { write: () => undefined });
  daemon = await Daemon.start({ ...defaultConfig(), store: httpDir, listen: 'off', http: '127.0.0.1:0', auth_method: 'trust', compact_interval_ms: 0, vacuum_interval_ms: 0 }, { log: silent, out: () => undefined });
  http = `http://127.0.0.1:${daemon.http!.port}`;
});

test.after(async () => {
  await daemon.stop();
  await srv.close();
  await db.close();
});

/** PostgreSQL's error for a psql script (COPY data inline, ended by `\.`). */
async function viaPostgres(script: string): Promise<Failure> {
  try {
    await pg.query(script);
  } catch (e) {
    if (e instanceof PgQueryError) return { code: e.sqlstate, message: e.message };
    throw e;
  }
  throw new Error(`PostgreSQL accepted: ${script}`);
}

const errorOf = (rs: Reply[]): Failure => {
  const e = rs.find((r) => r.code === 'E');
  if (e === undefined) throw new Error(`paxd accepted: ${rs.map((r) => r.code).join('')}`);
  const f = errorFieldsOf(e.body);
  return { code: f.C!, message: f.M! };
};

/** paxd's error for one simple Query over the wire. */
async function viaWire(sql: string): Promise<Failure> {
  const c = await RawClient.session(srv.port);
  try {
    return errorOf(await c.query(sql));
  } finally {
    c.end();
  }
}

/** paxd's error for COPY … FROM STDIN with `data` sent as CopyData. */
async function viaCopy(sql: string, data: string): Promise<Failure> {
  const c = await RawClient.session(srv.port);
  try {
    c.send(fe.query(sql));
    await c.until((b) => b.includes(Buffer.from('G'))); // CopyInResponse
    c.send(fe.copyData(data), fe.copyDone());
    return errorOf(await c.untilReady());
  } finally {
    c.end();
  }
}

/** `paxd ingest t FILE --header`: the code and message of its `paxd: ERROR:  CODE: message` line. */
async function viaIngest(csv: string): Promise<Failure> {
  const file = join(tempDir(), 'data.csv');
  writeFileSync(file, csv);
  const r = await runCli(['ingest', 't', file, '--header', '--data', dir]);
  assert.is.not(r.code, 0, r.stdout);
  const m = /^paxd: ERROR: {2}([0-9A-Z]{5}): (.*)$/m.exec(r.stderr);
  if (m === null) throw new Error(`no error line in: ${r.stderr}`);
  return { code: m[1]!, message: m[2]! };
}

/** POST /v1/tables/t/rows with a CSV body: the JSON error's sqlstate and message. */
async function viaHttp(csv: string): Promise<Failure> {
  const r = await fetch(`${http}/v1/tables/t/rows`, { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: csv });
  const body = (await r.json()) as { error?: { sqlstate: string; message: string } };
  if (body.error === undefined) throw new Error(`HTTP ${r.status} accepted the rows`);
  return { code: body.error.sqlstate, message: body.error.message };
}

/** The message without the input location an ingest puts before it (`/tmp/x/data.csv:3:1: `, `request body:3:1: `). */
function unplaced(f: Failure): Failure {
  return { code: f.code, message: f.message.replace(/^[^"]*?(?::\d+)+: /, '') };
}

test('23502 through INSERT, COPY FROM STDIN, paxd ingest and HTTP: one message, PostgreSQL 15s', async () => {
  const insert = "INSERT INTO t (id, name) VALUES (1, 'a'), (NULL, 'b')";
  const pgInsert = await viaPostgres(insert);
  assert.equal(pgInsert, NOT_NULL, 'PostgreSQL says what the constructor says');
  assert.equal(await viaWire(insert), pgInsert, 'INSERT over the wire');

  const pgCopy = await viaPostgres('COPY t (id, name) FROM STDIN (FORMAT csv);\n1,a\n,b\n\\.');
  assert.equal(pgCopy, NOT_NULL);
  assert.equal(await viaCopy('COPY t (id, name) FROM STDIN (FORMAT csv)', '1,a\n,b\n'), pgCopy, 'COPY FROM STDIN');

  assert.equal(unplaced(await viaIngest('id,name\n1,a\n,b\n')), NOT_NULL, 'paxd ingest');
  assert.equal(unplaced(await viaHttp('id,name\n1,a\n,b\n')), NOT_NULL, 'HTTP rows');
});

test('42703 in a SELECT, an INSERT column list, a COPY column list and an ingest header', async () => {
  const select = 'SELECT nosuch FROM t';
  const pgSelect = await viaPostgres(select);
  assert.equal(pgSelect, { code: SQLSTATE.undefined_column, message: undefinedColumn('nosuch').message });
  assert.equal(await viaWire(select), pgSelect, 'SELECT');

  const insert = "INSERT INTO t (id, nosuch) VALUES (1, 'a')";
  const pgInsert = await viaPostgres(insert);
  const listed = { code: SQLSTATE.undefined_column, message: undefinedColumn('nosuch', { relation: 't' }).message };
  assert.equal(pgInsert, listed);
  assert.equal(await viaWire(insert), pgInsert, 'INSERT column list');

  const copy = 'COPY t (id, nosuch) FROM STDIN (FORMAT csv)';
  const pgCopy = await viaPostgres(`${copy};\n1,a\n\\.`);
  assert.equal(pgCopy, listed);
  assert.equal(await viaWire(copy), pgCopy, 'COPY column list');

  assert.equal(unplaced(await viaIngest('id,nosuch\n1,a\n')), listed, 'paxd ingest header');
  assert.equal(unplaced(await viaHttp('id,nosuch\n1,a\n')), listed, 'HTTP rows header');
});

test.run();

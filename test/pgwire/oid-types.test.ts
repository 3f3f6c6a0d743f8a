/**
 * The object identifier types, name and "char" on the wire (issue #21): node-postgres in text
 * and in binary format, and psycopg 3 (Debian's python3-psycopg, fixtures/oid-types.py), read
 * the same values and RowDescription types from paxd as from PostgreSQL 15.
 *
 * A reg* column in binary format is 0A000: paxd hands the names its output prints to the wire,
 * not the oids (src/engine/catalog/names.ts); text, what drivers ask for, is PostgreSQL's.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pgdriver from 'pg';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';

const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const SCRIPT = join(import.meta.dirname, 'fixtures', 'oid-types.py');

/** Values as they come (node-postgres hands binary ones over as strings of their bytes), not a driver's reading of them. */
const raw = { getTypeParser: () => (v: string | Buffer) => (Buffer.isBuffer(v) ? `\\x${v.toString('hex')}` : v) } as never;

const TEXT_QUERIES = [
  "SELECT 1259::oid, '4294967295'::oid, 'abc'::name, repeat('x', 70)::name, 'r'::\"char\", ''::\"char\", 'é'::\"char\", '1 2 3'::int2vector, '23 25'::oidvector, '16'::xid",
  "SELECT 'pg_class'::regclass, 'int4'::regtype, 'varchar'::regtype, 'pg_catalog'::regnamespace, 0::regclass, 99999::regtype, 'information_schema.tables'::regclass",
  "SELECT c.oid, c.relname, c.relkind, c.relnamespace, c.oid::regclass, c.relnamespace::regnamespace FROM pg_class c WHERE c.relname IN ('pg_class', 'pg_type', 'pg_attribute') ORDER BY c.relname",
  "SELECT t.oid, t.typname, t.typtype, t.typinput, t.typoutput, t.typarray FROM pg_type t WHERE t.oid IN (19, 26, 2205) ORDER BY t.oid",
  "SELECT p.proname, p.proargtypes, p.prorettype FROM pg_proc p WHERE p.proname = 'split_part'",
  "SELECT pg_typeof(1), pg_typeof('x'::name), current_database() IS NOT NULL",
];

const BINARY_QUERIES = [
  "SELECT 1259::oid, '4294967295'::oid, 'abc'::name, 'r'::\"char\", ''::\"char\", '1 2 3'::int2vector, '23 25'::oidvector, '16'::xid",
  "SELECT c.oid, c.relname, c.relkind, c.relnamespace FROM pg_class c WHERE c.relname IN ('pg_class', 'pg_type') ORDER BY c.relname",
  "SELECT proargtypes FROM pg_proc WHERE proname = 'split_part'",
];

let pg: Postgres;
let db: Database;
let srv: RunningServer;

async function client(port: number, host: string, binary: boolean): Promise<pgdriver.Client> {
  // `binary` asks for binary results (node-postgres's option, missing from its typings).
  const c = new pgdriver.Client({ host, port, user: 'postgres', database: 'postgres', types: raw, binary } as pgdriver.ClientConfig);
  await c.connect();
  return c;
}

/** One query's types and rows, or its SQLSTATE; the extended protocol, where `binary` asks for binary results. */
async function answer(c: pgdriver.Client, sql: string): Promise<{ types: number[]; rows: unknown[][] } | { code: string }> {
  try {
    const r = await c.query({ text: sql, rowMode: 'array', queryMode: 'extended' } as pgdriver.QueryArrayConfig);
    return { types: r.fields.map((f) => f.dataTypeID), rows: r.rows };
  } catch (e) {
    return { code: (e as { code: string }).code };
  }
}

function python(port: number): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(PYTHON, [SCRIPT, String(port), 'postgres'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.once('error', reject);
    p.once('exit', (code) => resolve({ code, out, err }));
  });
}

test.before(async () => {
  pg = await startPostgres();
  db = await Database.open(tempDir());
  srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
});

test.after(async () => {
  await srv.close();
  await db.close();
});

for (const binary of [false, true]) {
  test(`node-postgres reads the same ${binary ? 'binary' : 'text'} values and types from paxd as from PostgreSQL 15`, async () => {
    const ours = await client(srv.port, '127.0.0.1', binary);
    const theirs = await client(pg.port, pg.socketDir, binary);
    try {
      for (const sql of binary ? BINARY_QUERIES : TEXT_QUERIES) assert.equal(await answer(ours, sql), await answer(theirs, sql), sql);
    } finally {
      await ours.end();
      await theirs.end();
    }
  });
}

test('a reg* column in binary format is 0A000 (paxd sends the names it prints)', async () => {
  const ours = await client(srv.port, '127.0.0.1', true);
  const theirs = await client(pg.port, pg.socketDir, true);
  try {
    assert.equal(await answer(ours, "SELECT 'pg_class'::regclass"), { code: '0A000' });
    const oid = "SELECT 'pg_class'::regclass::oid";
    assert.equal(await answer(ours, oid), await answer(theirs, oid));
  } finally {
    await ours.end();
    await theirs.end();
  }
});

test('psycopg 3 reads the same values and types from paxd as from PostgreSQL 15', async () => {
  const ours = await python(srv.port);
  assert.equal(ours.err, '', 'paxd: stderr');
  const theirs = await python(pg.port);
  assert.equal(theirs.err, '', 'PostgreSQL: stderr');
  assert.equal(JSON.parse(ours.out), JSON.parse(theirs.out));
});

test.run();

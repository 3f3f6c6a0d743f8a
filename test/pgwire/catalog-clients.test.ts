/**
 * Drivers that read the catalogs at connect (issue #21, Done-when 3), against paxd and against
 * a PostgreSQL 15 holding the same tables: psycopg 3's TypeInfo.fetch (pg_type by name through
 * `::regtype`) and SQLAlchemy's connect and inspector (table and schema names, has_table), run
 * by Debian's python3 (python3-psycopg, python3-sqlalchemy, python3-psycopg2) from
 * fixtures/catalog-clients.py; the JSON they print must be equal. get_columns sends correlated
 * subqueries in its select list (dependent joins, src/engine/bind/correlated.ts).
 *
 * Not yet: SQLAlchemy's get_pk_constraint unnests pg_index.indkey, an int2vector, which paxd's
 * catalog holds as its text ('1 2').
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { query } from '../../src/engine/index.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';

const TABLES = ["CREATE TABLE cl_events (id int8 NOT NULL, kind text DEFAULT 'x', at timestamptz)", 'CREATE TABLE cl_other (a int4)'];

/** Debian's python3, where python3-psycopg and python3-sqlalchemy are (a pyenv python3 on PATH may lack them). */
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const SCRIPT = join(import.meta.dirname, 'fixtures', 'catalog-clients.py');

let pg: Postgres;
let db: Database;
let srv: RunningServer;

function python(port: number, database: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(PYTHON, [SCRIPT, String(port), database], { stdio: ['ignore', 'pipe', 'pipe'] });
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
  await pg.query('DROP DATABASE IF EXISTS catalog_clients');
  await pg.query('CREATE DATABASE catalog_clients');
  db = await Database.open(tempDir());
  for (const t of TABLES) await query(db, t);
  srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
});

test.after(async () => {
  await srv.close();
  await db.close();
  await pg.query('DROP DATABASE IF EXISTS catalog_clients');
});

test('psycopg TypeInfo.fetch and SQLAlchemy inspector read the same catalog from paxd as from PostgreSQL 15', async () => {
  // The PostgreSQL side's tables, in its own database (pg.query runs in database postgres).
  const setup = await new Promise<number | null>((resolve) => {
    const p = spawn('psql', ['-X', '-q', '-h', '127.0.0.1', '-p', String(pg.port), '-U', 'postgres', '-d', 'catalog_clients', '-v', 'ON_ERROR_STOP=1', '-c', TABLES.join(';')], { stdio: 'ignore' });
    p.once('exit', resolve);
  });
  assert.is(setup, 0);
  const got = await python(srv.port, 'paxd');
  const want = await python(pg.port, 'catalog_clients');
  assert.is(want.code, 0, want.err);
  assert.is(got.code, 0, got.err);
  assert.equal(JSON.parse(got.out), JSON.parse(want.out));
  assert.equal(JSON.parse(got.out)['typeinfo jsonb'], ['jsonb', 3802, 3807, 'jsonb', ',']);
});

test.run();

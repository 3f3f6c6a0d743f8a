/**
 * The dependent join (src/engine/bind/correlated.ts, src/engine/exec/dependent-join.ts): the
 * names and types of result columns that hold correlated subqueries, against what PostgreSQL 15
 * sends in its RowDescription for the same statements over the same rows, and that a correlated
 * subquery runs once per distinct tuple of outer values, not once per outer row.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pgdriver from 'pg';
import { Database } from '../../src/table/database.js';
import { PaxdError, SQLSTATE } from '../../src/types/index.js';
import { query } from '../../src/engine/index.js';
import { engineCounters } from '../../src/engine/counters.js';
import { typeOid } from '../../src/pgwire/codec/oids.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';

const SETUP = [
  'CREATE TABLE dj (id int4, g int4, s text)',
  `INSERT INTO dj SELECT i, i % 10, CASE WHEN i % 7 = 0 THEN NULL ELSE 's' || (i % 5) END FROM generate_series(0, 999) i`,
];

/** Statements whose result columns are named by their subqueries (PostgreSQL's FigureColname). */
const NAMED = [
  'SELECT id, (SELECT count(*) FROM dj b WHERE b.id > a.id AND b.id < 5) FROM dj a WHERE id < 5 ORDER BY id',
  'SELECT id, (SELECT b.s FROM dj b WHERE b.id = a.id + 1) FROM dj a WHERE id < 5 ORDER BY id',
  'SELECT id, (SELECT b.s AS t FROM dj b WHERE b.id = a.id + 1), EXISTS (SELECT 1 FROM dj b WHERE b.g = a.g AND b.id > 990) FROM dj a WHERE id < 5 ORDER BY id',
  'SELECT id, ARRAY(SELECT b.id FROM dj b WHERE b.g = a.g AND b.id < 40 ORDER BY b.id) FROM dj a WHERE id < 5 ORDER BY id',
  'SELECT ARRAY(SELECT s FROM dj WHERE id < 4 ORDER BY id), ARRAY(SELECT id FROM dj WHERE id < 0)',
  'SELECT (SELECT max(id) FROM dj), (SELECT s FROM dj WHERE id = 1), a.g IN (SELECT 1) FROM dj a WHERE id = 1',
  'SELECT g, count(*), (SELECT max(b.id) FROM dj b WHERE b.g = a.g) FROM dj a GROUP BY g ORDER BY g',
];

let pg: Postgres | null = null;
let client: pgdriver.Client | null = null;
let db: Database | null = null;

async function setup(): Promise<{ db: Database; client: pgdriver.Client }> {
  if (db === null) {
    db = await Database.open(tempDir());
    for (const s of SETUP) await query(db, s);
  }
  if (client === null) {
    pg = await startPostgres();
    for (const s of SETUP) await pg.query(s);
    client = new pgdriver.Client({ host: pg.socketDir, port: pg.port, user: 'postgres', database: 'postgres', types: { getTypeParser: () => (v: string) => v } });
    await client.connect();
  }
  return { db, client };
}

for (const sql of NAMED) {
  test(`names and types as PostgreSQL's: ${sql}`, async () => {
    const { db, client } = await setup();
    const mine = await query(db, sql);
    const theirs = await client.query({ text: sql, rowMode: 'array' });
    assert.equal(
      mine.fields.map((f) => `${f.name} ${typeOid(f.declared ?? f.type)}`),
      theirs.fields.map((f) => `${f.name} ${f.dataTypeID}`),
    );
    const text = (v: unknown) => (v === null ? null : v === true ? 't' : v === false ? 'f' : String(v));
    assert.equal(mine.rows.map((r) => r.map(text)), theirs.rows.map((r: unknown[]) => r.map(text)));
  });
}

test('a correlated subquery runs once per distinct outer tuple (10 values of g), not per row (1,000)', async () => {
  const { db } = await setup();
  const before = engineCounters().scans;
  const r = await query(db, 'SELECT id, (SELECT b.s FROM dj b WHERE b.id = a.g) FROM dj a');
  assert.equal(r.rows.length, 1000);
  const scans = engineCounters().scans - before;
  assert.ok(scans <= 1 + 10, `scans: ${scans}`);
});

test('LATERAL runs once per distinct outer tuple too', async () => {
  const { db } = await setup();
  const before = engineCounters().scans;
  const r = await query(db, 'SELECT a.id, x.n FROM dj a, LATERAL (SELECT count(*) AS n FROM dj b WHERE b.g = a.g AND b.id < a.g * 10) x');
  assert.equal(r.rows.length, 1000);
  const scans = engineCounters().scans - before;
  assert.ok(scans <= 1 + 10, `scans: ${scans}`);
});

test('a statement stopped while its dependent join runs ends with the signal\'s reason (57014)', async () => {
  const { db } = await setup();
  const ac = new AbortController();
  // One run per outer row (id is distinct), each a scan of dj: long enough to be stopped midway.
  const run = query(db, 'SELECT a.id, (SELECT count(*) FROM dj b, dj c WHERE b.id = a.id AND c.g = b.g) FROM dj a', undefined, { signal: ac.signal });
  setTimeout(() => ac.abort(new PaxdError('io', SQLSTATE.query_canceled, 'canceling statement due to user request')), 50);
  try {
    await run;
    assert.unreachable('the statement ran to its end');
  } catch (e) {
    assert.ok(e instanceof PaxdError, String(e));
    assert.is((e as PaxdError).code, SQLSTATE.query_canceled);
  }
});

test.after(async () => {
  if (client !== null) await client.end();
});

test.run();

/**
 * json and jsonb columns on the wire against a real PostgreSQL 15 (issue #19's json/jsonb, issue
 * #21: drivers decide by the type OID). A table with a json and a jsonb column, filled with
 * INSERT … VALUES ($1, $2) and read back, must give node-postgres the same field type OIDs
 * (114, 3802, and 199/3807 for arrays of them) and the same parsed values in the text and the
 * binary formats (binary jsonb is a version byte 1 and the text), and give psycopg 3 (text and
 * binary cursors) and psycopg2 the same Python values and type codes.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pgdriver from 'pg';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';

/** Documents as written: json keeps them so, jsonb normalizes them. */
const DOCS: readonly (string | null)[] = ['{"b": 1,  "a": [1.50, "x\\"y"], "b": 2}', '[]', '"é😀"', 'null', null, '1e2', '{"nested": {"k": [true, false, null]}}', ' [1,2] '];

const QUERIES: readonly string[] = [
  'SELECT id, j, b FROM docs ORDER BY id',
  "SELECT id, j -> 'a', b -> 'a', b ->> 'b', j #> '{nested,k}' FROM docs ORDER BY id",
  'SELECT json_agg(j ORDER BY id), jsonb_agg(b ORDER BY id) FROM docs',
  'SELECT array_agg(b ORDER BY id), array_agg(j ORDER BY id) FROM docs WHERE id < 4',
  'SELECT b, count(*) FROM docs GROUP BY b ORDER BY b',
  "SELECT jsonb_build_object('id', id, 'b', b), json_build_array(id, j) FROM docs ORDER BY id",
];

let pg: Postgres;
let db: Database;
let srv: RunningServer;

test.before(async () => {
  pg = await startPostgres();
  db = await Database.open(tempDir());
  srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
  for (const c of [await client(srv.port, 'paxd'), await client(pg.port, 'postgres')]) {
    await c.query('CREATE TABLE docs (id int4, j json, b jsonb)');
    for (let i = 0; i < DOCS.length; i++) await c.query('INSERT INTO docs VALUES ($1, $2, $3)', [i, DOCS[i], DOCS[i]]);
    await c.end();
  }
});

test.after(async () => {
  await srv.close();
  await db.close();
});

async function client(port: number, user: string): Promise<pgdriver.Client> {
  const c = new pgdriver.Client({ host: '127.0.0.1', port, user, database: user });
  await c.connect();
  return c;
}

/** Each query's field OIDs and rows (node-postgres's parsed values), in text or binary results. */
async function answers(port: number, user: string, binary: boolean): Promise<unknown[]> {
  const c = await client(port, user);
  try {
    const out: unknown[] = [];
    for (const text of QUERIES) {
      // `binary` (results in the binary format) is a node-postgres option its typings lack.
      const r = await c.query({ text, rowMode: 'array', binary } as pgdriver.QueryArrayConfig);
      // Binary results node-postgres leaves as Buffers for json/jsonb: compare their bytes.
      const rows = r.rows.map((row: unknown[]) => row.map((v) => (Buffer.isBuffer(v) ? `bytes ${v.toString('hex')}` : v)));
      out.push({ text, oids: r.fields.map((f) => f.dataTypeID), rows });
    }
    return out;
  } finally {
    await c.end();
  }
}

test('node-postgres, text results: json and jsonb columns give the same OIDs and parsed values as PostgreSQL', async () => {
  const got = await answers(srv.port, 'paxd', false);
  const want = await answers(pg.port, 'postgres', false);
  assert.equal(got, want);
  assert.equal((want[0] as { oids: number[] }).oids, [23, 114, 3802]);
});

test('node-postgres, binary results: the same bytes (jsonb: version 1, then the text)', async () => {
  const got = await answers(srv.port, 'paxd', true);
  const want = await answers(pg.port, 'postgres', true);
  assert.equal(got, want);
  assert.equal((want[3] as { oids: number[] }).oids, [3807, 199]);
});

const PSYCOPG = String.raw`
import sys, json, psycopg, psycopg2
port, user, queries = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
dsn = 'host=127.0.0.1 port=%d user=%s dbname=%s' % (port, user, user)
out = {}
with psycopg.connect(dsn) as conn:
    for binary in (False, True):
        for q in queries:
            with conn.cursor(binary=binary) as cur:
                cur.execute(q)
                out['psycopg3 %s %s' % (binary, q)] = repr(([d.type_code for d in cur.description], cur.fetchall()))
c2 = psycopg2.connect(dsn)
cur = c2.cursor()
for q in queries:
    cur.execute(q)
    out['psycopg2 ' + q] = repr(([d.type_code for d in cur.description], cur.fetchall()))
c2.close()
print(json.dumps(out, indent=1, sort_keys=True))
`;

const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

async function python(port: number, user: string): Promise<Record<string, unknown>> {
  const r = await promisify(execFile)(PYTHON, ['-c', PSYCOPG, String(port), user, JSON.stringify(QUERIES)], { encoding: 'utf8', timeout: 120_000 });
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

test('psycopg 3 (text and binary) and psycopg2: the same Python values and type codes', async () => {
  const got = await python(srv.port, 'paxd');
  const want = await python(pg.port, 'postgres');
  assert.ok(Object.keys(want).length === QUERIES.length * 3);
  for (const k of Object.keys(want)) assert.is(got[k], want[k], k);
});

test.run();

/**
 * postgres.js (the npm package `postgres`) with its default options against paxd and against a
 * PostgreSQL 15 holding the same tables (issue #21, Done-when 3). Its defaults: every query is
 * a named prepared statement over the extended protocol, and at connect it reads pg_type
 * (`fetch_types`: each array type's element, `typcategory = 'A'`) to parse and serialize
 * arrays. The same script runs against both servers: parameters of each type, every column
 * type paxd stores read back, arrays, json, the result's column descriptions, a transaction
 * committed and one rolled back, COPY FROM STDIN and COPY TO STDOUT, errors' SQLSTATEs; the
 * two transcripts must be equal.
 */
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import postgres from 'postgres';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { query } from '../../src/engine/index.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';
import { JM_TABLES } from './jdbc-tables.js';

const DATABASE = 'postgres_js';
const TABLES = [...JM_TABLES, 'CREATE TABLE pj_log (id int4, note text, at timestamptz)'];

let pg: Postgres;
let db: Database;
let srv: RunningServer;

test.before(async () => {
  pg = await startPostgres();
  await pg.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
  await pg.query(`CREATE DATABASE ${DATABASE}`);
  db = await Database.open(tempDir());
  for (const t of TABLES) await query(db, t);
  srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
});

test.after(async () => {
  await srv.close();
  await db.close();
  await pg.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
});

/** A value as JSON can hold it, with its JavaScript type: Date, Buffer, bigint and arrays keep theirs. */
function tagged(v: unknown): unknown {
  if (v === null || v === undefined) return v ?? null;
  if (v instanceof Date) return { Date: Number.isNaN(v.getTime()) ? 'Invalid' : v.toISOString() };
  if (Buffer.isBuffer(v)) return { Buffer: v.toString('hex') };
  if (typeof v === 'bigint') return { bigint: String(v) };
  if (Array.isArray(v)) return v.map(tagged);
  if (typeof v === 'object') return { object: JSON.stringify(v) };
  return { [typeof v]: v };
}

type Sql = postgres.Sql<Record<string, never>>;

/** The transcript of one server: one entry per step, a value or `{ error: SQLSTATE }`. */
async function transcript(port: number, database: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const sql: Sql = postgres({ host: '127.0.0.1', port, user: 'postgres', database, max: 1, onnotice: () => {} });
  const step = async (name: string, f: () => Promise<unknown>) => {
    try {
      out[name] = await f();
    } catch (e) {
      const err = e as { code?: string; message?: string };
      out[name] = { error: err.code ?? 'client', ...(err.code === undefined ? { message: err.message } : {}) };
    }
  };
  const rows = (r: readonly Record<string, unknown>[]) => r.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, tagged(v)])));
  try {
    await step('connect and select', async () => rows(await sql`select 1 as one, 'a' as a`));
    // Parameters: postgres.js sends strings, numbers and booleans untyped (the server infers), Date as timestamptz, Buffer as bytea.
    const params: [string, unknown, string][] = [
      ['int4', 42, 'int4'], ['int8', '9007199254740993', 'int8'], ['float8', 1.25, 'float8'], ['numeric', '12.30', 'numeric'], ['text', 'héllo', 'text'],
      ['bool', true, 'bool'], ['date', '2024-02-29', 'date'], ['timestamptz Date', new Date('2024-01-02T03:04:05.678Z'), 'timestamptz'],
      ['timestamp', '2024-01-02 03:04:05', 'timestamp'], ['bytea', Buffer.from([0, 255, 16]), 'bytea'], ['uuid', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'uuid'],
      ['jsonb', '{"a": [1, 2]}', 'jsonb'], ['null int4', null, 'int4'], ['int4[]', [1, 2, 3], 'int4[]'], ['text[]', ['a', 'b c', null], 'text[]'],
    ];
    for (const [name, v, type] of params) await step(`param ${name}`, async () => rows(await sql.unsafe(`select $1::${type} as v`, [v as never])));
    await step('param inferred from a column', async () => rows(await sql`select id, t from jm_all where id = ${1}`));
    await step('param in IN list', async () => rows(await sql`select id from jm_all where id in ${sql([1, 2])} order by id`));
    await step('every type', async () => rows(await sql`select * from jm_all order by id`));
    await step('arrays and json', async () => rows(await sql`select array[1, 2]::int4[] as a, array['x', null]::text[] as t, '{"k": [true, null]}'::jsonb as j, '[1, "2"]'::json as js`));
    await step('columns', async () => {
      const r = await sql`select a.id, a.n12, a.id + 1 as computed, v.label from jm_all a join jm_view v on v.id = a.id`;
      return r.columns.map((c) => ({ name: c.name, type: c.type, fromTable: c.table !== 0, number: c.number }));
    });
    await step('view', async () => rows(await sql`select * from jm_view order by id`));
    // RowDescription's table and column of each result column (PostgreSQL's resorigtbl/resorigcol), by table name.
    const origins = [
      'select * from jm_other', 'select label, id from jm_other o', 'select x.label from (select label from jm_other) x', 'select s.l from (select o.label as l, 1 as k from jm_other o) s',
      'select v.label, v.id from jm_view v', 'select a.i2, b.label from jm_all a join jm_other b on b.id = a.id', 'select label from jm_other group by label', 'select count(*) from jm_other',
      'select id, row_number() over () from jm_other', 'select id from jm_other union select id from jm_other', 'with w as (select id from jm_other) select id from w', 'select 1 as one',
      'select label || \'!\' as e, id + 0 as i from jm_other', 'select distinct label from jm_other', 'select o.* from jm_other o order by id limit 1',
    ];
    for (const q of origins)
      await step(`origin ${q}`, async () => {
        const r = await sql.unsafe(q);
        const names: (string | number)[] = [];
        for (const c of r.columns) names.push(c.table === 0 ? 0 : ((await sql`select relname from pg_class where oid = ${c.table}`)[0]?.['relname'] as string), c.number);
        return names;
      });
    await step('transaction committed', async () =>
      sql.begin(async (tx) => {
        await tx`insert into pj_log values (1, 'kept', '2024-01-01 00:00:00+00')`;
        return rows(await tx`select id, note from pj_log order by id`);
      }),
    );
    await step('transaction rolled back', async () =>
      sql.begin(async (tx) => {
        await tx`insert into pj_log values (2, 'gone', null)`;
        await tx`select 1/0`;
      }),
    );
    await step('after the transactions', async () => rows(await sql`select id, note from pj_log order by id`));
    await step('copy from stdin', async () => {
      const w = await sql`copy pj_log (id, note, at) from stdin`.writable();
      await pipeline(Readable.from(['3\tthree\t2024-03-03 03:03:03+00\n', '4\t\\N\t\\N\n']), w);
      return rows(await sql`select id, note, at from pj_log order by id`);
    });
    await step('copy to stdout', async () => {
      const r = await sql`copy (select id, note from pj_log order by id) to stdout`.readable();
      const chunks: Buffer[] = [];
      const collect = new Writable({
        write(chunk: Buffer, _encoding, done) {
          chunks.push(chunk);
          done();
        },
      });
      await pipeline(r, collect);
      return Buffer.concat(chunks).toString();
    });
    await step('undefined table', async () => rows(await sql`select * from no_such_table`));
    await step('syntax error', async () => rows(await sql.unsafe('selec 1')));
    await step('division by zero', async () => rows(await sql`select 1 / ${0}::int4 as x`));
    await step('invalid input', async () => rows(await sql`select ${'12x'}::int4 as x`));
    await step('after errors', async () => rows(await sql`select count(*)::int4 as n from jm_all`));
    await step('simple protocol', async () => rows(await sql.unsafe('select 1 as a; select 2 as b')));
  } finally {
    await sql.end({ timeout: 5 });
  }
  return out;
}

test('postgres.js with default options answers from paxd as from PostgreSQL 15', async () => {
  const setup = postgres({ host: '127.0.0.1', port: pg.port, user: 'postgres', database: DATABASE, max: 1, onnotice: () => {} });
  for (const t of TABLES) await setup.unsafe(t);
  await setup.end();
  const want = await transcript(pg.port, DATABASE);
  const got = await transcript(srv.port, 'paxd');
  assert.ok(Object.keys(want).length >= 30, 'every step ran');
  const problems = Object.keys(want).flatMap((k) => (JSON.stringify(got[k]) === JSON.stringify(want[k]) ? [] : [`${k}\n  paxd:       ${JSON.stringify(got[k])}\n  PostgreSQL: ${JSON.stringify(want[k])}`]));
  assert.equal(problems, []);
  // It did read arrays with the types fetched at connect, and errors carried PostgreSQL's SQLSTATEs.
  assert.equal(want['param int4[]'], [{ v: [{ number: 1 }, { number: 2 }, { number: 3 }] }]);
  assert.equal(want['undefined table'], { error: '42P01' });
});

test.run();

/**
 * The system and settings functions clients call (src/engine/functions/system.ts) through the
 * wire, against a real PostgreSQL 15 where the answers can agree: current_setting and
 * set_config read and write the session's parameters as SHOW and SET do (ROLLBACK undoes
 * them, is_local lasts until the end of the transaction, ParameterStatus reports them);
 * version() is PostgreSQL-15-shaped; pg_backend_pid() is the BackendKeyData pid; pg_dump's and
 * drivers' first queries answer. Each statement's SQLSTATE must be PostgreSQL's.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';

let db: Database;
let srv: RunningServer;
let postgres: Postgres;
let paxd: pg.Client;
let theirs: pg.Client;

const raw = { types: { getTypeParser: () => (v: string) => v } };

test.before(async () => {
  db = await Database.open(tempDir());
  srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
  postgres = await startPostgres();
  paxd = new pg.Client({ host: '127.0.0.1', port: srv.port, user: 'paxd', database: 'paxd', ...raw });
  theirs = new pg.Client({ host: postgres.socketDir, port: postgres.port, user: 'postgres', database: 'postgres', ...raw });
  await paxd.connect();
  await theirs.connect();
});

test.after(async () => {
  await paxd.end();
  await theirs.end();
  await srv.close();
  await db.close();
});

type Answer = { rows: unknown[][]; types: number[] } | { code: string };

async function ask(c: pg.Client, sql: string): Promise<Answer> {
  try {
    const r = await c.query({ text: sql, rowMode: 'array' });
    return { rows: r.rows as unknown[][], types: r.fields.map((f) => f.dataTypeID) };
  } catch (e) {
    return { code: (e as { code: string }).code };
  }
}

/** Statements both must answer alike (rows, column types, or SQLSTATE), in order, on one session each. */
const SAME: readonly string[] = [
  "SELECT current_setting('DateStyle'), current_setting('TimeZone'), current_setting('server_encoding'), current_setting('integer_datetimes')",
  "SELECT current_setting('standard_conforming_strings'), current_setting('client_encoding'), current_setting('IntervalStyle')",
  "SELECT current_setting('datestyle'), current_setting('TIMEZONE')",
  "SELECT current_setting('no_such_setting')",
  "SELECT current_setting('no_such_setting', true), current_setting('search_path', true)",
  "SELECT current_setting('search_path'), current_schema(), current_schema, current_schemas(false), current_schemas(true)",
  "SELECT current_setting(NULL), current_setting(NULL, true), current_setting('TimeZone', NULL)",
  "SELECT set_config('application_name', 'app1', false), current_setting('application_name')",
  "SHOW application_name",
  "SELECT set_config('search_path', '', false)",
  "SELECT current_schema(), current_schemas(false), current_schemas(true), current_setting('search_path')",
  "SELECT set_config('search_path', 'public', false), current_schema()",
  "SELECT set_config('TimeZone', 'Europe/Berlin', false), timestamptz '2024-07-01 12:00:00+00'",
  "SELECT set_config('TimeZone', 'UTC', false)",
  "SELECT set_config('TimeZone', 'No/Such_Zone', false)",
  "SELECT set_config('no_such_setting', '1', false)",
  "SELECT set_config('server_version', '1', false)",
  "SELECT set_config(NULL, '1', false)",
  "SELECT set_config('application_name', 'x', NULL)",
  'BEGIN',
  "SELECT set_config('application_name', 'in_tx', false)",
  'ROLLBACK',
  "SELECT current_setting('application_name')",
  'BEGIN',
  "SELECT set_config('application_name', 'local_one', true), current_setting('application_name')",
  'COMMIT',
  "SELECT current_setting('application_name')",
  "SELECT pg_typeof(1), pg_typeof(1.5), pg_typeof('a'), pg_typeof('a'::text), pg_typeof(NULL), pg_typeof(now()), pg_typeof(ARRAY[1, 2]), pg_typeof(1::int8 + 1)",
  "SELECT pg_typeof('x'::varchar(3)), pg_typeof('x'::char(3)), pg_typeof(1::numeric(5,2)), pg_typeof(true), pg_typeof(date '2024-01-01'), pg_typeof(interval '1 day')",
  'SELECT pg_typeof(1, 2)',
  'SELECT pg_typeof()',
  "SELECT version() LIKE 'PostgreSQL 15.%', split_part(version(), ' ', 1), split_part(split_part(version(), ' ', 2), '.', 1)",
  'SELECT current_setting(1)',
  'SELECT set_config(1, 2, 3)',
];

test('system functions answer as PostgreSQL 15', async () => {
  for (const sql of SAME) {
    const a = await ask(paxd, sql);
    const b = await ask(theirs, sql);
    if ('code' in b) {
      assert.equal(a, b, sql);
      continue;
    }
    assert.ok(!('code' in a), `${sql}: paxd failed with ${JSON.stringify(a)}`);
    if ('code' in a) continue;
    assert.equal(a.rows, b.rows, sql);
    assert.equal(a.types, b.types, `${sql}: column types`);
  }
});

test('version() names paxd in a PostgreSQL-15-shaped string drivers parse', async () => {
  const r = await paxd.query('SELECT version() AS v');
  const v = (r.rows[0] as { v: string }).v;
  assert.match(v, /^PostgreSQL 15\.\d+ \(paxd\) on [\w-]+, compiled by Node\.js v\d+\.\d+\.\d+, 64-bit$/);
  // pgjdbc and SQLAlchemy read the version from this pattern.
  assert.is(/PostgreSQL (\d+)\.(\d+)/.exec(v)?.slice(1).join('.'), '15.0');
});

test("pg_backend_pid() is the session's BackendKeyData pid; current_user, session_user and current_database name the session", async () => {
  const r = await paxd.query({ text: 'SELECT pg_backend_pid(), current_user, session_user, user, current_database(), current_catalog', rowMode: 'array' });
  const pid = (paxd as unknown as { processID: number }).processID;
  assert.equal(r.rows[0], [String(pid), 'paxd', 'paxd', 'paxd', 'paxd', 'paxd']);
  const other = new pg.Client({ host: '127.0.0.1', port: srv.port, user: 'paxd', database: 'paxd', ...raw });
  await other.connect();
  const r2 = await other.query({ text: 'SELECT pg_backend_pid()', rowMode: 'array' });
  assert.is.not(r2.rows[0]![0], r.rows[0]![0]);
  await other.end();
});

test('set_config reports a reported parameter to the client (ParameterStatus) as SET does', async () => {
  const c = new pg.Client({ host: '127.0.0.1', port: srv.port, user: 'paxd', database: 'paxd', ...raw });
  const seen: string[] = [];
  await c.connect();
  (c as unknown as { connection: { on(e: string, f: (m: { parameterName: string; parameterValue: string }) => void): void } }).connection.on('parameterStatus', (m) => seen.push(`${m.parameterName}=${m.parameterValue}`));
  await c.query("SELECT set_config('application_name', 'reported', false)");
  await c.query("SELECT set_config('TimeZone', 'Asia/Kolkata', false)");
  assert.ok(seen.includes('application_name=reported'), seen.join(' '));
  assert.ok(seen.includes('TimeZone=Asia/Kolkata'), seen.join(' '));
  // The next statement runs in the new zone.
  const r = await c.query({ text: "SELECT timestamptz '2024-07-01 12:00:00+00'", rowMode: 'array' });
  assert.is(r.rows[0]![0], '2024-07-01 17:30:00+05:30');
  await c.end();
});

test('set_config(…, true) outside a transaction block is 0A000 (PostgreSQL keeps it for the statement) and changes nothing', async () => {
  const before = await ask(paxd, "SELECT current_setting('application_name')");
  assert.equal(await ask(paxd, "SELECT set_config('application_name', 'local_outside', true)"), { code: '0A000' });
  assert.equal(await ask(paxd, "SELECT current_setting('application_name')"), before);
});

test("a prepared current_setting reads the setting at each execution, not at its Parse", async () => {
  const q = { name: 'cs', text: "SELECT current_setting('application_name')", rowMode: 'array' as const };
  await paxd.query("SET application_name = 'first'");
  assert.equal((await paxd.query(q)).rows, [['first']]);
  await paxd.query("SET application_name = 'second'");
  assert.equal((await paxd.query(q)).rows, [['second']]);
});

test("pg_dump's opening set_config calls answer", async () => {
  for (const sql of ["SELECT set_config('search_path', '', false)", "SELECT pg_catalog.set_config('search_path', '', false)"]) {
    const a = await ask(paxd, sql);
    assert.equal(a, { rows: [['']], types: [25] }, sql);
  }
  assert.equal(await ask(paxd, 'SELECT current_schema()'), { rows: [[null]], types: [19] });
  await paxd.query("SELECT set_config('search_path', 'public', false)");
});

test('embedded, without a session, the settings functions are 0A000', async () => {
  const { query } = await import('../../src/engine/index.js');
  for (const sql of ["SELECT current_setting('TimeZone')", "SELECT set_config('a', 'b', false)", 'SELECT current_schema()', 'SELECT pg_backend_pid()']) {
    const code = await query(db, sql).then(() => 'ok', (e: { code: string }) => e.code);
    assert.is(code, '0A000', sql);
  }
});

test.run();

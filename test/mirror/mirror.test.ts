/**
 * `paxd mirror` (docs/MIRROR.md) against a real PostgreSQL 15: the DDL it computes (types, NOT NULL,
 * COLLATE "C", server and mapping options), idempotence, sync when paxd tables are created,
 * altered and dropped, clear errors (unreachable PostgreSQL, a name clash, no permission to
 * create the extension), a non-superuser role whose mapping authenticates to paxd with
 * SCRAM-SHA-256, the CLI command (--dry-run masks the password) and the daemon's `mirror`
 * setting that keeps it in sync.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:net';
import { query } from '../../src/engine/index.js';
import { runMirror, planFromNothing, mirrorOptions, type MirrorOptions } from '../../src/mirror/index.js';
import { startServer, scramVerifier, type RunningServer } from '../../src/pgwire/index.js';
import { buildProgram } from '../../src/cli/main.js';
import { Daemon, loadConfig, createLogger, printableConfig } from '../../src/daemon/index.js';
import { PaxdError } from '../../src/types/index.js';
import { Database } from '../../src/table/database.js';
import { tempDir } from '../support/tmp.js';
import { closeWorld, world, DATABASE, type World } from './setup.js';

let w: World;
const servers: RunningServer[] = [];

test.before(async () => {
  w = await world();
});

test.after(async () => {
  for (const s of servers) await s.close();
  await closeWorld();
});

/** Options over the defaults; `password: undefined` removes the default password. */
function opts(o: Omit<Parameters<typeof mirrorOptions>[0], 'pg'> & { pg?: string }): MirrorOptions {
  return mirrorOptions({ pg: w.url, host: '127.0.0.1', port: w.srv.port, password: 'unused', ...o });
}

async function sql(text: string, user = 'postgres'): Promise<string[][]> {
  const c = await w.connect(user);
  try {
    const r = await c.query({ text, rowMode: 'array' });
    return (Array.isArray(r) ? r[r.length - 1] : r).rows as string[][];
  } finally {
    await c.end();
  }
}

/** `name type [COLLATE x] [NOT NULL]` of every column of a foreign table, from PostgreSQL's catalog. */
async function columnsOf(schema: string, table: string): Promise<string[]> {
  const rows = await sql(`
    SELECT a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
           || CASE WHEN a.attcollation = 0 THEN '' ELSE ' COLLATE ' || co.collname END
           || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_collation co ON co.oid = a.attcollation
     WHERE n.nspname = '${schema}' AND c.relname = '${table}' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`);
  return rows.map((r) => r[0]!);
}

async function foreignTables(schema: string): Promise<string[]> {
  return (await sql(`SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '${schema}' AND c.relkind = 'f' ORDER BY 1`)).map((r) => r[0]!);
}

const T_TYPES_COLUMNS = [
  'id integer NOT NULL',
  'c_int2 smallint',
  'c_int4 integer',
  'c_int8 bigint',
  'c_float4 real',
  'c_float8 double precision',
  'c_num122 numeric(12,2)',
  'c_num numeric',
  'c_text text COLLATE C',
  'c_varchar character varying(20) COLLATE C',
  'c_bpchar character(5) COLLATE C',
  'c_bool boolean',
  'c_date date',
  'c_ts timestamp without time zone',
  'c_tstz timestamp with time zone',
  'c_bytea bytea',
  'c_uuid uuid',
  'c_jsonb jsonb',
];

test('dry run without PostgreSQL: the whole script, every type named as PostgreSQL names it, the password masked', async () => {
  const r = await planFromNothing(w.db, opts({ pg: '', password: 'top-secret', schema: 'paxd', server: 'pax', port: 7433, fetchSize: 5000 }));
  const shown = r.steps.map((s) => s.display);
  assert.equal(shown.slice(0, 4), [
    'CREATE EXTENSION IF NOT EXISTS postgres_fdw',
    'CREATE SCHEMA IF NOT EXISTS paxd',
    "CREATE SERVER pax FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '7433', dbname 'paxd', fetch_size '5000', use_remote_estimate 'true')",
    "CREATE USER MAPPING FOR CURRENT_USER SERVER pax OPTIONS (user 'paxd', password '********')",
  ]);
  assert.ok(!shown.join('\n').includes('top-secret'));
  assert.ok(r.steps[3]!.sql.includes("password 'top-secret'"));
  assert.equal(r.created, ['t_customers', 't_orders', 't_types']);
  assert.is(
    shown[4],
    "CREATE FOREIGN TABLE paxd.t_customers (id integer NOT NULL, name text COLLATE \"C\" NOT NULL, region text COLLATE \"C\") SERVER pax OPTIONS (schema_name 'public', table_name 't_customers')",
  );
  assert.ok(shown[6]!.includes('c_bpchar character(5) COLLATE "C", c_bool boolean, c_date date, c_ts timestamp without time zone, c_tstz timestamp with time zone'));
});

test('mirror creates the extension, server, mapping and one foreign table per paxd table; a second run changes nothing', async () => {
  const o = opts({ schema: 'm1', server: 'paxd_m1' });
  const r = await runMirror(w.db, o);
  assert.equal(r.created, ['t_customers', 't_orders', 't_types']);
  assert.equal(r.steps.map((s) => s.kind), ['extension', 'schema', 'server', 'mapping', 'create', 'create', 'create']);
  assert.equal(await foreignTables('m1'), ['t_customers', 't_orders', 't_types']);
  assert.equal(await columnsOf('m1', 't_types'), T_TYPES_COLUMNS);
  assert.equal(await sql(`SELECT srvoptions::text FROM pg_foreign_server WHERE srvname = 'paxd_m1'`), [
    [`{host=127.0.0.1,port=${w.srv.port},dbname=paxd,fetch_size=10000,use_remote_estimate=true}`],
  ]);
  assert.equal(await sql(`SELECT ftoptions::text FROM pg_foreign_table WHERE ftrelid = 'm1.t_orders'::regclass`), [['{schema_name=public,table_name=t_orders}']]);
  assert.equal(await sql('SELECT count(*), sum(amount) FROM m1.t_orders'), await sql('SELECT count(*), sum(amount) FROM h.t_orders'));
  const again = await runMirror(w.db, o);
  assert.equal(again.steps, []);
  assert.equal(again.unchanged, ['t_customers', 't_orders', 't_types']);
  assert.equal((await runMirror(w.db, o, { dryRun: true })).steps, []);
});

test('mirror follows paxd: new tables created, added columns added, changed columns altered, dropped tables dropped, options updated', async () => {
  const o = opts({ schema: 'm2', server: 'paxd_m2' });
  await runMirror(w.db, o);
  await query(w.db, 'CREATE TABLE m2_new (a int8 NOT NULL, b text)');
  await query(w.db, 'CREATE TABLE m2_gone (x int4)');
  let r = await runMirror(w.db, o);
  assert.equal(r.created, ['m2_gone', 'm2_new']);
  await query(w.db, 'ALTER TABLE m2_new ADD COLUMN c numeric(10,3)');
  await query(w.db, 'DROP TABLE m2_gone');
  r = await runMirror(w.db, o);
  assert.equal(r.altered, ['m2_new']);
  assert.equal(r.dropped, ['m2_gone']);
  assert.equal(r.steps.map((s) => s.display), ['ALTER FOREIGN TABLE m2.m2_new ADD COLUMN c numeric(10,3)', 'DROP FOREIGN TABLE m2.m2_gone']);
  assert.equal(await columnsOf('m2', 'm2_new'), ['a bigint NOT NULL', 'b text COLLATE C', 'c numeric(10,3)']);
  // Dropped and created again with other columns: one ALTER that drops, adds and retypes.
  await query(w.db, 'DROP TABLE m2_new');
  await query(w.db, 'CREATE TABLE m2_new (a int4, b varchar(7) NOT NULL, d date)');
  r = await runMirror(w.db, o);
  assert.equal(r.steps.map((s) => s.display), [
    'ALTER FOREIGN TABLE m2.m2_new DROP COLUMN c, ALTER COLUMN a TYPE integer, ALTER COLUMN a DROP NOT NULL, ALTER COLUMN b TYPE character varying(7) COLLATE "C", ALTER COLUMN b SET NOT NULL, ADD COLUMN d date',
  ]);
  assert.equal(await columnsOf('m2', 'm2_new'), ['a integer', 'b character varying(7) COLLATE C NOT NULL', 'd date']);
  await query(w.db, "INSERT INTO m2_new VALUES (1, 'x', '2024-05-06')");
  assert.equal(await sql('SELECT * FROM m2.m2_new'), [['1', 'x', '2024-05-06']]);
  // Server options: only the one that changed.
  r = await runMirror(w.db, { ...o, fetchSize: 100 });
  assert.equal(r.steps.map((s) => s.display), ["ALTER SERVER paxd_m2 OPTIONS (SET fetch_size '100')"]);
  r = await runMirror(w.db, { ...o, fetchSize: 100, password: 'changed' });
  assert.equal(r.steps.map((s) => s.display), ["ALTER USER MAPPING FOR CURRENT_USER SERVER paxd_m2 OPTIONS (SET password '********')"]);
  await query(w.db, 'DROP TABLE m2_new');
  r = await runMirror(w.db, o);
  assert.equal(r.dropped, ['m2_new']);
});

test('user mappings for PUBLIC and for a named role are created once, then left alone', async () => {
  await sql('CREATE ROLE fdw_reader');
  const named = opts({ schema: 'm4', server: 'paxd_m4', forRole: 'fdw_reader' });
  let r = await runMirror(w.db, named);
  assert.ok(r.steps.some((s) => s.display === "CREATE USER MAPPING FOR fdw_reader SERVER paxd_m4 OPTIONS (user 'paxd', password '********')"));
  assert.equal((await runMirror(w.db, named)).steps, []);
  const pub = opts({ schema: 'm5', server: 'paxd_m5', forRole: 'PUBLIC' });
  r = await runMirror(w.db, pub);
  assert.ok(r.steps.some((s) => s.display === "CREATE USER MAPPING FOR PUBLIC SERVER paxd_m5 OPTIONS (user 'paxd', password '********')"));
  assert.equal((await runMirror(w.db, pub)).steps, []);
  assert.equal(await sql(`SELECT srvname, usename FROM pg_user_mappings WHERE srvname IN ('paxd_m4', 'paxd_m5') ORDER BY 1`), [
    ['paxd_m4', 'fdw_reader'],
    ['paxd_m5', 'public'],
  ]);
});

test('a relation of the same name that is not our foreign table is an error naming it and the fix; nothing is changed', async () => {
  const o = opts({ schema: 'm3', server: 'paxd_m3' });
  await sql('CREATE SCHEMA m3; CREATE TABLE m3.t_orders (x int)');
  try {
    await runMirror(w.db, o);
    assert.unreachable('a clash');
  } catch (e) {
    assert.instance(e, PaxdError);
    assert.is((e as PaxdError).code, '42P07');
    assert.match((e as Error).message, 'relation "m3.t_orders" already exists in PostgreSQL as a table');
    assert.match((e as Error).message, '--schema');
  }
  // All or nothing: the server was not created either.
  assert.equal(await sql(`SELECT count(*) FROM pg_foreign_server WHERE srvname = 'paxd_m3'`), [['0']]);
});

test('an unreachable PostgreSQL is 08001 naming the address (password masked)', async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  try {
    await runMirror(w.db, opts({ pg: `postgres://someone:hunter2@127.0.0.1:${port}/db` }));
    assert.unreachable('no PostgreSQL there');
  } catch (e) {
    assert.is((e as PaxdError).code, '08001');
    assert.match((e as Error).message, `postgres://someone:********@127.0.0.1:${port}/db`);
    assert.not.match((e as Error).message, 'hunter2');
  }
});

test('a non-superuser role: no permission to create the extension is 42501 naming the fix; with it granted, its mapping authenticates to paxd with SCRAM', async () => {
  const scram = await startServer({ db: w.db, port: 0, host: '127.0.0.1', auth: { method: 'scram-sha-256', users: { alice: scramVerifier('s3cret pw') } } });
  servers.push(scram);
  await w.pg.query(`CREATE ROLE fdw_user LOGIN; CREATE DATABASE paxd_noext OWNER fdw_user`);
  const noext = `postgres://fdw_user@${w.pg.host}:${w.pg.port}/paxd_noext`;
  try {
    await runMirror(w.db, opts({ pg: noext, port: scram.port, user: 'alice', password: 's3cret pw' }));
    assert.unreachable('a non-superuser cannot create postgres_fdw');
  } catch (e) {
    assert.is((e as PaxdError).code, '42501');
    assert.match((e as Error).message, 'CREATE EXTENSION postgres_fdw');
    assert.match((e as Error).message, 'GRANT USAGE ON FOREIGN DATA WRAPPER postgres_fdw');
  }
  // A superuser installs the extension and grants its use: the role mirrors by itself.
  await sql(`CREATE EXTENSION IF NOT EXISTS postgres_fdw; GRANT USAGE ON FOREIGN DATA WRAPPER postgres_fdw TO fdw_user; GRANT CREATE ON DATABASE ${DATABASE} TO fdw_user`);
  const url = `postgres://fdw_user@${w.pg.host}:${w.pg.port}/${DATABASE}`;
  const r = await runMirror(w.db, opts({ pg: url, schema: 'su', server: 'paxd_scram', port: scram.port, user: 'alice', password: 's3cret pw' }));
  assert.equal(r.created, ['t_customers', 't_orders', 't_types']);
  assert.equal(await sql('SELECT count(*), min(name), max(region) FROM su.t_customers', 'fdw_user'), [['200', 'cust1', 'west']]);
  // Without a password postgres_fdw refuses the non-superuser (the reason the mirror sets one).
  await runMirror(w.db, opts({ pg: url, schema: 'su2', server: 'paxd_nopw', port: scram.port, user: 'alice', password: undefined }));
  try {
    await sql('SELECT count(*) FROM su2.t_customers', 'fdw_user');
    assert.unreachable('no password in the mapping');
  } catch (e) {
    assert.is((e as { code: string }).code, '2F003');
  }
  // A wrong password is paxd's 28P01, passed through.
  await runMirror(w.db, opts({ pg: url, schema: 'su', server: 'paxd_scram', port: scram.port, user: 'alice', password: 'wrong' }));
  try {
    await sql('SELECT count(*) FROM su.t_customers', 'fdw_user');
    assert.unreachable('wrong password');
  } catch (e) {
    const err = e as { code: string; message: string; detail?: string };
    assert.is(err.code, '08001');
    assert.match(err.message, 'could not connect to server "paxd_scram"');
    assert.match(err.detail ?? '', 'password authentication failed for user "alice"');
  }
});

test('paxd mirror (CLI): --dry-run prints the SQL with the password masked; a run reports what it did; a second run changes nothing', async () => {
  const dir = tempDir();
  const db = await Database.open(dir);
  await query(db, 'CREATE TABLE cli_t (id int8 NOT NULL, "Name" text)');
  await db.close();
  const run = async (...args: string[]) => {
    let text = '';
    await (await buildProgram(['mirror'], (s) => (text += s))).parseAsync(['mirror', '--data', dir, ...args], { from: 'user' });
    return text;
  };
  const dry = await run('--dry-run', '--password', 'pw-secret', '--port', '7555', '--fetch-size', '250', '--no-use-remote-estimate');
  assert.not.match(dry, 'pw-secret');
  assert.match(dry, "CREATE SERVER paxd FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '7555', dbname 'paxd', fetch_size '250', use_remote_estimate 'false');\n");
  assert.match(dry, "CREATE USER MAPPING FOR CURRENT_USER SERVER paxd OPTIONS (user 'paxd', password '********');\n");
  assert.match(dry, `CREATE FOREIGN TABLE public.cli_t (id bigint NOT NULL, "Name" text COLLATE "C") SERVER paxd OPTIONS (schema_name 'public', table_name 'cli_t');\n`);
  const flags = ['--pg', w.url, '--schema', 'cli', '--server', 'paxd_cli', '--port', String(w.srv.port)];
  process.env.PAXD_MIRROR_PASSWORD = 'env-secret';
  try {
    const dryPg = await run(...flags, '--dry-run');
    assert.match(dryPg, 'CREATE SCHEMA IF NOT EXISTS cli;\n');
    assert.not.match(dryPg, 'CREATE EXTENSION'); // already there
    assert.not.match(dryPg, 'env-secret');
    assert.match(await run(...flags), `mirrored 1 table(s) to server paxd_cli, schema cli in ${w.url}: 1 created, 0 altered, 0 dropped, 0 unchanged\n`);
    assert.equal(await sql(`SELECT umoptions::text FROM pg_user_mappings WHERE srvname = 'paxd_cli'`), [['{user=paxd,password=env-secret}']]);
    assert.match(await run(...flags), '0 created, 0 altered, 0 dropped, 1 unchanged');
    assert.is(await run(...flags, '--dry-run'), '-- nothing to do: PostgreSQL already mirrors every table\n');
  } finally {
    delete process.env.PAXD_MIRROR_PASSWORD;
  }
  try {
    await run();
    assert.unreachable('no --pg');
  } catch (e) {
    assert.match((e as Error).message, '--pg');
  }
});

async function until(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('paxd serve with a mirror setting: mirrored at start, kept in sync as tables are created, altered and dropped', async () => {
  const dir = tempDir();
  const db = await Database.open(dir);
  await query(db, 'CREATE TABLE d_one (id int4 NOT NULL)');
  await query(db, 'INSERT INTO d_one VALUES (1), (2), (3)');
  await db.close();
  const config = loadConfig({
    env: {},
    flags: {
      store: dir,
      listen: '127.0.0.1:0',
      http: 'off',
      auth_method: 'trust',
      mirror: w.url,
      mirror_schema: 'dm',
      mirror_server: 'paxd_daemon',
      mirror_password: 'daemon-secret',
      mirror_interval_ms: '100',
      compact_interval_ms: '0',
      vacuum_interval_ms: '0',
    },
  });
  const printed = printableConfig({ ...config, mirror: 'postgres://u:pw-in-url@h/db' });
  assert.not.match(printed, 'daemon-secret');
  assert.not.match(printed, 'pw-in-url');
  assert.match(printed, '"mirror": "postgres://u:********@h/db"');
  const d = await Daemon.start(config, { log: createLogger('silent'), out: () => undefined });
  try {
    await until('d_one mirrored', async () => (await foreignTables('dm')).includes('d_one'));
    assert.equal(await sql('SELECT sum(id) FROM dm.d_one'), [['6']]);
    assert.equal(await sql(`SELECT srvoptions::text FROM pg_foreign_server WHERE srvname = 'paxd_daemon'`), [
      [`{host=127.0.0.1,port=${d.wire!.port},dbname=paxd,fetch_size=10000,use_remote_estimate=true}`],
    ]);
    await query(d.db, 'CREATE TABLE d_two (a text NOT NULL)');
    await until('d_two mirrored', async () => (await foreignTables('dm')).includes('d_two'));
    await query(d.db, 'ALTER TABLE d_two ADD COLUMN b float8');
    await until('d_two altered', async () => (await columnsOf('dm', 'd_two')).length === 2);
    assert.equal(await columnsOf('dm', 'd_two'), ['a text COLLATE C NOT NULL', 'b double precision']);
    await query(d.db, 'DROP TABLE d_one');
    await until('d_one dropped', async () => !(await foreignTables('dm')).includes('d_one'));
    // The sync's DROP is visible in PostgreSQL a moment before the sync reports back and sets its gauges.
    await until('the mirror gauge counts one table', async () => /paxd_mirror_tables 1\n/.test(await d.metrics.render()));
    assert.match(await d.metrics.render(), /paxd_mirror_syncs_total\{status="ok"\} [1-9]/);
    // The engine's scan counters are on /metrics too: a count(*) through the mirror is answered from statistics.
    const answered = () => d.metrics.render().then((m) => Number(/paxd_scan_row_groups_total\{outcome="answered_from_statistics"\} (\d+)/.exec(m)![1]));
    const before = await answered();
    assert.equal(await sql('SELECT count(*) FROM dm.d_two'), [['0']]);
    await query(d.db, "INSERT INTO d_two VALUES ('x', 1)");
    assert.equal(await sql('SELECT count(*) FROM dm.d_two'), [['1']]);
    assert.ok((await answered()) > before, 'groups answered from statistics grew');
  } finally {
    await d.stop('fast');
    await d.db.close();
  }
});

test.run();

/**
 * IMPORT FOREIGN SCHEMA against paxd (postgresImportForeignSchema in contrib/postgres_fdw/postgres_fdw.c): paxd
 * answers postgres_fdw's catalog queries — the namespace probe and the column query with its
 * LIMIT TO / EXCEPT / import_collate / import_default variants — so an import declares the
 * same foreign tables `paxd mirror` does.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { runMirror, mirrorOptions } from '../../src/mirror/index.js';
import { onParse } from '../../src/engine/index.js';
import { closeWorld, world, type World } from './setup.js';

let w: World;

test.before(async () => {
  w = await world();
  // The server and user mapping (and a mirror to compare imports with) in schema mirrored.
  await runMirror(w.db, mirrorOptions({ pg: w.url, schema: 'mirrored', server: 'paxd_imp', port: w.srv.port, password: 'unused' }));
  await w.db.createTable('imp_defaults', [
    { name: 'id', type: 'int4', notNull: true },
    { name: 's', type: 'text', default: "it's" },
    { name: 'n', type: 'numeric(5,1)', default: '1.5' },
  ]);
});

test.after(async () => {
  await closeWorld();
});

async function sql(text: string): Promise<string[][]> {
  const c = await w.connect();
  try {
    const r = await c.query({ text, rowMode: 'array' });
    return (Array.isArray(r) ? r[r.length - 1] : r).rows as string[][];
  } finally {
    await c.end();
  }
}

/** Every column of every foreign table of a schema: `table.column type [COLLATE c] [NOT NULL] [DEFAULT e]`. */
async function schemaColumns(schema: string): Promise<string[]> {
  return (
    await sql(`
    SELECT c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
           || CASE WHEN a.attcollation = 0 THEN '' ELSE ' COLLATE ' || co.collname END
           || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
           || COALESCE(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_collation co ON co.oid = a.attcollation
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE n.nspname = '${schema}' AND c.relkind = 'f' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY c.relname, a.attnum`)
  ).map((r) => r[0]!);
}

test('IMPORT FOREIGN SCHEMA public declares what paxd mirror declares, and the imported tables answer', async () => {
  await sql('CREATE SCHEMA imp_all; IMPORT FOREIGN SCHEMA public FROM SERVER paxd_imp INTO imp_all');
  const imported = await schemaColumns('imp_all');
  const mirrored = await schemaColumns('mirrored');
  assert.equal(imported.filter((c) => !c.startsWith('imp_defaults.')), mirrored);
  assert.ok(imported.includes('t_types.c_bpchar character(5) COLLATE C'));
  assert.ok(imported.includes('t_customers.name text COLLATE C NOT NULL'));
  assert.equal(await sql('SELECT count(*), sum(amount) FROM imp_all.t_orders'), await sql('SELECT count(*), sum(amount) FROM h.t_orders'));
  assert.equal(await sql("SELECT id FROM imp_all.t_types WHERE c_text = 'text 5 foo'"), [['5']]);
});

test("IMPORT FOREIGN SCHEMA: paxd parses each query text postgres_fdw sends once, its catalog query included", async () => {
  const parsed: string[] = [];
  onParse((text) => parsed.push(text));
  try {
    await sql('CREATE SCHEMA imp_once; IMPORT FOREIGN SCHEMA public LIMIT TO (t_orders) FROM SERVER paxd_imp INTO imp_once');
  } finally {
    onParse(null);
  }
  const catalog = parsed.filter((t) => /pg_attribute/.test(t));
  assert.is(catalog.length, 1, `the column query parsed ${catalog.length} times`);
  assert.equal(parsed.filter((t, i) => parsed.indexOf(t) !== i), [], 'a text parsed twice');
  assert.equal(await sql(`SELECT relname FROM pg_class WHERE relnamespace = 'imp_once'::regnamespace`), [['t_orders']]);
});

test('LIMIT TO and EXCEPT import the named tables only', async () => {
  await sql('CREATE SCHEMA imp_limit; IMPORT FOREIGN SCHEMA public LIMIT TO (t_orders, no_such_table) FROM SERVER paxd_imp INTO imp_limit');
  assert.equal(await sql(`SELECT relname FROM pg_class WHERE relnamespace = 'imp_limit'::regnamespace ORDER BY 1`), [['t_orders']]);
  await sql('CREATE SCHEMA imp_except; IMPORT FOREIGN SCHEMA public EXCEPT (t_orders, t_types, imp_defaults) FROM SERVER paxd_imp INTO imp_except');
  assert.equal(await sql(`SELECT relname FROM pg_class WHERE relnamespace = 'imp_except'::regnamespace ORDER BY 1`), [['t_customers']]);
});

test("import_collate 'false' leaves string columns at the default collation; import_default 'true' takes paxd's defaults", async () => {
  await sql(`CREATE SCHEMA imp_nocoll; IMPORT FOREIGN SCHEMA public LIMIT TO (t_customers) FROM SERVER paxd_imp INTO imp_nocoll OPTIONS (import_collate 'false')`);
  assert.equal(await schemaColumns('imp_nocoll'), ['t_customers.id integer NOT NULL', 't_customers.name text COLLATE default NOT NULL', 't_customers.region text COLLATE default']);
  await sql(`CREATE SCHEMA imp_def; IMPORT FOREIGN SCHEMA public LIMIT TO (imp_defaults) FROM SERVER paxd_imp INTO imp_def OPTIONS (import_default 'true')`);
  assert.equal(await schemaColumns('imp_def'), [
    'imp_defaults.id integer NOT NULL',
    "imp_defaults.s text COLLATE C DEFAULT 'it''s'::text",
    // pg_get_expr prints a numeric default bare, as PostgreSQL 15 does for a heap table's.
    'imp_defaults.n numeric(5,1) DEFAULT 1.5',
  ]);
});

test('a schema paxd does not have is HV00Q, as from PostgreSQL', async () => {
  try {
    await sql('CREATE SCHEMA imp_none; IMPORT FOREIGN SCHEMA no_such_schema FROM SERVER paxd_imp INTO imp_none');
    assert.unreachable('no such schema');
  } catch (e) {
    assert.is((e as { code: string }).code, 'HV00Q');
    assert.match((e as Error).message, 'schema "no_such_schema" is not present on foreign server "paxd_imp"');
  }
});

test('the catalog queries over the wire, as any client sends them', async () => {
  const c = new pg.Client({ host: '127.0.0.1', port: w.srv.port, user: 'paxd', database: 'paxd' });
  await c.connect();
  try {
    const q = async (text: string) => (await c.query({ text, rowMode: 'array' })).rows;
    assert.equal(await q("select 1 from pg_catalog.pg_namespace where nspname='public'"), [[1]]);
    assert.equal(await q("SELECT 1 FROM pg_namespace WHERE nspname = 'imp'"), []);
    const cols = await q(`SELECT relname, attname, format_type(atttypid, atttypmod), attnotnull, pg_get_expr(adbin, adrelid), attgenerated, collname, collnsp.nspname
      FROM pg_class c JOIN pg_namespace n ON relnamespace = n.oid LEFT JOIN pg_attribute a ON attrelid = c.oid AND attnum > 0 AND NOT attisdropped
      LEFT JOIN pg_attrdef ad ON adrelid = c.oid AND adnum = attnum LEFT JOIN pg_collation coll ON coll.oid = attcollation
      LEFT JOIN pg_namespace collnsp ON collnsp.oid = collnamespace
      WHERE c.relkind IN ('r','v','f','m','p') AND n.nspname = 'public' AND c.relname IN ('t_customers') ORDER BY c.relname, a.attnum`);
    assert.equal(cols, [
      ['t_customers', 'id', 'integer', true, null, '', null, null],
      ['t_customers', 'name', 'text', true, null, '', 'C', 'pg_catalog'],
      ['t_customers', 'region', 'text', false, null, '', 'C', 'pg_catalog'],
    ]);
    // Anything else still goes to the engine.
    assert.equal(await q('SELECT count(*) FROM t_customers'), [['200']]);
  } finally {
    await c.end();
  }
});

test.run();

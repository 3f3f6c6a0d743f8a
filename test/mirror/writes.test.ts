/**
 * Writes through paxd's foreign tables (docs/MIRROR.md): INSERT (with and without
 * batch_size), UPDATE, DELETE (pushed down, and by ctid), RETURNING, TRUNCATE and
 * transaction blocks leave paxd's table with exactly the rows the same statements leave in a
 * heap copy, and report the same affected-row counts. The cases are data:
 * fixtures/fdw/writes.sql.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { query } from '../../src/engine/index.js';
import { runMirror, mirrorOptions } from '../../src/mirror/index.js';
import { closeWorld, world, FIXTURES, type World } from './setup.js';
import { compareRows } from './queries.js';

let w: World;
let fc: pg.Client;
let hc: pg.Client;

const DDL = 'CREATE TABLE t_write (id int4 NOT NULL, v text, n numeric(12,2), ts timestamptz)';
/** The 12 rows every case starts from. */
const START = `INSERT INTO t_write SELECT g, 'v' || g, g * 1.5, '2024-01-02 00:00:00+00'::timestamptz + g * interval '1 day' FROM generate_series(1, 12) g`;

interface WriteCase {
  readonly name: string;
  readonly options: readonly string[];
  readonly statements: readonly string[];
}

function readCases(): WriteCase[] {
  const out: { name: string; options: string[]; statements: string[] }[] = [];
  let buf = '';
  for (const line of readFileSync(join(FIXTURES, 'writes.sql'), 'utf8').split('\n')) {
    const c = /^-- case: (.*)$/.exec(line);
    const o = /^-- option: (.*)$/.exec(line);
    if (c !== null) out.push({ name: c[1]!, options: [], statements: [] });
    else if (o !== null) out[out.length - 1]!.options.push(o[1]!);
    else if (line.startsWith('--') || (line.trim() === '' && buf === '')) continue;
    else {
      buf += (buf === '' ? '' : '\n') + line;
      if (line.trimEnd().endsWith(';')) {
        out[out.length - 1]!.statements.push(buf.trim().replace(/;$/, ''));
        buf = '';
      }
    }
  }
  return out;
}

test.before(async () => {
  w = await world();
  await query(w.db, DDL);
  await runMirror(w.db, mirrorOptions({ pg: w.url, schema: 'fw', server: 'paxd_w', port: w.srv.port, password: 'unused' }));
  fc = await w.connect();
  hc = await w.connect();
  await hc.query(`SET search_path = h, l; ${DDL}`);
  await fc.query('SET search_path = fw, l');
});

test.after(async () => {
  await fc.end();
  await hc.end();
  await closeWorld();
});

type Row = (string | null)[];

/** Both tables back to the 12 starting rows (paxd through its own engine, not the foreign table). */
async function reset(): Promise<void> {
  await query(w.db, 'DELETE FROM t_write');
  const rows = (await hc.query({ text: `DELETE FROM t_write; ${START}; SELECT * FROM t_write`, rowMode: 'array' })) as unknown as pg.QueryResult[];
  const values = (rows[2]!.rows as Row[]).map((r) => `(${r.map((v) => (v === null ? 'NULL' : `'${v.replace(/'/g, "''")}'`)).join(', ')})`);
  await query(w.db, `INSERT INTO t_write VALUES ${values.join(', ')}`);
}

async function contents(c: pg.Client): Promise<Row[]> {
  return (await c.query({ text: 'SELECT * FROM t_write', rowMode: 'array' })).rows as Row[];
}

interface Outcome {
  readonly rowCount: number | null;
  readonly rows: Row[];
}

async function run(c: pg.Client, sql: string): Promise<Outcome> {
  const r = await c.query({ text: sql, rowMode: 'array' });
  return { rowCount: r.rowCount, rows: r.rows as Row[] };
}

for (const k of readCases()) {
  test(`writes: ${k.name}`, async () => {
    await reset();
    for (const o of k.options) await fc.query(`ALTER FOREIGN TABLE t_write OPTIONS (ADD ${o})`);
    try {
      for (const sql of k.statements) {
        const h = await run(hc, sql);
        let f: Outcome;
        try {
          f = await run(fc, sql);
        } catch (e) {
          throw new Error(`through the foreign table, ${JSON.stringify(sql.slice(0, 80))} failed: ${(e as { code?: string }).code} ${(e as Error).message}`);
        }
        assert.is(f.rowCount, h.rowCount, `affected rows of ${sql.slice(0, 80)}`);
        assert.is(compareRows(f.rows, h.rows, false), null, `RETURNING rows of ${sql.slice(0, 80)}`);
      }
      const diff = compareRows(await contents(fc), await contents(hc), false);
      assert.is(diff, null, `paxd's t_write vs the heap copy: ${diff}`);
      // And paxd itself (not only what the foreign table shows) holds those rows.
      const own = (await query(w.db, 'SELECT count(*) FROM t_write')).rows[0]![0];
      assert.is(String(own), String((await contents(hc)).length));
    } finally {
      await fc.query('ROLLBACK').catch(() => undefined);
      await hc.query('ROLLBACK').catch(() => undefined);
      for (const o of k.options) await fc.query(`ALTER FOREIGN TABLE t_write OPTIONS (DROP ${o.split(' ')[0]})`);
    }
  });
}

test('EXPLAIN (VERBOSE): direct UPDATE/DELETE run in paxd, local conditions go through ctid, batch_size batches INSERTs', async () => {
  const plan = async (sql: string) => (await fc.query({ text: `EXPLAIN (VERBOSE, COSTS OFF) ${sql}`, rowMode: 'array' })).rows.map((r) => String(r[0]).trim());
  let p = await plan("UPDATE t_write SET v = 'x', n = n * 2 WHERE id = 5");
  assert.ok(p.some((l) => l.endsWith('Foreign Update on fw.t_write')), p.join('\n'));
  assert.ok(p.includes("Remote SQL: UPDATE public.t_write SET v = 'x'::text, n = (n * 2::numeric) WHERE ((id = 5))"), p.join('\n'));
  p = await plan('DELETE FROM t_write WHERE id > 3');
  assert.ok(p.includes('Remote SQL: DELETE FROM public.t_write WHERE ((id > 3))'), p.join('\n'));
  p = await plan('DELETE FROM t_write WHERE id > 3 AND random() >= 0');
  assert.ok(p.includes('Remote SQL: DELETE FROM public.t_write WHERE ctid = $1'), p.join('\n'));
  assert.ok(p.some((l) => l.startsWith('Remote SQL: SELECT ctid FROM public.t_write WHERE ((id > 3)) FOR UPDATE')), p.join('\n'));
  await fc.query("ALTER FOREIGN TABLE t_write OPTIONS (ADD batch_size '4')");
  try {
    p = await plan("INSERT INTO t_write SELECT g, 'b', g, NULL FROM generate_series(1, 10) g");
    assert.ok(p.includes('Batch Size: 4'), p.join('\n'));
    assert.ok(p.includes('Remote SQL: INSERT INTO public.t_write(id, v, n, ts) VALUES ($1, $2, $3, $4)'), p.join('\n'));
  } finally {
    await fc.query('ALTER FOREIGN TABLE t_write OPTIONS (DROP batch_size)');
  }
});

test.run();

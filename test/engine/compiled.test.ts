/**
 * The compiled pipelines (src/engine/compile/) against the interpreter they replace: every
 * query of fixtures/sql/*.sql, plus generated filter and aggregate queries, runs over the
 * same random table with compilation on and off, and the answers must be identical — the
 * same rows in the same types, or the same SQLSTATE. The interpreter is itself held to
 * PostgreSQL by differential.test.ts, so this pins the compiled path to PostgreSQL too.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { query, textRows } from '../../src/engine/index.js';
import { COMPILE, compile } from '../../src/engine/compile/pipeline.js';
import { columnOf, type PgType, type Value } from '../../src/types/index.js';
import { Rng } from '../support/random.js';
import { tempDir } from '../support/tmp.js';
import { loadFixtures } from './differential-setup.js';

const ROWS = 40_000;

const COLUMNS: { name: string; type: string; gen: (r: Rng, i: number) => Value }[] = [
  { name: 'id', type: 'int4', gen: (_r, i) => i },
  { name: 'i2', type: 'int2', gen: (r) => r.int(-300, 300) },
  { name: 'i4', type: 'int4', gen: (r) => (r.chance(0.001) ? r.pick([2147483647, -2147483648]) : r.int(-100000, 100000)) },
  { name: 'i8', type: 'int8', gen: (r) => (r.chance(0.0005) ? 9007199254740993n : r.bigint(-(10n ** 12n), 10n ** 12n)) },
  { name: 'f8', type: 'float8', gen: (r) => (r.chance(0.001) ? NaN : Math.round((r.next() - 0.5) * 1e6) / 64) },
  { name: 'f4', type: 'float4', gen: (r) => Math.fround(r.int(-5000, 5000) / 8) },
  { name: 'n', type: 'numeric(12,3)', gen: (r) => BigInt(r.int(-9999999, 9999999)) },
  { name: 'big', type: 'numeric(30,2)', gen: (r) => (r.chance(0.001) ? 10n ** 25n : BigInt(r.int(-999999, 999999))) },
  { name: 's', type: 'text', gen: (r) => r.pick(['alpha', 'beta', 'gamma', 'delta', 'Beta', '', 'epsilon zeta', 'a', 'ab']) },
  { name: 'c', type: 'bpchar(4)', gen: (r) => r.pick(['x', 'yy', 'zzz', 'wwww']) },
  { name: 'b', type: 'bool', gen: (r) => r.chance(0.5) },
  { name: 'd', type: 'date', gen: (r) => r.int(18000, 20000) },
  { name: 'ts', type: 'timestamp', gen: (r) => BigInt(r.int(1_500_000_000, 1_800_000_000)) * 1_000_000n + BigInt(r.int(0, 999_999)) },
  { name: 'g', type: 'int4', gen: (r) => r.int(0, 9) },
];

/** Queries aimed at what the generator covers: every aggregate, key and operator kind. */
const EXTRA = [
  'SELECT count(*), sum(i2), sum(i4), sum(i8), sum(f8), sum(f4), sum(n), sum(big), avg(i2), avg(i4), avg(i8), avg(f8), avg(f4), avg(n), avg(big) FROM t',
  'SELECT min(i2), max(i2), min(i4), max(i4), min(i8), max(i8), min(f8), max(f8), min(f4), max(f4), min(n), max(n), min(d), max(d), min(ts), max(ts) FROM t WHERE g > 2',
  'SELECT g, count(*), sum(n * n), sum(n + 1), avg(n - i2), count(b) FROM t GROUP BY g ORDER BY g',
  'SELECT s, c, count(*), sum(i4) FROM t GROUP BY s, c ORDER BY s, c',
  'SELECT b, g, d, count(*) FROM t WHERE id % 7 = 1 GROUP BY b, g, d ORDER BY 1, 2, 3',
  'SELECT s, count(*) FROM t WHERE s LIKE \'%a%\' GROUP BY s ORDER BY s',
  'SELECT count(*) FROM t WHERE s LIKE \'a%\' AND s NOT LIKE \'%a\'',
  'SELECT count(*), sum(f8) FROM t WHERE c = \'yy\' OR c = \'x  \'',
  'SELECT c, count(*) FROM t WHERE c > \'x\' GROUP BY c ORDER BY c',
  'SELECT sum(CASE WHEN g < 5 THEN i4 ELSE i2 END), sum(COALESCE(i8, 0)), count(CASE WHEN b THEN 1 END) FROM t',
  'SELECT i8 / 1000 AS k, count(*) FROM t WHERE id < 200 GROUP BY 1 ORDER BY 1',
  'SELECT id, i4, f8 FROM t WHERE f8 > 1000 AND i4 < 0 ORDER BY id LIMIT 20',
  'SELECT id FROM t WHERE i4 * 2 > 100000 ORDER BY id LIMIT 5',
  'SELECT sum(i4 * i4) FROM t',
  'SELECT sum(i8 * 1000) FROM t',
  'SELECT sum(big * 1000000) FROM t',
  'SELECT count(*) FROM t WHERE f8 / (g - g) > 0',
  'SELECT count(*) FROM t WHERE ts >= \'2020-01-01\' AND d < \'2020-06-01\'',
  'SELECT count(*) FROM t WHERE i2 BETWEEN -10 AND 10 OR i4 IN (1, 2, 3)',
  'SELECT f8, count(*) FROM t WHERE g = 3 GROUP BY f8 ORDER BY 2 DESC, 1 LIMIT 5',
  'SELECT n, count(*) FROM t GROUP BY n ORDER BY 2 DESC, 1 LIMIT 3',
  'SELECT ts, count(*) FROM t GROUP BY ts HAVING count(*) > 1 ORDER BY 1 LIMIT 3',
  'SELECT id, s FROM t WHERE s = \'beta\' AND i4 IS NULL ORDER BY id',
  'SELECT count(*) FROM t WHERE NOT (b AND g > 4) OR i4 IS NULL',
  'SELECT count(DISTINCT g), count(DISTINCT i2), count(DISTINCT f8), count(DISTINCT n), count(DISTINCT b), count(DISTINCT d), count(DISTINCT i8) FROM t',
  'SELECT g, count(DISTINCT i2), count(*), count(DISTINCT ts) FROM t WHERE id > 100 GROUP BY g ORDER BY g',
  'SELECT count(DISTINCT i4) FROM t WHERE id < 0',
  'SELECT s, count(DISTINCT c) FROM t GROUP BY s ORDER BY s',
  'SELECT g, sum(CASE WHEN b THEN n ELSE 0 END), avg(CASE WHEN b THEN n ELSE 0 END), min(CASE WHEN g > 5 THEN n ELSE 1 END), max(COALESCE(n, 2.5)) FROM t GROUP BY g ORDER BY g',
  'SELECT sum(CASE WHEN id < 0 THEN n ELSE 0 END), sum(CASE WHEN c = \'x\' THEN big ELSE 0.5 END), max(CASE WHEN id < 0 THEN n ELSE 7 END) FROM t',
  'SELECT b, sum(CASE WHEN b THEN n * 2 ELSE n END + 1), sum(CASE WHEN g = 1 THEN n * n ELSE NULL END) FROM t GROUP BY b ORDER BY b',
];

interface Env {
  db: Database;
}
let env: Promise<Env> | null = null;

function setup(): Promise<Env> {
  env ??= (async () => {
    const rng = new Rng(61);
    const db = await Database.open(tempDir());
    const t = await db.createTable('t', COLUMNS.map((c) => ({ name: c.name, type: c.type, notNull: c.name === 'id' })), { rowGroupRows: 16384, zoneRows: 4096 });
    const types: PgType[] = t.fields.map((f) => f.type);
    const cols: Value[][] = COLUMNS.map(() => []);
    for (let i = 0; i < ROWS; i++) COLUMNS.forEach((c, j) => cols[j]!.push(c.name !== 'id' && rng.chance(0.1) ? null : c.gen(rng, i)));
    const sink = t.sink();
    await sink.write({ length: ROWS, columns: cols.map((c, j) => columnOf(types[j]!, c)), selection: null });
    await sink.commit();
    return { db };
  })();
  return env;
}

async function answer(db: Database, sql: string, compiled: boolean): Promise<string> {
  COMPILE.enabled = compiled;
  try {
    const r = await query(db, sql);
    return JSON.stringify({ fields: r.fields.map((f) => f.type.id), rows: textRows(r) });
  } catch (e) {
    return `error ${(e as { code?: string }).code ?? String(e)}`;
  } finally {
    COMPILE.enabled = true;
  }
}

for (const sql of [...EXTRA, ...loadFixtures().filter((f) => /^0\d-/.test(f.file)).map((f) => f.sql)]) {
  test(sql, async () => {
    const { db } = await setup();
    const want = await answer(db, sql, false);
    const got = await answer(db, sql, true);
    assert.is(got, want);
  });
}

test('the generator covers the analytic shapes (not everything falls back)', async () => {
  const { db } = await setup();
  const { bindSelect } = await import('../../src/engine/bind.js');
  const { plan } = await import('../../src/engine/plan.js');
  const { parseSql } = await import('../../src/engine/parse.js');
  const missed: string[] = [];
  let pipelines = 0;
  for (const sql of EXTRA) {
    const p = plan(await bindSelect(db, (await parseSql(sql))[0]!));
    if (p.kind !== 'pipeline') continue;
    pipelines++;
    if (compile(p) === null) missed.push(sql);
  }
  // Text keys of count(DISTINCT) and a plain ORDER BY … LIMIT without a filter stay interpreted.
  assert.ok(missed.length <= 3, `not compiled (${missed.length} of ${pipelines}):\n${missed.join('\n')}`);
});

test.run();

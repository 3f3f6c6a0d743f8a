/**
 * The engine's differential suite (issue 6): every query in fixtures/sql/*.sql runs against
 * paxd (embedded) and against a throwaway PostgreSQL 15 loaded with the same rows, and the
 * answers must agree — the same rows (in order when the query has ORDER BY; as multisets
 * otherwise), PostgreSQL's text output for each value (floats to 1e-9 relative), or the same
 * SQLSTATE when PostgreSQL fails.
 *
 * Fixture format: statements end with `;` at the end of a line; `--` lines are comments, and
 * `-- paxd: 0A000` right before a statement says paxd must fail with that SQLSTATE (a
 * feature not built yet) whatever PostgreSQL answers. ORDER BY queries order by unique keys.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/database.js';
import { columnOf, formatText, type PgType, type Value } from '../../src/types/index.js';
import { Rng } from '../support/random.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { NULL, runPaxd, runPg, sameRows } from './compare.js';
import { tempDir } from '../support/tmp.js';

const ROWS = 2500;

const COLUMNS: { name: string; type: string; gen: (r: Rng, i: number) => Value }[] = [
  { name: 'id', type: 'int4', gen: (_r, i) => i },
  { name: 'i2', type: 'int2', gen: (r) => r.int(-300, 300) },
  { name: 'i4', type: 'int4', gen: (r) => (r.chance(0.02) ? r.pick([2147483647, -2147483648]) : r.int(-100000, 100000)) },
  { name: 'i8', type: 'int8', gen: (r) => r.bigint(-(10n ** 12n), 10n ** 12n) },
  { name: 'f8', type: 'float8', gen: (r) => Math.round((r.next() - 0.5) * 1e6) / 64 },
  { name: 'f4', type: 'float4', gen: (r) => Math.fround(r.int(-5000, 5000) / 8) },
  { name: 'n', type: 'numeric(12,3)', gen: (r) => BigInt(r.int(-9999999, 9999999)) },
  { name: 's', type: 'text', gen: (r) => r.pick(['alpha', 'beta', 'gamma', 'delta', 'Beta', '', 'epsilon zeta']) },
  { name: 'b', type: 'bool', gen: (r) => r.chance(0.5) },
  { name: 'd', type: 'date', gen: (r) => r.int(18000, 20000) },
  { name: 'ts', type: 'timestamp', gen: (r) => BigInt(r.int(1_500_000_000, 1_800_000_000)) * 1_000_000n + BigInt(r.int(0, 999_999)) },
  { name: 'g', type: 'int4', gen: (r) => r.int(0, 9) },
];

interface Fixture {
  sql: string;
  expect: string | null;
}

function loadFixtures(): Fixture[] {
  const dir = join(import.meta.dirname, '../../fixtures/sql');
  const out: Fixture[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.sql')).sort()) {
    let buf: string[] = [];
    let expect: string | null = null;
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      const m = /^--\s*paxd:\s*([0-9A-Z]{5})/.exec(line);
      if (m) expect = m[1]!;
      if (line.trim() === '' || line.startsWith('--')) continue;
      buf.push(line);
      if (line.trimEnd().endsWith(';')) {
        out.push({ sql: buf.join('\n'), expect });
        buf = [];
        expect = null;
      }
    }
  }
  return out;
}

interface Env {
  db: Database;
  pg: Postgres;
}

let env: Promise<Env> | null = null;

function setup(): Promise<Env> {
  env ??= (async () => {
    const rng = new Rng(6);
    const db = await Database.open(tempDir());
    const t = await db.createTable('t', COLUMNS.map((c) => ({ name: c.name, type: c.type, notNull: c.name === 'id' })), { rowGroupRows: 1024, zoneRows: 1024 });
    const types: PgType[] = t.fields.map((f) => f.type);
    const cols: Value[][] = COLUMNS.map(() => []);
    for (let i = 0; i < ROWS; i++) COLUMNS.forEach((c, j) => cols[j]!.push(c.name !== 'id' && rng.chance(0.1) ? null : c.gen(rng, i)));
    const sink = t.sink();
    await sink.write({ length: ROWS, columns: cols.map((c, j) => columnOf(types[j]!, c)), selection: null });
    await sink.commit();
    const pg = await startPostgres();
    const ddl = COLUMNS.map((c) => `${c.name} ${c.type}${c.name === 'id' ? ' NOT NULL' : ''}`).join(', ');
    const inserts: string[] = [];
    for (let start = 0; start < ROWS; start += 500) {
      const rows: string[] = [];
      for (let i = start; i < Math.min(ROWS, start + 500); i++)
        rows.push(`(${cols.map((c, j) => (c[i] === null ? 'NULL' : `'${formatText(types[j]!, c[i]!).replace(/'/g, "''")}'`)).join(', ')})`);
      inserts.push(`INSERT INTO t VALUES ${rows.join(',\n')};`);
    }
    await pg.query(`DROP TABLE IF EXISTS t; CREATE TABLE t (${ddl});\n${inserts.join('\n')}`);
    return { db, pg };
  })();
  return env;
}

for (const f of loadFixtures()) {
  test(f.sql, async () => {
    const { db, pg } = await setup();
    const mine = await runPaxd(db, f.sql);
    if (f.expect !== null) {
      assert.ok(!mine.ok && mine.code === f.expect, `expected paxd to fail with ${f.expect}, got ${JSON.stringify(mine).slice(0, 300)}`);
      return;
    }
    const theirs = await runPg(pg, f.sql);
    if (!theirs.ok) {
      assert.ok(!mine.ok, `PostgreSQL failed with ${theirs.code} (${theirs.message}), paxd answered ${JSON.stringify(mine).slice(0, 300)}`);
      assert.is(mine.code, theirs.code, `paxd: ${mine.message}; PostgreSQL: ${theirs.message}`);
      return;
    }
    assert.ok(mine.ok, `paxd failed with ${!mine.ok ? `${mine.code} ${mine.message}` : ''}`);
    if (!mine.ok) return;
    const diff = sameRows(/\border\s+by\b/i.test(f.sql), theirs.rows, mine.rows);
    assert.ok(diff === null, diff ?? '');
  });
}

test.run();

/**
 * Hash joins that spill (src/engine/exec/join/grace-join.ts): with work_mem = 64kB, joins whose
 * both sides are many times the work memory partition to run files in the store's temp area,
 * answer as PostgreSQL 15 does (inner, LEFT with the preserved side probing or building, FULL,
 * semi, anti, a join filter, NULL keys on both sides, two keys, text and numeric keys), and
 * leave no file behind, after success and after an error.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/table/database.js';
import { engineCounters, query, textRows } from '../../src/engine/index.js';
import { isPaxdError } from '../../src/types/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';

const WORK_MEM = 64 * 1024;
/** Rows of a and of b: about 30 and 15 times what fits in WORK_MEM as a hash table. */
const A = 40_000;
const B = 20_000;

let dir: string;
let db: Database;
let pg: Postgres;

/** The same CREATE and INSERT … SELECT in both systems: a(k, g, s, n), b(k, g, s, n), with NULL keys. */
const SETUP = ['CREATE TABLE a (k int4, g int4, s text, n numeric(10,2))', 'CREATE TABLE b (k int4, g int4, s text, n numeric(10,2))'];
function rows(n: number, mul: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = i % 997 === 0 ? 'NULL' : String((i * mul) % (2 * n));
    out.push(`(${k}, ${i % 7}, ${i % 13 === 0 ? 'NULL' : `'s${(i * mul) % 5000}'`}, ${(i % 3000) / 4})`);
  }
  return out.join(',');
}

test.before(async () => {
  dir = tempDir();
  db = await Database.open(dir);
  pg = await startPostgres();
  const inserts = [`INSERT INTO a VALUES ${rows(A, 7)}`, `INSERT INTO b VALUES ${rows(B, 11)}`];
  for (const s of [...SETUP, ...inserts]) await query(db, s);
  await pg.query(`DROP TABLE IF EXISTS a, b; ${SETUP.join('; ')}; ${inserts.join('; ')}; ANALYZE a; ANALYZE b;`);
});

test.after(async () => {
  await db.close();
});

/** The files under the store's temp area (the per-process folder itself may stay). */
function tempFiles(): string[] {
  const area = join(dir, '_tmp');
  if (!existsSync(area)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) {
        if (d !== area) out.push(join(d, e.name));
        walk(join(d, e.name));
      } else out.push(join(d, e.name));
    }
  };
  walk(area);
  return out;
}

async function same(sql: string): Promise<void> {
  const before = engineCounters().spillFiles;
  const got = textRows(await query(db, sql, undefined, { workMem: WORK_MEM }))
    .map((r) => r.map((v) => v ?? '').join('|'))
    .join('\n');
  const want = (await pg.query(`SET work_mem = '64kB'; ${sql}`)).trim();
  assert.is(got, want, sql);
  assert.ok(engineCounters().spillFiles > before, `spilled: ${sql}`);
  assert.equal(tempFiles(), [], `no temporary file left after: ${sql}`);
}

test('inner joins past the work memory spill and answer as PostgreSQL', async () => {
  await same('SELECT count(*), sum(a.g + b.g), count(a.s), min(b.s) FROM a JOIN b ON a.k = b.k');
  await same('SELECT count(*), sum(a.k) FROM a JOIN b ON a.k = b.k AND a.g = b.g');
  await same('SELECT count(*), sum(a.g) FROM a JOIN b ON a.k = b.k AND a.g < b.g');
  await same('SELECT count(*) FROM a JOIN b ON a.s = b.s WHERE a.g = 3');
  await same('SELECT count(*), sum(a.k) FROM a JOIN b ON a.n = b.n WHERE a.g = 1 AND b.g = 2');
  await same('SELECT a.k, b.g, a.s FROM a JOIN b ON a.k = b.k ORDER BY a.k DESC, b.g, a.s LIMIT 5');
});

test('outer, semi and anti joins past the work memory keep their unmatched rows and NULL keys', async () => {
  await same('SELECT count(*), count(b.k), count(a.k), sum(a.g) FROM a LEFT JOIN b ON a.k = b.k');
  await same('SELECT count(*), count(a.k), count(b.k), sum(b.g) FROM b LEFT JOIN a ON a.k = b.k');
  await same('SELECT count(*), count(a.k), count(b.k), sum(b.g) FROM b LEFT JOIN a ON a.k = b.k AND a.g > b.g');
  await same('SELECT count(*), count(a.k), count(b.k), count(a.g), count(b.g) FROM a FULL JOIN b ON a.k = b.k');
  await same('SELECT count(*), sum(g) FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k)');
  await same('SELECT count(*), sum(g) FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k)');
  await same('SELECT count(*), sum(g) FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.g <> a.g)');
  await same('SELECT count(*), count(a.k), sum(b.g) FROM a RIGHT JOIN b ON a.k = b.k');
});

test('a join that fails after spilling leaves no temporary file', async () => {
  const before = engineCounters().spillFiles;
  try {
    await query(db, 'SELECT count(*) FROM a JOIN b ON a.k = b.k WHERE 1 / (a.k - b.k) > 5', undefined, { workMem: WORK_MEM });
    assert.unreachable('division by zero');
  } catch (e) {
    assert.ok(isPaxdError(e) && e.code === '22012', String(e));
  }
  assert.ok(engineCounters().spillFiles > before, 'it spilled before failing');
  assert.equal(tempFiles(), []);
});

test.run();

/**
 * min/max over equal values that print differently (-0 and 0; 1.0 and 1.00): PostgreSQL keeps
 * the later in scan order (float8smaller/larger and their kin return the second argument on a
 * tie). Tables loaded here in an order where first and last differ, answered through every
 * path paxd has for them: the interpreter's hash aggregate, compiled pipelines (serial, and
 * not split over workers), statistics and pushed filters. Answers must be PostgreSQL 15's.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { startPostgres } from '../support/pg.js';
import { openPgSession, runPaxd, sameRows, isOrdered, type PgSession } from './compare.js';
import { tempDir } from '../support/tmp.js';

interface Env {
  db: Database;
  session: PgSession;
}

/** Rows of (id, g, x float8, y float4, n numeric): per group, values equal to each other in changing spellings. */
function rows(): string[] {
  const out: string[] = [];
  const xs = ["'-0'", '0', "'-0'", '0', "'0'", "'-0'"];
  const ns = ['1.0', '1.00', '1', '1.000', '2.50', '2.5'];
  for (let i = 0; i < 600; i++) {
    const g = i % 5;
    const x = i % 7 === 0 ? "'NaN'" : xs[(i * 7 + g) % xs.length]!;
    out.push(`(${i}, ${g}, ${x}, ${xs[(i * 5 + 1) % xs.length]}, ${ns[(i + g) % ns.length]})`);
  }
  return out;
}

const CREATE = 'CREATE TABLE mt (id int4, g int4, x float8, y float4, n numeric)';

let env: Promise<Env> | null = null;

function setup(): Promise<Env> {
  env ??= (async () => {
    const db = await Database.open(tempDir());
    const pg = await startPostgres();
    const all = rows();
    await runPaxd(db, CREATE);
    await pg.query(`DROP TABLE IF EXISTS mt; ${CREATE};`);
    // Several INSERTs: several row groups, so that statistics, merges and partitions take part.
    for (let k = 0; k < all.length; k += 100) {
      const sql = `INSERT INTO mt VALUES ${all.slice(k, k + 100).join(', ')}`;
      const r = await runPaxd(db, sql);
      assert.ok(r.ok, JSON.stringify(r));
      await pg.query(`${sql};`);
    }
    return { db, session: await openPgSession(pg) };
  })();
  return env;
}

const CASES = [
  'SELECT g, min(x), max(x), min(y), max(y), min(n), max(n) FROM mt GROUP BY g ORDER BY g',
  'SELECT min(x), max(x), min(y), max(y) FROM mt',
  'SELECT min(x), max(x) FROM mt WHERE g = 1',
  'SELECT min(x), max(x), min(y), max(y) FROM mt WHERE x = 0',
  'SELECT min(x), max(x) FROM mt WHERE id < 250 AND x >= 0',
  'SELECT g, min(x * 1), max(x + 0), min(n * 1) FROM mt WHERE id % 3 <> 0 GROUP BY g ORDER BY g',
  'SELECT min(n), max(n) FROM mt WHERE g = 2',
];

for (const sql of CASES) {
  test(sql, async () => {
    const { db, session } = await setup();
    const theirs = await session.run(sql);
    const mine = await runPaxd(db, sql);
    assert.ok(theirs.ok && mine.ok, `PostgreSQL ${JSON.stringify(theirs).slice(0, 200)}, paxd ${JSON.stringify(mine).slice(0, 200)}`);
    if (!theirs.ok || !mine.ok) return;
    const diff = sameRows(isOrdered(sql), theirs.rows, mine.rows);
    assert.ok(diff === null, diff ?? '');
  });
}

test.after(async () => {
  if (env !== null) await (await env).session.close();
});

test.run();

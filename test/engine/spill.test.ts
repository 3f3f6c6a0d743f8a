/**
 * Spilling past work_mem (issue #19 Done-when 5, the always-on version; PAXD_SOAK=1 runs
 * ./spill-soak.test.ts's 10M keys): hash aggregates, DISTINCT, ORDER BY and top-N over 200,000
 * keys with work_mem = 64kB write run files to the store's temp area (`<root>/_tmp`), answer as
 * PostgreSQL 15 does with the same work_mem, and leave no file behind — after success, after an
 * error, after a cancel, and (in a child process killed with SIGKILL mid-query) at the next
 * open of the store.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Database } from '../../src/table/database.js';
import { engineCounters, query, textRows } from '../../src/engine/index.js';
import { columnOf, isPaxdError, type Value } from '../../src/types/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';
import { ROOT } from '../support/spawn.js';

const KEYS = 200_000;
const WORK_MEM = 64 * 1024;

let dir: string;
let db: Database;
let pg: Postgres;

/** t(k int8, g int4, s text): KEYS distinct k, each twice (in two far-apart halves); g = k % 1000. */
async function load(d: Database): Promise<string> {
  const n = 2 * KEYS;
  const ks: Value[] = Array.from({ length: n }, (_v, i) => BigInt(((i % KEYS) * 7919) % KEYS));
  const gs: Value[] = ks.map((k) => Number((k as bigint) % 1000n));
  const ss: Value[] = ks.map((k) => `s${(k as bigint) % 5003n}`);
  const t = await d.createTable('t', [
    { name: 'k', type: 'int8' },
    { name: 'g', type: 'int4' },
    { name: 's', type: 'text' },
  ] as never);
  const sink = t.sink();
  await sink.write({
    length: n,
    columns: [columnOf({ id: 'int8' } as never, ks), columnOf({ id: 'int4' } as never, gs), columnOf({ id: 'text' } as never, ss)],
    selection: null,
  });
  await sink.commit();
  return ks.map((k, i) => `${k}\t${gs[i]}\t${ss[i]}`).join('\n');
}

test.before(async () => {
  dir = tempDir();
  db = await Database.open(dir);
  pg = await startPostgres();
  const copy = await load(db);
  await query(db, 'CREATE TABLE small (x int4)');
  await query(db, `INSERT INTO small VALUES ${Array.from({ length: 500 }, (_v, i) => `(${i})`).join(',')}`);
  await pg.query(
    `DROP TABLE IF EXISTS t, small; CREATE TABLE t (k int8, g int4, s text COLLATE "C"); COPY t FROM STDIN;\n${copy}\n\\.\nCREATE TABLE small (x int4); INSERT INTO small SELECT generate_series(0, 499); ANALYZE t; ANALYZE small;`,
  );
});

test.after(async () => {
  await db.close();
});

/** The files under the store's temp area (the per-process folders themselves may stay). */
function tempFiles(): string[] {
  const area = join(dir, '_tmp');
  if (!existsSync(area)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) {
        // A statement's folder left behind counts, even empty: only the per-process folder may stay.
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
    .map((r) => r.join('|'))
    .join('\n');
  const want = (await pg.query(`SET work_mem = '64kB'; ${sql}`)).trim();
  assert.is(got, want, sql);
  assert.ok(engineCounters().spillFiles > before, `spilled: ${sql}`);
  assert.equal(tempFiles(), [], `no temporary file left after: ${sql}`);
}

test('GROUP BY over 200,000 keys with work_mem = 64kB spills and answers as PostgreSQL', async () => {
  await same('SELECT k, count(*), sum(g), min(s), max(s) FROM t GROUP BY k HAVING k % 20000 = 7 ORDER BY k');
  await same('SELECT count(*), sum(c), min(k), max(k) FROM (SELECT k, count(*) AS c FROM t GROUP BY k) q');
  await same('SELECT k, s, count(*) FROM t GROUP BY k, s HAVING k < 5 ORDER BY 1, 2');
  await same("SELECT k, string_agg(s, ',' ORDER BY s), array_agg(g ORDER BY g), count(DISTINCT s) FROM t GROUP BY k HAVING k IN (3, 77777, 199999) ORDER BY k");
  await same('SELECT k, avg(g), stddev_samp(g) FROM t GROUP BY k HAVING max(g) = 999 AND k > 199000 ORDER BY k');
});

test('DISTINCT, ORDER BY and ORDER BY … LIMIT over a join of 200,000 keys with work_mem = 64kB', async () => {
  await same('SELECT count(*) FROM (SELECT DISTINCT t.k FROM t JOIN small ON t.g = small.x) q');
  await same('SELECT DISTINCT t.s FROM t JOIN small ON t.g = small.x ORDER BY t.s LIMIT 7 OFFSET 3');
  await same('SELECT t.k, t.s FROM t JOIN small ON t.g = small.x ORDER BY t.s DESC, t.k OFFSET 399990');
  // The top-N keeps 5 rows of a 100,000-pair cross join: no run file needed, and the same answer.
  const sql = 'SELECT a.x, b.x FROM small a, small b, small c WHERE c.x < 2 ORDER BY a.x * 7 % 500 + b.x DESC, a.x, b.x, c.x LIMIT 5';
  assert.is(
    textRows(await query(db, sql, undefined, { workMem: WORK_MEM }))
      .map((r) => r.join('|'))
      .join('\n'),
    (await pg.query(sql)).trim(),
  );
});

test('a statement that fails or is cancelled after spilling leaves no temporary file', async () => {
  const before = engineCounters().spillFiles;
  try {
    await query(db, 'SELECT k, count(*) FROM t GROUP BY k HAVING 1 / (k - 199999) > 0', undefined, { workMem: WORK_MEM });
    assert.unreachable('division by zero');
  } catch (e) {
    assert.ok(isPaxdError(e) && e.code === '22012', String(e));
  }
  assert.ok(engineCounters().spillFiles > before, 'it spilled before failing');
  assert.equal(tempFiles(), []);
  const stop = new AbortController();
  const started = engineCounters().spillFiles;
  const watch = setInterval(() => {
    if (engineCounters().spillFiles > started) stop.abort(Object.assign(new Error('canceling statement due to user request'), { code: '57014' }));
  }, 1);
  try {
    await query(db, 'SELECT t.k, t.s FROM t JOIN small ON t.g = small.x ORDER BY t.s, t.k', undefined, { workMem: WORK_MEM, signal: stop.signal });
    assert.unreachable('cancelled');
  } catch (e) {
    assert.is((e as { code?: string }).code, '57014', String(e));
  } finally {
    clearInterval(watch);
  }
  assert.equal(tempFiles(), []);
});

test('kill -9 mid-spill: the next open of the store removes the dead process folder', async () => {
  const script = `
    import { Database } from ${JSON.stringify(resolve(ROOT, 'src/table/database.ts'))};
    import { query } from ${JSON.stringify(resolve(ROOT, 'src/engine/index.ts'))};
    const db = await Database.open(${JSON.stringify(dir)});
    console.log('running');
    await query(db, 'SELECT count(*) FROM (SELECT a.k, b.x FROM t a, small b GROUP BY 1, 2) q', undefined, { workMem: ${WORK_MEM} });
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  const folder = join(dir, '_tmp', String(child.pid));
  const t0 = Date.now();
  while (!(existsSync(folder) && readdirSync(folder).some((s) => readdirSync(join(folder, s)).length > 0))) {
    assert.ok(Date.now() - t0 < 60_000, 'the child spilled within 60 s');
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill('SIGKILL');
  await exited;
  assert.ok(existsSync(folder), 'a killed process leaves its folder');
  const reopened = await Database.open(dir);
  assert.not.ok(existsSync(folder), 'the next open removed it');
  await reopened.close();
});

test.run();

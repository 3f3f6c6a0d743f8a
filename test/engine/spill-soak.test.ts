/**
 * Issue #19 Done-when 5 through the daemon: a GROUP BY over KEYS distinct keys with
 * work_mem = 64MB completes with PostgreSQL's answer, the daemon's peak RSS stays under 1 GB
 * (`paxd serve` on a 1 GB heap), no temporary file is left afterwards, and after a kill -9
 * mid-query a restarted daemon removes the dead one's folder. PAXD_SOAK=1 runs the 10M
 * keys (minutes); CI runs 100,000 keys with work_mem = 64kB, the same shape. Figures printed:
 * paxd's time and peak RSS beside PostgreSQL's time.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Database } from '../../src/table/database.js';
import { columnOf, type Value } from '../../src/types/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';
import { rssOf, serveLimited, type Limited } from '../hostile/daemon.js';

const SOAK = process.env.PAXD_SOAK === '1';
const KEYS = SOAK ? 10_000_000 : 100_000;
const WORK_MEM = SOAK ? '64MB' : '64kB';
const HEAP_MB = 1024;
/** Every STEP-th key appears twice, so that HAVING count(*) > 1 keeps KEYS / STEP groups. */
const STEP = KEYS / 10;
const SQL = `SELECT k, count(*), sum(v) FROM t GROUP BY k HAVING count(*) > 1 OR k = ${KEYS - 1} ORDER BY k`;

let pgsrv: Postgres;
let dir: string;
const figures: string[] = [];

async function load(): Promise<void> {
  const db = await Database.open(dir);
  const t = await db.createTable('t', [
    { name: 'k', type: 'int8' },
    { name: 'v', type: 'int4' },
  ] as never);
  const sink = t.sink();
  const BATCH = 1_000_000;
  for (let lo = 0; lo < KEYS; lo += BATCH) {
    const n = Math.min(BATCH, KEYS - lo);
    // Keys in a scrambled order (7919 is prime to KEYS' factors 2 and 5), as a hash table meets them.
    const ks: Value[] = Array.from({ length: n }, (_v, i) => BigInt(((lo + i) * 7919) % KEYS));
    const vs: Value[] = ks.map((k) => Number((k as bigint) % 7n));
    await sink.write({ length: n, columns: [columnOf({ id: 'int8' } as never, ks), columnOf({ id: 'int4' } as never, vs)], selection: null });
  }
  const dup: Value[] = Array.from({ length: KEYS / STEP }, (_v, i) => BigInt(i * STEP));
  await sink.write({
    length: dup.length,
    columns: [
      columnOf({ id: 'int8' } as never, dup),
      columnOf(
        { id: 'int4' } as never,
        dup.map(() => 1),
      ),
    ],
    selection: null,
  });
  await sink.commit();
  await db.close();
  await pgsrv.query(
    `DROP TABLE IF EXISTS t; CREATE TABLE t (k int8, v int4); INSERT INTO t SELECT (g::int8 * 7919) % ${KEYS}, ((g::int8 * 7919) % ${KEYS}) % 7 FROM generate_series(0, ${KEYS - 1}) g; INSERT INTO t SELECT g, 1 FROM generate_series(0, ${KEYS - 1}, ${STEP}) g; ANALYZE t;`,
  );
}

async function connect(port: number, user: string): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port, user, database: user === 'postgres' ? 'postgres' : 'paxd' });
  await c.connect();
  c.on('error', () => {});
  return c;
}

function leftovers(): string[] {
  const area = join(dir, '_tmp');
  if (!existsSync(area)) return [];
  return readdirSync(area).flatMap((p) => readdirSync(join(area, p)).map((s) => join(p, s)));
}

test.before(async () => {
  pgsrv = await startPostgres();
  dir = tempDir();
  await load();
});

test.after(() => {
  console.log(`\n${figures.join('\n')}`);
});

test(`GROUP BY over ${KEYS} distinct keys, work_mem = ${WORK_MEM}: PostgreSQL's answer, RSS < 1 GB, no file left, kill -9 swept at restart`, async () => {
  let daemon: Limited = await serveLimited(dir, { heapMb: HEAP_MB });
  try {
    const theirs = await connect(pgsrv.port, 'postgres');
    await theirs.query(`SET work_mem = '${WORK_MEM}'`);
    let t0 = performance.now();
    const want = await theirs.query({ text: SQL, rowMode: 'array' });
    const pgMs = performance.now() - t0;
    await theirs.end();

    const mine = await connect(daemon.wirePort, 'paxd');
    await mine.query(`SET work_mem = '${WORK_MEM}'`);
    let peak = 0;
    const poll = setInterval(() => (peak = Math.max(peak, rssOf(daemon.pid))), 50);
    t0 = performance.now();
    const got = await mine.query({ text: SQL, rowMode: 'array' });
    const ms = performance.now() - t0;
    clearInterval(poll);
    figures.push(
      `spill soak: ${KEYS} keys, work_mem ${WORK_MEM}: paxd ${(ms / 1000).toFixed(1)} s, peak RSS ${(peak / 1048576).toFixed(0)} MB (heap limit ${HEAP_MB} MB); PostgreSQL ${(pgMs / 1000).toFixed(1)} s; ${got.rows.length} rows`,
    );
    assert.equal(got.rows, want.rows);
    assert.ok(peak < 1024 * 1048576, `peak RSS ${(peak / 1048576).toFixed(0)} MB`);
    assert.equal(leftovers(), [], 'no temporary file after the statement');

    // kill -9 while the statement spills; the restarted daemon's open sweeps the dead folder.
    const running = mine.query(SQL).catch(() => undefined);
    const folder = join(dir, '_tmp', String(daemon.pid));
    const start = Date.now();
    while (!(existsSync(folder) && readdirSync(folder).some((s) => readdirSync(join(folder, s)).length > 0))) {
      assert.ok(Date.now() - start < 600_000, 'the daemon spilled');
      await new Promise((r) => setTimeout(r, 20));
    }
    daemon.child.kill('SIGKILL');
    await daemon.exited;
    await running;
    assert.ok(existsSync(folder), 'the killed daemon left its folder');
    daemon = await serveLimited(dir, { heapMb: HEAP_MB });
    assert.not.ok(existsSync(folder), 'the restarted daemon removed it');
  } finally {
    await daemon.stop();
  }
});

test.run();

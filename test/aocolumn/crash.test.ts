/**
 * ao_column crash (the PAX crash test and the concurrency test of
 * both layouts are in test/table/crash.test.ts). Children append through test/support/appender.ts.
 *
 * Crash: 50 SIGKILLs at random moments of appending children, in 5 tables side by side (10
 * rounds each, to keep the wall time low). After every kill the table reads at its last
 * committed snapshot with every acknowledged commit whole, and the next append (from this
 * process) succeeds — taking over the dead child's segment claim, so the garbage it left past
 * the EOF is truncated rather than a new segment set started each time.

 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { getValue } from '../../src/types/builder.js';
import { APPEND_COLUMNS, appendBatch, collectCommits } from '../support/appender.js';
import { spawnBundled } from '../support/bundle.js';
import { tempDir } from '../support/tmp.js';
import { readAll } from '../support/columns.js';
import { Rng, testSeed } from '../support/random.js';

const ROWS = 3000;

/** Commits present, as "writer:commit"; asserts each is whole. */
async function verify(db: Database, table: string, rowsPerCommit: number): Promise<Set<string>> {
  const t = await db.table(table);
  const [w, c, s] = await readAll(t.scan({ columns: ['writer', 'commit_no', 'seq'] }));
  const seen = new Map<string, number>();
  const seqSum = new Map<string, number>();
  for (let i = 0; i < w!.length; i++) {
    const key = `${getValue(w!, i)}:${getValue(c!, i)}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    seqSum.set(key, (seqSum.get(key) ?? 0) + (getValue(s!, i) as number));
  }
  for (const [key, n] of seen) {
    const per = key.startsWith('9:') ? 10 : rowsPerCommit; // writer 9: this process's appends
    assert.is(n, per, `commit ${key}: ${n} rows, expected ${per}`);
    assert.is(seqSum.get(key), (per * (per - 1)) / 2, `commit ${key}: seqs not 0..${per - 1}`);
  }
  return new Set(seen.keys());
}

test('ao_column: 50 SIGKILLs during appends: readable at the last commit, the next append succeeds', async () => {
  const dir = tempDir();
  const db = await Database.open(dir);
  const LANES = 5;
  const ROUNDS = 10;
  for (let l = 0; l < LANES; l++) await db.createTable(`crash${l}`, APPEND_COLUMNS, { layout: 'ao_column', rowGroupRows: 1024, zoneRows: 1024 });
  const rng = new Rng(testSeed());
  let kills = 0;
  let ackedTotal = 0;
  const lane = async (l: number) => {
    const table = `crash${l}`;
    const acked = new Set<string>();
    for (let round = 0; round < ROUNDS; round++) {
      const child = spawnBundled('test/support/appender.ts', [dir, table, '1', String(round * 10_000), '1000000', String(ROWS)]);
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      const exited = new Promise<void>((res) => child.on('exit', () => res()));
      await new Promise<void>((res) => collectCommits(child, acked, res));
      await new Promise((r) => setTimeout(r, rng.int(5, 300)));
      child.kill('SIGKILL');
      await exited;
      kills++;
      assert.is(stderr, '', `child wrote to stderr: ${stderr}`);
      const present = await verify(db, table, ROWS);
      for (const k of acked) assert.ok(present.has(k), `acknowledged commit ${k} missing after kill ${round} of ${table}`);
      // the next append succeeds
      const t = await db.table(table);
      const sink = t.sink();
      await sink.write(appendBatch(9, round, 10));
      await sink.commit();
      assert.ok((await verify(db, table, ROWS)).has(`9:${round}`));
    }
    const t = await db.table(table);
    const check = await t.check();
    assert.equal(check.problems, [], `${table}: check`);
    // dead claims are taken over: a handful of segment sets, not one per kill
    const sets = t.snapshot.ao!.segments.length;
    assert.ok(sets <= 3, `${table}: ${sets} segment sets after ${ROUNDS} kills`);
    ackedTotal += acked.size;
  };
  await Promise.all(Array.from({ length: LANES }, (_, l) => lane(l)));
  assert.is(kills, LANES * ROUNDS);
  assert.ok(ackedTotal > 0, 'the children committed nothing');
  process.stdout.write(` [${kills} kills, ${ackedTotal} child commits acknowledged] `);
  await db.close();
});

test.run();

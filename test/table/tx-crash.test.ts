/**
 * A transaction that writes two tables commits all or nothing, whatever instant the committing
 * process dies at (issue #17; docs/FORMAT.md "The store root log", "Crash analysis"). A child
 * (test/support/tx-committer.ts) commits two-table transactions in a loop and is killed with
 * SIGKILL at a random moment, ROUNDS times, on local disk and on s3rver. After every kill a
 * fresh process sees, in both tables, exactly the same transactions, each one whole, and every
 * transaction the child acknowledged; `paxd check` passes at the end.
 *
 * PAXD_TX_CRASH_ROUNDS sets the number of kills per store (default 40; the figure is 200).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { getValue } from '../../src/types/builder.js';
import { A_ROWS, B_ROWS, TX_COLUMNS } from '../support/tx-committer.js';
import { collectCommits } from '../support/appender.js';
import { spawnTs, runCli } from '../support/spawn.js';
import { tempDir } from '../support/tmp.js';
import { readAll } from '../support/columns.js';
import { Rng, testSeed } from '../support/random.js';
import { startS3, type S3Server } from '../support/s3.js';

const ROUNDS = Number(process.env.PAXD_TX_CRASH_ROUNDS ?? 40);

/** Transactions present in `table`, each checked whole (rows 0..rows-1 exactly once). */
async function present(db: Database, table: string, rows: number): Promise<Set<number>> {
  const t = await db.table(table);
  const [k, seq] = await readAll(t.scan({ columns: ['k', 'seq'] }));
  const seen = new Map<number, Set<number>>();
  for (let i = 0; i < k!.length; i++) {
    const key = getValue(k!, i) as number;
    let s = seen.get(key);
    if (s === undefined) seen.set(key, (s = new Set()));
    const q = getValue(seq!, i) as number;
    assert.ok(!s.has(q), `${table}: transaction ${key} has row ${q} twice`);
    s.add(q);
  }
  for (const [key, s] of seen) assert.is(s.size, rows, `${table}: transaction ${key} has ${s.size} rows, expected ${rows}`);
  return new Set(seen.keys());
}

async function crashRounds(uri: string, env: Record<string, string>, label: string): Promise<void> {
  const setup = await Database.open(uri);
  await setup.createTable('a', TX_COLUMNS, { rowGroupRows: 1024, zoneRows: 1024 });
  await setup.createTable('b', TX_COLUMNS, { rowGroupRows: 1024, zoneRows: 1024 });
  await setup.close();
  const rng = new Rng(testSeed());
  const acked = new Set<string>();
  let next = 0;
  let unacknowledged = 0;
  let killedAfterAck = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const child = spawnTs('test/support/tx-committer.ts', [uri, String(next), '1000000'], env);
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<void>((res) => child.on('exit', () => res()));
    const before = acked.size;
    await new Promise<void>((res) => collectCommits(child, acked, res));
    // Every other round waits for one acknowledged commit first, so that kills also land
    // inside later commits however slow the machine is.
    if (round % 2 === 0) {
      const deadline = Date.now() + 30_000;
      while (acked.size === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
    }
    await new Promise((r) => setTimeout(r, rng.int(0, 120)));
    child.kill('SIGKILL');
    await exited;
    if (acked.size > before) killedAfterAck++;
    assert.is(stderr, '', `${label} round ${round}: child wrote to stderr: ${stderr}`);

    const db = await Database.open(uri);
    try {
      const inA = await present(db, 'a', A_ROWS);
      const inB = await present(db, 'b', B_ROWS);
      assert.equal(
        [...inA].sort((x, y) => x - y),
        [...inB].sort((x, y) => x - y),
        `${label} round ${round}: a and b hold different transactions`,
      );
      for (const key of acked) {
        const k = Number(key.split(':')[1]); // "1:k"

        assert.ok(inA.has(k), `${label} round ${round}: acknowledged transaction ${k} is missing`);
      }
      unacknowledged = inA.size - acked.size;
    } finally {
      await db.close();
    }
    next += 10_000; // each round's transactions get fresh numbers
  }
  process.stdout.write(
    ` [${label}: ${ROUNDS} kills, ${acked.size} transactions acknowledged, ${unacknowledged} committed but not acknowledged, ${killedAfterAck} rounds acknowledged ≥ 1] `,
  );
  assert.ok(acked.size >= ROUNDS / 4, `${label}: the children acknowledged only ${acked.size} transactions`);
  for (const table of ['a', 'b']) {
    const r = await runCli(['check', table, '--data', uri], { env });
    assert.is(r.code, 0, r.stderr);
  }
}

test('local disk: SIGKILL during two-table commits: both tables hold the same whole transactions', async () => {
  await crashRounds(tempDir(), {}, 'local');
});

test('s3rver: SIGKILL during two-table commits: both tables hold the same whole transactions', async () => {
  const s3: S3Server = await startS3();
  try {
    await crashRounds(s3.uri('txcrash'), s3.env, 's3');
  } finally {
    await s3.close();
  }
});

test.run();

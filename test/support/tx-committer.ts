/**
 * A child process for the two-table crash test (test/table/tx-crash.test.ts): commits
 * transactions that write two tables in a loop, the way a transaction block's COMMIT does
 * (src/table/write-set.ts commitWriteSets).
 *
 *   node --import tsx test/support/tx-committer.ts DATA FIRST COUNT
 *
 * Transaction k (FIRST <= k < FIRST+COUNT) inserts rows (k, 0..A_ROWS-1) into `a` and
 * (k, 0..B_ROWS-1) into `b`, in one commit. After each commit it prints `committed 1 k`; at
 * start `ready`.
 */
import { Database, WriteSet, commitWriteSets } from '../../src/table/index.js';

export const A_ROWS = 40;
export const B_ROWS = 70;
export const TX_COLUMNS = [
  { name: 'k', type: 'int4', notNull: true },
  { name: 'seq', type: 'int4', notNull: true },
];

async function main(): Promise<void> {
  const [data, first, count] = process.argv.slice(2);
  const db = await Database.open(data);
  process.stdout.write('ready\n');
  const k0 = Number(first);
  for (let k = k0; k < k0 + Number(count); k++) {
    const at = db.pinned();
    const sets: WriteSet[] = [];
    for (const [name, rows] of [
      ['a', A_ROWS],
      ['b', B_ROWS],
    ] as const) {
      const t = await at.table(name);
      const ws = new WriteSet(db.store, name, t.snapshot);
      await ws.insert([Array.from({ length: rows }, () => k), Array.from({ length: rows }, (_, i) => i)]);
      sets.push(ws);
    }
    await commitWriteSets(db.store, sets);
    process.stdout.write(`committed 1 ${k}\n`); // the appender protocol (test/support/appender.ts collectCommits)
  }
  await db.close();
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) await main();

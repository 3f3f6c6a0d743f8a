/**
 * A child process for crash and concurrency tests: appends commits to a table in a loop.
 *
 *   node --import tsx test/support/appender.ts DATA TABLE WRITER FIRST COUNT ROWS
 *
 * Commit i (FIRST <= i < FIRST+COUNT) holds ROWS rows (writer, commit, seq, payload) with seq
 * 0..ROWS-1. After each commit it prints `committed WRITER i` on stdout; at start `ready`.
 */
import { Database } from '../../src/table/database.js';
import { columnOf } from '../../src/types/builder.js';
import type { Batch } from '../../src/types/column.js';

export const APPEND_COLUMNS = [
  { name: 'writer', type: 'int4', notNull: true },
  { name: 'commit_no', type: 'int4', notNull: true },
  { name: 'seq', type: 'int4', notNull: true },
  { name: 'payload', type: 'text' },
];

export function appendBatch(writer: number, commit: number, rows: number): Batch {
  const w: number[] = [], c: number[] = [], s: number[] = [], p: (string | null)[] = [];
  for (let i = 0; i < rows; i++) {
    w.push(writer);
    c.push(commit);
    s.push(i);
    p.push(i % 10 === 0 ? null : `row ${i} of commit ${commit} by writer ${writer} `.repeat(1 + (i % 3)));
  }
  return {
    length: rows,
    columns: [columnOf({ id: 'int4' }, w), columnOf({ id: 'int4' }, c), columnOf({ id: 'int4' }, s), columnOf({ id: 'text' }, p)],
    selection: null,
  };
}

/** Reads a child appender's stdout: calls onReady at `ready`, records `committed W N` as "W:N". */
export function collectCommits(child: { stdout: NodeJS.ReadableStream | null }, acked: Set<string>, onReady: () => void): void {
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line === 'ready') onReady();
      const m = /^committed (\d+) (\d+)$/.exec(line);
      if (m) acked.add(`${m[1]}:${m[2]}`);
    }
  });
}

async function main(): Promise<void> {
  const [data, table, writer, first, count, rows] = process.argv.slice(2);
  const db = await Database.open(data);
  const t = await db.table(table!);
  process.stdout.write('ready\n');
  const n0 = Number(first), n = Number(count);
  for (let i = n0; i < n0 + n; i++) {
    const sink = t.sink();
    await sink.write(appendBatch(Number(writer), i, Number(rows)));
    await sink.commit();
    process.stdout.write(`committed ${writer} ${i}\n`);
  }
  await db.close();
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) await main();

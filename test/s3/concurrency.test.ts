/**
 * Two processes writing to one S3 table (README.md "Tables in S3"): two appender children
 * (test/support/appender.ts) commit in a loop to s3://…/conc through the same s3rver; every
 * acknowledged commit is there, whole, once. Lost races are resolved by `If-None-Match: *`
 * on the snapshot PUT (enforced in front of s3rver by the gate in test/support/s3.ts, as AWS
 * S3 and MinIO enforce it).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { getValue } from '../../src/types/builder.js';
import { APPEND_COLUMNS } from '../support/appender.js';
import { readAll } from '../support/columns.js';
import { startS3, type S3Server } from '../support/s3.js';
import { spawnTs } from '../support/spawn.js';
import { readSnapshot } from '../../src/storage/catalog.js';
import { listRootIds } from '../../src/storage/root.js';

const COMMITS = 40;
const ROWS = 100;

let s3: S3Server;
test.before(async () => {
  s3 = await startS3();
});
test.after(async () => {
  await s3.close();
});

function runAppender(uri: string, writer: number): Promise<Set<string>> {
  const child = spawnTs('test/support/appender.ts', [uri, 'events', String(writer), '0', String(COMMITS), String(ROWS)], s3.env);
  const acked = new Set<string>();
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((res, rej) => {
    child.on('error', rej);
    child.on('close', (code) => {
      for (const m of out.matchAll(/^committed (\d+) (\d+)$/gm)) acked.add(`${m[1]}:${m[2]}`);
      if (code !== 0) rej(new Error(`appender ${writer} exited with ${code}: ${err}`));
      else res(acked);
    });
  });
}

test('two processes append to one S3 table: every commit is kept, whole', async () => {
  const uri = s3.uri('conc');
  const db = await Database.open(uri);
  await db.createTable('events', APPEND_COLUMNS);
  const before = await s3.gateStats();
  const rootsBefore = (await listRootIds(db.store)).length;
  const [a, b] = await Promise.all([runAppender(uri, 1), runAppender(uri, 2)]);
  assert.is(a.size + b.size, 2 * COMMITS);

  const t = await db.table('events');
  assert.is(t.rows, 2 * COMMITS * ROWS);
  const [w, c, s] = await readAll(t.scan({ columns: ['writer', 'commit_no', 'seq'] }));
  const rows = new Map<string, number>();
  const seqSum = new Map<string, number>();
  for (let i = 0; i < w!.length; i++) {
    const key = `${getValue(w!, i)}:${getValue(c!, i)}`;
    rows.set(key, (rows.get(key) ?? 0) + 1);
    seqSum.set(key, (seqSum.get(key) ?? 0) + (getValue(s!, i) as number));
  }
  for (const key of [...a, ...b]) {
    assert.is(rows.get(key), ROWS, `commit ${key}`);
    assert.is(seqSum.get(key), (ROWS * (ROWS - 1)) / 2, `commit ${key}: seqs`);
  }
  assert.is(rows.size, 2 * COMMITS);
  // One snapshot per commit, chained by parents (a loser of a race skips a number another
  // writer's unnamed snapshot held, so ids need not be contiguous), and one root per commit.
  let commits = 0;
  for (let x = t.snapshot; x.parent !== 0; x = await readSnapshot(db.store, 'events', x.parent)) commits++;
  assert.is(commits, 2 * COMMITS, 'one snapshot per commit');
  assert.is((await listRootIds(db.store)).length - rootsBefore, 2 * COMMITS, 'one root per commit');
  const after = await s3.gateStats();
  // Conditional PUTs: per commit one data file, one snapshot and one root, plus the snapshots
  // of lost races that had to be built again.
  assert.ok(after.created - before.created >= 3 * 2 * COMMITS, `${after.created - before.created} conditional PUTs`);
  assert.equal((await t.check()).problems, []);
  await db.close();
});

test.run();

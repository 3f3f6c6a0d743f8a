import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { commit, createTable, latestSnapshot, listSnapshots } from '../../src/storage/catalog.js';
import { LocalStore } from '../../src/storage/local.js';
import { snapshotPath } from '../../src/storage/snapshot.js';
import { vacuum } from '../../src/storage/vacuum.js';
import { tempDir } from '../support/tmp.js';
import { dataFile, rejection, sampleSnapshot, checkpointed, listedShape } from './helpers.js';

const HOUR = 3_600_000;

async function putFile(store: LocalStore, path: string, size = 10): Promise<void> {
  assert.ok(await store.putIfAbsent(path, new Uint8Array(size)));
}

/** Makes an object look `ageMs` old. */
function age(store: LocalStore, path: string, ageMs: number): void {
  const t = (Date.now() - ageMs) / 1000;
  utimesSync(join(store.root, ...path.split('/')), t, t);
}

/** Makes every root look two hours old: the snapshots they named are no reader's any more. */
async function ageRoots(store: LocalStore): Promise<void> {
  for (const o of await store.list('_paxd/root/')) age(store, o.path, 2 * HOUR);
}

test('vacuum removes old snapshots and unreferenced old files, keeps the newest and what it references', async () => {
  const store = new LocalStore(tempDir());
  await createTable(store, sampleSnapshot('t'));
  await putFile(store, 't/data/a.pax');
  await commit(store, 't', (b) => ({ ...b, files: [dataFile('data/a.pax')] }));
  await putFile(store, 't/data/b.pax');
  await putFile(store, 't/data/b.del');
  // A compaction-like commit: a.pax replaced by b.pax (with a delete vector).
  await commit(store, 't', (b) => ({ ...b, operation: 'compact', files: [dataFile('data/b.pax', 'data/b.del')] }));
  await putFile(store, 't/data/orphan-old.pax', 7);
  await putFile(store, 't/data/orphan-new.pax');
  await putFile(store, 't/_snapshots/.tmp-0123', 3);
  await putFile(store, 't/data/.tmp-4567', 4);
  for (const p of ['t/data/a.pax', 't/data/b.pax', 't/data/b.del', 't/data/orphan-old.pax', 't/_snapshots/.tmp-0123', 't/data/.tmp-4567', snapshotPath('t', 1), snapshotPath('t', 2), snapshotPath('t', 3)]) {
    age(store, p, 2 * HOUR);
  }
  await ageRoots(store);

  const r = await vacuum(store, 't', { graceMs: HOUR });
  assert.is(r.snapshotsRemoved, 2);
  assert.is(r.snapshotsKept, 1);
  assert.is(r.filesRemoved, 2); // a.pax, orphan-old.pax
  assert.is(r.tempFilesRemoved, 2);
  assert.ok(r.bytesRemoved > 10 + 7 + 3 + 4);
  assert.equal(listedShape((await store.list('t/')).map((o) => o.path)), [...checkpointed('t', 3), 't/data/b.del', 't/data/b.pax', 't/data/orphan-new.pax']);
  assert.is((await latestSnapshot(store, 't')).id, 3);

  // Grace 0: the young orphan goes too; the newest snapshot and its files never do.
  const r2 = await vacuum(store, 't', { graceMs: 0 });
  assert.is(r2.filesRemoved, 1);
  assert.is(r2.snapshotsRemoved, 0);
  assert.equal(listedShape((await store.list('t/')).map((o) => o.path)), [...checkpointed('t', 3), 't/data/b.del', 't/data/b.pax']);
  await store.close();
});

test('snapshots within the grace or the retained count stay, with everything they reference', async () => {
  const store = new LocalStore(tempDir());
  await createTable(store, sampleSnapshot('t'));
  for (const name of ['a', 'b', 'c']) {
    await putFile(store, `t/data/${name}.pax`);
    await commit(store, 't', () => ({ ...sampleSnapshot('t'), operation: 'compact', files: [dataFile(`data/${name}.pax`)] }));
  }
  for (const o of await store.list('t/')) age(store, o.path, 2 * HOUR);
  await ageRoots(store);
  age(store, snapshotPath('t', 3), 0); // young: a reader may still hold it

  // Snapshot 3 is a delta: keeping it keeps what it is built from (2 and the create, 1).
  const r = await vacuum(store, 't', { graceMs: HOUR, retainSnapshots: 1 });
  assert.equal((await listSnapshots(store, 't')).map((s) => s.id), [4, 3, 2, 1]);
  assert.is(r.snapshotsRemoved, 0);
  assert.equal((await store.list('t/data/')).map((o) => o.path), ['t/data/b.pax', 't/data/c.pax']);

  age(store, snapshotPath('t', 3), 2 * HOUR);
  await vacuum(store, 't', { graceMs: HOUR, retainSnapshots: 2 });
  assert.equal((await listSnapshots(store, 't')).map((s) => s.id), [4, 3, 2, 1]);
  await vacuum(store, 't', { graceMs: HOUR });
  assert.equal((await listSnapshots(store, 't')).map((s) => s.id), [4]);
  assert.equal((await store.list('t/data/')).map((o) => o.path), ['t/data/c.pax']);
  await store.close();
});

test('orphan snapshots go like any garbage once below the committed one; a damaged committed one stops vacuum; no table is 42P01', async () => {
  const store = new LocalStore(tempDir());
  await createTable(store, sampleSnapshot('t'));
  await putFile(store, snapshotPath('t', 2), 5); // no root names it: a crashed writer's
  await putFile(store, 't/data/x.pax');
  // Above the committed snapshot it stays (its number is taken), unread.
  const r0 = await vacuum(store, 't', { graceMs: 0 });
  assert.is(r0.filesRemoved, 1);
  assert.equal(
    (await store.list('t/')).map((o) => o.path),
    [snapshotPath('t', 1), snapshotPath('t', 2)],
  );
  // A commit skips the taken number; then the orphan is below it, and goes.
  assert.is((await commit(store, 't', (b) => ({ ...b, operation: 'append' }))).id, 3);
  const r = await vacuum(store, 't', { graceMs: 0 });
  assert.is(r.snapshotsRemoved, 2);
  assert.equal(listedShape((await store.list('t/')).map((o) => o.path)), checkpointed('t', 3, 0)); // a state with no file: no manifest

  const bytes = await store.read(snapshotPath('t', 3));
  bytes[bytes.byteLength - 1]! ^= 1;
  await putFile(store, 't/data/y.pax');
  await store.delete(snapshotPath('t', 3));
  await store.putIfAbsent(snapshotPath('t', 3), bytes);
  assert.is((await rejection(vacuum(store, 't', { graceMs: 0 }))).code, 'XX001');
  assert.ok(await store.stat('t/data/y.pax'), 'nothing removed after a corruption error');

  assert.is((await rejection(vacuum(store, 'nope', { graceMs: 0 }))).code, '42P01');
  await store.close();
});

test.run();

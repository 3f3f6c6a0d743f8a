import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commit, createTable, latestSnapshot, listSnapshots, listTables, readSnapshot } from '../../src/storage/catalog.js';
import { LocalStore } from '../../src/storage/local.js';
import { snapshotPath } from '../../src/storage/snapshot.js';
import { tempDir } from '../support/tmp.js';
import { dataFile, rejection, sampleSnapshot } from './helpers.js';

test('createTable makes snapshot 1; again is 42P07; a missing table is 42P01', async () => {
  const store = new LocalStore(tempDir());
  const s = await createTable(store, { ...sampleSnapshot('t'), id: 99, parent: 5 });
  assert.is(s.id, 1);
  assert.is(s.parent, 0);
  assert.equal(await latestSnapshot(store, 't'), s);
  const again = await rejection(createTable(store, sampleSnapshot('t')));
  assert.is(again.kind, 'exists');
  assert.is(again.code, '42P07');
  assert.is(again.message, 'relation "t" already exists');
  const missing = await rejection(latestSnapshot(store, 'u'));
  assert.is(missing.kind, 'not_found');
  assert.is(missing.code, '42P01');
  assert.is(missing.message, 'relation "u" does not exist');
  assert.is((await rejection(createTable(store, sampleSnapshot('../x')))).kind, 'usage');
  await createTable(store, sampleSnapshot('a'));
  await store.putIfAbsent('notatable/file', new Uint8Array(1));
  assert.equal(await listTables(store), ['a', 't']);
  await store.close();
});

test('20 concurrent committers: every commit lands once, ids distinct, parents chain', async () => {
  const store = new LocalStore(tempDir());
  await createTable(store, sampleSnapshot('t'));
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      commit(store, 't', (base) => ({ ...base, operation: 'append', files: [...base.files, dataFile(`data/${i}.pax`)] })),
    ),
  );
  const ids = results.map((r) => r.id).sort((a, b) => a - b);
  assert.equal(ids, Array.from({ length: 20 }, (_, i) => i + 2));
  const last = await latestSnapshot(store, 't');
  assert.is(last.id, 21);
  assert.equal(last.files.map((f) => f.path).sort(), Array.from({ length: 20 }, (_, i) => `data/${i}.pax`).sort());
  for (let id = 2; id <= 21; id++) {
    const s = await readSnapshot(store, 't', id);
    assert.is(s.parent, id - 1);
    assert.is(s.files.length, id - 1);
  }
  assert.is((await listSnapshots(store, 't')).length, 21);
  await store.close();
});

test('commit refuses to build on a damaged newest snapshot and gives up with 40001 when it never wins', async () => {
  const store = new LocalStore(tempDir());
  await createTable(store, sampleSnapshot('t'));
  await store.putIfAbsent(snapshotPath('t', 2), new Uint8Array(5)); // short: corruption, not a skipped number
  const bad = await rejection(commit(store, 't', (base) => ({ ...base, operation: 'append' })));
  assert.is(bad.code, 'XX001');
  assert.is(bad.file, snapshotPath('t', 2));
  assert.equal((await listSnapshots(store, 't')).map((s) => s.id), [2, 1]);
  await store.delete(snapshotPath('t', 2));
  const s = await commit(store, 't', (base) => ({ ...base, operation: 'append' }));
  assert.is(s.id, 2);
  assert.is(s.parent, 1);

  // A build that always commits a rival first, so this writer always loses.
  let rivals = 0;
  const e = await rejection(
    commit(
      store,
      't',
      async (base) => {
        await commit(store, 't', (b) => ({ ...b, operation: 'append' }));
        rivals++;
        return { ...base, operation: 'append' };
      },
      { maxAttempts: 4, backoffMs: 1 },
    ),
  );
  assert.is(e.kind, 'conflict');
  assert.is(e.code, '40001');
  assert.is(rivals, 4);
  await store.close();
});

test.run();

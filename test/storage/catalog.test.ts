import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commit, createTable, latestSnapshot, listTables, readSnapshot } from '../../src/storage/catalog.js';
import { LocalStore } from '../../src/storage/local.js';
import { encodeSnapshot, snapshotPath } from '../../src/storage/snapshot.js';
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
  // Each commit has its own snapshot; following parents from the newest visits all 20 (a loser
  // of a race took the next free number, so ids need not be contiguous, but the chain is).
  const ids = results.map((r) => r.id).sort((a, b) => a - b);
  assert.is(new Set(ids).size, 20);
  const last = await latestSnapshot(store, 't');
  assert.is(last.id, ids[19]);
  assert.equal(last.files.map((f) => f.path).sort(), Array.from({ length: 20 }, (_, i) => `data/${i}.pax`).sort());
  const chain: number[] = [];
  for (let s = last; s.parent !== 0; s = await readSnapshot(store, 't', s.parent)) {
    chain.push(s.id);
    assert.is(s.files.length, 20 - chain.length + 1);
  }
  assert.equal(chain.sort((a, b) => a - b), ids);
  await store.close();
});

test('commit refuses to build on a damaged newest snapshot and gives up with 40001 when it never wins', async () => {
  const store = new LocalStore(tempDir());
  await createTable(store, sampleSnapshot('t'));
  // An orphan (a file no root names: a crashed writer's) is skipped, whatever it holds.
  await store.putIfAbsent(snapshotPath('t', 2), new Uint8Array(5));
  const s = await commit(store, 't', (base) => ({ ...base, operation: 'append' }));
  assert.is(s.id, 3);
  assert.is(s.parent, 1);
  // The committed snapshot damaged: XX001 to a process that reads it, never a fallback to 1.
  await store.delete(snapshotPath('t', 3));
  await store.putIfAbsent(snapshotPath('t', 3), new Uint8Array(5));
  const fresh = new LocalStore(store.root);
  const bad = await rejection(commit(fresh, 't', (base) => ({ ...base, operation: 'append' })));
  assert.is(bad.code, 'XX001');
  assert.is(bad.file, snapshotPath('t', 3));
  assert.is((await rejection(latestSnapshot(fresh, 't'))).code, 'XX001');
  await fresh.close();
  await store.delete(snapshotPath('t', 3));
  await store.putIfAbsent(snapshotPath('t', 3), encodeSnapshot(s));

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

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commit, createTable, latestSnapshot } from '../../src/storage/catalog.js';
import { FaultFs, InjectedFault, type FaultCategory } from '../../src/storage/faulty.js';
import { LocalStore } from '../../src/storage/local.js';
import { snapshotIdOf, snapshotPath } from '../../src/storage/snapshot.js';
import { vacuum } from '../../src/storage/vacuum.js';
import { PaxdError } from '../../src/types/errors.js';
import { tempDir } from '../support/tmp.js';
import { dataFile, rejection, sampleSnapshot, checkpointed, listedShape } from './helpers.js';

const SWEEP: (FaultCategory | 'any')[] = ['write', 'fsync', 'link', 'dirsync', 'any'];
const MAX_SWEEP = 100;

/**
 * Runs `op` against a store whose Nth operation of `category` fails, for N = 1, 2, … until a
 * run completes with no fault; `check` sees each failure. Returns how many faults were injected.
 */
async function sweep(
  root: string,
  category: FaultCategory | 'any',
  op: (store: LocalStore) => Promise<void>,
  check: (e: PaxdError) => Promise<void>,
): Promise<number> {
  for (let n = 1; n <= MAX_SWEEP; n++) {
    const fs = new FaultFs().failNth(category, n);
    const store = new LocalStore(root, { fs, writeBufferBytes: 1 << 16 });
    try {
      await op(store);
      assert.is(fs.injected, 0, `${category} #${n}: an injected fault was swallowed`);
      return n - 1;
    } catch (e) {
      assert.instance(e, PaxdError, `${category} #${n}: ${String(e)}`);
      const pe = e as PaxdError;
      assert.is(pe.kind, 'io', `${category} #${n}: ${pe.message}`);
      assert.is(pe.code, '58030');
      assert.instance(pe.cause, InjectedFault);
      await check(pe);
    } finally {
      await store.close();
    }
  }
  throw new Error(`${category}: still failing after ${MAX_SWEEP} faults`);
}

test('putIfAbsent: a fault at any step leaves no visible object and no temp file', async () => {
  for (const category of SWEEP) {
    const root = tempDir();
    const clean = new LocalStore(root);
    const payload = new Uint8Array(3000).fill(7);
    const faults = await sweep(
      root,
      category,
      async (store) => {
        assert.ok(await store.putIfAbsent('t/_snapshots/x.snap', payload));
      },
      async () => {
        assert.is(await clean.stat('t/_snapshots/x.snap'), null);
        assert.equal(await clean.list(''), []);
      },
    );
    assert.ok(faults >= 1, `${category}: no operation of this kind was made`);
    assert.equal(await clean.read('t/_snapshots/x.snap'), payload);
    await clean.close();
  }
});

test('commit: a fault at any step is a clean error and the table stays at its last snapshot', async () => {
  for (const category of SWEEP) {
    const root = tempDir();
    const clean = new LocalStore(root);
    await createTable(clean, sampleSnapshot('t'));
    await sweep(
      root,
      category,
      async (store) => {
        await commit(store, 't', (b) => ({ ...b, operation: 'append', files: [dataFile('data/1.pax')] }));
      },
      async () => {
        assert.is((await latestSnapshot(clean, 't')).id, 1);
        await vacuum(clean, 't', { graceMs: 0 });
        // Left: the committed snapshot, and snapshot files no root names (a commit whose root
        // failed), kept only as taken numbers: never read, never a committed state.
        const left = (await clean.list('t/')).map((o) => o.path);
        assert.is(left[0], snapshotPath('t', 1));
        for (const p of left.slice(1)) assert.ok(snapshotIdOf(p) !== null && snapshotIdOf(p)! > 1, `${category}: ${p} left`);
      },
    );
    assert.ok((await latestSnapshot(clean, 't')).id >= 2);
    await vacuum(clean, 't', { graceMs: 0 });
    assert.equal(listedShape((await clean.list('t/')).map((o) => o.path)), checkpointed('t', (await latestSnapshot(clean, 't')).id));
    await clean.close();
  }
});

test('create + close: a fault at any write, fsync or directory fsync is a clean error; abort leaves nothing', async () => {
  const data = new Uint8Array(200_000).map((_, i) => i & 0xff);
  for (const category of SWEEP) {
    const root = tempDir();
    const clean = new LocalStore(root);
    await createTable(clean, sampleSnapshot('t'));
    let n = 0;
    const faults = await sweep(
      root,
      category,
      async (store) => {
        const w = await store.create(`t/data/${++n}.pax`);
        try {
          for (let at = 0; at < data.byteLength; at += 30_000) await w.write(data.subarray(at, at + 30_000));
          await w.close();
        } catch (e) {
          await w.abort();
          throw e;
        }
      },
      async () => {
        assert.is(await clean.stat(`t/data/${n}.pax`), null);
        await vacuum(clean, 't', { graceMs: 0 });
        assert.equal((await clean.list('t/')).map((o) => o.path), [snapshotPath('t', 1)]);
      },
    );
    if (category === 'write') assert.ok(faults >= 4, `only ${faults} writes for 200 kB through a 64 kB buffer`);
    if (category !== 'link') assert.ok(faults >= 1, category);
    assert.equal(await clean.read(`t/data/${n}.pax`), data);
    await clean.close();
  }
});

test('append: a fault in truncate, write or fsync is a clean error', async () => {
  const root = tempDir();
  const clean = new LocalStore(root);
  const w = await clean.create('t/seg');
  await w.write(new Uint8Array(100).fill(1));
  await w.close();
  for (const category of ['write', 'fsync'] as const) {
    await sweep(
      root,
      category,
      async (store) => {
        const a = await store.append('t/seg', 100);
        try {
          await a.write(new Uint8Array(50).fill(2));
          await a.close();
        } catch (e) {
          await a.abort();
          throw e;
        }
      },
      async () => undefined,
    );
    const all = await clean.read('t/seg');
    assert.is(all.byteLength, 150);
    assert.ok(all.subarray(100).every((b) => b === 2));
  }
  await clean.close();
});

test('short writes are continued: every byte of a commit, a created file and an append reaches the file', async () => {
  const root = tempDir();
  const fs = new FaultFs().shortWrites(7);
  const store = new LocalStore(root, { fs, writeBufferBytes: 1 << 12 });
  const payload = new Uint8Array(5000).map((_, i) => (i * 31) & 0xff);
  assert.ok(await store.putIfAbsent('t/_snapshots/x.snap', payload));
  const w = await store.create('t/data/1.pax');
  for (let at = 0; at < payload.byteLength; at += 1500) await w.write(payload.subarray(at, at + 1500)); // buffered and direct writes
  await w.write(new Uint8Array(10_000).fill(9));
  await w.close();
  const a = await store.append('t/data/1.pax', payload.byteLength);
  await a.write(payload.subarray(0, 100));
  await a.close();
  const clean = new LocalStore(root);
  assert.equal(await clean.read('t/_snapshots/x.snap'), payload);
  const all = await clean.read('t/data/1.pax');
  assert.is(all.byteLength, payload.byteLength + 100);
  assert.equal(all.subarray(0, payload.byteLength), payload);
  assert.equal(all.subarray(payload.byteLength), payload.subarray(0, 100));
  assert.ok(fs.counts.write > 2000 / 7, `only ${fs.counts.write} writes: short writes were not continued`);
  await store.close();
  await clean.close();
});

test('a write that makes no progress is ENOSPC (53100), as PostgreSQL assumes', async () => {
  const store = new LocalStore(tempDir(), { fs: new FaultFs().shortWrites(0) });
  const e = await rejection(store.putIfAbsent('t/_snapshots/x.snap', new Uint8Array(10)));
  assert.is(e.code, '53100');
  assert.is(e.kind, 'io');
  assert.is(e.message, 'could not write to file "t/_snapshots/x.snap": No space left on device');
  assert.equal(await new LocalStore(store.root).list(''), [], 'no temporary file left');
  await store.close();
});

test('ENOSPC is disk_full (53100) at every write, fsync and folder fsync; nothing is left behind', async () => {
  for (const category of ['write', 'fsync', 'dirsync'] as const) {
    const root = tempDir();
    const clean = new LocalStore(root);
    await createTable(clean, sampleSnapshot('t'));
    for (let n = 1; ; n++) {
      const fs = new FaultFs().failNth(category, n, false, 'ENOSPC');
      const store = new LocalStore(root, { fs, writeBufferBytes: 1 << 12 });
      try {
        const w = await store.create(`t/data/${category}-${n}.pax`);
        try {
          await w.write(new Uint8Array(10_000).fill(n));
          await w.close();
        } catch (e) {
          await w.abort();
          throw e;
        }
        await commit(store, 't', (b) => ({ ...b, operation: 'append', files: [dataFile(`data/${category}-${n}.pax`)] }));
        assert.is(fs.injected, 0, `${category} #${n}: a fault was swallowed`);
        break;
      } catch (e) {
        assert.instance(e, PaxdError, `${category} #${n}: ${String(e)}`);
        const pe = e as PaxdError;
        assert.is(pe.code, '53100', `${category} #${n}: ${pe.message}`);
        if (!/^could not (write to|fsync|fsync the folder of|create the store root) file ".*": No space left on device$/.test(pe.message)) assert.unreachable(pe.message);
        assert.is(pe.kind, 'io');
        assert.is((await latestSnapshot(clean, 't')).id, 1, `${category} #${n}: nothing committed`);
        assert.equal(
          (await clean.list('t/')).map((o) => o.path).filter((p) => p.includes('.tmp-')),
          [],
          `${category} #${n}: temporary files left`,
        );
      } finally {
        await store.close();
      }
      assert.ok(n < 50, `${category}: still failing after 50 faults`);
    }
    await clean.close();
  }
});

test('FaultFs counts operations by category and can stay failed', async () => {
  const fs = new FaultFs();
  const store = new LocalStore(tempDir(), { fs });
  await store.putIfAbsent('a/b', new Uint8Array(4));
  assert.is(fs.counts.write, 1);
  assert.is(fs.counts.fsync, 1);
  assert.is(fs.counts.link, 1);
  assert.ok(fs.counts.dirsync >= 2); // the root's parent, a/, and the root for the new a/
  fs.failNth('any', 2, true);
  await store.putIfAbsent('a/c', new Uint8Array(4)).then(
    () => assert.unreachable('sticky faults'),
    (e: PaxdError) => assert.is(e.kind, 'io'),
  );
  assert.is(fs.injected, 1);
  assert.is(await store.stat('a/c'), null);
  await store.close();
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalStore } from '../../src/storage/local.js';
import { tempDir } from '../support/tmp.js';
import { rejection } from './helpers.js';

function bytes(n: number, seed = 1): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
}

test('create/write/close then ranged reads return exactly the bytes asked for', async () => {
  const root = join(tempDir(), 'missing', 'root'); // created on first write
  const store = new LocalStore(root, { writeBufferBytes: 1000 });
  const data = bytes(10_000);
  const w = await store.create('t/data/a.bin');
  // Mixed sizes: buffered, crossing the buffer, larger than the buffer.
  for (const [s, e] of [[0, 10], [10, 995], [995, 1500], [1500, 4000], [4000, 4001], [4001, 10_000]] as const) {
    await w.write(data.subarray(s, e));
    assert.is(w.position, e);
  }
  await w.close();
  assert.equal(await store.read('t/data/a.bin'), data);
  assert.equal(await store.read('t/data/a.bin', 123, 4567), data.subarray(123, 123 + 4567));
  assert.equal(await store.read('t/data/a.bin', 9990), data.subarray(9990));
  assert.equal(await store.read('t/data/a.bin', 10_000, 0), new Uint8Array(0));
  const info = await store.stat('t/data/a.bin');
  assert.is(info?.size, 10_000);
  assert.is(await store.stat('t/data/nope'), null);
  await store.close();
});

test('short reads are corruption (XX001) naming file and offset; missing is not_found', async () => {
  const root = tempDir();
  const store = new LocalStore(root);
  await store.putIfAbsent('t/f', bytes(100));
  const e = await rejection(store.read('t/f', 90, 20));
  assert.is(e.kind, 'corruption');
  assert.is(e.code, 'XX001');
  assert.is(e.file, 't/f');
  assert.is(e.offset, 90);
  assert.match(e.message, 'expected 20 bytes at offset 90, file has 100');
  const past = await rejection(store.read('t/f', 200, 1));
  assert.is(past.offset, 200);
  assert.match(past.message, 'file has 100');

  // A file truncated behind the store's back (the cached handle sees it too).
  truncateSync(join(root, 't', 'f'), 50);
  const cut = await rejection(store.read('t/f', 40, 20));
  assert.is(cut.kind, 'corruption');
  assert.match(cut.message, 'file has 50');

  const missing = await rejection(store.read('t/nope', 0, 1));
  assert.is(missing.kind, 'not_found');
  assert.is(missing.file, 't/nope');
  assert.is((await rejection(store.read('t/nope'))).kind, 'not_found');
  await store.close();
});

test('create is exclusive; abort removes the object', async () => {
  const store = new LocalStore(tempDir());
  const w = await store.create('t/x');
  await w.write(bytes(10));
  const e = await rejection(store.create('t/x'));
  assert.is(e.kind, 'exists');
  await w.abort();
  assert.is(await store.stat('t/x'), null);
  const w2 = await store.create('t/x');
  await w2.close();
  assert.is((await store.stat('t/x'))?.size, 0);
  await store.close();
});

test('invalid paths are rejected', async () => {
  const store = new LocalStore(tempDir());
  for (const p of ['', '/abs', 'a/../b', 'a//b', './a', 'a/']) {
    assert.is((await rejection(store.read(p))).kind, 'usage', p);
  }
});

test('putIfAbsent: many concurrent writers, exactly one wins, no temp file remains', async () => {
  const root = tempDir();
  const store = new LocalStore(root);
  const results = await Promise.all(Array.from({ length: 50 }, (_, i) => store.putIfAbsent('t/_snapshots/1.snap', bytes(1000, i))));
  assert.is(results.filter((r) => r).length, 1);
  const winner = results.indexOf(true);
  assert.equal(await store.read('t/_snapshots/1.snap'), bytes(1000, winner));
  assert.equal(readdirSync(join(root, 't', '_snapshots')), ['1.snap']);
  assert.is(await store.putIfAbsent('t/_snapshots/1.snap', bytes(1)), false);
  await store.close();
});

test('append truncates to the committed end and writes from there', async () => {
  const root = tempDir();
  const store = new LocalStore(root);
  const w = await store.create('t/seg');
  await w.write(bytes(100));
  await w.close();
  writeFileSync(join(root, 't', 'seg'), bytes(150)); // a crashed append left 50 more bytes
  const a = await store.append('t/seg', 100);
  assert.is(a.position, 100);
  await a.write(bytes(20, 7));
  await a.close();
  const all = await store.read('t/seg');
  assert.is(all.byteLength, 120);
  assert.equal(all.subarray(100), bytes(20, 7));
  const past = await rejection(store.append('t/seg', 500));
  assert.is(past.kind, 'corruption');
  assert.is((await rejection(store.append('t/none', 0))).kind, 'not_found');
  await store.close();
});

test('list is recursive under the prefix, sorted, and skips folders', async () => {
  const store = new LocalStore(tempDir());
  for (const p of ['t/b', 't/a/2', 't/a/1', 'u/x', 'tt/y', 't/_snapshots/00001.snap']) await store.putIfAbsent(p, bytes(3));
  assert.equal((await store.list('t/')).map((o) => o.path), ['t/_snapshots/00001.snap', 't/a/1', 't/a/2', 't/b']);
  assert.equal((await store.list('t')).map((o) => o.path), ['t/_snapshots/00001.snap', 't/a/1', 't/a/2', 't/b', 'tt/y']);
  assert.equal((await store.list('t/a/')).map((o) => o.path), ['t/a/1', 't/a/2']);
  assert.equal((await store.list('nope/')).length, 0);
  assert.is((await store.list('')).length, 6);
  await store.delete('t/b');
  await store.delete('t/b'); // missing: fine
  assert.ok(!existsSync(join(store.root, 't', 'b')));
  await store.close();
});

test('the read handle cache stays bounded and reads stay correct', async () => {
  const store = new LocalStore(tempDir(), { maxReadHandles: 3 });
  for (let i = 0; i < 10; i++) await store.putIfAbsent(`t/f${i}`, bytes(64, i));
  const reads = [];
  for (let round = 0; round < 5; round++) for (let i = 0; i < 10; i++) reads.push(store.read(`t/f${i}`, i, 8).then((b) => [i, b] as const));
  for (const [i, b] of await Promise.all(reads)) assert.equal(b, bytes(64, i).subarray(i, i + 8));
  await store.close();
});

test.run();

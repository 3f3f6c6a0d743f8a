import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeSnapshot, encodeSnapshot, snapshotIdOf, snapshotPath, SNAPSHOT_HEADER_BYTES } from '../../src/storage/snapshot.js';
import { commit, createTable, latestSnapshot, latestSnapshotInfo, readSnapshot } from '../../src/storage/catalog.js';
import { LocalStore } from '../../src/storage/local.js';
import { crc32 } from '../../src/storage/checksum.js';
import { tempDir } from '../support/tmp.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataFile, rejection, sampleSnapshot, thrown } from './helpers.js';

const PATH = 't/_snapshots/00000000000000000001.snap';

test('crc32 is the zlib CRC-32 and reads through views', () => {
  const text = new TextEncoder().encode('xx123456789xx');
  assert.is(crc32(text.subarray(2, 11)), 0xcbf43926);
});

test('paths: 20-digit ids', () => {
  assert.is(snapshotPath('t', 7), 't/_snapshots/00000000000000000007.snap');
  assert.is(snapshotIdOf(snapshotPath('t', 123456789)), 123456789);
  assert.is(snapshotIdOf('t/_snapshots/.tmp-abc'), null);
  assert.is(snapshotIdOf('t/_snapshots/7.snap'), null);
});

test('round trip, also from a view into a larger buffer', () => {
  const s = sampleSnapshot('t', [dataFile('data/1.pax', 'data/1.del')]);
  const bytes = encodeSnapshot(s);
  assert.equal(decodeSnapshot(bytes, PATH), s);
  const pool = new Uint8Array(bytes.byteLength + 13);
  pool.set(bytes, 7);
  assert.equal(decodeSnapshot(pool.subarray(7, 7 + bytes.byteLength), PATH), s);
  assert.equal([...bytes.subarray(0, 4)], [0x50, 0x58, 0x53, 0x4e]);
});

test('every truncation is corruption at the end of the short file', () => {
  const bytes = encodeSnapshot(sampleSnapshot());
  for (let n = 0; n < bytes.byteLength; n++) {
    const e = thrown(() => decodeSnapshot(bytes.subarray(0, n), PATH));
    assert.is(e.code, 'XX001', `length ${n}`);
    assert.is(e.file, PATH);
    assert.is(e.offset, n, `length ${n}`);
  }
});

test('every single-byte flip is corruption XX001 naming the file', () => {
  const bytes = encodeSnapshot(sampleSnapshot());
  for (let i = 0; i < bytes.byteLength; i++) {
    for (const mask of [0x01, 0x80, 0xff]) {
      const bad = bytes.slice();
      bad[i]! ^= mask;
      const e = thrown(() => decodeSnapshot(bad, PATH));
      assert.is(e.kind, 'corruption', `byte ${i}`);
      assert.is(e.code, 'XX001');
      assert.is(e.file, PATH);
      assert.ok(e.offset !== undefined && e.offset <= i, `byte ${i}: offset ${e.offset} should not be past the flip`);
    }
  }
});

test('trailing bytes, bad JSON and a bad shape are corruption at their offsets', () => {
  const bytes = encodeSnapshot(sampleSnapshot());
  const longer = new Uint8Array(bytes.byteLength + 3);
  longer.set(bytes);
  assert.is(thrown(() => decodeSnapshot(longer, PATH)).offset, bytes.byteLength);

  const frame = (payload: string): Uint8Array => {
    const p = new TextEncoder().encode(payload);
    const out = new Uint8Array(SNAPSHOT_HEADER_BYTES + p.byteLength);
    const v = new DataView(out.buffer);
    out.set(bytes.subarray(0, 8));
    v.setUint32(8, p.byteLength, true);
    v.setUint32(12, crc32(p), true);
    v.setUint32(16, crc32(out.subarray(0, 16)), true);
    out.set(p, SNAPSHOT_HEADER_BYTES);
    return out;
  };
  for (const payload of ['{not json', '[]', JSON.stringify({ ...sampleSnapshot(), id: -1 }), JSON.stringify({ ...sampleSnapshot(), files: [{ path: 1 }] })]) {
    const e = thrown(() => decodeSnapshot(frame(payload), PATH));
    assert.is(e.code, 'XX001', payload);
    assert.is(e.offset, SNAPSHOT_HEADER_BYTES);
  }
});

test('a truncated newest snapshot is XX001 at every length, never a fallback to the previous one', async () => {
  const root = tempDir();
  const store = new LocalStore(root);
  await createTable(store, sampleSnapshot());
  // Snapshot 2, committed (the root names it), then cut short on disk.
  await commit(store, 't', (b) => ({ ...b, operation: 'append', files: [dataFile('data/1.pax')] }));
  const file = join(root, 't', '_snapshots', '00000000000000000002.snap');
  const bytes = new Uint8Array(readFileSync(file));
  for (let n = 0; n < bytes.byteLength; n++) {
    writeFileSync(file, bytes.subarray(0, n));
    // A process that has not read it yet (this one keeps what it verified).
    const other = new LocalStore(root);
    const e = await rejection(latestSnapshotInfo(other, 't'));
    await other.close();
    assert.is(e.code, 'XX001', `length ${n}`);
    assert.is(e.file, 't/_snapshots/00000000000000000002.snap');
    assert.is(e.offset, n);
  }
  writeFileSync(file, bytes);
  assert.is((await latestSnapshot(store, 't')).id, 2);

  // A damaged newest snapshot is an error too.
  const bad = bytes.slice();
  bad[bad.byteLength - 2]! ^= 0x10;
  writeFileSync(file, bad);
  const other = new LocalStore(root);
  const e = await rejection(latestSnapshot(other, 't'));
  await other.close();
  assert.is(e.code, 'XX001');
  assert.is(e.file, 't/_snapshots/00000000000000000002.snap');
  assert.is((await rejection(readSnapshot(store, 't', 2))).code, 'XX001');
  assert.is((await readSnapshot(store, 't', 1)).id, 1);
  assert.is((await rejection(readSnapshot(store, 't', 9))).kind, 'not_found');
  await store.close();
});

test.run();

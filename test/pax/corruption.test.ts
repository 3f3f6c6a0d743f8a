import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { columnOf, getValue } from '../../src/types/builder.js';
import type { Column } from '../../src/types/column.js';
import { isPaxdError } from '../../src/types/errors.js';
import type { Field } from '../../src/types/type.js';
import type { DataFileJson } from '../../src/storage/snapshot-types.js';
import type { ObjectStore } from '../../src/storage/store.js';
import { LocalStore } from '../../src/storage/local.js';
import { PaxFileReader, PaxFileWriter } from '../../src/pax/index.js';
import { MemStore } from '../support/memstore.js';

const PATH = 't/data/small.pax';

const fields: Field[] = [
  { name: 'id', type: { id: 'int8' }, notNull: true, fieldId: 1 },
  { name: 'tag', type: { id: 'text' }, notNull: false, fieldId: 2 },
  { name: 'x', type: { id: 'float8' }, notNull: false, fieldId: 3 },
  { name: 'ok', type: { id: 'bool' }, notNull: false, fieldId: 4 },
  { name: 'name', type: { id: 'varchar' }, notNull: false, fieldId: 5 },
];

function groupColumns(base: number, n: number): Column[] {
  const idx = Array.from({ length: n }, (_, i) => base + i);
  return [
    columnOf(fields[0]!.type, idx.map((i) => BigInt(i) * 1000003n)),
    columnOf(fields[1]!.type, idx.map((i) => (i % 5 === 0 ? null : ['a', 'bb', 'ccc'][i % 3]!))), // dictionary zones
    columnOf(fields[2]!.type, idx.map((i) => (i % 7 === 0 ? null : i / 3))),
    columnOf(fields[3]!.type, idx.map((i) => (i % 4 === 0 ? null : i % 3 === 0))),
    columnOf(fields[4]!.type, idx.map((i) => `name-${i * 7919}`)),
  ];
}

async function writeSmall(store: ObjectStore, codec: 'lz4' | 'zstd' | 'none', format: 1 | 2 = 2): Promise<DataFileJson> {
  const w = await PaxFileWriter.create(store, PATH, fields, { codec, zoneRows: 16, format });
  await w.writeGroup(groupColumns(0, 40));
  await w.writeGroup(groupColumns(40, 24));
  return w.finish('data/small.pax');
}

/** Reads every value of every zone of every chunk: the values, or the error thrown. */
async function readAll(store: ObjectStore, file: DataFileJson): Promise<unknown[]> {
  const r = await PaxFileReader.open(store, PATH, file, fields);
  const out: unknown[] = [];
  for (let g = 0; g < file.groups.length; g++)
    for (const f of fields) {
      const chunk = await r.loadChunk(g, f.fieldId);
      for (let z = 0; z < chunk.zoneCount; z++) {
        const c = chunk.zone(z);
        for (let i = 0; i < c.length; i++) out.push(getValue(c, i));
      }
    }
  return out;
}

async function expectCorruption(store: ObjectStore, file: DataFileJson, what: string, maxOffset: number): Promise<void> {
  try {
    await readAll(store, file);
  } catch (e) {
    if (!isPaxdError(e)) throw new Error(`${what}: threw a non-PaxdError: ${String(e)}`);
    assert.is(e.kind, 'corruption', `${what}: ${e.message}`);
    assert.is(e.code, 'XX001');
    assert.is(e.file, PATH, `${what}: file`);
    assert.type(e.offset, 'number', `${what}: offset`);
    assert.ok(e.offset! >= 0 && e.offset! <= maxOffset, `${what}: offset ${e.offset} > ${maxOffset}: ${e.message}`);
    return;
  }
  assert.unreachable(`${what}: read succeeded`);
}

for (const [format, codec] of [[1, 'lz4'], [1, 'none'], [2, 'lz4'], [2, 'zstd'], [2, 'none']] as const) {
  test(`v${format} ${codec}: every single-byte flip anywhere in the file is detected at or before its offset`, async () => {
    const store = new MemStore();
    const file = await writeSmall(store, codec, format);
    const good = store.objects.get(PATH)!;
    const want = await readAll(store, file);
    assert.is(want.length, 64 * fields.length);
    for (let i = 0; i < good.byteLength; i++) {
      for (const mask of [0x01, 0xff]) {
        const bad = good.slice();
        bad[i]! ^= mask;
        store.objects.set(PATH, bad);
        await expectCorruption(store, file, `flip 0x${mask.toString(16)} at ${i} of ${good.byteLength}`, i);
      }
    }
    store.objects.set(PATH, good);
    assert.equal(await readAll(store, file), want);
  });

  test(`v${format} ${codec}: truncations are detected, with the snapshot's size or a size that matches the short file`, async () => {
    const store = new MemStore();
    const file = await writeSmall(store, codec, format);
    const good = store.objects.get(PATH)!;
    for (let len = 0; len < good.byteLength; len += len < 64 ? 1 : 7) {
      store.objects.set(PATH, good.slice(0, len));
      await expectCorruption(store, file, `truncated to ${len}`, good.byteLength);
      // A snapshot that claims the short file (a footer that moved) must fail too.
      const lying = { ...file, size: len, footerOffset: len - 14 - file.footerLength };
      await expectCorruption(store, lying, `truncated to ${len}, snapshot adjusted`, good.byteLength);
    }
    // Bytes appended after the trailer: the snapshot's ranges still hold, reads are unaffected
    // (nothing past `size` is read); a snapshot claiming the longer size fails.
    const longer = new Uint8Array(good.byteLength + 5);
    longer.set(good);
    store.objects.set(PATH, longer);
    await readAll(store, file);
    await expectCorruption(store, { ...file, size: longer.byteLength, footerOffset: longer.byteLength - 14 - file.footerLength }, 'appended bytes', longer.byteLength);
  });
}

test('a snapshot whose footer crc, length or group rows disagree with the file is corruption', async () => {
  const store = new MemStore();
  const file = await writeSmall(store, 'lz4');
  await expectCorruption(store, { ...file, footerCrc: (file.footerCrc ^ 1) >>> 0 }, 'crc', file.size);
  await expectCorruption(store, { ...file, footerLength: file.footerLength + 1 }, 'length', file.size);
  await expectCorruption(store, { ...file, groups: [file.groups[0]!, { ...file.groups[1]!, rows: 25 }] }, 'rows', file.size);
  await expectCorruption(store, { ...file, groups: [file.groups[0]!] }, 'group count', file.size);
});

test('works over LocalStore: durable file, one read for the footer', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'paxd-pax-'));
  const store = new LocalStore(dir);
  try {
    const file = await writeSmall(store, 'lz4');
    assert.is((await store.stat(PATH))!.size, file.size);
    const values = await readAll(store, file);
    assert.is(values[0], 0n);
    assert.is(values.length, 64 * fields.length);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { columnOf, getValue } from '../../src/types/builder.js';
import { type Column, type Value, sliceColumn } from '../../src/types/column.js';
import type { Field, PgType } from '../../src/types/type.js';
import type { DataFileJson } from '../../src/storage/snapshot-types.js';
import { computeStats, mergeStats, statsFromJson, type ColumnStats } from '../../src/stats/index.js';
import { PaxFileReader, PaxFileWriter } from '../../src/pax/index.js';
import type { FooterJson } from '../../src/pax/footer.js';
import { MemStore } from '../support/memstore.js';
import { Rng, randomColumn, randomSchema, testSeed } from '../support/random.js';
import { assertStatsEqual } from '../stats/brute.js';

const ALL_TYPES: PgType[] = [
  { id: 'int2' }, { id: 'int4' }, { id: 'int8' }, { id: 'float4' }, { id: 'float8' }, { id: 'bool' },
  { id: 'text' }, { id: 'varchar', length: 20 }, { id: 'bpchar', length: 8 }, { id: 'bytea' },
  { id: 'date' }, { id: 'timestamp' }, { id: 'timestamptz' }, { id: 'numeric', precision: 38, scale: 0 },
  { id: 'numeric', precision: 10, scale: 2 }, { id: 'numeric' }, { id: 'uuid' }, { id: 'jsonb' },
];

function sameValue(a: Value, b: Value): boolean {
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b) === 0;
  if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b);
  return a === b;
}

function footerOf(store: MemStore, path: string, file: DataFileJson): FooterJson {
  const bytes = store.objects.get(path)!.subarray(file.footerOffset, file.footerOffset + file.footerLength);
  return JSON.parse(Buffer.from(bytes).toString('utf8')) as FooterJson;
}

/** Writes `cols` as groups of `groupRows` rows, reads every zone back and checks values and stats. */
async function roundTrip(fields: Field[], cols: Column[], codec: 'lz4' | 'zstd' | 'none', zoneRows: number, groupRows: number, what: string, format: 1 | 2 = 2) {
  const store = new MemStore();
  const path = 't/data/f.pax';
  const w = await PaxFileWriter.create(store, path, fields, { codec, zoneRows, format });
  const n = cols.length ? cols[0]!.length : 0;
  const groups = [];
  for (let start = 0; start < n || (n === 0 && groups.length === 0); start += groupRows) {
    const len = Math.min(groupRows, n - start);
    groups.push(await w.writeGroup(cols.map((c) => sliceColumn(c, start, len))));
    if (n === 0) break;
  }
  assert.is(w.groupCount, groups.length);
  const file = await w.finish('data/f.pax');
  assert.is(file.size, store.objects.get(path)!.byteLength, `${what}: size`);
  assert.is(w.bytesWritten, file.size);
  assert.equal(file.groups, groups);
  const reads = store.reads;
  const r = await PaxFileReader.open(store, path, file, fields);
  assert.is(store.reads, reads + 1, 'open is one ranged read');
  assert.is(r.zoneRows, zoneRows);
  for (let g = 0; g < groups.length; g++) {
    const gStart = g * groupRows;
    const gRows = r.groupRows(g);
    assert.is(gRows, groups[g]!.rows);
    assert.is(r.zoneCount(g), Math.ceil(gRows / zoneRows));
    for (let c = 0; c < fields.length; c++) {
      const f = fields[c]!;
      const src = cols[c]!;
      assert.ok(r.hasField(f.fieldId));
      const before = store.reads;
      const chunk = await r.loadChunk(g, f.fieldId);
      assert.ok(store.reads <= before + 1, 'a chunk is at most one ranged read');
      assert.is(chunk.zoneCount, r.zoneCount(g));
      let merged: ColumnStats | null = null;
      for (let z = 0; z < chunk.zoneCount; z++) {
        const col = chunk.zone(z);
        const zStart = gStart + z * zoneRows;
        const zRows = Math.min(zoneRows, gRows - z * zoneRows);
        assert.is(col.length, zRows);
        const want = computeStats(src, zStart, zStart + zRows);
        assert.is(col.nullCount, want.nulls);
        assert.is(col.validity === null, want.nulls === 0);
        if (col.offsets !== null) assert.is(col.offsets.length, zRows + 1);
        for (let i = 0; i < zRows; i++) {
          const a = getValue(col, i);
          const b = getValue(src, zStart + i);
          if (!sameValue(a, b)) assert.unreachable(`${what}: ${f.name} ${JSON.stringify(f.type)} group ${g} zone ${z} row ${i}: ${String(a)} vs ${String(b)}`);
        }
        assertStatsEqual(f.type, r.zoneStats(g, f.fieldId, z), want, `${what}: zone stats ${f.name}`);
        assertStatsEqual(f.type, computeStats(col), want, `${what}: stats of decoded zone ${f.name}`);
        merged = merged === null ? want : mergeStats(f.type, merged, want);
      }
      const groupStats = statsFromJson(f.type, groups[g]!.columns[String(f.fieldId)]!);
      assert.is(groupStats.rows, gRows);
      if (merged !== null) {
        assertStatsEqual(f.type, groupStats, merged, `${what}: group stats ${f.name}`);
        const whole = computeStats(src, gStart, gStart + gRows);
        if (f.type.id !== 'float4' && f.type.id !== 'float8') assertStatsEqual(f.type, groupStats, whole, `${what}: group stats vs whole ${f.name}`);
      }
    }
  }
  return { store, path, file, reader: r };
}

test('round trip: every type × codec × row counts, NULLs and edge values', async () => {
  const rng = new Rng(testSeed());
  const fields: Field[] = ALL_TYPES.map((type, i) => ({ name: `c${i}`, type, notNull: false, fieldId: 10 + i }));
  for (const format of [1, 2] as const)
    for (const codec of ['lz4', 'zstd', 'none'] as const) {
      for (const n of [0, 1, 1023, 1024, 1025]) {
        const cols = fields.map((f, i) => randomColumn(f.type, n, rng, i % 3 === 0 ? 0 : 0.2));
        await roundTrip(fields, cols, codec, 1024, 2048, `v${format} ${codec} n=${n}`, format);
      }
    }
});

test('round trip: random schemas, large row counts, default zone size and many groups', async () => {
  const rng = new Rng(testSeed() + 1);
  for (const n of [16384, 16385, 40000]) {
    for (const codec of ['lz4', 'zstd', 'none'] as const) {
      const fields = randomSchema(rng, 5);
      const cols = fields.map((f) => randomColumn(f.type, n, rng, f.notNull ? 0 : rng.pick([0, 0.1, 0.9])));
      await roundTrip(fields, cols, codec, 16384, 32768, `${codec} n=${n}`);
    }
  }
  const fields = randomSchema(rng, 4);
  const cols = fields.map((f) => randomColumn(f.type, 40000, rng, 0.05));
  await roundTrip(fields, cols, 'lz4', 1000 * 8, 17000 - 8, 'odd sizes');
});

test('dictionary zones (u8 and u16 indices) round trip and are chosen for few distinct values', async () => {
  const rng = new Rng(testSeed() + 2);
  const fields: Field[] = [
    { name: 'color', type: { id: 'text' }, notNull: false, fieldId: 1 },
    { name: 'code', type: { id: 'bytea' }, notNull: false, fieldId: 2 },
    { name: 'amount', type: { id: 'numeric' }, notNull: false, fieldId: 3 },
    { name: 'uniq', type: { id: 'text' }, notNull: false, fieldId: 4 },
    { name: 'allnull', type: { id: 'jsonb' }, notNull: false, fieldId: 5 },
  ];
  const n = 20000;
  const colors = ['red', 'green', 'blue', '', 'é'.repeat(50)];
  const cols = [
    columnOf(fields[0]!.type, Array.from({ length: n }, (_, i) => (i % 11 === 0 ? null : colors[rng.int(0, colors.length - 1)]!))),
    columnOf(fields[1]!.type, Array.from({ length: n }, () => new Uint8Array([rng.int(0, 255), rng.int(0, 3)]))),
    columnOf(fields[2]!.type, Array.from({ length: n }, () => (rng.chance(0.01) ? null : `${rng.int(0, 2999)}.5`))),
    columnOf(fields[3]!.type, Array.from({ length: n }, (_, i) => `v${i}`)),
    columnOf(fields[4]!.type, Array.from({ length: n }, () => null)),
  ];
  for (const [format, codec] of [[1, 'lz4'], [1, 'none'], [2, 'lz4'], [2, 'none']] as const) {
    const { store, path, file } = await roundTrip(fields, cols, codec, 16384, n, `dict v${format} ${codec}`, format);
    const footer = footerOf(store, path, file);
    assert.is(footer.format, format);
    const enc = footer.groups[0]!.chunks.map((c) => c.zones.map((z) => `${z.enc}${z.dict ?? ''}`));
    // v1 under a compressing codec: only short values (average <= DICT_MAX_AVG_BYTES) get a
    // dictionary: 'color' averages ~22 bytes (one value is 100 bytes long). v2 takes the
    // dictionary whenever it is the smaller encoding.
    assert.equal(enc[0], codec === 'none' || format === 2 ? ['dict5', 'dict5'] : ['plain', 'plain']);
    assert.ok(enc[1]![0]!.startsWith('dict') && Number(enc[1]![0]!.slice(4)) > 256, `u16 dictionary: ${enc[1]}`);
    assert.ok(enc[2]![0]!.startsWith('dict') && Number(enc[2]![0]!.slice(4)) > 256);
    assert.equal(enc[3], ['plain', 'plain']);
    assert.equal(enc[4], ['plain', 'plain']);
  }
});

test('v2 picks for, rle, dict and plain per zone from the values, and each round trips', async () => {
  const n = 4096;
  const fields: Field[] = [
    { name: 'seq', type: { id: 'int8' }, notNull: true, fieldId: 1 },
    { name: 'runs', type: { id: 'int4' }, notNull: false, fieldId: 2 },
    { name: 'price', type: { id: 'numeric', precision: 15, scale: 2 }, notNull: false, fieldId: 3 },
    { name: 'wide', type: { id: 'int8' }, notNull: true, fieldId: 4 },
    { name: 'neg', type: { id: 'int2' }, notNull: true, fieldId: 5 },
    { name: 'x', type: { id: 'float8' }, notNull: true, fieldId: 6 },
    { name: 'ts', type: { id: 'timestamp' }, notNull: true, fieldId: 7 },
    { name: 'big', type: { id: 'numeric', precision: 38, scale: 0 }, notNull: true, fieldId: 8 },
  ];
  const cols = [
    columnOf(fields[0]!.type, Array.from({ length: n }, (_, i) => 1_000_000_000_000n + BigInt(i * 3))),
    columnOf(fields[1]!.type, Array.from({ length: n }, (_, i) => (i % 100 === 7 ? null : Math.floor(i / 500) - 3))),
    columnOf(fields[2]!.type, Array.from({ length: n }, (_, i) => (i % 97 === 0 ? null : BigInt((i * 7919) % 10000000) - 5000n))),
    columnOf(fields[3]!.type, Array.from({ length: n }, (_, i) => (i % 2 === 0 ? -(2n ** 62n) : 2n ** 62n - BigInt(i)))),
    columnOf(fields[4]!.type, Array.from({ length: n }, (_, i) => -32768 + (i % 17))),
    columnOf(fields[5]!.type, Array.from({ length: n }, (_, i) => i / 7)),
    columnOf(fields[6]!.type, Array.from({ length: n }, (_, i) => 1_700_000_000_000_000n + BigInt(i) * 3_600_000_000n)),
    columnOf(fields[7]!.type, Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 10n ** 37n : BigInt(i)))),
  ];
  const { store, path, file } = await roundTrip(fields, cols, 'none', 2048, n, 'schemes');
  const footer = footerOf(store, path, file);
  const enc = footer.groups[0]!.chunks.map((c) => c.zones.map((z) => z.enc));
  assert.equal(enc, [
    ['for', 'for'],
    ['rle', 'rle'],
    ['for', 'for'],
    ['plain', 'plain'], // a range of 2^63: plain
    ['for', 'for'],
    ['plain', 'plain'],
    ['for', 'for'], // hours in microseconds: deltas of 33 bits and more
    ['plain', 'plain'], // decimal128 beyond 2^53: plain
  ]);
});

test('incompressible zones are stored uncompressed; zone codec is recorded', async () => {
  const rng = new Rng(7);
  const fields: Field[] = [{ name: 'u', type: { id: 'uuid' }, notNull: true, fieldId: 1 }];
  const { store, path, file } = await roundTrip(fields, [columnOf({ id: 'uuid' }, Array.from({ length: 5000 }, () => rng.bytes(16)))], 'lz4', 4096, 5000, 'incompressible');
  const footer = footerOf(store, path, file);
  assert.ok(footer.groups[0]!.chunks[0]!.zones.some((z) => z.codec === 'none'));
});

test('option checks: codec and zone rows', async () => {
  const store = new MemStore();
  for (const zoneRows of [0, 12, -8, 1.5])
    await PaxFileWriter.create(store, `x${zoneRows}`, [], { codec: 'lz4', zoneRows }).then(
      () => assert.unreachable('accepted zone rows ' + zoneRows),
      (e) => assert.is(e.kind, 'usage'),
    );
  await PaxFileWriter.create(store, 'xf', [], { codec: 'lz4', zoneRows: 8, format: 3 as 2 }).then(
    () => assert.unreachable('accepted format 3'),
    (e) => assert.is(e.kind, 'usage'),
  );
});

test.run();

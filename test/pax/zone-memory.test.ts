/**
 * Decoding into reused memory (src/pax/zone-memory.ts): a zone decoded into buffers that held a
 * longer zone — poisoned in between, so that nothing relies on zeroed memory — decodes to
 * exactly its own rows and bytes, for every scheme, format and codec; damaged zones still fail
 * by checksum; a chunk read with buffers decodes a zone again once the buffers have moved on;
 * and a scan with reuseBuffers returns the rows a scan without it returns.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { columnOf, getValue } from '../../src/types/builder.js';
import type { Column, Value } from '../../src/types/column.js';
import { isPaxdError } from '../../src/types/errors.js';
import type { Field, PgType } from '../../src/types/type.js';
import { computeStats, statsToJson } from '../../src/stats/index.js';
import { encodeZone } from '../../src/pax/zone-encode.js';
import { decodeZone } from '../../src/pax/zone-decode.js';
import type { ZoneJson } from '../../src/pax/footer.js';
import { PaxFileReader, PaxFileWriter, ZoneBuffers } from '../../src/pax/index.js';
import { Database } from '../../src/table/database.js';
import { P } from '../../src/scan/predicate.js';
import { MemStore } from '../support/memstore.js';
import { Rng, testSeed } from '../support/random.js';
import { tempDir } from '../support/tmp.js';

type Gen = (r: Rng, i: number) => Value;
const SHAPES: { what: string; type: PgType; gen: Gen }[] = [
  { what: 'int2', type: { id: 'int2' }, gen: (r) => r.int(-300, 300) },
  { what: 'int4 small range', type: { id: 'int4' }, gen: (r) => r.int(-5, 100) },
  { what: 'int4 full range', type: { id: 'int4' }, gen: (r) => r.int(-2147483648, 2147483647) },
  { what: 'int8 runs', type: { id: 'int8' }, gen: (_r, i) => BigInt(Math.floor(i / 37)) * 1000003n - 7n },
  { what: 'int8 33-bit', type: { id: 'int8' }, gen: (r) => BigInt(r.u32()) + 3_000_000_000n },
  { what: 'int8 negative', type: { id: 'int8' }, gen: (r) => -BigInt(r.int(0, 1 << 30)) },
  { what: 'int8 wide', type: { id: 'int8' }, gen: (r) => r.bigint(-(2n ** 63n), 2n ** 63n - 1n) },
  { what: 'date', type: { id: 'date' }, gen: (r) => 8000 + r.int(0, 2600) },
  { what: 'timestamp whole seconds', type: { id: 'timestamp' }, gen: (r) => 1_600_000_000_000_000n + BigInt(r.int(0, 2 ** 30)) * 1_000_000n },
  { what: 'numeric(15,2)', type: { id: 'numeric', precision: 15, scale: 2 }, gen: (r) => BigInt(r.int(0, 10_500_000)) },
  { what: 'numeric(15,2) negative', type: { id: 'numeric', precision: 15, scale: 2 }, gen: (r) => BigInt(r.int(-1_000_000, 1_000)) },
  { what: 'numeric(38,0) wide', type: { id: 'numeric', precision: 38, scale: 0 }, gen: (r) => r.bigint(-(10n ** 37n), 10n ** 37n) },
  { what: 'text few values', type: { id: 'text' }, gen: (r) => ['AIR', 'RAIL', 'TRUCK', '', 'MAIL'][r.int(0, 4)]! },
  { what: 'bpchar few values', type: { id: 'bpchar', length: 10 }, gen: (r) => ['A         ', 'BB        ', 'CCC       '][r.int(0, 2)]! },
  { what: 'varchar unique', type: { id: 'varchar', length: 44 }, gen: (r, i) => `row ${i} ${'x'.repeat(r.int(0, 30))}` },
  { what: 'bytea', type: { id: 'bytea' }, gen: (r) => r.bytes(r.int(0, 40)) },
  { what: 'float8', type: { id: 'float8' }, gen: (r) => r.next() * 1e6 },
  { what: 'bool', type: { id: 'bool' }, gen: (r) => r.chance(0.3) },
  { what: 'uuid', type: { id: 'uuid' }, gen: (r) => r.bytes(16) },
];
const CODECS = ['none', 'lz4', 'zstd'] as const;
const FORMATS = [1, 2] as const;

function zoneOf(col: Column, codec: (typeof CODECS)[number], format: 1 | 2): { stored: Uint8Array; z: ZoneJson } {
  const s = computeStats(col);
  const e = encodeZone(col, 0, col.length, s.nulls, codec, format);
  const z: ZoneJson = { offset: 0, stored: e.stored.byteLength, decoded: e.decoded, codec: e.codec, enc: e.enc, rows: col.length, nulls: s.nulls, crc: e.crc, stats: statsToJson(col.type, s) };
  if (e.dict !== undefined) z.dict = e.dict;
  return { stored: e.stored, z };
}

function same(a: Value, b: Value): boolean {
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b) === 0;
  return Object.is(a, b) || a === b;
}

/** Same rows, and arrays of exactly the zone's size: no byte of another zone can be read through them. */
function assertExact(got: Column, want: Column, what: string): void {
  assert.is(got.length, want.length, `${what}: length`);
  assert.is(got.nullCount, want.nullCount, `${what}: nulls`);
  const n = want.length;
  for (let i = 0; i < n; i++) if (!same(getValue(got, i), getValue(want, i))) assert.unreachable(`${what}: row ${i} is ${String(getValue(got, i))}, expected ${String(getValue(want, i))}`);
  if (got.offsets !== null) {
    assert.is(got.offsets.length, n + 1, `${what}: offsets`);
    for (let i = 0; i <= n; i++) if (got.offsets[i] !== want.offsets![i]! - want.offsets![0]!) assert.unreachable(`${what}: offset ${i} is ${got.offsets[i]}, expected ${want.offsets![i]! - want.offsets![0]!}`);
    assert.is(got.data!.byteLength, got.offsets[n]!, `${what}: data bytes`);
  } else if (got.type.id === 'bool') assert.is(got.values.byteLength, (n + 7) >>> 3, `${what}: bitmap bytes`);
  else assert.is(got.values.byteLength, n * (want.values.byteLength / n), `${what}: value bytes`);
  if (got.dictionary !== undefined) assert.is(got.dictionary.codes.length, n, `${what}: codes`);
}

/** Fills every slot of `b` (grown to 1 MiB) with 0xa5, as a previous zone might have left it. */
function poison(b: ZoneBuffers): void {
  for (let slot = 0; slot < 4; slot++) b.bytes(slot, 1 << 20).fill(0xa5);
}

function columnFor(type: PgType, gen: Gen, n: number, rng: Rng, nullRate: number): Column {
  return columnOf(type, Array.from({ length: n }, (_, i) => (rng.chance(nullRate) ? null : gen(rng, i))));
}

test('a zone shorter than the one before it in the same buffers decodes to exactly its rows and bytes', () => {
  const rng = new Rng(testSeed());
  for (const s of SHAPES)
    for (const format of FORMATS)
      for (const codec of CODECS)
        for (const nullRate of [0, 0.2]) {
          const what = `${s.what} v${format} ${codec} nulls ${nullRate} (seed ${rng.seed})`;
          const long = columnFor(s.type, s.gen, 3000, rng, nullRate);
          const short = columnFor(s.type, s.gen, 37, rng, nullRate);
          const a = zoneOf(long, codec, format);
          const b = zoneOf(short, codec, format);
          const buffers = new ZoneBuffers();
          buffers.next();
          assertExact(decodeZone(a.stored, a.z, s.type, 'f', format, buffers), long, `${what}: long`);
          poison(buffers);
          buffers.next();
          assertExact(decodeZone(b.stored, b.z, s.type, 'f', format, buffers), short, `${what}: short after long`);
          poison(buffers);
          buffers.next();
          assertExact(decodeZone(a.stored, a.z, s.type, 'f', format, buffers), long, `${what}: long again`);
        }
});

test('damaged zones decoded into reused buffers still fail by checksum (XX001)', () => {
  const rng = new Rng(testSeed());
  for (const s of SHAPES)
    for (const format of FORMATS)
      for (const codec of CODECS) {
        const { stored, z } = zoneOf(columnFor(s.type, s.gen, 200, rng, 0.1), codec, format);
        const buffers = new ZoneBuffers();
        for (const bit of [0, 7, (stored.byteLength * 8) >> 1, stored.byteLength * 8 - 1]) {
          const bad = stored.slice();
          bad[bit >>> 3]! ^= 1 << (bit & 7);
          poison(buffers);
          buffers.next();
          try {
            decodeZone(bad, z, s.type, 'f', format, buffers);
            assert.unreachable(`${s.what} v${format} ${codec}: bit ${bit} flipped, decoded anyway`);
          } catch (e) {
            if (!isPaxdError(e)) throw e;
            assert.is(e.code, 'XX001', `${s.what} v${format} ${codec}: bit ${bit}`);
          }
        }
      }
});

test('a chunk read with buffers decodes a zone again once another zone took the buffers', async () => {
  const store = new MemStore();
  const fields: Field[] = [
    { name: 'n', type: { id: 'numeric', precision: 15, scale: 2 }, notNull: false, fieldId: 1 },
    { name: 's', type: { id: 'text' }, notNull: false, fieldId: 2 },
  ];
  const rows = 100;
  const cols = [columnOf(fields[0]!.type, Array.from({ length: rows }, (_, i) => BigInt(i * 101))), columnOf(fields[1]!.type, Array.from({ length: rows }, (_, i) => ['x', 'yy', 'zzz'][i % 3]!))];
  for (const format of FORMATS) {
    const w = await PaxFileWriter.create(store, `t/data/${format}.pax`, fields, { codec: 'lz4', zoneRows: 24, format });
    await w.writeGroup(cols);
    const file = await w.finish(`data/${format}.pax`);
    const r = await PaxFileReader.open(store, `t/data/${format}.pax`, file, fields);
    for (const f of fields) {
      const buffers = new ZoneBuffers();
      const chunk = await r.loadChunk(0, f.fieldId, buffers);
      for (const z of [0, 1, 0, 4, 4, 2, 0]) {
        const c = chunk.zone(z);
        for (let i = 0; i < c.length; i++) assert.equal(getValue(c, i), getValue(cols[f.fieldId - 1]!, z * 24 + i), `v${format} ${f.name} zone ${z} row ${i}`);
      }
    }
  }
});

test('a scan with reuseBuffers returns the rows of a scan without, over groups, deletes, a predicate and a bound', async () => {
  const db = await Database.open(tempDir());
  try {
    const t = await db.createTable('m', [
      { name: 'id', type: 'int8' },
      { name: 'n', type: 'numeric(12,2)' },
      { name: 's', type: 'text' },
      { name: 'd', type: 'date' },
    ], { rowGroupRows: 4096, zoneRows: 1024 });
    const N = 10_000;
    const ids = Array.from({ length: N }, (_, i) => BigInt(i));
    const sink = t.sink();
    await sink.write({
      length: N,
      columns: [
        columnOf(t.fields[0]!.type, ids),
        columnOf(t.fields[1]!.type, ids.map((i) => (i % 13n === 0n ? null : (i * 7919n) % 100000n))),
        columnOf(t.fields[2]!.type, ids.map((i) => (i % 7n === 0n ? 'long '.repeat(Number(i % 9n)) : ['a', 'bb', 'ccc'][Number(i % 3n)]!))),
        columnOf(t.fields[3]!.type, ids.map((i) => 9000 + Number(i % 400n))),
      ],
      selection: null,
    });
    await sink.commit();
    await t.refresh();
    await t.delete(P.lt('id', 300n));
    await t.delete(P.between('id', 5000n, 5100n));
    await t.refresh();
    const collect = async (reuseBuffers: boolean, where?: ReturnType<typeof P.lt>, bound?: number): Promise<Value[][]> => {
      const scan = t.scan({ reuseBuffers, ...(where !== undefined ? { where } : {}) });
      const out: Value[][] = [];
      await scan.begin();
      if (bound !== undefined) scan.setBound('d', '<', bound);
      for (let b = await scan.next(); b !== null; b = await scan.next()) {
        const sel = b.selection;
        const n = sel === null ? b.length : sel.length;
        for (let k = 0; k < n; k++) out.push(b.columns.map((c) => getValue(c, sel === null ? k : sel[k]!)));
      }
      await scan.end();
      return out;
    };
    for (const [where, bound] of [[undefined, undefined], [P.lt('d', 9100), undefined], [P.or(P.eq('s', 'bb'), P.isNull('n')), undefined], [undefined, 9050]] as const) {
      const want = await collect(false, where, bound);
      const got = await collect(true, where, bound);
      assert.ok(want.length > 0);
      assert.equal(got, want);
    }
  } finally {
    await db.close();
  }
});

test.run();

/**
 * Property tests of the v2 zone schemes (src/pax/encoding/): random data of every shape that
 * selects each scheme round-trips through it under every codec; every flipped bit of a stored
 * zone is detected (XX001); and each scheme's decoder, fed damaged bytes whose checksum was
 * recomputed (so that only its own checks stand between the bytes and the caller), either
 * fails with XX001 or returns a column of the right shape: never another exception, never a
 * read past its buffer.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { crc32 } from 'node:zlib';
import { columnOf, getValue } from '../../src/types/builder.js';
import type { Column, Value } from '../../src/types/column.js';
import { isPaxdError } from '../../src/types/errors.js';
import type { PgType } from '../../src/types/type.js';
import { computeStats, statsToJson } from '../../src/stats/index.js';
import { encodeZone } from '../../src/pax/zone-encode.js';
import { decodeZone } from '../../src/pax/zone-decode.js';
import type { ZoneJson } from '../../src/pax/footer.js';
import { pack, packedBytes, unpack } from '../../src/pax/encoding/bitpack.js';
import { Rng, testSeed } from '../support/random.js';

type Shape = { what: string; type: PgType; gen: (rng: Rng, i: number, n: number) => Value; scheme: string };

const SHAPES: Shape[] = [
  { what: 'int4 small range', type: { id: 'int4' }, gen: (r) => r.int(-5, 100), scheme: 'for' },
  // ref + (2^w − 1) passes the type's top: the one-pass decoder must not be used (./for.ts).
  { what: 'int4 near the top', type: { id: 'int4' }, gen: (r) => 2147483647 - r.int(0, 600), scheme: 'for' },
  { what: 'int2 extremes', type: { id: 'int2' }, gen: (r) => (r.chance(0.5) ? -32768 + r.int(0, 500) : -20000 - r.int(0, 500)), scheme: 'for' },
  { what: 'int4 full range', type: { id: 'int4' }, gen: (r) => r.int(-2147483648, 2147483647), scheme: 'plain' }, // 32 bits: no gain
  { what: 'int8 32-bit range', type: { id: 'int8' }, gen: (r) => BigInt(r.u32()) - 5n, scheme: 'for' },
  { what: 'int8 runs', type: { id: 'int8' }, gen: (_r, i) => BigInt(Math.floor(i / 37)) * 1000003n - 7n, scheme: 'rle' },
  { what: 'int8 near 2^53', type: { id: 'int8' }, gen: (r) => 9007199254740991n - BigInt(r.int(0, 1 << 30)) * BigInt(r.int(0, 1 << 22)), scheme: 'plain' }, // base + 2^52 not exact
  { what: 'int8 40-bit range', type: { id: 'int8' }, gen: (r) => -(2n ** 45n) + BigInt(r.u32()) * 256n + BigInt(r.int(0, 255)), scheme: 'for' },
  { what: 'int8 wide', type: { id: 'int8' }, gen: (r) => r.bigint(-(2n ** 63n), 2n ** 63n - 1n), scheme: 'plain' },
  { what: 'date', type: { id: 'date' }, gen: (r) => 8000 + r.int(0, 2600), scheme: 'for' },
  { what: 'timestamp', type: { id: 'timestamp' }, gen: (r) => 1_600_000_000_000_000n + BigInt(r.int(0, 2 ** 31)) * 1000n, scheme: 'for' },
  { what: 'numeric(15,2)', type: { id: 'numeric', precision: 15, scale: 2 }, gen: (r) => BigInt(r.int(-1_000_000, 10_500_000)), scheme: 'for' },
  { what: 'numeric(15,2) whole units (multiplier 100)', type: { id: 'numeric', precision: 15, scale: 2 }, gen: (r) => BigInt(r.int(1, 50)) * 100n, scheme: 'for' },
  { what: 'timestamp whole seconds (multiplier)', type: { id: 'timestamptz' }, gen: (r) => -86_400_000_000n + BigInt(r.int(0, 2 ** 30)) * 1_000_000n, scheme: 'for' },
  { what: 'timestamptz hours, multiplier past u32', type: { id: 'timestamptz' }, gen: (r) => 1_704_153_600_000_000n + BigInt(r.int(0, 2880) * 2) * 3_600_000_000n, scheme: 'for' },
  { what: 'numeric(12,2) runs', type: { id: 'numeric', precision: 12, scale: 2 }, gen: (_r, i) => BigInt(i >> 6) - 50n, scheme: 'rle' },
  { what: 'numeric(38,0) wide', type: { id: 'numeric', precision: 38, scale: 0 }, gen: (r) => r.bigint(-(10n ** 37n), 10n ** 37n), scheme: 'plain' },
  { what: 'text few values', type: { id: 'text' }, gen: (r) => ['AIR', 'RAIL', 'TRUCK', '', 'MAIL'][r.int(0, 4)]!, scheme: 'dict' },
  { what: 'bpchar few values', type: { id: 'bpchar', length: 10 }, gen: (r) => ['A         ', 'BB        ', 'CCC       '][r.int(0, 2)]!, scheme: 'dict' },
  { what: 'bytea many values', type: { id: 'bytea' }, gen: (r) => r.bytes(r.int(0, 40)), scheme: 'plain' },
  { what: 'varchar unique', type: { id: 'varchar', length: 44 }, gen: (r, i) => `row ${i} ${'x'.repeat(r.int(0, 30))}`, scheme: 'plain' },
  { what: 'float8', type: { id: 'float8' }, gen: (r) => r.next() * 1e6, scheme: 'plain' },
  { what: 'bool', type: { id: 'bool' }, gen: (r) => r.chance(0.3), scheme: 'plain' },
  { what: 'uuid', type: { id: 'uuid' }, gen: (r) => r.bytes(16), scheme: 'plain' },
];

function makeColumn(s: Shape, n: number, rng: Rng, nullRate: number): Column {
  return columnOf(s.type, Array.from({ length: n }, (_, i) => (rng.chance(nullRate) ? null : s.gen(rng, i, n))));
}

function zoneOf(col: Column, codec: 'lz4' | 'zstd' | 'none'): { stored: Uint8Array; z: ZoneJson } {
  const s = computeStats(col);
  const e = encodeZone(col, 0, col.length, s.nulls, codec, 2);
  const z: ZoneJson = { offset: 0, stored: e.stored.byteLength, decoded: e.decoded, codec: e.codec, enc: e.enc, rows: col.length, nulls: s.nulls, crc: e.crc, stats: statsToJson(col.type, s) };
  if (e.dict !== undefined) z.dict = e.dict;
  return { stored: e.stored, z };
}

function same(a: Value, b: Value): boolean {
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b) === 0;
  return Object.is(a, b);
}

function assertColumn(got: Column, want: Column, what: string): void {
  assert.is(got.length, want.length, `${what}: length`);
  assert.is(got.nullCount, computeStats(want).nulls, `${what}: nulls`);
  for (let i = 0; i < want.length; i++) {
    const a = getValue(got, i);
    const b = getValue(want, i);
    if (!same(a, b)) assert.unreachable(`${what}: row ${i}: ${String(a)}, expected ${String(b)}`);
  }
}

test('bit-packing round trips every width and count, blocks of 32 and the rest', () => {
  const rng = new Rng(testSeed());
  for (let w = 0; w <= 32; w++)
    for (const n of [0, 1, 31, 32, 33, 95, 1000]) {
      const src = new Uint32Array(n);
      for (let i = 0; i < n; i++) src[i] = w === 0 ? 0 : w === 32 ? rng.u32() : rng.u32() & ((1 << w) - 1);
      const words = new Uint32Array(packedBytes(n, w) / 4);
      pack(src, n, w, words, 0);
      const out = new Uint32Array(n);
      unpack(words, 0, n, w, out);
      assert.equal(Array.from(out), Array.from(src), `w=${w} n=${n}`);
    }
});

test('each shape picks its scheme and round trips under every codec, with and without NULLs', () => {
  const rng = new Rng(testSeed() + 1);
  for (const s of SHAPES)
    for (const n of [1, 7, 100, 4096])
      for (const nullRate of [0, 0.1, 1])
        for (const codec of ['none', 'lz4', 'zstd'] as const) {
          const col = makeColumn(s, n, rng, nullRate);
          const { stored, z } = zoneOf(col, codec);
          const what = `${s.what} n=${n} nulls=${nullRate} ${codec} (${z.enc}/${z.codec})`;
          if (n === 4096 && nullRate === 0) {
            assert.is(z.enc, s.scheme, what);
            // Whole units pack as 0 … 49 (6 bits), not as 100 … 5000 (13 bits).
            if (s.what.includes('multiplier 100')) assert.ok(z.decoded <= 8 + 8 + packedBytes(4096, 6), `${what}: ${z.decoded} bytes`);
          }
          assertColumn(decodeZone(stored, z, s.type, 'f', 2), col, what);
        }
});

function expectCorruption(f: () => unknown, what: string): void {
  try {
    f();
  } catch (e) {
    if (!isPaxdError(e)) throw new Error(`${what}: threw a non-PaxdError: ${e instanceof Error ? e.stack : String(e)}`);
    assert.is(e.code, 'XX001', what);
    return;
  }
  assert.unreachable(`${what}: accepted`);
}

test('every flipped bit of every scheme\'s stored zone is detected', () => {
  const rng = new Rng(testSeed() + 2);
  for (const s of SHAPES)
    for (const codec of ['none', 'lz4'] as const) {
      const col = makeColumn(s, 64, rng, 0.1);
      const { stored, z } = zoneOf(col, codec);
      for (let bit = 0; bit < stored.byteLength * 8; bit++) {
        const bad = stored.slice();
        bad[bit >>> 3]! ^= 1 << (bit & 7);
        expectCorruption(() => decodeZone(bad, z, s.type, 'f', 2), `${s.what} ${codec} ${z.enc}: bit ${bit}`);
      }
    }
});

test('each decoder checks what it reads: damaged bytes with a matching crc fail with XX001 or decode to the right shape', () => {
  const rng = new Rng(testSeed() + 3);
  for (const s of SHAPES) {
    const col = makeColumn(s, 200, rng, 0.05);
    const { stored, z } = zoneOf(col, 'none');
    let rejected = 0;
    for (let bit = 0; bit < stored.byteLength * 8; bit++) {
      const bad = stored.slice();
      bad[bit >>> 3]! ^= 1 << (bit & 7);
      const zz = { ...z, crc: crc32(bad) >>> 0 };
      try {
        const c = decodeZone(bad, zz, s.type, 'f', 2);
        assert.is(c.length, 200);
        for (let i = 0; i < c.length; i++) getValue(c, i);
      } catch (e) {
        if (!isPaxdError(e) || e.code !== 'XX001') throw new Error(`${s.what} ${z.enc}: bit ${bit}: ${e instanceof Error ? e.stack : String(e)}`);
        rejected++;
      }
    }
    // Header bits (scheme, widths, reserved, counts) are always rejected: at least those.
    assert.ok(rejected >= 8 * 4, `${s.what} ${z.enc}: only ${rejected} damaged zones rejected`);
    // Truncated and extended bodies are rejected.
    for (const len of [0, 4, 8, stored.byteLength - 1]) {
      if (len < 0 || len >= stored.byteLength) continue;
      const bad = stored.slice(0, len);
      expectCorruption(() => decodeZone(bad, { ...z, stored: len, decoded: len, crc: crc32(bad) >>> 0 }, s.type, 'f', 2), `${s.what}: truncated to ${len}`);
    }
  }
});

test('a v2 zone is not read as v1, nor a v1 zone as v2', () => {
  const col = makeColumn(SHAPES[0]!, 100, new Rng(5), 0);
  const { stored, z } = zoneOf(col, 'none');
  expectCorruption(() => decodeZone(stored, z, SHAPES[0]!.type, 'f', 1), 'v2 as v1');
  const s = computeStats(col);
  const e = encodeZone(col, 0, 100, 0, 'none', 1);
  const z1: ZoneJson = { offset: 0, stored: e.stored.byteLength, decoded: e.decoded, codec: e.codec, enc: e.enc, rows: 100, nulls: 0, crc: e.crc, stats: statsToJson(col.type, s) };
  expectCorruption(() => decodeZone(e.stored, z1, SHAPES[0]!.type, 'f', 2), 'v1 as v2');
});

test.run();

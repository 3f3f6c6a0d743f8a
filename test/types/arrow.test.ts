import { makeData, Utf8, Int32, Int64, Dictionary, vectorFromArray, LargeUtf8, TimeUnit, Timestamp } from 'apache-arrow';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { arrowType, columnFromArrow, columnToArrow } from '../../src/types/arrow.js';
import { getValue } from '../../src/types/builder.js';
import type { PaxdError } from '../../src/types/errors.js';
import { parseText } from '../../src/types/text-io.js';
import { type PgType, TYPE_IDS } from '../../src/types/type.js';
import { Rng, randomColumn, randomType, testSeed } from '../support/random.js';

function same(a: unknown, b: unknown): boolean {
  if (a instanceof Uint8Array && b instanceof Uint8Array) return a.length === b.length && a.every((x, i) => x === b[i]);
  return Object.is(a, b);
}

test('arrowType follows DESIGN.md', () => {
  assert.is(String(arrowType({ id: 'timestamptz' })), 'Timestamp<MICROSECOND, UTC>');
  assert.is(String(arrowType({ id: 'timestamp' })), 'Timestamp<MICROSECOND>');
  assert.is(String(arrowType({ id: 'numeric', precision: 12, scale: 2 })), 'Decimal[12e+2]');
  assert.is(String(arrowType({ id: 'numeric' })), 'Utf8');
  assert.is(String(arrowType({ id: 'uuid' })), 'FixedSizeBinary[16]');
  assert.is(String(arrowType({ id: 'date' })), 'Date32<DAY>');
});

test('column -> Arrow -> column round trips every type (and shares buffers)', () => {
  const rng = new Rng(testSeed());
  for (let k = 0; k < 60; k++) {
    const type: PgType = k < TYPE_IDS.length ? { id: TYPE_IDS[k]! } : randomType(rng);
    const c = randomColumn(type, 100, rng, 0.2);
    const d = columnToArrow(c);
    assert.is(d.length, 100);
    assert.is(d.nullCount, c.nullCount);
    const back = columnFromArrow(type, d);
    for (let i = 0; i < 100; i++) if (!same(getValue(back, i), getValue(c, i))) assert.unreachable(`${JSON.stringify(type)} row ${i}`);
    if (type.id === 'int4' || type.id === 'int8' || type.id === 'text') assert.ok(back.values.buffer === c.values.buffer, 'zero-copy');
    // slices at offsets that are not multiples of 8
    const s = d.slice(3, 50);
    const cs = columnFromArrow(type, s);
    for (let i = 0; i < 50; i++) if (!same(getValue(cs, i), getValue(c, i + 3))) assert.unreachable(`${JSON.stringify(type)} slice row ${i}`);
  }
});

test('dictionary, LargeUtf8, other int widths and timestamp units convert', () => {
  const enc = vectorFromArray(['x', 'y', 'x', null], new Dictionary(new Utf8(), new Int32()));
  const c1 = columnFromArrow({ id: 'text' }, enc.data[0]!);
  assert.equal([0, 1, 2, 3].map((i) => getValue(c1, i)), ['x', 'y', 'x', null]);
  const large = vectorFromArray(['é', 'ab'], new LargeUtf8());
  const c2 = columnFromArrow({ id: 'varchar', length: 2 }, large.data[0]!);
  assert.equal([getValue(c2, 0), getValue(c2, 1)], ['é', 'ab']);
  const ints = makeData({ type: new Int32(), data: new Int32Array([1, -5, 70000]) });
  const c3 = columnFromArrow({ id: 'int8' }, ints);
  assert.equal([0, 1, 2].map((i) => getValue(c3, i)), [1n, -5n, 70000n]);
  const big = makeData({ type: new Int64(), data: new BigInt64Array([1n, 40000n]) });
  try {
    columnFromArrow({ id: 'int2' }, big);
    assert.unreachable('no error');
  } catch (e) {
    assert.is((e as PaxdError).code, '22003');
  }
  const ms = makeData({ type: new Timestamp(TimeUnit.MILLISECOND, 'UTC'), data: new BigInt64Array([1000n]) });
  assert.is(getValue(columnFromArrow({ id: 'timestamptz' }, ms), 0), 1000000n);
  const strs = vectorFromArray(['1.5', ' 2 '], new Utf8());
  const c4 = columnFromArrow({ id: 'numeric', precision: 5, scale: 1 }, strs.data[0]!);
  assert.equal([getValue(c4, 0), getValue(c4, 1)], [15n, 20n]);
  const tooLong = vectorFromArray(['abcd'], new Utf8());
  try {
    columnFromArrow({ id: 'varchar', length: 3 }, tooLong.data[0]!);
    assert.unreachable('no error');
  } catch (e) {
    assert.is((e as PaxdError).code, '22001');
  }
});

test('bpchar(n) from utf8 at byte level equals PostgreSQL bpchar input, value by value', () => {
  const rng = new Rng(testSeed() + 9);
  const pieces = ['a', 'é', '😀', ' ', 'z', '中'];
  for (const n of [1, 3, 10]) {
    const type: PgType = { id: 'bpchar', length: n };
    const values: (string | null)[] = [];
    for (let i = 0; i < 2000; i++) {
      if (rng.chance(0.1)) {
        values.push(null);
        continue;
      }
      let v = '';
      const parts = rng.int(0, n);
      for (let k = 0; k < parts; k++) v += rng.pick(pieces);
      if (rng.chance(0.3)) v += ' '.repeat(rng.int(1, 4)); // trailing spaces past n are dropped
      values.push(v);
    }
    const data = vectorFromArray(values, new Utf8()).data[0]!;
    let expected: (string | null)[] | PaxdError;
    try {
      expected = values.map((v) => (v === null ? null : (parseText(type, v) as string)));
    } catch (e) {
      expected = e as PaxdError;
    }
    try {
      const c = columnFromArrow(type, data);
      assert.ok(Array.isArray(expected), `bpchar(${n}): expected ${(expected as PaxdError).code}`);
      for (let i = 0; i < values.length; i++) assert.is(getValue(c, i), (expected as (string | null)[])[i], `bpchar(${n}) row ${i}: ${JSON.stringify(values[i])}`);
    } catch (e) {
      if (Array.isArray(expected)) throw e;
      assert.is((e as PaxdError).code, expected.code);
    }
    assert.ok(Array.isArray(expected), 'the random values all fit');
    // a value longer than n (not only spaces past n) is PostgreSQL's 22001
    try {
      columnFromArrow(type, vectorFromArray(['x'.repeat(n) + 'y'], new Utf8()).data[0]!);
      assert.unreachable('expected 22001');
    } catch (e) {
      assert.is((e as PaxdError).code, '22001');
    }
    // values already n characters long are shared, not copied
    const exact = vectorFromArray(['ab'.padEnd(n, ' ').slice(0, n), null, 'é'.repeat(n)], new Utf8()).data[0]!;
    assert.is(columnFromArrow(type, exact).data!.buffer, (exact.values as Uint8Array).buffer);
  }
});

test('decimal128 range checks at every precision: ±(10^p − 1) shared, ±10^p rejected as PostgreSQL does', () => {
  for (let p = 1; p <= 38; p++) {
    const type: PgType = { id: 'numeric', precision: p, scale: 0 };
    const words = (v: bigint) => {
      const u = BigInt.asUintN(128, v);
      return [0, 1, 2, 3].map((k) => Number((u >> BigInt(32 * k)) & 0xffffffffn));
    };
    const make = (vals: bigint[]) => {
      const buf = new Uint32Array(vals.length * 4);
      vals.forEach((v, i) => buf.set(words(v), i * 4));
      return makeData({ type: arrowType(type) as never, length: vals.length, data: buf as never });
    };
    const max = 10n ** BigInt(p) - 1n;
    const ok = columnFromArrow(type, make([max, -max, 0n, 1n, -1n]));
    assert.equal([0, 1, 2, 3, 4].map((i) => getValue(ok, i)), [max, -max, 0n, 1n, -1n], `p=${p}`);
    for (const bad of [max + 1n, -max - 1n]) {
      try {
        columnFromArrow(type, make([0n, bad]));
        assert.unreachable(`p=${p}: ${bad} should not fit`);
      } catch (e) {
        assert.is((e as PaxdError).code, '22003', `p=${p}: ${bad}: ${(e as Error).message}`);
      }
    }
  }
});

test.run();

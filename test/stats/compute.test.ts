import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { columnOf } from '../../src/types/builder.js';
import { sliceColumn } from '../../src/types/column.js';
import { compareValues } from '../../src/types/compare.js';
import type { PgType } from '../../src/types/type.js';
import { computeStats, mergeStats, statsFromJson, statsToJson } from '../../src/stats/index.js';
import { Rng, randomColumn, testSeed } from '../support/random.js';
import { assertStatsEqual, bruteStats } from './brute.js';

const TYPES: PgType[] = [
  { id: 'int2' }, { id: 'int4' }, { id: 'int8' }, { id: 'float4' }, { id: 'float8' }, { id: 'bool' },
  { id: 'text' }, { id: 'varchar', length: 20 }, { id: 'bpchar', length: 8 }, { id: 'bpchar' }, { id: 'bytea' },
  { id: 'date' }, { id: 'timestamp' }, { id: 'timestamptz' }, { id: 'numeric', precision: 38, scale: 0 },
  { id: 'numeric', precision: 10, scale: 2 }, { id: 'numeric' }, { id: 'uuid' }, { id: 'jsonb' },
];
const name = (t: PgType) => JSON.stringify(t);

test('computeStats equals brute force for every type, size, NULL rate and sub-range', () => {
  const rng = new Rng(testSeed());
  for (const t of TYPES) {
    for (const n of [0, 1, 7, 100, 3000]) {
      for (const nullRate of [0, 0.3, 1]) {
        const c = randomColumn(t, n, rng, nullRate);
        assertStatsEqual(t, computeStats(c), bruteStats(c, 0, n), `${name(t)} n=${n} nulls=${nullRate}`);
        for (let k = 0; k < 3 && n > 0; k++) {
          const a = rng.int(0, n);
          const b = rng.int(a, n);
          assertStatsEqual(t, computeStats(c, a, b), bruteStats(c, a, b), `${name(t)} [${a},${b})`);
        }
      }
    }
  }
});

test('computeStats over slices (non-zero offsets, unaligned decimal128 views)', () => {
  const rng = new Rng(testSeed() + 1);
  for (const t of TYPES) {
    const c = randomColumn(t, 2000, rng, 0.2);
    const s = sliceColumn(c, 512, 1000);
    assertStatsEqual(t, computeStats(s), bruteStats(s, 0, 1000), `${name(t)} slice`);
  }
  const t: PgType = { id: 'numeric', precision: 20, scale: 3 };
  const c = columnOf(t, [5n, -7n, 10n ** 20n - 1n, null, -(10n ** 20n) + 1n]);
  const raw = new Uint8Array(c.values.byteLength + 1).subarray(1);
  raw.set(c.values as Uint8Array);
  const odd = { ...c, values: raw };
  assertStatsEqual(t, computeStats(odd), bruteStats(c, 0, 5), 'unaligned decimal128');
});

test('sums: int8 extremes and decimal128 are exact, float sums follow PostgreSQL', () => {
  const big = columnOf({ id: 'int8' }, Array.from({ length: 5000 }, (_, i) => (i % 2 ? 9223372036854775807n : -9223372036854775808n + BigInt(i))));
  let want = 0n;
  for (let i = 0; i < 5000; i++) want += i % 2 ? 9223372036854775807n : -9223372036854775808n + BigInt(i);
  assert.is(computeStats(big).sum, want);
  const d = columnOf({ id: 'numeric', precision: 38, scale: 0 }, Array.from({ length: 3000 }, () => 10n ** 38n - 1n));
  assert.is(computeStats(d).sum, (10n ** 38n - 1n) * 3000n);
  assert.ok(Object.is(computeStats(columnOf({ id: 'float8' }, [-0, -0])).sum, -0));
  assert.ok(Object.is(computeStats(columnOf({ id: 'float8' }, [-0, 0])).sum, 0));
  assert.ok(Number.isNaN(computeStats(columnOf({ id: 'float8' }, [Infinity, -Infinity, 1])).sum));
  const f = computeStats(columnOf({ id: 'float8' }, [NaN, 3, NaN, -Infinity, null]));
  assert.equal([f.nans, f.min, f.max, f.nulls], [2, -Infinity, 3, 1]);
  assert.ok(Number.isNaN(f.sum));
  assert.is(computeStats(columnOf({ id: 'float4' }, [16777216, 1, 1])).sum, 16777216);
  const n = computeStats(columnOf({ id: 'numeric' }, ['1.50', '2', '-0.005', 'NaN', null]));
  assert.equal([n.min, n.max, n.sum, n.nans], ['-0.005', '2', 'NaN', 1]);
  const n2 = computeStats(columnOf({ id: 'numeric' }, ['1.50', '2', '-0.005', 'Infinity']));
  assert.equal([n2.min, n2.max, n2.sum], ['-0.005', 'Infinity', 'Infinity']);
  assert.is(computeStats(columnOf({ id: 'numeric' }, ['1.50', '2', '-0.005'])).sum, '3.495');
  assert.is(computeStats(columnOf({ id: 'numeric' }, ['Infinity', '-Infinity'])).sum, 'NaN');
  assert.is(computeStats(columnOf({ id: 'int4' }, [null, null])).sum, null);
  assert.is(computeStats(columnOf({ id: 'date' }, [1, 2])).sum, null);
});

test('numeric text: canonical columns (the byte path) agree with brute force, with and without specials', () => {
  const rng = new Rng(testSeed() + 2);
  const t: PgType = { id: 'numeric' };
  const digits = (n: number, lead: boolean) => Array.from({ length: n }, (_, i) => String(i === 0 && lead ? rng.int(1, 10) : rng.int(0, 10))).join('');
  const one = (): string => {
    const intLen = rng.pick([1, 1, 2, 5, 9, 15, 16, 25, 40]);
    const ip = intLen === 1 && rng.int(0, 3) === 0 ? '0' : digits(intLen, true);
    const scale = rng.pick([0, 0, 1, 2, 3, 10, 20, 31, 32]);
    const fp = scale === 0 ? '' : '.' + digits(scale, false);
    const v = ip + fp;
    return rng.int(0, 2) === 0 && /[1-9]/.test(v) ? '-' + v : v;
  };
  // Few integer parts and short fractions: many values share their integer digits.
  const near = (): string => {
    const v = String(rng.int(0, 3)) + rng.pick(['', '.0', '.5', '.50', '.05', '.9', '.99', '.000']);
    return rng.int(0, 2) === 0 && /[1-9]/.test(v) ? '-' + v : v;
  };
  for (const n of [1, 5, 100, 3000]) {
    for (const special of [null, 'NaN', 'Infinity', '-Infinity', '-0', '007']) {
      const gen = rng.int(0, 2) === 0 ? one : near;
      const vals: (string | null)[] = Array.from({ length: n }, () => (rng.int(0, 10) === 0 ? null : gen()));
      // Values near 2^53 per scale push the accumulators through their flush to BigInt.
      for (let k = 0; k < 5; k++) vals.push('999999999999999', '-999999999999999', '99999999999999.9');
      if (special !== null) vals.splice(rng.int(0, vals.length), 0, special);
      const c = columnOf(t, vals);
      assertStatsEqual(t, computeStats(c), bruteStats(c, 0, vals.length), `n=${n} special=${special}`);
      const a = rng.int(0, vals.length);
      assertStatsEqual(t, computeStats(c, a, vals.length), bruteStats(c, a, vals.length), `n=${n} [${a},)`);
    }
  }
  const eq = computeStats(columnOf(t, ['1.5', '1.50', '-2.0', '-2', '0.000', '0']));
  assert.equal([eq.min, eq.max, eq.sum], ['-2.0', '1.5', '-1.000']);
});

test('long strings get truncated bounds that stay valid UTF-8 and bracket the values', () => {
  const long = 'é'.repeat(40); // 80 bytes
  const s = computeStats(columnOf({ id: 'text' }, ['b', long, 'a' + '😀'.repeat(20)]));
  assert.is(s.min, 'a' + '😀'.repeat(15));
  assert.is(s.minExact, false);
  assert.is(s.max, 'é'.repeat(31) + 'ê');
  assert.is(s.maxExact, false);
  assert.ok(compareValues({ id: 'text' }, s.max, long) > 0);
  const top = computeStats(columnOf({ id: 'text' }, ['\u{10FFFF}'.repeat(20)]));
  assert.equal([top.max, top.maxExact], [null, false]);
  const edge = computeStats(columnOf({ id: 'text' }, ['\uD7FF'.repeat(30)]));
  assert.is(edge.max, '\uD7FF'.repeat(20) + '\uE000');
  const b = computeStats(columnOf({ id: 'bytea' }, [new Uint8Array(100).fill(255), new Uint8Array([1, 2])]));
  assert.equal([b.max, b.maxExact, b.min, b.minExact], [null, false, new Uint8Array([1, 2]), true]);
  const bp = computeStats(columnOf({ id: 'bpchar', length: 5 }, ['b    ', 'a  ', 'ab   ']));
  assert.equal([bp.min, bp.max], ['a', 'b']);
});

test('compareValues: PostgreSQL orderings', () => {
  const t = (id: PgType['id']) => ({ id }) as PgType;
  assert.ok(compareValues(t('float8'), NaN, Infinity) > 0);
  assert.is(compareValues(t('float8'), NaN, NaN), 0);
  assert.is(compareValues(t('float8'), -0, 0), 0);
  assert.ok(compareValues(t('text'), '\uFFFD', '😀') < 0);
  assert.ok(compareValues(t('text'), 'a', 'ab') < 0);
  assert.is(compareValues(t('bpchar'), 'ab  ', 'ab'), 0);
  assert.ok(compareValues(t('bpchar'), 'a ', 'a\t') < 0);
  assert.ok(compareValues(t('bytea'), new Uint8Array([1]), new Uint8Array([1, 0])) < 0);
  const num = t('numeric');
  const ordered = ['-Infinity', '-1e300', '-2.5', '-0.001', '0', '0.000', '1.5', '1.50', '10', '1e3', '99999999999999999999', 'Infinity', 'NaN'];
  for (let i = 0; i < ordered.length; i++)
    for (let j = 0; j < ordered.length; j++) {
      const c = Math.sign(compareValues(num, ordered[i]!, ordered[j]!));
      const equal = (x: string, y: string) => (x === '0' && y === '0.000') || (x === '1.5' && y === '1.50');
      const want = i === j || equal(ordered[i]!, ordered[j]!) || equal(ordered[j]!, ordered[i]!) ? 0 : Math.sign(i - j);
      assert.is(c, want, `${ordered[i]} vs ${ordered[j]}`);
    }
  assert.ok(compareValues(t('bool'), false, true) < 0);
});

test('mergeStats of two ranges equals the stats of their union; exactness follows the winner', () => {
  const rng = new Rng(testSeed() + 2);
  for (const t of TYPES) {
    for (let k = 0; k < 4; k++) {
      const n = rng.int(0, 500);
      const c = randomColumn(t, n, rng, rng.pick([0, 0.5, 1]));
      const cut = rng.int(0, n);
      const a = computeStats(c, 0, cut);
      const b = computeStats(c, cut, n);
      const m = mergeStats(t, a, b);
      const whole = computeStats(c);
      if (t.id === 'float4' || t.id === 'float8') {
        if (a.sum !== null && b.sum !== null) {
          const want = t.id === 'float4' ? Math.fround((a.sum as number) + (b.sum as number)) : (a.sum as number) + (b.sum as number);
          assert.ok(Object.is(m.sum, want));
        }
        whole.sum = m.sum;
      }
      assertStatsEqual(t, m, whole, `${name(t)} merge at ${cut}/${n}`);
    }
  }
  const tx: PgType = { id: 'text' };
  const exact = computeStats(columnOf(tx, ['m']));
  const bound = { ...computeStats(columnOf(tx, ['z'])), max: 'zz', maxExact: false };
  const m = mergeStats(tx, exact, bound);
  assert.equal([m.max, m.maxExact, m.min, m.minExact], ['zz', false, 'm', true]);
  const unbounded = { ...exact, max: null, maxExact: false };
  assert.equal([mergeStats(tx, unbounded, bound).max, mergeStats(tx, unbounded, bound).maxExact], [null, false]);
  const tie = mergeStats(tx, { ...exact, minExact: false }, exact);
  assert.is(tie.minExact, true);
});

test('statsToJson / statsFromJson round trip exactly through JSON text', () => {
  const rng = new Rng(testSeed() + 3);
  for (const t of TYPES) {
    for (let k = 0; k < 20; k++) {
      const c = randomColumn(t, rng.int(0, 50), rng, rng.pick([0, 0.2, 1]));
      const s = computeStats(c);
      const j = JSON.parse(JSON.stringify(statsToJson(t, s)));
      const back = statsFromJson(t, j);
      assert.equal(back, s, `${name(t)}`);
      for (const key of ['min', 'max', 'sum'] as const) if (typeof s[key] === 'number') assert.ok(Object.is(back[key], s[key]), `${name(t)} ${key}`);
    }
  }
  const j = statsToJson({ id: 'float8' }, computeStats(columnOf({ id: 'float8' }, [-0, NaN, Infinity])));
  assert.equal(j, { rows: 3, nulls: 0, nans: 1, min: '-0', max: 'Infinity', sum: 'NaN' });
  assert.equal(statsToJson({ id: 'int8' }, computeStats(columnOf({ id: 'int8' }, [-9223372036854775808n]))), {
    rows: 1, nulls: 0, min: '-9223372036854775808', max: '-9223372036854775808', sum: '-9223372036854775808',
  });
  assert.equal(statsToJson({ id: 'uuid' }, computeStats(columnOf({ id: 'uuid' }, [new Uint8Array(16).fill(0xab)]))).min, 'ab'.repeat(16));
});

test.run();

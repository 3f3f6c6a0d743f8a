/**
 * The scan adapter's column loops (src/engine/exec/scan-columns.ts) give exactly what the slow
 * path (getValue, numeric(p,s) through formatDecimal's bigint) gives, for every layout they
 * cover: NULLs, selections, int4/int8/float8/bool, decimals on both sides of the safe-integer
 * fast path (±2^53, ±2^64, negative zero-padded scales), text with and without a dictionary.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type Column, type Field, type PgType, type Value, columnOf, formatDecimal, getValue } from '../../../src/types/index.js';
import { fastColumn } from '../../../src/engine/exec/scan-columns.js';

function slow(c: Column, f: Field, sel: Uint32Array | null, rows: number): Value[] {
  const scale = f.type.id === 'numeric' ? (f.type.scale ?? 0) : -1;
  return Array.from({ length: rows }, (_v, i) => {
    const v = getValue(c, sel === null ? i : sel[i]!);
    return scale >= 0 && v !== null ? formatDecimal(v as bigint, scale) : v;
  });
}

function check(type: PgType, values: Value[]): void {
  const c = columnOf(type, values);
  const f = { name: 'x', type, fieldId: 1 } as unknown as Field;
  const sel = Uint32Array.from(values.map((_v, i) => i).filter((i) => i % 3 !== 1));
  assert.equal(fastColumn(c, f, null, values.length), slow(c, f, null, values.length), type.id);
  assert.equal(fastColumn(c, f, sel, sel.length), slow(c, f, sel, sel.length), `${type.id} with a selection`);
}

test('numbers, bigints and booleans, with NULLs and a selection', () => {
  check({ id: 'int4' }, [1, null, -7, 2147483647, -2147483648, 0, null]);
  check({ id: 'int8' }, [1n, null, -(2n ** 63n), 2n ** 63n - 1n, 0n]);
  check({ id: 'float8' }, [1.5, null, -0, Number.NaN, Number.POSITIVE_INFINITY, 1e300]);
  check({ id: 'bool' }, [true, false, null, true, true, false, false, true, null, true]);
});

test('decimals on both sides of the safe-integer path', () => {
  const big = [
    0n,
    1n,
    -1n,
    5n,
    -5n,
    2n ** 32n,
    -(2n ** 32n),
    2n ** 32n - 1n,
    2n ** 53n - 1n,
    -(2n ** 53n) + 1n,
    2n ** 53n,
    2n ** 53n + 1n,
    -(2n ** 53n) - 1n,
    2n ** 64n + 3n,
    -(2n ** 64n) - 3n,
    10n ** 37n,
    -(10n ** 37n),
  ];
  for (const scale of [0, 2, 5]) check({ id: 'numeric', precision: 38, scale }, [...big, null, ...big.map((v) => v * 7n)]);
});

test('text, with and without a dictionary', () => {
  check({ id: 'text' }, ['a', '', null, 'héllo', '\uFEFFbom', 'a'.repeat(300), '日本']);
  const c = columnOf({ id: 'text' }, ['x', 'y', 'x', null]);
  const dict = columnOf({ id: 'text' }, ['x', 'y']);
  const withDict: Column = { ...c, dictionary: { codes: Uint16Array.from([0, 1, 0, 0]), entries: dict } };
  const f = { name: 'x', type: { id: 'text' }, fieldId: 1 } as unknown as Field;
  assert.equal(fastColumn(withDict, f, null, 4), ['x', 'y', 'x', null]);
  assert.equal(fastColumn(withDict, f, Uint32Array.from([3, 1]), 2), [null, 'y']);
});

test('uuid, interval and bytea stay on the slow path', () => {
  const f = (type: PgType) => ({ name: 'x', type, fieldId: 1 }) as unknown as Field;
  assert.is(fastColumn(columnOf({ id: 'bytea' }, [new Uint8Array([1])]), f({ id: 'bytea' }), null, 1), null);
  assert.is(fastColumn(columnOf({ id: 'uuid' }, [new Uint8Array(16)]), f({ id: 'uuid' }), null, 1), null);
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { columnOf, getValue } from '../../src/types/builder.js';
import { sliceColumn } from '../../src/types/column.js';

test('builder round-trips int8 and text with NULLs, slices keep values', () => {
  const vals = Array.from({ length: 3000 }, (_, i) => (i % 7 === 0 ? null : BigInt(i) * 1000000007n - 5n));
  const c = columnOf({ id: 'int8' }, vals);
  assert.is(c.length, 3000);
  assert.is(c.nullCount, vals.filter((v) => v === null).length);
  for (let i = 0; i < 3000; i++) assert.is(getValue(c, i), vals[i]);
  const s = sliceColumn(c, 1024, 1024);
  for (let i = 0; i < 1024; i++) assert.is(getValue(s, i), vals[1024 + i]);
  const t = columnOf({ id: 'text' }, ['a', null, 'héllo', '']);
  assert.equal([0, 1, 2, 3].map((i) => getValue(t, i)), ['a', null, 'héllo', '']);
});

test.run();

/**
 * The one physical-kind enum (src/types/kind.ts): every type maps to a kind, every kind to a
 * layout, and the layout's width is what a built column really holds per value — for every
 * type, checked on columns built from random values, not on the table itself.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Kind, PHYSICAL, kindOf, physicalOf } from '../../src/types/kind.js';
import { TYPE_IDS, byteWidth, type PgType } from '../../src/types/type.js';
import { columnOf } from '../../src/types/builder.js';
import { arrayOf } from '../../src/types/array.js';
import { Rng, randomValue, testSeed } from '../support/random.js';

const TYPES: PgType[] = [
  ...TYPE_IDS.filter((id) => id !== 'numeric' && id !== 'varchar' && id !== 'bpchar').map((id) => ({ id })),
  { id: 'numeric', precision: 12, scale: 3 },
  { id: 'numeric' },
  { id: 'varchar', length: 8 },
  { id: 'bpchar', length: 3 },
];

test('every kind is reached by a type, and every type has a kind and a layout', () => {
  const reached = new Set(TYPES.map(kindOf));
  reached.add(kindOf({ id: 'interval' }));
  reached.add(kindOf(arrayOf({ id: 'int4' })));
  // The object identifier family: types of expressions and catalog columns only (./object-id.ts).
  const objectIds: PgType[] = (['oid', 'xid', 'regclass', 'regtype', 'regproc', 'regprocedure', 'regnamespace', 'regrole', 'regoper', 'name', 'char', 'int2vector', 'oidvector'] as const).map((id) => ({ id }));
  for (const t of objectIds) {
    reached.add(kindOf(t));
    assert.is(physicalOf(t), PHYSICAL[kindOf(t)], t.id);
  }
  assert.equal([...reached].sort((a, b) => a - b), Object.values(Kind).sort((a, b) => a - b));
  for (const t of TYPES) assert.is(physicalOf(t), PHYSICAL[kindOf(t)], t.id);
});

test("a kind's width is the bytes per value of a column built with values of its type", () => {
  const rng = new Rng(testSeed(0x6b1d));
  for (const t of TYPES) {
    const n = 17;
    const col = columnOf(t, Array.from({ length: n }, () => randomValue(t, rng)));
    const p = PHYSICAL[kindOf(t)];
    const w = byteWidth(p);
    if (p === 'var') assert.ok(col.offsets !== null && col.offsets.length === n + 1, `${t.id}: offsets`);
    else if (p === 'bit') assert.ok(col.values.byteLength >= Math.ceil(n / 8) && col.values.byteLength < n, `${t.id}: bit-packed`);
    else assert.is(col.values.byteLength, n * w, `${t.id}: ${w} bytes per value`);
  }
});

test.run();

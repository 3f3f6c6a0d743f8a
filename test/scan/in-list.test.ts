/**
 * Long IN lists in scan predicates (src/scan/predicate.ts `in` nodes): one node however many
 * values, pruned by a binary search over the sorted values with the same answers as the OR of
 * `=` it stands for (NOT IN: the AND of `<>`), and compiled to one membership test whose
 * compiled kernel is never shared between types that search differently.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Field } from '../../src/types/type.js';
import type { Value } from '../../src/types/column.js';
import { columnOf } from '../../src/types/builder.js';
import type { ColumnStats } from '../../src/stats/index.js';
import { P, bindPredicate, describePredicate, IN_NODE_MIN, type Predicate } from '../../src/scan/predicate.js';
import { classify } from '../../src/scan/prune.js';
import { compilePredicate } from '../../src/scan/compile.js';

const field = (name: string, type: Field['type']): Field => ({ name, type, notNull: false, fieldId: 1 });
const I = [field('i', { id: 'int4' })];
const X = [field('x', { id: 'float8' })];

function st(o: Partial<ColumnStats>): ColumnStats {
  return { rows: 10, nulls: 0, nans: 0, min: null, max: null, minExact: true, maxExact: true, sum: null, ...o };
}

function cls(p: Predicate, fields: Field[], s: ColumnStats): string {
  return classify(bindPredicate(p, fields), s.rows, () => s);
}

/** The same list below IN_NODE_MIN values (an OR of `=`, judged leaf by leaf) and at or above it (one `in` node). */
function both(values: readonly Value[]): { short: Value[]; long: Value[] } {
  const long = [...values];
  while (long.length < IN_NODE_MIN) long.push(values[0]!);
  return { short: [...values], long };
}

function run(p: Predicate, fields: Field[], values: Value[]): number[] {
  const bp = bindPredicate(p, fields);
  const ev = compilePredicate(bp);
  const cols = [columnOf(bp.fields[0]!.type, values)];
  const out = new Uint32Array(values.length);
  return Array.from(out.subarray(0, ev.run(cols, 0, values.length, null, 0, out)));
}

test('binding: a long list is one node, whatever its length; NULLs drop out of IN and make NOT IN never true', () => {
  const many = Array.from({ length: 100_000 }, (_v, k) => 3 * k);
  assert.is(describePredicate(bindPredicate(P.in('i', many), I)), 'i IN (100000 values)');
  assert.is(describePredicate(bindPredicate(P.not(P.in('i', many)), I)), 'i NOT IN (100000 values)');
  assert.is(describePredicate(bindPredicate(P.in('i', [...many, null]), I)), 'i IN (100000 values)');
  assert.is(describePredicate(bindPredicate(P.not(P.in('i', [...many, null])), I)), 'NULL');
  assert.is(describePredicate(bindPredicate(P.in('i', Array(IN_NODE_MIN).fill(null)), I)), 'NULL');
});

test('pruning: an IN node answers as the OR of its equalities would (NULLs, NaN, a single value, out of range)', () => {
  const units = [
    st({ min: 1, max: 5 }),
    st({ min: 3, max: 3 }),
    st({ min: 4, max: 4 }),
    st({ nulls: 4, min: 3, max: 3 }),
    st({ nulls: 10 }),
    st({ min: null, max: 2 }),
    st({ min: 8, max: null }),
    st({ min: 100, max: 200 }),
  ];
  const { short, long } = both([3, 7, 9]);
  for (const s of units) {
    for (const [p, q] of [
      [P.in('i', short), P.in('i', long)],
      [P.not(P.in('i', short)), P.not(P.in('i', long))],
    ] as const) {
      assert.is(cls(q, I, s), cls(p, I, s), `${JSON.stringify(s)}: ${describePredicate(bindPredicate(q, I))}`);
    }
  }
  // NaN equals NaN (PostgreSQL's float order): NaN rows are true exactly when NaN is listed.
  const nans = st({ nans: 10, rows: 10 });
  assert.is(cls(P.in('x', both([1, Number.NaN]).long), X, nans), 'all');
  assert.is(cls(P.in('x', both([1, 2]).long), X, nans), 'none');
  assert.is(cls(P.not(P.in('x', both([1, Number.NaN]).long)), X, nans), 'none');
  assert.is(cls(P.not(P.in('x', both([1, 2]).long)), X, nans), 'all');
  // The binary search over 100,000 values: a unit between two listed values is skipped.
  const many = Array.from({ length: 100_000 }, (_v, k) => 3 * k);
  assert.is(cls(P.in('i', many), I, st({ min: 301, max: 302 })), 'none');
  assert.is(cls(P.in('i', many), I, st({ min: 301, max: 303 })), 'some');
  assert.is(cls(P.in('i', many), I, st({ min: 300_000, max: 400_000 })), 'none');
  assert.is(cls(P.not(P.in('i', many)), I, st({ min: 301, max: 302 })), 'all');
});

test('compiled: kernels of IN lists over types of one layout are not shared (bpchar after text, decimal128 after uuid)', () => {
  // text and bpchar are both offsets + bytes; bpchar ignores trailing spaces, text does not.
  const text = [field('c', { id: 'text' })];
  const bpchar = [field('c', { id: 'bpchar', length: 4 })];
  const words = both(['ab', 'cd']).long;
  assert.equal(run(P.in('c', words), text, ['ab', 'ab  ', 'zz', null]), [0]);
  assert.equal(run(P.in('c', words), bpchar, ['ab  ', 'cd  ', 'zz  ', null]), [0, 1]);
  assert.equal(run(P.not(P.in('c', words)), bpchar, ['ab  ', 'cd  ', 'zz  ', null]), [2]);
  // uuid and numeric(20,2) are both 16 bytes a value; one compares bytes, the other signed 128-bit integers.
  const uuid = [field('u', { id: 'uuid' })];
  const dec = [field('u', { id: 'numeric', precision: 20, scale: 2 })];
  const u = (b: number) => Uint8Array.from({ length: 16 }, (_v, k) => (k === 15 ? b : 0));
  assert.equal(run(P.in('u', both([u(1), u(2)]).long), uuid, [u(1), u(3), null, u(2)]), [0, 3]);
  assert.equal(run(P.in('u', both([-100n, 2n ** 70n]).long), dec, [-100n, 100n, 2n ** 70n, null]), [0, 2]);
});

test.run();

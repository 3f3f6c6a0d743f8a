/**
 * Predicates: binding (normal form, value checks with SQLSTATEs), three-valued pruning from
 * statistics (NULLs, NaN, inexact bounds, NOT over unknown) and compiled row evaluation.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Field } from '../../src/types/type.js';
import type { Value } from '../../src/types/column.js';
import { columnOf } from '../../src/types/builder.js';
import { isPaxdError } from '../../src/types/errors.js';
import type { ColumnStats } from '../../src/stats/index.js';
import { P, bindPredicate, describePredicate, type Predicate } from '../../src/scan/predicate.js';
import { classify } from '../../src/scan/prune.js';
import { compilePredicate, compiledShapes } from '../../src/scan/compile.js';

const F: Field[] = [
  { name: 'x', type: { id: 'float8' }, notNull: false, fieldId: 1 },
  { name: 'i', type: { id: 'int4' }, notNull: false, fieldId: 2 },
  { name: 's', type: { id: 'text' }, notNull: false, fieldId: 3 },
  { name: 'n', type: { id: 'numeric', precision: 10, scale: 2 }, notNull: false, fieldId: 4 },
  { name: 'j', type: { id: 'jsonb' }, notNull: false, fieldId: 5 },
  { name: 'b', type: { id: 'int8' }, notNull: false, fieldId: 6 },
];

function st(o: Partial<ColumnStats>): ColumnStats {
  return { rows: 10, nulls: 0, nans: 0, min: null, max: null, minExact: true, maxExact: true, sum: null, ...o };
}

function cls(p: Predicate, s: ColumnStats): string {
  const bp = bindPredicate(p, F);
  return classify(bp, s.rows, () => s);
}

test('binding: NOT pushed to the leaves, BETWEEN and IN expanded, NULL comparisons never true', () => {
  assert.is(describePredicate(bindPredicate(P.not(P.and(P.lt('i', 3), P.isNull('s'))), F)), '(i >= 3 OR s IS NOT NULL)');
  assert.is(describePredicate(bindPredicate(P.not(P.between('i', 1, 5)), F)), '(i < 1 OR i > 5)');
  assert.is(describePredicate(bindPredicate(P.in('i', [1, null, 3]), F)), '(i = 1 OR i = 3)');
  assert.is(describePredicate(bindPredicate(P.not(P.in('i', [1, null])), F)), 'NULL');
  assert.is(describePredicate(bindPredicate(P.eq('n', '12.50'), F)), 'n = 1250');
});

test('binding errors carry SQLSTATEs', () => {
  const code = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return isPaxdError(e) ? e.code : 'not a PaxdError';
    }
    return 'no error';
  };
  assert.is(code(() => bindPredicate(P.eq('nope', 1), F)), '42703');
  assert.is(code(() => bindPredicate(P.eq('i', true), F)), '42804');
  assert.is(code(() => bindPredicate(P.eq('n', '1.505'), F)), '0A000');
  assert.is(code(() => bindPredicate(P.lt('j', '{}'), F)), '0A000');
  assert.is(code(() => bindPredicate(P.isNull('j'), F)), 'no error');
});

test('pruning: NULLs are never true, and NOT over unknown stays unknown', () => {
  const allNull = st({ nulls: 10 });
  assert.is(cls(P.eq('i', 1), allNull), 'none');
  assert.is(cls(P.not(P.eq('i', 1)), allNull), 'none');
  assert.is(cls(P.isNull('i'), allNull), 'all');
  assert.is(cls(P.isNotNull('i'), allNull), 'none');
  const some = st({ nulls: 2, min: 1, max: 5 });
  assert.is(cls(P.ge('i', 1), some), 'some'); // the NULLs are not true
  assert.is(cls(P.ge('i', 1), st({ min: 1, max: 5 })), 'all');
  assert.is(cls(P.gt('i', 5), some), 'none');
  assert.is(cls(P.or(P.gt('i', 5), P.isNull('i')), some), 'some');
  // sound but not exact: per-row correlation between operands is not tracked
  assert.is(cls(P.or(P.ge('i', 1), P.isNull('i')), some), 'some');
  assert.is(cls(P.eq('i', 3), st({ min: 3, max: 3 })), 'all');
  assert.is(cls(P.ne('i', 3), st({ min: 3, max: 3 })), 'none');
  assert.is(cls(P.in('i', [7, 9]), st({ min: 1, max: 5 })), 'none');
  assert.is(cls(P.eq('i', 1), st({ rows: 0 })), 'none');
});

test('pruning: NaN sorts above every number and equals NaN', () => {
  const withNan = st({ nans: 3, min: -1, max: 2 });
  assert.is(cls(P.gt('x', 100), withNan), 'some'); // the NaNs are > 100
  assert.is(cls(P.gt('x', 100), st({ min: -1, max: 2 })), 'none');
  assert.is(cls(P.gt('x', 100), st({ nans: 10 })), 'all');
  assert.is(cls(P.eq('x', NaN), st({ nans: 10 })), 'all');
  assert.is(cls(P.lt('x', NaN), st({ min: -1, max: Infinity })), 'all');
  assert.is(cls(P.lt('x', Infinity), withNan), 'some');
  assert.is(cls(P.ge('x', NaN), st({ min: -1, max: 2 })), 'none');
});

test('pruning: inexact bounds prove none, and all only in the direction they bound', () => {
  // "abc…" truncated: min is a lower bound, max an upper bound; an absent max is unbounded
  const bounds = st({ min: 'abc', max: 'abd', minExact: false, maxExact: false });
  assert.is(cls(P.gt('s', 'abe'), bounds), 'none');
  assert.is(cls(P.lt('s', 'abb'), bounds), 'none');
  assert.is(cls(P.ge('s', 'abc'), bounds), 'all');
  assert.is(cls(P.eq('s', 'abc'), bounds), 'some');
  assert.is(cls(P.gt('s', 'zzz'), st({ min: 'abc', max: null, maxExact: false })), 'some');
  // min/max kept after deletes (bounds): a range proven by the bounds still holds
  assert.is(cls(P.gt('i', 0), st({ min: 1, max: 9, minExact: false, maxExact: false })), 'all');
});

function run(p: Predicate, cols: { name: string; values: Value[] }[], sel: number[] | null = null): number[] {
  const bp = bindPredicate(p, F);
  const ev = compilePredicate(bp);
  const columns = bp.fields.map((f) => columnOf(f.type, cols.find((c) => c.name === f.name)!.values));
  const n = columns[0]!.length;
  const out = new Uint32Array(n);
  const k = ev.run(columns, 0, n, sel === null ? null : Uint32Array.from(sel), sel?.length ?? 0, out);
  return Array.from(out.subarray(0, k));
}

test('compiled evaluation: NULL, NaN, int8 halves, decimals, text bytes, selections', () => {
  const x = { name: 'x', values: [1, NaN, null, -0, Infinity, -Infinity] as Value[] };
  assert.equal(run(P.gt('x', 0), [x]), [0, 1, 4]);
  assert.equal(run(P.ge('x', NaN), [x]), [1]);
  assert.equal(run(P.lt('x', NaN), [x]), [0, 3, 4, 5]);
  assert.equal(run(P.eq('x', 0), [x]), [3]);
  assert.equal(run(P.ne('x', 1), [x]), [1, 3, 4, 5]);
  assert.equal(run(P.not(P.gt('x', 0)), [x]), [3, 5]);
  const b = { name: 'b', values: [-(2n ** 63n), -1n, 0n, 4294967296n, 2n ** 63n - 1n, null, 4294967295n] as Value[] };
  assert.equal(run(P.gt('b', 4294967295n), [b]), [3, 4]);
  assert.equal(run(P.lt('b', 0), [b]), [0, 1]);
  assert.equal(run(P.between('b', -1n, 4294967296n), [b]), [1, 2, 3, 6]);
  const n = { name: 'n', values: [-100n, 5n, 2n ** 70n, null, -(2n ** 70n)] as Value[] };
  assert.equal(run(P.gt('n', '0.05'), [n]), [2]);
  assert.equal(run(P.le('n', 5n), [n]), [0, 1, 4]);
  const s = { name: 's', values: ['a', 'ab', '', 'b', null, '\u{e000}', '\u{1f600}'] as Value[] };
  assert.equal(run(P.gt('s', 'a'), [s]), [1, 3, 5, 6]);
  assert.equal(run(P.gt('s', '\u{e000}'), [s]), [6]); // code point order, not UTF-16
  assert.equal(run(P.in('s', ['', 'b']), [s]), [2, 3]);
  assert.equal(run(P.gt('s', 'a'), [s], [0, 1, 6]), [1, 6]);
});

test('compiled code is cached per shape: a changing constant does not compile again', () => {
  run(P.gt('i', 1), [{ name: 'i', values: [1, 2] }]);
  const before = compiledShapes();
  for (let c = 0; c < 50; c++) assert.equal(run(P.gt('i', c), [{ name: 'i', values: [c, c + 1] }]), [1]);
  assert.is(compiledShapes(), before);
});

test.run();

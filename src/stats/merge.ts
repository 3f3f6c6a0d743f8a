/**
 * mergeStats: statistics of the union of two disjoint row sets (zones -> group -> file ->
 * table). Counts add; min/max take the winner by PostgreSQL's order (types/compare.ts) and
 * keep the winner's exactness; on a tie the bound is exact when either side is exact (an
 * exact side proves the value occurs). A null max with maxExact false means "unbounded"
 * (a truncated string bound that could not be incremented) and wins; a null min/max with
 * exactness true means "no value" and loses.
 *
 * Sums add exactly (bigint, decimal text); float sums add a then b, so folding zone sums in
 * row order gives the group's sum in storage order of its partial sums.
 */
import { addDecimalText, type Value, compareValues, type PgType } from '../types/index.js';
import type { ColumnStats } from './types.js';

export function mergeStats(type: PgType, a: ColumnStats, b: ColumnStats): ColumnStats {
  const lo = pick(type, a.min, a.minExact, b.min, b.minExact, -1);
  const hi = pick(type, a.max, a.maxExact, b.max, b.maxExact, 1);
  return {
    rows: a.rows + b.rows,
    nulls: a.nulls + b.nulls,
    nans: a.nans + b.nans,
    min: lo.value,
    minExact: lo.exact,
    max: hi.value,
    maxExact: hi.exact,
    sum: addSums(type, a.sum, b.sum),
  };
}

/** The bound that wins in direction `dir` (-1: smaller wins, 1: larger wins). */
function pick(type: PgType, av: Value, ae: boolean, bv: Value, be: boolean, dir: number): { value: Value; exact: boolean } {
  if (av === null) return ae ? { value: bv, exact: be } : { value: null, exact: false };
  if (bv === null) return be ? { value: av, exact: ae } : { value: null, exact: false };
  const c = compareValues(type, av, bv) * dir;
  if (c > 0) return { value: av, exact: ae };
  if (c < 0) return { value: bv, exact: be };
  // Equal: b, the later rows, when it is exact (min/max keep the later of equal values, -0 and 0).
  return { value: be || !ae ? bv : av, exact: ae || be };
}

function addSums(type: PgType, a: ColumnStats['sum'], b: ColumnStats['sum']): ColumnStats['sum'] {
  if (a === null) return b;
  if (b === null) return a;
  if (typeof a === 'bigint' && typeof b === 'bigint') return a + b;
  if (typeof a === 'number' && typeof b === 'number') return type.id === 'float4' ? Math.fround(a + b) : a + b;
  if (typeof a === 'string' && typeof b === 'string') return addDecimalText(a, b);
  throw new Error(`mergeStats: sums of different kinds (${typeof a}, ${typeof b}) for ${type.id}`);
}

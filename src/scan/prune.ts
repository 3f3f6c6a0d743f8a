/**
 * Pruning: which rows of a group or zone can satisfy a bound predicate, judged from its
 * statistics alone. The answer is three-valued (STYLE.md habit 4):
 *
 *   'none'  no row can make the predicate true: the unit is skipped without reading it;
 *   'all'   every row makes it true: aggregates may be answered from statistics, and row
 *           evaluation of the predicate is unnecessary;
 *   'some'  anything else.
 *
 * Each leaf is judged by what its rows can be: TRUE, and NOT TRUE (false or unknown).
 * A row set is described by ColumnStats: `nulls` NULLs (a comparison on them is unknown),
 * `nans` NaNs (ordered above every number, so their truth is known exactly) and the rest,
 * which all lie in [min, max]. An exact min/max is a value that occurs; an inexact one (a
 * truncated string, or an old extreme kept after deletes) is only a bound, min <= every value
 * <= max, and is used only as such: it can prove 'none', and 'all' only where the direction of
 * the bound proves it (every value >= min > c proves x > c for all rows; equality never).
 * An absent min/max with the exactness flag false means unbounded.
 *
 * Over the normal form of ./predicate.ts (NOT only at the leaves):
 *   AND: can be true only if every operand can; can be not-true if any operand can;
 *   OR:  can be true if any operand can; can be not-true only if every operand can.
 * These over-approximate per-row correlation, which keeps the answer sound.
 */
import { type Value, compareValues, type PgType, isDecimal128 } from '../types/index.js';
import type { ColumnStats } from '../stats/index.js';
import type { BoundPredicate, CmpOp, Node } from './predicate.js';

export type Pruning = 'none' | 'all' | 'some';

/** Bit set of what the rows of a unit can be for a node. */
const TRUE = 1;
const NOT_TRUE = 2;

/**
 * Classifies a unit of `rows` rows. `statsOf(slot)` gives the statistics of the predicate's
 * field `slot` over exactly these rows (or a superset of them: still sound).
 */
export function classify(bp: BoundPredicate, rows: number, statsOf: (slot: number) => ColumnStats): Pruning {
  if (rows === 0) return 'none';
  const cache: (ColumnStats | undefined)[] = [];
  const stats = (slot: number): ColumnStats => (cache[slot] ??= statsOf(slot));
  const m = can(bp, bp.root, stats);
  if ((m & TRUE) === 0) return 'none';
  if ((m & NOT_TRUE) === 0) return 'all';
  return 'some';
}

function can(bp: BoundPredicate, n: Node, stats: (slot: number) => ColumnStats): number {
  switch (n.kind) {
    case 'never':
      return NOT_TRUE;
    case 'null': {
      const s = stats(n.slot);
      const nulls = s.nulls > 0;
      const values = s.rows - s.nulls > 0;
      const isNull = (nulls ? TRUE : 0) | (values ? NOT_TRUE : 0);
      return n.negated ? swap(isNull) : isNull;
    }
    case 'cmp':
      return leaf(bp.fields[n.slot]!.type, n.op, n.value, stats(n.slot));
    case 'in': {
      // NULLs are not true for IN and NOT IN alike; NOT IN swaps what the other rows can be.
      const s = stats(n.slot);
      const m = member(bp.fields[n.slot]!.type, n.values, s);
      return (s.nulls > 0 ? NOT_TRUE : 0) | (n.negated ? swap(m) : m);
    }
    case 'and': {
      let t = TRUE;
      let f = 0;
      for (const a of n.args) {
        const m = can(bp, a, stats);
        if ((m & TRUE) === 0) t = 0;
        f |= m & NOT_TRUE;
      }
      return t | f;
    }
    case 'or': {
      let t = 0;
      let f = NOT_TRUE;
      for (const a of n.args) {
        const m = can(bp, a, stats);
        t |= m & TRUE;
        if ((m & NOT_TRUE) === 0) f = 0;
      }
      return t | f;
    }
  }
}

/**
 * What the non-NULL rows of a unit can be for `x IN (values)`, values sorted (./predicate.ts
 * `in`), as the OR of `=` leaves would judge them: NaNs are true exactly when NaN is listed; a
 * regular value can be true when some listed value lies in [min, max] (one binary search
 * instead of one leaf per value), and can be not true unless min = max is listed.
 */
function member(t: PgType, values: readonly Exclude<Value, null>[], s: ColumnStats): number {
  let m = 0;
  if (s.nans > 0) m |= compareValues(t, nanOf(t), values[values.length - 1]!) === 0 ? TRUE : NOT_TRUE;
  if (s.rows - s.nulls - s.nans <= 0) return m;
  const lo = s.min;
  const hi = s.max;
  // The first listed value >= lo.
  let a = 0;
  let b = values.length;
  if (lo !== null)
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (compareValues(t, values[mid]!, lo) < 0) a = mid + 1;
      else b = mid;
    }
  const canTrue = a < values.length && (hi === null || compareValues(t, values[a]!, hi) <= 0);
  const single = lo !== null && hi !== null && compareValues(t, lo, hi) === 0;
  const canFalse = !(single && canTrue);
  return m | (canTrue ? TRUE : 0) | (canFalse ? NOT_TRUE : 0);
}

function swap(m: number): number {
  return ((m & TRUE) !== 0 ? NOT_TRUE : 0) | ((m & NOT_TRUE) !== 0 ? TRUE : 0);
}

/** The NaN value of a type that has one, in its stored representation. */
export function nanOf(t: PgType): Value {
  if (t.id === 'float4' || t.id === 'float8') return NaN;
  if (t.id === 'numeric' && !isDecimal128(t)) return 'NaN';
  return null;
}

/** Whether a comparison result `c` (negative, zero, positive) satisfies `op`. */
export function holds(op: CmpOp, c: number): boolean {
  switch (op) {
    case '=':
      return c === 0;
    case '<>':
      return c !== 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
  }
}

function leaf(t: PgType, op: CmpOp, c: Exclude<Value, null>, s: ColumnStats): number {
  let m = s.nulls > 0 ? NOT_TRUE : 0;
  if (s.nans > 0) m |= holds(op, compareValues(t, nanOf(t), c)) ? TRUE : NOT_TRUE;
  const regular = s.rows - s.nulls - s.nans;
  if (regular <= 0) return m;
  // lo <= every regular value <= hi; a missing side is unbounded.
  const lo = s.min;
  const hi = s.max;
  const cmpLo = lo === null ? -1 : compareValues(t, lo, c); // sign of (lo - c); -1 when unbounded
  const cmpHi = hi === null ? 1 : compareValues(t, hi, c);
  let canTrue: boolean;
  let canFalse: boolean;
  switch (op) {
    case '<':
      canTrue = cmpLo < 0;
      canFalse = cmpHi >= 0;
      break;
    case '<=':
      canTrue = cmpLo <= 0;
      canFalse = cmpHi > 0;
      break;
    case '>':
      canTrue = cmpHi > 0;
      canFalse = cmpLo <= 0;
      break;
    case '>=':
      canTrue = cmpHi >= 0;
      canFalse = cmpLo < 0;
      break;
    case '=':
      canTrue = cmpLo <= 0 && cmpHi >= 0;
      canFalse = !(cmpLo === 0 && cmpHi === 0);
      break;
    case '<>':
      canTrue = !(cmpLo === 0 && cmpHi === 0);
      canFalse = cmpLo <= 0 && cmpHi >= 0;
      break;
  }
  return m | (canTrue ? TRUE : 0) | (canFalse ? NOT_TRUE : 0);
}

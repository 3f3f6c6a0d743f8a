/**
 * WindowAgg, aggregates over frames (PostgreSQL 15 docs 4.2.8 and 9.21). The transition and
 * final functions are the hash aggregate's (../hash-aggregate.ts `accumulate`, `collect`,
 * `final`); what this file adds is how the frame moves over them:
 *
 *   running   frame starts at the partition's first row: one state, each row adds the rows its
 *             frame end passed (the default frame, ROWS/RANGE UNBOUNDED PRECEDING …): O(n)
 *   moving    count, and sum/avg of integers and numerics, bool_and/or: an accumulator that
 *             also removes the rows the frame start passed (PostgreSQL's inverse transitions): O(n)
 *   deque     min/max over a sliding frame: a monotone deque of positions: O(n)
 *   refold    everything else, and any frame with EXCLUDE: each row folds its frame afresh, as
 *             PostgreSQL restarts an aggregate without an inverse (float sums, variances, string_agg)
 */
import { type DecimalValue, type Value, DECIMAL_ZERO, addDecimal, averageDecimal, formatDecimalValue, parseDecimalValue } from '../../../types/index.js';
import type { AggCall } from '../../ir.js';
import { type AggState, accumulate, collect, final } from '../agg-state.js';
import { compare } from '../kernels.js';
import { frameSegments } from './frame.js';
import { type PartitionView, rowOf } from './view.js';

/** Runs aggregate `a` over every row's frame of the partition; `filter` is a collecting aggregate's FILTER column. */
export function aggregateFrames(a: AggCall, v: PartitionView, filter: readonly Value[] | null): void {
  const arg = v.args[0] ?? null;
  const add = (st: AggState, j: number): void => {
    const row = rowOf(v, j);
    if (arg === null) {
      st.n++;
      return;
    }
    const x = arg[row]!;
    if (a.fn === 'string_agg' || a.fn === 'array_agg') {
      if (filter !== null && filter[row] !== true) return;
      collect(a, st, x, [], 0);
      return;
    }
    if (x !== null) accumulate(a, st, x);
  };
  if (v.frame.exclude === 'no-others' && v.frame.start.kind === 'unbounded') return running(a, v, add);
  if (v.frame.exclude === 'no-others' && arg !== null) {
    const m = movingOf(a);
    if (m !== null) return moving(v, arg, m);
    if (a.fn === 'min' || a.fn === 'max') return deque(a, v, arg);
  }
  refold(a, v, add);
}

const fresh = (): AggState => ({ n: 0, v: undefined });

function running(a: AggCall, v: PartitionView, add: (st: AggState, j: number) => void): void {
  const st = fresh();
  let pos = 0;
  let last: Value = null;
  let lastEnd = -1;
  for (let i = 0; i < v.n; i++) {
    const e = v.end[i]!;
    if (e !== lastEnd) {
      for (; pos < e; pos++) add(st, pos);
      last = final(a, st);
      lastEnd = e;
    }
    v.out[rowOf(v, i)] = last;
  }
}

function refold(a: AggCall, v: PartitionView, add: (st: AggState, j: number) => void): void {
  let lastKey = '';
  let last: Value = null;
  for (let i = 0; i < v.n; i++) {
    const segs = frameSegments(v.frame.exclude, i, v.start[i]!, v.end[i]!, v.gs[i]!, v.ge[i]!);
    const key = segs.join(',');
    if (i === 0 || key !== lastKey) {
      const st = fresh();
      for (let s = 0; s < segs.length; s += 2) for (let j = segs[s]!; j < segs[s + 1]!; j++) add(st, j);
      last = final(a, st);
      lastKey = key;
    }
    v.out[rowOf(v, i)] = last;
  }
}

/** An accumulator rows can be added to and removed from. */
interface Moving {
  add(x: Value): void;
  remove(x: Value): void;
  result(): Value;
}

function movingOf(a: AggCall): (() => Moving) | null {
  const t = a.arg!.type.id;
  const integer = t === 'int2' || t === 'int4' || t === 'int8';
  switch (a.fn) {
    case 'count':
      return () => {
        let n = 0;
        return { add: () => n++, remove: () => n--, result: () => BigInt(n) };
      };
    case 'sum':
    case 'avg':
      if (integer) return () => integerSum(a);
      if (t === 'numeric') return () => numericSum(a);
      return null;
    case 'bool_and':
    case 'bool_or':
      return () => {
        let yes = 0;
        let no = 0;
        return {
          add: (x) => (x === true ? yes++ : no++),
          remove: (x) => (x === true ? yes-- : no--),
          result: () => (yes + no === 0 ? null : a.fn === 'bool_and' ? no === 0 : yes > 0),
        };
      };
    default:
      return null;
  }
}

/** sum/avg of int2/int4/int8: an exact bigint sum (sum(int8) is numeric, as final() gives it). */
function integerSum(a: AggCall): Moving {
  let n = 0;
  let sum = 0n;
  return {
    add: (x) => {
      n++;
      sum += BigInt(x as number | bigint);
    },
    remove: (x) => {
      n--;
      sum -= BigInt(x as number | bigint);
    },
    result: () => {
      if (n === 0) return null;
      if (a.fn === 'avg') return averageDecimal({ kind: 'finite', coef: sum, scale: 0 }, BigInt(n));
      return a.type.id === 'int8' ? sum : String(sum);
    },
  };
}

/**
 * sum/avg of numeric: the exact sum, shown at the largest scale among the values in the frame
 * (PostgreSQL's NumericAggState restarts when the last value of the largest scale leaves, so
 * its result has that scale), NaN and infinities counted.
 */
function numericSum(a: AggCall): Moving {
  let n = 0;
  let sum: DecimalValue = DECIMAL_ZERO;
  const scales = new Map<number, number>();
  let nan = 0;
  let pinf = 0;
  let ninf = 0;
  const step = (x: Value, sign: 1 | -1): void => {
    n += sign;
    const d = parseDecimalValue(x as string);
    if (d.kind === 'nan') nan += sign;
    else if (d.kind === 'pinf') pinf += sign;
    else if (d.kind === 'ninf') ninf += sign;
    else {
      sum = addDecimal(sum, sign === 1 ? d : { kind: 'finite', coef: -d.coef, scale: d.scale });
      scales.set(d.scale, (scales.get(d.scale) ?? 0) + sign);
    }
  };
  return {
    add: (x) => step(x, 1),
    remove: (x) => step(x, -1),
    result: () => {
      if (n === 0) return null;
      let d: DecimalValue;
      if (nan > 0 || (pinf > 0 && ninf > 0)) d = { kind: 'nan', coef: 0n, scale: 0 };
      else if (pinf > 0) d = { kind: 'pinf', coef: 0n, scale: 0 };
      else if (ninf > 0) d = { kind: 'ninf', coef: 0n, scale: 0 };
      else {
        let scale = 0;
        for (const [s, c] of scales) if (c > 0 && s > scale) scale = s;
        d = sum.scale > scale ? { kind: 'finite', coef: sum.coef / 10n ** BigInt(sum.scale - scale), scale } : sum;
      }
      return a.fn === 'avg' ? averageDecimal(d, BigInt(n)) : formatDecimalValue(d);
    },
  };
}

function moving(v: PartitionView, arg: readonly Value[], make: () => Moving): void {
  const m = make();
  const drop = (j: number): void => {
    const x = arg[rowOf(v, j)]!;
    if (x !== null) m.remove(x);
  };
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < v.n; i++) {
    const s = v.start[i]!;
    const e = Math.max(s, v.end[i]!);
    // A frame that starts past every added row: empty the accumulator and start there.
    if (s >= hi) {
      for (; lo < hi; lo++) drop(lo);
      lo = hi = s;
    }
    for (; hi < e; hi++) {
      const x = arg[rowOf(v, hi)]!;
      if (x !== null) m.add(x);
    }
    for (; lo < s; lo++) drop(lo);
    v.out[rowOf(v, i)] = m.result();
  }
}

/**
 * min/max over a frame whose bounds only advance: positions whose values may still be the
 * extreme, best first. Of equal values the later wins, as float8smaller/larger keep their
 * second argument on ties (0 after -0 is 0).
 */
function deque(a: AggCall, v: PartitionView, arg: readonly Value[]): void {
  const t = a.arg!.type;
  const better = a.fn === 'min' ? (x: Value, y: Value) => compare(t, x, y) < 0 : (x: Value, y: Value) => compare(t, x, y) > 0;
  const q = new Int32Array(v.n);
  let head = 0;
  let tail = 0;
  let hi = 0;
  for (let i = 0; i < v.n; i++) {
    const s = v.start[i]!;
    const e = v.end[i]!;
    for (; hi < e; hi++) {
      const x = arg[rowOf(v, hi)]!;
      if (x === null) continue;
      while (tail > head && !better(arg[rowOf(v, q[tail - 1]!)]!, x)) tail--;
      q[tail++] = hi;
    }
    while (tail > head && q[head]! < s) head++;
    v.out[rowOf(v, i)] = tail > head && s < e ? arg[rowOf(v, q[head]!)]! : null;
  }
}

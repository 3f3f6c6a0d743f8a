/**
 * What a compiled pipeline is (its generated function, constants and output shapes) and how
 * its aggregation states end: reduced to plain data per partition (what a worker thread sends
 * back), merged by key as PostgreSQL's combine functions do, and finalized into the key and
 * aggregate columns the interpreter would have produced (./pipeline.ts runs it).
 */

import type { Batch, PgType, Value } from '../../types/index.js';
import { keyText } from '../exec/key.js';
import { formatDecimalValue, averageDecimal } from '../../types/index.js';
import type { AggCall } from '../ir.js';
import type { RowBatch } from '../exec/batch.js';
import { tick, yieldNow } from '../context.js';
import type { Rep } from './codegen.js';
import { H } from './helpers.js';
import type { GroupState } from './groups.js';

export type BatchFn = (cols: Batch['columns'], sel: Uint32Array | null, count: number, S: GroupState, K: unknown[], H: unknown) => number;

export interface Compiled {
  readonly fn: BatchFn;
  readonly consts: unknown[];
  readonly source: string;
  /** Null for a filter-only pipeline. */
  readonly aggs: readonly AggOut[] | null;
  readonly keys: readonly KeyOut[];
}

export interface KeyOut {
  readonly rep: Rep;
  readonly type: PgType;
}

export interface AggOut {
  readonly call: AggCall;
  readonly rep: Rep | null; // null for count(*)
  /** Decimal arguments whose display scale varies by row: tracked per group in `M`. */
  readonly dynamic?: boolean;
}

/**
 * Aggregation state reduced to plain data (what a worker thread sends back): per group its
 * key values, and per aggregate the accumulator, count and exact-sum overflow.
 */
export interface Partial {
  readonly groups: number;
  /** Raw key values: numbers as generated (converted once, after merging), text as strings. */
  readonly keys: (number | string | null)[][];
  readonly A: Float64Array[];
  readonly C: Float64Array[];
  readonly big: (bigint[] | null)[];
  /** count(DISTINCT): per aggregate, per group, the distinct values (empty for other aggregates). */
  readonly U: (Float64Array | null)[][];
  readonly M: Float64Array[];
}

export function partialOf(S: GroupState, c: Compiled): Partial {
  const n = S.finalGroups();
  const keys: (number | string | null)[][] = [];
  for (const [j, k] of c.keys.entries()) {
    const values = k.rep.k === 'str' ? S.T[j]!.values : S.numValues[j]!;
    if (c.keys.length === 1) keys.push(values.slice(0, n));
    else {
      const col: (number | string | null)[] = [];
      for (let g = 0; g < n; g++) col.push(values[S.gcodes[j]![g]!]!);
      keys.push(col);
    }
  }
  const U = c.aggs!.map((a, j) => (a.call.distinct ? Array.from({ length: n }, (_v, g) => (S.U[j]![g] === undefined ? null : Float64Array.from(S.U[j]![g]))) : []));
  return { groups: n, keys, A: S.A.map((a) => a.slice(0, n)), C: S.C.map((a) => a.slice(0, n)), big: S.big.map((b) => (b === null ? null : b.slice(0, n))), U, M: S.M.map((a) => a.slice(0, n)) };
}

/** Partials merged by key (PostgreSQL's combine functions), then finalized: keys, then aggregates. */
export async function merge(c: Compiled, parts: readonly Partial[]): Promise<RowBatch> {
  const aggs = c.aggs!;
  const total = parts.reduce((a, p) => a + p.groups, 0);
  const index = new Map<number | string | null, number>();
  // Arrays grow by push: `new Array(n)` of millions is a slow dictionary-mode array in V8.
  const keys: (number | string | null)[][] = c.keys.map(() => []);
  // Per aggregate: count, accumulator (a number while exact), display scale, and the groups
  // whose exact sum outgrew a number (bigint) or whose distinct values are kept.
  const cnt = aggs.map(() => new Float64Array(total));
  const acc = aggs.map(() => new Float64Array(total));
  const scales = aggs.map(() => new Float64Array(total));
  const big = aggs.map(() => new Map<number, bigint>());
  const sets = aggs.map(() => new Map<number, Set<number>>());
  let n = 0;
  for (const p of parts) {
    for (let g = 0; g < p.groups; g++) {
      if ((g & 4095) === 0 && tick()) await yieldNow();
      let at = n;
      if (parts.length > 1) {
        // One key: its raw value is the Map key (SameValueZero: -0 is 0, NaN is NaN); several:
        // their texts joined.
        let k: number | string | null;
        if (keys.length === 1) k = p.keys[0]![g]!;
        else {
          k = '';
          for (let j = 0; j < keys.length; j++) k += `${keyText(p.keys[j]![g]!, null)}\u0000`;
        }
        at = index.get(k) ?? n;
        if (at === n) index.set(k, at);
      }
      if (at === n) {
        n++;
        for (let j = 0; j < keys.length; j++) keys[j]!.push(p.keys[j]![g]!);
      }
      for (let j = 0; j < aggs.length; j++) {
        const a = aggs[j]!;
        if (a.call.distinct) {
          const vals = p.U[j]![g];
          let into = sets[j]!.get(at);
          if (into === undefined) sets[j]!.set(at, (into = new Set()));
          if (vals !== null && vals !== undefined) for (const v of vals) into.add(v);
          cnt[j]![at] = into.size;
          continue;
        }
        const C = p.C[j]![g]!;
        const n0 = cnt[j]![at]!;
        cnt[j]![at] = n0 + C;
        if (C === 0 || a.call.fn === 'count') continue;
        const A = p.A[j]![g]!;
        const M = p.M[j]![g]!;
        const prev = acc[j]![at]!;
        const float = a.rep!.k === 'f4' || a.rep!.k === 'f8';
        if (a.call.fn === 'min' || a.call.fn === 'max') {
          const better = float ? H.cmpFloat(A, prev) : A - prev;
          if (n0 === 0 || (a.call.fn === 'min' ? better <= 0 : better >= 0)) {
            acc[j]![at] = A;
            scales[j]![at] = M;
          }
          continue;
        }
        if (n0 === 0 || M > scales[j]![at]!) scales[j]![at] = M;
        if (float) {
          acc[j]![at] = n0 === 0 ? A : a.rep!.k === 'f4' && a.call.fn === 'sum' ? Math.fround(prev + A) : prev + A;
          continue;
        }
        // Exact: a number while it is one (|x| ≤ 2^53), the rest in a bigint.
        const spill = p.big[j]?.[g];
        const sum = (n0 === 0 ? 0 : prev) + A;
        if (spill === undefined && sum <= 9007199254740991 && sum >= -9007199254740991) acc[j]![at] = sum;
        else {
          big[j]!.set(at, (big[j]!.get(at) ?? 0n) + BigInt(n0 === 0 ? 0 : prev) + BigInt(A) + (spill ?? 0n));
          acc[j]![at] = 0;
        }
      }
    }
  }
  const cols: Value[][] = keys.map((col, j) => {
    const k = c.keys[j]!;
    if (k.rep.k === 'str') return col;
    const out: Value[] = [];
    for (let g = 0; g < n; g++) out.push(toValue(col[g] as number | null, k.rep, k.type));
    return out;
  });
  for (let j = 0; j < aggs.length; j++) {
    const a = aggs[j]!;
    const col: Value[] = [];
    for (let g = 0; g < n; g++) {
      const b = big[j]!.get(g);
      col.push(aggValue(a, b === undefined ? acc[j]![g]! : b + BigInt(acc[j]![g]!), cnt[j]![g]!, scales[j]![g]!));
    }
    cols.push(col);
  }
  return { rows: n, cols };
}

function aggValue(a: AggOut, acc: number | bigint | undefined, count: number, display: number): Value {
  const fn = a.call.fn;
  if (fn === 'count') return BigInt(count);
  if (count === 0) return null;
  const rep = a.rep!;
  if (fn === 'min' || fn === 'max') {
    if (a.dynamic && rep.k === 'dec') return formatDecimalValue({ kind: 'finite', coef: BigInt(acc as number) / 10n ** BigInt(rep.scale - display), scale: display });
    return toValue(acc as number, rep, a.call.arg!.type);
  }
  if (rep.k === 'f4' || rep.k === 'f8') return fn === 'sum' ? (acc as number) : (acc as number) / count;
  let scale = rep.k === 'dec' ? rep.scale : 0;
  if (typeof acc === 'number' && !a.dynamic && fn === 'sum') return a.call.type.id === 'int8' ? BigInt(acc) : formatScaled(acc, scale);
  let exact = BigInt(acc!);
  if (a.dynamic && rep.k === 'dec') {
    // Every value had at most `display` digits after the point: the lower ones are zeros.
    exact /= 10n ** BigInt(scale - display);
    scale = display;
  }
  if (fn === 'avg') return averageDecimal({ kind: 'finite', coef: exact, scale }, BigInt(count));
  // sum: int2/int4 → int8; int8 → numeric; numeric → numeric at the inputs' scale.
  if (a.call.type.id === 'int8') return exact;
  return formatDecimalValue({ kind: 'finite', coef: exact, scale });
}

/** An exact integer `v` (|v| ≤ 2^53) scaled by 10^-scale as numeric text: formatDecimalValue without a bigint. */
function formatScaled(v: number, scale: number): string {
  const digits = String(Math.abs(v));
  const sign = v < 0 ? '-' : '';
  if (scale === 0) return sign + digits;
  const padded = digits.length <= scale ? '0'.repeat(scale - digits.length + 1) + digits : digits;
  return `${sign}${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`;
}

/** A generated number as the engine's value of `type`. */
function toValue(v: number | null, rep: Rep, type: PgType): Value {
  if (v === null) return null;
  switch (rep.k) {
    case 'big':
      return BigInt(v);
    case 'dec':
      return formatScaled(v, rep.scale);
    case 'bool':
      return v === 1;
    default:
      return type.id === 'int8' ? BigInt(v) : v;
  }
}

/**
 * The per-aggregate states the hash aggregate (./hash-aggregate.ts) and the window step
 * (./window/aggregate.ts) fold: count, sum, avg, min, max, the variance family, bool_and/or,
 * and the collecting aggregates (string_agg, array_agg, with DISTINCT and ORDER BY), with
 * PostgreSQL's accumulation and result types. `accumulate`/`collect` fold one input, `final`
 * gives the result; `growth` counts the bytes a fold made a state keep, which the caller
 * charges to the statement's memory account (../memory.ts).
 */
import { type PgType, type Value, formatArrayText, unreachable } from '../../types/index.js';
import { addDecimal, formatDecimalValue, parseDecimalValue, DECIMAL_ZERO, type DecimalValue, averageDecimal, SQLSTATE } from '../../types/index.js';
import { type AggCall, COLLECTING_AGGREGATES } from '../ir.js';
import { numericVariance } from './numeric.js';
import { toText } from './kernels.js';
import { SqlError } from '../errors.js';
import { keyNorm, keyText } from './key.js';
import { compare } from './kernels.js';
import { MAX_ALLOC_SIZE, MAX_STRING_LENGTH, outOfMemory } from '../memory.js';

/**
 * `seen` holds the keys of values already folded, for DISTINCT aggregates; collecting
 * aggregates keep their inputs in `vals` and their ORDER BY keys in `keys` (one array per key).
 */
export type AggState = { n: number; v: unknown; seen?: Set<string>; vals?: Value[]; keys?: Value[][]; order?: number[]; len?: number; joined?: string[] };

/**
 * string_agg without ORDER BY or DISTINCT folds its inputs in input order: every JOIN_EVERY
 * inputs are joined into one flat string (`joined`), so that a long aggregate holds a few large
 * strings instead of millions of small ones — the garbage collector's pauses over millions of
 * strings kept every other session waiting (issue #18: 295 ms).
 */
const JOIN_EVERY = 4096;

/**
 * Bytes the current `add` made the aggregate keep (new groups, DISTINCT keys, collected
 * inputs), charged to the statement's memory account (../memory.ts) once per batch. `add`
 * runs without awaiting, so one counter serves every aggregate.
 */
export const growth = { bytes: 0 };

/** Estimated bytes a value keeps in an array: the slot, and a string's characters. */
function valueBytes(v: Value): number {
  return typeof v === 'string' ? 24 + v.length : v instanceof Uint8Array ? 64 + v.byteLength : 16;
}

/** A collecting aggregate's input row (array_agg keeps NULLs; the others skip them), its ORDER BY keys row i of `orderCols` (window/aggregate.ts folds frames through it). */
export function collect(a: AggCall, st: AggState, v: Value, orderCols: Value[][], i: number): void {
  collectAt(a, st, v, orderCols, orderCols.length === 0 ? NO_ORDER : orderCols.map((_c, k) => k), i);
}

const NO_ORDER: readonly number[] = [];

/** `collect` with the ORDER BY keys at `cols[orderAt[k]]` (the hash aggregate's evaluated input columns). */
export function collectAt(a: AggCall, st: AggState, v: Value, cols: readonly Value[][], orderAt: readonly number[], i: number): void {
  if (v === null && a.fn !== 'array_agg') return;
  if (a.distinct) {
    const k = keyText(v, keyNorm(a.arg!.type));
    st.seen ??= new Set();
    if (st.seen.has(k)) return;
    st.seen.add(k);
    growth.bytes += 40 + k.length;
  }
  if (a.fn === 'string_agg') stringAggLength(a, st, v as string);
  st.n++;
  const vals = (st.vals ??= []);
  vals.push(v);
  growth.bytes += valueBytes(v);
  if (vals.length >= JOIN_EVERY && a.fn === 'string_agg' && !a.distinct && orderAt.length === 0 && (a.order ?? []).length === 0) {
    (st.joined ??= []).push(vals.join((a.param as string | null) ?? ''));
    growth.bytes -= 16 * vals.length;
    vals.length = 0;
  }
  if (orderAt.length > 0) {
    st.keys ??= orderAt.map(() => []);
    for (let k = 0; k < orderAt.length; k++) st.keys[k]!.push(cols[orderAt[k]!]![i]!);
  }
}

/**
 * string_agg's result grows past PostgreSQL's MaxAllocSize as its StringInfo would: 54000
 * `out of memory` with enlargeStringInfo's DETAIL (lengths in UTF-16 units, bytes for ASCII).
 */
function stringAggLength(a: AggCall, st: AggState, v: string): void {
  const have = st.len ?? 0;
  const more = (st.n === 0 ? 0 : ((a.param as string | null) ?? '').length) + v.length;
  if (have + more > MAX_ALLOC_SIZE) {
    const e = new SqlError('usage', SQLSTATE.program_limit_exceeded, 'out of memory');
    throw Object.assign(e, { detail: `Cannot enlarge string buffer containing ${have} bytes by ${more} more bytes.` });
  }
  st.len = have + more;
}

/**
 * The positions of a collecting aggregate's inputs in its ORDER BY order (input order without
 * one). A DISTINCT aggregate without ORDER BY takes its inputs sorted ascending, NULLs last, as
 * PostgreSQL's sort-based DISTINCT hands them over (array_agg(DISTINCT b) is {f,t,NULL}).
 * `st.order` when `finish` sorted them already (large inputs with ORDER BY, sorted with yields).
 */
function orderOf(a: AggCall, st: AggState): number[] {
  if (st.order !== undefined) return st.order;
  const n = st.vals?.length ?? 0;
  const idx = Array.from({ length: n }, (_v, k) => k);
  if (a.distinct && (a.order ?? []).length === 0 && st.vals !== undefined) {
    const vals = st.vals;
    const type = a.arg!.type;
    return idx.sort((x, y) => {
      const u = vals[x]!;
      const w = vals[y]!;
      if (u === null || w === null) return u === w ? 0 : u === null ? 1 : -1;
      return compare(type, u, w);
    });
  }
  const order = a.order ?? [];
  if (order.length === 0 || st.keys === undefined) return idx;
  return idx.sort(orderComparator(a, st));
}

/** Compares two input positions of a collecting aggregate by its ORDER BY keys. */
export function orderComparator(a: AggCall, st: AggState): (x: number, y: number) => number {
  const order = a.order ?? [];
  const keys = st.keys ?? [];
  return (x, y) => {
    for (let k = 0; k < order.length; k++) {
      const o = order[k]!;
      const u = keys[k]![x]!;
      const w = keys[k]![y]!;
      if (u === null || w === null) {
        if (u === w) continue;
        return (u === null) === o.nullsFirst ? -1 : 1;
      }
      const c = compare(o.expr.type, u, w);
      if (c !== 0) return o.desc ? -c : c;
    }
    return 0;
  };
}

/** The result of string_agg, array_agg, percentile_cont or percentile_disc. */
function finalCollected(a: AggCall, st: AggState): Value {
  const vals = st.vals ?? [];
  const idx = orderOf(a, st);
  switch (a.fn) {
    case 'string_agg': {
      const delim = (a.param as string | null) ?? '';
      // Below MaxAllocSize but past what one V8 string holds: the statement's memory, not the process's.
      if ((st.len ?? 0) > MAX_STRING_LENGTH) throw outOfMemory(st.len ?? 0, 'ExecutorState');
      if (st.joined !== undefined) return [...st.joined, ...idx.map((k) => vals[k] as string)].join(delim);
      let out: string | null = null;
      for (const k of idx) out = out === null ? (vals[k] as string) : out + delim + (vals[k] as string);
      return out;
    }
    case 'array_agg':
      return idx.length === 0 ? null : formatArrayText(idx.map((k) => (vals[k] === null ? null : toText(a.arg!.type, vals[k]!))));
    case 'percentile_cont':
    case 'percentile_disc': {
      const frac = a.param as number | null;
      if (frac === null || idx.length === 0) return null;
      if (!(frac >= 0 && frac <= 1)) throw new SqlError('invalid_input', SQLSTATE.numeric_value_out_of_range, `percentile value ${frac} is not between 0 and 1`);
      const n = idx.length;
      if (a.fn === 'percentile_disc') {
        const rownum = Math.max(1, Math.ceil(frac * n));
        return vals[idx[rownum - 1]!]!;
      }
      const pos = frac * (n - 1);
      const lo = Math.floor(pos);
      const hi = Math.ceil(pos);
      const first = vals[idx[lo]!] as number;
      if (lo === hi) return first;
      const second = vals[idx[hi]!] as number;
      // float8_lerp
      return first + (second - first) * (pos - lo);
    }
    default:
      throw new Error(`${a.fn} is not a collecting aggregate`);
  }
}

/** float8_accum (Youngs-Cramer): N, Sx and Sxx, as PostgreSQL's float variance keeps them. */
type FloatMoments = { n: number; sx: number; sxx: number };
/** Numeric (and integer) variance keeps the exact sums of x and x². */
type NumericMoments = { sum: DecimalValue; sum2: DecimalValue; nan: boolean };

function accumulateMoments(t: PgType, acc: unknown, v: Value): unknown {
  if (t.id === 'float4' || t.id === 'float8') {
    const m = (acc as FloatMoments | undefined) ?? { n: 0, sx: 0, sxx: 0 };
    const x = v as number;
    const n0 = m.n;
    m.n += 1;
    m.sx += x;
    if (n0 > 0) {
      const tmp = x * m.n - m.sx;
      m.sxx += (tmp * tmp) / (m.n * n0);
      if (!Number.isFinite(m.sx) || !Number.isFinite(m.sxx)) {
        if (Number.isFinite(m.sx - x) && Number.isFinite(x)) throw new SqlError('invalid_input', SQLSTATE.numeric_value_out_of_range, 'value out of range: overflow');
        m.sxx = NaN;
      }
    } else if (!Number.isFinite(x)) m.sxx = NaN;
    return m;
  }
  const m = (acc as NumericMoments | undefined) ?? { sum: DECIMAL_ZERO, sum2: DECIMAL_ZERO, nan: false };
  const d: DecimalValue = typeof v === 'string' ? parseDecimalValue(v) : { kind: 'finite', coef: BigInt(v as number | bigint), scale: 0 };
  if (d.kind !== 'finite') m.nan = true;
  else {
    m.sum = addDecimal(m.sum, d);
    m.sum2 = addDecimal(m.sum2, { kind: 'finite', coef: d.coef * d.coef, scale: d.scale * 2 });
  }
  return m;
}

function finalMoments(a: AggCall, st: AggState): Value {
  const sample = a.fn === 'stddev_samp' || a.fn === 'var_samp';
  const root = a.fn === 'stddev_samp' || a.fn === 'stddev_pop';
  if (st.n === 0 || (sample && st.n === 1)) return null;
  if (a.type.id === 'float8') {
    const m = st.v as FloatMoments;
    const v = m.sxx / (sample ? m.n - 1 : m.n);
    return root ? Math.sqrt(v) : v;
  }
  const m = st.v as NumericMoments;
  if (m.nan) return 'NaN';
  return numericVariance(BigInt(st.n), m.sum, m.sum2, sample, root);
}

export function accumulate(a: AggCall, st: AggState, v: Value): void {
  st.n++;
  const t = a.arg!.type;
  switch (a.fn) {
    case 'count':
      return;
    case 'sum':
    case 'avg':
      st.v = addTo(t, a.fn, st.v, v);
      return;
    case 'bool_and':
      st.v = st.v !== false && v === true;
      return;
    case 'bool_or':
      st.v = st.v === true || v === true;
      return;
    case 'stddev_samp':
    case 'stddev_pop':
    case 'var_samp':
    case 'var_pop':
      st.v = accumulateMoments(t, st.v, v);
      return;
    case 'string_agg':
    case 'array_agg':
    case 'percentile_cont':
    case 'percentile_disc':
      throw new Error(`${a.fn} collects its inputs (collect)`);
    case 'min':
    case 'max': {
      if (st.v === undefined) st.v = v;
      else {
        // Of equal values the later wins, as float8smaller(state, next) and its kin return
        // `next` unless `state` is strictly smaller: min(-0, 0) is 0, min(1.0, 1.00) is 1.00.
        const c = compare(t, v, st.v as Value);
        if (a.fn === 'min' ? c <= 0 : c >= 0) st.v = v;
      }
      return;
    }
    default:
      return unreachable(a.fn);
  }
}

function addTo(t: PgType, fn: 'sum' | 'avg', acc: unknown, v: Value): unknown {
  switch (t.id) {
    case 'int2':
    case 'int4':
      return ((acc as bigint | undefined) ?? 0n) + BigInt(v as number);
    case 'int8':
      return ((acc as bigint | undefined) ?? 0n) + (v as bigint);
    case 'numeric':
      return addDecimal((acc as DecimalValue | undefined) ?? DECIMAL_ZERO, parseDecimalValue(v as string));
    case 'float4':
      return fn === 'sum' ? Math.fround(((acc as number | undefined) ?? 0) + (v as number)) : ((acc as number | undefined) ?? 0) + (v as number);
    case 'float8':
      return ((acc as number | undefined) ?? 0) + (v as number);
    default:
      throw new Error(`${fn}(${t.id}) passed the binder`);
  }
}

export function final(a: AggCall, st: AggState): Value {
  if (a.fn === 'count') return BigInt(st.n);
  if (COLLECTING_AGGREGATES.has(a.fn)) return finalCollected(a, st);
  if (st.n === 0) return null;
  switch (a.fn) {
    case 'min':
    case 'max':
    case 'bool_and':
    case 'bool_or':
      return st.v as Value;
    case 'sum':
      if (typeof st.v === 'bigint') return a.type.id === 'int8' ? st.v : String(st.v);
      if (typeof st.v === 'number') return st.v;
      return formatDecimalValue(st.v as DecimalValue);
    case 'avg':
      if (typeof st.v === 'number') return st.v / st.n;
      if (typeof st.v === 'bigint') return averageDecimal({ kind: 'finite', coef: st.v, scale: 0 }, BigInt(st.n));
      return averageDecimal(st.v as DecimalValue, BigInt(st.n));
    case 'stddev_samp':
    case 'stddev_pop':
    case 'var_samp':
    case 'var_pop':
      return finalMoments(a, st);
    case 'string_agg':
    case 'array_agg':
    case 'percentile_cont':
    case 'percentile_disc':
      return finalCollected(a, st);
    default:
      return unreachable(a.fn);
  }
}

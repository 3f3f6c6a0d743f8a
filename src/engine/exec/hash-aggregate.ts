/**
 * Hash aggregate: groups rows by key values and folds count, sum, avg, min and max per group,
 * with PostgreSQL's accumulation and result types (../bind/catalog.ts `aggregateType`):
 *
 *   sum(int2|int4)  exact integer sum, int8          avg(int*)     numeric, select_div_scale
 *   sum(int8)       exact, numeric text              avg(numeric)  numeric, select_div_scale
 *   sum(numeric)    exact, largest input scale       avg(float*)   float8 sum / count
 *   sum(float4)     accumulates in float4            min/max       the input type
 *
 * With no GROUP BY keys there is exactly one group, even over no rows (count 0, others NULL).
 * Keys compare as PostgreSQL's equality does for the supported types, except that -0 and 0
 * floats, and numerics of different scales (1.0, 1.00), are not merged yet: a first step.
 */
import { type PgType, type Value, formatArrayText, unreachable } from '../../types/index.js';
import { addDecimal, formatDecimalValue, parseDecimalValue, DECIMAL_ZERO, type DecimalValue, averageDecimal, SQLSTATE } from '../../types/index.js';
import { type AggCall, COLLECTING_AGGREGATES } from '../ir.js';
import { numericVariance } from './numeric.js';
import { toText } from './kernels.js';
import { SqlError } from '../errors.js';
import type { Expr } from '../expr.js';
import type { RowBatch } from './batch.js';
import { evaluate } from './eval.js';
import { keyNorm, keyText } from './key.js';
import { compare } from './kernels.js';
import { workMemExceeded } from '../errors.js';
import { chargeMemory, currentWorkMem, tick, yieldIfDue, yieldNow } from '../context.js';
import { SpillPartitions } from './spill/aggregate-partitions.js';
import { MAX_ALLOC_SIZE, MAX_STRING_LENGTH, outOfMemory } from '../memory.js';
import { mergeSort } from './sort.js';

interface Group {
  keys: Value[];
  states: AggState[];
}

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
let grown = 0;

/** Estimated bytes a value keeps in an array: the slot, and a string's characters. */
function valueBytes(v: Value): number {
  return typeof v === 'string' ? 24 + v.length : v instanceof Uint8Array ? 64 + v.byteLength : 16;
}

/**
 * Where each aggregate's inputs sit among the evaluated input columns (`inputs`): the keys
 * first, then per aggregate its argument, its ORDER BY keys and its FILTER, where it has them.
 * A spilled row is one row of these columns, so that a partition is aggregated again without
 * evaluating anything (./spill/aggregate-partitions.ts).
 */
interface Layout {
  readonly width: number;
  readonly arg: readonly number[];
  readonly order: readonly (readonly number[] | null)[];
  readonly filter: readonly number[];
}

function layoutOf(keys: number, aggs: readonly AggCall[]): Layout {
  let at = keys;
  const arg: number[] = [];
  const order: (number[] | null)[] = [];
  const filter: number[] = [];
  for (const a of aggs) {
    arg.push(a.arg === null ? -1 : at++);
    order.push(COLLECTING_AGGREGATES.has(a.fn) ? (a.order ?? []).map(() => at++) : null);
    filter.push(a.filter === undefined ? -1 : at++);
  }
  return { width: at, arg, order, filter };
}

/**
 * The hash aggregate. Past work_mem it spills, as PostgreSQL 13+'s HashAgg does (nodeAgg.c,
 * "Spilling"): the groups in memory keep absorbing their rows, and every row of a group not in
 * memory goes, evaluated, to one of SPILL_FANOUT partition files chosen by its key's hash
 * (./spill/aggregate-partitions.ts). At the end the groups in memory are emitted and freed,
 * then each partition is aggregated in turn by a new HashAggregate one level down (a new hash
 * seed), which spills again if it must. Each group is whole in one place: in memory, or in one
 * partition. What cannot spill — one group's own state (string_agg's inputs) — stays bounded by
 * the statement's memory cap (../memory.ts, 53200).
 */
export class HashAggregate {
  private readonly groups = new Map<string, Group>();

  /** Estimated bytes per group (keys, states, the Map entry), checked against `workMem`. */
  private readonly groupBytes: number;
  private readonly layout: Layout;
  /** Set once the groups filled work_mem: rows of new groups go to partition files. */
  private spill: SpillPartitions | null = null;

  constructor(
    private readonly keys: readonly Expr[],
    private readonly aggs: readonly AggCall[],
    private readonly workMem: number = currentWorkMem(),
    /** The recursion depth of a partition's aggregate (0: the query's own); seeds the partition hash. */
    private readonly level = 0,
    /** Key types, for an aggregate fed with evaluated columns (`addColumns`). */
    private readonly keyTypes: readonly PgType[] = keys.map((k) => k.type),
  ) {
    this.groupBytes = 160 + 48 * keyTypes.length + 64 * aggs.length;
    this.layout = layoutOf(keyTypes.length, aggs);
  }

  /** Bytes charged to the statement's memory account, given back by `finish`. */
  private charged = 0;

  /** Whether rows went to disk (EXPLAIN ANALYZE, tests). */
  get spilled(): boolean {
    return this.spill !== null;
  }

  /** Folds one batch; a promise (await it) when rows went to partition files or the batch was long. */
  add(b: RowBatch): Promise<void> | undefined {
    if (b.rows <= this.slice) {
      const t0 = performance.now();
      const r = this.addColumns(this.inputs(b), b.rows);
      this.adapt(performance.now() - t0, b.rows);
      return r;
    }
    return this.addSliced(b);
  }

  /**
   * Rows `add` evaluates at once: halved while a slice takes longer than SLICE_MS, doubled back
   * while it takes less than a quarter of it. Evaluating the arguments of 4096 rows of a cross
   * join, `length(repeat(a.s, 1000))`, is 50 M characters: slices with the interrupt point
   * between them keep the other sessions' queries answered meanwhile.
   */
  private slice = 4096;

  private adapt(ms: number, rows: number): void {
    if (ms > SLICE_MS && rows >= this.slice && this.slice > 16) this.slice >>= 1;
    else if (ms < SLICE_MS / 4 && rows >= this.slice && this.slice < 4096) this.slice <<= 1;
  }

  private async addSliced(b: RowBatch): Promise<void> {
    for (let lo = 0; lo < b.rows; ) {
      const hi = Math.min(b.rows, lo + this.slice);
      const slice: RowBatch = { rows: hi - lo, cols: b.cols.map((c) => (c.length === 0 ? c : c.slice(lo, hi))) };
      const t0 = performance.now();
      await this.addColumns(this.inputs(slice), slice.rows);
      this.adapt(performance.now() - t0, slice.rows);
      lo = hi;
      await yieldIfDue();
    }
  }

  /** The evaluated input columns of a batch (see Layout). */
  private inputs(b: RowBatch): Value[][] {
    const cols: Value[][] = this.keys.map((k) => evaluate(k, b));
    for (const a of this.aggs) {
      if (a.arg !== null) cols.push(evaluate(a.arg, b));
      if (COLLECTING_AGGREGATES.has(a.fn)) for (const o of a.order ?? []) cols.push(evaluate(o.expr, b));
      if (a.filter !== undefined) cols.push(evaluate(a.filter, b));
    }
    return cols;
  }

  /** Folds `rows` rows of evaluated input columns (a batch's, or a partition's read back). */
  addColumns(cols: readonly Value[][], rows: number): Promise<void> | undefined {
    grown = 0;
    let out: number[] | null;
    try {
      out = this.addRows(cols, rows);
    } finally {
      if (grown > 0) {
        chargeMemory(grown, 'HashAgg meta context');
        this.charged += grown;
      }
    }
    return out === null ? undefined : this.spill!.write(cols, out, this.spillKeys);
  }

  /** The key strings of the rows `addRows` sent to the partitions, in their order. */
  private spillKeys: string[] = [];

  /** Folds the rows whose group is in memory; returns the others (null: none). */
  private addRows(cols: readonly Value[][], rows: number): number[] | null {
    const L = this.layout;
    const nk = this.keyTypes.length;
    let out: number[] | null = null;
    for (let i = 0; i < rows; i++) {
      const g = this.group(cols, nk, i);
      if (g === undefined) {
        if (out === null) {
          out = [];
          this.spillKeys = [];
        }
        out.push(i);
        this.spillKeys.push(this.lastKey);
        continue;
      }
      for (let j = 0; j < this.aggs.length; j++) {
        const st = g.states[j]!;
        const at = L.arg[j]!;
        if (at < 0) {
          st.n++;
          continue;
        }
        const v = cols[at]![i]!;
        const oc = L.order[j]!;
        if (oc !== null) {
          const f = L.filter[j]!;
          if (f >= 0 && cols[f]![i] !== true) continue;
          collectAt(this.aggs[j]!, st, v, cols, oc, i);
          continue;
        }
        if (v === null) continue;
        if (this.aggs[j]!.distinct) {
          const k = keyText(v, keyNorm(this.aggs[j]!.arg!.type));
          st.seen ??= new Set();
          if (st.seen.has(k)) continue;
          st.seen.add(k);
          grown += 40 + k.length;
        }
        accumulate(this.aggs[j]!, st, v);
      }
    }
    return out;
  }

  /**
   * The groups as a batch: key columns, then one column per aggregate. Millions of groups, or
   * one collecting aggregate over millions of inputs, pass the interrupt point (../context.ts).
   */
  async finish(): Promise<RowBatch> {
    const parts: RowBatch[] = [];
    for await (const b of this.batches()) parts.push(b);
    if (parts.length === 1) return parts[0]!;
    const cols = parts.length === 0 ? [...this.keyTypes, ...this.aggs].map(() => [] as Value[]) : parts[0]!.cols.map((_c, k) => parts.flatMap((p) => p.cols[k]!));
    return { rows: parts.reduce((n, p) => n + p.rows, 0), cols };
  }

  /**
   * The groups as batches of up to FINISH_BATCH groups: those in memory, then each spilled
   * partition's (aggregated one by one), so that what a caller keeps of them (HAVING) is all
   * it holds.
   */
  async *batches(): AsyncGenerator<RowBatch> {
    if (this.keyTypes.length === 0 && this.groups.size === 0) this.group([], 0, 0);
    const spill = this.spill;
    const readers = spill === null ? [] : await spill.finish();
    try {
      let out = this.emptyOutput();
      let rows = 0;
      let done = 0;
      for (const g of this.groups.values()) {
        if ((++done & 1023) === 0 && tick()) await yieldNow();
        g.keys.forEach((k, i) => out[i]!.push(k));
        for (let j = 0; j < this.aggs.length; j++) {
          const a = this.aggs[j]!;
          const st = g.states[j]!;
          if ((st.vals?.length ?? 0) > 4096 && (a.order ?? []).length > 0) st.order = await mergeSort(Array.from({ length: st.vals!.length }, (_v, k) => k), orderComparator(a, st));
          out[this.keyTypes.length + j]!.push(final(a, st));
        }
        if (++rows === FINISH_BATCH) {
          yield { rows, cols: out };
          out = this.emptyOutput();
          rows = 0;
        }
      }
      this.groups.clear();
      chargeMemory(-this.charged, 'HashAgg meta context');
      this.charged = 0;
      if (rows > 0 || (spill === null && done === 0)) yield { rows, cols: out };
      while (readers.length > 0) {
        const r = readers.shift()!;
        const sub = new HashAggregate([], this.aggs, this.workMem, this.level + 1, this.keyTypes);
        try {
          for (let chunk = await r.next(); chunk !== null; chunk = await r.next()) {
            await sub.addColumns(transpose(chunk, this.layout.width), chunk.length);
            await yieldIfDue();
          }
        } finally {
          await r.close();
        }
        yield* sub.batches();
      }
    } finally {
      for (const r of readers) await r.close();
    }
  }

  private emptyOutput(): Value[][] {
    return [...this.keyTypes.map(() => [] as Value[]), ...this.aggs.map(() => [] as Value[])];
  }

  /** The key string of the last row `group` looked up. */
  private lastKey = '';

  /** The group of row i, created if there is room; undefined once spilling and it is not in memory. */
  private group(cols: readonly Value[][], nk: number, i: number): Group | undefined {
    let h = '';
    for (let j = 0; j < nk; j++) h += j === 0 ? keyText(cols[j]![i]!, keyNorm(this.keyTypes[j]!)) : `\u0000${keyText(cols[j]![i]!, keyNorm(this.keyTypes[j]!))}`;
    let g = this.groups.get(h);
    if (g === undefined) {
      if (this.spill !== null) {
        this.lastKey = h;
        return undefined;
      }
      const keys = new Array<Value>(nk);
      for (let j = 0; j < nk; j++) keys[j] = cols[j]![i]!;
      g = { keys, states: this.aggs.map(() => ({ n: 0, v: undefined })) };
      this.groups.set(h, g);
      grown += this.groupBytes + h.length;
      if ((this.groups.size & 1023) === 0 && this.groups.size * this.groupBytes > this.workMem) {
        // Past work_mem: from the next new group on, rows go to disk.
        if (nk === 0) throw workMemExceeded('hash aggregate', this.workMem);
        this.spill = new SpillPartitions(this.layout.width, this.level);
      }
    }
    return g;
  }
}

/** How long one slice of `add` may take (ms), half the interrupt point's period (../context.ts YIELD_MS). */
const SLICE_MS = 4;

/** Groups per batch that `batches` yields. */
const FINISH_BATCH = 4096;

/** Rows (arrays of values) as columns. */
function transpose(rows: readonly Value[][], width: number): Value[][] {
  const cols: Value[][] = [];
  for (let k = 0; k < width; k++) {
    const c = new Array<Value>(rows.length);
    for (let i = 0; i < rows.length; i++) c[i] = rows[i]![k]!;
    cols.push(c);
  }
  return cols;
}

/** A collecting aggregate's input row (array_agg keeps NULLs; the others skip them), its ORDER BY keys row i of `orderCols` (window/aggregate.ts folds frames through it). */
export function collect(a: AggCall, st: AggState, v: Value, orderCols: Value[][], i: number): void {
  collectAt(a, st, v, orderCols, orderCols.length === 0 ? NO_ORDER : orderCols.map((_c, k) => k), i);
}

const NO_ORDER: readonly number[] = [];

/** `collect` with the ORDER BY keys at `cols[orderAt[k]]` (the hash aggregate's evaluated input columns). */
function collectAt(a: AggCall, st: AggState, v: Value, cols: readonly Value[][], orderAt: readonly number[], i: number): void {
  if (v === null && a.fn !== 'array_agg') return;
  if (a.distinct) {
    const k = keyText(v, keyNorm(a.arg!.type));
    st.seen ??= new Set();
    if (st.seen.has(k)) return;
    st.seen.add(k);
    grown += 40 + k.length;
  }
  if (a.fn === 'string_agg') stringAggLength(a, st, v as string);
  st.n++;
  const vals = (st.vals ??= []);
  vals.push(v);
  grown += valueBytes(v);
  if (vals.length >= JOIN_EVERY && a.fn === 'string_agg' && !a.distinct && orderAt.length === 0 && (a.order ?? []).length === 0) {
    (st.joined ??= []).push(vals.join((a.param as string | null) ?? ''));
    grown -= 16 * vals.length;
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
function orderComparator(a: AggCall, st: AggState): (x: number, y: number) => number {
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
        const c = compare(t, v, st.v as Value);
        if (a.fn === 'min' ? c < 0 : c > 0) st.v = v;
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

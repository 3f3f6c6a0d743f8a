/**
 * Hash aggregate: groups rows by key values and folds each group's aggregate states
 * (./agg-state.ts), with PostgreSQL's accumulation and result types (../bind/catalog.ts
 * `aggregateType`):
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
import type { PgType, Value } from '../../types/index.js';
import { type AggCall, COLLECTING_AGGREGATES } from '../ir.js';
import type { Expr } from '../expr.js';
import type { RowBatch } from './batch.js';
import { evaluate } from './eval.js';
import { keyNorm, keyText } from './key.js';
import { workMemExceeded } from '../errors.js';
import { chargeMemory, currentWorkMem, tick, yieldIfDue, yieldNow } from '../context.js';
import { SpillPartitions } from './spill/aggregate-partitions.js';
import { mergeSort } from './sort.js';
import { type AggState, accumulate, collectAt, final, growth, orderComparator } from './agg-state.js';

interface Group {
  keys: Value[];
  states: AggState[];
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
    growth.bytes = 0;
    let out: number[] | null;
    try {
      out = this.addRows(cols, rows);
    } finally {
      if (growth.bytes > 0) {
        chargeMemory(growth.bytes, 'HashAgg meta context');
        this.charged += growth.bytes;
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
          growth.bytes += 40 + k.length;
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
      growth.bytes += this.groupBytes + h.length;
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

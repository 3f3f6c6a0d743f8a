/**
 * Hash aggregate: groups rows by key values and folds count, sum, avg, min and max per group,
 * with PostgreSQL's accumulation and result types (../bind.ts `aggregateType`):
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
import { addDecimal, formatDecimal, parseDecimal, DECIMAL_ZERO, type DecimalValue } from '../../stats/decimal-text.js';
import { numericDiv } from '../../scan/aggregate.js';
import type { AggCall } from '../bind.js';
import type { Expr } from '../expr.js';
import type { RowBatch } from './batch.js';
import { evaluate } from './eval.js';
import { compare } from './kernels.js';
import { workMemExceeded } from '../errors.js';
import { currentWorkMem } from '../context.js';

interface Group {
  keys: Value[];
  states: AggState[];
}

/** `seen` holds the keys of values already folded, for DISTINCT aggregates. */
type AggState = { n: number; v: unknown; seen?: Set<string> };

export class HashAggregate {
  private readonly groups = new Map<string, Group>();

  /** Estimated bytes per group (keys, states, the Map entry), checked against `workMem`. */
  private readonly groupBytes: number;

  constructor(
    private readonly keys: readonly Expr[],
    private readonly aggs: readonly AggCall[],
    private readonly workMem: number = currentWorkMem(),
  ) {
    this.groupBytes = 160 + 48 * keys.length + 64 * aggs.length;
  }

  add(b: RowBatch): void {
    const keyCols = this.keys.map((k) => evaluate(k, b));
    const argCols = this.aggs.map((a) => (a.arg === null ? null : evaluate(a.arg, b)));
    for (let i = 0; i < b.rows; i++) {
      const g = this.group(keyCols, i);
      for (let j = 0; j < this.aggs.length; j++) {
        const col = argCols[j]!;
        const st = g.states[j]!;
        if (col === null) {
          st.n++;
          continue;
        }
        const v = col[i]!;
        if (v === null) continue;
        if (this.aggs[j]!.distinct) {
          const k = keyText(v, this.aggs[j]!.arg!.type.id === 'numeric');
          st.seen ??= new Set();
          if (st.seen.has(k)) continue;
          st.seen.add(k);
        }
        accumulate(this.aggs[j]!, st, v);
      }
    }
  }

  /** The groups as a batch: key columns, then one column per aggregate. */
  finish(): RowBatch {
    if (this.keys.length === 0 && this.groups.size === 0) this.group([], 0);
    const out: Value[][] = [...this.keys.map(() => [] as Value[]), ...this.aggs.map(() => [] as Value[])];
    for (const g of this.groups.values()) {
      g.keys.forEach((k, i) => out[i]!.push(k));
      this.aggs.forEach((a, j) => out[this.keys.length + j]!.push(final(a, g.states[j]!)));
    }
    return { rows: this.groups.size, cols: out };
  }

  private group(keyCols: Value[][], i: number): Group {
    const keys = keyCols.map((c) => c[i]!);
    const h = keys.length === 0 ? '' : keys.map((k, j) => keyText(k, this.keys[j]!.type.id === 'numeric')).join('\u0000');
    let g = this.groups.get(h);
    if (g === undefined) {
      g = { keys, states: this.aggs.map(() => ({ n: 0, v: undefined })) };
      this.groups.set(h, g);
      if ((this.groups.size & 1023) === 0 && this.groups.size * this.groupBytes > this.workMem) throw workMemExceeded('hash aggregate', this.workMem);
    }
    return g;
  }
}

/**
 * A value's grouping key. Numbers compare as PostgreSQL's equality does: -0 is 0; numeric
 * text drops trailing fractional zeros (1.50 = 1.5).
 */
export function keyText(v: Value, numeric: boolean): string {
  if (v === null) return 'N';
  if (typeof v === 'bigint') return `b${v}`;
  if (typeof v === 'number') return `n${v === 0 ? 0 : v}`;
  if (numeric && typeof v === 'string' && /^-?\d+\.\d*0$/.test(v)) return `s${v.replace(/\.?0+$/, '')}`;
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'string') return `s${v}`;
  return `x${Buffer.from(v).toString('hex')}`;
}

function accumulate(a: AggCall, st: AggState, v: Value): void {
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
    case 'min':
    case 'max': {
      if (st.v === undefined) st.v = v;
      else {
        const c = compare(t, v, st.v as Value);
        if (a.fn === 'min' ? c < 0 : c > 0) st.v = v;
      }
      return;
    }
    default: {
      const never: never = a.fn;
      throw new Error(`unknown aggregate ${String(never)}`);
    }
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
      return addDecimal((acc as DecimalValue | undefined) ?? DECIMAL_ZERO, parseDecimal(v as string));
    case 'float4':
      return fn === 'sum' ? Math.fround(((acc as number | undefined) ?? 0) + (v as number)) : ((acc as number | undefined) ?? 0) + (v as number);
    case 'float8':
      return ((acc as number | undefined) ?? 0) + (v as number);
    default:
      throw new Error(`${fn}(${t.id}) passed the binder`);
  }
}

function final(a: AggCall, st: AggState): Value {
  if (a.fn === 'count') return BigInt(st.n);
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
      return formatDecimal(st.v as DecimalValue);
    case 'avg':
      if (typeof st.v === 'number') return st.v / st.n;
      if (typeof st.v === 'bigint') return numericDiv({ kind: 'finite', coef: st.v, scale: 0 }, BigInt(st.n));
      return numericDiv(st.v as DecimalValue, BigInt(st.n));
    default: {
      const never: never = a.fn;
      throw new Error(`unknown aggregate ${String(never)}`);
    }
  }
}

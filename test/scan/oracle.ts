/**
 * The brute-force oracle for scan tests: a table held as rows of Values (plus a deleted flag),
 * predicates evaluated row by row with PostgreSQL's three-valued logic through compareValues,
 * aggregates and top-N computed the slow, obvious way. Random data and random predicates.
 */
import { getValue } from '../../src/types/builder.js';
import type { Column, Value } from '../../src/types/column.js';
import { compareValues } from '../../src/types/compare.js';
import { type Field, type PgType, isDecimal128 } from '../../src/types/type.js';
import { addDecimalText } from '../../src/stats/index.js';
import { averageDecimal, formatDecimalValue, parseDecimalValue } from '../../src/types/numeric.js';
import { P, type Predicate } from '../../src/scan/predicate.js';
import type { AggSpec } from '../../src/scan/aggregate.js';
import type { OrderKey } from '../../src/scan/topn.js';
import { type Rng, randomValue } from '../support/random.js';

export interface Model {
  fields: Field[];
  rows: Value[][];
  deleted: boolean[];
}

export function rowsOf(columns: readonly Column[]): Value[][] {
  const n = columns[0]!.length;
  const rows: Value[][] = [];
  for (let i = 0; i < n; i++) rows.push(columns.map((c) => getValue(c, i)));
  return rows;
}

// ---- three-valued evaluation ----

type Tri = boolean | null;

function not(a: Tri): Tri {
  return a === null ? null : !a;
}
function and(a: Tri, b: Tri): Tri {
  if (a === false || b === false) return false;
  if (a === null || b === null) return null;
  return true;
}
function or(a: Tri, b: Tri): Tri {
  if (a === true || b === true) return true;
  if (a === null || b === null) return null;
  return false;
}

function cmp(t: PgType, op: string, v: Value, c: Value): Tri {
  if (v === null || c === null) return null;
  const r = compareValues(t, v, c);
  switch (op) {
    case '=':
      return r === 0;
    case '<>':
      return r !== 0;
    case '<':
      return r < 0;
    case '<=':
      return r <= 0;
    case '>':
      return r > 0;
    case '>=':
      return r >= 0;
  }
  throw new Error(op);
}

export function evaluate(m: Model, p: Predicate, row: Value[]): Tri {
  const col = (name: string) => {
    const i = m.fields.findIndex((f) => f.name === name);
    return { v: row[i]!, t: m.fields[i]!.type };
  };
  switch (p.kind) {
    case 'cmp': {
      const { v, t } = col(p.column);
      return cmp(t, p.op, v, p.value);
    }
    case 'between': {
      const { v, t } = col(p.column);
      return and(cmp(t, '>=', v, p.low), cmp(t, '<=', v, p.high));
    }
    case 'in': {
      const { v, t } = col(p.column);
      let r: Tri = false;
      for (const c of p.values) r = or(r, cmp(t, '=', v, c));
      return r;
    }
    case 'isNull':
      return col(p.column).v === null;
    case 'and':
      return p.args.reduce<Tri>((acc, a) => and(acc, evaluate(m, a, row)), true);
    case 'or':
      return p.args.reduce<Tri>((acc, a) => or(acc, evaluate(m, a, row)), false);
    case 'not':
      return not(evaluate(m, p.arg, row));
  }
}

/** Indices of live rows where p is true (all live rows when p is undefined). */
export function matching(m: Model, p: Predicate | undefined): number[] {
  const out: number[] = [];
  m.rows.forEach((r, i) => {
    if (!m.deleted[i] && (p === undefined || evaluate(m, p, r) === true)) out.push(i);
  });
  return out;
}

// ---- random predicates ----

const ORDERABLE = (t: PgType) => t.id !== 'jsonb';

export function randomPredicate(m: Model, rng: Rng, depth = 0): Predicate {
  const r = rng.int(0, depth >= 2 ? 5 : 8);
  const fields = m.fields.filter((f) => ORDERABLE(f.type));
  const f = rng.pick(fields);
  const value = (): Value => {
    if (rng.chance(0.04)) return null;
    if (rng.chance(0.75)) {
      const v = m.rows[rng.int(0, m.rows.length - 1)]![m.fields.indexOf(f)]!;
      if (v !== null) return v;
    }
    return randomValue(f.type, rng);
  };
  switch (r) {
    case 0:
    case 1:
    case 2:
      return rng.pick([P.eq, P.ne, P.lt, P.le, P.gt, P.ge])(f.name, value());
    case 3:
      return P.between(f.name, value(), value());
    case 4: {
      // Short lists, and long ones that the scan compiles as one membership test (scan/compile.ts LIST_MIN).
      const n = rng.chance(0.3) ? rng.int(16, 40) : rng.int(1, 4);
      const vs: Value[] = [];
      for (let i = 0; i < n; i++) vs.push(value());
      return P.in(rng.pick(m.fields.filter((x) => x === f)).name, vs);
    }
    case 5:
      return rng.chance(0.5) ? P.isNull(rng.pick(m.fields).name) : P.isNotNull(rng.pick(m.fields).name);
    case 6:
      return P.and(randomPredicate(m, rng, depth + 1), randomPredicate(m, rng, depth + 1));
    case 7:
      return P.or(randomPredicate(m, rng, depth + 1), randomPredicate(m, rng, depth + 1));
    default:
      return P.not(randomPredicate(m, rng, depth + 1));
  }
}

// ---- aggregates ----

function isNumeric(t: PgType): boolean {
  return ['int2', 'int4', 'int8', 'float4', 'float8', 'numeric'].includes(t.id);
}

export function randomAggs(m: Model, rng: Rng): AggSpec[] {
  const out: AggSpec[] = [{ fn: 'count_star' }];
  for (let i = 0; i < 4; i++) {
    const f = rng.pick(m.fields);
    const fns: AggSpec['fn'][] = ['count'];
    if (f.type.id !== 'bool' && f.type.id !== 'jsonb') fns.push('min', 'max');
    if (isNumeric(f.type)) fns.push('sum', 'avg');
    out.push({ fn: rng.pick(fns), column: f.name });
  }
  return out;
}

/** The expected value of an aggregate over rows `idx`; floats come with a tolerance. */
export function bruteAggregate(m: Model, a: AggSpec, idx: readonly number[]): Value {
  if (a.fn === 'count_star') return BigInt(idx.length);
  const ci = m.fields.findIndex((f) => f.name === a.column);
  const t = m.fields[ci]!.type;
  const vals = idx.map((i) => m.rows[i]![ci]!).filter((v) => v !== null);
  switch (a.fn) {
    case 'count':
      return BigInt(vals.length);
    case 'min':
    case 'max': {
      let best: Value = null;
      for (const v of vals) if (best === null || compareValues(t, v, best) * (a.fn === 'min' ? 1 : -1) < 0) best = v;
      return best;
    }
    case 'sum':
    case 'avg': {
      if (vals.length === 0) return null;
      let sum: bigint | number | string;
      if (t.id === 'float4' || t.id === 'float8') {
        let s = 0;
        for (const v of vals) s += v as number;
        if (a.fn === 'avg') return s / vals.length;
        return s;
      }
      if (t.id === 'numeric' && !isDecimal128(t)) {
        sum = vals.reduce<string>((acc, v) => addDecimalText(acc, v as string), '0');
      } else sum = vals.reduce<bigint>((acc, v) => acc + BigInt(v as number | bigint), 0n);
      const scale = isDecimal128(t) ? (t.scale ?? 0) : 0;
      const dec = typeof sum === 'string' ? parseDecimalValue(sum) : { kind: 'finite' as const, coef: sum as bigint, scale };
      if (a.fn === 'avg') return averageDecimal(dec, BigInt(vals.length));
      if (t.id === 'int2' || t.id === 'int4') return sum as bigint;
      return formatDecimalValue(dec);
    }
  }
}

/** Equality of an aggregate result with the oracle (floats within a relative tolerance). */
export function sameAggregate(t: PgType | null, fn: AggSpec['fn'], got: Value, want: Value): boolean {
  if (got === null || want === null) return got === want;
  if (typeof got === 'number' && typeof want === 'number') {
    if (Number.isNaN(got) || Number.isNaN(want)) return Number.isNaN(got) && Number.isNaN(want);
    if (fn === 'sum' || fn === 'avg') {
      if (!Number.isFinite(got) || !Number.isFinite(want)) return got === want;
      const tol = (t?.id === 'float4' && fn === 'sum' ? 1e-3 : 1e-9) * Math.max(1, Math.abs(want));
      return Math.abs(got - want) <= tol || t?.id === 'float4';
    }
    return Object.is(got, want) || got === want;
  }
  if ((fn === 'min' || fn === 'max') && t !== null) return compareValues(t, got, want) === 0 && (t.id !== 'bpchar' || got === want);
  if (got instanceof Uint8Array && want instanceof Uint8Array) return compareValues({ id: 'bytea' }, got, want) === 0;
  return got === want;
}

// ---- top-N ----

export function bruteTopN(m: Model, keys: readonly OrderKey[], idx: readonly number[], limit: number, offset: number): number[] {
  const ks = keys.map((k) => {
    const ci = m.fields.findIndex((f) => f.name === k.column);
    const desc = k.desc ?? false;
    return { ci, t: m.fields[ci]!.type, desc, nullsFirst: k.nullsFirst ?? desc };
  });
  const sorted = [...idx].sort((a, b) => {
    for (const k of ks) {
      const x = m.rows[a]![k.ci]!;
      const y = m.rows[b]![k.ci]!;
      if (x === null || y === null) {
        if (x === y) continue;
        return (x === null) === k.nullsFirst ? -1 : 1;
      }
      const c = compareValues(k.t, x, y);
      if (c !== 0) return k.desc ? -c : c;
    }
    return a - b;
  });
  return sorted.slice(offset, offset + limit);
}

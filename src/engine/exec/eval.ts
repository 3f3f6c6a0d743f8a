/**
 * The batch interpreter of bound expressions (../expr.ts): each node runs one loop over the
 * batch and yields a column of values (NULL as null). Three-valued logic is PostgreSQL's
 * (Kleene): FALSE AND NULL is FALSE, TRUE OR NULL is TRUE, NOT NULL is NULL.
 *
 * Operators are strict: a NULL operand gives NULL without calling the kernel, so a division
 * by zero in a row whose other operand is NULL raises nothing, as in PostgreSQL. CASE and
 * COALESCE evaluate a branch only over the rows that reach it (a sub-batch), so
 * `CASE WHEN g = 0 THEN 0 ELSE 100 / g END` never divides by zero.
 */
import { type Value, internalError, unreachable } from '../../types/index.js';
import type { DateTimeFn, Expr, MathFn, ScalarFn } from '../expr.js';
import { dateTimeFn } from './datetime.js';
import { mathFn } from './numeric.js';
import { type RowBatch, take } from './batch.js';
import { arith, castValue, compare, compareOp, negateValue, toText } from './kernels.js';
import { asciiLower, asciiUpper, charLength, likeMatcher, pad, position, repeatText, substring, trim } from './strings.js';
import { regexFor } from './regex.js';
import { formatRecord } from './arrays.js';
import { jsonbEqualityKey } from './jsonb.js';
import { keyNorm, keyText } from './key.js';
import { evalLibrary, isLibraryFn } from '../functions/registry.js';

export function evaluate(e: Expr, b: RowBatch): Value[] {
  const n = b.rows;
  switch (e.kind) {
    case 'column':
      return b.cols[e.slot]!;
    case 'const':
      return new Array<Value>(n).fill(e.value);
    case 'cast': {
      const a = evaluate(e.arg, b);
      const from = e.arg.type;
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) out[i] = a[i] === null ? null : castValue(from, e.type, a[i]!, e.explicit === true);
      return out;
    }
    case 'arith': {
      const l = evaluate(e.left, b);
      const r = evaluate(e.right, b);
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) out[i] = l[i] === null || r[i] === null ? null : arith(e.type, e.op, l[i]!, r[i]!);
      return out;
    }
    case 'neg': {
      const a = evaluate(e.arg, b);
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) out[i] = a[i] === null ? null : negateValue(e.type, a[i]!);
      return out;
    }
    case 'cmp': {
      const l = evaluate(e.left, b);
      const r = evaluate(e.right, b);
      const t = e.left.type;
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) out[i] = l[i] === null || r[i] === null ? null : compareOp(e.op, compare(t, l[i]!, r[i]!));
      return out;
    }
    case 'and':
    case 'or': {
      const decisive = e.kind === 'or'; // OR: a TRUE decides; AND: a FALSE does
      const out = new Array<Value>(n).fill(!decisive);
      for (const arg of e.args) {
        const a = evaluate(arg, b);
        for (let i = 0; i < n; i++) {
          if (out[i] === decisive) continue;
          if (a[i] === decisive) out[i] = decisive;
          else if (a[i] === null) out[i] = null;
        }
      }
      return out;
    }
    case 'not': {
      const a = evaluate(e.arg, b);
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) out[i] = a[i] === null ? null : !a[i];
      return out;
    }
    case 'isNull': {
      const a = evaluate(e.arg, b);
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) out[i] = (a[i] === null) !== e.negated;
      return out;
    }
    case 'case': {
      const out = new Array<Value>(n).fill(null);
      let rest: number[] = Array.from({ length: n }, (_, i) => i);
      for (const w of e.whens) {
        if (rest.length === 0) break;
        const c = evaluate(w.cond, subset(b, rest));
        const hit: number[] = [];
        const miss: number[] = [];
        for (let k = 0; k < rest.length; k++) (c[k] === true ? hit : miss).push(rest[k]!);
        if (hit.length > 0) scatter(out, hit, evaluate(w.result, subset(b, hit)));
        rest = miss;
      }
      if (rest.length > 0) scatter(out, rest, evaluate(e.otherwise, subset(b, rest)));
      return out;
    }
    case 'coalesce': {
      const out = new Array<Value>(n).fill(null);
      let rest: number[] = Array.from({ length: n }, (_, i) => i);
      for (const arg of e.args) {
        if (rest.length === 0) break;
        const v = evaluate(arg, subset(b, rest));
        const still: number[] = [];
        for (let k = 0; k < rest.length; k++) {
          if (v[k] === null) still.push(rest[k]!);
          else out[rest[k]!] = v[k]!;
        }
        rest = still;
      }
      return out;
    }
    case 'like': {
      const a = evaluate(e.arg, b);
      const p = evaluate(e.pattern, b);
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) {
        if (a[i] === null || p[i] === null) {
          out[i] = null;
          continue;
        }
        const re = likeMatcher(p[i] as string, e.escape, e.ci);
        out[i] = re.test(e.ci ? asciiLower(a[i] as string) : (a[i] as string)) !== e.negated;
      }
      return out;
    }
    case 'func':
      return evalFunc(e, b);
    case 'inSet': {
      const a = evaluate(e.arg, b);
      const members = memberKeys(e);
      const norm = keyNorm(e.arg.type);
      const miss = e.hasNull ? null : false;
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) out[i] = a[i] === null ? null : members.has(keyText(a[i]!, norm)) ? true : miss;
      return out;
    }
    case 'subquery':
    case 'element':
    case 'param':
      throw internalError(`internal error: ${e.kind === 'subquery' ? `InitPlan ${e.id}` : e.kind === 'param' ? `$${e.index + 1}` : 'a subquery element'} reached evaluation unresolved (exec/init-plans.ts and exec/params.ts put values in place before planning)`);
    default:
      return unreachable(e);
  }
}

/** The grouping keys of an `inSet`'s values (./key.ts), built once per expression. */
const memberSets = new WeakMap<Expr, ReadonlySet<string>>();

function memberKeys(e: Extract<Expr, { kind: 'inSet' }>): ReadonlySet<string> {
  let set = memberSets.get(e);
  if (set === undefined) {
    const norm = keyNorm(e.arg.type);
    set = new Set(e.values.map((v) => keyText(v, norm)));
    memberSets.set(e, set);
  }
  return set;
}

function subset(b: RowBatch, idx: number[]): RowBatch {
  return idx.length === b.rows ? b : take(b, idx);
}

function scatter(out: Value[], idx: readonly number[], v: readonly Value[]): void {
  for (let k = 0; k < idx.length; k++) out[idx[k]!] = v[k]!;
}

/** Scalar functions (../expr.ts ScalarFn); all strict except concat, which skips NULLs. */
function evalFunc(e: Extract<Expr, { kind: 'func' }>, b: RowBatch): Value[] {
  const n = b.rows;
  const args = e.args.map((a) => evaluate(a, b));
  const out = new Array<Value>(n);
  if (e.fn === 'greatest' || e.fn === 'least') {
    // NULLs are skipped; the result is NULL only when every argument is (PostgreSQL 15 docs 9.18.4).
    const sign = e.fn === 'greatest' ? 1 : -1;
    for (let i = 0; i < n; i++) {
      let best: Value = null;
      for (const a of args) {
        const v = a[i]!;
        if (v !== null && (best === null || sign * compare(e.type, v, best) > 0)) best = v;
      }
      out[i] = best;
    }
    return out;
  }
  if ((e.fn === 'textregexeq' || e.fn === 'texticregexeq') && e.args[1]!.kind === 'const') {
    // A constant pattern compiles once for the batch.
    const p = e.args[1].value;
    const re = p === null ? null : regexFor(p as string, e.fn === 'texticregexeq');
    const s = args[0]!;
    for (let i = 0; i < n; i++) out[i] = re === null || s[i] === null ? null : re.test(s[i] as string);
    return out;
  }
  if (e.fn === 'record_out') {
    for (let i = 0; i < n; i++) {
      const fields = new Array<string | null>(args.length);
      for (let j = 0; j < args.length; j++) {
        const v = args[j]![i]!;
        fields[j] = v === null ? null : toText(e.args[j]!.type, v);
      }
      out[i] = formatRecord(fields);
    }
    return out;
  }
  if (e.fn === 'concat') {
    for (let i = 0; i < n; i++) {
      let s = '';
      for (let j = 0; j < args.length; j++) {
        const v = args[j]![i]!;
        if (v !== null) s += toText(e.args[j]!.type, v);
      }
      out[i] = s;
    }
    return out;
  }
  const fn = e.fn;
  if (isLibraryFn(fn)) return evalLibrary(fn, args, e.args.map((a) => a.type), n);
  if (isDateTimeFn(fn) || isMathFn(fn)) {
    // One argument row reused across the batch: no allocation per row.
    const kernel = isDateTimeFn(fn) ? (r: Value[]) => dateTimeFn(fn, e.args, e.type, r) : (r: Value[]) => mathFn(fn as MathFn, e.args, e.type, r);
    const row = new Array<Value>(args.length);
    outer: for (let i = 0; i < n; i++) {
      for (let j = 0; j < args.length; j++) {
        const v = args[j]![i]!;
        if (v === null) {
          out[i] = null;
          continue outer;
        }
        row[j] = v;
      }
      out[i] = kernel(row);
    }
    return out;
  }
  for (let i = 0; i < n; i++) {
    let isNull = false;
    for (const a of args) if (a[i] === null) isNull = true;
    out[i] = isNull ? null : scalar(e, args, i);
  }
  return out;
}

function scalar(e: Extract<Expr, { kind: 'func' }>, args: Value[][], i: number): Value {
  const s = args[0]![i] as string;
  const fn = e.fn;
  if (isLibraryFn(fn)) throw new Error(`${fn}: evalFunc runs the library's kernels`);
  if (isDateTimeFn(fn) || isMathFn(fn)) throw new Error(`${fn}: evalFunc runs the date/time and math kernels`);
  switch (fn) {
    case 'jsonb_eqkey':
      return jsonbEqualityKey(s);
    case 'length':
      return charLength(e.args[0]!.type.id === 'bpchar' ? s.replace(/ +$/, '') : s);
    case 'lower':
      return asciiLower(s);
    case 'upper':
      return asciiUpper(s);
    case 'substring':
      return substring(s, args[1]![i] as number, args.length > 2 ? (args[2]![i] as number) : null);
    case 'position':
      return position(s, args[1]![i] as string);
    case 'btrim':
    case 'ltrim':
    case 'rtrim':
      return trim(s, args.length > 1 ? (args[1]![i] as string) : ' ', fn !== 'rtrim', fn !== 'ltrim');
    case 'textcat':
      return s + (args[1]![i] as string);
    case 'repeat':
      return repeatText(s, args[1]![i] as number);
    case 'lpad':
    case 'rpad':
      return pad(s, args[1]![i] as number, args.length > 2 ? (args[2]![i] as string) : ' ', fn === 'lpad');
    case 'octet_length': {
      const v = args[0]![i]!;
      return v instanceof Uint8Array ? v.byteLength : Buffer.byteLength(v as string, 'utf8');
    }
    case 'textregexeq':
    case 'texticregexeq':
      return regexFor(args[1]![i] as string, fn === 'texticregexeq').test(s);
    case 'concat':
    case 'record_out':
      throw new Error(`${fn} is not strict: evalFunc handles it`);
    default:
      return unreachable(fn);
  }
}

const DATETIME_FNS: ReadonlySet<string> = new Set<DateTimeFn>([
  'date_pli', 'date_mii', 'date_mi', 'ts_pl_interval', 'ts_mi_interval', 'ts_mi', 'interval_pl', 'interval_mi', 'interval_um', 'interval_mul', 'interval_div', 'date_trunc', 'timezone', 'extract', 'date_part',
]);
const MATH_FNS: ReadonlySet<string> = new Set<MathFn>(['abs', 'round', 'trunc', 'ceil', 'floor', 'sign', 'mod', 'power', 'sqrt', 'greatest', 'least', 'numeric_typmod']);

function isDateTimeFn(fn: ScalarFn): fn is DateTimeFn {
  return DATETIME_FNS.has(fn);
}

function isMathFn(fn: ScalarFn): fn is MathFn {
  return MATH_FNS.has(fn);
}

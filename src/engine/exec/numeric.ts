/**
 * Exact numeric kernels beyond + - * (./kernels.ts), on the engine's numeric text, with
 * PostgreSQL 15's result scales (utils/adt/numeric.c):
 *
 *   numericDiv('1.0', '3')        // '0.33333333333333333333'  (select_div_scale: 20 digits)
 *   numericDiv('123.456', '0.3')  // '411.5200000000000000'
 *   numericMod('-7.5', '2')       // '-1.5'
 *   numericRound('1234.5', -2)    // '1200'
 *   numericSqrt('2.0')            // '1.414213562373095'
 *
 * A finite value is coef × 10^-scale with scale its display scale (dscale). NaN propagates;
 * Infinity is not supported here (0A000), as in the rest of the engine's numeric arithmetic.
 */
import { type PgType, type Value, SQLSTATE, unreachable } from '../../types/index.js';
import type { Expr, MathFn } from '../expr.js';
import {
  type DecimalValue,
  type FiniteDecimal,
  NUMERIC_MAX_DISPLAY_SCALE,
  NUMERIC_MIN_SIG_DIGITS,
  divideDecimal,
  divideDecimals,
  formatDecimalValue,
  numericWeight,
  parseDecimalValue,
} from '../../types/index.js';
import { SqlError, divisionByZero, notSupported, outOfRange } from '../errors.js';

const MIN_SIG_DIGITS = NUMERIC_MIN_SIG_DIGITS;
const MAX_DISPLAY_SCALE = NUMERIC_MAX_DISPLAY_SCALE;

type Finite = FiniteDecimal;

function finite(s: string, what: string): Finite | null {
  const d = parseDecimalValue(s);
  if (d.kind === 'nan') return null;
  if (d.kind !== 'finite') throw notSupported(`${what} with Infinity`);
  return d as Finite;
}

function abs(b: bigint): bigint {
  return b < 0n ? -b : b;
}

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** numeric_div: select_div_scale's scale (../../types/numeric.ts), NaN propagating, 22012 for zero. */
export function numericDiv(a: string, b: string): string {
  const x = finite(a, 'numeric division');
  const y = finite(b, 'numeric division');
  if (x === null || y === null) return 'NaN';
  if (y.coef === 0n) throw divisionByZero();
  return formatDecimalValue(divideDecimals(x, y));
}

/** numeric_mod: a - trunc(a / b) * b, with the larger display scale; the sign is a's. */
export function numericMod(a: string, b: string): string {
  const x = finite(a, 'numeric modulo');
  const y = finite(b, 'numeric modulo');
  if (x === null || y === null) return 'NaN';
  if (y.coef === 0n) throw divisionByZero();
  const s = Math.max(x.scale, y.scale);
  const r = (x.coef * pow10(s - x.scale)) % (y.coef * pow10(s - y.scale));
  return formatDecimalValue({ kind: 'finite', coef: r, scale: s });
}

/** round(numeric, n) (numeric_round): half away from zero; display scale max(n, 0). */
export function numericRound(a: string, n: number): string {
  return roundTo(a, n, 'round');
}

/** trunc(numeric, n) (numeric_trunc): toward zero; display scale max(n, 0). */
export function numericTrunc(a: string, n: number): string {
  return roundTo(a, n, 'trunc');
}

function roundTo(a: string, n0: number, mode: 'round' | 'trunc'): string {
  const x = finite(a, mode);
  if (x === null) return 'NaN';
  const n = Math.max(Math.min(n0, 2000), -2000);
  let coef: bigint;
  if (n >= x.scale) coef = x.coef * pow10(n - x.scale);
  else {
    const p = pow10(x.scale - n);
    const m = abs(x.coef);
    let q = m / p;
    if (mode === 'round' && (m % p) * 2n >= p) q += 1n;
    coef = x.coef < 0n ? -q : q;
  }
  // A negative n rounds to the left of the point; the value keeps no decimals.
  if (n < 0) return formatDecimalValue({ kind: 'finite', coef: coef * pow10(-n), scale: 0 });
  return formatDecimalValue({ kind: 'finite', coef, scale: n });
}

/**
 * apply_typmod: rounds to `scale` decimals (half away from zero), then fails with 22003 when
 * the integer part needs more than precision - scale digits. NaN passes.
 */
export function numericApplyTypmod(a: string, precision: number, scale: number): string {
  const r = numericRound(a, scale);
  if (r === 'NaN') return r;
  const x = finite(r, 'numeric(p,s)')!;
  const intDigits = precision - scale;
  if (abs(x.coef) >= pow10(intDigits + x.scale) && x.coef !== 0n) {
    const detail = intDigits > 0 ? `must round to an absolute value less than 10^${intDigits}` : 'must round to an absolute value less than 1';
    throw new SqlError('invalid_input', SQLSTATE.numeric_value_out_of_range, `numeric field overflow (A field with precision ${precision}, scale ${scale} ${detail}.)`);
  }
  return r;
}

/** ceil/floor(numeric): the nearest integer above/below, scale 0. */
export function numericCeilFloor(a: string, ceil: boolean): string {
  const x = finite(a, ceil ? 'ceil' : 'floor');
  if (x === null) return 'NaN';
  const p = pow10(x.scale);
  let q = x.coef / p; // toward zero
  const r = x.coef % p;
  if (ceil && r > 0n) q += 1n;
  if (!ceil && r < 0n) q -= 1n;
  return q.toString();
}

/** sign(numeric): -1, 0 or 1 (scale 0). */
export function numericSign(a: string): string {
  const x = finite(a, 'sign');
  if (x === null) return 'NaN';
  return x.coef > 0n ? '1' : x.coef < 0n ? '-1' : '0';
}

export function numericAbs(a: string): string {
  const x = finite(a, 'abs');
  if (x === null) return 'NaN';
  return formatDecimalValue({ ...x, coef: abs(x.coef) });
}

/** 2201F, as PostgreSQL's sqrt and power raise it. */
export function invalidArgumentForPower(message: string): SqlError {
  return new SqlError('invalid_input', SQLSTATE.invalid_argument_for_power_function, message);
}

/**
 * sqrt(numeric) (numeric_sqrt): at least 16 significant digits and no fewer decimals than the
 * input, rounded half up.
 */
export function numericSqrt(a: string): string {
  const x = finite(a, 'sqrt');
  if (x === null) return 'NaN';
  if (x.coef < 0n) throw invalidArgumentForPower('cannot take square root of a negative number');
  const { weight } = numericWeight(x);
  const sweight = ((weight + 1) * 4) / 2 - 1;
  const rscale = Math.min(Math.max(MIN_SIG_DIGITS - sweight, x.scale, 0), MAX_DISPLAY_SCALE);
  return sqrtTo(x, rscale);
}

/** The square root of x >= 0 rounded half up to `rscale` decimals (rscale >= x's scale). */
function sqrtTo(x: Finite, rscale: number): string {
  // sqrt(coef × 10^-scale) × 10^(rscale+1) = sqrt(coef × 10^(2(rscale+1) - scale)).
  const root = isqrt(x.coef * pow10(2 * (rscale + 1) - x.scale));
  const q = root / 10n + (root % 10n >= 5n ? 1n : 0n);
  return formatDecimalValue({ kind: 'finite', coef: q, scale: rscale });
}

/**
 * numeric_stddev_internal (PostgreSQL 15 numeric.c): the variance (N·Σx² − (Σx)²) / (N·(N−1))
 * (N·N for the population), divided at select_div_scale's scale; the standard deviation is
 * its square root at that same scale. A numerator rounded to ≤ 0 is 0.
 */
export function numericVariance(n: bigint, sum: DecimalValue, sum2: DecimalValue, sample: boolean, root: boolean): string {
  const sx = sum as Finite;
  const sx2 = sum2 as Finite;
  const rscale = sx.scale * 2;
  // N·Σx² at rscale (Σx² already has twice the input scale) minus (Σx)².
  const a = n * sx2.coef * pow10(rscale - sx2.scale);
  const b = sx.coef * sx.coef * pow10(rscale - 2 * sx.scale);
  const num = a - b;
  if (num <= 0n) return '0';
  const den = sample ? n * (n - 1n) : n * n;
  const variance = numericDiv(formatDecimalValue({ kind: 'finite', coef: num, scale: rscale }), den.toString());
  if (!root) return variance;
  const v = finite(variance, 'sqrt')!;
  return sqrtTo(v, v.scale);
}

/** floor(sqrt(n)) for n >= 0 (Newton's method on bigints). */
function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = BigInt(Math.floor(Math.sqrt(Number(n))));
  if (x === 0n) x = 1n;
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) {
      // Newton from above converges down; settle the last step either way.
      while (x * x > n) x -= 1n;
      while ((x + 1n) * (x + 1n) <= n) x += 1n;
      return x;
    }
    x = y;
  }
}

/**
 * power(numeric, numeric): PostgreSQL's 2201F errors; the value itself only where it is exact
 * and its display scale is certain (numeric_power's result scale depends on an estimate of
 * the result's weight), else 0A000.
 */
export function numericPower(a: string, b: string): string {
  const x = finite(a, 'power');
  const y = finite(b, 'power');
  if (x === null || y === null) {
    // NaN ^ 0 = 1 and 1 ^ NaN = 1 (numeric_power)
    if (x !== null && x.coef === pow10(x.scale)) return '1';
    if (y !== null && y.coef === 0n) return '1';
    return 'NaN';
  }
  const yInteger = y.coef % pow10(y.scale) === 0n;
  if (x.coef === 0n && y.coef < 0n) throw invalidArgumentForPower('zero raised to a negative power is undefined');
  if (x.coef < 0n && !yInteger) throw invalidArgumentForPower('a negative number raised to a non-integer power yields a complex result');
  if (yInteger) {
    // power_var_int: at least 16 decimals, no fewer than the base's; exact, then rounded.
    const n = y.coef / pow10(y.scale);
    const rscale = Math.min(Math.max(MIN_SIG_DIGITS, x.scale), MAX_DISPLAY_SCALE);
    if (n === 0n) return formatDecimalValue({ kind: 'finite', coef: pow10(rscale), scale: rscale });
    const m = abs(n);
    if (m * BigInt(abs(x.coef).toString().length) > 200_000n) throw notSupported('power(numeric, numeric) with a result this large');
    const p: Finite = { kind: 'finite', coef: x.coef ** m, scale: x.scale * Number(m) };
    const one: Finite = { kind: 'finite', coef: 1n, scale: 0 };
    return formatDecimalValue(n > 0n ? divideDecimal(p, one, rscale) : divideDecimal(one, p, rscale));
  }
  if (y.coef * 10n === 5n * pow10(y.scale)) {
    // x ^ 0.5: power_var's scale (16 significant digits by the estimated weight) of the square root.
    const weight = Math.trunc(0.5 * Math.log10(Number(formatDecimalValue(x))));
    const rscale = Math.min(Math.max(MIN_SIG_DIGITS - weight, x.scale, y.scale, 0), MAX_DISPLAY_SCALE);
    return sqrtTo(x, rscale);
  }
  throw notSupported('power(numeric, numeric) with a non-integer exponent');
}

// ---------------------------------------------------------------------------------------------
// float8 functions with PostgreSQL's errors (utils/adt/float.c)

function floatError(kind: 'overflow' | 'underflow'): SqlError {
  return new SqlError('invalid_input', SQLSTATE.numeric_value_out_of_range, `value out of range: ${kind}`);
}

/** float8 power (dpow). */
export function floatPower(x: number, y: number): number {
  if (Number.isNaN(x)) return Number.isNaN(y) || y !== 0 ? NaN : 1;
  if (Number.isNaN(y)) return x !== 1 ? NaN : 1;
  if (x === 0 && y < 0) throw invalidArgumentForPower('zero raised to a negative power is undefined');
  if (x < 0 && Math.floor(y) !== y) throw invalidArgumentForPower('a negative number raised to a non-integer power yields a complex result');
  if (x === 1) return 1; // C's pow(1, inf) is 1; JavaScript's is NaN
  if (x === -1 && !Number.isFinite(y)) return 1;
  const r = x ** y;
  if (Number.isFinite(x) && Number.isFinite(y)) {
    if (!Number.isFinite(r)) throw floatError('overflow');
    if (r === 0 && x !== 0) throw floatError('underflow');
  }
  return r;
}

/** float8 sqrt (dsqrt). */
export function floatSqrt(x: number): number {
  if (x < 0) throw invalidArgumentForPower('cannot take square root of a negative number');
  return Math.sqrt(x);
}

/** round(float8): rint, half to even. */
export function floatRound(x: number): number {
  if (!Number.isFinite(x)) return x;
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r === 0 && x < 0 ? -0 : r;
}

/** sign(float8): -1, 0 or 1 (NaN gives 0, as in float8_sign). */
export function floatSign(x: number): number {
  return x > 0 ? 1 : x < 0 ? -1 : 0;
}

// ---------------------------------------------------------------------------------------------
// The math functions of ../expr.ts, on one row's non-NULL argument values; `type` is the
// result type, which is also the argument type (the binder casts to the chosen signature).

const INT_RANGES = { int2: [-32768, 32767, 'smallint'], int4: [-2147483648, 2147483647, 'integer'] } as const;

export function mathFn(fn: MathFn, argExprs: readonly Expr[], type: PgType, v: readonly Value[]): Value {
  const id = type.id;
  switch (fn) {
    case 'abs':
      if (id === 'int2' || id === 'int4') {
        const r = Math.abs(v[0] as number);
        if (r > INT_RANGES[id][1]) throw outOfRange(INT_RANGES[id][2]);
        return r;
      }
      if (id === 'int8') {
        const r = abs(v[0] as bigint);
        if (r > 2n ** 63n - 1n) throw outOfRange('bigint');
        return r;
      }
      if (id === 'numeric') return numericAbs(v[0] as string);
      return Math.abs(v[0] as number);
    case 'round':
      if (id === 'numeric') return numericRound(v[0] as string, v.length > 1 ? (v[1] as number) : 0);
      return floatRound(v[0] as number);
    case 'trunc':
      if (id === 'numeric') return numericTrunc(v[0] as string, v.length > 1 ? (v[1] as number) : 0);
      return Math.trunc(v[0] as number);
    case 'ceil':
      return id === 'numeric' ? numericCeilFloor(v[0] as string, true) : Math.ceil(v[0] as number);
    case 'floor':
      return id === 'numeric' ? numericCeilFloor(v[0] as string, false) : Math.floor(v[0] as number);
    case 'sign':
      return id === 'numeric' ? numericSign(v[0] as string) : floatSign(v[0] as number);
    case 'sqrt':
      return id === 'numeric' ? numericSqrt(v[0] as string) : floatSqrt(v[0] as number);
    case 'power':
      if (id === 'numeric') return numericPower(v[0] as string, v[1] as string);
      return floatPower(v[0] as number, v[1] as number);
    case 'mod':
      if (id === 'numeric') return numericMod(v[0] as string, v[1] as string);
      if (id === 'int8') {
        if ((v[1] as bigint) === 0n) throw divisionByZero();
        return (v[0] as bigint) % (v[1] as bigint);
      }
      if ((v[1] as number) === 0) throw divisionByZero();
      return (v[0] as number) % (v[1] as number) | 0;
    case 'numeric_typmod':
      return numericApplyTypmod(v[0] as string, v[1] as number, v[2] as number);
    case 'greatest':
    case 'least':
      throw new Error(`${fn} is not strict: the evaluator handles it`);
    default:
      void argExprs;
      return unreachable(fn);
  }
}

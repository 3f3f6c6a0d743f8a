/**
 * Mathematical functions beyond the binder's older ones (PostgreSQL 15 docs 9.3, tables 9.5,
 * 9.6 and 9.7): exact on numeric (coef × 10^-scale, ../../types/numeric.ts), IEEE on float8,
 * with PostgreSQL's errors (2201E for logarithms, 2201G for width_bucket, 22003 on overflow).
 *
 *   gcd(12, 18) → 6        lcm(4.5, 3) → 9.0       div(-7.5, 2) → -3      scale(1.250) → 3
 *   width_bucket(5.35, 0.024, 10.06, 5) → 3        factorial(5) → 120
 *
 * The transcendental functions of numeric (ln, exp, log of numeric) are 0A000: their result
 * digits follow numeric.c's own scale rules, which paxd does not reproduce yet; float8 ones
 * (the type an integer argument resolves to) are here.
 */
import { type PgType, type Value, SQLSTATE, formatDecimalValue, parseDecimalValue } from '../../types/index.js';
import { SqlError, divisionByZero, floatOverflow, notSupported, outOfRange } from '../errors.js';
import { T } from '../types.js';
import type { Family, Kernel, Signature } from './signature.js';

const sig = (params: readonly PgType[], result: PgType, kernel: Kernel, extra: Partial<Signature> = {}): Signature => Object.freeze({ params, result, kernel, ...extra });

interface Dec {
  readonly coef: bigint;
  readonly scale: number;
}

/** A finite numeric, or null for NaN; Infinity is 0A000 as in the engine's other numeric kernels. */
function dec(s: Value, what: string): Dec | null {
  const d = parseDecimalValue(s as string);
  if (d.kind === 'nan') return null;
  if (d.kind !== 'finite') throw notSupported(`${what} with Infinity`);
  return d;
}

const fmt = (coef: bigint, scale: number): string => formatDecimalValue({ kind: 'finite', coef, scale });
const p10 = (n: number): bigint => 10n ** BigInt(n);
const absB = (x: bigint): bigint => (x < 0n ? -x : x);
/** Both coefficients at the larger scale. */
function aligned(a: Dec, b: Dec): [bigint, bigint, number] {
  const s = Math.max(a.scale, b.scale);
  return [a.coef * p10(s - a.scale), b.coef * p10(s - b.scale), s];
}

function gcdB(a: bigint, b: bigint): bigint {
  let x = absB(a);
  let y = absB(b);
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

const INT4_MIN = -2147483648;
const INT8_MIN = -(2n ** 63n);
const INT8_MAX = 2n ** 63n - 1n;

function gcdInt4(a: number, b: number): number {
  const g = Number(gcdB(BigInt(a), BigInt(b)));
  if (g > 2147483647) throw outOfRange('integer');
  return g;
}

function gcdInt8(a: bigint, b: bigint): bigint {
  const g = gcdB(a, b);
  if (g > INT8_MAX) throw outOfRange('bigint');
  return g;
}

function lcmOf(a: bigint, b: bigint): bigint {
  if (a === 0n || b === 0n) return 0n;
  return absB((a / gcdB(a, b)) * b);
}

function lcmInt4(a: number, b: number): number {
  if (a === INT4_MIN || b === INT4_MIN) throw outOfRange('integer');
  const r = lcmOf(BigInt(a), BigInt(b));
  if (r > 2147483647n) throw outOfRange('integer');
  return Number(r);
}

function lcmInt8(a: bigint, b: bigint): bigint {
  if (a === INT8_MIN || b === INT8_MIN) throw outOfRange('bigint');
  const r = lcmOf(a, b);
  if (r > INT8_MAX) throw outOfRange('bigint');
  return r;
}

function numericPair(a: Value, b: Value, what: string, f: (x: bigint, y: bigint) => bigint): string {
  const x = dec(a, what);
  const y = dec(b, what);
  if (x === null || y === null) return 'NaN';
  const [cx, cy, s] = aligned(x, y);
  return fmt(f(cx, cy), s);
}

/** div(a, b): the integral quotient truncated toward zero (numeric_div_trunc); 22012 for zero. */
function numericDivTrunc(a: Value, b: Value): string {
  const x = dec(a, 'div');
  const y = dec(b, 'div');
  if (x === null || y === null) return 'NaN';
  if (y.coef === 0n) throw divisionByZero();
  const [cx, cy] = aligned(x, y);
  return fmt(cx / cy, 0);
}

/** factorial(n) (numeric_fac): 22003 below zero. */
function factorial(n: bigint): string {
  if (n < 0n) throw new SqlError('invalid_input', SQLSTATE.numeric_value_out_of_range, 'factorial of a negative number is undefined');
  if (n > 32177n) throw new SqlError('invalid_input', SQLSTATE.numeric_value_out_of_range, 'value overflows numeric format');
  let r = 1n;
  for (let i = 2n; i <= n; i++) r *= i;
  return r.toString();
}

/** scale(numeric): the display scale; trim_scale drops trailing fractional zeros; min_scale is the smallest exact scale. */
function minScale(d: Dec): number {
  let { coef, scale } = d;
  while (scale > 0 && coef % 10n === 0n) {
    coef /= 10n;
    scale--;
  }
  return scale;
}

function trimScale(v: Value): string {
  const d = dec(v, 'trim_scale');
  if (d === null) return 'NaN';
  const s = minScale(d);
  return fmt(d.coef / p10(d.scale - s), s);
}

function widthBucketError(message: string): SqlError {
  return new SqlError('invalid_input', SQLSTATE.invalid_argument_for_width_bucket_function, message);
}

/** The bucket of `op` among `count` equal buckets between `lo` and `hi` (width_bucket_float8). */
function widthBucketFloat(op: number, lo: number, hi: number, count: number): number {
  if (count <= 0) throw widthBucketError('count must be greater than zero');
  if (Number.isNaN(op) || Number.isNaN(lo) || Number.isNaN(hi)) throw widthBucketError('operand, lower bound, and upper bound cannot be NaN');
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) throw widthBucketError('lower and upper bounds must be finite');
  if (lo === hi) throw widthBucketError('lower bound cannot equal upper bound');
  let r: number;
  if (lo < hi) r = op < lo ? 0 : op >= hi ? count + 1 : Math.floor((count * (op - lo)) / (hi - lo)) + 1;
  else r = op > lo ? 0 : op <= hi ? count + 1 : Math.floor((count * (lo - op)) / (lo - hi)) + 1;
  if (r > 2147483647) throw outOfRange('integer');
  return Math.min(r, count + 1);
}

function widthBucketNumeric(opv: Value, lov: Value, hiv: Value, count: number): number {
  if (count <= 0) throw widthBucketError('count must be greater than zero');
  const op = dec(opv, 'width_bucket');
  const lo = dec(lov, 'width_bucket');
  const hi = dec(hiv, 'width_bucket');
  if (op === null || lo === null || hi === null) throw widthBucketError('operand, lower bound, and upper bound cannot be NaN');
  const s = Math.max(op.scale, lo.scale, hi.scale);
  const [o, l, h] = [op, lo, hi].map((d) => d.coef * p10(s - d.scale)) as [bigint, bigint, bigint];
  if (l === h) throw widthBucketError('lower bound cannot equal upper bound');
  const c = BigInt(count);
  let r: bigint;
  if (l < h) r = o < l ? 0n : o >= h ? c + 1n : (c * (o - l)) / (h - l) + 1n;
  else r = o > l ? 0n : o <= h ? c + 1n : (c * (l - o)) / (l - h) + 1n;
  if (r > 2147483647n) throw outOfRange('integer');
  return Number(r);
}

function logError(message: string): SqlError {
  return new SqlError('invalid_input', SQLSTATE.invalid_argument_for_logarithm, message);
}

/** dlog1 / dlog10: 2201E at and below zero. */
function logOf(x: number, f: (x: number) => number): number {
  if (x === 0) throw logError('cannot take logarithm of zero');
  if (x < 0) throw logError('cannot take logarithm of a negative number');
  return f(x);
}

function outOfRangeInput(): SqlError {
  return new SqlError('invalid_input', SQLSTATE.numeric_value_out_of_range, 'input is out of range');
}

/** A float8 result checked as float8's functions check theirs: an infinite result of a finite input overflows. */
function checked(x: number, r: number): number {
  if (!Number.isFinite(r) && Number.isFinite(x) && !Number.isNaN(r)) throw floatOverflow();
  return r;
}

/** dexp: overflow is 22003, underflow 22003 too ("value out of range: underflow"). */
function expOf(x: number): number {
  const r = Math.exp(x);
  if (!Number.isFinite(r) && Number.isFinite(x)) throw floatOverflow();
  if (r === 0 && Number.isFinite(x)) throw new SqlError('invalid_input', SQLSTATE.numeric_value_out_of_range, 'value out of range: underflow');
  return r;
}

/** An inverse trig function, defined on [-1, 1] (22003 outside it, as dasin/dacos). */
function unitDomain(f: (x: number) => number): Kernel {
  return (a) => {
    const x = a[0] as number;
    if (!Number.isNaN(x) && (x < -1 || x > 1)) throw outOfRangeInput();
    return f(x);
  };
}

/** The trig functions in degrees, exact at the multiples of 30 and 45 where PostgreSQL's are (sind, cosd). */
function sind(x: number): number {
  if (!Number.isFinite(x)) {
    if (Number.isNaN(x)) return x;
    throw outOfRangeInput();
  }
  let d = x % 360;
  if (d < 0) d += 360;
  const exact: Record<number, number> = { 0: 0, 30: 0.5, 90: 1, 150: 0.5, 180: 0, 210: -0.5, 270: -1, 330: -0.5 };
  const e = exact[d];
  return e !== undefined ? e : Math.sin((d * Math.PI) / 180);
}

function cosd(x: number): number {
  if (!Number.isFinite(x)) {
    if (Number.isNaN(x)) return x;
    throw outOfRangeInput();
  }
  let d = x % 360;
  if (d < 0) d += 360;
  const exact: Record<number, number> = { 0: 1, 60: 0.5, 90: 0, 120: -0.5, 180: -1, 240: -0.5, 270: 0, 300: 0.5 };
  const e = exact[d];
  return e !== undefined ? e : Math.cos((d * Math.PI) / 180);
}

const f8 = (f: (x: number) => number): Signature[] => [sig([T.float8], T.float8, (a) => checked(a[0] as number, f(a[0] as number)))];
const numericUnsupported = (name: string): Signature => sig([T.numeric], T.numeric, () => { throw notSupported(`${name}(numeric)`); });

// ---------------------------------------------------------------------------------------------
// random() and setseed(): one generator per process (PostgreSQL keeps one per backend), xorshift128+.

let s0 = BigInt(Math.floor(Math.random() * 2 ** 52)) | 1n;
let s1 = BigInt(Math.floor(Math.random() * 2 ** 52)) | 2n;
const M64 = (1n << 64n) - 1n;

function nextRandom(): number {
  let x = s0;
  const y = s1;
  s0 = y;
  x ^= (x << 23n) & M64;
  s1 = x ^ y ^ (x >> 17n) ^ (y >> 26n);
  return Number(((s1 + y) & M64) >> 11n) / 2 ** 53;
}

function setseed(seed: number): string {
  if (!(seed >= -1 && seed <= 1)) throw new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, `setseed parameter ${seed} is out of allowed range [-1,1]`);
  const bits = BigInt(Math.round((seed + 1) * 2 ** 40));
  s0 = (bits * 0x9e3779b97f4a7c15n) & M64 || 1n;
  s1 = (bits * 0xbf58476d1ce4e5b9n + 1n) & M64 || 2n;
  for (let i = 0; i < 8; i++) nextRandom();
  return '';
}

export const MATH_FUNCTIONS: Family = Object.freeze({
  gcd: [
    sig([T.int4, T.int4], T.int4, (a) => gcdInt4(a[0] as number, a[1] as number)),
    sig([T.int8, T.int8], T.int8, (a) => gcdInt8(a[0] as bigint, a[1] as bigint)),
    sig([T.numeric, T.numeric], T.numeric, (a) => numericPair(a[0]!, a[1]!, 'gcd', gcdB)),
  ],
  lcm: [
    sig([T.int4, T.int4], T.int4, (a) => lcmInt4(a[0] as number, a[1] as number)),
    sig([T.int8, T.int8], T.int8, (a) => lcmInt8(a[0] as bigint, a[1] as bigint)),
    sig([T.numeric, T.numeric], T.numeric, (a) => numericPair(a[0]!, a[1]!, 'lcm', lcmOf)),
  ],
  factorial: [sig([T.int8], T.numeric, (a) => factorial(a[0] as bigint))],
  div: [sig([T.numeric, T.numeric], T.numeric, (a) => numericDivTrunc(a[0]!, a[1]!))],
  scale: [sig([T.numeric], T.int4, (a) => dec(a[0]!, 'scale')?.scale ?? null)],
  min_scale: [sig([T.numeric], T.int4, (a) => { const d = dec(a[0]!, 'min_scale'); return d === null ? null : minScale(d); })],
  trim_scale: [sig([T.numeric], T.numeric, (a) => trimScale(a[0]!))],
  width_bucket: [
    sig([T.float8, T.float8, T.float8, T.int4], T.int4, (a) => widthBucketFloat(a[0] as number, a[1] as number, a[2] as number, a[3] as number)),
    sig([T.numeric, T.numeric, T.numeric, T.int4], T.int4, (a) => widthBucketNumeric(a[0]!, a[1]!, a[2]!, a[3] as number)),
  ],
  ln: [...f8((x) => logOf(x, Math.log)), numericUnsupported('ln')],
  log10: [...f8((x) => logOf(x, Math.log10)), numericUnsupported('log10')],
  log: [
    ...f8((x) => logOf(x, Math.log10)),
    numericUnsupported('log'),
    sig([T.numeric, T.numeric], T.numeric, () => { throw notSupported('log(numeric, numeric)'); }),
  ],
  exp: [sig([T.float8], T.float8, (a) => expOf(a[0] as number)), numericUnsupported('exp')],
  cbrt: f8(Math.cbrt),
  pi: [sig([], T.float8, () => Math.PI)],
  degrees: f8((x) => (x * 180) / Math.PI),
  radians: f8((x) => (x * Math.PI) / 180),
  sin: f8(Math.sin),
  cos: f8(Math.cos),
  tan: f8(Math.tan),
  cot: f8((x) => 1 / Math.tan(x)),
  asin: [sig([T.float8], T.float8, unitDomain(Math.asin))],
  acos: [sig([T.float8], T.float8, unitDomain(Math.acos))],
  atan: f8(Math.atan),
  atan2: [sig([T.float8, T.float8], T.float8, (a) => Math.atan2(a[0] as number, a[1] as number))],
  sind: f8(sind),
  cosd: f8(cosd),
  sinh: f8(Math.sinh),
  cosh: f8(Math.cosh),
  tanh: f8(Math.tanh),
  asinh: f8(Math.asinh),
  acosh: [sig([T.float8], T.float8, (a) => { const x = a[0] as number; if (x < 1) throw outOfRangeInput(); return Math.acosh(x); })],
  atanh: [sig([T.float8], T.float8, (a) => { const x = a[0] as number; if (x < -1 || x > 1) throw outOfRangeInput(); return Math.atanh(x); })],
  random: [sig([], T.float8, () => nextRandom(), { volatility: 'volatile' })],
  setseed: [sig([T.float8], T.text, (a) => setseed(a[0] as number), { volatility: 'volatile' })],
});

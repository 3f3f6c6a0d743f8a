/**
 * numeric, the one module of the concept (PostgreSQL 15 utils/adt/numeric.c): the text input
 * and output functions (numeric_in, apply_typmod, get_str_from_var), numeric(p,s) as the
 * unscaled integers that decimal128 columns hold, the exact decimal values that sums,
 * averages and the engine's arithmetic compute with, and select_div_scale, the result scale of
 * a division wherever one happens (the engine's `/`, avg() of a scan or of statistics):
 *
 *   parseNumeric(' 1.50e1 ')                  // '15.0'
 *   parseDecimal('1.005', 10, 2)              // 101n       (numeric(10,2), half away from zero)
 *   formatDecimal(-5n, 3)                     // '-0.005'
 *   divideDecimals(parseDecimalValue('1.0'), parseDecimalValue('3'))   // 0.33333333333333333333
 *   formatDecimalValue(addDecimal(parseDecimalValue('1.50'), parseDecimalValue('2')))  // '3.50'
 *
 * A DecimalValue is coef × 10^-scale with `scale` its display scale as PostgreSQL keeps it
 * (dscale: "1.50" has scale 2, "1e3" scale 0, "1.5e-3" scale 4), so that a sum prints with
 * the largest display scale of its inputs, as numeric_add does.
 */
import { PaxdError, SQLSTATE, invalidInput, unreachable, unsupported } from './errors.js';
import { err, isDigit, onlySpaceFrom, skipSpace, startsWithCI } from './text/scan.js';

// ---------------------------------------------------------------------------------------------
// Text input and output: numeric_in / set_var_from_str / apply_typmod / get_str_from_var.

/** A scanned finite numeric: value = digits × 10^exp10, printed with dscale decimals. */
export interface ScannedNumeric {
  readonly neg: boolean;
  /** Significant digits without leading zeros ('' for zero). */
  readonly digits: string;
  readonly exp10: number;
  readonly dscale: number;
}

export type NumericScan = ScannedNumeric | 'NaN' | 'Infinity' | '-Infinity';

/** NUMERIC_DSCALE_MAX and the int16 weight limit (in base-10000 digits) of numeric storage. */
const NUMERIC_DSCALE_MAX = 0x3fff;
const NUMERIC_MAX_INT_DIGITS = (32767 + 1) * 4;

function numericOverflow(): PaxdError {
  return err(SQLSTATE.numeric_value_out_of_range, 'value overflows numeric format');
}

/**
 * numeric_in up to (not including) the typmod: leading space, NaN / [+-]Infinity / [+-]inf
 * (case-insensitive), or [+-] digits [. digits] [e [+-] digits] (strtol after 'e', so spaces
 * and a sign may follow it), trailing space.
 */
export function scanNumeric(s: string, typeName = 'numeric'): NumericScan {
  let i = skipSpace(s, 0);
  let special: NumericScan | null = null;
  // Only a word starting with n or i (after a sign) can be a special value.
  const c0 = s.charCodeAt(i);
  const w = (c0 === 43 || c0 === 45 ? s.charCodeAt(i + 1) : c0) | 32;
  if (w === 110 || w === 105) {
    if (startsWithCI(s, i, 'nan')) {
      special = 'NaN';
      i += 3;
    } else if (startsWithCI(s, i, 'infinity')) {
      special = 'Infinity';
      i += 8;
    } else if (startsWithCI(s, i, '+infinity')) {
      special = 'Infinity';
      i += 9;
    } else if (startsWithCI(s, i, '-infinity')) {
      special = '-Infinity';
      i += 9;
    } else if (startsWithCI(s, i, 'inf')) {
      special = 'Infinity';
      i += 3;
    } else if (startsWithCI(s, i, '+inf')) {
      special = 'Infinity';
      i += 4;
    } else if (startsWithCI(s, i, '-inf')) {
      special = '-Infinity';
      i += 4;
    }
  }
  if (special !== null) {
    if (!onlySpaceFrom(s, i)) throw invalidInput(typeName, s);
    return special;
  }
  let neg = false;
  if (c0 === 43) i++;
  else if (c0 === 45) {
    neg = true;
    i++;
  }
  let c = s.charCodeAt(i);
  if (!isDigit(c) && !(c === 46 && isDigit(s.charCodeAt(i + 1)))) throw invalidInput(typeName, s);
  let intStart = i;
  while (i < s.length && isDigit(s.charCodeAt(i))) i++;
  const intEnd = i;
  let fracStart = i;
  let fracEnd = i;
  if (s.charCodeAt(i) === 46) {
    fracStart = ++i;
    while (i < s.length && isDigit(s.charCodeAt(i))) i++;
    fracEnd = i;
    if (s.charCodeAt(i) === 46) throw invalidInput(typeName, s);
  }
  let exponent = 0;
  c = s.charCodeAt(i);
  if (c === 101 || c === 69) {
    let j = skipSpace(s, i + 1);
    let eneg = false;
    const cs = s.charCodeAt(j);
    if (cs === 43 || cs === 45) {
      eneg = cs === 45;
      j++;
    }
    if (!isDigit(s.charCodeAt(j))) throw invalidInput(typeName, s);
    while (j < s.length && isDigit(s.charCodeAt(j))) {
      if (exponent < 1e10) exponent = exponent * 10 + (s.charCodeAt(j) - 48);
      j++;
    }
    if (eneg) exponent = -exponent;
    i = j;
    // set_var_from_str: |exponent| >= INT_MAX/2 is "value overflows numeric format".
    // (reported before any trailing junk, as set_var_from_str runs first)
    if (exponent >= 1073741823 || exponent <= -1073741823) throw numericOverflow();
  }
  if (!onlySpaceFrom(s, i)) throw invalidInput(typeName, s);
  while (intStart < intEnd && s.charCodeAt(intStart) === 48) intStart++;
  let digits = s.slice(intStart, intEnd) + s.slice(fracStart, fracEnd);
  const fracLen = fracEnd - fracStart;
  let exp10 = exponent - fracLen;
  const dscale = Math.max(0, -exp10);
  // Normalize: no leading zeros, no trailing zeros (they only live in dscale).
  let a = 0;
  while (a < digits.length && digits.charCodeAt(a) === 48) a++;
  let b = digits.length;
  while (b > a && digits.charCodeAt(b - 1) === 48) b--;
  exp10 += digits.length - b;
  digits = digits.slice(a, b);
  if (digits === '') neg = false;
  return { neg, digits, exp10, dscale };
}

export function checkNumericStorage(p: ScannedNumeric): void {
  if (p.dscale > NUMERIC_DSCALE_MAX) throw numericOverflow();
  if (p.digits !== '' && p.digits.length + p.exp10 > NUMERIC_MAX_INT_DIGITS) throw numericOverflow();
}

/** get_str_from_var: the value with exactly dscale decimals, no exponent. */
export function numericToString(p: ScannedNumeric): string {
  const { digits, exp10, dscale } = p;
  let intPart: string;
  let frac: string;
  if (digits === '') {
    intPart = '0';
    frac = '';
  } else {
    const point = digits.length + exp10; // digits before the decimal point
    if (point <= 0) {
      intPart = '0';
      frac = '0'.repeat(-point) + digits;
    } else if (point >= digits.length) {
      intPart = digits + '0'.repeat(point - digits.length);
      frac = '';
    } else {
      intPart = digits.slice(0, point);
      frac = digits.slice(point);
    }
  }
  if (frac.length < dscale) frac += '0'.repeat(dscale - frac.length);
  return (p.neg ? '-' : '') + intPart + (dscale > 0 ? '.' + frac : '');
}

/** Unconstrained numeric: validated and normalized as numeric_out prints it. */
export function parseNumeric(s: string): string {
  const p = scanNumeric(s);
  if (typeof p === 'string') return p;
  checkNumericStorage(p);
  return numericToString(p);
}

function fieldOverflow(precision: number, scale: number, detail: string): PaxdError {
  return err(SQLSTATE.numeric_value_out_of_range, 'numeric field overflow', `A field with precision ${precision}, scale ${scale} ${detail}`);
}

/**
 * numeric(p,s) into decimal128: the unscaled value round(v · 10^s), rounding half away from
 * zero (round_var), and |v| must round to less than 10^(p−s) (apply_typmod).
 */
export function parseDecimal(s: string, precision: number, scale: number): bigint {
  const p = scanNumeric(s);
  if (p === 'NaN') throw unsupported(`NaN in numeric(${precision},${scale}) (stored as decimal128)`);
  if (typeof p === 'string') throw fieldOverflow(precision, scale, 'cannot hold an infinite value.');
  // The input's own display scale is checked before the typmod applies.
  if (p.dscale > NUMERIC_DSCALE_MAX) throw numericOverflow();
  const { digits } = p;
  if (digits === '') return 0n;
  const shift = p.exp10 + scale;
  const keep = digits.length + shift; // digits of the unscaled integer part
  const maxDigits = precision - scale;
  const tooBig = () =>
    fieldOverflow(precision, scale, `must round to an absolute value less than ${maxDigits !== 0 ? '10^' : ''}${maxDigits !== 0 ? maxDigits : 1}.`);
  if (keep > precision) throw tooBig();
  let u: bigint;
  if (shift >= 0) {
    u = BigInt(digits) * 10n ** BigInt(shift);
  } else if (keep <= 0) {
    u = keep === 0 && digits.charCodeAt(0) >= 53 ? 1n : 0n;
  } else {
    const head = digits.slice(0, keep);
    u = keep <= 15 ? BigInt(Number(head)) : BigInt(head);
    if (digits.charCodeAt(keep) >= 53) u += 1n;
  }
  if (u >= POW10[precision]!) throw tooBig();
  return p.neg ? -u : u;
}

const POW10: readonly bigint[] = Array.from({ length: 80 }, (_, i) => 10n ** BigInt(i));

/**
 * numeric(p,s) output: exactly s decimals (none, and trailing zeros, when s <= 0). The unscaled
 * value may be a number when it is a safe integer (the scan adapter's fast path).
 */
export function formatDecimal(u: bigint | number, scale: number): string {
  const neg = u < 0;
  let digits = (neg ? -u : u).toString();
  if (scale <= 0) {
    if (digits === '0') return '0';
    return (neg ? '-' : '') + digits + '0'.repeat(-scale);
  }
  if (digits.length <= scale) digits = '0'.repeat(scale - digits.length + 1) + digits;
  const cut = digits.length - scale;
  return (neg ? '-' : '') + digits.slice(0, cut) + '.' + digits.slice(cut);
}

// ---------------------------------------------------------------------------------------------
// Exact decimal values: sums (statistics, scans, the engine), averages and the engine's numeric
// arithmetic compute on them; their text is numeric_out's.

export interface DecimalValue {
  readonly kind: 'finite' | 'nan' | 'pinf' | 'ninf';
  readonly coef: bigint;
  readonly scale: number;
}

/** A finite DecimalValue (kind 'finite'). */
export type FiniteDecimal = DecimalValue & { readonly kind: 'finite' };

export const DECIMAL_NAN: DecimalValue = { kind: 'nan', coef: 0n, scale: 0 };
export const DECIMAL_PINF: DecimalValue = { kind: 'pinf', coef: 0n, scale: 0 };
export const DECIMAL_NINF: DecimalValue = { kind: 'ninf', coef: 0n, scale: 0 };
export const DECIMAL_ZERO: DecimalValue = { kind: 'finite', coef: 0n, scale: 0 };

/**
 * Numeric text (numeric_in's syntax, through scanNumeric) as a DecimalValue. Text that is not
 * a numeric counts as NaN: it cannot be summed (values reaching here were validated on input).
 */
export function parseDecimalValue(s: string): DecimalValue {
  let p: NumericScan;
  try {
    p = scanNumeric(s);
  } catch (e) {
    if (e instanceof PaxdError) return DECIMAL_NAN;
    throw e;
  }
  if (p === 'NaN') return DECIMAL_NAN;
  if (p === 'Infinity') return DECIMAL_PINF;
  if (p === '-Infinity') return DECIMAL_NINF;
  if (p.digits === '') return { kind: 'finite', coef: 0n, scale: p.dscale };
  const shift = p.exp10 + p.dscale;
  let coef = p.digits.length <= 15 ? BigInt(Number(p.digits)) : BigInt(p.digits);
  if (shift > 0) coef *= POW10[shift] ?? 10n ** BigInt(shift);
  return { kind: 'finite', coef: p.neg ? -coef : coef, scale: p.dscale };
}

/** numeric_out of a DecimalValue: exactly `scale` decimals, or NaN / Infinity / -Infinity. */
export function formatDecimalValue(d: DecimalValue): string {
  switch (d.kind) {
    case 'nan':
      return 'NaN';
    case 'pinf':
      return 'Infinity';
    case 'ninf':
      return '-Infinity';
    case 'finite':
      return formatDecimal(d.coef, d.scale);
    default:
      return unreachable(d.kind);
  }
}

/** numeric_add: exact, with the larger display scale; NaN and opposite infinities give NaN. */
export function addDecimal(a: DecimalValue, b: DecimalValue): DecimalValue {
  if (a.kind === 'nan' || b.kind === 'nan') return DECIMAL_NAN;
  if (a.kind !== 'finite' || b.kind !== 'finite') {
    const pinf = a.kind === 'pinf' || b.kind === 'pinf';
    const ninf = a.kind === 'ninf' || b.kind === 'ninf';
    return pinf && ninf ? DECIMAL_NAN : pinf ? DECIMAL_PINF : DECIMAL_NINF;
  }
  if (a.scale === b.scale) return { kind: 'finite', coef: a.coef + b.coef, scale: a.scale };
  if (a.scale < b.scale) return { kind: 'finite', coef: a.coef * 10n ** BigInt(b.scale - a.scale) + b.coef, scale: b.scale };
  return { kind: 'finite', coef: a.coef + b.coef * 10n ** BigInt(a.scale - b.scale), scale: a.scale };
}

/** addDecimal on numeric text: addDecimalText('1.50', '2') is '3.50'. */
export function addDecimalText(a: string, b: string): string {
  return formatDecimalValue(addDecimal(parseDecimalValue(a), parseDecimalValue(b)));
}

// ---------------------------------------------------------------------------------------------
// Division: select_div_scale and div_var's rounding (numeric.c).

/** NUMERIC_MIN_SIG_DIGITS and NUMERIC_MAX_DISPLAY_SCALE of numeric.c. */
export const NUMERIC_MIN_SIG_DIGITS = 16;
export const NUMERIC_MAX_DISPLAY_SCALE = 1000;

/**
 * The weight and first digit of a value in numeric.c's base-10000 form (NumericVar): 12345 is
 * the digits [1, 2345] with weight 1; 0.5 is [5000] with weight -1. Zero has weight 0, digit 0.
 */
export function numericWeight(d: FiniteDecimal): { weight: number; first: number } {
  const a = d.coef < 0n ? -d.coef : d.coef;
  if (a === 0n) return { weight: 0, first: 0 };
  const exp10 = a.toString().length - 1 - d.scale; // 10^exp10 <= |x| < 10^(exp10+1)
  const weight = Math.floor(exp10 / 4);
  const shift = d.scale + 4 * weight; // first digit = floor(|x| / 10000^weight)
  return { weight, first: Number(shift >= 0 ? a / 10n ** BigInt(shift) : a * 10n ** BigInt(-shift)) };
}

/**
 * select_div_scale: the result scale of x / y — NUMERIC_MIN_SIG_DIGITS significant digits
 * from the estimated quotient weight, no fewer decimals than either input shows, at most
 * NUMERIC_MAX_DISPLAY_SCALE.
 *
 *   selectDivScale(1.0, 3) = 20      selectDivScale(3, 2) = 16      selectDivScale(123.456, 0.3) = 16
 */
export function selectDivScale(x: FiniteDecimal, y: FiniteDecimal): number {
  const wx = numericWeight(x);
  const wy = numericWeight(y);
  let qweight = wx.weight - wy.weight;
  if (wx.first <= wy.first) qweight--;
  const rscale = NUMERIC_MIN_SIG_DIGITS - qweight * 4;
  return Math.min(Math.max(rscale, x.scale, y.scale, 0), NUMERIC_MAX_DISPLAY_SCALE);
}

/** x / y (y ≠ 0) rounded half away from zero to `rscale` decimals, as div_var with round = true. */
export function divideDecimal(x: FiniteDecimal, y: FiniteDecimal, rscale: number): FiniteDecimal {
  const num = (x.coef < 0n ? -x.coef : x.coef) * 10n ** BigInt(y.scale + rscale);
  let den = y.coef < 0n ? -y.coef : y.coef;
  if (x.scale > 0) den *= 10n ** BigInt(x.scale);
  let q = num / den;
  if ((num % den) * 2n >= den) q += 1n;
  const neg = x.coef < 0n !== y.coef < 0n;
  return { kind: 'finite', coef: neg ? -q : q, scale: rscale };
}

/**
 * numeric_div of finite values at select_div_scale's scale: the one division of numeric that
 * the engine's `/` and avg() (from a scan or from statistics) share. y must not be zero.
 */
export function divideDecimals(x: FiniteDecimal, y: FiniteDecimal): FiniteDecimal {
  return divideDecimal(x, y, selectDivScale(x, y));
}

/**
 * avg() of numeric, int2, int4 and int8: the exact sum divided by the count at
 * select_div_scale's scale; NaN and ±Infinity sums stay what they are. The one average of
 * the scan layer's aggregates from statistics, the engine's hash aggregate and its compiled
 * pipelines.
 *
 *   averageDecimal({ kind: 'finite', coef: 3n, scale: 0 }, 2n)   // '1.5000000000000000'
 */
export function averageDecimal(sum: DecimalValue, count: bigint): string {
  if (sum.kind !== 'finite') return formatDecimalValue(sum);
  return formatDecimalValue(divideDecimals(sum as FiniteDecimal, { kind: 'finite', coef: count, scale: 0 }));
}

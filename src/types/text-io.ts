/**
 * PostgreSQL 15's text input and output for every type paxd stores, with PostgreSQL's error
 * messages and SQLSTATEs. The session settings this matches are DateStyle 'ISO, MDY',
 * TimeZone 'UTC', extra_float_digits 1 (shortest round-trip floats), a UTF8 database.
 *
 *   parseText({ id: 'numeric', precision: 10, scale: 2 }, ' 1.005 ')  // 101n  (1.01 unscaled)
 *   formatText({ id: 'float8' }, 1e21)                                 // '1e+21'
 *   parseText({ id: 'int4' }, '12x')  // throws 22P02 invalid input syntax for type integer: "12x"
 *
 * parseText is called once per CSV field, so the integer, float, numeric and date/time paths
 * scan the string by hand (no regex, no allocation on the happy path where avoidable).
 *
 * Sources cited below are files of the PostgreSQL 15 tree: utils/adt/numutils.c (integers),
 * float.c, bool.c, numeric.c, varchar.c, varlena.c + encode.c (bytea), uuid.c, date.c,
 * timestamp.c, datetime.c, common/jsonapi.c + utils/adt/jsonb.c, common/d2s.c + f2s.c.
 */
import type { Value } from './column.js';
import {
  PaxdError,
  SQLSTATE,
  assert,
  invalidInput,
  outOfRange,
  unsupported,
  unreachable,
} from './errors.js';
import type { PgType } from './type.js';
import { formatInterval, parseIntervalValue } from './interval.js';

/** Parses PostgreSQL text input for `type` into paxd's scalar representation. */
export function parseText(type: PgType, text: string): Value {
  switch (type.id) {
    case 'int2':
      return parseSmallInt(text, 'smallint', -32768, 32767);
    case 'int4':
      return parseSmallInt(text, 'integer', -2147483648, 2147483647);
    case 'int8':
      return parseInt8(text);
    case 'float4':
      return parseFloat4(text);
    case 'float8':
      return parseFloat8(text);
    case 'bool':
      return parseBool(text);
    case 'text':
      return checkText(text);
    case 'varchar':
      return parseVarchar(type.length, text);
    case 'bpchar':
      return parseBpchar(type.length, text);
    case 'bytea':
      return parseBytea(text);
    case 'date':
      return parseDate(text);
    case 'timestamp':
      return parseTimestamp(text, false);
    case 'timestamptz':
      return parseTimestamp(text, true);
    case 'numeric':
      return type.precision === undefined ? parseNumeric(text) : parseDecimal(text, type.precision, type.scale ?? 0);
    case 'uuid':
      return parseUuid(text);
    case 'jsonb':
      return parseJsonb(text);
    case 'interval':
      return parseIntervalValue(text);
    default:
      return unreachable(type.id);
  }
}

/** Formats a (non-NULL) value of `type` as PostgreSQL's output function prints it. */
export function formatText(type: PgType, v: Value): string {
  assert(v !== null, 'formatText called with NULL');
  switch (type.id) {
    case 'int2':
    case 'int4':
    case 'int8':
      return String(v);
    case 'float4':
      return formatFloat4(v as number);
    case 'float8':
      return formatFloat8(v as number);
    case 'bool':
      return v ? 't' : 'f';
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'jsonb':
      return v as string;
    case 'bytea':
      return formatBytea(v as Uint8Array);
    case 'date':
      return formatDate(v as number);
    case 'timestamp':
      return formatTimestamp(v as bigint, false);
    case 'timestamptz':
      return formatTimestamp(v as bigint, true);
    case 'numeric':
      return type.precision === undefined ? (v as string) : formatDecimal(v as bigint, type.scale ?? 0);
    case 'uuid':
      return formatUuid(v as Uint8Array);
    case 'interval':
      return formatInterval(v as Uint8Array);
    default:
      return unreachable(type.id);
  }
}

// ---------------------------------------------------------------------------------------------
// Shared scanning helpers

/** C isspace() in the C locale: space, \t, \n, \v, \f, \r. */
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isAlpha(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

function skipSpace(s: string, i: number): number {
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  return i;
}

/** Case-insensitive (ASCII) test that s[i..] starts with `word` (lower case). */
function startsWithCI(s: string, i: number, word: string): boolean {
  if (s.length - i < word.length) return false;
  for (let k = 0; k < word.length; k++) {
    let c = s.charCodeAt(i + k);
    if (c >= 65 && c <= 90) c += 32;
    if (c !== word.charCodeAt(k)) return false;
  }
  return true;
}

function onlySpaceFrom(s: string, i: number): boolean {
  return skipSpace(s, i) === s.length;
}

function err(code: string, message: string, detail?: string): PaxdError {
  return new PaxdError('invalid_input', code, message, detail === undefined ? {} : { detail });
}

// ---------------------------------------------------------------------------------------------
// Integers: numutils.c pg_strtoint16/32/64. Leading/trailing isspace, optional sign, at least
// one digit, digits only (PostgreSQL 16 added '_' separators and 0x/0o/0b; 15 has neither).
// Overflow is detected while reading digits, so "99999999999x" is out of range, not syntax.

function parseSmallInt(s: string, name: string, min: number, max: number): number {
  let i = skipSpace(s, 0);
  let neg = false;
  const c0 = s.charCodeAt(i);
  if (c0 === 45) {
    neg = true;
    i++;
  } else if (c0 === 43) i++;
  if (!isDigit(s.charCodeAt(i))) throw invalidInput(name, s);
  // Accumulate negatively, as PostgreSQL does, so that the minimum value fits.
  let acc = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c)) break;
    acc = acc * 10 - (c - 48);
    if (acc < min) throw outOfRange(name, s);
  }
  if (!onlySpaceFrom(s, i)) throw invalidInput(name, s);
  if (neg) return acc;
  if (-acc > max) throw outOfRange(name, s);
  return 0 - acc;
}

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

function parseInt8(s: string): bigint {
  let i = skipSpace(s, 0);
  const c0 = s.charCodeAt(i);
  const neg = c0 === 45;
  if (c0 === 45 || c0 === 43) i++;
  const start = i;
  while (i < s.length && isDigit(s.charCodeAt(i))) i++;
  if (i === start) throw invalidInput('bigint', s);
  let v: bigint;
  if (i - start <= 15) {
    // Up to 15 digits is exact in a double: one BigInt conversion instead of a parse.
    let n = 0;
    for (let k = start; k < i; k++) n = n * 10 + (s.charCodeAt(k) - 48);
    v = BigInt(neg ? -n : n);
  } else {
    v = BigInt(s.slice(start, i));
    if (neg) v = -v;
    if (v < I64_MIN || v > I64_MAX) throw outOfRange('bigint', s);
  }
  if (!onlySpaceFrom(s, i)) throw invalidInput('bigint', s);
  return v;
}

// ---------------------------------------------------------------------------------------------
// Floats: float.c float8in_internal / float4in. PostgreSQL calls strtod()/strtof() (glibc),
// which accepts decimal and hexadecimal (0x1.8p3) forms, inf/infinity/nan case-insensitively
// with a sign; then trailing whitespace. A result that over- or underflows to inf/0 (ERANGE)
// is an error; subnormal results are accepted. Error wording differs between the two:
//   float8: "1e400" is out of range for type double precision  (the number part only)
//   float4: " 1e400 x" is out of range for type real            (the whole input)
// and both report range errors before trailing junk.

interface FloatScan {
  /** The value, correctly rounded to double (or exactly m·2^e for hex input). */
  readonly value: number;
  /** End of the number. */
  readonly end: number;
  /** Start of the number (after leading space). */
  readonly start: number;
  /** The input denotes a nonzero finite number (to tell underflow from "0"). */
  readonly nonzero: boolean;
  /** For hex input: the exact mantissa and binary exponent; for decimal: undefined. */
  readonly hex?: { m: bigint; e: number };
}

function scanFloat(s: string, typeName: string): FloatScan {
  const start = skipSpace(s, 0);
  let i = start;
  if (i === s.length) throw invalidInput(typeName, s);
  let c = s.charCodeAt(i);
  let neg = false;
  if (c === 43 || c === 45) {
    neg = c === 45;
    c = s.charCodeAt(++i);
  }
  if (c === 48 && (s.charCodeAt(i + 1) | 32) === 120 && isHexDigitOrDot(s, i + 2)) return scanHexFloat(s, start, i + 2, neg);
  if (isDigit(c) || c === 46) {
    let digits = 0;
    let nonzero = false;
    while (i < s.length && isDigit((c = s.charCodeAt(i)))) {
      if (c !== 48) nonzero = true;
      digits++;
      i++;
    }
    if (c === 46) {
      i++;
      while (i < s.length && isDigit((c = s.charCodeAt(i)))) {
        if (c !== 48) nonzero = true;
        digits++;
        i++;
      }
    }
    if (digits === 0) throw invalidInput(typeName, s);
    if ((c | 32) === 101) {
      let j = i + 1;
      const cs = s.charCodeAt(j);
      if (cs === 43 || cs === 45) j++;
      if (isDigit(s.charCodeAt(j))) {
        while (j < s.length && isDigit(s.charCodeAt(j))) j++;
        i = j;
      }
    }
    return { value: Number(s.slice(start, i)), end: i, start, nonzero };
  }
  // glibc: "inf", "infinity", "nan", "nan(n-char-sequence)", case-insensitive, after a sign.
  if (startsWithCI(s, i, 'inf')) {
    const end = startsWithCI(s, i, 'infinity') ? i + 8 : i + 3;
    return { value: neg ? -Infinity : Infinity, end, start, nonzero: false };
  }
  if (startsWithCI(s, i, 'nan')) {
    let end = i + 3;
    if (s.charCodeAt(end) === 40) {
      let j = end + 1;
      while (j < s.length && (isAlpha(s.charCodeAt(j)) || isDigit(s.charCodeAt(j)) || s.charCodeAt(j) === 95)) j++;
      if (s.charCodeAt(j) === 41) end = j + 1;
    }
    return { value: NaN, end, start, nonzero: false };
  }
  throw invalidInput(typeName, s);
}

function hexVal(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 32;
  if (l >= 97 && l <= 102) return l - 87;
  return -1;
}

function isHexDigitOrDot(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return hexVal(c) >= 0 || (c === 46 && hexVal(s.charCodeAt(i + 1)) >= 0);
}

/** C99 hexadecimal floating constant: 0x h* [. h*] [p [+-] d+], exact mantissa. */
function scanHexFloat(s: string, start: number, i: number, neg: boolean): FloatScan {
  let m = 0n;
  let e = 0;
  let c = s.charCodeAt(i);
  while (hexVal(c) >= 0) {
    m = (m << 4n) | BigInt(hexVal(c));
    c = s.charCodeAt(++i);
  }
  if (c === 46) {
    c = s.charCodeAt(++i);
    while (hexVal(c) >= 0) {
      m = (m << 4n) | BigInt(hexVal(c));
      e -= 4;
      c = s.charCodeAt(++i);
    }
  }
  if ((c | 32) === 112) {
    let j = i + 1;
    let eneg = false;
    const cs = s.charCodeAt(j);
    if (cs === 43 || cs === 45) {
      eneg = cs === 45;
      j++;
    }
    if (isDigit(s.charCodeAt(j))) {
      let x = 0;
      while (j < s.length && isDigit(s.charCodeAt(j))) {
        if (x < 1e9) x = x * 10 + (s.charCodeAt(j) - 48);
        j++;
      }
      e += eneg ? -x : x;
      i = j;
    }
  }
  if (neg) m = -m;
  return { value: binaryToFloat(m, e, 53, -1022), end: i, start, nonzero: m !== 0n, hex: { m, e } };
}

/**
 * m·2^e correctly rounded (ties to even) to a binary float with `p` significant bits whose
 * smallest normal exponent is `emin` (53/-1022 for double, 24/-126 for float). Returns
 * ±Infinity on overflow.
 */
function binaryToFloat(m: bigint, e: number, p: number, emin: number): number {
  if (m === 0n) return 0;
  const neg = m < 0n;
  if (neg) m = -m;
  const n = m.toString(2).length;
  const ulpExp = Math.max(n - 1 + e - (p - 1), emin - (p - 1));
  const shift = ulpExp - e;
  let q: bigint;
  if (shift <= 0) q = m << BigInt(-shift);
  else {
    const sh = BigInt(shift);
    q = m >> sh;
    const rem = m - (q << sh);
    const half = 1n << (sh - 1n);
    if (rem > half || (rem === half && (q & 1n) === 1n)) q += 1n;
  }
  // Number(q) is exact (q <= 2^p); scaling by a power of two is exact unless it overflows.
  let v = Number(q) * 2 ** Math.min(ulpExp, 1023);
  if (ulpExp > 1023) v *= 2 ** (ulpExp - 1023);
  if (p === 24 && v > FLT_MAX) v = Infinity;
  return neg ? -v : v;
}

const FLT_MAX = 3.4028234663852886e38;

function parseFloat8(s: string): number {
  const f = scanFloat(s, 'double precision');
  const v = f.value;
  if ((v === 0 && f.nonzero) || ((v === Infinity || v === -Infinity) && (f.nonzero || f.hex !== undefined))) {
    throw err(SQLSTATE.numeric_value_out_of_range, `"${s.slice(f.start, f.end)}" is out of range for type double precision`);
  }
  if (!onlySpaceFrom(s, f.end)) throw invalidInput('double precision', s);
  return v;
}

function parseFloat4(s: string): number {
  const f = scanFloat(s, 'real');
  let v: number;
  if (f.hex !== undefined) v = binaryToFloat(f.hex.m, f.hex.e, 24, -126);
  else if (Number.isNaN(f.value) || !f.nonzero) v = Math.fround(f.value);
  else v = decimalToFloat4(s.slice(f.start, f.end), f.value);
  if (f.nonzero && (v === 0 || v === Infinity || v === -Infinity)) {
    throw err(SQLSTATE.numeric_value_out_of_range, `"${s}" is out of range for type real`);
  }
  if (!onlySpaceFrom(s, f.end)) throw invalidInput('real', s);
  return v;
}

/**
 * strtof: the decimal correctly rounded to float32. Math.fround(double) double-rounds, which
 * is wrong only when the double lands exactly on a midpoint between two floats; then decide
 * with exact integer arithmetic on the decimal string.
 */
function decimalToFloat4(dec: string, d: number): number {
  const f = Math.fround(d);
  if (f === d) return f;
  let other: number;
  if (f === Infinity || f === -Infinity) other = f > 0 ? FLT_MAX : -FLT_MAX;
  else other = 2 * d - f;
  const mid = f === Infinity || f === -Infinity ? Math.abs(d) === FLT_MAX + 2 ** 103 : Math.fround(other) === other;
  if (!mid) return f;
  const cmp = compareDecimalWithDouble(dec, d); // sign of |dec| - |d|
  if (cmp === 0) return f;
  // Choose the neighbour on the decimal's side of the midpoint.
  const away = Math.abs(f) > Math.abs(d) ? f : other;
  const toward = away === f ? other : f;
  return cmp > 0 ? away : toward;
}

/** Sign of |decimal string| − |d| computed exactly. */
function compareDecimalWithDouble(dec: string, d: number): number {
  let digits = '';
  let exp10 = 0;
  let i = 0;
  if (dec[0] === '+' || dec[0] === '-') i++;
  let seenPoint = false;
  for (; i < dec.length; i++) {
    const ch = dec[i]!;
    if (ch === '.') seenPoint = true;
    else if (ch === 'e' || ch === 'E') {
      exp10 += Number(dec.slice(i + 1));
      break;
    } else {
      digits += ch;
      if (seenPoint) exp10--;
    }
  }
  let D = BigInt(digits);
  // |d| = M · 2^K exactly.
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, Math.abs(d));
  const hi = buf.getUint32(0);
  const lo = buf.getUint32(4);
  const bexp = hi >>> 20;
  let M = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let K: number;
  if (bexp === 0) K = -1074;
  else {
    M |= 1n << 52n;
    K = bexp - 1075;
  }
  let L = M;
  if (exp10 >= 0) D *= 10n ** BigInt(exp10);
  else L *= 10n ** BigInt(-exp10);
  if (K >= 0) L <<= BigInt(K);
  else D <<= BigInt(-K);
  return D > L ? 1 : D < L ? -1 : 0;
}

/**
 * float8out with extra_float_digits = 1: the shortest decimal that round-trips (Ryu, d2s.c),
 * printed fixed when the decimal exponent is in (-4, 15] and as d.ddde±XX otherwise.
 *   1e21 -> 1e+21, 1.5e-07, 100000, 1e+15, 0.0001, 1e-05, -0, NaN, -Infinity
 */
export function formatFloat8(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  let e = x.toExponential();
  // JS may pick a digit string lying exactly on the rounding interval's bound (it parses back
  // by ties-to-even); PostgreSQL's Ryu never does, and then prints more digits.
  if (isBoundTie(e, x, false)) {
    for (let p = significantDigits(e) + 1; p <= 17; p++) {
      e = x.toExponential(p - 1);
      if (Number(e) === x && !isBoundTie(e, x, false)) break;
    }
  }
  return ryuFormat(e, 15);
}

function significantDigits(expForm: string): number {
  const eAt = expForm.indexOf('e');
  const mant = expForm.slice(expForm.charCodeAt(0) === 45 ? 1 : 0, eAt);
  return mant.length > 1 ? mant.length - 1 : 1;
}

/**
 * Whether the decimal `dec` ("d.ddde±X", as from toExponential) is exactly the midpoint
 * between x and a neighbouring double (float32 when `single`). Cheap filters first: a decimal
 * D·10^E can equal a binary midpoint only if it has a short exact binary expansion.
 */
function isBoundTie(dec: string, x: number, single: boolean): boolean {
  const neg = dec.charCodeAt(0) === 45;
  const eAt = dec.indexOf('e');
  const mant = dec.slice(neg ? 1 : 0, eAt);
  const digits = mant.length > 1 ? mant[0]! + mant.slice(2) : mant;
  const E = Number(dec.slice(eAt + 1)) - (digits.length - 1);
  const dnum = Number(digits);
  if (E >= 0) {
    if (dnum * 5 ** E >= 2 ** 60) return false;
  } else if (5 ** -E > dnum || BigInt(digits) % 5n ** BigInt(-E) !== 0n) return false;
  // x = m · 2^k with m of the format's precision; midpoints are (2m±1)·2^(k-1), or
  // (4m−1)·2^(k−2) below a power of two.
  const ax = Math.abs(x);
  let m: bigint;
  let k: number;
  let minK: number;
  let top: bigint;
  if (single) {
    const bits = new Uint32Array(new Float32Array([ax]).buffer)[0]!;
    const be = bits >>> 23;
    m = BigInt(bits & 0x7fffff);
    k = be === 0 ? -149 : be - 150;
    if (be !== 0) m |= 1n << 23n;
    minK = -149;
    top = 1n << 23n;
  } else {
    const dv = new DataView(new ArrayBuffer(8));
    dv.setFloat64(0, ax);
    const hi = dv.getUint32(0);
    const be = hi >>> 20;
    m = (BigInt(hi & 0xfffff) << 32n) | BigInt(dv.getUint32(4));
    k = be === 0 ? -1074 : be - 1075;
    if (be !== 0) m |= 1n << 52n;
    minK = -1074;
    top = 1n << 52n;
  }
  const up: [bigint, number] = [2n * m + 1n, k - 1];
  const down: [bigint, number] = m === top && k > minK ? [4n * m - 1n, k - 2] : [2n * m - 1n, k - 1];
  let N = BigInt(digits);
  let Dn = 1n;
  if (E >= 0) N *= 10n ** BigInt(E);
  else Dn = 10n ** BigInt(-E);
  for (const [A, B] of [up, down]) {
    const lhs = B >= 0 ? N : N << BigInt(-B);
    const rhs = B >= 0 ? (A << BigInt(B)) * Dn : A * Dn;
    if (lhs === rhs) return true;
  }
  return false;
}

/** float4out: shortest float32 round trip (Ryu f2s.c), fixed for decimal exponents in (-4, 6]. */
export function formatFloat4(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  let e = '';
  for (let p = 1; p <= 9; p++) {
    e = roundHalfEven(x, p);
    if (Math.fround(Number(e)) === x && !isBoundTie(e, x, true)) break;
  }
  return ryuFormat(e, 6);
}

/**
 * x to p significant digits as "d.ddde±X". toExponential rounds an exact half up; Ryu rounds
 * it to even (f2s.c: "round even" when the removed digits are exactly 5).
 */
function roundHalfEven(x: number, p: number): string {
  const e = x.toExponential(p - 1);
  const exact = x.toExponential(Math.min(100, p + 40));
  const eAt = exact.indexOf('e');
  const mant = exact.slice(exact.charCodeAt(0) === 45 ? 1 : 0, eAt).replace('.', '');
  // An exact tie: digit p+1 is 5 and nothing follows.
  if (mant.charCodeAt(p) !== 53 || !/^0*$/.test(mant.slice(p + 1))) return e;
  const last = mant.charCodeAt(p - 1) - 48;
  if (last % 2 === 0) {
    // keep the truncated (even) digits
    const d = mant.slice(0, p);
    return (x < 0 ? '-' : '') + d[0] + (p > 1 ? '.' + d.slice(1) : '') + exact.slice(eAt);
  }
  return e;
}

/** Lays out JS's "d.ddde±X" (shortest digits) the way Ryu's to_chars does in PostgreSQL. */
function ryuFormat(expForm: string, maxFixedExp: number): string {
  const neg = expForm.charCodeAt(0) === 45;
  const eAt = expForm.indexOf('e');
  const mant = expForm.slice(neg ? 1 : 0, eAt);
  let digits = mant.length > 1 ? mant[0]! + mant.slice(2) : mant;
  let end = digits.length;
  while (end > 1 && digits.charCodeAt(end - 1) === 48) end--;
  digits = digits.slice(0, end);
  const nexp = Number(expForm.slice(eAt + 1)) + 1; // value = 0.digits × 10^nexp
  const len = digits.length;
  let out: string;
  if (nexp > -4 && nexp <= maxFixedExp) {
    if (nexp <= 0) out = '0.' + '0'.repeat(-nexp) + digits;
    else if (nexp < len) out = digits.slice(0, nexp) + '.' + digits.slice(nexp);
    else out = digits + '0'.repeat(nexp - len);
  } else {
    const e = nexp - 1;
    const ae = Math.abs(e);
    out = digits[0]! + (len > 1 ? '.' + digits.slice(1) : '') + 'e' + (e < 0 ? '-' : '+') + (ae < 10 ? '0' : '') + ae;
  }
  return neg ? '-' + out : out;
}

// ---------------------------------------------------------------------------------------------
// bool: bool.c parse_bool_with_len after trimming isspace on both ends. Accepted: any prefix
// of true/false/yes/no (case-insensitive), on, of/off (at least two letters), 1, 0.

function parseBool(s: string): boolean {
  const a = skipSpace(s, 0);
  let b = s.length;
  while (b > a && isSpace(s.charCodeAt(b - 1))) b--;
  const len = b - a;
  if (len > 0) {
    const w = s.slice(a, b).toLowerCase();
    switch (w.charCodeAt(0)) {
      case 116: // t
        if ('true'.startsWith(w)) return true;
        break;
      case 102: // f
        if ('false'.startsWith(w)) return false;
        break;
      case 121: // y
        if ('yes'.startsWith(w)) return true;
        break;
      case 110: // n
        if ('no'.startsWith(w)) return false;
        break;
      case 111: // o: 'o' alone is ambiguous
        if (w === 'on') return true;
        if (w === 'of' || w === 'off') return false;
        break;
      case 49:
        if (len === 1) return true;
        break;
      case 48:
        if (len === 1) return false;
        break;
    }
  }
  throw invalidInput('boolean', s);
}

// ---------------------------------------------------------------------------------------------
// Character types: varchar.c. Text is any valid UTF-8 without NUL (the server rejects NUL and
// invalid sequences while converting input: 22021). varchar(n)/character(n) raise 22001 when
// longer than n characters unless the excess is all spaces, which is cut; character(n) pads
// with spaces to n and is stored padded (bpchar without typmod keeps the input as is).

interface WellFormed {
  isWellFormed(): boolean;
}

function checkText(s: string): string {
  if (s.indexOf('\0') >= 0) throw err(SQLSTATE.character_not_in_repertoire, 'invalid byte sequence for encoding "UTF8": 0x00');
  if (!(s as unknown as WellFormed).isWellFormed()) {
    // A lone surrogate: its bytes as CESU-8 would be 0xed 0xa0..0xbf 0x80..0xbf.
    let i = 0;
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
      else if ((c & 0xf800) === 0xd800) break;
    }
    const c = s.charCodeAt(i);
    const hex = [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63)].map((b) => '0x' + b.toString(16)).join(' ');
    throw err(SQLSTATE.character_not_in_repertoire, `invalid byte sequence for encoding "UTF8": ${hex}`);
  }
  return s;
}

/** Index (in UTF-16 units) just past the first n code points of s, or -1 if s has <= n. */
function codePointCut(s: string, n: number): number {
  if (s.length <= n) return -1;
  let i = 0;
  let count = 0;
  while (i < s.length) {
    if (count === n) return i;
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
    count++;
  }
  return -1;
}

function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!(c >= 0xdc00 && c <= 0xdfff && i > 0)) n++;
    else if (!(s.charCodeAt(i - 1) >= 0xd800 && s.charCodeAt(i - 1) <= 0xdbff)) n++;
  }
  return n;
}

function cutExcessSpaces(s: string, n: number, display: string): string {
  const cut = codePointCut(s, n);
  if (cut < 0) return s;
  for (let i = cut; i < s.length; i++) {
    if (s.charCodeAt(i) !== 32) throw err(SQLSTATE.string_data_right_truncation, `value too long for type ${display}(${n})`);
  }
  return s.slice(0, cut);
}

function parseVarchar(n: number | undefined, s: string): string {
  checkText(s);
  return n === undefined ? s : cutExcessSpaces(s, n, 'character varying');
}

function parseBpchar(n: number | undefined, s: string): string {
  checkText(s);
  if (n === undefined) return s;
  const t = cutExcessSpaces(s, n, 'character');
  if (t.length >= n && t !== s) return t;
  const len = codePointLength(t);
  return len < n ? t + ' '.repeat(n - len) : t;
}

// ---------------------------------------------------------------------------------------------
// bytea: varlena.c byteain. "\x" then hex pairs (encode.c hex_decode: space, \t, \n, \r may
// separate pairs, not split them; errors are 22023), else the escape format where "\\" is a
// backslash, "\ooo" (first digit 0-3) an octal byte, any other character its UTF-8 bytes.

const utf8enc = new TextEncoder();

function parseBytea(s: string): Uint8Array {
  if (s.charCodeAt(0) === 92 && s.charCodeAt(1) === 120) {
    const out = new Uint8Array((s.length - 2) >>> 1);
    let n = 0;
    for (let i = 2; i < s.length; ) {
      const c = s.charCodeAt(i);
      if (c === 32 || c === 10 || c === 9 || c === 13) {
        i++;
        continue;
      }
      const hi = hexVal(c);
      if (hi < 0) throw badHexDigit(s, i);
      if (i + 1 >= s.length) throw err(SQLSTATE.invalid_parameter_value, 'invalid hexadecimal data: odd number of digits');
      const lo = hexVal(s.charCodeAt(i + 1));
      if (lo < 0) throw badHexDigit(s, i + 1);
      out[n++] = (hi << 4) | lo;
      i += 2;
    }
    return out.slice(0, n);
  }
  const bytes = utf8enc.encode(s);
  const out = new Uint8Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    if (b !== 92) {
      out[n++] = b;
      i++;
    } else if (bytes[i + 1] === 92) {
      out[n++] = 92;
      i += 2;
    } else {
      const d1 = bytes[i + 1]! - 48;
      const d2 = bytes[i + 2]! - 48;
      const d3 = bytes[i + 3]! - 48;
      if (!(d1 >= 0 && d1 <= 3 && d2 >= 0 && d2 <= 7 && d3 >= 0 && d3 <= 7)) {
        throw err(SQLSTATE.invalid_text_representation, 'invalid input syntax for type bytea');
      }
      out[n++] = (d1 << 6) | (d2 << 3) | d3;
      i += 4;
    }
  }
  return out.slice(0, n);
}

function badHexDigit(s: string, i: number): PaxdError {
  const cp = String.fromCodePoint(s.codePointAt(i)!);
  return err(SQLSTATE.invalid_parameter_value, `invalid hexadecimal digit: "${cp}"`);
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function formatBytea(b: Uint8Array): string {
  let s = '\\x';
  for (let i = 0; i < b.length; i++) s += HEX[b[i]!]!;
  return s;
}

// ---------------------------------------------------------------------------------------------
// uuid: uuid.c string_to_uuid. Optional braces; 32 hex digits in pairs; a hyphen may follow
// any even-numbered pair (after bytes 2, 4, ..., 14); no whitespace.

function parseUuid(s: string): Uint8Array {
  const out = new Uint8Array(16);
  let i = 0;
  const braces = s.charCodeAt(0) === 123;
  if (braces) i++;
  for (let k = 0; k < 16; k++) {
    const hi = hexVal(s.charCodeAt(i));
    const lo = hexVal(s.charCodeAt(i + 1));
    if (hi < 0 || lo < 0) throw invalidInput('uuid', s);
    out[k] = (hi << 4) | lo;
    i += 2;
    if (s.charCodeAt(i) === 45 && (k & 1) === 1 && k < 15) i++;
  }
  if (braces) {
    if (s.charCodeAt(i) !== 125) throw invalidInput('uuid', s);
    i++;
  }
  if (i !== s.length) throw invalidInput('uuid', s);
  return out;
}

function formatUuid(b: Uint8Array): string {
  let s = '';
  for (let k = 0; k < 16; k++) {
    if (k === 4 || k === 6 || k === 8 || k === 10) s += '-';
    s += HEX[b[k]!]!;
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// numeric: numeric.c numeric_in / set_var_from_str / apply_typmod / get_str_from_var.

/** A scanned finite numeric: value = digits × 10^exp10, printed with dscale decimals. */
interface NumericParts {
  readonly neg: boolean;
  /** Significant digits without leading zeros ('' for zero). */
  readonly digits: string;
  readonly exp10: number;
  readonly dscale: number;
}

type NumericScan = NumericParts | 'NaN' | 'Infinity' | '-Infinity';

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
function scanNumeric(s: string, typeName = 'numeric'): NumericScan {
  let i = skipSpace(s, 0);
  let special: NumericScan | null = null;
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
  if (special !== null) {
    if (!onlySpaceFrom(s, i)) throw invalidInput(typeName, s);
    return special;
  }
  let neg = false;
  const c0 = s.charCodeAt(i);
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

function checkNumericStorage(p: NumericParts): void {
  if (p.dscale > NUMERIC_DSCALE_MAX) throw numericOverflow();
  if (p.digits !== '' && p.digits.length + p.exp10 > NUMERIC_MAX_INT_DIGITS) throw numericOverflow();
}

/** get_str_from_var: the value with exactly dscale decimals, no exponent. */
function numericToString(p: NumericParts): string {
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

/** numeric(p,s) output: exactly s decimals (none, and trailing zeros, when s <= 0). */
export function formatDecimal(u: bigint, scale: number): string {
  const neg = u < 0n;
  let digits = (neg ? -u : u).toString();
  if (scale <= 0) {
    if (u === 0n) return '0';
    return (neg ? '-' : '') + digits + '0'.repeat(-scale);
  }
  if (digits.length <= scale) digits = '0'.repeat(scale - digits.length + 1) + digits;
  const cut = digits.length - scale;
  return (neg ? '-' : '') + digits.slice(0, cut) + '.' + digits.slice(cut);
}

// ---------------------------------------------------------------------------------------------
// Dates and timestamps: datetime.c ParseDateTime + DecodeDateTime, date.c date_in,
// timestamp.c timestamp_in / timestamptz_in. paxd implements the forms data files use:
//   date:   YYYY-MM-DD (also / or . separators; a first field of 3+ digits is the year),
//           MM-DD-YYYY and MM/DD/YY (DateStyle MDY; 2-digit years are 1970..2069),
//           YYYYMMDD (6+ digits: day and month from the right), BC/AD, epoch,
//           infinity, -infinity
//   time:   HH:MM, HH:MM:SS[.fraction] (fraction rounded to µs with rint), or 'T' before it
//   zone:   Z, UTC, GMT, UT, Zulu, ±HH, ±HHMM, ±HH:MM[:SS], Area/City names (via Intl)
// Other words (month names, time zone abbreviations like CET, 'now', 'today') fail with 0A000
// because PostgreSQL might accept them. Dates use PostgreSQL's integer Julian day arithmetic
// (proleptic Gregorian; year 0 is 1 BC).

/** Julian day number of 1970-01-01, and PostgreSQL's limits (datatype/timestamp.h). */
export const UNIX_EPOCH_JD = 2440588;
const DATE_END_JD = 2147483494; // date2j(5874898, 1, 1), exclusive
const DATEVAL_NOBEGIN = -2147483648;
const DATEVAL_NOEND = 2147483647;
const TS_NOBEGIN = I64_MIN;
const TS_NOEND = I64_MAX;
/** -211813488000000000 (4714-11-24 BC 00:00, relative to 2000) in µs since 1970. */
const TS_MIN_US = -210866803200000000n;
/** PostgreSQL ends at 294277-01-01 (exclusive); paxd's int64 since 1970 ends first. */
const TS_END_US = I64_MAX;

/** date2j of datetime.c: Julian day of a proleptic Gregorian (astronomical) y-m-d. */
export function date2j(y: number, m: number, d: number): number {
  if (m > 2) {
    m += 1;
    y += 4800;
  } else {
    m += 13;
    y += 4799;
  }
  const century = Math.trunc(y / 100);
  let julian = y * 365 - 32167;
  julian += Math.trunc(y / 4) - century + Math.trunc(century / 4);
  julian += Math.trunc((7834 * m) / 256) + d;
  return julian;
}

/** j2date of datetime.c (unsigned arithmetic there; all values here are non-negative). */
export function j2date(jd: number): [number, number, number] {
  let julian = jd + 32044;
  let quad = Math.floor(julian / 146097);
  const extra = (julian - quad * 146097) * 4 + 3;
  julian += 60 + quad * 3 + Math.floor(extra / 146097);
  quad = Math.floor(julian / 1461);
  julian -= quad * 1461;
  let y = Math.floor((julian * 4) / 1461);
  julian = (y !== 0 ? (julian + 305) % 365 : (julian + 306) % 366) + 123;
  y += quad * 4;
  const year = y - 4800;
  quad = Math.floor((julian * 2141) / 65536);
  const day = julian - Math.floor((7834 * quad) / 256);
  const month = ((quad + 10) % 12) + 1;
  return [year, month, day];
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
function isLeap(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

/** Decoded date/time input (before the type decides what to keep). */
interface DateTimeFields {
  special: 'infinity' | '-infinity' | 'epoch' | null;
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  usec: number;
  /** Offset east of UTC in seconds, from a numeric zone or Z/UTC. */
  tzOffset: number | null;
  /** A named zone (Area/City) to resolve at the local time. */
  tzName: string | null;
}

const enum F {
  Number,
  Date,
  Time,
  Tz,
  Word,
  SignedWord,
  DateWord, // alpha start with embedded punctuation: a zone name or a text-month date
}

interface Field {
  kind: F;
  text: string;
}

/** datetime.c ParseDateTime: splits input into typed fields; returns null on bad format. */
function splitDateTime(s: string): Field[] | null {
  const fields: Field[] = [];
  let i = 0;
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    const start = i;
    if (isDigit(c)) {
      while (i < n && isDigit(s.charCodeAt(i))) i++;
      const d = s.charCodeAt(i);
      if (d === 58) {
        // time: digits, ':' and '.'
        while (i < n && (isDigit(s.charCodeAt(i)) || s.charCodeAt(i) === 58 || s.charCodeAt(i) === 46)) i++;
        fields.push({ kind: F.Time, text: s.slice(start, i) });
      } else if (d === 45 || d === 47 || d === 46) {
        i++;
        let kind = F.Date;
        if (isDigit(s.charCodeAt(i))) {
          kind = d === 46 ? F.Number : F.Date;
          while (i < n && isDigit(s.charCodeAt(i))) i++;
          if (s.charCodeAt(i) === d) {
            kind = F.Date;
            while (i < n && (isDigit(s.charCodeAt(i)) || s.charCodeAt(i) === d)) i++;
          }
        } else {
          // embedded text month ("2024-jan-02"): letters make the decoder refuse it
          kind = F.DateWord;
          while (i < n && (isDigit(s.charCodeAt(i)) || isAlpha(s.charCodeAt(i)) || s.charCodeAt(i) === d)) i++;
        }
        const text = s.slice(start, i).toLowerCase();
        // Without letters, "205--08-10" is a plain date with a doubled separator.
        fields.push({ kind: kind === F.DateWord && !/[a-z]/.test(text) ? F.Date : kind, text });
      } else {
        fields.push({ kind: F.Number, text: s.slice(start, i) });
      }
    } else if (c === 46) {
      // ".5": a number field in PostgreSQL; never part of a form paxd accepts
      i++;
      while (i < n && isDigit(s.charCodeAt(i))) i++;
      fields.push({ kind: F.Number, text: s.slice(start, i) });
    } else if (isAlpha(c)) {
      while (i < n && isAlpha(s.charCodeAt(i))) i++;
      const word = s.slice(start, i).toLowerCase();
      const d = s.charCodeAt(i);
      let isDate = d === 45 || d === 47 || d === 46;
      if (!isDate && (d === 43 || isDigit(d))) isDate = !DATE_KEYWORDS.has(word);
      if (isDate) {
        i++;
        while (i < n) {
          const e = s.charCodeAt(i);
          if (e === 43 || e === 45 || e === 47 || e === 95 || e === 46 || e === 58 || isDigit(e) || isAlpha(e)) i++;
          else break;
        }
        fields.push({ kind: F.DateWord, text: s.slice(start, i) });
      } else fields.push({ kind: F.Word, text: word });
    } else if (c === 43 || c === 45) {
      i = skipSpace(s, i + 1);
      const sign = String.fromCharCode(c);
      if (isDigit(s.charCodeAt(i))) {
        const from = i;
        while (i < n && (isDigit(s.charCodeAt(i)) || s.charCodeAt(i) === 58 || s.charCodeAt(i) === 46 || s.charCodeAt(i) === 45)) i++;
        fields.push({ kind: F.Tz, text: sign + s.slice(from, i) });
      } else if (isAlpha(s.charCodeAt(i))) {
        const from = i;
        while (i < n && isAlpha(s.charCodeAt(i))) i++;
        fields.push({ kind: F.SignedWord, text: sign + s.slice(from, i).toLowerCase() });
      } else return null;
    } else if (c < 128 && isPunct(c)) {
      i++; // ParseDateTime ignores other punctuation
    } else return null;
  }
  return fields;
}

function isPunct(c: number): boolean {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
}

/**
 * Words of datetime.c's datetktbl that may be followed directly by a digit without starting
 * a zone name. paxd decodes only the ones marked in decodeWord; the rest raise 0A000.
 */
const DATE_KEYWORDS = new Set([
  'ad', 'bc', 'allballs', 'am', 'pm', 'at', 'd', 'h', 'm', 's', 'y', 'j', 'julian', 'mm', 'on', 't',
  'epoch', 'infinity', 'now', 'today', 'tomorrow', 'yesterday',
  'jan', 'january', 'feb', 'february', 'mar', 'march', 'apr', 'april', 'may', 'jun', 'june', 'jul', 'july',
  'aug', 'august', 'sep', 'sept', 'september', 'oct', 'october', 'nov', 'november', 'dec', 'december',
  'sun', 'sunday', 'mon', 'monday', 'tue', 'tues', 'tuesday', 'wed', 'wednesday', 'thu', 'thur', 'thurs',
  'thursday', 'fri', 'friday', 'sat', 'saturday', 'dow', 'doy', 'isodow', 'isoyear',
]);

/** Zone abbreviations meaning UTC in PostgreSQL's Default set. */
const UTC_WORDS = new Set(['z', 'zulu', 'utc', 'gmt', 'ut']);
/** Special date words and common time zone abbreviations PostgreSQL accepts and paxd does not yet. */
const DATE_WORDS = new Set(['today', 'tomorrow', 'yesterday', 'now', 'allballs']);
const TZ_ABBREVIATIONS = new Set(['est', 'edt', 'cst', 'cdt', 'mst', 'mdt', 'pst', 'pdt', 'akst', 'akdt', 'hst', 'ast', 'adt', 'nst', 'ndt', 'wet', 'west', 'cet', 'cest', 'met', 'mest', 'eet', 'eest', 'bst', 'ist', 'msk', 'jst', 'kst', 'hkt', 'sgt', 'aest', 'aedt', 'acst', 'acdt', 'awst', 'nzst', 'nzdt']);

type DtErr = 'bad' | 'field' | 'mdfield' | 'tz';

class DtFail {
  constructor(readonly kind: DtErr) {}
}

/** C strtol on digits (no sign); NaN-free: returns a large number to trigger range errors. */
function digitsValue(t: string, from: number, to: number): number {
  let v = 0;
  for (let k = from; k < to; k++) v = v * 10 + (t.charCodeAt(k) - 48);
  return v;
}

function decodeDateTime(s: string, typeName: string): DateTimeFields {
  const fields = splitDateTime(s);
  if (fields === null || fields.length === 0) throw new DtFail('bad');
  const r: DateTimeFields = { special: null, year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0, usec: 0, tzOffset: null, tzName: null };
  let haveDate = false;
  let haveTime = false;
  let haveTz = false;
  let bc: boolean | null = null;
  let is2digits = false;
  let isoT = false;
  for (let f = 0; f < fields.length; f++) {
    const { kind, text } = fields[f]!;
    if (isoT && kind !== F.Time && kind !== F.Number) throw new DtFail('bad');
    switch (kind) {
      case F.Date: {
        if (haveDate) throw new DtFail('bad');
        // DecodeDate: runs of separators inside count as one; PostgreSQL 15 accepts one
        // trailing separator ("2092-02-19-") but not two.
        const delim = text.charCodeAt(text.search(/[-/.]/));
        const raw = text.split(String.fromCharCode(delim));
        if (raw.length > 1 && raw[raw.length - 1] === '') raw.pop();
        if (raw[raw.length - 1] === '') throw new DtFail('bad');
        const parts = raw.filter((p) => p !== '');
        if (parts.some((p) => p.length > 10 || Number(p) > 2147483647)) throw new DtFail('field');
        if (parts.length !== 3) throw new DtFail('bad');
        // DecodeNumber: a 3-digit field right after the year is a day of year (1..366),
        // which cannot be followed by a day field.
        if (parts[0]!.length >= 3 && parts[1]!.length === 3 && Number(parts[1]) >= 1 && Number(parts[1]) <= 366) throw new DtFail('bad');
        if (parts[0]!.length >= 3) {
          r.year = Number(parts[0]);
          r.month = Number(parts[1]);
          r.day = Number(parts[2]);
          is2digits = false;
        } else {
          // DateStyle MDY: month, day, year
          r.month = Number(parts[0]);
          r.day = Number(parts[1]);
          r.year = Number(parts[2]);
          is2digits = parts[2]!.length <= 2;
        }
        if (r.year > 2147483647 || r.month > 2147483647 || r.day > 2147483647) throw new DtFail('field');
        haveDate = true;
        break;
      }
      case F.Number: {
        if (text.indexOf('.') >= 0) throw unsupported(`date/time field "${text}" in ${typeName} input`);
        const len = text.length;
        if (isoT || (haveDate && !haveTime && len === 6)) {
          // run-together time hhmmss (after 'T' also hh or hhmm)
          if (haveTime || !(len === 2 || len === 4 || len === 6)) throw new DtFail('bad');
          r.hour = digitsValue(text, 0, 2);
          r.minute = len >= 4 ? digitsValue(text, 2, 4) : 0;
          r.second = len === 6 ? digitsValue(text, 4, 6) : 0;
          haveTime = true;
          isoT = false;
        } else if (!haveDate && len >= 6) {
          // DecodeNumberField: day and month are the last two pairs, the rest the year
          r.day = digitsValue(text, len - 2, len);
          r.month = digitsValue(text, len - 4, len - 2);
          r.year = digitsValue(text, 0, len - 4);
          if (r.year > 2147483647) throw new DtFail('field');
          is2digits = len - 4 === 2;
          haveDate = true;
        } else throw unsupported(`date/time field "${text}" in ${typeName} input`);
        break;
      }
      case F.Time: {
        if (haveTime) throw new DtFail('bad');
        decodeTime(text, r);
        haveTime = true;
        isoT = false;
        break;
      }
      case F.Tz: {
        if (haveTz) throw new DtFail('bad');
        r.tzOffset = decodeTimezone(text);
        haveTz = true;
        break;
      }
      case F.SignedWord: {
        if (text !== '-infinity' || fields.length !== 1) throw new DtFail('bad');
        r.special = '-infinity';
        break;
      }
      case F.Word: {
        if (text === 'bc' || text === 'ad') {
          if (bc !== null) throw new DtFail('bad');
          bc = text === 'bc';
        } else if (text === 't') {
          if (haveTime) throw new DtFail('bad');
          isoT = true;
        } else if (UTC_WORDS.has(text)) {
          if (haveTz) throw new DtFail('bad');
          r.tzOffset = 0;
          haveTz = true;
        } else if (text === 'infinity' || text === 'epoch') {
          if (fields.length !== 1) throw new DtFail('bad');
          r.special = text;
        } else if (TZ_ABBREVIATIONS.has(text) || DATE_WORDS.has(text) || /^[a-z]$/.test(text))
          // Words PostgreSQL accepts and paxd does not yet: 0A000, not a wrong 22007.
          throw unsupported(`date/time keyword or time zone abbreviation "${text}" in ${typeName} input`);
        else throw new DtFail('bad'); // PostgreSQL: invalid input syntax (22007)
        break;
      }
      case F.DateWord: {
        if (!haveDate || haveTz) {
          if (/^[a-z]/i.test(text)) throw unsupported(`date/time field "${text}" in ${typeName} input`);
          throw new DtFail('bad');
        }
        if (text.indexOf('/') < 0) throw unsupported(`time zone "${text}" in ${typeName} input`);
        if (!isKnownZone(text)) throw err(SQLSTATE.invalid_parameter_value, `time zone "${text.toLowerCase()}" not recognized`);
        r.tzName = text;
        haveTz = true;
        break;
      }
      default:
        return unreachable(kind);
    }
  }
  if (isoT) throw new DtFail('bad');
  if (r.special !== null) return r;
  if (!haveDate) throw new DtFail('bad');
  // ValidateDate
  if (bc === true) {
    if (r.year <= 0) throw new DtFail('field');
    r.year = -(r.year - 1);
  } else if (is2digits) {
    if (r.year < 70) r.year += 2000;
    else if (r.year < 100) r.year += 1900;
  } else if (r.year <= 0) throw new DtFail('field');
  if (r.month < 1 || r.month > 12) throw new DtFail('mdfield');
  if (r.day < 1 || r.day > 31) throw new DtFail('mdfield');
  if (r.day > (r.month === 2 && isLeap(r.year) ? 29 : DAYS_IN_MONTH[r.month - 1]!)) throw new DtFail('field');
  return r;
}

/** DecodeTime: HH:MM, HH:MM:SS[.frac], MM:SS.frac; fraction rounded with rint (ties even). */
function decodeTime(t: string, r: DateTimeFields): void {
  const c1 = t.indexOf(':');
  const c2 = t.indexOf(':', c1 + 1);
  const dot = t.indexOf('.');
  let h: number;
  let m: number;
  let sec = 0;
  let fracFrom = -1;
  const num = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (!isDigit(t.charCodeAt(k))) throw new DtFail('bad');
    return digitsValue(t, from, to);
  };
  if (c2 < 0) {
    if (dot >= 0) {
      // MM:SS.fraction
      h = 0;
      m = num(0, c1);
      sec = num(c1 + 1, dot);
      fracFrom = dot;
    } else {
      h = num(0, c1);
      m = num(c1 + 1, t.length);
    }
  } else {
    h = num(0, c1);
    m = num(c1 + 1, c2);
    const end = dot >= 0 ? dot : t.length;
    sec = num(c2 + 1, end);
    if (dot >= 0) fracFrom = dot;
  }
  let usec = 0;
  if (fracFrom >= 0) {
    const frac = t.slice(fracFrom);
    // A bare trailing '.' is accepted as no fraction, as PostgreSQL does.
    if (frac.indexOf('.', 1) >= 0 || frac.indexOf(':') >= 0) throw new DtFail('bad');
    usec = frac.length < 2 ? 0 : rint(Number('0' + frac) * 1000000);
  }
  if (m > 59 || sec > 60 || usec > 1000000) throw new DtFail('field');
  if (h > 24 || (h === 24 && (m > 0 || sec > 0 || usec > 0))) throw new DtFail('field');
  if (sec === 60 && usec > 0) throw new DtFail('field');
  r.hour = h;
  r.minute = m;
  r.second = sec;
  r.usec = usec;
}

/** C rint(): round to nearest, ties to even. */
function rint(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** DecodeTimezone: ±H, ±HH, ±HHMM (4+ characters run together), ±HH:MM[:SS]; |hours| <= 15. */
function decodeTimezone(t: string): number {
  let i = 1;
  const strtoint = () => {
    const from = i;
    while (i < t.length && isDigit(t.charCodeAt(i))) i++;
    if (i - from > 10) throw new DtFail('tz');
    return digitsValue(t, from, i);
  };
  let hr = strtoint();
  let min = 0;
  let sec = 0;
  if (t.charCodeAt(i) === 58) {
    i++;
    min = strtoint();
    if (t.charCodeAt(i) === 58) {
      i++;
      sec = strtoint();
    }
  } else if (i === t.length && t.length > 3) {
    min = hr % 100;
    hr = Math.floor(hr / 100);
  }
  if (hr > 15 || min >= 60 || sec >= 60) throw new DtFail('tz');
  if (i !== t.length) throw new DtFail('bad');
  const off = (hr * 60 + min) * 60 + sec;
  return t.charCodeAt(0) === 45 ? -off : off;
}

function dateTimeError(kind: DtErr, s: string, typeName: string): PaxdError {
  switch (kind) {
    case 'bad':
      return err(SQLSTATE.invalid_datetime_format, `invalid input syntax for type ${typeName}: "${s}"`);
    case 'field':
      return err(SQLSTATE.datetime_field_overflow, `date/time field value out of range: "${s}"`);
    case 'mdfield':
      // PostgreSQL adds the hint 'Perhaps you need a different "datestyle" setting.'
      return err(SQLSTATE.datetime_field_overflow, `date/time field value out of range: "${s}"`);
    case 'tz':
      return err(SQLSTATE.invalid_time_zone_displacement_value, `time zone displacement out of range: "${s}"`);
    default:
      return unreachable(kind);
  }
}

function decode(s: string, typeName: string): DateTimeFields {
  try {
    return decodeDateTime(s, typeName);
  } catch (e) {
    if (e instanceof DtFail) throw dateTimeError(e.kind, s, typeName);
    throw e;
  }
}

/** IS_VALID_JULIAN of datetime.h: 4714-11 BC (month granularity; astronomical year -4713) to 5874897-12. */
function isValidJulian(y: number, m: number): boolean {
  return (y > -4713 || (y === -4713 && m >= 11)) && y < 5874898;
}

/** Two ASCII digits at i as a number, or -1. */
function d2(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * Fast path for the canonical layouts data files use, "YYYY-MM-DD" and
 * "YYYY-MM-DD HH:MM:SS[.f…]" (or 'T'), with in-range fields: seconds since 1970 and µs, or
 * null to take the general decoder (which gives PostgreSQL's answer for everything else).
 */
function fastIso(s: string, withTime: boolean): { secs: number; usec: number } | null {
  const n = s.length;
  if (n < 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return null;
  const yh = d2(s, 0);
  const yl = d2(s, 2);
  const mo = d2(s, 5);
  const d = d2(s, 8);
  if (yh < 0 || yl < 0 || mo < 1 || mo > 12 || d < 1) return null;
  const y = yh * 100 + yl;
  if (y === 0 || d > (mo === 2 && isLeap(y) ? 29 : DAYS_IN_MONTH[mo - 1]!)) return null;
  const days = date2j(y, mo, d) - UNIX_EPOCH_JD;
  if (n === 10) return { secs: days * 86400, usec: 0 };
  if (!withTime || n < 19) return null;
  const sep = s.charCodeAt(10);
  if ((sep !== 32 && sep !== 84) || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return null;
  const h = d2(s, 11);
  const mi = d2(s, 14);
  const se = d2(s, 17);
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 59) return null;
  let usec = 0;
  if (n > 19) {
    if (s.charCodeAt(19) !== 46 || n === 20) return null;
    for (let i = 20; i < n; i++) if (!isDigit(s.charCodeAt(i))) return null;
    usec = rint(Number('0' + s.slice(19)) * 1000000);
  }
  return { secs: days * 86400 + h * 3600 + mi * 60 + se, usec };
}

function parseDate(s: string): number {
  const f = fastIso(s, false);
  if (f !== null) return f.secs / 86400;
  const r = decode(s, 'date');
  if (r.special === 'infinity') return DATEVAL_NOEND;
  if (r.special === '-infinity') return DATEVAL_NOBEGIN;
  if (r.special === 'epoch') return 0;
  const outOfRangeDate = () => err(SQLSTATE.datetime_field_overflow, `date out of range: "${s}"`);
  if (!isValidJulian(r.year, r.month)) throw outOfRangeDate();
  const jd = date2j(r.year, r.month, r.day);
  if (jd < 0 || jd >= DATE_END_JD) throw outOfRangeDate();
  return jd - UNIX_EPOCH_JD;
}

function parseTimestamp(s: string, withTz: boolean): bigint {
  const f = fastIso(s, true);
  if (f !== null) return BigInt(f.secs) * 1000000n + BigInt(f.usec);
  const typeName = withTz ? 'timestamp with time zone' : 'timestamp';
  const r = decode(s, typeName);
  if (r.special === 'infinity') return TS_NOEND;
  if (r.special === '-infinity') return TS_NOBEGIN;
  if (r.special === 'epoch') return 0n;
  const tsOutOfRange = () => err(SQLSTATE.datetime_field_overflow, `timestamp out of range: "${s}"`);
  if (!isValidJulian(r.year, r.month)) throw tsOutOfRange();
  const days = date2j(r.year, r.month, r.day) - UNIX_EPOCH_JD;
  let secs = days * 86400 + r.hour * 3600 + r.minute * 60 + r.second;
  if (withTz) {
    if (r.tzName !== null) secs -= zoneOffsetAtLocal(r.tzName, secs);
    else if (r.tzOffset !== null) secs -= r.tzOffset;
  }
  const us = BigInt(secs) * 1000000n + BigInt(r.usec);
  if (us < TS_MIN_US || us >= TS_END_US) throw tsOutOfRange();
  return us;
}

/** date_out: YYYY-MM-DD with at least 4 year digits, " BC" for years <= 0, or [-]infinity. */
export function formatDate(days: number): string {
  if (days === DATEVAL_NOEND) return 'infinity';
  if (days === DATEVAL_NOBEGIN) return '-infinity';
  const [y, m, d] = j2date(days + UNIX_EPOCH_JD);
  return ymd(y, m, d) + (y <= 0 ? ' BC' : '');
}

function ymd(y: number, m: number, d: number): string {
  const year = y <= 0 ? 1 - y : y;
  return (year < 1000 ? String(year).padStart(4, '0') : String(year)) + '-' + pad2(m) + '-' + pad2(d);
}

function pad2(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

/**
 * timestamp_out / timestamptz_out with DateStyle ISO and TimeZone UTC:
 * "2024-01-02 03:04:05.123456" (fraction without trailing zeros, none when zero), "+00" for
 * timestamptz, " BC" last, "infinity"/"-infinity".
 */
export function formatTimestamp(us: bigint, withTz: boolean): string {
  if (us === TS_NOEND) return 'infinity';
  if (us === TS_NOBEGIN) return '-infinity';
  let secs = us / 1000000n;
  let frac = Number(us - secs * 1000000n);
  if (frac < 0) {
    frac += 1000000;
    secs -= 1n;
  }
  const s = Number(secs);
  const days = Math.floor(s / 86400);
  const tod = s - days * 86400;
  const [y, m, d] = j2date(days + UNIX_EPOCH_JD);
  let out = ymd(y, m, d) + ' ' + pad2(Math.floor(tod / 3600)) + ':' + pad2(Math.floor(tod / 60) % 60) + ':' + pad2(tod % 60);
  if (frac !== 0) {
    let f = String(frac).padStart(6, '0');
    let e = 6;
    while (f.charCodeAt(e - 1) === 48) e--;
    f = f.slice(0, e);
    out += '.' + f;
  }
  if (withTz) out += '+00';
  if (y <= 0) out += ' BC';
  return out;
}

// Named zones. PostgreSQL resolves them with its tz database; paxd asks ICU through Intl.
// Before the first transition every zone is on its constant LMT offset, so instants before
// 1600 (where ICU switches to the Julian calendar) use the 1600 offset; instants past Date's
// range are shifted by 400-year cycles, over which the calendar and weekdays repeat.

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

function zoneFormat(name: string): Intl.DateTimeFormat | null {
  const key = name.toLowerCase();
  let f = zoneFormats.get(key);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: name,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        era: 'short',
      });
    } catch {
      return null;
    }
    zoneFormats.set(key, f);
  }
  return f;
}

function isKnownZone(name: string): boolean {
  return zoneFormat(name) !== null;
}

const SECS_1600 = (date2j(1600, 1, 1) - UNIX_EPOCH_JD) * 86400;
const SECS_400Y = 146097 * 86400;
const SECS_MAX_DATE = 8.64e12 - 2 * SECS_400Y;

/** Offset east of UTC, in seconds, of zone `name` at UTC instant `utc` (seconds since 1970). */
function zoneOffsetAt(name: string, utc: number): number {
  let t = Math.max(utc, SECS_1600);
  while (t > SECS_MAX_DATE) t -= SECS_400Y;
  const parts = zoneFormat(name)!.formatToParts(t * 1000);
  let y = 0;
  let mo = 0;
  let d = 0;
  let h = 0;
  let mi = 0;
  let se = 0;
  let bc = false;
  for (const p of parts) {
    switch (p.type) {
      case 'year':
        y = Number(p.value);
        break;
      case 'month':
        mo = Number(p.value);
        break;
      case 'day':
        d = Number(p.value);
        break;
      case 'hour':
        h = Number(p.value);
        break;
      case 'minute':
        mi = Number(p.value);
        break;
      case 'second':
        se = Number(p.value);
        break;
      case 'era':
        bc = p.value === 'BC' || p.value === 'B';
        break;
      default:
        break;
    }
  }
  if (bc) y = 1 - y;
  const local = (date2j(y, mo, d) - UNIX_EPOCH_JD) * 86400 + h * 3600 + mi * 60 + se;
  return local - t;
}

/**
 * The offset for a local wall-clock time, as PostgreSQL's DetermineTimeZoneOffset chooses it
 * (docs, "B.1 Handling of Invalid or Ambiguous Timestamps"): an ambiguous time (fall back) is
 * standard time, i.e. the later instant; a nonexistent time (spring forward) uses the offset
 * in effect just before the transition.
 */
function zoneOffsetAtLocal(name: string, local: number): number {
  const before = zoneOffsetAt(name, local - 86400);
  const after = zoneOffsetAt(name, local + 86400);
  const candidates = before === after ? [before] : [before, after];
  let best: number | null = null;
  for (const o of candidates) {
    if (zoneOffsetAt(name, local - o) === o && (best === null || o < best)) best = o;
  }
  if (best !== null) return best;
  const direct = zoneOffsetAt(name, local);
  if (zoneOffsetAt(name, local - direct) === direct) return direct;
  return before;
}

// ---------------------------------------------------------------------------------------------
// jsonb: common/jsonapi.c (the lexer and grammar, RFC 8259 strictly: no leading zeros, no
// '+', no trailing '.', no NaN) and utils/adt/jsonb.c output. Numbers are numeric_in'd and
// printed as numeric_out does (1.0 stays 1.0, 1e2 becomes 100); object keys are sorted by
// (byte length, bytes) with the last duplicate winning; separators are ", " and ": ".

class JsonFail {
  constructor(
    readonly code: string,
    readonly message: string,
    readonly detail: string,
  ) {}
}

function jsonSyntax(detail: string): JsonFail {
  return new JsonFail(SQLSTATE.invalid_text_representation, 'invalid input syntax for type json', detail);
}

type JsonNode = string | JsonNode[] | { keys: string[]; vals: JsonNode[] };

class JsonParser {
  i = 0;
  constructor(readonly s: string) {}

  ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.i++;
      else break;
    }
  }

  /** The token starting at i, for messages: a run of alphanumerics or one character. */
  token(): string {
    const s = this.s;
    let j = this.i;
    while (j < s.length && (isAlpha(s.charCodeAt(j)) || isDigit(s.charCodeAt(j)) || s.charCodeAt(j) === 95 || s.charCodeAt(j) >= 128)) j++;
    return j === this.i ? s.slice(this.i, this.i + 1) : s.slice(this.i, j);
  }

  value(depth: number): JsonNode {
    this.ws();
    const s = this.s;
    if (this.i >= s.length) throw jsonSyntax('The input string ended unexpectedly.');
    const c = s.charCodeAt(this.i);
    if (c === 123) return this.object(depth);
    if (c === 91) return this.array(depth);
    if (c === 34) return jsonbString(this.string());
    if (c === 45 || isDigit(c)) return this.number();
    const tok = this.token();
    if (tok === 'true' || tok === 'false' || tok === 'null') {
      this.i += tok.length;
      return tok;
    }
    throw jsonSyntax(`Token "${tok}" is invalid.`);
  }

  object(depth: number): JsonNode {
    const s = this.s;
    this.i++;
    const keys: string[] = [];
    const vals: JsonNode[] = [];
    this.ws();
    if (s.charCodeAt(this.i) === 125) {
      this.i++;
      return { keys, vals };
    }
    for (;;) {
      this.ws();
      if (s.charCodeAt(this.i) !== 34) throw this.expected('string');
      keys.push(this.string());
      this.ws();
      if (s.charCodeAt(this.i) !== 58) throw this.expected('":"');
      this.i++;
      vals.push(this.value(depth + 1));
      this.ws();
      const c = s.charCodeAt(this.i);
      this.i++;
      if (c === 125) break;
      if (c !== 44) {
        this.i--;
        throw this.expected('"," or "}"');
      }
    }
    return { keys, vals };
  }

  array(depth: number): JsonNode {
    const s = this.s;
    this.i++;
    const out: JsonNode[] = [];
    this.ws();
    if (s.charCodeAt(this.i) === 93) {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.ws();
      const c = s.charCodeAt(this.i);
      this.i++;
      if (c === 93) break;
      if (c !== 44) {
        this.i--;
        throw this.expected('"," or "]"');
      }
    }
    return out;
  }

  expected(what: string): JsonFail {
    if (this.i >= this.s.length) return jsonSyntax('The input string ended unexpectedly.');
    return jsonSyntax(`Expected ${what}, but found "${this.token()}".`);
  }

  /** A JSON string literal at i; returns the decoded string. */
  string(): string {
    const s = this.s;
    let i = this.i + 1;
    let out = '';
    let runStart = i;
    for (;;) {
      if (i >= s.length) throw jsonSyntax('The input string ended unexpectedly.');
      const c = s.charCodeAt(i);
      if (c === 34) break;
      if (c < 32) throw jsonSyntax(`Character with value 0x${c.toString(16).padStart(2, '0')} must be escaped.`);
      if (c !== 92) {
        i++;
        continue;
      }
      out += s.slice(runStart, i);
      const e = s.charCodeAt(i + 1);
      switch (e) {
        case 34:
          out += '"';
          break;
        case 92:
          out += '\\';
          break;
        case 47:
          out += '/';
          break;
        case 98:
          out += '\b';
          break;
        case 102:
          out += '\f';
          break;
        case 110:
          out += '\n';
          break;
        case 114:
          out += '\r';
          break;
        case 116:
          out += '\t';
          break;
        case 117: {
          const u = this.hex4(i + 2);
          if (u === 0) throw new JsonFail(SQLSTATE.untranslatable_character, 'unsupported Unicode escape sequence', '\\u0000 cannot be converted to text.');
          if (u >= 0xd800 && u <= 0xdbff) {
            if (s.charCodeAt(i + 6) !== 92 || s.charCodeAt(i + 7) !== 117) throw jsonSyntax('Unicode low surrogate must follow a high surrogate.');
            const lo = this.hex4(i + 8);
            if (!(lo >= 0xdc00 && lo <= 0xdfff)) throw jsonSyntax('Unicode low surrogate must follow a high surrogate.');
            out += String.fromCharCode(u, lo);
            i += 6;
          } else if (u >= 0xdc00 && u <= 0xdfff) {
            throw jsonSyntax('Unicode low surrogate must follow a high surrogate.');
          } else out += String.fromCharCode(u);
          i += 4;
          break;
        }
        default:
          throw jsonSyntax(`Escape sequence "\\${Number.isNaN(e) ? '' : String.fromCharCode(e)}" is invalid.`);
      }
      i += 2;
      runStart = i;
    }
    out += s.slice(runStart, i);
    this.i = i + 1;
    return out;
  }

  hex4(at: number): number {
    let v = 0;
    for (let k = 0; k < 4; k++) {
      const h = hexVal(this.s.charCodeAt(at + k));
      if (h < 0) throw jsonSyntax('"\\u" must be followed by four hexadecimal digits.');
      v = (v << 4) | h;
    }
    return v;
  }

  number(): string {
    const s = this.s;
    const start = this.i;
    let i = start;
    if (s.charCodeAt(i) === 45) i++;
    const bad = () => {
      this.i = start;
      return jsonSyntax(`Token "${this.numberToken()}" is invalid.`);
    };
    if (s.charCodeAt(i) === 48) i++;
    else if (isDigit(s.charCodeAt(i))) while (isDigit(s.charCodeAt(i))) i++;
    else throw bad();
    if (s.charCodeAt(i) === 46) {
      i++;
      if (!isDigit(s.charCodeAt(i))) throw bad();
      while (isDigit(s.charCodeAt(i))) i++;
    }
    if ((s.charCodeAt(i) | 32) === 101) {
      i++;
      if (s.charCodeAt(i) === 43 || s.charCodeAt(i) === 45) i++;
      if (!isDigit(s.charCodeAt(i))) throw bad();
      while (isDigit(s.charCodeAt(i))) i++;
    }
    // The lexer reads a whole alphanumeric run: "01" or "1x" is one invalid token.
    const c = s.charCodeAt(i);
    if (isAlpha(c) || isDigit(c) || c === 95 || c >= 128) throw bad();
    this.i = i;
    const p = scanNumeric(s.slice(start, i));
    assert(typeof p !== 'string', 'JSON number scanned as a numeric special');
    checkNumericStorage(p);
    return numericToString(p);
  }

  numberToken(): string {
    const s = this.s;
    let j = this.i;
    if (s.charCodeAt(j) === 45) j++;
    while (j < s.length) {
      const c = s.charCodeAt(j);
      if (isAlpha(c) || isDigit(c) || c === 95 || c === 46 || c === 43 || c === 45 || c >= 128) j++;
      else break;
    }
    return s.slice(this.i, Math.max(j, this.i + 1));
  }
}

/** escape_json of json.c: \" \\ \b \f \n \r \t, other controls as \u00XX, the rest as is. */
function jsonbString(v: string): string {
  let out = '"';
  let run = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c >= 32 && c !== 34 && c !== 92) continue;
    out += v.slice(run, i);
    run = i + 1;
    switch (c) {
      case 34:
        out += '\\"';
        break;
      case 92:
        out += '\\\\';
        break;
      case 8:
        out += '\\b';
        break;
      case 12:
        out += '\\f';
        break;
      case 10:
        out += '\\n';
        break;
      case 13:
        out += '\\r';
        break;
      case 9:
        out += '\\t';
        break;
      default:
        out += '\\u' + c.toString(16).padStart(4, '0');
    }
  }
  return out + v.slice(run) + '"';
}

function utf8Compare(a: string, b: string): number {
  const x = utf8enc.encode(a);
  const y = utf8enc.encode(b);
  if (x.length !== y.length) return x.length - y.length;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

function jsonbOut(n: JsonNode): string {
  if (typeof n === 'string') return n;
  if (Array.isArray(n)) return '[' + n.map(jsonbOut).join(', ') + ']';
  // Sort key indexes by (UTF-8 length, bytes), stable; the last of equal keys wins.
  const idx = n.keys.map((_, i) => i);
  idx.sort((a, b) => utf8Compare(n.keys[a]!, n.keys[b]!) || a - b);
  const parts: string[] = [];
  for (let k = 0; k < idx.length; k++) {
    const i = idx[k]!;
    if (k + 1 < idx.length && n.keys[idx[k + 1]!] === n.keys[i]) continue;
    parts.push(jsonbString(n.keys[i]!) + ': ' + jsonbOut(n.vals[i]!));
  }
  return '{' + parts.join(', ') + '}';
}

function parseJsonb(s: string): string {
  checkText(s);
  const p = new JsonParser(s);
  try {
    const v = p.value(0);
    p.ws();
    if (p.i < s.length) throw p.expected('end of input');
    return jsonbOut(v);
  } catch (e) {
    if (e instanceof JsonFail) throw err(e.code, e.message, e.detail);
    throw e;
  }
}

/**
 * Floats: float.c float8in_internal / float4in. PostgreSQL calls strtod()/strtof() (glibc),
 * which accepts decimal and hexadecimal (0x1.8p3) forms, inf/infinity/nan case-insensitively
 * with a sign; then trailing whitespace. A result that over- or underflows to inf/0 (ERANGE)
 * is an error; subnormal results are accepted. Error wording differs between the two:
 *   float8: "1e400" is out of range for type double precision  (the number part only)
 *   float4: " 1e400 x" is out of range for type real            (the whole input)
 * and both report range errors before trailing junk.
 */
import { SQLSTATE, invalidInput } from '../errors.js';
import { err, hexVal, isAlpha, isDigit, onlySpaceFrom, skipSpace, startsWithCI } from './scan.js';

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

export function parseFloat8(s: string): number {
  const f = scanFloat(s, 'double precision');
  const v = f.value;
  if ((v === 0 && f.nonzero) || ((v === Infinity || v === -Infinity) && (f.nonzero || f.hex !== undefined))) {
    throw err(SQLSTATE.numeric_value_out_of_range, `"${s.slice(f.start, f.end)}" is out of range for type double precision`);
  }
  if (!onlySpaceFrom(s, f.end)) throw invalidInput('double precision', s);
  return v;
}

export function parseFloat4(s: string): number {
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

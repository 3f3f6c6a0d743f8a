/**
 * computeStats: statistics of rows [start, end) of a column, computed by typed-array kernels
 * while writers encode. No object is allocated per row for fixed-width and string types:
 *
 *   int2/int4/date      min/max as numbers; sum (int2/int4) accumulated in a double, moved to
 *                       a BigInt every 2^21 rows (2^31 · 2^21 < 2^53, so the double is exact)
 *   int8/timestamp[tz]  read as (lo uint32, hi int32) pairs through an Int32Array view; min/max
 *                       compare (hi, lo); the int8 sum accumulates lo unsigned and hi signed in
 *                       doubles, combined into a BigInt every 2^20 rows
 *   numeric(p,s)        decimal128 as four 32-bit limbs, the same way (exact sum of any length)
 *   float4/float8       NaNs counted and kept out of min/max; the sum is taken in storage order
 *                       as PostgreSQL's float4pl/float8pl would (NaN and ±Infinity propagate;
 *                       float4 rounds to single precision after every addition)
 *   text-like           byte-wise min/max over the UTF-8 (bpchar without trailing spaces);
 *                       values over 64 bytes give truncated bounds (./bounds.ts)
 *   bytea / uuid        memcmp min/max (bytea truncated like text)
 *   numeric (text)      parsed per value: min/max by numeric order (exact text), NaNs counted
 *                       and kept out, exact BigInt-decimal sum (../types/numeric.ts)
 *   bool                min/max;  jsonb: no min/max (only counts)
 */
import { DECIMAL_ZERO, addDecimal, formatDecimalValue, parseDecimalValue, type Column, type PgType, isDecimal128, compareNumericParts, parseNumericText, type NumericParts, intervalNotStorable, arrayNotStorable, objectIdNotStorable, isObjectIdTypeId, unreachable } from '../types/index.js';
import type { ColumnStats } from './types.js';
import { bytesMax, bytesMin, textMax, textMin } from './bounds.js';

/** Statistics of no rows: the identity of mergeStats. */
export function emptyStats(): ColumnStats {
  return { rows: 0, nulls: 0, nans: 0, min: null, max: null, minExact: true, maxExact: true, sum: null };
}

export function computeStats(col: Column, start = 0, end = col.length): ColumnStats {
  const s = emptyStats();
  s.rows = end - start;
  s.nulls = col.validity === null ? 0 : end - start - countSet(col.validity, start, end);
  if (s.nulls === s.rows) return s;
  const t: PgType = col.type;
  if (isObjectIdTypeId(t.id)) return objectIdNotStorable('computeStats');
  switch (t.id) {
    case 'int2':
    case 'int4':
      small(col.values as Int16Array | Int32Array, col.validity, start, end, true, s);
      break;
    case 'date':
      small(col.values as Int32Array, col.validity, start, end, false, s);
      break;
    case 'int8':
      int64(col.values as BigInt64Array, col.validity, start, end, true, s);
      break;
    case 'timestamp':
    case 'timestamptz':
      int64(col.values as BigInt64Array, col.validity, start, end, false, s);
      break;
    case 'float4':
      floats(col.values as Float32Array, col.validity, start, end, true, s);
      break;
    case 'float8':
      floats(col.values as Float64Array, col.validity, start, end, false, s);
      break;
    case 'bool':
      bools(col.values as Uint8Array, col.validity, start, end, s);
      break;
    case 'text':
    case 'varchar':
      strings(col, start, end, false, false, s);
      break;
    case 'bpchar':
      strings(col, start, end, true, false, s);
      break;
    case 'bytea':
      strings(col, start, end, false, true, s);
      break;
    case 'uuid':
      uuids(col.values as Uint8Array, col.validity, start, end, s);
      break;
    case 'numeric':
      if (isDecimal128(t)) decimal128(col.values as Uint8Array, col.validity, start, end, s);
      else numericText(col, start, end, s);
      break;
    case 'jsonb':
    case 'json':
      break;
    case 'interval':
      return intervalNotStorable('computeStats');
    case 'array':
      return arrayNotStorable('computeStats');
    default:
      return unreachable(t.id);
  }
  return s;
}

/** Set bits in bits [start, end) of an LSB-first bitmap. */
export function countSet(bits: Uint8Array, start: number, end: number): number {
  let n = 0;
  let i = start;
  while (i < end && (i & 7) !== 0) {
    n += (bits[i >>> 3]! >>> (i & 7)) & 1;
    i++;
  }
  const fullEnd = end & ~7;
  for (; i < fullEnd; i += 8) n += POP8[bits[i >>> 3]!]!;
  for (; i < end; i++) n += (bits[i >>> 3]! >>> (i & 7)) & 1;
  return n;
}

const POP8 = (() => {
  const t = new Uint8Array(256);
  for (let i = 0; i < 256; i++) t[i] = (i & 1) + t[i >>> 1]!;
  return t;
})();

const SMALL_FLUSH = 1 << 21;
const WIDE_FLUSH = 1 << 20;

function small(a: Int16Array | Int32Array, v: Uint8Array | null, start: number, end: number, withSum: boolean, s: ColumnStats): void {
  let min = Infinity;
  let max = -Infinity;
  let total = 0n;
  for (let b = start; b < end; b += SMALL_FLUSH) {
    const e = Math.min(end, b + SMALL_FLUSH);
    let acc = 0;
    if (v === null) {
      for (let i = b; i < e; i++) {
        const x = a[i]!;
        if (x < min) min = x;
        if (x > max) max = x;
        acc += x;
      }
    } else {
      for (let i = b; i < e; i++) {
        if ((v[i >>> 3]! & (1 << (i & 7))) === 0) continue;
        const x = a[i]!;
        if (x < min) min = x;
        if (x > max) max = x;
        acc += x;
      }
    }
    total += BigInt(acc);
  }
  s.min = min;
  s.max = max;
  if (withSum) s.sum = total;
}

const TWO32 = 4294967296;

function int64(a: BigInt64Array, v: Uint8Array | null, start: number, end: number, withSum: boolean, s: ColumnStats): void {
  const w = new Int32Array(a.buffer, a.byteOffset, a.length * 2);
  // Sentinels outside the int32 range of `hi` so the first value always wins.
  let minH = TWO32;
  let minL = 0;
  let maxH = -TWO32;
  let maxL = 0;
  let total = 0n;
  for (let b = start; b < end; b += WIDE_FLUSH) {
    const e = Math.min(end, b + WIDE_FLUSH);
    let lo = 0;
    let hi = 0;
    for (let i = b; i < e; i++) {
      if (v !== null && (v[i >>> 3]! & (1 << (i & 7))) === 0) continue;
      const l = w[2 * i]! >>> 0;
      const h = w[2 * i + 1]!;
      if (h < minH || (h === minH && l < minL)) {
        minH = h;
        minL = l;
      }
      if (h > maxH || (h === maxH && l > maxL)) {
        maxH = h;
        maxL = l;
      }
      lo += l;
      hi += h;
    }
    if (withSum) total += BigInt(hi) * 4294967296n + BigInt(lo);
  }
  s.min = BigInt(minH) * 4294967296n + BigInt(minL);
  s.max = BigInt(maxH) * 4294967296n + BigInt(maxL);
  if (withSum) s.sum = total;
}

function floats(a: Float32Array | Float64Array, v: Uint8Array | null, start: number, end: number, single: boolean, s: ColumnStats): void {
  let min = Infinity;
  let max = -Infinity;
  // -0 is the identity of IEEE addition (-0 + x is x, for x = -0 too), so starting from it
  // equals PostgreSQL's sum, whose state starts at the first input.
  let sum = -0;
  let nans = 0;
  let finiteOrInf = 0;
  for (let i = start; i < end; i++) {
    if (v !== null && (v[i >>> 3]! & (1 << (i & 7))) === 0) continue;
    const x = a[i]!;
    sum = single ? Math.fround(sum + x) : sum + x;
    if (x !== x) {
      nans++;
      continue;
    }
    finiteOrInf++;
    // `<=`/`>=`: of equal values the later, as PostgreSQL's min/max keep it (0 after -0 is 0).
    if (x <= min) min = x;
    if (x >= max) max = x;
  }
  s.nans = nans;
  s.sum = sum;
  if (finiteOrInf > 0) {
    s.min = min;
    s.max = max;
  }
}

function bools(a: Uint8Array, v: Uint8Array | null, start: number, end: number, s: ColumnStats): void {
  let seenFalse = false;
  let seenTrue = false;
  for (let i = start; i < end && !(seenFalse && seenTrue); i++) {
    if (v !== null && (v[i >>> 3]! & (1 << (i & 7))) === 0) continue;
    if ((a[i >>> 3]! & (1 << (i & 7))) !== 0) seenTrue = true;
    else seenFalse = true;
  }
  s.min = !seenFalse;
  s.max = seenTrue;
}

/** memcmp of data[as, ae) and data[bs, be). */
function cmpRange(d: Uint8Array, as: number, ae: number, bs: number, be: number): number {
  const n = Math.min(ae - as, be - bs);
  for (let k = 0; k < n; k++) {
    const x = d[as + k]!;
    const y = d[bs + k]!;
    if (x !== y) return x - y;
  }
  return ae - as - (be - bs);
}

function strings(col: Column, start: number, end: number, bpchar: boolean, bytes: boolean, s: ColumnStats): void {
  const o = col.offsets!;
  const d = col.data!;
  const v = col.validity;
  let minS = -1;
  let minE = -1;
  let maxS = -1;
  let maxE = -1;
  for (let i = start; i < end; i++) {
    if (v !== null && (v[i >>> 3]! & (1 << (i & 7))) === 0) continue;
    const a = o[i]!;
    let b = o[i + 1]!;
    if (bpchar) while (b > a && d[b - 1] === 0x20) b--;
    if (minS < 0) {
      minS = maxS = a;
      minE = maxE = b;
      continue;
    }
    if (cmpRange(d, a, b, minS, minE) < 0) {
      minS = a;
      minE = b;
    } else if (cmpRange(d, a, b, maxS, maxE) > 0) {
      maxS = a;
      maxE = b;
    }
  }
  const lo = bytes ? bytesMin(d, minS, minE) : textMin(d, minS, minE);
  const hi = bytes ? bytesMax(d, maxS, maxE) : textMax(d, maxS, maxE);
  s.min = lo.value;
  s.minExact = lo.exact;
  s.max = hi.value;
  s.maxExact = hi.exact;
}

function uuids(a: Uint8Array, v: Uint8Array | null, start: number, end: number, s: ColumnStats): void {
  let minI = -1;
  let maxI = -1;
  for (let i = start; i < end; i++) {
    if (v !== null && (v[i >>> 3]! & (1 << (i & 7))) === 0) continue;
    if (minI < 0) {
      minI = maxI = i;
      continue;
    }
    if (cmpRange(a, i * 16, i * 16 + 16, minI * 16, minI * 16 + 16) < 0) minI = i;
    else if (cmpRange(a, i * 16, i * 16 + 16, maxI * 16, maxI * 16 + 16) > 0) maxI = i;
  }
  s.min = a.slice(minI * 16, minI * 16 + 16);
  s.max = a.slice(maxI * 16, maxI * 16 + 16);
}

/** Compares decimal128 values i and j of limb view w: top limb signed, the rest unsigned. */
function cmp128(w: Int32Array, i: number, j: number): number {
  const a3 = w[4 * i + 3]!;
  const b3 = w[4 * j + 3]!;
  if (a3 !== b3) return a3 < b3 ? -1 : 1;
  for (let k = 2; k >= 0; k--) {
    const x = w[4 * i + k]! >>> 0;
    const y = w[4 * j + k]! >>> 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function limbsToBigInt(w: Int32Array, i: number): bigint {
  return (
    (BigInt(w[4 * i + 3]!) << 96n) +
    (BigInt(w[4 * i + 2]! >>> 0) << 64n) +
    (BigInt(w[4 * i + 1]! >>> 0) << 32n) +
    BigInt(w[4 * i]! >>> 0)
  );
}

function decimal128(a: Uint8Array, v: Uint8Array | null, start: number, end: number, s: ColumnStats): void {
  // An Int32Array view needs 4-byte alignment; copy the rows otherwise (rare: odd slices).
  let w: Int32Array;
  let base = 0;
  if ((a.byteOffset & 3) === 0) w = new Int32Array(a.buffer, a.byteOffset, a.length >>> 2);
  else {
    w = new Int32Array(a.slice(start * 16, end * 16).buffer);
    base = start;
  }
  let minI = -1;
  let maxI = -1;
  let total = 0n;
  for (let b = start; b < end; b += WIDE_FLUSH) {
    const e = Math.min(end, b + WIDE_FLUSH);
    let l0 = 0;
    let l1 = 0;
    let l2 = 0;
    let l3 = 0;
    for (let i = b; i < e; i++) {
      if (v !== null && (v[i >>> 3]! & (1 << (i & 7))) === 0) continue;
      const r = i - base;
      if (minI < 0) minI = maxI = r;
      else if (cmp128(w, r, minI) < 0) minI = r;
      else if (cmp128(w, r, maxI) > 0) maxI = r;
      l0 += w[4 * r]! >>> 0;
      l1 += w[4 * r + 1]! >>> 0;
      l2 += w[4 * r + 2]! >>> 0;
      l3 += w[4 * r + 3]!;
    }
    total += (BigInt(l3) << 96n) + (BigInt(l2) << 64n) + (BigInt(l1) << 32n) + BigInt(l0);
  }
  s.min = limbsToBigInt(w, minI);
  s.max = limbsToBigInt(w, maxI);
  s.sum = total;
}

const dec = new TextDecoder('utf-8', { ignoreBOM: true }); // a leading U+FEFF is part of the value

/**
 * Stats of numeric text. The writer stores numeric_out's canonical text
 * (`-?(0|[1-9][0-9]*)(\.[0-9]+)?`), so the values compare and sum from their bytes: min and max
 * by a byte comparison, the sum per display scale in doubles while they stay exact (at most 15
 * digits a value, flushed to BigInt before 2^53). A column holding anything else (NaN, Infinity,
 * text from elsewhere) is summarized value by value through the numeric parser.
 */
function numericText(col: Column, start: number, end: number, s: ColumnStats): void {
  if (!canonicalNumericStats(col, start, end, s)) numericTextSlow(col, start, end, s);
}

const ZERO = 48;
const NINE = 57;
const MINUS = 45;
const DOT = 46;
/** Fraction lengths the fast sum keeps an accumulator for. */
const MAX_FAST_SCALE = 31;
/** An accumulator is flushed to BigInt before adding a 15-digit coefficient could pass 2^53. */
const FLUSH_AT = 2 ** 53 - 1e15;

/** Fills s from canonical numeric text; false (s untouched) when some value is not canonical. */
function canonicalNumericStats(col: Column, start: number, end: number, s: ColumnStats): boolean {
  const o = col.offsets!;
  const d = col.data!;
  const v = col.validity;
  const acc = new Float64Array(MAX_FAST_SCALE + 1);
  const big = new Array<bigint>(MAX_FAST_SCALE + 1).fill(0n);
  let maxScale = -1;
  let minI = -1;
  let maxI = -1;
  for (let i = start; i < end; i++) {
    if (v !== null && (v[i >>> 3]! & (1 << (i & 7))) === 0) continue;
    const a = o[i]!;
    const b = o[i + 1]!;
    // Scan: sign, integer digits, fraction digits; the coefficient while it has ≤ 15 digits.
    let j = a;
    const neg = j < b && d[j] === MINUS;
    if (neg) j++;
    const intStart = j;
    let coef = 0;
    while (j < b && d[j]! >= ZERO && d[j]! <= NINE) coef = coef * 10 + (d[j++]! - ZERO);
    const intLen = j - intStart;
    if (intLen === 0 || (intLen > 1 && d[intStart] === ZERO)) return false;
    let scale = 0;
    if (j < b) {
      if (d[j] !== DOT) return false;
      const fracStart = ++j;
      while (j < b && d[j]! >= ZERO && d[j]! <= NINE) coef = coef * 10 + (d[j++]! - ZERO);
      scale = j - fracStart;
      if (j < b || scale === 0) return false;
    }
    if (neg && coef === 0) return false; // a negative zero is not canonical
    if (scale > MAX_FAST_SCALE) return false;
    if (scale > maxScale) maxScale = scale;
    if (intLen + scale <= 15) {
      const x = neg ? -coef : coef;
      const t = acc[scale]! + x;
      if (t >= FLUSH_AT || t <= -FLUSH_AT) {
        big[scale]! += BigInt(acc[scale]!) + BigInt(x);
        acc[scale] = 0;
      } else acc[scale] = t;
    } else {
      let digits = '';
      for (let k = neg ? a + 1 : a; k < b; k++) if (d[k] !== DOT) digits += String.fromCharCode(d[k]!);
      big[scale]! += neg ? -BigInt(digits) : BigInt(digits);
    }
    if (minI < 0 || compareCanonical(d, a, b, o[minI]!, o[minI + 1]!) < 0) minI = i;
    if (maxI < 0 || compareCanonical(d, a, b, o[maxI]!, o[maxI + 1]!) > 0) maxI = i;
  }
  if (minI >= 0) {
    s.min = dec.decode(d.subarray(o[minI], o[minI + 1]));
    s.max = dec.decode(d.subarray(o[maxI], o[maxI + 1]));
  }
  let total = 0n;
  const scale = Math.max(maxScale, 0);
  for (let f = 0; f <= maxScale; f++) total += (big[f]! + BigInt(acc[f]!)) * 10n ** BigInt(scale - f);
  s.sum = formatDecimalValue({ kind: 'finite', coef: total, scale });
  return true;
}

/** Numeric order of two canonical numeric texts d[a, b) and d[c, e). */
function compareCanonical(d: Uint8Array, a: number, b: number, c: number, e: number): number {
  const sa = signOf(d, a, b);
  const sc = signOf(d, c, e);
  if (sa !== sc || sa === 0) return sa - sc;
  if (sa < 0) {
    a++;
    c++;
  }
  let ia = a;
  while (ia < b && d[ia] !== DOT) ia++;
  let ic = c;
  while (ic < e && d[ic] !== DOT) ic++;
  if (ia - a !== ic - c) return ia - a < ic - c ? -sa : sa; // more integer digits is larger
  for (let k = 0; k < ia - a; k++) if (d[a + k] !== d[c + k]) return d[a + k]! < d[c + k]! ? -sa : sa;
  // Same integer digits: the fractions, the shorter padded with zeros.
  const n = Math.max(b - ia, e - ic);
  for (let k = 1; k < n; k++) {
    const x = ia + k < b ? d[ia + k]! : ZERO;
    const y = ic + k < e ? d[ic + k]! : ZERO;
    if (x !== y) return x < y ? -sa : sa;
  }
  return 0;
}

/** -1, 0 or 1: a canonical text is zero when all its digits are zeros. */
function signOf(d: Uint8Array, a: number, b: number): number {
  if (d[a] === MINUS) return -1;
  for (let k = a; k < b; k++) if (d[k] !== ZERO && d[k] !== DOT) return 1;
  return 0;
}

function numericTextSlow(col: Column, start: number, end: number, s: ColumnStats): void {
  const o = col.offsets!;
  const d = col.data!;
  const v = col.validity;
  let min: NumericParts | null = null;
  let max: NumericParts | null = null;
  let minText = '';
  let maxText = '';
  let sum = DECIMAL_ZERO;
  for (let i = start; i < end; i++) {
    if (v !== null && (v[i >>> 3]! & (1 << (i & 7))) === 0) continue;
    const text = dec.decode(d.subarray(o[i], o[i + 1]));
    const p = parseNumericText(text);
    sum = addDecimal(sum, parseDecimalValue(text));
    if (p === null || p.kind === 'nan') {
      s.nans++;
      continue;
    }
    if (min === null || compareNumericParts(p, min) < 0) {
      min = p;
      minText = text;
    }
    if (max === null || compareNumericParts(p, max) > 0) {
      max = p;
      maxText = text;
    }
  }
  if (min !== null) {
    s.min = minText;
    s.max = maxText;
  }
  s.sum = formatDecimalValue(sum);
}

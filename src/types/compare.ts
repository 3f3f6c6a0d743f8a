/**
 * PostgreSQL's ordering of non-NULL values, one function over all types. Used by statistics
 * (min/max) and by scans (sorts, bounds). NULL ordering (NULLS LAST for ASC) is the caller's
 * business: `compareValues` never sees a NULL.
 *
 * Per type (PostgreSQL 15 semantics, https://www.postgresql.org/docs/15/functions-comparison.html):
 *   int2/int4/date            numeric order of the number
 *   int8/timestamp[tz]        numeric order of the bigint
 *   float4/float8             numeric order; -0 = 0; NaN equals NaN and is greater than every
 *                             other value, +Infinity included (float.c, float8_cmp_internal)
 *   bool                      false < true
 *   text/varchar              collation "C": byte-wise UTF-8 = code point order
 *   bpchar                    like text, but trailing spaces are insignificant (bpcharcmp)
 *   jsonb                     jsonb's btree order (object > array > boolean > number > string >
 *                             null, ./json-compare.ts); paxd keeps no min/max for jsonb
 *   json                      byte-wise on the text (PostgreSQL has no json ordering: the
 *                             binder refuses it, 42883)
 *   bytea/uuid                memcmp, shorter prefix first
 *   interval                  the span with 30-day months and 24-hour days (interval_cmp)
 *   T[]                       element by element, a NULL element after every value; then the
 *                             shorter array first (array_cmp)
 *   numeric(p,s)              the unscaled bigint (every value of a column has the same scale)
 *   numeric (unconstrained)   numeric value of the exact text: NaN > +Infinity > numbers >
 *                             -Infinity; 1.50 = 1.5 (numeric_cmp)
 *
 *   compareValues({ id: 'bpchar' }, 'ab  ', 'ab')            // 0
 *   compareValues({ id: 'float8' }, NaN, Infinity)           // 1
 *   compareValues({ id: 'numeric' }, '-Infinity', '-1e300')  // -1
 */
import type { Value } from './column.js';
import { type PgType, isDecimal128 } from './type.js';
import { compareInterval } from './interval.js';
import { PaxdError, unreachable } from './errors.js';
import { parseArrayText } from './array.js';
import { parseText } from './text-io.js';
import { compareJsonb } from './json-compare.js';
import { charByte, vectorElements } from './text/oid.js';
import { type NumericScan, scanNumeric } from './numeric.js';

/** Negative, zero or positive as a sorts before, equal to, or after b. */
export function compareValues(type: PgType, a: Value, b: Value): number {
  switch (type.id) {
    case 'int2':
    case 'int4':
    case 'date':
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 'int8':
    case 'timestamp':
    case 'timestamptz':
    case 'oid':
    case 'xid':
    case 'regclass':
    case 'regtype':
    case 'regproc':
    case 'regprocedure':
    case 'regnamespace':
    case 'regrole':
    case 'regoper':
      return (a as bigint) < (b as bigint) ? -1 : (a as bigint) > (b as bigint) ? 1 : 0;
    case 'float4':
    case 'float8':
      return compareFloat(a as number, b as number);
    case 'bool':
      return (a ? 1 : 0) - (b ? 1 : 0);
    case 'text':
    case 'varchar':
    case 'json':
    case 'name':
      return compareCodePoints(a as string, b as string);
    case 'jsonb':
      return compareJsonb(a as string, b as string);
    case 'bpchar':
      return compareBpchar(a as string, b as string);
    case 'bytea':
    case 'uuid':
      return compareBytes(a as Uint8Array, b as Uint8Array);
    case 'numeric':
      if (isDecimal128(type)) return (a as bigint) < (b as bigint) ? -1 : (a as bigint) > (b as bigint) ? 1 : 0;
      return compareNumericText(a as string, b as string);
    case 'interval':
      return compareInterval(a as Uint8Array, b as Uint8Array);
    case 'array':
      return compareArrays(type.element!, a as string, b as string);
    case 'char':
      return charByte(a as string) - charByte(b as string);
    case 'int2vector':
    case 'oidvector':
      return compareVectors(a as string, b as string);
    default:
      return unreachable(type.id);
  }
}

/** oidvectorcmp: the shorter first, then element by element. */
function compareVectors(a: string, b: string): number {
  const x = vectorElements(a);
  const y = vectorElements(b);
  if (x.length !== y.length) return x.length - y.length;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

/** array_cmp of two one-dimensional arrays' texts. */
function compareArrays(element: PgType, a: string, b: string): number {
  if (a === b) return 0;
  const x = parseArrayText(a);
  const y = parseArrayText(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const u = x[i]!;
    const v = y[i]!;
    if (u === null || v === null) {
      if (u !== v) return u === null ? 1 : -1;
      continue;
    }
    const c = compareValues(element, parseText(element, u), parseText(element, v));
    if (c !== 0) return c;
  }
  return x.length - y.length;
}

/** float8_cmp_internal: NaN = NaN, NaN > everything else, -0 = 0. */
export function compareFloat(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) return 0;
  const an = a !== a;
  const bn = b !== b;
  return an === bn ? 0 : an ? 1 : -1;
}

/**
 * Code point order of two JS strings (= byte order of their UTF-8). JS `<` compares UTF-16
 * code units, which puts U+E000..U+FFFF after the surrogate pairs of U+10000..; fix up the first
 * differing unit so surrogates sort above the rest of the BMP.
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return fixUnit(x) - fixUnit(y);
  }
  return a.length - b.length;
}

function fixUnit(u: number): number {
  return u >= 0xe000 ? u - 0x800 : u >= 0xd800 ? u + 0x2000 : u;
}

/** bpcharcmp: trailing spaces are insignificant. */
export function compareBpchar(a: string, b: string): number {
  return compareCodePoints(stripTrailingSpaces(a), stripTrailingSpaces(b));
}

export function stripTrailingSpaces(s: string): string {
  let e = s.length;
  while (e > 0 && s.charCodeAt(e - 1) === 0x20) e--;
  return e === s.length ? s : s.slice(0, e);
}

/** memcmp with the shorter prefix first (byteaeq/byteacmp, uuid_cmp). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/**
 * A parsed unconstrained numeric text. Finite values are 0.digits × 10^point, with `digits`
 * free of leading and trailing zeros ("" for zero).
 */
export interface NumericParts {
  readonly kind: 'finite' | 'nan' | 'pinf' | 'ninf';
  readonly negative: boolean;
  readonly digits: string;
  readonly point: number;
}

const NUMERIC_PINF: NumericParts = { kind: 'pinf', negative: false, digits: '', point: 0 };
const NUMERIC_NINF: NumericParts = { kind: 'ninf', negative: true, digits: '', point: 0 };
const NUMERIC_ZERO: NumericParts = { kind: 'finite', negative: false, digits: '', point: 0 };

/**
 * Parses numeric text as PostgreSQL prints or accepts it ("-12.50", "1e3", "NaN",
 * "Infinity", "-inf"), with numeric_in's scanner (./numeric.ts). Returns null for text that is
 * not a numeric.
 */
export function parseNumericText(s: string): NumericParts | null {
  let p: NumericScan;
  try {
    p = scanNumeric(s);
  } catch (e) {
    if (e instanceof PaxdError) return null;
    throw e;
  }
  if (p === 'NaN') return NAN_PARTS;
  if (p === 'Infinity') return NUMERIC_PINF;
  if (p === '-Infinity') return NUMERIC_NINF;
  if (p.digits === '') return NUMERIC_ZERO;
  return { kind: 'finite', negative: p.neg, digits: p.digits, point: p.digits.length + p.exp10 };
}

/** Rank of the special values in numeric_cmp order. */
function numericRank(p: NumericParts): number {
  switch (p.kind) {
    case 'ninf':
      return 0;
    case 'finite':
      return 1;
    case 'pinf':
      return 2;
    case 'nan':
      return 3;
  }
}

export function compareNumericParts(a: NumericParts, b: NumericParts): number {
  const ra = numericRank(a);
  const rb = numericRank(b);
  if (ra !== rb || ra !== 1) return ra - rb;
  const sa = a.digits === '' ? 0 : a.negative ? -1 : 1;
  const sb = b.digits === '' ? 0 : b.negative ? -1 : 1;
  if (sa !== sb || sa === 0) return sa - sb;
  // Same sign, both non-zero: compare magnitudes, then apply the sign.
  let m: number;
  if (a.point !== b.point) m = a.point < b.point ? -1 : 1;
  else m = a.digits < b.digits ? -1 : a.digits > b.digits ? 1 : 0;
  return sa * m;
}

/** Numeric order of two unconstrained numeric texts; unparsable text sorts as NaN. */
export function compareNumericText(a: string, b: string): number {
  if (a === b) return 0;
  return compareNumericParts(parseNumericText(a) ?? NAN_PARTS, parseNumericText(b) ?? NAN_PARTS);
}

const NAN_PARTS: NumericParts = { kind: 'nan', negative: false, digits: '', point: 0 };

/**
 * Scalar kernels over the engine's value representation, one per operation over all types
 * (STYLE.md habit 3): casts, arithmetic with PostgreSQL's overflow and division errors, and
 * comparison. The batch evaluator (./eval.ts) runs them in one loop per expression node.
 *
 * Values per engine type: int2/int4/date and floats are numbers, int8/timestamp bigints,
 * numeric exact decimal text, text types strings, bool booleans.
 */
import { type PgType, type RegTypeId, type Value, SQLSTATE, isOidType, isRegType, formatArrayText, parseArrayText, castJson, formatText, parseText, compareValues, truncateChars } from '../../types/index.js';
import { addDecimal, formatDecimalValue, parseDecimalValue, type DecimalValue } from '../../types/index.js';
import type { ArithOp } from '../expr.js';
import { SqlError, divisionByZero, floatOverflow, notSupported, outOfRange } from '../errors.js';
import { categoryOf } from '../types.js';
import { holds } from '../../scan/index.js';
import { numericDiv, numericMod } from './numeric.js';
import { dateToTimestamp, timestampToDate, timestampToTimestamptz, timestamptzToTimestamp } from './datetime.js';
import { currentTimeZone } from '../context.js';

const INT_LIMITS = {
  int2: [-32768, 32767, 'smallint'],
  int4: [-2147483648, 2147483647, 'integer'],
} as const;
const INT8_MIN = -(2n ** 63n);
const T_NUMERIC: PgType = Object.freeze({ id: 'numeric' });
const INT8_MAX = 2n ** 63n - 1n;

function checkInt(id: 'int2' | 'int4', r: number): number {
  const [lo, hi, name] = INT_LIMITS[id];
  if (r < lo || r > hi) throw outOfRange(name);
  return r;
}

function checkInt8(r: bigint): bigint {
  if (r < INT8_MIN || r > INT8_MAX) throw outOfRange('bigint');
  return r;
}

/** Arithmetic on two non-NULL operands already of `type` (the operator's input and result type). */
export function arith(type: PgType, op: ArithOp, a: Value, b: Value): Value {
  switch (type.id) {
    case 'int2':
    case 'int4': {
      const x = a as number;
      const y = b as number;
      switch (op) {
        case '+':
          return checkInt(type.id, x + y);
        case '-':
          return checkInt(type.id, x - y);
        case '*':
          return checkInt(type.id, x * y);
        case '/':
          if (y === 0) throw divisionByZero();
          return checkInt(type.id, Math.trunc(x / y));
        case '%':
          if (y === 0) throw divisionByZero();
          return x % y | 0;
      }
      break;
    }
    case 'int8': {
      const x = a as bigint;
      const y = b as bigint;
      switch (op) {
        case '+':
          return checkInt8(x + y);
        case '-':
          return checkInt8(x - y);
        case '*':
          return checkInt8(x * y);
        case '/':
          if (y === 0n) throw divisionByZero();
          return checkInt8(x / y);
        case '%':
          if (y === 0n) throw divisionByZero();
          return x % y;
      }
      break;
    }
    case 'float4':
    case 'float8': {
      const x = a as number;
      const y = b as number;
      let r: number;
      switch (op) {
        case '+':
          r = x + y;
          break;
        case '-':
          r = x - y;
          break;
        case '*':
          r = x * y;
          break;
        case '/':
          if (y === 0) throw divisionByZero();
          r = x / y;
          break;
        case '%':
          throw notSupported('operator % on floating-point types');
      }
      if (type.id === 'float4') r = Math.fround(r);
      if (!Number.isFinite(r) && !Number.isNaN(r) && Number.isFinite(x) && Number.isFinite(y)) throw floatOverflow();
      return r;
    }
    case 'numeric':
      return numericArith(op, a as string, b as string);
    default:
      break;
  }
  throw notSupported(`operator ${op} on type ${type.id}`);
}

function numericArith(op: ArithOp, a: string, b: string): string {
  const x = parseDecimalValue(a);
  const y = parseDecimalValue(b);
  if (x.kind === 'nan' || y.kind === 'nan') return 'NaN';
  if (x.kind !== 'finite' || y.kind !== 'finite') throw notSupported('numeric arithmetic with Infinity');
  switch (op) {
    case '+':
      return formatDecimalValue(addDecimal(x, y));
    case '-':
      return formatDecimalValue(addDecimal(x, negate(y)));
    case '*':
      // numeric_mul: the result's display scale is the sum of the inputs' (numeric.c mul_var)
      return formatDecimalValue({ kind: 'finite', coef: x.coef * y.coef, scale: x.scale + y.scale });
    case '/':
      return numericDiv(a, b);
    case '%':
      return numericMod(a, b);
  }
}

function negate(d: DecimalValue): DecimalValue {
  return { ...d, coef: -d.coef };
}

export function negateValue(type: PgType, v: Value): Value {
  switch (type.id) {
    case 'int2':
    case 'int4':
      return checkInt(type.id, -(v as number));
    case 'int8':
      return checkInt8(-(v as bigint));
    case 'float4':
    case 'float8':
      return -(v as number);
    case 'numeric': {
      const d = parseDecimalValue(v as string);
      return d.kind === 'finite' ? formatDecimalValue(negate(d)) : d.kind === 'pinf' ? '-Infinity' : d.kind === 'ninf' ? 'Infinity' : 'NaN';
    }
    default:
      throw notSupported(`unary minus on type ${type.id}`);
  }
}

/** Three-way comparison of two non-NULL values of the same engine type. */
export function compare(type: PgType, a: Value, b: Value): number {
  return compareValues(type, a, b);
}

/** Whether a comparison result satisfies `op` (the scan layer's rule, shared). */
export const compareOp = holds;

/** The reg* types' input and output by name (../catalog/reg-io.ts registers them: it reads the statement's catalog). */
export interface RegIo {
  in(type: RegTypeId, text: string): bigint;
  out(type: RegTypeId, v: Value): string;
}
let regIo: RegIo | null = null;

export function registerRegIo(io: RegIo): void {
  regIo = io;
}

function regIn(type: RegTypeId, text: string): bigint {
  if (regIo === null) throw new SqlError('internal', SQLSTATE.internal_error, 'internal error: reg* input before the catalog registered it');
  return regIo.in(type, text);
}

function regOut(type: RegTypeId, v: Value): string {
  return regIo === null ? String(v) : regIo.out(type, v);
}

/** Formats a non-NULL engine value as PostgreSQL's output function does (timestamptz in the session's zone). */
export function toText(type: PgType, v: Value): string {
  if (type.id === 'numeric' && typeof v === 'string') return v;
  // The reg* types print names, from the statement's catalog (../catalog/reg-io.ts).
  if (isRegType(type)) return regOut(type.id, v);
  return formatText(type, v, currentTimeZone());
}

/** Parses text input for `type` as PostgreSQL's input function does (timestamptz in the session's zone). */
export function fromText(type: PgType, text: string): Value {
  if (isRegType(type)) return regIn(type.id, text);
  // An array of a reg* type keeps its output text: each element read by name, printed by name.
  if (type.id === 'array' && isRegType(type.element!)) {
    const id = type.element.id;
    return formatArrayText(parseArrayText(text).map((e) => (e === null ? null : regOut(id, regIn(id, e)))));
  }
  return parseText(type, text, currentTimeZone());
}

/**
 * Casts a non-NULL value between engine types (PostgreSQL's cast functions): integer widening
 * and narrowing with range checks, integer/numeric to float, float and numeric to integer
 * rounding as PostgreSQL does, anything to and from text through the types' text I/O, date,
 * timestamp and timestamptz among each other (in the session's time zone). Other casts are 0A000.
 * An `explicit` cast (`::varchar(3)`, CAST … AS char(2)) to a length truncates to it, as
 * PostgreSQL's length coercion does with isExplicit; an assignment (INSERT, UPDATE, COPY)
 * raises 22001 instead.
 *
 *   castValue(T.text, { id: 'varchar', length: 3 }, 'abcd', true)  // 'abc'
 */
export function castValue(from: PgType, to: PgType, v: Value, explicit = false): Value {
  if (explicit && to.length !== undefined && (to.id === 'varchar' || to.id === 'bpchar')) {
    const unbounded = castValue(from, { id: to.id }, v) as string;
    return parseText(to, truncateChars(unbounded, to.length));
  }
  if (from.id === to.id && to.id !== 'varchar' && to.id !== 'bpchar') return v;
  const cf = categoryOf(from);
  const ct = categoryOf(to);
  if (cf === 'oid' || ct === 'oid') return castObjectId(from, to, v);
  // bpchar to text or varchar drops the padding (rtrim1, the cast function of bpchar → text).
  if (from.id === 'bpchar' && (to.id === 'text' || to.id === 'varchar')) return parseText(to, (v as string).replace(/ +$/, ''));
  if ((from.id === 'jsonb' || from.id === 'json') && ct !== 'string') {
    const x = castJson(from, to, v);
    return ct === 'numeric' ? castNumber(T_NUMERIC, to, x) : x;
  }
  if (cf === 'string') return fromText(to, v as string);
  // bool's cast to text is booltext (`true`), not its output function (`t`).
  if (ct === 'string') return parseText(to, from.id === 'bool' ? String(v) : toText(from, v));
  if (cf === 'numeric' && ct === 'numeric') return castNumber(from, to, v);
  // bool_int4 and int4_bool, the only casts between booleans and numbers.
  if (from.id === 'bool' && to.id === 'int4') return v ? 1 : 0;
  if (from.id === 'int4' && to.id === 'bool') return v !== 0;
  // timestamptz against the local times of the session's zone (./datetime.ts).
  if (from.id === 'date' && to.id === 'timestamp') return dateToTimestamp(v as number);
  if (from.id === 'date' && to.id === 'timestamptz') return timestampToTimestamptz(dateToTimestamp(v as number), currentTimeZone());
  if (from.id === 'timestamp' && to.id === 'timestamptz') return timestampToTimestamptz(v as bigint, currentTimeZone());
  if (from.id === 'timestamptz' && to.id === 'timestamp') return timestamptzToTimestamp(v as bigint, currentTimeZone());
  if (from.id === 'timestamp' && to.id === 'date') return timestampToDate(v as bigint);
  if (from.id === 'timestamptz' && to.id === 'date') return timestampToDate(timestamptzToTimestamp(v as bigint, currentTimeZone()));
  throw notSupported(`cast from ${from.id} to ${to.id}`);
}

/**
 * Casts in and out of the oid family: the reg* types' input and output functions by name
 * (../catalog/reg-io.ts) from and to strings; int4 to oid and back as the same 32 bits
 * (-1 is 4294967295), int8 to oid range-checked (i8tooid), oid to int8 as its value.
 */
function castObjectId(from: PgType, to: PgType, v: Value): Value {
  if (categoryOf(to) === 'string') return parseText(to, toText(from, v));
  if (categoryOf(from) === 'string') return fromText(to, v as string);
  if (isOidType(from) && isOidType(to)) return v;
  switch (to.id) {
    case 'int4': {
      const n = Number(v as bigint);
      return n >= 2 ** 31 ? n - 2 ** 32 : n;
    }
    case 'int8':
      return v;
    default:
      break;
  }
  if (isOidType(to) && (from.id === 'int2' || from.id === 'int4')) return BigInt((v as number) >>> 0);
  if (isOidType(to) && from.id === 'int8') {
    if ((v as bigint) < 0n || (v as bigint) > 0xffffffffn) throw new SqlError('invalid_input', SQLSTATE.numeric_value_out_of_range, 'OID out of range');
    return v;
  }
  throw notSupported(`cast from ${from.id} to ${to.id}`);
}

function castNumber(from: PgType, to: PgType, v: Value): Value {
  switch (to.id) {
    case 'int2':
    case 'int4': {
      const n = from.id === 'int8' ? toSafeNumber(v as bigint, to.id) : from.id === 'numeric' ? roundNumericText(v as string, to.id) : isFloatId(from.id) ? rint(v as number, to.id) : (v as number);
      return checkInt(to.id, n);
    }
    case 'int8':
      if (from.id === 'numeric') return checkInt8(roundNumericBig(v as string, 'bigint'));
      if (isFloatId(from.id)) {
        const x = v as number;
        if (!Number.isFinite(x) || Math.abs(x) >= 2 ** 63) throw outOfRange('bigint');
        return BigInt(roundHalfEven(x));
      }
      return BigInt(v as number);
    case 'float4':
      return Math.fround(from.id === 'numeric' ? Number(v as string) : Number(v));
    case 'float8':
      return from.id === 'numeric' ? Number(v as string) : Number(v);
    case 'numeric':
      if (isFloatId(from.id)) return floatToNumeric(v as number, from.id === 'float4' ? 6 : 15);
      return String(v);
    default:
      throw notSupported(`cast from ${from.id} to ${to.id}`);
  }
}

/**
 * float4/float8 to numeric (float8_numeric): the value printed with FLT_DIG (6) or DBL_DIG (15)
 * significant digits, as sprintf's %g does, read back as numeric: 0.1::float8 is 0.1.
 */
function floatToNumeric(x: number, digits: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  const [mantissa, exp] = x.toPrecision(digits).split('e');
  const m = mantissa!.includes('.') ? mantissa!.replace(/0+$/, '').replace(/\.$/, '') : mantissa!;
  return formatDecimalValue(parseDecimalValue(exp === undefined ? m : `${m}e${exp}`));
}

function isFloatId(id: string): boolean {
  return id === 'float4' || id === 'float8';
}

function toSafeNumber(v: bigint, id: 'int2' | 'int4'): number {
  if (v < -(2n ** 31n) || v > 2n ** 31n) throw outOfRange(INT_LIMITS[id][2]);
  return Number(v);
}

/** float to integer: rint(), round half to even, as float8_int4 does. */
function rint(x: number, id: 'int2' | 'int4'): number {
  if (!Number.isFinite(x)) throw outOfRange(INT_LIMITS[id][2]);
  return roundHalfEven(x);
}

function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** numeric to integer rounds half away from zero (numeric_int4). */
function roundNumericBig(s: string, name: 'smallint' | 'integer' | 'bigint'): bigint {
  const d = parseDecimalValue(s);
  if (d.kind !== 'finite') throw new SqlError('unsupported', SQLSTATE.feature_not_supported, `cannot convert ${s} to ${name}`);
  const p = 10n ** BigInt(d.scale);
  const a = d.coef < 0n ? -d.coef : d.coef;
  let q = a / p;
  if ((a % p) * 2n >= p) q += 1n;
  return d.coef < 0n ? -q : q;
}

function roundNumericText(s: string, id: 'int2' | 'int4'): number {
  const b = roundNumericBig(s, INT_LIMITS[id][2]);
  return toSafeNumber(b, id);
}

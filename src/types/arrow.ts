/**
 * PostgreSQL types as Arrow types (DESIGN.md "Type mapping") and zero-copy conversion between
 * paxd Columns and apache-arrow Data.
 *
 *   columnToArrow(c)            wraps c's buffers as a Data; never copies, except decimal128
 *                               values not aligned to 4 bytes (arrow-js views them as Uint32)
 *   columnFromArrow(type, d)    wraps d's buffers as a Column when the layout is paxd's and
 *                               every value is valid for `type`; otherwise converts, copying
 *                               (other widths, LargeUtf8, dictionaries, strings to parse…)
 *
 * arrow-js conventions this relies on (data.ts, _sliceBuffers): after Data.slice the
 * fixed-width values and the var-width offsets are subarrays starting at the slice's first
 * row, while the validity bitmap (and bool values) stay whole and are read at bit `offset`.
 */
import {
  Binary,
  Bool,
  type Data,
  type DataType,
  DateDay,
  Decimal,
  type Dictionary,
  FixedSizeBinary,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  TimeUnit,
  Timestamp,
  Type,
  Utf8,
  makeData,
  makeVector,
} from 'apache-arrow';
import { ColumnBuilder } from './builder.js';
import type { Column, Value, Values } from './column.js';
import { PaxdError, SQLSTATE, unsupported, unreachable } from './errors.js';
import { formatDecimal, formatFloat4, formatFloat8, parseText } from './text-io.js';
import { type PgType, isDecimal128, pgDisplayName } from './type.js';
import { physicalOf } from './kind.js';
import { checkUtf8Values } from './utf8.js';
import { intervalNotStorable } from './interval.js';
import { arrayNotStorable } from './array.js';
import { isObjectIdTypeId, objectIdNotStorable } from './object-id.js';

/** The Arrow type a PostgreSQL type is stored as. */
export function arrowType(t: PgType): DataType {
  switch (t.id) {
    case 'int2':
      return new Int16();
    case 'int4':
      return new Int32();
    case 'int8':
      return new Int64();
    case 'float4':
      return new Float32();
    case 'float8':
      return new Float64();
    case 'bool':
      return new Bool();
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'jsonb':
    case 'json':
      return new Utf8();
    case 'bytea':
      return new Binary();
    case 'date':
      return new DateDay();
    case 'timestamp':
      return new Timestamp(TimeUnit.MICROSECOND);
    case 'timestamptz':
      return new Timestamp(TimeUnit.MICROSECOND, 'UTC');
    case 'numeric':
      return isDecimal128(t) ? new Decimal(t.scale ?? 0, t.precision!, 128) : new Utf8();
    case 'uuid':
      return new FixedSizeBinary(16);
    case 'interval':
      // A query result may have one; Arrow's month_day_nano interval is not mapped yet.
      throw unsupported('interval values in Arrow output');
    case 'oid':
    case 'xid':
      return new Int64();
    case 'name':
    case 'char':
    case 'int2vector':
    case 'oidvector':
      return new Utf8();
    case 'regclass':
    case 'regtype':
    case 'regproc':
    case 'regprocedure':
    case 'regnamespace':
    case 'regrole':
    case 'regoper':
      // Their output is an object's name, which needs the statement's catalog.
      throw unsupported(`${t.id} values in Arrow output (cast them to text or oid)`);
    case 'array':
      // Arrow's List is not mapped yet.
      throw unsupported('array values in Arrow output');
    default:
      return unreachable(t.id);
  }
}

/** Wraps a Column as Arrow Data of arrowType(c.type), sharing its buffers. */
export function columnToArrow(c: Column): Data {
  const type = arrowType(c.type);
  const common = { type, length: c.length, nullCount: c.nullCount, nullBitmap: c.validity ?? undefined, offset: 0 };
  switch (physicalOf(c.type)) {
    case 'var':
      return makeAnyData({ ...common, valueOffsets: c.offsets!, data: c.data! });
    case 'fixed16': {
      let v = c.values as Uint8Array;
      // Decimal Data is viewed as Uint32Array: misaligned bytes must be copied once.
      if (isDecimal128(c.type) && (v.byteOffset & 3) !== 0) v = v.slice();
      return makeAnyData({ ...common, data: v });
    }
    default:
      return makeAnyData({ ...common, data: c.values });
  }
}

/** makeData's overloads are per Arrow type; the props here are built per physical layout. */
const makeAnyData = makeData as unknown as (props: Record<string, unknown>) => Data;

function mismatch(type: PgType, data: Data): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.datatype_mismatch, `cannot load Arrow ${String(data.type)} into a column of type ${pgDisplayName(type)}`);
}

/** The validity bitmap of rows [0, length) of `data`, realigned if its bit offset is not 0 mod 8. */
function validityOf(data: Data): Uint8Array | null {
  if (data.nullCount === 0 || data.nullBitmap === undefined || data.nullBitmap.length === 0) return null;
  return bitsAt(data.nullBitmap, data.offset, data.length);
}

function bitsAt(bits: Uint8Array, offset: number, length: number): Uint8Array {
  const nbytes = (length + 7) >>> 3;
  if ((offset & 7) === 0) return bits.subarray(offset >>> 3, (offset >>> 3) + nbytes);
  const out = new Uint8Array(nbytes);
  for (let i = 0; i < length; i++) {
    const j = offset + i;
    if (bits[j >>> 3]! & (1 << (j & 7))) out[i >>> 3]! |= 1 << (i & 7);
  }
  return out;
}

function isNullAt(data: Data, i: number): boolean {
  if (data.nullCount === 0 || data.nullBitmap === undefined || data.nullBitmap.length === 0) return false;
  const j = data.offset + i;
  return (data.nullBitmap[j >>> 3]! & (1 << (j & 7))) === 0;
}

function wrap(type: PgType, data: Data, values: Values, offsets: Int32Array | null = null, bytes: Uint8Array | null = null): Column {
  const validity = validityOf(data);
  return { type, length: data.length, nullCount: validity === null ? 0 : data.nullCount, validity, values, offsets, data: bytes };
}

/**
 * A Column of `type` over Arrow `data`. Shares buffers when the Arrow layout is paxd's and all
 * values are valid for the type (range-checked for dates, timestamps and decimals; NUL-free and
 * short enough for strings); otherwise converts value by value, parsing strings as PostgreSQL
 * text input, and throws PaxdError (22xxx) for a value the type cannot hold.
 */
export function columnFromArrow(type: PgType, data: Data): Column {
  const t = data.type;
  checkUtf8(data);
  if (isObjectIdTypeId(type.id)) return objectIdNotStorable('columnFromArrow');
  switch (type.id) {
    case 'int2':
      if (t.typeId === Type.Int && (t as Int16).bitWidth === 16 && (t as Int16).isSigned) return wrap(type, data, data.values as Int16Array);
      break;
    case 'int4':
      if (t.typeId === Type.Int && (t as Int32).bitWidth === 32 && (t as Int32).isSigned) return wrap(type, data, data.values as Int32Array);
      break;
    case 'int8':
      if (t.typeId === Type.Int && (t as Int64).bitWidth === 64 && (t as Int64).isSigned) return wrap(type, data, data.values as BigInt64Array);
      break;
    case 'float4':
      if (t.typeId === Type.Float && data.values instanceof Float32Array) return wrap(type, data, data.values);
      break;
    case 'float8':
      if (t.typeId === Type.Float && data.values instanceof Float64Array) return wrap(type, data, data.values);
      break;
    case 'bool':
      if (t.typeId === Type.Bool) return wrap(type, data, bitsAt(data.values as Uint8Array, data.offset, data.length));
      break;
    case 'date':
      if (t.typeId === Type.Date && data.values instanceof Int32Array && datesInRange(data)) return wrap(type, data, data.values);
      break;
    case 'timestamp':
    case 'timestamptz':
      if (t.typeId === Type.Timestamp && (t as Timestamp).unit === TimeUnit.MICROSECOND && (((t as Timestamp).timezone ?? null) !== null) === (type.id === 'timestamptz') && timestampsInRange(data)) {
        return wrap(type, data, data.values as BigInt64Array);
      }
      break;
    case 'uuid':
      if (t.typeId === Type.FixedSizeBinary && (t as FixedSizeBinary).byteWidth === 16) return wrap(type, data, asBytes(data.values));
      break;
    case 'numeric':
      if (isDecimal128(type) && t.typeId === Type.Decimal && (t as Decimal).bitWidth === 128 && (t as Decimal).scale === (type.scale ?? 0)) {
        const bytes = asBytes(data.values);
        if (decimalsFit(bytes, data, type.precision!)) return wrap(type, data, bytes);
      }
      break;
    case 'text':
    case 'varchar':
    case 'bytea':
      if ((t.typeId === Type.Utf8 && type.id !== 'bytea') || (t.typeId === Type.Binary && type.id === 'bytea')) {
        const offsets = data.valueOffsets as Int32Array;
        const bytes = data.values as Uint8Array;
        if (type.id === 'bytea' || stringsFit(offsets, bytes, data.length, type.length)) return wrap(type, data, bytes, offsets, bytes);
      }
      break;
    case 'bpchar':
      if (t.typeId === Type.Utf8) {
        const c = bpcharFromUtf8(type, data);
        if (c !== null) return c;
      }
      break;
    case 'jsonb':
    case 'json':
      break; // always checked (jsonb: normalized)
    case 'interval':
      return intervalNotStorable('columnFromArrow');
    case 'array':
      return arrayNotStorable('columnFromArrow');
    default:
      return unreachable(type.id);
  }
  return convert(type, data);
}

/**
 * Utf8 input is PostgreSQL text input: every non-NULL value valid UTF-8 without NUL, or 22021
 * with the row, as CSV and NDJSON say it (./utf8.ts). Dictionary-encoded strings are checked
 * through the keys the rows use, so one bad entry fails only the rows that hold it.
 */
function checkUtf8(data: Data): void {
  const t = data.type;
  if (t.typeId === Type.Utf8 || t.typeId === Type.LargeUtf8) {
    checkUtf8Values(data.values as Uint8Array, data.valueOffsets as Int32Array | BigInt64Array, data.length, (i) => !isNullAt(data, i));
    return;
  }
  if (t.typeId !== Type.Dictionary) return;
  const dict = (data as Data<Dictionary>).dictionary?.data ?? [];
  if (dict.length !== 1 || (dict[0]!.type.typeId !== Type.Utf8 && dict[0]!.type.typeId !== Type.LargeUtf8)) return;
  const d = dict[0]!;
  const offsets = d.valueOffsets as Int32Array | BigInt64Array;
  const keys = data.values as ArrayLike<number | bigint>;
  const verdict = new Uint8Array(d.length); // 0 unchecked, 1 good
  for (let i = 0; i < data.length; i++) {
    if (isNullAt(data, i)) continue;
    const k = Number(keys[i]!);
    if (verdict[k] === 1) continue;
    try {
      checkUtf8Values(d.values as Uint8Array, offsets.subarray(k, k + 2), 1, () => true);
    } catch (e) {
      if (e instanceof PaxdError) throw new PaxdError(e.kind, e.code, e.message, { row: i + 1 });
      throw e;
    }
    verdict[k] = 1;
  }
}

function asBytes(v: ArrayBufferView): Uint8Array {
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

const DATE_MIN = -2440588; // 4714-11-24 BC
const DATE_MAX = 2145042905; // 5874897-12-31
const TS_MIN = -210866803200000000n; // 4714-11-24 BC 00:00

function datesInRange(data: Data): boolean {
  const v = data.values as Int32Array;
  for (let i = 0; i < data.length; i++) {
    const d = v[i]!;
    if ((d < DATE_MIN || d > DATE_MAX) && d !== 2147483647 && d !== -2147483648 && !isNullAt(data, i)) return false;
  }
  return true;
}

function timestampsInRange(data: Data): boolean {
  const v = data.values as BigInt64Array;
  for (let i = 0; i < data.length; i++) {
    const x = v[i]!;
    if (x < TS_MIN && x !== -(2n ** 63n) && !isNullAt(data, i)) return false;
  }
  return true;
}

function decimalsFit(bytes: Uint8Array, data: Data, precision: number): boolean {
  const limit = 10n ** BigInt(precision);
  const limitD = 10 ** precision; // exact for precision <= 15
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < data.length; i++) {
    const w1 = dv.getInt32(i * 16 + 4, true);
    const w2 = dv.getInt32(i * 16 + 8, true);
    const w3 = dv.getInt32(i * 16 + 12, true);
    // The high 64 bits only sign-extend the low 64: |v| < 2^64 <= 10^20, and for small values
    // (|v| < 2^53) a double compares exactly, with no BigInt per value.
    if ((w2 === 0 && w3 === 0) || (w2 === -1 && w3 === -1)) {
      if (precision >= 20) continue;
      const negative = w3 === -1;
      if (precision <= 15 && (negative ? w1 >= -0x200000 && w1 < 0 : w1 >= 0 && w1 < 0x200000)) {
        const v = w1 * 4294967296 + dv.getUint32(i * 16, true);
        if (negative ? v > -limitD : v < limitD) continue;
        if (!isNullAt(data, i)) return false;
        continue;
      }
    }
    const v = (dv.getBigInt64(i * 16 + 8, true) << 64n) | dv.getBigUint64(i * 16, true);
    if ((v >= limit || v <= -limit) && !isNullAt(data, i)) return false;
  }
  return true;
}

/**
 * bpchar(n) from utf8 at byte level: values of exactly n characters are shared as they are;
 * shorter ones are padded with spaces, longer ones lose trailing spaces (PostgreSQL's bpchar
 * input). Returns null — leaving the value-by-value path to raise PostgreSQL's error — when
 * a value holds NUL or has non-space characters past n.
 */
function bpcharFromUtf8(type: PgType, data: Data): Column | null {
  const n = data.length;
  const offsets = data.valueOffsets as Int32Array;
  const bytes = data.values as Uint8Array;
  if (bytes.subarray(offsets[0], offsets[n]).indexOf(0) >= 0) return null;
  const len = type.length;
  if (len === undefined) return wrap(type, data, bytes, offsets, bytes);
  const valid = (i: number) => data.nullCount === 0 || data.getValid(i);
  // Pass 1: the bytes each value will take; zero copy when every value is already n characters.
  const keep = new Int32Array(n); // bytes of the input kept (past n characters only spaces follow)
  let pad = 0;
  let exact = true;
  for (let i = 0; i < n; i++) {
    if (!valid(i)) {
      exact = exact && offsets[i + 1] === offsets[i];
      continue;
    }
    const from = offsets[i]!;
    const to = offsets[i + 1]!;
    let chars = 0;
    let p = from;
    while (p < to && chars < len) {
      p++;
      while (p < to && (bytes[p]! & 0xc0) === 0x80) p++;
      chars++;
    }
    for (let q = p; q < to; q++) if (bytes[q] !== 0x20) return null;
    keep[i] = p - from;
    if (chars < len) pad += len - chars;
    if (chars < len || p < to) exact = false;
  }
  if (exact) return wrap(type, data, bytes, offsets, bytes);
  let total = pad;
  for (let i = 0; i < n; i++) total += keep[i]!;
  const out = new Uint8Array(total);
  const outOffsets = new Int32Array(n + 1);
  let at = 0;
  for (let i = 0; i < n; i++) {
    if (valid(i)) {
      const from = offsets[i]!;
      const k = keep[i]!;
      let chars = 0;
      for (let q = 0; q < k; q++) {
        const b = bytes[from + q]!;
        out[at++] = b;
        if ((b & 0xc0) !== 0x80) chars++;
      }
      while (chars < len) {
        out[at++] = 0x20;
        chars++;
      }
    }
    outOffsets[i + 1] = at;
  }
  const validity = validityOf(data);
  return { type, length: n, nullCount: validity === null ? 0 : data.nullCount, validity, values: out, offsets: outOffsets, data: out };
}

/** No NUL bytes and, for varchar(n), no value longer than n bytes (so surely <= n characters). */
function stringsFit(offsets: Int32Array, bytes: Uint8Array, length: number, maxChars: number | undefined): boolean {
  const from = offsets[0]!;
  const to = offsets[length]!;
  if (bytes.subarray(from, to).indexOf(0) >= 0) return false;
  if (maxChars === undefined) return true;
  for (let i = 0; i < length; i++) if (offsets[i + 1]! - offsets[i]! > maxChars) return false;
  return true;
}

/** Value-by-value conversion (copies). Strings are parsed as PostgreSQL text input. */
function convert(type: PgType, data: Data): Column {
  const vec = makeVector(data);
  const src = data.type;
  const b = new ColumnBuilder(type, data.length);
  for (let i = 0; i < data.length; i++) {
    const x: unknown = vec.get(i);
    if (x === null || x === undefined) {
      b.appendNull();
      continue;
    }
    b.append(convertValue(type, src, x, data));
  }
  return b.finish();
}

function convertValue(type: PgType, src: DataType, x: unknown, data: Data): Value {
  if (typeof x === 'string') return parseText(type, x);
  if (isObjectIdTypeId(type.id)) return objectIdNotStorable('convertValue');
  switch (type.id) {
    case 'int2':
    case 'int4':
    case 'int8':
      if (typeof x === 'number' || typeof x === 'bigint') {
        if (typeof x === 'number' && !Number.isInteger(x)) throw mismatch(type, data);
        return parseText(type, String(x));
      }
      break;
    case 'float4':
    case 'float8':
      if (typeof x === 'number') return type.id === 'float4' ? parseText(type, formatFloat8(x)) : x;
      if (typeof x === 'bigint') return parseText(type, String(x));
      break;
    case 'bool':
      if (typeof x === 'boolean') return x;
      break;
    case 'bytea':
      if (x instanceof Uint8Array) return x;
      break;
    case 'uuid':
      if (x instanceof Uint8Array && x.length === 16) return x;
      break;
    case 'date':
      if (src.typeId === Type.Date && typeof x === 'number') {
        // DateMillisecond (and DateDay out of range): vec.get gives ms since epoch.
        const days = Math.floor(x / 86400000);
        if (days < DATE_MIN || days > DATE_MAX) throw new PaxdError('invalid_input', SQLSTATE.datetime_field_overflow, `date out of range: ${days} days since 1970-01-01`);
        return days;
      }
      break;
    case 'timestamp':
    case 'timestamptz':
      if (src.typeId === Type.Timestamp && (typeof x === 'number' || typeof x === 'bigint')) return timestampMicros(src as Timestamp, data, x);
      break;
    case 'numeric':
      if (src.typeId === Type.Decimal || typeof x === 'number' || typeof x === 'bigint') {
        const text = src.typeId === Type.Decimal ? decimalText(src as Decimal, x) : typeof x === 'number' ? formatFloat8(x) : String(x);
        return parseText(type, text);
      }
      break;
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'jsonb':
    case 'json':
      break;
    case 'interval':
      return intervalNotStorable('convertValue');
    case 'array':
      return arrayNotStorable('convertValue');
    default:
      return unreachable(type.id);
  }
  if (typeof x === 'number' && src.typeId === Type.Float && type.id === 'float4') return Math.fround(x);
  void formatFloat4;
  throw mismatch(type, data);
}

/** Timestamps of other units, scaled to microseconds (nanoseconds must be whole µs). */
function timestampMicros(t: Timestamp, data: Data, x: number | bigint): bigint {
  const v = BigInt(x);
  let us: bigint;
  switch (t.unit) {
    case TimeUnit.SECOND:
      us = v * 1000000n;
      break;
    case TimeUnit.MILLISECOND:
      us = v * 1000n;
      break;
    case TimeUnit.MICROSECOND:
      us = v;
      break;
    case TimeUnit.NANOSECOND:
      if (v % 1000n !== 0n) throw unsupported('timestamps with nanoseconds (paxd stores microseconds)');
      us = v / 1000n;
      break;
    default:
      throw new Error(`unknown time unit ${String(t.unit)}`);
  }
  if (us < TS_MIN || us >= 2n ** 63n - 1n) throw new PaxdError('invalid_input', SQLSTATE.datetime_field_overflow, `timestamp out of range: ${String(v)} ${TimeUnit[t.unit]} since 1970`);
  void data;
  return us;
}

/** A Decimal value as vec.get returns it (Uint32Array words, little-endian) as text. */
function decimalText(t: Decimal, x: unknown): string {
  const words = x as Uint32Array;
  let v = 0n;
  for (let k = words.length - 1; k >= 0; k--) v = (v << 32n) | BigInt(words[k]!);
  v = BigInt.asIntN(t.bitWidth, v);
  return formatDecimal(v, t.scale);
}

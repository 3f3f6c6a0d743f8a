/**
 * The binary format of each type, as PostgreSQL's send/receive functions write and read it
 * (int2send, float8send, numeric_send, date_send, timestamp_send, uuid_send, jsonb_send, …).
 * All integers are big-endian. Dates count days and timestamps microseconds from 2000-01-01,
 * PostgreSQL's epoch; paxd's values count from 1970-01-01.
 *
 *   encodeBinary({ id: 'int4' }, 7)                 // <00 00 00 07>
 *   encodeBinary({ id: 'numeric' }, '-12.50')       // ndigits 2, weight 0, sign 0x4000, dscale 2, digits 12 5000
 *   decodeBinary({ id: 'date' }, <00 00 00 00>)     // 10957 (2000-01-01)
 *
 *   numeric:  int16 ndigits, int16 weight, uint16 sign (0 +, 0x4000 -, 0xC000 NaN,
 *             0xD000 +Infinity, 0xF000 -Infinity), int16 dscale, int16 digit × ndigits (base 10000)
 *   interval: int64 microseconds, int32 days, int32 months
 *   jsonb:    int8 version (1), then the text
 *   T[]:      array_send (arrayfuncs.c), one-dimensional:
 *             offset 0   int32  ndim (0 for an empty array, else 1)
 *                    4   int32  flags: 1 if some element is NULL
 *                    8   uint32 element type OID
 *                    12  int32  length of the dimension, int32 its lower bound (1)   (ndim 1 only)
 *                    20  per element: int32 length (-1 = NULL), then its binary bytes
 */
import { PaxdError, formatDecimal, formatArrayText, formatText, parseArrayText, parseText, featureNotSupported, type PgType, type TimeZone, type Value, UTC, unreachable, SQLSTATE, charByte, vectorElements } from '../../types/index.js';
import { typeOid } from './oids.js';

/** Days and microseconds from 1970-01-01 to 2000-01-01. */
const EPOCH_DAYS = 10957;
const EPOCH_US = 946_684_800_000_000n;

/**
 * ±infinity go over the wire as the integer extremes themselves (datatype/timestamp.h:
 * DATEVAL_NOBEGIN/NOEND, DT_NOBEGIN/NOEND), not shifted by the epoch; paxd keeps them the
 * same way (src/types/text-io.ts).
 */
const DATE_NOBEGIN = -2147483648;
const DATE_NOEND = 2147483647;
const TS_NOBEGIN = -(2n ** 63n);
const TS_NOEND = 2n ** 63n - 1n;
/** date_recv's IS_VALID_DATE, in days since 1970: Julian day 0 .. 2147483494 (exclusive). */
const DATE_MIN = -2440588;
const DATE_END = 2147483494 - 2440588;
/** timestamp_recv's IS_VALID_TIMESTAMP (µs since 2000); paxd's int64 since 1970 ends at TS_NOEND, before PostgreSQL's end. */
const TS_MIN_PG = -211813488000000000n;

/** 22008, as date_recv and timestamp_recv report a value outside the type's range. */
function outOfRange(type: PgType): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.datetime_field_overflow, type.id === 'date' ? 'date out of range' : 'timestamp out of range');
}

const NUMERIC_SIGN = { pos: 0x0000, neg: 0x4000, nan: 0xc000, pinf: 0xd000, ninf: 0xf000 } as const;
const INFINITY_DSCALE = 0x20;

/** 22P03, as PostgreSQL's receive functions report a value of the wrong shape. */
function badBinary(type: PgType, why: string): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.invalid_binary_representation, `incorrect binary data format for type ${type.id}: ${why}`);
}

/** A non-NULL value in the binary format of `type`. */
export function encodeBinary(type: PgType, v: Value): Buffer {
  switch (type.id) {
    case 'int2': {
      const b = Buffer.allocUnsafe(2);
      b.writeInt16BE(Number(v));
      return b;
    }
    case 'int4': {
      const b = Buffer.allocUnsafe(4);
      b.writeInt32BE(Number(v));
      return b;
    }
    case 'int8': {
      const b = Buffer.allocUnsafe(8);
      b.writeBigInt64BE(BigInt(v as bigint | number));
      return b;
    }
    case 'float4': {
      const b = Buffer.allocUnsafe(4);
      b.writeFloatBE(v as number);
      return b;
    }
    case 'float8': {
      const b = Buffer.allocUnsafe(8);
      b.writeDoubleBE(v as number);
      return b;
    }
    case 'bool':
      return Buffer.from([v ? 1 : 0]);
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'json':
      return Buffer.from(v as string, 'utf8');
    case 'jsonb':
      return Buffer.concat([Buffer.from([1]), Buffer.from(v as string, 'utf8')]);
    case 'bytea':
    case 'uuid': {
      const u = v as Uint8Array;
      return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
    }
    case 'date': {
      const d = v as number;
      const b = Buffer.allocUnsafe(4);
      b.writeInt32BE(d === DATE_NOBEGIN || d === DATE_NOEND ? d : d - EPOCH_DAYS);
      return b;
    }
    case 'timestamp':
    case 'timestamptz': {
      const us = v as bigint;
      const b = Buffer.allocUnsafe(8);
      b.writeBigInt64BE(us === TS_NOBEGIN || us === TS_NOEND ? us : us - EPOCH_US);
      return b;
    }
    case 'numeric':
      return encodeNumeric(typeof v === 'string' ? v : formatDecimal(v as bigint, type.scale ?? 0));
    case 'interval': {
      const u = v as Uint8Array;
      const le = Buffer.from(u.buffer, u.byteOffset, 16);
      const b = Buffer.allocUnsafe(16);
      b.writeBigInt64BE(le.readBigInt64LE(0), 0);
      b.writeInt32BE(le.readInt32LE(8), 8);
      b.writeInt32BE(le.readInt32LE(12), 12);
      return b;
    }
    case 'oid':
    case 'xid': {
      const b = Buffer.allocUnsafe(4);
      b.writeUInt32BE(Number(v));
      return b;
    }
    case 'regclass':
    case 'regtype':
    case 'regproc':
    case 'regprocedure':
    case 'regnamespace':
    case 'regrole':
    case 'regoper': {
      // A result column of a reg* type carries the names its output prints (src/engine/catalog/names.ts).
      if (typeof v === 'string') throw featureNotSupported(`binary output of ${type.id} (ask for text, or cast to oid)`);
      const b = Buffer.allocUnsafe(4);
      b.writeUInt32BE(Number(v));
      return b;
    }
    case 'name':
      return Buffer.from(v as string, 'utf8');
    case 'char':
      return Buffer.from([charByte(v as string)]);
    case 'int2vector':
    case 'oidvector':
      return encodeVector(type.id, v as string);
    case 'array':
      return encodeArray(type.element!, v as string);
    default:
      return unreachable(type.id);
  }
}

/**
 * A parameter in the binary format of `type`, as paxd's value; 22P03 for a wrong shape. `zone`
 * is the session's: an array's value is its text, whose timestamptz elements print in it.
 */
export function decodeBinary(type: PgType, b: Buffer, zone: TimeZone = UTC): Value {
  const size = (n: number) => {
    if (b.byteLength !== n) throw badBinary(type, `${b.byteLength} bytes, expected ${n}`);
  };
  switch (type.id) {
    case 'int2':
      size(2);
      return b.readInt16BE(0);
    case 'int4':
      size(4);
      return b.readInt32BE(0);
    case 'int8':
      size(8);
      return b.readBigInt64BE(0);
    case 'float4':
      size(4);
      return b.readFloatBE(0);
    case 'float8':
      size(8);
      return b.readDoubleBE(0);
    case 'bool':
      size(1);
      return b[0] !== 0;
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'json':
      return parseText(type, b.toString('utf8'));
    case 'jsonb':
      if (b.byteLength < 1 || b[0] !== 1) throw badBinary(type, `unsupported jsonb version number ${b[0] ?? 'none'}`);
      return parseText(type, b.toString('utf8', 1));
    case 'bytea':
      return new Uint8Array(b);
    case 'uuid':
      size(16);
      return new Uint8Array(b);
    case 'date': {
      size(4);
      const raw = b.readInt32BE(0);
      if (raw === DATE_NOBEGIN || raw === DATE_NOEND) return raw;
      const d = raw + EPOCH_DAYS;
      if (d < DATE_MIN || d >= DATE_END) throw outOfRange(type);
      return d;
    }
    case 'timestamp':
    case 'timestamptz': {
      size(8);
      const raw = b.readBigInt64BE(0);
      if (raw === TS_NOBEGIN || raw === TS_NOEND) return raw;
      const us = raw + EPOCH_US;
      if (raw < TS_MIN_PG || us >= TS_NOEND) throw outOfRange(type);
      return us;
    }
    case 'numeric':
      return parseText(type, decodeNumeric(type, b));
    case 'interval': {
      size(16);
      const out = Buffer.allocUnsafe(16);
      out.writeBigInt64LE(b.readBigInt64BE(0), 0);
      out.writeInt32LE(b.readInt32BE(8), 8);
      out.writeInt32LE(b.readInt32BE(12), 12);
      return new Uint8Array(out);
    }
    case 'oid':
    case 'xid':
    case 'regclass':
    case 'regtype':
    case 'regproc':
    case 'regprocedure':
    case 'regnamespace':
    case 'regrole':
    case 'regoper':
      size(4);
      return BigInt(b.readUInt32BE(0));
    case 'name':
      return parseText(type, b.toString('utf8'));
    case 'char':
      size(1);
      return parseText(type, b[0]! >= 0x80 ? `\\${b[0]!.toString(8)}` : b.toString('latin1'));
    case 'int2vector':
    case 'oidvector':
      return decodeVector(type, b);
    case 'array':
      return decodeArray(type, b, zone);
    default:
      return unreachable(type.id);
  }
}

/**
 * int2vectorsend / oidvectorsend: array_send of a one-dimensional array whose lower bound is 0
 * (the catalogs' vectors count from 0), elements int2 or oid.
 */
function encodeVector(id: 'int2vector' | 'oidvector', text: string): Buffer {
  const items = vectorElements(text);
  const width = id === 'oidvector' ? 4 : 2;
  const b = Buffer.alloc(20 + items.length * (4 + width));
  b.writeInt32BE(1, 0);
  b.writeInt32BE(0, 4);
  b.writeInt32BE(id === 'oidvector' ? 26 : 21, 8);
  b.writeInt32BE(items.length, 12);
  b.writeInt32BE(0, 16);
  let off = 20;
  for (const x of items) {
    off = b.writeInt32BE(width, off);
    off = width === 4 ? b.writeUInt32BE(x, off) : b.writeInt16BE(x, off);
  }
  return b;
}

/** int2vectorrecv / oidvectorrecv: the layout above, one dimension from 0, no NULLs. */
function decodeVector(type: PgType, b: Buffer): string {
  const oid = type.id === 'oidvector';
  if (b.byteLength < 12) throw badBinary(type, `${b.byteLength} bytes, expected at least 12`);
  const ndim = b.readInt32BE(0);
  if (ndim === 0) return '';
  if (ndim !== 1 || b.byteLength < 20 || b.readInt32BE(4) !== 0 || b.readUInt32BE(8) !== (oid ? 26 : 21) || b.readInt32BE(16) !== 0) throw badBinary(type, 'invalid vector header');
  const n = b.readInt32BE(12);
  const width = oid ? 4 : 2;
  if (b.byteLength !== 20 + n * (4 + width)) throw badBinary(type, `${b.byteLength} bytes, expected ${20 + n * (4 + width)}`);
  const out: number[] = [];
  for (let i = 0, off = 20; i < n; i++, off += 4 + width) {
    if (b.readInt32BE(off) !== width) throw badBinary(type, 'invalid vector element length');
    out.push(oid ? b.readUInt32BE(off + 4) : b.readInt16BE(off + 4));
  }
  return out.join(' ');
}

/** array_send of an array's text (the engine's value): each element in its own binary format. */
function encodeArray(element: PgType, text: string): Buffer {
  const elements = parseArrayText(text).map((e) => (e === null ? null : encodeBinary(element, parseText(element, e))));
  const ndim = elements.length === 0 ? 0 : 1;
  const head = Buffer.alloc(12 + 8 * ndim);
  head.writeInt32BE(ndim, 0);
  head.writeInt32BE(elements.includes(null) ? 1 : 0, 4);
  head.writeUInt32BE(typeOid(element), 8);
  if (ndim === 1) {
    head.writeInt32BE(elements.length, 12);
    head.writeInt32BE(1, 16);
  }
  const parts: Buffer[] = [head];
  for (const e of elements) {
    const len = Buffer.allocUnsafe(4);
    len.writeInt32BE(e === null ? -1 : e.byteLength);
    parts.push(len);
    if (e !== null) parts.push(e);
  }
  return Buffer.concat(parts);
}

/** array_recv of a one-dimensional array with lower bound 1, as the engine's text; 22P03 for a wrong shape. */
function decodeArray(type: PgType, b: Buffer, zone: TimeZone): string {
  const element = type.element!;
  if (b.byteLength < 12) throw badBinary(type, `${b.byteLength} bytes, expected at least 12`);
  const ndim = b.readInt32BE(0);
  const flags = b.readInt32BE(4);
  const oid = b.readUInt32BE(8);
  if (ndim < 0) throw badBinary(type, `invalid number of dimensions: ${ndim}`);
  if (ndim > 1) throw featureNotSupported('multidimensional arrays');
  if (flags !== 0 && flags !== 1) throw badBinary(type, 'invalid array flags');
  if (oid !== typeOid(element)) throw new PaxdError('invalid_input', SQLSTATE.datatype_mismatch, `binary data has array element type ${oid} instead of expected ${typeOid(element)}`);
  if (ndim === 0) return '{}';
  if (b.byteLength < 20) throw badBinary(type, `${b.byteLength} bytes, expected at least 20`);
  const n = b.readInt32BE(12);
  if (b.readInt32BE(16) !== 1) throw featureNotSupported('arrays whose lower bound is not 1');
  const out: (string | null)[] = [];
  let off = 20;
  for (let i = 0; i < n; i++) {
    if (off + 4 > b.byteLength) throw badBinary(type, 'insufficient data left in message');
    const len = b.readInt32BE(off);
    off += 4;
    if (len === -1) {
      out.push(null);
      continue;
    }
    if (len < 0 || off + len > b.byteLength) throw badBinary(type, 'insufficient data left in message');
    out.push(formatText(element, decodeBinary(element, b.subarray(off, off + len)), zone));
    off += len;
  }
  if (off !== b.byteLength) throw badBinary(type, 'incorrect binary data format in array element');
  return formatArrayText(out);
}

/** numeric_send of a decimal string ('-12.50', 'NaN', 'Infinity'). */
export function encodeNumeric(s: string): Buffer {
  const special = s === 'NaN' ? NUMERIC_SIGN.nan : s === 'Infinity' ? NUMERIC_SIGN.pinf : s === '-Infinity' ? NUMERIC_SIGN.ninf : null;
  // PostgreSQL 15's numeric_send writes dscale 0 for NaN and 32 for ±Infinity (measured:
  // test/pgwire/binary-special.test.ts compares the bytes).
  if (special !== null) return numericHeader(0, 0, special, special === NUMERIC_SIGN.nan ? 0 : INFINITY_DSCALE);
  const neg = s.startsWith('-');
  const body = neg || s.startsWith('+') ? s.slice(1) : s;
  const [intPart = '', fracPart = ''] = body.split('.');
  const dscale = fracPart.length;
  // Groups of four digits: the integer part aligned from the right, the fraction from the left.
  const intDigits = intPart.replace(/^0+/, '');
  const intPadded = intDigits.padStart(Math.ceil(intDigits.length / 4) * 4, '0');
  const fracPadded = fracPart.padEnd(Math.ceil(fracPart.length / 4) * 4, '0');
  const groups: number[] = [];
  for (let i = 0; i < intPadded.length; i += 4) groups.push(Number(intPadded.slice(i, i + 4)));
  let weight = groups.length - 1;
  for (let i = 0; i < fracPadded.length; i += 4) groups.push(Number(fracPadded.slice(i, i + 4)));
  while (groups.length > 0 && groups[0] === 0) {
    groups.shift();
    weight--;
  }
  while (groups.length > 0 && groups[groups.length - 1] === 0) groups.pop();
  if (groups.length === 0) weight = 0;
  const b = numericHeader(groups.length, weight, neg && groups.length > 0 ? NUMERIC_SIGN.neg : NUMERIC_SIGN.pos, dscale);
  groups.forEach((g, i) => b.writeInt16BE(g, 8 + 2 * i));
  return b;
}

function numericHeader(ndigits: number, weight: number, sign: number, dscale: number): Buffer {
  const b = Buffer.alloc(8 + 2 * ndigits);
  b.writeInt16BE(ndigits, 0);
  b.writeInt16BE(weight, 2);
  b.writeUInt16BE(sign, 4);
  b.writeInt16BE(dscale, 6);
  return b;
}

/** numeric_recv: the decimal string of a binary numeric. */
export function decodeNumeric(type: PgType, b: Buffer): string {
  if (b.byteLength < 8) throw badBinary(type, `${b.byteLength} bytes, expected at least 8`);
  const ndigits = b.readInt16BE(0);
  const weight = b.readInt16BE(2);
  const sign = b.readUInt16BE(4);
  const dscale = b.readInt16BE(6);
  if (ndigits < 0 || b.byteLength !== 8 + 2 * ndigits || dscale < 0) throw badBinary(type, 'invalid length in external "numeric" value');
  if (sign === NUMERIC_SIGN.nan) return 'NaN';
  if (sign === NUMERIC_SIGN.pinf) return 'Infinity';
  if (sign === NUMERIC_SIGN.ninf) return '-Infinity';
  if (sign !== NUMERIC_SIGN.pos && sign !== NUMERIC_SIGN.neg) throw badBinary(type, 'invalid sign in external "numeric" value');
  const digits: number[] = [];
  for (let i = 0; i < ndigits; i++) {
    const d = b.readInt16BE(8 + 2 * i);
    if (d < 0 || d > 9999) throw badBinary(type, 'invalid digit in external "numeric" value');
    digits.push(d);
  }
  let int = '';
  for (let w = 0; w <= weight; w++) int += String(digits[w] ?? 0).padStart(4, '0');
  let frac = '';
  for (let i = Math.max(0, weight + 1); i < ndigits; i++) frac += String(digits[i]).padStart(4, '0');
  if (weight < -1) frac = '0000'.repeat(-weight - 1) + frac;
  int = int.replace(/^0+/, '') || '0';
  frac = frac.slice(0, dscale).padEnd(dscale, '0');
  return (sign === NUMERIC_SIGN.neg ? '-' : '') + int + (dscale > 0 ? '.' + frac : '');
}

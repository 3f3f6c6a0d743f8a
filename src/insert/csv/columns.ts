/**
 * The buffers of one column of the batch being built, in Arrow layout (../../types/column.ts),
 * written by index by the field parsers of ./fields.ts.
 *
 * Validity starts all set and parsers clear the bit of a NULL; booleans start all clear and
 * parsers set true ones. A block re-parsed after it rejected rows first calls resetRange().
 */
import type { Column, Value, Values } from '../../types/column.js';
import { popcount } from '../../types/column.js';
import { type Field, type Physical, physicalOf } from '../../types/type.js';
import { intervalNotStorable } from '../../types/interval.js';
import { unreachable } from '../../types/errors.js';

/** How the fast paths treat a column (anything without a fast path is Generic: parseText). */
export const enum Kind {
  Int2,
  Int4,
  Int8,
  Float4,
  Float8,
  Bool,
  Decimal,
  Date,
  Timestamp,
  Timestamptz,
  Text,
  Varchar,
  Bpchar,
  Generic,
}

export function kindOf(f: Field): Kind {
  const t = f.type;
  switch (t.id) {
    case 'int2':
      return Kind.Int2;
    case 'int4':
      return Kind.Int4;
    case 'int8':
      return Kind.Int8;
    case 'float4':
      return Kind.Float4;
    case 'float8':
      return Kind.Float8;
    case 'bool':
      return Kind.Bool;
    case 'numeric':
      return t.precision !== undefined && (t.scale ?? 0) >= 0 ? Kind.Decimal : Kind.Generic;
    case 'date':
      return Kind.Date;
    case 'timestamp':
      return Kind.Timestamp;
    case 'timestamptz':
      return Kind.Timestamptz;
    case 'text':
      return Kind.Text;
    case 'varchar':
      return t.length === undefined ? Kind.Text : Kind.Varchar;
    case 'bpchar':
      return t.length === undefined ? Kind.Text : Kind.Bpchar;
    case 'bytea':
    case 'uuid':
    case 'jsonb':
      return Kind.Generic;
    case 'interval':
      return intervalNotStorable('kindOf');
    default:
      return unreachable(t.id);
  }
}

export class ColumnBuffer {
  readonly field: Field;
  /** Index of the column in the table. */
  readonly index: number;
  /** 1-based position of the column in the input, or 0 when the input lacks it. */
  readonly inputPos: number;
  readonly kind: Kind;
  readonly phys: Physical;
  readonly capacity: number;
  readonly validity: Uint8Array;
  /** i16 values. */
  readonly i16: Int16Array | null = null;
  /** i32 values; for i64 and fixed16 a view of their words (little-endian halves). */
  readonly i32: Int32Array | null = null;
  readonly i64: BigInt64Array | null = null;
  readonly f32: Float32Array | null = null;
  readonly f64: Float64Array | null = null;
  /** bit-packed booleans, or the bytes of fixed16 values. */
  readonly bytes: Uint8Array | null = null;
  readonly offsets: Int32Array | null = null;
  data: Buffer;
  dataLen = 0;

  constructor(field: Field, index: number, inputPos: number, capacity: number, dataHint: number) {
    this.field = field;
    this.index = index;
    this.inputPos = inputPos;
    this.kind = kindOf(field);
    this.phys = physicalOf(field.type);
    this.capacity = capacity;
    this.validity = new Uint8Array((capacity + 7) >>> 3).fill(0xff);
    this.data = EMPTY;
    switch (this.phys) {
      case 'i16':
        this.i16 = new Int16Array(capacity);
        break;
      case 'i32':
        this.i32 = new Int32Array(capacity);
        break;
      case 'i64': {
        const ab = new ArrayBuffer(capacity * 8);
        this.i32 = new Int32Array(ab);
        this.i64 = new BigInt64Array(ab);
        break;
      }
      case 'f32':
        this.f32 = new Float32Array(capacity);
        break;
      case 'f64':
        this.f64 = new Float64Array(capacity);
        break;
      case 'bit':
        this.bytes = new Uint8Array((capacity + 7) >>> 3);
        break;
      case 'fixed16': {
        const ab = new ArrayBuffer(capacity * 16);
        this.bytes = new Uint8Array(ab);
        this.i32 = new Int32Array(ab);
        break;
      }
      case 'var':
        this.offsets = new Int32Array(capacity + 1);
        this.data = Buffer.allocUnsafeSlow(Math.max(64, dataHint));
        break;
    }
  }

  /** Makes room for `extra` more bytes of var-width data. */
  ensureData(extra: number): Buffer {
    if (this.dataLen + extra > this.data.length) {
      let n = this.data.length * 2;
      while (n < this.dataLen + extra) n *= 2;
      const nb = Buffer.allocUnsafeSlow(n);
      this.data.copy(nb, 0, 0, this.dataLen);
      this.data = nb;
    }
    return this.data;
  }

  /** Row o is NULL: clear its bit, zero its value. */
  setNull(o: number): void {
    this.validity[o >>> 3]! &= ~(1 << (o & 7));
    switch (this.phys) {
      case 'i16':
        this.i16![o] = 0;
        break;
      case 'i32':
        this.i32![o] = 0;
        break;
      case 'i64':
        this.i32![2 * o] = 0;
        this.i32![2 * o + 1] = 0;
        break;
      case 'f32':
        this.f32![o] = 0;
        break;
      case 'f64':
        this.f64![o] = 0;
        break;
      case 'bit':
        this.bytes![o >>> 3]! &= ~(1 << (o & 7));
        break;
      case 'fixed16':
        this.bytes!.fill(0, o * 16, o * 16 + 16);
        break;
      case 'var':
        this.offsets![o + 1] = this.dataLen;
        break;
    }
  }

  /** Row o holds `v`, a value in paxd's scalar representation (what parseText returns). */
  writeValue(o: number, v: Value): void {
    if (v === null) return this.setNull(o);
    switch (this.phys) {
      case 'i16':
        this.i16![o] = v as number;
        break;
      case 'i32':
        this.i32![o] = v as number;
        break;
      case 'i64':
        this.i64![o] = v as bigint;
        break;
      case 'f32':
        this.f32![o] = v as number;
        break;
      case 'f64':
        this.f64![o] = v as number;
        break;
      case 'bit':
        if (v) this.bytes![o >>> 3]! |= 1 << (o & 7);
        else this.bytes![o >>> 3]! &= ~(1 << (o & 7));
        break;
      case 'fixed16':
        if (typeof v === 'bigint') {
          const i = o * 4;
          const w = this.i32!;
          w[i] = Number(BigInt.asIntN(32, v));
          w[i + 1] = Number(BigInt.asIntN(32, v >> 32n));
          w[i + 2] = Number(BigInt.asIntN(32, v >> 64n));
          w[i + 3] = Number(BigInt.asIntN(32, v >> 96n));
        } else this.bytes!.set(v as Uint8Array, o * 16);
        break;
      case 'var': {
        if (typeof v === 'string') {
          const d = this.ensureData(v.length * 3);
          this.dataLen += d.write(v, this.dataLen, 'utf8');
        } else {
          const b = v as Uint8Array;
          const d = this.ensureData(b.length);
          d.set(b, this.dataLen);
          this.dataLen += b.length;
        }
        this.offsets![o + 1] = this.dataLen;
        break;
      }
    }
  }

  /** Before rows [from, to) are written again: validity set, booleans clear, data cut back. */
  resetRange(from: number, to: number): void {
    for (let o = from; o < to; o++) this.validity[o >>> 3]! |= 1 << (o & 7);
    if (this.phys === 'bit') for (let o = from; o < to; o++) this.bytes![o >>> 3]! &= ~(1 << (o & 7));
    if (this.phys === 'var') this.dataLen = this.offsets![from]!;
  }

  /** The first `length` rows as a Column (views, no copy). */
  finish(length: number): Column {
    const nbytes = (length + 7) >>> 3;
    let validity: Uint8Array | null = this.validity.subarray(0, nbytes);
    const valid = popcount(validity, length);
    if (valid === length) validity = null;
    let values: Values;
    let offsets: Int32Array | null = null;
    let data: Uint8Array | null = null;
    switch (this.phys) {
      case 'i16':
        values = this.i16!.subarray(0, length);
        break;
      case 'i32':
        values = this.i32!.subarray(0, length);
        break;
      case 'i64':
        values = this.i64!.subarray(0, length);
        break;
      case 'f32':
        values = this.f32!.subarray(0, length);
        break;
      case 'f64':
        values = this.f64!.subarray(0, length);
        break;
      case 'bit':
        values = this.bytes!.subarray(0, nbytes);
        break;
      case 'fixed16':
        values = this.bytes!.subarray(0, length * 16);
        break;
      case 'var': {
        offsets = this.offsets!.subarray(0, length + 1);
        const d = this.data.subarray(0, this.dataLen);
        data = new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
        values = data;
        break;
      }
    }
    return { type: this.field.type, length, nullCount: length - valid, validity, values, offsets, data };
  }
}

const EMPTY = Buffer.alloc(0);

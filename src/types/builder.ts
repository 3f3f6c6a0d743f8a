/**
 * The column builder: a column's buffers in Arrow layout (./column.ts), filled two ways.
 *
 * - Appending (`append`, `appendNull`, then `finish()`): value-at-a-time inputs, tests,
 *   statistics; the buffers grow as needed and `finish()` returns an exact copy and starts over.
 * - Writing by index (`writeValue(o, v)`, `setNull(o)`, or straight into the typed arrays, then
 *   `finishAt(length)`): the bulk readers (../insert/csv, ../insert/ndjson) size a builder for
 *   a whole batch, write row o directly, and take the first rows as views (no copy).
 *
 * Validity starts all set and a NULL clears its bit; booleans start all clear. A range written
 * again (a block re-parsed without its rejected rows) first calls resetRange().
 *
 *   const b = new ColumnBuilder({ id: 'int4' });
 *   b.append(1); b.appendNull(); b.finish();   // { length: 2, nullCount: 1, values: Int32Array [1, 0], … }
 */
import type { Column, Value, Values } from './column.js';
import { popcount } from './column.js';
import { unreachable } from './errors.js';
import type { PgType, Physical } from './type.js';
import { physicalOf } from './kind.js';

export class ColumnBuilder {
  readonly type: PgType;
  readonly phys: Physical;
  /** Rows the buffers hold. */
  capacity = 0;
  validity: Uint8Array = EMPTY;
  /** i16 values. */
  i16: Int16Array | null = null;
  /** i32 values; for i64 and fixed16 a view of their words (little-endian halves). */
  i32: Int32Array | null = null;
  i64: BigInt64Array | null = null;
  f32: Float32Array | null = null;
  f64: Float64Array | null = null;
  /** Bit-packed booleans, or the bytes of fixed16 values. */
  bytes: Uint8Array | null = null;
  offsets: Int32Array | null = null;
  /** Var-width data; `dataLen` bytes of it are used. */
  data: Buffer = EMPTY_BUFFER;
  dataLen = 0;
  /** Rows appended (append mode). */
  private len = 0;

  constructor(type: PgType, capacity = 1024, dataHint = capacity * 8) {
    this.type = type;
    this.phys = physicalOf(type);
    this.allocate(Math.max(8, capacity), dataHint);
  }

  /** Rows appended so far. */
  get length(): number {
    return this.len;
  }

  /** Approximate bytes buffered so far (append mode). */
  get byteSize(): number {
    const n = this.len;
    const v = (n + 7) >>> 3;
    switch (this.phys) {
      case 'var':
        return v + n * 4 + this.dataLen;
      case 'bit':
        return v + v;
      case 'i16':
        return v + n * 2;
      case 'i32':
      case 'f32':
        return v + n * 4;
      case 'i64':
      case 'f64':
        return v + n * 8;
      case 'fixed16':
        return v + n * 16;
      default:
        return unreachable(this.phys);
    }
  }

  /** Fresh buffers for `capacity` rows, keeping rows [0, keep) of the old ones. */
  private allocate(capacity: number, dataHint: number, keep = 0): void {
    const old = { validity: this.validity, i16: this.i16, i32: this.i32, f32: this.f32, f64: this.f64, bytes: this.bytes, offsets: this.offsets };
    this.capacity = capacity;
    const validity = new Uint8Array((capacity + 7) >>> 3).fill(0xff);
    if (keep > 0) validity.set(old.validity.subarray(0, (keep + 7) >>> 3));
    this.validity = validity;
    switch (this.phys) {
      case 'i16':
        this.i16 = grown(new Int16Array(capacity), old.i16, keep);
        break;
      case 'i32':
        this.i32 = grown(new Int32Array(capacity), old.i32, keep);
        break;
      case 'i64': {
        const ab = new ArrayBuffer(capacity * 8);
        this.i32 = grown(new Int32Array(ab), old.i32, keep * 2);
        this.i64 = new BigInt64Array(ab);
        break;
      }
      case 'f32':
        this.f32 = grown(new Float32Array(capacity), old.f32, keep);
        break;
      case 'f64':
        this.f64 = grown(new Float64Array(capacity), old.f64, keep);
        break;
      case 'bit':
        this.bytes = grown(new Uint8Array((capacity + 7) >>> 3), old.bytes, (keep + 7) >>> 3);
        break;
      case 'fixed16': {
        const ab = new ArrayBuffer(capacity * 16);
        this.bytes = grown(new Uint8Array(ab), old.bytes, keep * 16);
        this.i32 = new Int32Array(ab);
        break;
      }
      case 'var':
        this.offsets = grown(new Int32Array(capacity + 1), old.offsets, keep + 1);
        if (keep === 0) {
          this.data = Buffer.allocUnsafeSlow(Math.max(64, dataHint));
          this.dataLen = 0;
        }
        break;
    }
  }

  // ---- writing by index ----

  /** Makes room for `extra` more bytes of var-width data. */
  ensureData(extra: number): Buffer {
    if (this.dataLen + extra > this.data.length) {
      let n = Math.max(64, this.data.length * 2);
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

  /** Row o holds `v`, a value in paxd's scalar representation (see Value in ./column.ts). */
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

  /** The first `length` rows as a Column: views of the buffers, no copy (write-by-index mode). */
  finishAt(length: number): Column {
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
    return { type: this.type, length, nullCount: length - valid, validity, values, offsets, data };
  }

  // ---- appending ----

  appendNull(): void {
    if (this.len === this.capacity) this.allocate(this.capacity * 2, 0, this.len);
    this.setNull(this.len++);
  }

  /** Appends a value in paxd's scalar representation (see Value in ./column.ts). */
  append(v: Value): void {
    if (this.len === this.capacity) this.allocate(this.capacity * 2, 0, this.len);
    this.writeValue(this.len++, v);
  }

  /** The appended rows as a Column of their own (an exact copy); the builder starts over. */
  finish(): Column {
    const n = this.len;
    const c = this.finishAt(n);
    const validity = c.validity === null ? null : c.validity.slice();
    // Bits past the last row are left clear, as a fresh bitmap has them.
    if (validity !== null && (n & 7) !== 0) validity[validity.length - 1]! &= (1 << (n & 7)) - 1;
    const data = c.data === null ? null : c.data.slice();
    let values: Values;
    if (data !== null) values = data;
    else if (this.phys === 'bit') {
      const bits = (c.values as Uint8Array).slice();
      if ((n & 7) !== 0) bits[bits.length - 1]! &= (1 << (n & 7)) - 1;
      values = bits;
    } else values = c.values.slice();
    const col: Column = { ...c, validity, values, offsets: c.offsets === null ? null : c.offsets.slice(), data };
    this.len = 0;
    this.dataLen = 0;
    this.validity.fill(0xff);
    this.bytes?.fill(0);
    return col;
  }
}

const EMPTY = new Uint8Array(0);
const EMPTY_BUFFER = Buffer.alloc(0);

/** `fresh` with the first `keep` elements of `old`. */
function grown<T extends Int16Array | Int32Array | Float32Array | Float64Array | Uint8Array>(fresh: T, old: T | null, keep: number): T {
  if (old !== null && keep > 0) fresh.set(old.subarray(0, keep) as never);
  return fresh;
}

/** Reads row i of a column back as a scalar Value (slow path: tests, statistics output). */
export function getValue(c: Column, i: number): Value {
  if (c.validity !== null && (c.validity[i >>> 3]! & (1 << (i & 7))) === 0) return null;
  switch (physicalOf(c.type)) {
    case 'i16':
    case 'i32':
    case 'f32':
    case 'f64':
      return (c.values as Int32Array)[i]!;
    case 'i64':
      return (c.values as BigInt64Array)[i]!;
    case 'bit':
      return ((c.values as Uint8Array)[i >>> 3]! & (1 << (i & 7))) !== 0;
    case 'fixed16': {
      const b = c.values as Uint8Array;
      if (c.type.id === 'uuid') return b.slice(i * 16, i * 16 + 16);
      const dv = new DataView(b.buffer, b.byteOffset + i * 16, 16);
      return (dv.getBigInt64(8, true) << 64n) | dv.getBigUint64(0, true);
    }
    case 'var': {
      const bytes = c.data!.subarray(c.offsets![i], c.offsets![i + 1]);
      return c.type.id === 'bytea' ? bytes.slice() : dec.decode(bytes);
    }
  }
}

const dec = new TextDecoder('utf-8', { ignoreBOM: true }); // a leading U+FEFF is part of the value

/** Builds a column from an array of values (tests, small inputs). */
export function columnOf(type: PgType, values: readonly Value[]): Column {
  const b = new ColumnBuilder(type, values.length);
  for (const v of values) b.append(v);
  return b.finish();
}

/**
 * Growable column builders: append values (or NULLs) and finish into a Column.
 * Used outside the hottest paths (tests, value-at-a-time input); bulk inputs fill typed
 * arrays directly.
 */
import type { Column, Value, Values } from './column.js';
import { type PgType, physicalOf, byteWidth } from './type.js';

const enc = new TextEncoder();

export class ColumnBuilder {
  readonly type: PgType;
  private readonly phys;
  private len = 0;
  private nulls = 0;
  private validity: Uint8Array;
  private fixed: Uint8Array; // fixed-width values, or bit-packed booleans
  private offsets: Int32Array;
  private data: Uint8Array;
  private dataLen = 0;
  private readonly width: number;

  constructor(type: PgType, capacity = 1024) {
    this.type = type;
    this.phys = physicalOf(type);
    this.width = byteWidth(this.phys);
    const cap = Math.max(8, capacity);
    this.validity = new Uint8Array((cap + 7) >>> 3);
    this.fixed = new Uint8Array(this.phys === 'bit' ? (cap + 7) >>> 3 : this.width * cap);
    this.offsets = new Int32Array(this.phys === 'var' ? cap + 1 : 1);
    this.data = new Uint8Array(this.phys === 'var' ? cap * 8 : 0);
  }

  get length(): number {
    return this.len;
  }

  /** Approximate bytes buffered so far. */
  get byteSize(): number {
    return ((this.len + 7) >>> 3) + (this.phys === 'var' ? this.len * 4 + this.dataLen : this.phys === 'bit' ? (this.len + 7) >>> 3 : this.len * this.width);
  }

  private grow(): void {
    const cap = this.validity.length * 8;
    const ncap = cap * 2;
    this.validity = copyInto(new Uint8Array(ncap >>> 3), this.validity);
    if (this.phys === 'bit') this.fixed = copyInto(new Uint8Array(ncap >>> 3), this.fixed);
    else if (this.phys === 'var') {
      const o = new Int32Array(ncap + 1);
      o.set(this.offsets);
      this.offsets = o;
    } else this.fixed = copyInto(new Uint8Array(ncap * this.width), this.fixed);
  }

  private ensureData(extra: number): void {
    if (this.dataLen + extra <= this.data.length) return;
    let n = Math.max(64, this.data.length * 2);
    while (n < this.dataLen + extra) n *= 2;
    this.data = copyInto(new Uint8Array(n), this.data.subarray(0, this.dataLen));
  }

  appendNull(): void {
    if (this.len === this.validity.length * 8) this.grow();
    if (this.phys === 'var') this.offsets[this.len + 1] = this.dataLen;
    this.len++;
    this.nulls++;
  }

  /** Appends a value in paxd's scalar representation (see Value in ./column.ts). */
  append(v: Value): void {
    if (v === null) return this.appendNull();
    if (this.len === this.validity.length * 8) this.grow();
    const i = this.len;
    this.validity[i >>> 3]! |= 1 << (i & 7);
    const dv = new DataView(this.fixed.buffer, this.fixed.byteOffset, this.fixed.byteLength);
    switch (this.phys) {
      case 'i16':
        dv.setInt16(i * 2, v as number, true);
        break;
      case 'i32':
        dv.setInt32(i * 4, v as number, true);
        break;
      case 'i64':
        dv.setBigInt64(i * 8, v as bigint, true);
        break;
      case 'f32':
        dv.setFloat32(i * 4, v as number, true);
        break;
      case 'f64':
        dv.setFloat64(i * 8, v as number, true);
        break;
      case 'bit':
        if (v) this.fixed[i >>> 3]! |= 1 << (i & 7);
        break;
      case 'fixed16':
        if (typeof v === 'bigint') {
          dv.setBigUint64(i * 16, BigInt.asUintN(64, v), true);
          dv.setBigUint64(i * 16 + 8, BigInt.asUintN(64, v >> 64n), true);
        } else this.fixed.set(v as Uint8Array, i * 16);
        break;
      case 'var': {
        const bytes = typeof v === 'string' ? enc.encode(v) : (v as Uint8Array);
        this.ensureData(bytes.length);
        this.data.set(bytes, this.dataLen);
        this.dataLen += bytes.length;
        this.offsets[i + 1] = this.dataLen;
        break;
      }
    }
    this.len++;
  }

  finish(): Column {
    const n = this.len;
    const validity = this.nulls === 0 ? null : this.validity.slice(0, (n + 7) >>> 3);
    let values: Values;
    let offsets: Int32Array | null = null;
    let data: Uint8Array | null = null;
    switch (this.phys) {
      case 'i16':
        values = new Int16Array(this.fixed.slice(0, n * 2).buffer);
        break;
      case 'i32':
        values = new Int32Array(this.fixed.slice(0, n * 4).buffer);
        break;
      case 'i64':
        values = new BigInt64Array(this.fixed.slice(0, n * 8).buffer);
        break;
      case 'f32':
        values = new Float32Array(this.fixed.slice(0, n * 4).buffer);
        break;
      case 'f64':
        values = new Float64Array(this.fixed.slice(0, n * 8).buffer);
        break;
      case 'bit':
        values = this.fixed.slice(0, (n + 7) >>> 3);
        break;
      case 'fixed16':
        values = this.fixed.slice(0, n * 16);
        break;
      case 'var':
        offsets = this.offsets.slice(0, n + 1);
        data = this.data.slice(0, this.dataLen);
        values = data;
        break;
    }
    const col: Column = { type: this.type, length: n, nullCount: this.nulls, validity, values, offsets, data };
    this.len = 0;
    this.nulls = 0;
    this.dataLen = 0;
    this.validity.fill(0);
    if (this.phys === 'bit') this.fixed.fill(0);
    this.offsets[0] = 0;
    return col;
  }
}

function copyInto(dst: Uint8Array, src: Uint8Array): Uint8Array {
  dst.set(src);
  return dst;
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

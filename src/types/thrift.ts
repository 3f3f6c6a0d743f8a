/**
 * A generic Thrift compact-protocol codec, just enough to read a Parquet footer
 * (FileMetaData), patch some fields and write it back: Parquet input (src/insert/parquet-footer.ts)
 * and the export's stitcher (src/export/stitch.ts), so it lives here, below both. Every struct is decoded into a list of
 * fields, keeping fields paxd does not know, so that re-encoding an unpatched footer gives
 * back the same bytes. Footers come from users' files: every read is bounds-checked and a
 * malformed one is a ThriftError (or a RangeError from a too-deep nesting), never a hang.
 *
 * Compact protocol (https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md):
 *
 *   field header   1 byte  [delta:4 | type:4]         delta = id - previous id, 1..15
 *                  or      [0:4 | type:4] zigzag-varint i16 id
 *   stop           1 byte  0x00
 *   bool field     the value is the type nibble: 1 = true, 2 = false
 *   i8             1 byte;  i16/i32/i64: zigzag varint;  double: 8 bytes LE
 *   binary         varint length, then the bytes
 *   list/set       1 byte  [size:4 | elemType:4] (size < 15), or [0xF:4 | elemType:4] varint size
 *                  (bools in a list: one byte each, 1 = true)
 *   map            varint size, then (size > 0) 1 byte [keyType:4 | valueType:4]
 */

export const T = {
  STOP: 0,
  TRUE: 1,
  FALSE: 2,
  I8: 3,
  I16: 4,
  I32: 5,
  I64: 6,
  DOUBLE: 7,
  BINARY: 8,
  LIST: 9,
  SET: 10,
  MAP: 11,
  STRUCT: 12,
} as const;

/** A decoded value: i8/i16/i32 as number, i64 as bigint, double as a tagged number. */
export type TValue = boolean | number | bigint | TDouble | Uint8Array | TList | TMap | TStruct;

export interface TDouble {
  readonly double: number;
}

export interface TList {
  /** LIST or SET. */
  kind: 9 | 10;
  elemType: number;
  items: TValue[];
}

export interface TMap {
  kind: 11;
  keyType: number;
  valueType: number;
  entries: [TValue, TValue][];
}

export interface TField {
  id: number;
  /** Compact type code; for bools TRUE (the value lives in `value`). */
  type: number;
  value: TValue;
}

export interface TStruct {
  fields: TField[];
}

/** A decoding failure: the footer is not what a Parquet writer produces. */
export class ThriftError extends Error {}

// ---- decode ----

export function decodeStruct(bytes: Uint8Array, offset = 0): { struct: TStruct; end: number } {
  const r = new Reader(bytes, offset);
  const struct = r.struct();
  return { struct, end: r.pos };
}

class Reader {
  constructor(
    private readonly b: Uint8Array,
    public pos: number,
  ) {}

  private byte(): number {
    if (this.pos >= this.b.length) throw new ThriftError(`thrift: unexpected end at offset ${this.pos}`);
    return this.b[this.pos++]!;
  }

  private varint(): bigint {
    let shift = 0n;
    let v = 0n;
    for (;;) {
      const x = this.byte();
      v |= BigInt(x & 0x7f) << shift;
      if ((x & 0x80) === 0) return v;
      shift += 7n;
      if (shift > 70n) throw new ThriftError(`thrift: varint too long at offset ${this.pos}`);
    }
  }

  private zigzag(): bigint {
    const v = this.varint();
    return (v >> 1n) ^ -(v & 1n);
  }

  struct(): TStruct {
    const fields: TField[] = [];
    let last = 0;
    for (;;) {
      const h = this.byte();
      if (h === T.STOP) return { fields };
      const type = h & 0x0f;
      const delta = h >> 4;
      const id = delta === 0 ? Number(this.zigzag()) : last + delta;
      last = id;
      if (type === T.TRUE || type === T.FALSE) fields.push({ id, type: T.TRUE, value: type === T.TRUE });
      else fields.push({ id, type, value: this.value(type) });
    }
  }

  value(type: number): TValue {
    switch (type) {
      case T.TRUE:
      case T.FALSE:
        return this.byte() === 1; // inside a list
      case T.I8: {
        const x = this.byte();
        return x > 127 ? x - 256 : x;
      }
      case T.I16:
      case T.I32:
        return Number(this.zigzag());
      case T.I64:
        return this.zigzag();
      case T.DOUBLE: {
        const dv = new DataView(this.b.buffer, this.b.byteOffset + this.pos, 8);
        this.pos += 8;
        return { double: dv.getFloat64(0, true) };
      }
      case T.BINARY: {
        const n = Number(this.varint());
        if (this.pos + n > this.b.length) throw new ThriftError(`thrift: binary of ${n} bytes past the end at offset ${this.pos}`);
        const v = this.b.subarray(this.pos, this.pos + n);
        this.pos += n;
        return v;
      }
      case T.LIST:
      case T.SET: {
        const h = this.byte();
        const elemType = h & 0x0f;
        const size = h >> 4 === 15 ? Number(this.varint()) : h >> 4;
        const items: TValue[] = [];
        for (let i = 0; i < size; i++) items.push(this.value(elemType));
        return { kind: type, elemType, items };
      }
      case T.MAP: {
        const size = Number(this.varint());
        if (size === 0) return { kind: T.MAP, keyType: 0, valueType: 0, entries: [] };
        const kv = this.byte();
        const entries: [TValue, TValue][] = [];
        for (let i = 0; i < size; i++) entries.push([this.value(kv >> 4), this.value(kv & 0x0f)]);
        return { kind: T.MAP, keyType: kv >> 4, valueType: kv & 0x0f, entries };
      }
      case T.STRUCT:
        return this.struct();
      default:
        throw new ThriftError(`thrift: unknown type ${type} at offset ${this.pos - 1}`);
    }
  }
}

// ---- encode ----

export function encodeStruct(s: TStruct): Uint8Array {
  const w = new Writer();
  w.struct(s);
  return w.finish();
}

class Writer {
  private buf = new Uint8Array(4096);
  private pos = 0;

  finish(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  private byte(x: number): void {
    this.ensure(1);
    this.buf[this.pos++] = x & 0xff;
  }

  private varint(v: bigint): void {
    do {
      let x = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) x |= 0x80;
      this.byte(x);
    } while (v !== 0n);
  }

  private zigzag(v: bigint): void {
    this.varint(BigInt.asUintN(64, (v << 1n) ^ (v >> 63n)));
  }

  struct(s: TStruct): void {
    let last = 0;
    for (const f of s.fields) {
      const type = f.type === T.TRUE || f.type === T.FALSE ? (f.value === true ? T.TRUE : T.FALSE) : f.type;
      const delta = f.id - last;
      if (delta > 0 && delta <= 15) this.byte((delta << 4) | type);
      else {
        this.byte(type);
        this.zigzag(BigInt(f.id));
      }
      last = f.id;
      if (type !== T.TRUE && type !== T.FALSE) this.value(type, f.value);
    }
    this.byte(T.STOP);
  }

  value(type: number, v: TValue): void {
    switch (type) {
      case T.TRUE:
      case T.FALSE:
        this.byte(v === true ? 1 : 0);
        return;
      case T.I8:
        this.byte(v as number);
        return;
      case T.I16:
      case T.I32:
        this.zigzag(BigInt(v as number));
        return;
      case T.I64:
        this.zigzag(v as bigint);
        return;
      case T.DOUBLE: {
        this.ensure(8);
        new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).setFloat64(0, (v as TDouble).double, true);
        this.pos += 8;
        return;
      }
      case T.BINARY: {
        const b = v as Uint8Array;
        this.varint(BigInt(b.length));
        this.ensure(b.length);
        this.buf.set(b, this.pos);
        this.pos += b.length;
        return;
      }
      case T.LIST:
      case T.SET: {
        const l = v as TList;
        if (l.items.length < 15) this.byte((l.items.length << 4) | l.elemType);
        else {
          this.byte(0xf0 | l.elemType);
          this.varint(BigInt(l.items.length));
        }
        for (const x of l.items) this.value(l.elemType, x);
        return;
      }
      case T.MAP: {
        const m = v as TMap;
        this.varint(BigInt(m.entries.length));
        if (m.entries.length === 0) return;
        this.byte((m.keyType << 4) | m.valueType);
        for (const [k, x] of m.entries) {
          this.value(m.keyType, k);
          this.value(m.valueType, x);
        }
        return;
      }
      case T.STRUCT:
        this.struct(v as TStruct);
        return;
      default:
        throw new ThriftError(`thrift: cannot encode type ${type}`);
    }
  }
}

// ---- field access ----

export function field(s: TStruct, id: number): TValue | undefined {
  return s.fields.find((f) => f.id === id)?.value;
}

/** Sets (or adds, keeping ids ascending) field `id`. */
export function setField(s: TStruct, id: number, type: number, value: TValue): void {
  const i = s.fields.findIndex((f) => f.id === id);
  if (i >= 0) s.fields[i] = { id, type, value };
  else {
    let at = s.fields.findIndex((f) => f.id > id);
    if (at < 0) at = s.fields.length;
    s.fields.splice(at, 0, { id, type, value });
  }
}

export function removeField(s: TStruct, id: number): void {
  s.fields = s.fields.filter((f) => f.id !== id);
}

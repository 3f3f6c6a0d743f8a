/**
 * The bytes of a row in a spill run file (./run-file.ts): the engine's `Value`s (src/types
 * column.ts: null, number, bigint, boolean, string, Uint8Array) tagged one by one. A run file is
 * rows back to back; each row carries its byte length so that a reader can cut a chunk of the
 * file at a row boundary without decoding it.
 *
 *   row      u32 L (bytes after this field, little-endian), then the row's values in order
 *   value    u8 tag, then:
 *              0 NULL        —
 *              1 true        —
 *              2 false       —
 *              3 int32       i32            (a number that is a 32-bit integer, not -0)
 *              4 float64     f64            (every other number: -0, NaN, ±Infinity kept)
 *              5 int64       i64            (a bigint in the int64 range)
 *              6 bigint      u32 n, n bytes of its decimal text (outside int64: numeric sums)
 *              7 text        u32 n, n bytes of UTF-8
 *              8 bytes       u32 n, n bytes
 *
 * Not a storage format: written and read back by the same process within one statement, so
 * it has no magic, version or checksum (the pax format has those, docs/FORMAT.md).
 */
import type { Value } from '../../../types/index.js';

const TAG_NULL = 0;
const TAG_TRUE = 1;
const TAG_FALSE = 2;
const TAG_INT32 = 3;
const TAG_FLOAT64 = 4;
const TAG_INT64 = 5;
const TAG_BIGINT = 6;
const TAG_TEXT = 7;
const TAG_BYTES = 8;

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** Appends rows to a growing buffer; `take` hands the bytes so far over and starts again. */
export class RowEncoder {
  private buf: Buffer;
  private at = 0;

  constructor(initial = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initial);
  }

  /** Bytes encoded and not yet taken. */
  get length(): number {
    return this.at;
  }

  write(row: readonly Value[]): void {
    const start = this.at;
    this.room(4);
    this.at += 4;
    for (const v of row) this.value(v);
    this.buf.writeUInt32LE(this.at - start - 4, start);
  }

  /** The bytes encoded since the last take (a copy: the encoder reuses its buffer). */
  take(): Buffer {
    const out = Buffer.from(this.buf.subarray(0, this.at));
    this.at = 0;
    return out;
  }

  private value(v: Value): void {
    if (v === null) return this.tag(TAG_NULL);
    switch (typeof v) {
      case 'boolean':
        return this.tag(v ? TAG_TRUE : TAG_FALSE);
      case 'number':
        if ((v | 0) === v && !Object.is(v, -0)) {
          this.room(5);
          this.buf[this.at] = TAG_INT32;
          this.buf.writeInt32LE(v, this.at + 1);
          this.at += 5;
        } else {
          this.room(9);
          this.buf[this.at] = TAG_FLOAT64;
          this.buf.writeDoubleLE(v, this.at + 1);
          this.at += 9;
        }
        return;
      case 'bigint':
        if (v >= INT64_MIN && v <= INT64_MAX) {
          this.room(9);
          this.buf[this.at] = TAG_INT64;
          this.buf.writeBigInt64LE(v, this.at + 1);
          this.at += 9;
          return;
        }
        return this.text(TAG_BIGINT, v.toString());
      case 'string':
        return this.text(TAG_TEXT, v);
      default: {
        this.room(5 + v.byteLength);
        this.buf[this.at] = TAG_BYTES;
        this.buf.writeUInt32LE(v.byteLength, this.at + 1);
        this.buf.set(v, this.at + 5);
        this.at += 5 + v.byteLength;
      }
    }
  }

  private tag(t: number): void {
    this.room(1);
    this.buf[this.at++] = t;
  }

  private text(tag: number, s: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    this.room(5 + 3 * s.length);
    this.buf[this.at] = tag;
    const n = this.buf.write(s, this.at + 5, 'utf8');
    this.buf.writeUInt32LE(n, this.at + 1);
    this.at += 5 + n;
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.at + n) size *= 2;
    const b = Buffer.allocUnsafe(size);
    this.buf.copy(b, 0, 0, this.at);
    this.buf = b;
  }
}

/**
 * Decodes the whole rows of `buf` (each of `width` values) into `out`; returns the offset of
 * the first byte not decoded (the start of a row cut off by the end of the chunk).
 */
export function decodeRows(buf: Buffer, width: number, out: Value[][]): number {
  let at = 0;
  while (at + 4 <= buf.length) {
    const len = buf.readUInt32LE(at);
    if (at + 4 + len > buf.length) break;
    let p = at + 4;
    const row = new Array<Value>(width);
    for (let k = 0; k < width; k++) {
      const tag = buf[p++]!;
      switch (tag) {
        case TAG_NULL:
          row[k] = null;
          break;
        case TAG_TRUE:
          row[k] = true;
          break;
        case TAG_FALSE:
          row[k] = false;
          break;
        case TAG_INT32:
          row[k] = buf.readInt32LE(p);
          p += 4;
          break;
        case TAG_FLOAT64:
          row[k] = buf.readDoubleLE(p);
          p += 8;
          break;
        case TAG_INT64:
          row[k] = buf.readBigInt64LE(p);
          p += 8;
          break;
        case TAG_BIGINT:
        case TAG_TEXT: {
          const n = buf.readUInt32LE(p);
          const s = buf.toString('utf8', p + 4, p + 4 + n);
          row[k] = tag === TAG_TEXT ? s : BigInt(s);
          p += 4 + n;
          break;
        }
        case TAG_BYTES: {
          const n = buf.readUInt32LE(p);
          row[k] = new Uint8Array(buf.subarray(p + 4, p + 4 + n));
          p += 4 + n;
          break;
        }
        default:
          throw new Error(`spill row codec: tag ${tag} at offset ${p - 1} of a ${buf.length}-byte chunk`);
      }
    }
    if (p !== at + 4 + len) throw new Error(`spill row codec: a row of ${len} bytes decoded to ${p - at - 4} bytes (offset ${at})`);
    out.push(row);
    at += 4 + len;
  }
  return at;
}

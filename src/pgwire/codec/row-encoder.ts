/**
 * DataRow messages in text format straight from Arrow-layout columns (a streaming cursor's
 * batches, ./cursor.ts), with the bytes PostgreSQL's output functions print — exactly what
 * formatText gives for the engine's value of each slot, without making a value per slot: the
 * byte writers are the output functions' own (src/types: datetime.ts, text/uuid.ts,
 * text/bytea.ts, text/out.ts), which formatText reads back as strings. All the rows of one call go into one Buffer:
 *
 *   DataRow  offset size
 *            0      1    'D'
 *            1      4    int32 length: itself + 2 + Σ (4 + value bytes)
 *            5      2    int16 column count
 *            7      …    per column: int32 value length (-1 = NULL), then the value's bytes
 *
 * Two passes, each column by column with one loop per column kind (chosen once per encoder,
 * so a loop never dispatches on the type): the first measures every value (lengths kept in a
 * scratch array), the second writes at each row's running offset. Kinds and their text:
 *
 *   int2/int4       digits                     int8            digits (BigInt only past 2^53)
 *   text/varchar/   the stored UTF-8 bytes     bool            t / f
 *   bpchar/jsonb/                              bytea           \x + hex
 *   numeric (text)                             uuid            8-4-4-4-12 hex
 *   date            YYYY-MM-DD                 timestamp[tz]   YYYY-MM-DD HH:MM:SS[.ffffff][+00]
 *   anything else   formatText(type, getValue(…)) per value (floats, numeric(p,s))
 *
 * ±infinity dates and timestamps go through formatText. timestamptz prints as the local time
 * in the session's TimeZone (the encoder's `zone`) with that zone's offset at the instant
 * ("+02", "+05:30", "-04:56:02"), as timestamptz_out does.
 *
 * One concept in one file (over 600 lines): the measuring and writing loops of every kind are
 * written out one per kind, so that each stays monomorphic; they share the two-pass frame.
 */
import { endianness } from 'node:os';
import { type Batch, type Column, type PgType, type TimeZone, type Value, UTC, DATEVAL_NOBEGIN, DATEVAL_NOEND, UUID_TEXT_LENGTH, byteaTextLength, dateTextLength, digitCount, formatText, getValue, putDigits, timestampTextLength, unreachable, writeByteaText, writeDateText, writeTimestampText, writeUuidText, Kind, kindOf as typeKind } from '../../types/index.js';
import { BACKEND } from './constants.js';

/** One output column: the batch column it prints (-1: always NULL) and that column's stored type. */
export interface EncoderColumn {
  readonly source: number;
  readonly type: PgType;
}

/** Rows [from, to) of a batch's selected rows (positions in its selection vector, or rows). */
export interface Segment {
  readonly batch: Batch;
  readonly from: number;
  readonly to: number;
}

const K_NULL = 0;
const K_INT16 = 1;
const K_INT32 = 2;
const K_INT64 = 3;
const K_BOOL = 4;
const K_BYTES = 5;
const K_BYTEA = 6;
const K_DATE = 7;
const K_TIMESTAMP = 8;
const K_TIMESTAMPTZ = 9;
const K_UUID = 10;
const K_GENERIC = 11;

/** Reading an int64 as two int32 halves needs the low half first. */
const LITTLE_ENDIAN = endianness() === 'LE';

/** The encoder's loop for a column, from the type's kind (../types/kind.ts). */
function kindOf(c: EncoderColumn): number {
  if (c.source < 0) return K_NULL;
  const k = typeKind(c.type);
  switch (k) {
    case Kind.Int2:
      return K_INT16;
    case Kind.Int4:
      return K_INT32;
    case Kind.Int8:
      return LITTLE_ENDIAN ? K_INT64 : K_GENERIC;
    case Kind.Bool:
      return K_BOOL;
    case Kind.Text:
    case Kind.Varchar:
    case Kind.Bpchar:
    case Kind.Jsonb:
    case Kind.Json:
    case Kind.NumericText: // stored as its exact text, which the engine prints as it is
    case Kind.Array: // array_out's text (src/types/array.ts)
      return K_BYTES;
    case Kind.Name:
    case Kind.Char:
    case Kind.Vector:
      return K_BYTES;
    case Kind.Oid: // digits, or a reg* value's name (src/types/text-io.ts)
      return K_GENERIC;
    case Kind.Bytea:
      return K_BYTEA;
    case Kind.Date:
      return K_DATE;
    case Kind.Timestamp:
      return LITTLE_ENDIAN ? K_TIMESTAMP : K_GENERIC;
    case Kind.Timestamptz:
      return LITTLE_ENDIAN ? K_TIMESTAMPTZ : K_GENERIC;
    case Kind.Uuid:
      return K_UUID;
    case Kind.Float4:
    case Kind.Float8:
    case Kind.Decimal128:
    case Kind.Interval:
      return K_GENERIC;
    default:
      return unreachable(k);
  }
}

/** An int64 whose high half is in [-2^21, 2^21) is a safe integer as a double. */
const SAFE_HI = 2097152;
const TWO32 = 4294967296;

/** Copies shorter than this are a byte loop (no view object); longer ones are TypedArray.set. */
const SHORT_COPY = 48;

/** Bytes per slab (a session keeps one); requests over an eighth of it get a buffer of their own. */
const SLAB_SIZE = 256 * 1024;

/**
 * Output buffers carved from 256 kB slabs, so that a FETCH's messages do not each need an
 * ArrayBuffer of their own (Buffer.allocUnsafe pools only requests under 4 kB). Memory is never
 * handed out twice: a slab is dropped when full, and freed once no buffer of it is referenced.
 */
export class Slab {
  private slab: Buffer | null = null;
  private at = 0;

  alloc(n: number): Buffer {
    if (n > SLAB_SIZE / 8) return Buffer.allocUnsafeSlow(n);
    if (this.slab === null || this.at + n > SLAB_SIZE) {
      this.slab = Buffer.allocUnsafeSlow(SLAB_SIZE);
      this.at = 0;
    }
    const b = this.slab.subarray(this.at, this.at + n);
    this.at = (this.at + n + 7) & ~7;
    return b;
  }
}

export class RowEncoder {
  private readonly kinds: Int8Array;
  private readonly sources: Int32Array;
  private readonly types: readonly PgType[];
  /** Per value of the current call, column-major: its byte length, -1 for NULL. */
  private lens = new Int32Array(0);
  /** Per row: its size, then (second pass) where its next value goes. */
  private pos = new Int32Array(0);
  /** Per column: values formatted as strings by the first pass (generic kinds, fallbacks); null when not. */
  private readonly strs: (string | null)[][];

  constructor(
    readonly columns: readonly EncoderColumn[],
    private readonly zone: TimeZone = UTC,
  ) {
    this.kinds = Int8Array.from(columns.map(kindOf));
    this.sources = Int32Array.from(columns.map((c) => c.source));
    this.types = columns.map((c) => c.type);
    this.strs = columns.map(() => []);
  }

  /** Rows in the segments. */
  static rows(segments: readonly Segment[]): number {
    let n = 0;
    for (const s of segments) n += s.to - s.from;
    return n;
  }

  /** The DataRow messages of every row of `segments`, in order, as one Buffer (from `alloc`). */
  encode(segments: readonly Segment[], alloc: (size: number) => Buffer = Buffer.allocUnsafe): Buffer {
    const n = RowEncoder.rows(segments);
    const ncols = this.kinds.length;
    if (n === 0) return Buffer.alloc(0);
    if (this.lens.length < n * ncols) this.lens = new Int32Array(Math.max(n * ncols, this.lens.length * 2));
    if (this.pos.length < n) this.pos = new Int32Array(Math.max(n, this.pos.length * 2));
    const lens = this.lens;
    const pos = this.pos;
    pos.fill(7 + 4 * ncols, 0, n);
    // Pass 1: lengths.
    for (let j = 0; j < ncols; j++) {
      const kind = this.kinds[j]!;
      const base = j * n;
      if (kind === K_NULL) {
        lens.fill(-1, base, base + n);
        continue;
      }
      let strs = this.strs[j]!;
      // Dense, never grown by setting length (that would make it a slow dictionary array).
      if (strs.length < n) this.strs[j] = strs = new Array<string | null>(Math.max(n, 2 * strs.length)).fill(null);
      let r = 0;
      for (const seg of segments) {
        const col = seg.batch.columns[this.sources[j]!]!;
        const sel = seg.batch.selection;
        switch (kind) {
          case K_INT16:
          case K_INT32:
            measureInt(col, sel, seg.from, seg.to, lens, base + r, pos, r);
            break;
          case K_INT64:
            measureInt64(col, sel, seg.from, seg.to, lens, base + r, pos, r, strs);
            break;
          case K_BOOL:
            measureFixed(col, sel, seg.from, seg.to, lens, base + r, pos, r, 1);
            break;
          case K_UUID:
            measureFixed(col, sel, seg.from, seg.to, lens, base + r, pos, r, UUID_TEXT_LENGTH);
            break;
          case K_BYTES:
            measureBytes(col, sel, seg.from, seg.to, lens, base + r, pos, r, false);
            break;
          case K_BYTEA:
            measureBytes(col, sel, seg.from, seg.to, lens, base + r, pos, r, true);
            break;
          case K_DATE:
            measureDate(col, sel, seg.from, seg.to, lens, base + r, pos, r, strs);
            break;
          case K_TIMESTAMP:
          case K_TIMESTAMPTZ:
            measureTimestamp(col, sel, seg.from, seg.to, lens, base + r, pos, r, strs, kind === K_TIMESTAMPTZ ? this.zone : null);
            break;
          default:
            measureGeneric(col, sel, seg.from, seg.to, lens, base + r, pos, r, strs, this.types[j]!, this.zone);
        }
        r += seg.to - seg.from;
      }
    }
    // Row headers; pos becomes each row's first value offset.
    let total = 0;
    for (let r = 0; r < n; r++) total += pos[r]!;
    const buf = alloc(total);
    let off = 0;
    for (let r = 0; r < n; r++) {
      const size = pos[r]!;
      buf[off] = BACKEND.dataRow;
      put32(buf, off + 1, size - 1);
      buf[off + 5] = ncols >>> 8;
      buf[off + 6] = ncols & 0xff;
      pos[r] = off + 7;
      off += size;
    }
    // Pass 2: values.
    for (let j = 0; j < ncols; j++) {
      const kind = this.kinds[j]!;
      const base = j * n;
      if (kind === K_NULL) {
        for (let r = 0; r < n; r++) {
          put32(buf, pos[r]!, -1);
          pos[r] = pos[r]! + 4;
        }
        continue;
      }
      const strs = this.strs[j]!;
      let r = 0;
      for (const seg of segments) {
        const col = seg.batch.columns[this.sources[j]!]!;
        const sel = seg.batch.selection;
        switch (kind) {
          case K_INT16:
          case K_INT32:
            writeInt(col, sel, seg.from, seg.to, lens, base + r, pos, r, buf);
            break;
          case K_INT64:
            writeInt64(col, sel, seg.from, seg.to, lens, base + r, pos, r, buf, strs);
            break;
          case K_BOOL:
            writeBool(col, sel, seg.from, seg.to, lens, base + r, pos, r, buf);
            break;
          case K_UUID:
            writeUuid(col, sel, seg.from, seg.to, lens, base + r, pos, r, buf);
            break;
          case K_BYTES:
            writeBytes(col, sel, seg.from, seg.to, lens, base + r, pos, r, buf);
            break;
          case K_BYTEA:
            writeBytea(col, sel, seg.from, seg.to, lens, base + r, pos, r, buf);
            break;
          case K_DATE:
            writeDate(col, sel, seg.from, seg.to, lens, base + r, pos, r, buf, strs);
            break;
          case K_TIMESTAMP:
          case K_TIMESTAMPTZ:
            writeTimestamp(col, sel, seg.from, seg.to, lens, base + r, pos, r, buf, strs, kind === K_TIMESTAMPTZ ? this.zone : null);
            break;
          default:
            writeStrings(lens, base + r, pos, r, seg.to - seg.from, buf, strs);
        }
        r += seg.to - seg.from;
      }
      // Drop the strings of this call (they were only needed between the passes).
      if (kind === K_INT64 || kind === K_DATE || kind === K_TIMESTAMP || kind === K_TIMESTAMPTZ || kind === K_GENERIC) for (let k = 0; k < n; k++) strs[k] = null;
    }
    return buf;
  }
}

function put32(buf: Buffer, off: number, v: number): void {
  buf[off] = v >>> 24;
  buf[off + 1] = (v >>> 16) & 0xff;
  buf[off + 2] = (v >>> 8) & 0xff;
  buf[off + 3] = v & 0xff;
}

function isNull(validity: Uint8Array | null, i: number): boolean {
  return validity !== null && (validity[i >>> 3]! & (1 << (i & 7))) === 0;
}

function measureInt(col: Column, sel: Uint32Array | null, from: number, to: number, lens: Int32Array, at: number, pos: Int32Array, r: number): void {
  const values = col.values as Int32Array | Int16Array;
  const validity = col.validity;
  for (let p = from; p < to; p++, at++, r++) {
    const i = sel === null ? p : sel[p]!;
    if (isNull(validity, i)) {
      lens[at] = -1;
      continue;
    }
    const v = values[i]!;
    const len = v < 0 ? 1 + digitCount(-v) : digitCount(v);
    lens[at] = len;
    pos[r] = pos[r]! + len;
  }
}

function writeInt(col: Column, sel: Uint32Array | null, from: number, to: number, lens: Int32Array, at: number, pos: Int32Array, r: number, buf: Buffer): void {
  const values = col.values as Int32Array | Int16Array;
  for (let p = from; p < to; p++, at++, r++) {
    const len = lens[at]!;
    const o = pos[r]!;
    put32(buf, o, len);
    if (len < 0) {
      pos[r] = o + 4;
      continue;
    }
    const v = values[sel === null ? p : sel[p]!]!;
    if (v < 0) {
      buf[o + 4] = 45; // '-'
      putDigits(buf, o + 4 + len, -v);
    } else putDigits(buf, o + 4 + len, v);
    pos[r] = o + 4 + len;
  }
}

function halvesOf(col: Column): Int32Array {
  const v = col.values as BigInt64Array;
  return new Int32Array(v.buffer, v.byteOffset, v.length * 2);
}

function measureInt64(col: Column, sel: Uint32Array | null, from: number, to: number, lens: Int32Array, at: number, pos: Int32Array, r: number, strs: (string | null)[]): void {
  const h = halvesOf(col);
  const validity = col.validity;
  for (let p = from; p < to; p++, at++, r++) {
    const i = sel === null ? p : sel[p]!;
    if (isNull(validity, i)) {
      lens[at] = -1;
      continue;
    }
    const hi = h[2 * i + 1]!;
    let len: number;
    if (hi >= -SAFE_HI && hi < SAFE_HI) {
      const v = hi * TWO32 + (h[2 * i]! >>> 0);
      len = v < 0 ? 1 + digitCount(-v) : digitCount(v);
    } else {
      const s = String((col.values as BigInt64Array)[i]!);
      strs[r] = s;
      len = s.length;
    }
    lens[at] = len;
    pos[r] = pos[r]! + len;
  }
}

function writeInt64(col: Column, sel: Uint32Array | null, from: number, to: number, lens: Int32Array, at: number, pos: Int32Array, r: number, buf: Buffer, strs: (string | null)[]): void {
  const h = halvesOf(col);
  for (let p = from; p < to; p++, at++, r++) {
    const len = lens[at]!;
    const o = pos[r]!;
    put32(buf, o, len);
    if (len < 0) {
      pos[r] = o + 4;
      continue;
    }
    const s = strs[r]!; // the measuring pass set every row's entry (string or null)
    if (s !== null) buf.write(s, o + 4, len, 'latin1');
    else {
      const i = sel === null ? p : sel[p]!;
      const v = h[2 * i + 1]! * TWO32 + (h[2 * i]! >>> 0);
      if (v < 0) {
        buf[o + 4] = 45;
        putDigits(buf, o + 4 + len, -v);
      } else putDigits(buf, o + 4 + len, v);
    }
    pos[r] = o + 4 + len;
  }
}

function measureFixed(col: Column, sel: Uint32Array | null, from: number, to: number, lens: Int32Array, at: number, pos: Int32Array, r: number, width: number): void {
  const validity = col.validity;
  for (let p = from; p < to; p++, at++, r++) {
    const i = sel === null ? p : sel[p]!;
    if (isNull(validity, i)) lens[at] = -1;
    else {
      lens[at] = width;
      pos[r] = pos[r]! + width;
    }
  }
}

function writeBool(col: Column, sel: Uint32Array | null, from: number, to: number, lens: Int32Array, at: number, pos: Int32Array, r: number, buf: Buffer): void {
  const bits = col.values as Uint8Array;
  for (let p = from; p < to; p++, at++, r++) {
    const len = lens[at]!;
    const o = pos[r]!;
    put32(buf, o, len);
    if (len < 0) {
      pos[r] = o + 4;
      continue;
    }
    const i = sel === null ? p : sel[p]!;
    buf[o + 4] = (bits[i >>> 3]! & (1 << (i & 7))) !== 0 ? 116 : 102; // 't' / 'f'
    pos[r] = o + 5;
  }
}

function writeUuid(col: Column, sel: Uint32Array | null, from: number, to: number, lens: Int32Array, at: number, pos: Int32Array, r: number, buf: Buffer): void {
  const b = col.values as Uint8Array;
  for (let p = from; p < to; p++, at++, r++) {
    const len = lens[at]!;
    let o = pos[r]!;
    put32(buf, o, len);
    o += 4;
    if (len >= 0) o = writeUuidText(buf, o, b, (sel === null ? p : sel[p]!) * 16);
    pos[r] = o;
  }
}

function measureBytes(col: Column, sel: Uint32Array | null, from: number, to: number, lens: Int32Array, at: number, pos: Int32Array, r: number, hex: boolean): void {
  const offsets = col.offsets!;
  const validity = col.validity;
  for (let p = from; p < to; p++, at++, r++) {
    const i = sel === null ? p : sel[p]!;
    if (isNull(validity, i)) {
      lens[at] = -1;
      continue;
    }
    const raw = offsets[i + 1]! - offsets[i]!;
    const len = hex ? byteaTextLength(raw) : raw;
    lens[at] = len;
    pos[r] = pos[r]! + len;
  }
}

function writeBytes(col: Column, sel: Uint32Array | null, from: number, to: number, lens: Int32Array, at: number, pos: Int32Array, r: number, buf: Buffer): void {
  const offsets = col.offsets!;
  const data = col.data!;
  for (let p = from; p < to; p++, at++, r++) {
    const len = lens[at]!;
    let o = pos[r]!;
    put32(buf, o, len);
    o += 4;
    if (len > 0) {
      const s = offsets[sel === null ? p : sel[p]!]!;
      if (len < SHORT_COPY) for (let k = 0; k < len; k++) buf[o + k] = data[s + k]!;
      else buf.set(data.subarray(s, s + len), o);
      o += len;
    }
    pos[r] = o;
  }
}

function writeBytea(col: Column, sel: Uint32Array | null, from: number, to: number, lens: Int32Array, at: number, pos: Int32Array, r: number, buf: Buffer): void {
  const offsets = col.offsets!;
  const data = col.data!;
  for (let p = from; p < to; p++, at++, r++) {
    const len = lens[at]!;
    let o = pos[r]!;
    put32(buf, o, len);
    o += 4;
    if (len >= 0) {
      const i = sel === null ? p : sel[p]!;
      o = writeByteaText(buf, o, data, offsets[i]!, offsets[i + 1]!);
    }
    pos[r] = o;
  }
}

function measureDate(col: Column, sel: Uint32Array | null, from: number, to: number, lens: Int32Array, at: number, pos: Int32Array, r: number, strs: (string | null)[]): void {
  const values = col.values as Int32Array;
  const validity = col.validity;
  for (let p = from; p < to; p++, at++, r++) {
    const i = sel === null ? p : sel[p]!;
    if (isNull(validity, i)) {
      lens[at] = -1;
      continue;
    }
    const d = values[i]!;
    let len: number;
    if (d === DATEVAL_NOEND || d === DATEVAL_NOBEGIN) {
      const s = formatText(col.type, d);
      strs[r] = s;
      len = s.length;
    } else len = dateTextLength(d);
    lens[at] = len;
    pos[r] = pos[r]! + len;
  }
}

function writeDate(col: Column, sel: Uint32Array | null, from: number, to: number, lens: Int32Array, at: number, pos: Int32Array, r: number, buf: Buffer, strs: (string | null)[]): void {
  const values = col.values as Int32Array;
  for (let p = from; p < to; p++, at++, r++) {
    const len = lens[at]!;
    const o = pos[r]!;
    put32(buf, o, len);
    if (len < 0) {
      pos[r] = o + 4;
      continue;
    }
    const s = strs[r]!;
    if (s !== null) buf.write(s, o + 4, len, 'latin1');
    else writeDateText(buf, o + 4, values[sel === null ? p : sel[p]!]!);
    pos[r] = o + 4 + len;
  }
}

/**
 * Seconds and microseconds (0..999999) of an int64 µs count given as int32 halves, exactly:
 * 2^32 = 4294·10^6 + 967296, so v = hi·4294·10^6 + (hi·967296 + lo), every term a safe integer.
 */
const split = new Float64Array(2); // [seconds, microseconds]
function splitMicros(hi: number, lo: number): void {
  const t = hi * 967296 + lo;
  let q = Math.floor(t / 1000000);
  let rem = t - q * 1000000;
  if (rem < 0) {
    q--;
    rem += 1000000;
  } else if (rem >= 1000000) {
    q++;
    rem -= 1000000;
  }
  split[0] = hi * 4294 + q;
  split[1] = rem;
}

function measureTimestamp(col: Column, sel: Uint32Array | null, from: number, to: number, lens: Int32Array, at: number, pos: Int32Array, r: number, strs: (string | null)[], tz: TimeZone | null): void {
  const h = halvesOf(col);
  const validity = col.validity;
  for (let p = from; p < to; p++, at++, r++) {
    const i = sel === null ? p : sel[p]!;
    if (isNull(validity, i)) {
      lens[at] = -1;
      continue;
    }
    const hi = h[2 * i + 1]!;
    const lo = h[2 * i]! >>> 0;
    let len: number;
    if (!isInfinity(hi, lo)) {
      splitMicros(hi, lo);
      len = timestampTextLength(split[0]!, split[1]!, tz);
    } else {
      const s = formatText(col.type, (col.values as BigInt64Array)[i]!);
      strs[r] = s;
      len = s.length;
    }
    lens[at] = len;
    pos[r] = pos[r]! + len;
  }
}

function writeTimestamp(col: Column, sel: Uint32Array | null, from: number, to: number, lens: Int32Array, at: number, pos: Int32Array, r: number, buf: Buffer, strs: (string | null)[], tz: TimeZone | null): void {
  const h = halvesOf(col);
  for (let p = from; p < to; p++, at++, r++) {
    const len = lens[at]!;
    let o = pos[r]!;
    put32(buf, o, len);
    o += 4;
    if (len < 0) {
      pos[r] = o;
      continue;
    }
    const s = strs[r]!;
    if (s !== null) {
      buf.write(s, o, len, 'latin1');
      pos[r] = o + len;
      continue;
    }
    const i = sel === null ? p : sel[p]!;
    splitMicros(h[2 * i + 1]!, h[2 * i]! >>> 0);
    pos[r] = writeTimestampText(buf, o, split[0]!, split[1]!, tz);
  }
}

/** Whether the int64 with halves hi, lo (lo unsigned) is ±infinity (INT64_MAX or INT64_MIN). */
function isInfinity(hi: number, lo: number): boolean {
  return (hi === 0x7fffffff && lo === 0xffffffff) || (hi === -0x80000000 && lo === 0);
}

function measureGeneric(col: Column, sel: Uint32Array | null, from: number, to: number, lens: Int32Array, at: number, pos: Int32Array, r: number, strs: (string | null)[], type: PgType, zone: TimeZone): void {
  for (let p = from; p < to; p++, at++, r++) {
    const v: Value = getValue(col, sel === null ? p : sel[p]!);
    if (v === null) {
      lens[at] = -1;
      strs[r] = null;
      continue;
    }
    const s = formatText(type, v, zone);
    strs[r] = s;
    const len = Buffer.byteLength(s, 'utf8');
    lens[at] = len;
    pos[r] = pos[r]! + len;
  }
}

function writeStrings(lens: Int32Array, at: number, pos: Int32Array, r: number, count: number, buf: Buffer, strs: (string | null)[]): void {
  for (let k = 0; k < count; k++, at++, r++) {
    const len = lens[at]!;
    const o = pos[r]!;
    put32(buf, o, len);
    if (len >= 0) buf.write(strs[r]!, o + 4, len, 'utf8');
    pos[r] = o + 4 + (len < 0 ? 0 : len);
  }
}

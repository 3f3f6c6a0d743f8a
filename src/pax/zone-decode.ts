/**
 * Decodes one zone back into an Arrow-layout Column, verifying everything on the way:
 * crc32 of the stored bytes, decompression, the decoded length the layout implies, the
 * NULL count against the bitmap, offsets (start at 0, non-decreasing, end at the data
 * length) and dictionary indices (< entries). Any failure is a corruption error naming the
 * file and the zone's offset; a decoder never returns values from bytes it did not verify.
 *
 * Decoded zone layout (see ./zone-encode.ts for the full drawing):
 *
 *   [validity ceil(n/8) | pad8]  only when nulls > 0
 *   plain fixed:  values n × width        plain bool: ceil(n/8) bit-packed
 *   plain var:    offsets (n+1) × i32 | data
 *   dict var:     dictOffsets (d+1) × i32 | indices n × u8/u16 | dict data
 *
 * That is format v1. Format v2 zones start with a zone header naming their scheme
 * (./encoding/header.ts); decodeZoneV2 checks it against the footer's `enc` and hands the body
 * to the scheme's decoder (./encoding/for.ts, rle.ts, dict.ts, plain.ts), each of which
 * validates what it reads. Every v2 zone decodes to the same Arrow-layout Column as v1 (int64,
 * decimal128, int32 offsets + bytes); dictionary zones carry their codes beside the bytes.
 *
 * Values are zero-copy typed-array views of the decompressed buffer when aligned (sections
 * start at multiples of 8 and decompressed buffers start at offset 0 of their own); otherwise
 * (zones stored 'none' inside an unaligned read buffer) the section is copied. Dictionary zones
 * are materialized to plain offsets + data. What a decoder produces goes into the ZoneMemory it
 * is given (./zone-memory.ts): fresh arrays, or a scan's reused buffers.
 */
import { crc32 } from 'node:zlib';
import { type Column, type Values, Kind, kindOf, popcount, checksumMismatch, corruption, unreachable, type PgType, type Physical, byteWidth, physicalOf } from '../types/index.js';
import { decompress } from './codec.js';
import type { ZoneJson } from './footer.js';
import { align8 } from './zone-encode.js';
import { ZONE_HEADER_BYTES, readZoneHeader } from './encoding/header.js';
import { type IntForm, decodeFor, zeroNulls } from './encoding/for.js';
import { decodeRle } from './encoding/rle.js';
import { decodeDict as decodeDictV2 } from './encoding/dict.js';
import { FRESH_MEMORY, Slot, type ZoneMemory } from './zone-memory.js';
import { decodePlainVar } from './encoding/plain.js';

/**
 * What decoding did, per process, for benchmarks and EXPLAIN-like reports: bytes that codecs
 * decompressed (lz4/zstd output, or the stored bytes of uncompressed zones) and values decoded,
 * per physical type. Counting costs an add per zone.
 */
export const decodeCounters = {
  zones: 0,
  /** Bytes of decoded zone (after decompression) per physical type. */
  decodedBytes: new Map<Physical, number>(),
  values: new Map<Physical, number>(),
  reset(): void {
    this.zones = 0;
    this.decodedBytes.clear();
    this.values.clear();
  },
};

function count(p: Physical, bytes: number, n: number): void {
  decodeCounters.zones++;
  decodeCounters.decodedBytes.set(p, (decodeCounters.decodedBytes.get(p) ?? 0) + bytes);
  decodeCounters.values.set(p, (decodeCounters.values.get(p) ?? 0) + n);
}

/**
 * Decodes one zone of a file (or block) of `format` (1: the v1 layouts; 2: a zone header first)
 * into `memory` (with reused buffers, the column is valid until the next zone decoded into them).
 */
export function decodeZone(stored: Uint8Array, z: ZoneJson, type: PgType, file: string, format: 1 | 2 = 1, memory: ZoneMemory = FRESH_MEMORY): Column {
  const actual = crc32(stored) >>> 0;
  if (actual !== z.crc) throw checksumMismatch('pax zone', file, z.offset, actual, z.crc);
  let buf: Uint8Array;
  try {
    buf = decompress(z.codec, stored, z.decoded, memory);
  } catch (e) {
    throw corruption(file, z.offset, `pax zone: ${z.codec} decompression failed: ${(e as Error).message}`);
  }
  // A plain Uint8Array view (lz4-napi and zstd-napi return Buffers): the decoders' loops then
  // see one array class, not two.
  if (Buffer.isBuffer(buf)) buf = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  const bad = (what: string) => corruption(file, z.offset, `pax zone: ${what}`);
  const n = z.rows;
  const p: Physical = physicalOf(type);
  count(p, buf.byteLength, n);
  if (format === 2) return decodeZoneV2(buf, z, type, p, bad, memory);
  const a = z.nulls > 0 ? align8((n + 7) >>> 3) : 0;
  let validity: Uint8Array | null = null;
  if (z.nulls > 0) {
    if (buf.byteLength < a) throw bad(`decoded ${buf.byteLength} bytes, shorter than its validity bitmap`);
    validity = buf.subarray(0, (n + 7) >>> 3);
    const present = popcount(validity, n);
    if (present !== n - z.nulls) throw bad(`validity bitmap has ${n - present} NULLs, expected ${z.nulls}`);
  }
  const expectLength = (len: number) => {
    if (buf.byteLength !== len) throw bad(`decoded length ${buf.byteLength}, expected ${len}`);
  };
  if (z.enc === 'dict') {
    if (p !== 'var') throw bad(`dictionary encoding for a ${type.id} column`);
    return decodeDict(buf, a, n, z, type, validity, bad, memory);
  }
  if (z.enc !== 'plain') throw bad(`unknown encoding ${String(z.enc)}`);
  switch (p) {
    case 'var': {
      const dataAt = a + 4 * (n + 1);
      if (buf.byteLength < dataAt) throw bad(`decoded length ${buf.byteLength}, shorter than ${n + 1} offsets`);
      const offsets = view(buf, a, n + 1, Int32Array);
      checkOffsets(offsets, n, buf.byteLength - dataAt, bad);
      const data = buf.subarray(dataAt);
      return { type, length: n, nullCount: z.nulls, validity, values: data, offsets, data };
    }
    case 'bit': {
      expectLength(a + ((n + 7) >>> 3));
      return { type, length: n, nullCount: z.nulls, validity, values: buf.subarray(a), offsets: null, data: null };
    }
    case 'i16':
    case 'i32':
    case 'i64':
    case 'f32':
    case 'f64':
    case 'fixed16': {
      const w = byteWidth(p);
      expectLength(a + n * w);
      const values: Values = p === 'fixed16' ? buf.subarray(a) : (view(buf, a, n, ARRAYS[p]) as Values);
      return { type, length: n, nullCount: z.nulls, validity, values, offsets: null, data: null };
    }
    default:
      return unreachable(p);
  }
}

type TypedCtor = Int16ArrayConstructor | Uint16ArrayConstructor | Int32ArrayConstructor | BigInt64ArrayConstructor | Float32ArrayConstructor | Float64ArrayConstructor;

const ARRAYS: Record<'i16' | 'i32' | 'i64' | 'f32' | 'f64', Int16ArrayConstructor | Int32ArrayConstructor | BigInt64ArrayConstructor | Float32ArrayConstructor | Float64ArrayConstructor> = {
  i16: Int16Array,
  i32: Int32Array,
  i64: BigInt64Array,
  f32: Float32Array,
  f64: Float64Array,
};

function view<C extends TypedCtor>(buf: Uint8Array, at: number, count: number, ctor: C): InstanceType<C> {
  const off = buf.byteOffset + at;
  const ab = buf.buffer as ArrayBuffer;
  if (off % ctor.BYTES_PER_ELEMENT === 0) return new ctor(ab, off, count) as InstanceType<C>;
  const copy = buf.slice(at, at + count * ctor.BYTES_PER_ELEMENT);
  return new ctor(copy.buffer, 0, count) as InstanceType<C>;
}

/** offsets[0] = 0, non-decreasing, offsets[n] = dataLength. */
function checkOffsets(o: Int32Array, n: number, dataLength: number, bad: (what: string) => Error): void {
  if (o[0] !== 0) throw bad(`first offset ${o[0]}, expected 0`);
  let prev = 0;
  for (let i = 1; i <= n; i++) {
    const x = o[i]!;
    if (x < prev) throw bad(`offset ${i} is ${x}, below offset ${i - 1} (${prev})`);
    prev = x;
  }
  if (prev !== dataLength) throw bad(`last offset ${prev}, expected the data length ${dataLength}`);
}

/** The common length of every dictionary entry, or -1 when they differ (bpchar(n) is the usual case). */
function fixedEntryLength(dOff: Int32Array, d: number): number {
  const len = dOff[1]! - dOff[0]!;
  for (let e = 1; e < d; e++) if (dOff[e + 1]! - dOff[e]! !== len) return -1;
  return len;
}

/** Materializes a NULL-free dictionary zone whose entries all have `len` bytes. */
function decodeFixedDict(
  idx: Uint8Array | Uint16Array,
  n: number,
  d: number,
  len: number,
  base: number,
  dd: Uint8Array,
  type: PgType,
  bad: (what: string) => Error,
  memory: ZoneMemory,
): Column {
  const offsets = memory.int32(Slot.Offsets, n + 1);
  const data = memory.bytes(Slot.Values, n * len);
  offsets[0] = 0;
  let pos = 0;
  for (let i = 0; i < n; i++) {
    const e = idx[i]!;
    if (e >= d) throw bad(`dictionary index ${e} at row ${i}, expected < ${d}`);
    let k = base + e * len;
    const end = pos + len;
    while (pos < end) data[pos++] = dd[k++]!;
    offsets[i + 1] = pos;
  }
  return { type, length: n, nullCount: 0, validity: null, values: data, offsets, data };
}

function decodeDict(
  buf: Uint8Array,
  a: number,
  n: number,
  z: ZoneJson,
  type: PgType,
  validity: Uint8Array | null,
  bad: (what: string) => Error,
  memory: ZoneMemory,
): Column {
  const d = z.dict;
  if (d === undefined || !Number.isInteger(d) || d < 1 || d > 65536) throw bad(`dictionary of ${String(d)} entries`);
  const w = d <= 256 ? 1 : 2;
  const b = a + 4 * (d + 1);
  const dataAt = b + n * w;
  if (buf.byteLength < dataAt) throw bad(`decoded length ${buf.byteLength}, shorter than ${d + 1} dictionary offsets and ${n} indices`);
  const dOff = view(buf, a, d + 1, Int32Array);
  const dd = buf.subarray(dataAt);
  checkOffsets(dOff, d, dd.byteLength, bad);
  const idx: Uint8Array | Uint16Array = w === 1 ? buf.subarray(b, b + n) : view(buf, b, n, Uint16Array);
  if (validity === null) {
    const fixed = fixedEntryLength(dOff, d);
    if (fixed >= 0) return decodeFixedDict(idx, n, d, fixed, dOff[0]!, dd, type, bad, memory);
  }
  // Sizes first (validating every index), then one allocation for the bytes.
  const offsets = memory.int32(Slot.Offsets, n + 1);
  offsets[0] = 0;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const e = idx[i]!;
    if (e >= d) throw bad(`dictionary index ${e} at row ${i}, expected < ${d}`);
    if (validity === null || (validity[i >>> 3]! & (1 << (i & 7))) !== 0) total += dOff[e + 1]! - dOff[e]!;
    offsets[i + 1] = total;
  }
  const data = memory.bytes(Slot.Values, total);
  for (let i = 0; i < n; i++) {
    let pos = offsets[i]!;
    const end = offsets[i + 1]!;
    if (pos === end) continue;
    const e = idx[i]!;
    let k = dOff[e]!;
    if (end - pos > 32) data.set(dd.subarray(k, k + end - pos), pos);
    else while (pos < end) data[pos++] = dd[k++]!;
  }
  return { type, length: n, nullCount: z.nulls, validity, values: data, offsets, data };
}

/** The FOR/RLE target form of a type, or null when those schemes cannot encode it. */
function intFormOf(type: PgType, p: Physical): IntForm | null {
  if (p === 'i16' || p === 'i32' || p === 'i64') return p;
  if (p === 'fixed16' && kindOf(type) === Kind.Decimal128) return 'fixed16';
  return null;
}

function decodeZoneV2(buf: Uint8Array, z: ZoneJson, type: PgType, p: Physical, bad: (what: string) => Error, memory: ZoneMemory): Column {
  const h = readZoneHeader(buf, bad);
  if (h.scheme !== z.enc) throw bad(`zone header says ${h.scheme}, the footer says ${z.enc}`);
  const n = z.rows;
  const vBytes = z.nulls > 0 ? (n + 7) >>> 3 : 0;
  const a = ZONE_HEADER_BYTES + align8(vBytes);
  if (buf.byteLength < a) throw bad(`decoded ${buf.byteLength} bytes, shorter than its header and validity bitmap`);
  let validity: Uint8Array | null = null;
  if (z.nulls > 0) {
    validity = buf.subarray(ZONE_HEADER_BYTES, ZONE_HEADER_BYTES + vBytes);
    const present = popcount(validity, n);
    if (present !== n - z.nulls) throw bad(`validity bitmap has ${n - present} NULLs, expected ${z.nulls}`);
  }
  const noParams = (what: string) => {
    if (h.width2 !== 0 || h.count !== 0) throw bad(`${what} zone header with width2 ${h.width2} and count ${h.count}, expected 0`);
  };
  switch (h.scheme) {
    case 'for':
    case 'rle': {
      const form = intFormOf(type, p);
      if (form === null) throw bad(`${h.scheme} encoding for a ${type.id} column`);
      let values: Values;
      if (h.scheme === 'for') {
        if (h.width2 !== 0) throw bad(`for zone header with width2 ${h.width2}, expected 0`);
        values = decodeFor(buf, a, n, h.width, h.count, form, bad, memory);
      } else values = decodeRle(buf, a, n, h.count, h.width, h.width2, form, bad, memory);
      if (validity !== null) zeroNulls(values, form, validity, n);
      return { type, length: n, nullCount: z.nulls, validity, values, offsets: null, data: null };
    }
    case 'dict': {
      if (p !== 'var') throw bad(`dictionary encoding for a ${type.id} column`);
      if (h.width2 !== 0) throw bad(`dict zone header with width2 ${h.width2}, expected 0`);
      if (z.dict !== h.count) throw bad(`zone header says ${h.count} dictionary entries, the footer says ${String(z.dict)}`);
      return decodeDictV2(buf, a, n, h.count, h.width, type, validity, z.nulls, bad, memory);
    }
    case 'plain': {
      noParams('plain');
      if (p === 'var') return decodePlainVar(buf, a, n, h.width, type, validity, z.nulls, bad, memory);
      if (h.width !== 0) throw bad(`plain zone header with width ${h.width}, expected 0`);
      const body = buf.subarray(a);
      if (p === 'bit') {
        if (body.byteLength !== (n + 7) >>> 3) throw bad(`decoded length ${buf.byteLength}, expected ${a + ((n + 7) >>> 3)}`);
        return { type, length: n, nullCount: z.nulls, validity, values: body, offsets: null, data: null };
      }
      const w = byteWidth(p);
      if (body.byteLength !== n * w) throw bad(`decoded length ${buf.byteLength}, expected ${a + n * w}`);
      const values: Values = p === 'fixed16' ? body : (view(buf, a, n, ARRAYS[p]) as Values);
      return { type, length: n, nullCount: z.nulls, validity, values, offsets: null, data: null };
    }
    default:
      return unreachable(h.scheme);
  }
}

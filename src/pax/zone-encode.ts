/**
 * Encodes rows [start, end) of a column into one zone: the decoded zone bytes below, then
 * compressed with the file's codec (stored 'none' when compression does not shrink them).
 *
 * Decoded zone layout (little-endian; every section starts at a multiple of 8 bytes from the
 * zone start, padding is zero; n = rows, V = validity present = the zone has NULLs):
 *
 *   plain, fixed width (int2 int4 int8 float4 float8 date timestamp[tz] decimal128 uuid)
 *     0          [V] validity  ceil(n/8) bytes, LSB first, bit set = not NULL   | pad8
 *     A          values        n × width (2, 4, 8 or 16)
 *   plain, bool
 *     0          [V] validity  ceil(n/8) | pad8
 *     A          values        ceil(n/8) bytes, bit-packed LSB first
 *   plain, var width (text varchar bpchar bytea jsonb numeric)
 *     0          [V] validity  ceil(n/8) | pad8
 *     A          offsets       (n+1) × int32, offsets[0] = 0, non-decreasing
 *     A+4(n+1)   data          offsets[n] bytes
 *   dict, var width (d = dictionary entries, 1 <= d <= 65536; w = 1 if d <= 256 else 2)
 *     0          [V] validity  ceil(n/8) | pad8
 *     A          dict offsets  (d+1) × int32, dictOffsets[0] = 0, non-decreasing
 *     B=A+4(d+1) indices       n × w bytes (u8 or u16), each < d; 0 for NULL rows
 *     B+n·w      dict data     dictOffsets[d] bytes
 *
 * A = align8(ceil(n/8)) when V, else 0. Bits past n in the last bitmap byte are zero.
 *
 * That is format v1. Format v2 (the default) puts an 8-byte zone header first and picks a
 * scheme per zone from the values (./encoding/header.ts has the drawing):
 *
 *   int2 int4 int8 date timestamp[tz] decimal128   for (./encoding/for.ts) or rle
 *                                                  (./encoding/rle.ts), whichever is smaller;
 *                                                  plain when neither beats it
 *   text varchar bpchar bytea jsonb numeric        dict (./encoding/dict.ts) when smaller, else
 *                                                  plain with bit-packed lengths (./encoding/plain.ts)
 *   float4 float8 bool uuid interval               plain (v1's body after the header)
 *
 * and then compresses with the file's codec only when that saves at least a fifth
 * (KEEP_COMPRESSED): bit-packed zones are mostly not worth decompressing.
 */
import { crc32 } from 'node:zlib';
import { type Column, Kind, type Physical, byteWidth, kindOf, physicalOf } from '../types/index.js';
import { type CodecName, compress } from './codec.js';
import { buildDictionary, dictLimit } from './dictionary.js';
import type { PaxFormat, ZoneEncoding } from './footer.js';
import { bitsFor } from './encoding/bitpack.js';
import { type IntForm, MAX_FOR_BITS, commonDivisor, encodeFor, forBytes } from './encoding/for.js';
import { countRuns, encodeRle, rleBytes } from './encoding/rle.js';
import { dictBytes, encodeDict } from './encoding/dict.js';
import { encodePlainVar, plainVarBytes } from './encoding/plain.js';
import { ZONE_HEADER_BYTES, type ZoneHeader, writeZoneHeader } from './encoding/header.js';

/**
 * The decoded bytes of a zone are built in one reused scratch buffer: allocating a fresh
 * 128 KiB array per zone costs more than the copy (page faults of a new mapping each time).
 * encodeZone is synchronous and hands out only copies or compressed output, so one buffer
 * per process suffices.
 */
let scratch = new Uint8Array(1 << 17);

function scratchOf(n: number): Uint8Array {
  if (scratch.byteLength < n) {
    let size = scratch.byteLength;
    while (size < n) size *= 2;
    scratch = new Uint8Array(size);
  }
  return scratch.subarray(0, n);
}

/** Like scratchOf, zeroed (bit-packed streams are OR-ed into place). */
function zeroedScratch(n: number): Uint8Array {
  const s = scratchOf(align8(n));
  s.fill(0);
  return s.subarray(0, n);
}

let numbers = new Float64Array(1 << 14);

export function align8(n: number): number {
  return (n + 7) & ~7;
}

export interface EncodedZone {
  /** The bytes to store (compressed, or the decoded bytes for codec 'none'). */
  readonly stored: Uint8Array;
  readonly decoded: number;
  readonly codec: CodecName;
  readonly enc: ZoneEncoding;
  readonly crc: number;
  readonly dict?: number;
}

/**
 * Whether to try a dictionary for a var-width zone. Decoding materializes a dictionary zone
 * into plain offsets and bytes, a byte-copy loop that is slower than lz4/zstd decompressing
 * plain data (measured on lineitem: full scans 1.75x faster without dictionaries of long
 * values, files 40% larger). So under a compressing codec only short values (average at most
 * DICT_MAX_AVG_BYTES, where the plain int32 offsets dominate the size and compress poorly) are
 * dictionary-encoded; without compression every low-cardinality zone is.
 */
export const DICT_MAX_AVG_BYTES = 8;

function useDictionary(offsets: Int32Array, start: number, end: number, nulls: number, codec: CodecName): boolean {
  if (codec === 'none') return true;
  const nonNull = end - start - nulls;
  return nonNull > 0 && offsets[end]! - offsets[start]! <= DICT_MAX_AVG_BYTES * nonNull;
}

/** Encodes rows [start, end) (start a multiple of 8) that hold `nulls` NULLs, in format v1 or v2. */
export function encodeZone(col: Column, start: number, end: number, nulls: number, codec: CodecName, format: PaxFormat = 2): EncodedZone {
  return format === 1 ? encodeZoneV1(col, start, end, nulls, codec) : encodeZoneV2(col, start, end, nulls, codec);
}

function encodeZoneV1(col: Column, start: number, end: number, nulls: number, codec: CodecName): EncodedZone {
  const n = end - start;
  const p: Physical = physicalOf(col.type);
  const vBytes = nulls > 0 ? (n + 7) >>> 3 : 0;
  const a = align8(vBytes);
  let raw: Uint8Array;
  let enc: ZoneEncoding = 'plain';
  let dictCount: number | undefined;
  if (p === 'var') {
    const offsets = col.offsets!;
    const data = col.data!;
    const dict = useDictionary(offsets, start, end, nulls, codec) ? buildDictionary(offsets, data, col.validity, start, end, dictLimit(n - nulls)) : null;
    if (dict !== null) {
      enc = 'dict';
      dictCount = dict.count;
      const w = dict.count <= 256 ? 1 : 2;
      let dictBytes = 0;
      for (let e = 0; e < dict.count; e++) dictBytes += dict.ends[e]! - dict.starts[e]!;
      const b = a + 4 * (dict.count + 1);
      raw = scratchOf(b + n * w + dictBytes);
      const dOff = new Int32Array(raw.buffer, a, dict.count + 1);
      let pos = b + n * w;
      for (let e = 0; e < dict.count; e++) {
        dOff[e] = pos - (b + n * w);
        raw.set(data.subarray(dict.starts[e], dict.ends[e]), pos);
        pos += dict.ends[e]! - dict.starts[e]!;
      }
      dOff[dict.count] = dictBytes;
      if (w === 1) for (let i = 0; i < n; i++) raw[b + i] = dict.indices[i]!;
      else new Uint16Array(raw.buffer, b, n).set(dict.indices);
    } else {
      const base = offsets[start]!;
      const dataLen = offsets[end]! - base;
      raw = scratchOf(a + 4 * (n + 1) + dataLen);
      const o = new Int32Array(raw.buffer, a, n + 1);
      for (let i = 0; i <= n; i++) o[i] = offsets[start + i]! - base;
      raw.set(data.subarray(base, base + dataLen), a + 4 * (n + 1));
    }
  } else if (p === 'bit') {
    raw = scratchOf(a + ((n + 7) >>> 3));
    copyBits(col.values as Uint8Array, start, n, raw, a);
  } else {
    const w = byteWidth(p);
    const v = col.values;
    raw = scratchOf(a + n * w);
    raw.set(new Uint8Array(v.buffer, v.byteOffset + start * w, n * w), a);
  }
  if (vBytes > 0) {
    copyBits(col.validity!, start, n, raw, 0);
    raw.fill(0, vBytes, a);
  }
  return finish(raw, codec, enc, dictCount, 1);
}

/**
 * A v2 zone keeps its compressed form only when it is at most this share of the encoded
 * bytes: below a fifth saved, decompressing costs a scan more than the bytes it saves.
 */
export const KEEP_COMPRESSED = 0.8;

function finish(raw: Uint8Array, codec: CodecName, enc: ZoneEncoding, dictCount: number | undefined, keep: number): EncodedZone {
  let stored: Uint8Array | null = null;
  let zoneCodec: CodecName = 'none';
  if (codec !== 'none') {
    const c = compress(codec, raw);
    if (c.byteLength < raw.byteLength * keep) {
      stored = c;
      zoneCodec = codec;
    }
  }
  if (stored === null) stored = raw.slice();
  const z: EncodedZone = { stored, decoded: raw.byteLength, codec: zoneCodec, enc, crc: crc32(stored) >>> 0 };
  return dictCount === undefined ? z : { ...z, dict: dictCount };
}

/** The integer-like form of a physical type that FOR and RLE apply to, or null. */
function intForm(col: Column, p: Physical): IntForm | null {
  switch (p) {
    case 'i16':
    case 'i32':
    case 'i64':
      return p;
    case 'fixed16':
      return kindOf(col.type) === Kind.Decimal128 ? 'fixed16' : null;
    default:
      return null;
  }
}

/**
 * Rows [start, start+n) as exact numbers in `numbers` (NULL rows repeat the previous value, so
 * they never start a run or widen the range), with min and max; null when a value is not a
 * safe integer (int8 or decimal beyond ±2^53: stored plain).
 */
function loadNumbers(col: Column, form: IntForm, start: number, n: number): { min: number; max: number } | null {
  if (numbers.length < n) numbers = new Float64Array(Math.max(n, numbers.length * 2));
  const out = numbers;
  const v = col.values;
  const validity = col.validity;
  let min = Infinity;
  let max = -Infinity;
  if (form === 'i16' || form === 'i32') {
    const a = v as Int16Array | Int32Array;
    for (let i = 0; i < n; i++) out[i] = a[start + i]!;
  } else {
    const stride = form === 'i64' ? 2 : 4;
    const bytes = (v.byteOffset & 3) === 0 ? v : (v as Uint8Array).slice();
    const w = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2);
    for (let i = 0, k = start * stride; i < n; i++, k += stride) {
      const hi = w[k + 1]!;
      // Beyond ±2^53, or a decimal128 whose upper words are not the sign of word 1.
      if (hi > 0x1fffff || hi < -0x200000 || (stride === 4 && (w[k + 2] !== hi >> 31 || w[k + 3] !== hi >> 31))) {
        if (validity === null || (validity[(start + i) >>> 3]! & (1 << ((start + i) & 7))) !== 0) return null;
        out[i] = 0;
        continue;
      }
      out[i] = hi * 4294967296 + (w[k]! >>> 0);
    }
  }
  let prev = NaN;
  for (let i = 0; i < n; i++) {
    if (validity !== null && (validity[(start + i) >>> 3]! & (1 << ((start + i) & 7))) === 0) {
      out[i] = prev;
      continue;
    }
    const x = out[i]!;
    if (x < min) min = x;
    if (x > max) max = x;
    if (prev !== prev) for (let j = 0; j < i; j++) out[j] = x; // leading NULLs take the first value
    prev = x;
  }
  if (min === Infinity) {
    out.fill(0, 0, n);
    return { min: 0, max: 0 };
  }
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || !Number.isSafeInteger(max - min)) return null;
  return { min, max };
}

/** Builds a v2 zone: header | [validity | pad8] | body, the body written by `body` at A. */
function v2Zone(col: Column, start: number, n: number, nulls: number, h: ZoneHeader, bodyBytes: number, body: (out: Uint8Array, at: number) => void): Uint8Array {
  const vBytes = nulls > 0 ? (n + 7) >>> 3 : 0;
  const a = ZONE_HEADER_BYTES + align8(vBytes);
  const raw = zeroedScratch(a + bodyBytes);
  writeZoneHeader(raw, h);
  if (vBytes > 0) copyBits(col.validity!, start, n, raw, ZONE_HEADER_BYTES);
  body(raw, a);
  return raw;
}

function encodeZoneV2(col: Column, start: number, end: number, nulls: number, codec: CodecName): EncodedZone {
  const n = end - start;
  const p: Physical = physicalOf(col.type);
  const form = intForm(col, p);
  if (form !== null && n > 0) {
    const range = loadNumbers(col, form, start, n);
    if (range !== null) {
      const w = bitsFor(range.max - range.min);
      const plainBytes = n * byteWidth(p);
      const runs = countRuns(numbers, n);
      const l = bitsFor(runs.longest - 1);
      // The decoders take a base only when base + (2^w − 1)·k stays exact: so do the encoders.
      const exact = (bits: number, k: number) => range.min + (2 ** bits - 1) * k <= Number.MAX_SAFE_INTEGER;
      const forSize = w <= MAX_FOR_BITS && exact(w, 1) ? forBytes(n, w) : Infinity;
      const rleSize = w <= 32 && exact(w, 1) ? rleBytes(runs.count, w, l) : Infinity;
      if (rleSize < forSize && rleSize < plainBytes) {
        const raw = v2Zone(col, start, n, nulls, { scheme: 'rle', width: w, width2: l, count: runs.count }, rleSize, (out, at) =>
          encodeRle(numbers, n, runs.count, range.min, w, l, out, at),
        );
        return finish(raw, codec, 'rle', undefined, KEEP_COMPRESSED);
      }
      const g = commonDivisor(numbers, n, range.min);
      const k = g <= 0xffffffff ? g : 1; // the header holds it as a u32
      const kw = bitsFor((range.max - range.min) / k);
      const forScaled = kw <= MAX_FOR_BITS && exact(kw, k) ? forBytes(n, kw) : Infinity;
      if (forScaled < plainBytes) {
        const raw = v2Zone(col, start, n, nulls, { scheme: 'for', width: kw, width2: 0, count: k }, forScaled, (out, at) => encodeFor(numbers, n, range.min, k, kw, out, at));
        return finish(raw, codec, 'for', undefined, KEEP_COMPRESSED);
      }
    }
  }
  if (p === 'var') {
    const offsets = col.offsets!;
    const data = col.data!;
    let minLen = Infinity;
    let maxLen = 0;
    for (let i = start; i < end; i++) {
      const len = offsets[i + 1]! - offsets[i]!;
      if (len < minLen) minLen = len;
      if (len > maxLen) maxLen = len;
    }
    if (n === 0) minLen = maxLen = 0;
    const total = offsets[end]! - offsets[start]!;
    const lw = bitsFor(maxLen - minLen);
    const plainSize = plainVarBytes(n, lw, total);
    const dict = n - nulls > 0 ? buildDictionary(offsets, data, col.validity, start, end, dictLimit(n - nulls)) : null;
    if (dict !== null) {
      let entryBytes = 0;
      for (let e = 0; e < dict.count; e++) entryBytes += dict.ends[e]! - dict.starts[e]!;
      const size = dictBytes(n, dict.count, entryBytes);
      if (size < plainSize) {
        const raw = v2Zone(col, start, n, nulls, { scheme: 'dict', width: bitsFor(dict.count - 1), width2: 0, count: dict.count }, size, (out, at) => encodeDict(dict, n, data, out, at));
        return finish(raw, codec, 'dict', dict.count, KEEP_COMPRESSED);
      }
    }
    const raw = v2Zone(col, start, n, nulls, { scheme: 'plain', width: lw, width2: 0, count: 0 }, plainSize, (out, at) => encodePlainVar(offsets, data, start, n, minLen, lw, out, at));
    return finish(raw, codec, 'plain', undefined, KEEP_COMPRESSED);
  }
  // Plain fixed width or bool: v1's body after the header.
  const bodyBytes = p === 'bit' ? (n + 7) >>> 3 : n * byteWidth(p);
  const raw = v2Zone(col, start, n, nulls, { scheme: 'plain', width: 0, width2: 0, count: 0 }, bodyBytes, (out, at) => {
    if (p === 'bit') copyBits(col.values as Uint8Array, start, n, out, at);
    else {
      const v = col.values;
      const w = byteWidth(p);
      out.set(new Uint8Array(v.buffer, v.byteOffset + start * w, n * w), at);
    }
  });
  return finish(raw, codec, 'plain', undefined, KEEP_COMPRESSED);
}

/** Copies bits [start, start+n) (start a multiple of 8) to out[at…], zeroing bits past n. */
function copyBits(bits: Uint8Array, start: number, n: number, out: Uint8Array, at: number): void {
  const bytes = (n + 7) >>> 3;
  out.set(bits.subarray(start >>> 3, (start >>> 3) + bytes), at);
  if ((n & 7) !== 0) out[at + bytes - 1]! &= (1 << (n & 7)) - 1;
}

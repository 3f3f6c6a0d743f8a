/**
 * Frame of reference plus bit-packing, for integer-like columns: int2, int4, int8, date,
 * timestamp[tz] and decimal128 whose values fit in ±2^53 (every numeric(p ≤ 15, s), and
 * numeric(p ≤ 38) zones whose values happen to be that small). Each value is stored as its
 * distance from the zone's minimum, in the fewest bits that hold the largest distance
 * (DuckDB's storage/compression/bitpacking.cpp "FOR" mode; Parquet's bit-packed runs).
 *
 * Body, at A (a multiple of 8 from the zone start; see ../zone-encode.ts for the zone header):
 *
 *   A        ref      8   int64 LE: the minimum (as a safe integer)
 *   A+8      low      packedBytes(n, min(w, 32))   bits 0..31 of (value − ref) / k, w-bit packed
 *   …        high     packedBytes(n, w − 32)        bits 32..w−1, only when w > 32
 *
 *   ref = 1000, k = 1, w = 4:  values 1003 1000 1015 1007  →  3 0 15 7  →  4 bits each
 *   ref = 100, k = 100, w = 6: numeric(15,2) 1.00 … 50.00 (unscaled 100 … 5000) → 0 … 49
 *
 * k ≥ 1 is the zone header's count: the greatest common divisor of the distances (decimals
 * with trailing zero digits, timestamps of whole seconds), so that they pack in fewer bits.
 *
 * w ≤ 53 (the zone header's width byte). NULL rows are stored as the previous row's delta and
 * decoded as 0. The decoder checks the width, that ref and ref + (2^w − 1) are safe integers,
 * and that every decoded value fits the column's type, before returning a value.
 */
import type { Values } from '../../types/index.js';
import { pack, packedBytes, scratchU32, unpack, unpackTo, wordsAt } from './bitpack.js';
import { Slot, type ZoneMemory } from '../zone-memory.js';

/** The physical forms FOR decodes to (decimal128 as 16-byte two's complement). */
export type IntForm = 'i16' | 'i32' | 'i64' | 'fixed16';

export const MAX_FOR_BITS = 53;
const TWO32 = 4294967296;

/** Body bytes of a FOR zone of n values of w bits. */
export function forBytes(n: number, w: number): number {
  return 8 + packedBytes(n, Math.min(w, 32)) + (w > 32 ? packedBytes(n, w - 32) : 0);
}

/** Writes an int64 that is a safe integer at byte `at` of `out` (little-endian). */
export function writeSafeInt64(out: Uint8Array, at: number, v: number): void {
  const dv = new DataView(out.buffer, out.byteOffset + at, 8);
  const hi = Math.floor(v / TWO32);
  dv.setUint32(0, v - hi * TWO32, true);
  dv.setInt32(4, hi, true);
}

/** Reads an int64 at byte `at`; NaN when it is not a safe integer. */
export function readSafeInt64(buf: Uint8Array, at: number): number {
  const dv = new DataView(buf.buffer, buf.byteOffset + at, 8);
  const v = dv.getInt32(4, true) * TWO32 + dv.getUint32(0, true);
  return Number.isSafeInteger(v) ? v : NaN;
}

/**
 * Encodes vals[0..n) (safe integers, each in [ref, ref + 2^w)) at out[at…]; out is zeroed over
 * the body. `at` is a multiple of 8 from out's start, and out's byteOffset a multiple of 4.
 */
export function encodeFor(vals: Float64Array, n: number, ref: number, k: number, w: number, out: Uint8Array, at: number): void {
  writeSafeInt64(out, at, ref);
  const lo = scratchU32(0, n);
  const hi = w > 32 ? scratchU32(1, n) : null;
  for (let i = 0; i < n; i++) {
    const d = (vals[i]! - ref) / k;
    if (hi === null) lo[i] = d;
    else {
      const h = Math.floor(d / TWO32);
      hi[i] = h;
      lo[i] = d - h * TWO32;
    }
  }
  const words = new Uint32Array(out.buffer, out.byteOffset, (out.byteLength >>> 2));
  const loAt = (at + 8) >>> 2;
  pack(lo, n, Math.min(w, 32), words, loAt);
  if (hi !== null) pack(hi, n, w - 32, words, loAt + (packedBytes(n, 32) >>> 2));
}

/** Type bounds of each form, for the decoder's range check. */
const RANGE: Record<IntForm, readonly [number, number]> = {
  i16: [-32768, 32767],
  i32: [-2147483648, 2147483647],
  i64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  fixed16: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

/**
 * The greatest common divisor of vals[i] − ref over the zone (1 as soon as it reaches 1, which
 * is after a few values for most columns); 1 for a constant zone.
 */
export function commonDivisor(vals: Float64Array, n: number, ref: number): number {
  let g = 0;
  for (let i = 0; i < n; i++) {
    let a = vals[i]! - ref;
    let b = g;
    while (b !== 0) {
      const t = a % b;
      a = b;
      b = t;
    }
    g = a;
    if (g === 1) return 1;
  }
  return g === 0 ? 1 : g;
}

/**
 * Checks a decoded base: a safe integer, not below the type's range, and with ref + (2^w − 1)
 * still exact (the type's upper bound is checked per value by widen()). Returns that bound.
 */
export function checkBase(ref: number, w: number, form: IntForm, scheme: string, bad: (what: string) => Error): number {
  const [lowest, highest] = RANGE[form];
  if (Number.isNaN(ref)) throw bad(`${scheme} base is not a safe integer`);
  if (ref < lowest) throw bad(`${scheme} base ${ref} is below the type's range`);
  if (ref + (2 ** w - 1) > Number.MAX_SAFE_INTEGER) throw bad(`${scheme} base ${ref} with ${w}-bit values leaves the exact range`);
  return highest;
}

/**
 * Decodes a FOR body of n values of w bits at buf[at…] (at most buf.byteLength − at bytes)
 * into a values array of `form` from `memory`. Throws bad(…) on anything it cannot trust.
 */
export function decodeFor(buf: Uint8Array, at: number, n: number, w: number, k: number, form: IntForm, bad: (what: string) => Error, memory: ZoneMemory): Values {
  if (w > MAX_FOR_BITS) throw bad(`frame-of-reference width ${w} bits, at most ${MAX_FOR_BITS}`);
  if (k < 1 || (k > 1 && (2 ** w - 1) * k > Number.MAX_SAFE_INTEGER)) throw bad(`frame-of-reference multiplier ${k} with ${w}-bit deltas`);
  const need = forBytes(n, w);
  if (buf.byteLength - at !== need) throw bad(`frame-of-reference body of ${buf.byteLength - at} bytes, expected ${need} for ${n} values of ${w} bits`);
  const ref = readSafeInt64(buf, at);
  const highest = checkBase(ref, w, form, 'frame-of-reference', bad);
  if (k > 1 && ref + (2 ** w - 1) * k > Number.MAX_SAFE_INTEGER) throw bad(`frame-of-reference base ${ref} with ${w}-bit deltas of ${k} leaves the exact range`);
  const loBytes = packedBytes(n, Math.min(w, 32));
  if (w <= 32) {
    const fused = decodeForFused(wordsAt(buf, at + 8, loBytes), n, w, ref, k, form, highest, memory);
    if (fused !== null) return fused;
  }
  const lo = scratchU32(0, n);
  unpack(wordsAt(buf, at + 8, loBytes), 0, n, Math.min(w, 32), lo);
  let hi: Uint32Array | null = null;
  if (w > 32) {
    hi = scratchU32(1, n);
    unpack(wordsAt(buf, at + 8 + loBytes, packedBytes(n, w - 32)), 0, n, w - 32, hi);
  }
  if (k > 1) return widenScaled(lo, hi, n, ref, k, form, highest, bad, memory);
  return widen(lo, hi, n, ref, form, highest, bad, memory);
}

/**
 * One pass from the bit-packed stream to the column's form (./bitpack.ts unpackTo), when every
 * value the zone's range allows, ref + (2^w − 1)·k, fits the target's exact arithmetic: the
 * type's range for int2/int4; [0, 2^32) or [−2^31, 2^31) for int8 and decimal128 (their high
 * words then zero or the sign). Null otherwise: the two-pass path below handles the rest.
 */
function decodeForFused(words: Uint32Array, n: number, w: number, ref: number, k: number, form: IntForm, highest: number, memory: ZoneMemory): Values | null {
  const top = ref + (2 ** w - 1) * k;
  if (form === 'i16' || form === 'i32') {
    if (top > highest) return null;
    const out = smallInts(form, n, memory);
    unpackTo(words, 0, n, w, form, out, ref, k);
    return out;
  }
  const stride = form === 'i64' ? 2 : 4;
  const lo = ref >= 0 && top <= 4294967295;
  if (!lo && !(ref >= -2147483648 && top <= 2147483647)) return null;
  const bytes = memory.bytes(Slot.Values, n * stride * 4);
  const out = new Int32Array(bytes.buffer, bytes.byteOffset, n * stride);
  // The high words of non-negative values below 2^32 are zero: one fill, then stores of the low words.
  if (lo) out.fill(0);
  unpackTo(words, 0, n, w, lo ? (stride === 2 ? 'lo2' : 'lo4') : stride === 2 ? 'sg2' : 'sg4', out, ref, k);
  return form === 'i64' ? new BigInt64Array(bytes.buffer, bytes.byteOffset, n) : bytes;
}

/** ref + k · delta per value (k > 1), in the column's physical form. */
function widenScaled(lo: Uint32Array, hi: Uint32Array | null, n: number, ref: number, k: number, form: IntForm, highest: number, bad: (what: string) => Error, memory: ZoneMemory): Values {
  if (form === 'i16' || form === 'i32') {
    if (hi !== null) throw bad(`frame-of-reference deltas wider than 32 bits for a ${form === 'i16' ? 16 : 32}-bit column`);
    const out = smallInts(form, n, memory);
    let max = 0;
    for (let i = 0; i < n; i++) {
      const d = lo[i]!;
      if (d > max) max = d;
      out[i] = ref + d * k;
    }
    if (ref + max * k > highest) throw bad(`frame-of-reference value ${ref + max * k} is above the type's range`);
    return out;
  }
  const stride = form === 'i64' ? 2 : 4;
  const bytes = memory.bytes(Slot.Values, n * stride * 4);
  const words = new Int32Array(bytes.buffer, bytes.byteOffset, n * stride);
  for (let i = 0, j = 0; i < n; i++, j += stride) {
    const v = ref + (hi === null ? lo[i]! : hi[i]! * TWO32 + lo[i]!) * k;
    const h = Math.floor(v / TWO32);
    words[j] = v - h * TWO32;
    words[j + 1] = h;
    if (stride === 4) words[j + 2] = words[j + 3] = h >> 31;
  }
  return form === 'i64' ? new BigInt64Array(bytes.buffer, bytes.byteOffset, n) : bytes;
}

/** ref + delta per value, written in the column's physical form. Shared with ./rle.ts. */
export function widen(lo: Uint32Array, hi: Uint32Array | null, n: number, ref: number, form: IntForm, highest: number, bad: (what: string) => Error, memory: ZoneMemory): Values {
  // Values below 2^32 from a base in int32 range (the usual case) take loops without division.
  const top = hi === null ? ref + 4294967295 : Infinity;
  switch (form) {
    case 'i16':
    case 'i32': {
      if (hi !== null) throw bad(`frame-of-reference deltas wider than 32 bits for a ${form === 'i16' ? 16 : 32}-bit column`);
      const out = smallInts(form, n, memory);
      let max = 0;
      for (let i = 0; i < n; i++) {
        const d = lo[i]!;
        if (d > max) max = d;
        out[i] = ref + d;
      }
      if (ref + max > highest) throw bad(`frame-of-reference value ${ref + max} is above the type's range`);
      return out;
    }
    case 'i64':
    case 'fixed16': {
      const stride = form === 'i64' ? 2 : 4;
      const bytes = memory.bytes(Slot.Values, n * stride * 4);
      const words = new Int32Array(bytes.buffer, bytes.byteOffset, n * stride);
      if (ref >= 0 && top <= 4294967295 + 4294967295 && hi === null) {
        // ref + d < 2^33: the high word is 0 or 1; the sign words are 0 (written: memory may be reused).
        if (ref + 4294967295 < 4294967296)
          for (let i = 0, k = 0; i < n; i++, k += stride) {
            words[k] = ref + lo[i]!;
            words[k + 1] = 0;
            if (stride === 4) words[k + 2] = words[k + 3] = 0;
          }
        else
          for (let i = 0, k = 0; i < n; i++, k += stride) {
            const v = ref + lo[i]!;
            const h = v >= 4294967296 ? 1 : 0;
            words[k] = v - h * 4294967296;
            words[k + 1] = h;
            if (stride === 4) words[k + 2] = words[k + 3] = 0;
          }
      } else if (ref >= -2147483648 && top <= 2147483647) {
        for (let i = 0, k = 0; i < n; i++, k += stride) {
          const v = ref + lo[i]!;
          const h = v >> 31;
          words[k] = v;
          words[k + 1] = h;
          if (stride === 4) words[k + 2] = words[k + 3] = h;
        }
      } else
        for (let i = 0, k = 0; i < n; i++, k += stride) {
          const v = ref + (hi === null ? lo[i]! : hi[i]! * TWO32 + lo[i]!);
          const h = Math.floor(v / TWO32);
          words[k] = v - h * TWO32;
          words[k + 1] = h;
          if (stride === 4) words[k + 2] = words[k + 3] = h >> 31;
        }
      return form === 'i64' ? new BigInt64Array(bytes.buffer, bytes.byteOffset, n) : bytes;
    }
    default: {
      const never: never = form;
      return never;
    }
  }
}

/** A 16- or 32-bit values array of n entries from `memory`. */
export function smallInts(form: 'i16' | 'i32', n: number, memory: ZoneMemory): Int16Array | Int32Array {
  if (form === 'i32') return memory.int32(Slot.Values, n);
  const b = memory.bytes(Slot.Values, 2 * n);
  return new Int16Array(b.buffer, b.byteOffset, n);
}

/** Zeroes the NULL slots of decoded values (paxd's writers keep NULL slots zero). */
export function zeroNulls(values: Values, form: IntForm, validity: Uint8Array, n: number): void {
  const stride = form === 'fixed16' ? 16 : 1;
  for (let i = 0; i < n; i++) {
    if ((validity[i >>> 3]! & (1 << (i & 7))) !== 0) continue;
    if (stride === 16) (values as Uint8Array).fill(0, i * 16, i * 16 + 16);
    else if (values instanceof BigInt64Array) values[i] = 0n;
    else (values as Int16Array | Int32Array)[i] = 0;
  }
}

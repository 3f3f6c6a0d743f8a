/**
 * Run-length encoding for integer-like columns (the same types as ./for.ts): r runs, each a
 * value and a length, both bit-packed; the values by frame of reference (DuckDB's
 * storage/compression/rle.cpp, with FOR-packed values and lengths).
 *
 * Body, at A (zone header: width = w bits per value, width2 = l bits per length − 1,
 * count = r runs, 1 ≤ r ≤ n):
 *
 *   A        ref       8   int64 LE: the smallest run value
 *   A+8      values    packedBytes(r, w)   run value − ref, w ≤ 32 bits
 *   …        lengths   packedBytes(r, l)   run length − 1, l ≤ 32 bits; the lengths add up to n
 *
 *   values 7 7 7 7 9 9 7  →  runs (7,4) (9,2) (7,1)  →  ref 7, values 0 2 0, lengths 3 1 0
 *
 * NULL rows continue the run they sit in and decode as 0. The decoder checks widths, the run
 * count, the base and each run's value range, and that the lengths add up to exactly n before
 * it writes a row (a run that would pass n is corruption, not a write past the buffer).
 */
import type { Values } from '../../types/index.js';
import { pack, packedBytes, scratchU32, unpack, wordsAt } from './bitpack.js';
import { type IntForm, checkBase, readSafeInt64, smallInts, widen, writeSafeInt64 } from './for.js';
import { Slot, type ZoneMemory } from '../zone-memory.js';

/** Body bytes of an RLE zone of r runs, w-bit values and l-bit lengths. */
export function rleBytes(r: number, w: number, l: number): number {
  return 8 + packedBytes(r, w) + packedBytes(r, l);
}

export interface Runs {
  count: number;
  /** The longest run. */
  longest: number;
}

/** Counts the runs of vals[0..n). */
export function countRuns(vals: Float64Array, n: number): Runs {
  if (n === 0) return { count: 0, longest: 0 };
  let count = 1;
  let longest = 1;
  let len = 1;
  for (let i = 1; i < n; i++) {
    if (vals[i] === vals[i - 1]) len++;
    else {
      if (len > longest) longest = len;
      len = 1;
      count++;
    }
  }
  return { count, longest: len > longest ? len : longest };
}

/** Encodes vals[0..n) as r runs at out[at…] (zeroed), values in [ref, ref + 2^w), lengths − 1 < 2^l. */
export function encodeRle(vals: Float64Array, n: number, r: number, ref: number, w: number, l: number, out: Uint8Array, at: number): void {
  writeSafeInt64(out, at, ref);
  const values = scratchU32(0, r);
  const lengths = scratchU32(1, r);
  let k = 0;
  let start = 0;
  for (let i = 1; i <= n; i++) {
    if (i === n || vals[i] !== vals[i - 1]) {
      values[k] = vals[start]! - ref;
      lengths[k] = i - start - 1;
      k++;
      start = i;
    }
  }
  const words = new Uint32Array(out.buffer, out.byteOffset, out.byteLength >>> 2);
  const vAt = (at + 8) >>> 2;
  pack(values, r, w, words, vAt);
  pack(lengths, r, l, words, vAt + (packedBytes(r, w) >>> 2));
}

/** Decodes an RLE body (r runs, w-bit values, l-bit lengths) of n rows into a values array of `form` from `memory`. */
export function decodeRle(buf: Uint8Array, at: number, n: number, r: number, w: number, l: number, form: IntForm, bad: (what: string) => Error, memory: ZoneMemory): Values {
  if (w > 32 || l > 32) throw bad(`run-length widths ${w} and ${l} bits, at most 32`);
  if (r < 1 || r > n) throw bad(`${r} runs in ${n} rows`);
  const need = rleBytes(r, w, l);
  if (buf.byteLength - at !== need) throw bad(`run-length body of ${buf.byteLength - at} bytes, expected ${need} for ${r} runs`);
  const ref = readSafeInt64(buf, at);
  const highest = checkBase(ref, w, form, 'run-length', bad);
  const vBytes = packedBytes(r, w);
  const values = scratchU32(0, Math.max(r, n));
  unpack(wordsAt(buf, at + 8, vBytes), 0, r, w, values);
  const lengths = scratchU32(1, r);
  unpack(wordsAt(buf, at + 8 + vBytes, packedBytes(r, l)), 0, r, l, lengths);
  let total = 0;
  for (let k = 0; k < r; k++) {
    total += lengths[k]! + 1;
    if (total > n) throw bad(`run ${k} ends at row ${total}, past the zone's ${n} rows`);
  }
  if (total !== n) throw bad(`runs cover ${total} rows, expected ${n}`);
  const direct = expandRuns(values, lengths, r, n, ref, w, form, highest, memory);
  if (direct !== null) return direct;
  // Expand in place, back to front (run k's rows end at or after entry k): values[] becomes
  // the per-row deltas that widen() turns into the column's form.
  let end = n;
  for (let k = r - 1; k >= 0; k--) {
    const v = values[k]!;
    const start = end - lengths[k]! - 1;
    values.fill(v, start, end);
    end = start;
  }
  return widen(values, null, n, ref, form, highest, bad, memory);
}

/**
 * Writes each run's value straight into the column's form (as ./for.ts decodeForFused does for
 * bit-packed rows) when every value the zone's range allows fits the target's exact arithmetic;
 * null otherwise (then the runs are expanded to deltas and widened).
 */
function expandRuns(values: Uint32Array, lengths: Uint32Array, r: number, n: number, ref: number, w: number, form: IntForm, highest: number, memory: ZoneMemory): Values | null {
  const top = ref + (2 ** w - 1);
  if (form === 'i16' || form === 'i32') {
    if (top > highest) return null;
    const out = smallInts(form, n, memory);
    for (let k = 0, i = 0; k < r; k++) {
      const v = ref + values[k]!;
      const end = i + lengths[k]! + 1;
      while (i < end) out[i++] = v;
    }
    return out;
  }
  const stride = form === 'i64' ? 2 : 4;
  if (!(ref >= -2147483648 && top <= 2147483647)) return null;
  const bytes = memory.bytes(Slot.Values, n * stride * 4);
  const out = new Int32Array(bytes.buffer, bytes.byteOffset, n * stride);
  for (let k = 0, o = 0; k < r; k++) {
    const v = ref + values[k]!;
    const h = v >> 31;
    const end = o + (lengths[k]! + 1) * stride;
    if (stride === 2)
      for (; o < end; o += 2) {
        out[o] = v;
        out[o + 1] = h;
      }
    else
      for (; o < end; o += 4) {
        out[o] = v;
        out[o + 1] = out[o + 2] = out[o + 3] = h;
      }
  }
  return form === 'i64' ? new BigInt64Array(bytes.buffer, bytes.byteOffset, n) : bytes;
}

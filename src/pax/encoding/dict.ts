/**
 * Dictionary encoding (v2) for var-width columns of few distinct values: the distinct values
 * once, and per row a bit-packed code (DuckDB's storage/compression/dictionary_compression.cpp;
 * Parquet's RLE_DICTIONARY with plain bit-packed indices).
 *
 * Body, at A (zone header: width = w = bitsFor(d − 1) bits per code, count = d entries,
 * 1 ≤ d ≤ 65536):
 *
 *   A              dict offsets  (d+1) × int32 LE, offsets[0] = 0, non-decreasing
 *   A+4(d+1) ↑8    codes         packedBytes(n, w): per row its entry, each < d; 0 for NULL rows
 *   …              dict data     offsets[d] bytes
 *
 *   rows "AIR" "RAIL" "AIR" NULL "AIR"  →  d = 2, w = 1
 *   offsets 0 3 7 | codes 0 1 0 0 0 (bits) | data "AIRRAIL"
 *
 * (A+4(d+1) is rounded up to a multiple of 8 so that the codes are word-aligned.) The decoder
 * checks d, w, the offsets and every code before it copies a byte, and returns today's form
 * (offsets and bytes per row) with the codes beside it as a DictionaryVector.
 */
import type { Column, PgType } from '../../types/index.js';
import { bitsFor, generated, pack, packedBytes, scratchU32, unpack, unpackTo, wordsAt } from './bitpack.js';
import type { Dictionary } from '../dictionary.js';
import { Slot, type ZoneMemory } from '../zone-memory.js';

export const MAX_DICT_ENTRIES = 65536;

const align8 = (n: number) => (n + 7) & ~7;

/** Body bytes of a dictionary zone of n rows over d entries holding `dataBytes` bytes. */
export function dictBytes(n: number, d: number, dataBytes: number): number {
  return align8(4 * (d + 1)) + packedBytes(n, bitsFor(d - 1)) + dataBytes;
}

/** Encodes `dict` (built over rows [start, start+n) of offsets/data) at out[at…], zeroed. */
export function encodeDict(dict: Dictionary, n: number, data: Uint8Array, out: Uint8Array, at: number): void {
  const d = dict.count;
  const w = bitsFor(d - 1);
  const dOff = new Int32Array(out.buffer, out.byteOffset + at, d + 1);
  const codesAt = at + align8(4 * (d + 1));
  let pos = codesAt + packedBytes(n, w);
  const base = pos;
  for (let e = 0; e < d; e++) {
    dOff[e] = pos - base;
    out.set(data.subarray(dict.starts[e], dict.ends[e]), pos);
    pos += dict.ends[e]! - dict.starts[e]!;
  }
  dOff[d] = pos - base;
  const codes = scratchU32(0, n);
  for (let i = 0; i < n; i++) codes[i] = dict.indices[i]!;
  pack(codes, n, w, new Uint32Array(out.buffer, out.byteOffset, out.byteLength >>> 2), codesAt >>> 2);
}

/**
 * Decodes a dictionary body of n rows, d entries and w-bit codes at buf[at…]. `validity` (null:
 * no NULLs) decides which rows get bytes.
 */
export function decodeDict(
  buf: Uint8Array,
  at: number,
  n: number,
  d: number,
  w: number,
  type: PgType,
  validity: Uint8Array | null,
  nulls: number,
  bad: (what: string) => Error,
  memory: ZoneMemory,
): Column {
  if (d < 1 || d > MAX_DICT_ENTRIES) throw bad(`dictionary of ${d} entries`);
  if (w !== bitsFor(d - 1)) throw bad(`dictionary codes of ${w} bits for ${d} entries, expected ${bitsFor(d - 1)}`);
  const codesAt = at + align8(4 * (d + 1));
  const dataAt = codesAt + packedBytes(n, w);
  if (buf.byteLength < dataAt) throw bad(`decoded length ${buf.byteLength}, shorter than ${d + 1} dictionary offsets and ${n} codes`);
  const dOff = int32sAt(buf, at, d + 1);
  const dd = buf.subarray(dataAt);
  if (dOff[0] !== 0) throw bad(`first dictionary offset ${dOff[0]}, expected 0`);
  for (let e = 1; e <= d; e++) if (dOff[e]! < dOff[e - 1]!) throw bad(`dictionary offset ${e} is ${dOff[e]}, below offset ${e - 1} (${dOff[e - 1]})`);
  if (dOff[d] !== dd.byteLength) throw bad(`last dictionary offset ${dOff[d]}, expected the dictionary's ${dd.byteLength} bytes`);
  const codeWords = wordsAt(buf, codesAt, packedBytes(n, w));
  const codes = memory.uint16(Slot.Codes, n);
  const offsets = memory.int32(Slot.Offsets, n + 1);
  offsets[0] = 0;
  const entries: Column = { type, length: d, nullCount: 0, validity: null, values: dd, offsets: dOff, data: dd };
  const len = validity === null ? fixedLength(dOff, d) : -1;
  if (len >= 0 && len <= MAX_FIXED_COPY) {
    // Every row has len bytes (bpchar(n), the usual case): the codes unpack straight into their
    // array (checked against d unless d = 2^w, when every w-bit code is an entry), offsets are
    // i·len, and the bytes are copied by the length's generated loop.
    unpackTo(codeWords, 0, n, w, 'u16', codes, 0, 1);
    const badRow = d === 2 ** w ? -1 : firstCodeAtLeast(codes, n, d);
    if (badRow >= 0) throw bad(`dictionary code ${codes[badRow]} at row ${badRow}, expected < ${d}`);
    for (let i = 1; i <= n; i++) offsets[i] = i * len;
    const bytes = memory.bytes(Slot.Values, n * len);
    if (len > 0) copyFixed(len, codes, n, entryWords(dd, d, len), bytes);
    return { type, length: n, nullCount: nulls, validity, values: bytes, offsets, data: bytes, dictionary: { codes, entries } };
  }
  const scratch = scratchU32(0, n);
  unpack(codeWords, 0, n, w, scratch);
  // Sizes first (validating every code), then one allocation for the bytes. The loops are
  // functions of their own so that V8 optimizes each whole (an on-stack-replaced loop here
  // deoptimized at the first statement after it, on every call).
  const badCode = rowSizes(scratch, n, d, dOff, validity, codes, offsets);
  if (badCode >= 0) throw bad(`dictionary code ${scratch[badCode]} at row ${badCode}, expected < ${d}`);
  const data = validity === null ? materializeGroups(codes, n, offsets, dOff, dd, memory) : null;
  const bytes = data ?? memory.bytes(Slot.Values, offsets[n]!);
  if (data === null) materialize(codes, n, offsets, dOff, dd, bytes);
  return { type, length: n, nullCount: nulls, validity, values: bytes, offsets, data: bytes, dictionary: { codes, entries } };
}

/** Longest entry that copyFixed handles (longer fixed entries take the general path). */
const MAX_FIXED_COPY = 64;

/** The common byte length of every entry, or -1 when they differ. */
function fixedLength(dOff: Int32Array, d: number): number {
  const len = dOff[1]! - dOff[0]!;
  for (let e = 1; e < d; e++) if (dOff[e + 1]! - dOff[e]! !== len) return -1;
  return len;
}

/** The first row whose code is not below d, or -1. */
function firstCodeAtLeast(codes: Uint16Array, n: number, d: number): number {
  for (let i = 0; i < n; i++) if (codes[i]! >= d) return i;
  return -1;
}

/**
 * The entries (d of len bytes each) as 32-bit words, entry e at word e·ceil(len/4), zero-padded:
 * what copyFixed's generated loop reads. Scratch 1 (the codes sit in scratch 0).
 */
function entryWords(dd: Uint8Array, d: number, len: number): Uint32Array {
  const stride = (len + 3) >>> 2;
  const words = scratchU32(1, d * stride).subarray(0, d * stride);
  words.fill(0);
  const bytes = new Uint8Array(words.buffer, words.byteOffset, words.byteLength);
  for (let e = 0; e < d; e++) bytes.set(dd.subarray(e * len, (e + 1) * len), e * stride * 4);
  return words;
}

type FixedCopy = (codes: Uint16Array, n: number, words: Uint32Array, bytes: Uint8Array, out: Uint8Array, dv: DataView) => void;

const fixedCopies: (FixedCopy | undefined)[] = [];

/**
 * Writes row i's entry, len bytes, at out[i·len…]: per row floor(len/4) unaligned 32-bit stores
 * (DataView) and the last len mod 4 bytes one by one, straight-line code generated once per
 * length (DESIGN.md "Hot paths"). About 3× a per-row copyWithin and 7× a byte loop at 25 bytes.
 */
function copyFixed(len: number, codes: Uint16Array, n: number, words: Uint32Array, out: Uint8Array): void {
  let f = fixedCopies[len];
  if (f === undefined) {
    const stride = (len + 3) >>> 2;
    const whole = len >>> 2;
    const lines: string[] = [];
    for (let x = 0; x < whole; x++) lines.push(`dv.setUint32(p + ${4 * x}, words[b + ${x}], true);`);
    for (let y = 4 * whole; y < len; y++) lines.push(`out[p + ${y}] = bytes[4 * b + ${y}];`);
    f = generated<FixedCopy>(`copyFixed${len}`, 'codes, n, words, bytes, out, dv', `for (let i = 0, p = 0; i < n; i++, p += ${len}) {\nconst b = codes[i] * ${stride};\n${lines.join('\n')}\n}`);
    fixedCopies[len] = f;
  }
  f(codes, n, words, new Uint8Array(words.buffer, words.byteOffset, words.byteLength), out, new DataView(out.buffer, out.byteOffset, out.byteLength));
}

/** Checks and copies codes, fills offsets; returns the first row with a bad code, or -1. */
function rowSizes(scratch: Uint32Array, n: number, d: number, dOff: Int32Array, validity: Uint8Array | null, codes: Uint16Array, offsets: Int32Array): number {
  let total = 0;
  for (let i = 0; i < n; i++) {
    const e = scratch[i]!;
    if (e >= d) return i;
    codes[i] = e;
    if (validity === null || (validity[i >>> 3]! & (1 << (i & 7))) !== 0) total += dOff[e + 1]! - dOff[e]!;
    offsets[i + 1] = total;
  }
  return -1;
}

/**
 * Copies each row's entry bytes to data[offsets[i]…offsets[i+1]). Entries of 16 bytes or more
 * go through TypedArray.set from one view per entry (a memmove; no allocation per row),
 * shorter ones byte by byte.
 */
function materialize(codes: Uint16Array, n: number, offsets: Int32Array, dOff: Int32Array, dd: Uint8Array, data: Uint8Array): void {
  const d = dOff.length - 1;
  const views: Uint8Array[] = new Array(d);
  for (let e = 0; e < d; e++) views[e] = dd.subarray(dOff[e]!, dOff[e + 1]!);
  for (let i = 0; i < n; i++) {
    const pos = offsets[i]!;
    const len = offsets[i + 1]! - pos;
    const e = codes[i]!;
    if (len >= 16) data.set(views[e]!, pos);
    else {
      const k = dOff[e]!;
      for (let j = 0; j < len; j++) data[pos + j] = dd[k + j]!;
    }
  }
}

/** Most bytes of the table of entry sequences materializeGroups builds per zone. */
const GROUP_TABLE_BYTES = 65536;

/**
 * Materializes a NULL-free zone g rows at a time: the table of every sequence of g entries
 * (d^g of them, at most a quarter of the rows and GROUP_TABLE_BYTES) is written once after the
 * rows' bytes, and each group of g rows is one copyWithin from it. A row-by-row copy costs a
 * call or a byte loop per row; lineitem's l_shipinstruct (4 entries of 25 bytes) copies 4 rows
 * per call. Returns the bytes (a view of the first offsets[n]), or null when no g ≥ 2 fits.
 */
function materializeGroups(codes: Uint16Array, n: number, offsets: Int32Array, dOff: Int32Array, dd: Uint8Array, memory: ZoneMemory): Uint8Array | null {
  const d = dOff.length - 1;
  let maxLen = 0;
  for (let e = 0; e < d; e++) maxLen = Math.max(maxLen, dOff[e + 1]! - dOff[e]!);
  let g = 1;
  let combos = d;
  while (g < 8 && combos * d <= n / 4 && combos * d * (g + 1) * maxLen <= GROUP_TABLE_BYTES) {
    g++;
    combos *= d;
  }
  if (g < 2 || maxLen === 0) return null;
  const total = offsets[n]!;
  // Scratch 1 is free here (the codes were unpacked into scratch 0 and copied out).
  const start = scratchU32(1, combos + 1);
  const tableBytes = sequenceStarts(combos, g, d, dOff, start);
  const data = memory.bytes(Slot.Values, total + tableBytes);
  writeSequences(combos, g, d, dOff, dd, data, total);
  copyGroups(codes, n, g, d, offsets, start, total, data);
  copyRows(codes, n - (n % g), n, offsets, dOff, dd, data);
  return data.subarray(0, total);
}

/** Sequence c (digits base d, row 0 least significant) starts at start[c] of the table; returns its size. */
function sequenceStarts(combos: number, g: number, d: number, dOff: Int32Array, start: Uint32Array): number {
  let bytes = 0;
  for (let c = 0; c < combos; c++) {
    start[c] = bytes;
    for (let k = 0, x = c; k < g; k++, x = (x / d) | 0) bytes += dOff[(x % d) + 1]! - dOff[x % d]!;
  }
  start[combos] = bytes;
  return bytes;
}

function writeSequences(combos: number, g: number, d: number, dOff: Int32Array, dd: Uint8Array, data: Uint8Array, at: number): void {
  let pos = at;
  for (let c = 0; c < combos; c++)
    for (let k = 0, x = c; k < g; k++, x = (x / d) | 0) {
      const e = x % d;
      for (let j = dOff[e]!; j < dOff[e + 1]!; j++) data[pos++] = dd[j]!;
    }
}

/** Rows [from, to) one by one. */
function copyRows(codes: Uint16Array, from: number, to: number, offsets: Int32Array, dOff: Int32Array, dd: Uint8Array, data: Uint8Array): void {
  for (let i = from; i < to; i++) {
    const e = codes[i]!;
    let pos = offsets[i]!;
    for (let j = dOff[e]!; j < dOff[e + 1]!; j++) data[pos++] = dd[j]!;
  }
}

function copyGroups(codes: Uint16Array, n: number, g: number, d: number, offsets: Int32Array, start: Uint32Array, base: number, data: Uint8Array): void {
  const full = n - (n % g);
  for (let i = 0; i < full; i += g) {
    let c = 0;
    for (let k = g - 1; k >= 0; k--) c = c * d + codes[i + k]!;
    const s = base + start[c]!;
    data.copyWithin(offsets[i]!, s, base + start[c + 1]!);
  }
}

/** n int32s at buf[at…]: a view when aligned, else a copy. */
function int32sAt(buf: Uint8Array, at: number, n: number): Int32Array {
  const off = buf.byteOffset + at;
  if ((off & 3) === 0) return new Int32Array(buf.buffer, off, n);
  return new Int32Array(buf.slice(at, at + 4 * n).buffer, 0, n);
}

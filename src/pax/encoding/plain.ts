/**
 * The v2 plain body of var-width columns: lengths by frame of reference plus bit-packing
 * instead of int32 offsets, then the bytes (Parquet's DELTA_LENGTH_BYTE_ARRAY, with FOR in
 * place of deltas). Fixed-width and bool plain bodies are v1's (../zone-encode.ts).
 *
 * Body, at A (zone header: width = w bits per length − ref):
 *
 *   A        ref       8   int64 LE: the shortest length (0 when the zone has NULLs)
 *   A+8      lengths   packedBytes(n, w): per row its length − ref (NULL rows: 0 bytes)
 *   …        data      the rows' bytes, back to back
 *
 *   "ab" "" "abc"  →  ref 0, w 2, lengths 2 0 3, data "ababc"
 *
 * The decoder checks w ≤ 32, the base, that every length is in range and that the lengths
 * add up to exactly the data's size, and rebuilds int32 offsets (today's form).
 */
import type { Column, PgType } from '../../types/index.js';
import { pack, packedBytes, scratchU32, unpack, wordsAt } from './bitpack.js';
import { readSafeInt64, writeSafeInt64 } from './for.js';
import { Slot, type ZoneMemory } from '../zone-memory.js';

/** Body bytes for n rows whose lengths need w bits and whose bytes total dataBytes. */
export function plainVarBytes(n: number, w: number, dataBytes: number): number {
  return 8 + packedBytes(n, w) + dataBytes;
}

/** Encodes rows [start, start+n) of offsets/data (lengths − ref < 2^w) at out[at…], zeroed. */
export function encodePlainVar(offsets: Int32Array, data: Uint8Array, start: number, n: number, ref: number, w: number, out: Uint8Array, at: number): void {
  writeSafeInt64(out, at, ref);
  const lengths = scratchU32(0, n);
  for (let i = 0; i < n; i++) lengths[i] = offsets[start + i + 1]! - offsets[start + i]! - ref;
  pack(lengths, n, w, new Uint32Array(out.buffer, out.byteOffset, out.byteLength >>> 2), (at + 8) >>> 2);
  const base = offsets[start]!;
  out.set(data.subarray(base, offsets[start + n]!), at + 8 + packedBytes(n, w));
}

export function decodePlainVar(buf: Uint8Array, at: number, n: number, w: number, type: PgType, validity: Uint8Array | null, nulls: number, bad: (what: string) => Error, memory: ZoneMemory): Column {
  if (w > 32) throw bad(`length width ${w} bits, at most 32`);
  const dataAt = at + 8 + packedBytes(n, w);
  if (buf.byteLength < dataAt) throw bad(`decoded length ${buf.byteLength}, shorter than ${n} lengths of ${w} bits`);
  const ref = readSafeInt64(buf, at);
  if (!(ref >= 0 && ref <= 0x7fffffff)) throw bad(`length base ${ref}`);
  const lengths = scratchU32(0, n);
  unpack(wordsAt(buf, at + 8, packedBytes(n, w)), 0, n, w, lengths);
  const dataLength = buf.byteLength - dataAt;
  const offsets = memory.int32(Slot.Offsets, n + 1);
  offsets[0] = 0;
  let total = 0;
  for (let i = 0; i < n; i++) {
    total += lengths[i]! + ref;
    if (total > dataLength) throw bad(`row ${i} ends at byte ${total}, past the zone's ${dataLength} bytes of data`);
    offsets[i + 1] = total;
  }
  if (total !== dataLength) throw bad(`lengths add up to ${total} bytes, the data has ${dataLength}`);
  const data = buf.subarray(dataAt);
  return { type, length: n, nullCount: nulls, validity, values: data, offsets, data };
}

/**
 * Dictionary detection for var-width zones: finds the distinct values of rows [start, end)
 * with an open-addressing hash table over the bytes (no string per row), giving up as soon
 * as there are more than `limit` of them.
 */

export interface Dictionary {
  /** Distinct values in order of first appearance, as [start, end) ranges of `data`. */
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly count: number;
  /** Per row of the zone, its entry (0 for NULL rows). */
  readonly indices: Uint16Array;
}

/** Most entries a dictionary zone may have (indices are u8 up to 256 entries, else u16). */
export const MAX_DICT_ENTRIES = 65536;

/**
 * A zone is dictionary-encoded when it has non-NULL rows and at most a quarter of them are
 * distinct: then u8/u16 indices plus one copy of each value beat the offsets and bytes.
 */
export function dictLimit(nonNull: number): number {
  return Math.min(MAX_DICT_ENTRIES, Math.floor(nonNull / 4));
}

export function buildDictionary(
  offsets: Int32Array,
  data: Uint8Array,
  validity: Uint8Array | null,
  start: number,
  end: number,
  limit: number,
): Dictionary | null {
  if (limit < 1) return null;
  let cap = 16;
  while (cap < limit * 2) cap <<= 1;
  const mask = cap - 1;
  const table = new Int32Array(cap).fill(-1);
  const starts = new Int32Array(limit);
  const ends = new Int32Array(limit);
  const indices = new Uint16Array(end - start);
  let count = 0;
  for (let i = start; i < end; i++) {
    if (validity !== null && (validity[i >>> 3]! & (1 << (i & 7))) === 0) continue;
    const a = offsets[i]!;
    const b = offsets[i + 1]!;
    // FNV-1a over the bytes.
    let h = 0x811c9dc5;
    for (let k = a; k < b; k++) h = Math.imul(h ^ data[k]!, 0x01000193);
    let slot = (h ^ (h >>> 15)) & mask;
    for (;;) {
      const e = table[slot]!;
      if (e < 0) {
        if (count === limit) return null;
        table[slot] = count;
        starts[count] = a;
        ends[count] = b;
        indices[i - start] = count;
        count++;
        break;
      }
      if (sameBytes(data, a, b, starts[e]!, ends[e]!)) {
        indices[i - start] = e;
        break;
      }
      slot = (slot + 1) & mask;
    }
  }
  return { starts, ends, count, indices };
}

function sameBytes(d: Uint8Array, a: number, b: number, c: number, e: number): boolean {
  if (b - a !== e - c) return false;
  for (let k = 0; k < b - a; k++) if (d[a + k] !== d[c + k]) return false;
  return true;
}

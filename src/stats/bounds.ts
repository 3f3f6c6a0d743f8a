/**
 * Truncated bounds for long strings and byte strings. Statistics keep at most
 * STAT_PREFIX_BYTES bytes of a min or max so that footers and snapshots stay small:
 *
 *   min of a longer value: its prefix (cut at a code point boundary for text), which sorts
 *     at or before the value;
 *   max of a longer value: its prefix with the last code point (byte, for bytea) incremented,
 *     which sorts after the value. U+10FFFF (0xFF) cannot be incremented and is dropped first;
 *     when nothing is left the max is unbounded (null, not exact).
 *
 * Truncated bounds carry minExact/maxExact = false.
 */

export const STAT_PREFIX_BYTES = 64;

const dec = new TextDecoder('utf-8', { ignoreBOM: true }); // a leading U+FEFF is part of the value

/** Length of the longest prefix of data[s, e) of at most `limit` bytes that ends on a code point boundary. */
function utf8Cut(data: Uint8Array, s: number, e: number, limit: number): number {
  let cut = Math.min(e - s, limit);
  if (cut === e - s) return cut;
  // Back up over continuation bytes (10xxxxxx): the byte at `cut` must start a code point.
  while (cut > 0 && (data[s + cut]! & 0xc0) === 0x80) cut--;
  return cut;
}

/** The exact text of data[s, e), or its truncated lower bound. */
export function textMin(data: Uint8Array, s: number, e: number): { value: string; exact: boolean } {
  if (e - s <= STAT_PREFIX_BYTES) return { value: dec.decode(data.subarray(s, e)), exact: true };
  return { value: dec.decode(data.subarray(s, s + utf8Cut(data, s, e, STAT_PREFIX_BYTES))), exact: false };
}

/** The exact text of data[s, e), or a truncated upper bound (null: unbounded). */
export function textMax(data: Uint8Array, s: number, e: number): { value: string | null; exact: boolean } {
  if (e - s <= STAT_PREFIX_BYTES) return { value: dec.decode(data.subarray(s, e)), exact: true };
  const prefix = dec.decode(data.subarray(s, s + utf8Cut(data, s, e, STAT_PREFIX_BYTES)));
  return { value: incrementLastCodePoint(prefix), exact: false };
}

/** The smallest string greater than every string that starts with `s`, or null. */
export function incrementLastCodePoint(s: string): string | null {
  const cps = Array.from(s, (c) => c.codePointAt(0)!);
  while (cps.length > 0) {
    const last = cps.pop()!;
    if (last < 0x10ffff) {
      cps.push(last === 0xd7ff ? 0xe000 : last + 1);
      return String.fromCodePoint(...cps);
    }
  }
  return null;
}

export function bytesMin(data: Uint8Array, s: number, e: number): { value: Uint8Array; exact: boolean } {
  if (e - s <= STAT_PREFIX_BYTES) return { value: data.slice(s, e), exact: true };
  return { value: data.slice(s, s + STAT_PREFIX_BYTES), exact: false };
}

export function bytesMax(data: Uint8Array, s: number, e: number): { value: Uint8Array | null; exact: boolean } {
  if (e - s <= STAT_PREFIX_BYTES) return { value: data.slice(s, e), exact: true };
  let n = STAT_PREFIX_BYTES;
  while (n > 0 && data[s + n - 1] === 0xff) n--;
  if (n === 0) return { value: null, exact: false };
  const v = data.slice(s, s + n);
  v[n - 1]!++;
  return { value: v, exact: false };
}

/**
 * The v2 zone header: the first 8 bytes of every decoded v2 zone say which scheme encodes it
 * and with which parameters (docs/FORMAT.md "Decoded zone, v2"):
 *
 *   0   scheme   u8    0 plain | 1 dict | 2 for | 3 rle
 *   1   width    u8    bits per value (for, rle), per code (dict), per length (plain var); else 0
 *   2   width2   u8    rle: bits per run length − 1; else 0
 *   3   reserved u8    0
 *   4   count    u32   rle: runs; dict: entries; for: multiplier k ≥ 1; else 0
 *   8   [validity ceil(n/8) | pad8]   when the zone has NULLs
 *   A   body     (./for.ts, ./rle.ts, ./dict.ts, ./plain.ts)
 */
import type { ZoneEncoding } from '../footer.js';

export const ZONE_HEADER_BYTES = 8;

export const SCHEME_IDS: readonly ZoneEncoding[] = ['plain', 'dict', 'for', 'rle'];

export const H_SCHEME = 0;
export const H_WIDTH = 1;
export const H_WIDTH2 = 2;
export const H_RESERVED = 3;
export const H_COUNT = 4;

export interface ZoneHeader {
  scheme: ZoneEncoding;
  width: number;
  width2: number;
  count: number;
}

export function writeZoneHeader(out: Uint8Array, h: ZoneHeader): void {
  out[H_SCHEME] = SCHEME_IDS.indexOf(h.scheme);
  out[H_WIDTH] = h.width;
  out[H_WIDTH2] = h.width2;
  out[H_RESERVED] = 0;
  new DataView(out.buffer, out.byteOffset, ZONE_HEADER_BYTES).setUint32(H_COUNT, h.count, true);
}

/** Reads and checks the header; `bad` names what is wrong. */
export function readZoneHeader(buf: Uint8Array, bad: (what: string) => Error): ZoneHeader {
  if (buf.byteLength < ZONE_HEADER_BYTES) throw bad(`decoded ${buf.byteLength} bytes, shorter than the ${ZONE_HEADER_BYTES}-byte zone header`);
  const scheme = SCHEME_IDS[buf[H_SCHEME]!];
  if (scheme === undefined) throw bad(`unknown scheme ${buf[H_SCHEME]} in the zone header`);
  if (buf[H_RESERVED] !== 0) throw bad(`reserved header byte is ${buf[H_RESERVED]}, expected 0`);
  const count = new DataView(buf.buffer, buf.byteOffset, ZONE_HEADER_BYTES).getUint32(H_COUNT, true);
  return { scheme, width: buf[H_WIDTH]!, width2: buf[H_WIDTH2]!, count };
}

/**
 * The checksum of every chunk, block, footer and snapshot: CRC-32 (ISO-HDLC, the polynomial
 * of zlib, gzip and PNG), computed by Node's zlib.crc32 (Node 20.15+). It reads through the
 * view's (buffer, byteOffset, byteLength), so a Buffer from a pool is checksummed correctly.
 *
 *   crc32(new TextEncoder().encode('123456789'))  // 0xcbf43926
 */
import { crc32 as zlibCrc32 } from 'node:zlib';

/** CRC-32 of `bytes`, continuing from `previous` (the CRC of the bytes before them). */
export function crc32(bytes: Uint8Array, previous = 0): number {
  return zlibCrc32(bytes, previous) >>> 0;
}

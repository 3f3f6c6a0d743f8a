/**
 * The PAX footer and trailer (docs/FORMAT.md, "PAX files"):
 *
 *   offset                     size            content
 *   0                          footerOffset    zone blobs of group 0 (chunk of field 0: zone 0, 1, …;
 *                                              chunk of field 1: …), then group 1, …
 *   footerOffset               footerLength    footer: UTF-8 JSON, a FooterJson
 *   size - 14                  4               footer length, u32 LE
 *   size - 10                  4               footer crc32 (zlib), u32 LE
 *   size - 6                   2               format version, u16 LE (= 1)
 *   size - 4                   4               magic "PAXF" (0x50 0x41 0x58 0x46)
 *
 * The snapshot (DataFileJson) repeats footerOffset, footerLength, footerCrc and size, so a
 * reader fetches [footerOffset, size) in one ranged read and checks the trailer against the
 * snapshot before it trusts a byte of the footer.
 */
import type { ColumnStatsJson } from '../storage/index.js';
import type { CodecName } from './codec.js';

export const PAX_MAGIC = new Uint8Array([0x50, 0x41, 0x58, 0x46]); // "PAXF"
/** The format this writer writes by default; readers take every version in PAX_VERSIONS. */
export const PAX_VERSION = 2;
export const PAX_VERSIONS: readonly PaxFormat[] = [1, 2];
export type PaxFormat = 1 | 2;
export const TRAILER_SIZE = 14;

/**
 * The format new files and blocks are written in: v2, or v1 with PAXD_PAX_FORMAT=1 (kept
 * writable for compatibility tests and for the storage bench, which measures both).
 */
export function defaultFormat(): PaxFormat {
  return process.env.PAXD_PAX_FORMAT === '1' ? 1 : PAX_VERSION;
}

/** Offsets of the trailer fields from the trailer's start. */
export const TRAILER_FOOTER_LENGTH = 0;
export const TRAILER_FOOTER_CRC = 4;
export const TRAILER_VERSION = 8;
export const TRAILER_MAGIC = 10;

/**
 * How a zone's values are encoded: v1 files use plain and dict (the v1 layouts), v2 files any
 * of the four (src/pax/encoding/: each scheme in its own file).
 */
export type ZoneEncoding = 'plain' | 'dict' | 'for' | 'rle';

/** One zone: a compressed blob of the Arrow buffers of `rows` rows of one column. */
export interface ZoneJson {
  /** File offset of the stored (compressed) bytes. */
  offset: number;
  /** Stored bytes (what the crc covers). */
  stored: number;
  /** Bytes after decompression (the zone layout in docs/FORMAT.md). */
  decoded: number;
  codec: CodecName;
  enc: ZoneEncoding;
  rows: number;
  nulls: number;
  /** crc32 (zlib) of the stored bytes. */
  crc: number;
  /** Dictionary entries, dict encoding only. */
  dict?: number;
  stats: ColumnStatsJson;
}

/** The column chunk of one field in one group: zones laid out back to back. */
export interface ChunkJson {
  fieldId: number;
  offset: number;
  length: number;
  stats: ColumnStatsJson;
  zones: ZoneJson[];
}

export interface FooterGroupJson {
  rows: number;
  /** One chunk per field of `FooterJson.fields`, in that order. */
  chunks: ChunkJson[];
}

export interface FooterJson {
  /** = the trailer's version: 1 for v1 zones (plain/dict layouts), 2 for v2 zones (with a zone header). */
  format: PaxFormat;
  /** The codec the file was written with (a zone may still be stored 'none'). */
  codec: CodecName;
  zoneRows: number;
  /** Field ids and canonical type names of the columns, in chunk order. */
  fields: { fieldId: number; type: string }[];
  groups: FooterGroupJson[];
}

export function writeTrailer(out: Uint8Array, at: number, footerLength: number, footerCrc: number, version: PaxFormat): void {
  const dv = new DataView(out.buffer, out.byteOffset + at, TRAILER_SIZE);
  dv.setUint32(TRAILER_FOOTER_LENGTH, footerLength, true);
  dv.setUint32(TRAILER_FOOTER_CRC, footerCrc >>> 0, true);
  dv.setUint16(TRAILER_VERSION, version, true);
  out.set(PAX_MAGIC, at + TRAILER_MAGIC);
}

export interface Trailer {
  footerLength: number;
  footerCrc: number;
  version: number;
  magicOk: boolean;
}

export function readTrailer(b: Uint8Array, at: number): Trailer {
  const dv = new DataView(b.buffer, b.byteOffset + at, TRAILER_SIZE);
  let magicOk = true;
  for (let i = 0; i < 4; i++) if (b[at + TRAILER_MAGIC + i] !== PAX_MAGIC[i]) magicOk = false;
  return {
    footerLength: dv.getUint32(TRAILER_FOOTER_LENGTH, true),
    footerCrc: dv.getUint32(TRAILER_FOOTER_CRC, true),
    version: dv.getUint16(TRAILER_VERSION, true),
    magicOk,
  };
}

/**
 * An ao_column block: the values of up to 16,384 consecutive rows of one column, appended to
 * the column's segment (docs/FORMAT.md "ao_column segments"). The payload is exactly a PAX
 * zone (src/pax/zone-encode.ts: same decoded layout, same codecs), so both layouts share one
 * encoder and one decoder. Header, 40 bytes, little-endian:
 *
 *   0   magic      4   "AOCB"
 *   4   version    u16 1 (payload is a v1 zone) | 2 (a v2 zone: zone header first)
 *   6   codec      u8  0 none | 1 lz4 | 2 zstd
 *   7   encoding   u8  0 plain | 1 dict | 2 for | 3 rle (2 and 3 in version 2 only)
 *   8   rows       u32
 *   12  nulls      u32
 *   16  dict       u32 dictionary entries (dict encoding), else 0
 *   20  stored     u32 payload bytes that follow the header
 *   24  decoded    u32 payload bytes after decompression
 *   28  dataCrc    u32 crc32 (zlib) of the payload = the PAX zone crc
 *   32  reserved   u32 0
 *   36  headerCrc  u32 crc32 of bytes [0, 36)
 *   40  payload    `stored` bytes
 *
 * The snapshot's block directory (GroupJson.blocks) gives each block's segment, offset and
 * length (40 + stored); the reader checks the header against it before trusting a byte.
 */
import { crc32 } from 'node:zlib';
import { checksumMismatch, corruption } from '../types/index.js';
import type { CodecName, PaxFormat, ZoneEncoding, ZoneJson } from '../pax/index.js';
import type { ColumnStatsJson } from '../storage/index.js';

export const BLOCK_MAGIC = new Uint8Array([0x41, 0x4f, 0x43, 0x42]); // "AOCB"
/** Block versions readers take; a block's version is the format of its zone. */
export const BLOCK_VERSIONS: readonly PaxFormat[] = [1, 2];
export const BLOCK_HEADER_BYTES = 40;
/** Most rows in one block (DESIGN.md "ao_column layout"). */
export const MAX_BLOCK_ROWS = 16384;

const H_VERSION = 4;
const H_CODEC = 6;
const H_ENC = 7;
const H_ROWS = 8;
const H_NULLS = 12;
const H_DICT = 16;
const H_STORED = 20;
const H_DECODED = 24;
const H_DATA_CRC = 28;
const H_HEADER_CRC = 36;

const CODEC_IDS: readonly CodecName[] = ['none', 'lz4', 'zstd'];
const ENC_IDS: readonly ZoneEncoding[] = ['plain', 'dict', 'for', 'rle'];
/** Encodings a version-1 block may have. */
const V1_ENCODINGS = 2;

/** What encodeZone produced for one block, before it is placed in a segment. */
export interface BlockPayload {
  rows: number;
  nulls: number;
  stored: number;
  decoded: number;
  codec: CodecName;
  enc: ZoneEncoding;
  crc: number;
  dict?: number;
}

export function encodeBlockHeader(b: BlockPayload, format: PaxFormat): Uint8Array {
  const h = new Uint8Array(BLOCK_HEADER_BYTES);
  const dv = new DataView(h.buffer);
  h.set(BLOCK_MAGIC, 0);
  dv.setUint16(H_VERSION, format, true);
  h[H_CODEC] = CODEC_IDS.indexOf(b.codec);
  h[H_ENC] = ENC_IDS.indexOf(b.enc);
  dv.setUint32(H_ROWS, b.rows, true);
  dv.setUint32(H_NULLS, b.nulls, true);
  dv.setUint32(H_DICT, b.dict ?? 0, true);
  dv.setUint32(H_STORED, b.stored, true);
  dv.setUint32(H_DECODED, b.decoded, true);
  dv.setUint32(H_DATA_CRC, b.crc >>> 0, true);
  dv.setUint32(H_HEADER_CRC, crc32(h.subarray(0, H_HEADER_CRC)) >>> 0, true);
  return h;
}

/**
 * Checks the block read at `offset` of `path` (header and payload, `bytes`) against what the
 * directory says (`rows`) and returns its zone description for decodeZone. Corruption
 * (XX001) naming the file and the offset of the bad field otherwise.
 */
export function parseBlock(bytes: Uint8Array, path: string, offset: number, rows: number, stats: ColumnStatsJson): { zone: ZoneJson; payload: Uint8Array; format: PaxFormat } {
  const bad = (at: number, what: string) => corruption(path, offset + at, `ao_column block at ${offset}: ${what}`);
  if (bytes.byteLength < BLOCK_HEADER_BYTES) throw bad(bytes.byteLength, `${bytes.byteLength} bytes, expected at least a ${BLOCK_HEADER_BYTES}-byte header`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, BLOCK_HEADER_BYTES);
  const headerCrc = crc32(bytes.subarray(0, H_HEADER_CRC)) >>> 0;
  const expected = dv.getUint32(H_HEADER_CRC, true);
  if (headerCrc !== expected) throw checksumMismatch('ao_column block header', path, offset, headerCrc, expected);
  for (let i = 0; i < 4; i++) if (bytes[i] !== BLOCK_MAGIC[i]) throw bad(0, 'bad magic, expected "AOCB"');
  const version = dv.getUint16(H_VERSION, true);
  if (!BLOCK_VERSIONS.includes(version as PaxFormat)) throw bad(H_VERSION, `version ${version}, expected 1 or 2`);
  const codec = CODEC_IDS[bytes[H_CODEC]!];
  if (codec === undefined) throw bad(H_CODEC, `unknown codec ${bytes[H_CODEC]}`);
  const enc = ENC_IDS[bytes[H_ENC]!];
  if (enc === undefined || (version === 1 && bytes[H_ENC]! >= V1_ENCODINGS)) throw bad(H_ENC, `unknown encoding ${bytes[H_ENC]} in a version ${version} block`);
  const n = dv.getUint32(H_ROWS, true);
  if (n !== rows) throw bad(H_ROWS, `${n} rows, the block directory says ${rows}`);
  const nulls = dv.getUint32(H_NULLS, true);
  if (nulls > n) throw bad(H_NULLS, `${nulls} NULLs in ${n} rows`);
  const stored = dv.getUint32(H_STORED, true);
  if (BLOCK_HEADER_BYTES + stored !== bytes.byteLength)
    throw bad(H_STORED, `${stored} stored bytes, the block directory says ${bytes.byteLength - BLOCK_HEADER_BYTES}`);
  const decoded = dv.getUint32(H_DECODED, true);
  if (codec === 'none' && decoded !== stored) throw bad(H_DECODED, `stored ${stored} bytes uncompressed, decoded ${decoded}`);
  const dict = dv.getUint32(H_DICT, true);
  const zone: ZoneJson = { offset: offset + BLOCK_HEADER_BYTES, stored, decoded, codec, enc, rows: n, nulls, crc: dv.getUint32(H_DATA_CRC, true), stats };
  if (enc === 'dict') zone.dict = dict;
  return { zone, payload: bytes.subarray(BLOCK_HEADER_BYTES), format: version as PaxFormat };
}

/** Store path of a segment, relative to the table folder. */
export function segmentPath(fieldId: number | string, segno: number): string {
  return `ao/${fieldId}/${segno}.seg`;
}

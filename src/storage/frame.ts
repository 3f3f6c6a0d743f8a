/**
 * The checksummed frame every metadata file of a store shares: a table's v1 snapshots
 * (./snapshot.ts, magic "PXSN"), its v2 deltas ("PXDL") and checkpoints ("PXCK", a binary
 * payload; ./table-log.ts, ./checkpoint.ts) and the store's root log (./root.ts, magic "PXRT").
 *
 *   offset size  field
 *        0    4  magic
 *        4    4  format version, u32 LE (1)
 *        8    4  payload length, u32 LE
 *       12    4  payload crc32 (of bytes 20 .. 20+length)
 *       16    4  header crc32 (of bytes 0 .. 16)
 *       20    …  payload: UTF-8 JSON (a checkpoint's is binary)
 *
 * A framed file is never incomplete (fsynced under a temporary name before link() publishes
 * it, ./local.ts; an S3 PUT is atomic), so every mismatch, a short file included, is
 * corruption (XX001) naming the file and the offset of the bad part.
 */
import { checksumMismatch, corruption, type PaxdError } from '../types/index.js';
import { crc32 } from './checksum.js';

export const FRAME_VERSION = 1;
const OFF_MAGIC = 0;
const OFF_VERSION = 4;
const OFF_LENGTH = 8;
const OFF_PAYLOAD_CRC = 12;
/** Where a frame's header holds the crc32 of its payload. */
export const FRAME_PAYLOAD_CRC_OFFSET = OFF_PAYLOAD_CRC;
const OFF_HEADER_CRC = 16;
export const FRAME_HEADER_BYTES = 20;

/** What a kind of framed file is called in messages, and its magic. */
export interface FrameKind {
  /** "snapshot", "root" */
  noun: string;
  magic: Uint8Array;
}

export function encodeFrame(kind: FrameKind, value: unknown): Uint8Array {
  return encodeFrameBytes(kind, new TextEncoder().encode(JSON.stringify(value)));
}

/** A frame around a binary payload (a table checkpoint, ./checkpoint.ts). */
export function encodeFrameBytes(kind: FrameKind, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(FRAME_HEADER_BYTES + payload.byteLength);
  const view = new DataView(out.buffer);
  out.set(kind.magic, OFF_MAGIC);
  view.setUint32(OFF_VERSION, FRAME_VERSION, true);
  view.setUint32(OFF_LENGTH, payload.byteLength, true);
  view.setUint32(OFF_PAYLOAD_CRC, crc32(payload), true);
  view.setUint32(OFF_HEADER_CRC, crc32(out.subarray(0, OFF_HEADER_CRC)), true);
  out.set(payload, FRAME_HEADER_BYTES);
  return out;
}

/** The parsed JSON payload of the framed file `bytes` (the whole file at `path`); corruption (XX001) for anything else. */
export function decodeFrame(kind: FrameKind, bytes: Uint8Array, path: string): unknown {
  const payload = decodeFrameBytes(kind, bytes, path);
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload));
  } catch (e) {
    throw corruption(path, FRAME_HEADER_BYTES, `${kind.noun} ${path}: payload is not valid UTF-8 JSON (${e instanceof Error ? e.message : String(e)})`);
  }
}

/** Whether `bytes` start with the magic of `kind` (which kind of framed file a name holds). */
export function hasMagic(kind: FrameKind, bytes: Uint8Array): boolean {
  if (bytes.byteLength < kind.magic.length) return false;
  for (let i = 0; i < kind.magic.length; i++) if (bytes[OFF_MAGIC + i] !== kind.magic[i]) return false;
  return true;
}

/** The verified payload bytes of the framed file `bytes` (a view into it); corruption (XX001) for anything else. */
export function decodeFrameBytes(kind: FrameKind, bytes: Uint8Array, path: string): Uint8Array {
  const { noun } = kind;
  if (bytes.byteLength < FRAME_HEADER_BYTES) throw shortFrame(noun, path, bytes.byteLength, FRAME_HEADER_BYTES, 'its header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < kind.magic.length; i++) {
    if (bytes[OFF_MAGIC + i] !== kind.magic[i]) throw badMagic(kind, path, bytes.subarray(OFF_MAGIC, OFF_MAGIC + 4));
  }
  const headerCrc = crc32(bytes.subarray(0, OFF_HEADER_CRC));
  const storedHeaderCrc = view.getUint32(OFF_HEADER_CRC, true);
  if (headerCrc !== storedHeaderCrc) throw checksumMismatch(`${noun} header of ${path}`, path, OFF_MAGIC, headerCrc, storedHeaderCrc);
  const version = view.getUint32(OFF_VERSION, true);
  if (version !== FRAME_VERSION) throw corruption(path, OFF_VERSION, `${noun} ${path}: format version ${version}, expected ${FRAME_VERSION}`);
  const length = view.getUint32(OFF_LENGTH, true);
  const end = FRAME_HEADER_BYTES + length;
  if (bytes.byteLength < end) throw shortFrame(noun, path, bytes.byteLength, end, `its header's payload length ${length}`);
  if (bytes.byteLength > end)
    throw corruption(path, end, `${noun} ${path}: ${bytes.byteLength - end} bytes after the payload, expected the file to end at offset ${end}`);
  const payload = bytes.subarray(FRAME_HEADER_BYTES, end);
  const payloadCrc = crc32(payload);
  const storedPayloadCrc = view.getUint32(OFF_PAYLOAD_CRC, true);
  if (payloadCrc !== storedPayloadCrc) throw checksumMismatch(`${noun} payload of ${path}`, path, FRAME_HEADER_BYTES, payloadCrc, storedPayloadCrc);
  return payload;
}

/** `snapshot t/_snapshots/…7.snap is 12 bytes long, expected 20 (its header)`, at the file's end. */
function shortFrame(noun: string, path: string, size: number, expected: number, why: string): PaxdError {
  return corruption(path, size, `${noun} ${path} is ${size} bytes long, expected ${expected} (${why}): the file was truncated`);
}

function badMagic(kind: FrameKind, path: string, got: Uint8Array): PaxdError {
  const hex = (b: Uint8Array): string => [...b].map((x) => x.toString(16).padStart(2, '0')).join(' ');
  const text = new TextDecoder().decode(kind.magic);
  return corruption(path, OFF_MAGIC, `${path} is not a ${kind.noun} file: magic ${hex(got)}, expected ${hex(kind.magic)} ("${text}")`);
}

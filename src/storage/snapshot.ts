/**
 * The snapshot file: one committed state of a table, `<table>/_snapshots/<id, 20 digits>.snap`,
 * written once by putIfAbsent and never changed.
 *
 *   offset size  field
 *        0    4  magic "PXSN"
 *        4    4  format version, u32 LE (1)
 *        8    4  payload length, u32 LE
 *       12    4  payload crc32 (of bytes 20 .. 20+length)
 *       16    4  header crc32 (of bytes 0 .. 16)
 *       20    …  payload: UTF-8 JSON of SnapshotJson (./snapshot-types.ts)
 *
 * A snapshot file is never incomplete: it is fsynced under a temporary name before link()
 * publishes it (./local.ts), and an S3 PUT is atomic. So every mismatch, a short file
 * included, is corruption (XX001) naming the file and the offset of the bad part; a reader
 * never falls back to an older snapshot (that would bring back rows deleted since).
 */
import { checksumMismatch, corruption, type PaxdError } from '../types/index.js';
import { crc32 } from './checksum.js';
import type { SnapshotJson } from './snapshot-types.js';

export const SNAPSHOT_MAGIC = new Uint8Array([0x50, 0x58, 0x53, 0x4e]); // "PXSN"
export const SNAPSHOT_VERSION = 1;

const OFF_MAGIC = 0;
const OFF_VERSION = 4;
const OFF_LENGTH = 8;
const OFF_PAYLOAD_CRC = 12;
const OFF_HEADER_CRC = 16;
export const SNAPSHOT_HEADER_BYTES = 20;

/** The folder of a table's snapshots, and the width of the zero-padded id in their names. */
export const SNAPSHOTS_DIR = '_snapshots';
export const SNAPSHOT_SUFFIX = '.snap';
const SNAPSHOT_ID_DIGITS = 20;
const SNAPSHOT_NAME = /^(\d{20})\.snap$/;

/** `t/_snapshots/00000000000000000007.snap` */
export function snapshotPath(table: string, id: number): string {
  return `${table}/${SNAPSHOTS_DIR}/${String(id).padStart(SNAPSHOT_ID_DIGITS, '0')}${SNAPSHOT_SUFFIX}`;
}

/** The id in a snapshot file's name (the last path component), or null for other names. */
export function snapshotIdOf(path: string): number | null {
  const m = SNAPSHOT_NAME.exec(path.slice(path.lastIndexOf('/') + 1));
  if (!m) return null;
  const id = Number(m[1]);
  return Number.isSafeInteger(id) ? id : null;
}

export function encodeSnapshot(s: SnapshotJson): Uint8Array {
  const payload = new TextEncoder().encode(JSON.stringify(s));
  const out = new Uint8Array(SNAPSHOT_HEADER_BYTES + payload.byteLength);
  const view = new DataView(out.buffer);
  out.set(SNAPSHOT_MAGIC, OFF_MAGIC);
  view.setUint32(OFF_VERSION, SNAPSHOT_VERSION, true);
  view.setUint32(OFF_LENGTH, payload.byteLength, true);
  view.setUint32(OFF_PAYLOAD_CRC, crc32(payload), true);
  view.setUint32(OFF_HEADER_CRC, crc32(out.subarray(0, OFF_HEADER_CRC)), true);
  out.set(payload, SNAPSHOT_HEADER_BYTES);
  return out;
}

/** The snapshot in `bytes` (the whole file at `path`); corruption (XX001) for anything else. */
export function decodeSnapshot(bytes: Uint8Array, path: string): SnapshotJson {
  if (bytes.byteLength < SNAPSHOT_HEADER_BYTES) throw shortSnapshot(path, bytes.byteLength, SNAPSHOT_HEADER_BYTES, 'its header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

  for (let i = 0; i < SNAPSHOT_MAGIC.length; i++) {
    if (bytes[OFF_MAGIC + i] !== SNAPSHOT_MAGIC[i]) throw badMagic(path, bytes.subarray(OFF_MAGIC, OFF_MAGIC + 4));
  }
  const headerCrc = crc32(bytes.subarray(0, OFF_HEADER_CRC));
  const storedHeaderCrc = view.getUint32(OFF_HEADER_CRC, true);
  if (headerCrc !== storedHeaderCrc) throw checksumMismatch(`snapshot header of ${path}`, path, OFF_MAGIC, headerCrc, storedHeaderCrc);
  const version = view.getUint32(OFF_VERSION, true);
  if (version !== SNAPSHOT_VERSION) throw corruption(path, OFF_VERSION, `snapshot ${path}: format version ${version}, expected ${SNAPSHOT_VERSION}`);

  const length = view.getUint32(OFF_LENGTH, true);
  const end = SNAPSHOT_HEADER_BYTES + length;
  if (bytes.byteLength < end) throw shortSnapshot(path, bytes.byteLength, end, `its header's payload length ${length}`);
  if (bytes.byteLength > end) {
    throw corruption(path, end, `snapshot ${path}: ${bytes.byteLength - end} bytes after the payload, expected the file to end at offset ${end}`);
  }
  const payload = bytes.subarray(SNAPSHOT_HEADER_BYTES, end);
  const payloadCrc = crc32(payload);
  const storedPayloadCrc = view.getUint32(OFF_PAYLOAD_CRC, true);
  if (payloadCrc !== storedPayloadCrc) {
    throw checksumMismatch(`snapshot payload of ${path}`, path, SNAPSHOT_HEADER_BYTES, payloadCrc, storedPayloadCrc);
  }

  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload));
  } catch (e) {
    throw corruption(path, SNAPSHOT_HEADER_BYTES, `snapshot ${path}: payload is not valid UTF-8 JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const problem = snapshotShapeProblem(value);
  if (problem !== null) throw corruption(path, SNAPSHOT_HEADER_BYTES, `snapshot ${path}: ${problem}`);
  return value as SnapshotJson;
}

/** `snapshot t/_snapshots/…7.snap is 12 bytes long, expected 20 (its header)`, at the file's end. */
function shortSnapshot(path: string, size: number, expected: number, why: string): PaxdError {
  return corruption(path, size, `snapshot ${path} is ${size} bytes long, expected ${expected} (${why}): the file was truncated`);
}

function badMagic(path: string, got: Uint8Array): PaxdError {
  const hex = [...got].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  return corruption(path, OFF_MAGIC, `${path} is not a snapshot file: magic ${hex}, expected 50 58 53 4e ("PXSN")`);
}

// ---- shape check: what the readers of a snapshot rely on, checked once here ----

type Check = (v: unknown) => boolean;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount: Check = (v) => Number.isSafeInteger(v) && (v as number) >= 0;
const isString: Check = (v) => typeof v === 'string';
const isBool: Check = (v) => typeof v === 'boolean';
const oneOf =
  (...values: readonly unknown[]): Check =>
  (v) =>
    values.includes(v);

const SNAPSHOT_FIELDS: Record<string, Check> = {
  format: oneOf(1),
  table: isString,
  id: isCount,
  parent: isCount,
  createdAt: isString,
  operation: oneOf('create', 'append', 'delete', 'compact', 'add_column', 'drop'),
  layout: oneOf('pax', 'ao_column'),
  nextFieldId: isCount,
};
const OPTIONS_FIELDS: Record<string, Check> = {
  codec: oneOf('lz4', 'zstd', 'none'),
  rowGroupRows: isCount,
  rowGroupBytes: isCount,
  zoneRows: isCount,
};
const FIELD_FIELDS: Record<string, Check> = { name: isString, type: isString, notNull: isBool, fieldId: isCount };
const FILE_FIELDS: Record<string, Check> = {
  path: isString,
  size: isCount,
  footerOffset: isCount,
  footerLength: isCount,
  footerCrc: isCount,
};
const GROUP_FIELDS: Record<string, Check> = { rows: isCount, live: isCount };

/** The first field that does not fit SnapshotJson, described; null when it fits. */
function fieldsProblem(v: unknown, fields: Record<string, Check>, where: string): string | null {
  if (!isObject(v)) return `${where} is not an object`;
  for (const [name, ok] of Object.entries(fields)) {
    if (!ok(v[name])) return `${where}.${name} is ${JSON.stringify(v[name]) ?? 'missing'}`;
  }
  return null;
}

function snapshotShapeProblem(v: unknown): string | null {
  const top = fieldsProblem(v, SNAPSHOT_FIELDS, 'snapshot');
  if (top !== null || !isObject(v)) return top;
  if (v.incarnation !== undefined && !(isCount(v.incarnation) && (v.incarnation as number) >= 1)) return `snapshot.incarnation is ${JSON.stringify(v.incarnation)}`;
  const options = fieldsProblem(v.options, OPTIONS_FIELDS, 'snapshot.options');
  if (options !== null) return options;
  if (!Array.isArray(v.fields)) return 'snapshot.fields is not an array';
  for (const [i, f] of v.fields.entries()) {
    const p = fieldsProblem(f, FIELD_FIELDS, `snapshot.fields[${i}]`);
    if (p !== null) return p;
  }
  if (!Array.isArray(v.files)) return 'snapshot.files is not an array';
  for (const [i, f] of v.files.entries()) {
    const p = fieldsProblem(f, FILE_FIELDS, `snapshot.files[${i}]`);
    if (p !== null) return p;
    const groups = (f as Record<string, unknown>).groups;
    if (!Array.isArray(groups)) return `snapshot.files[${i}].groups is not an array`;
    for (const [j, g] of groups.entries()) {
      const where = `snapshot.files[${i}].groups[${j}]`;
      const gp = fieldsProblem(g, GROUP_FIELDS, where);
      if (gp !== null) return gp;
      const group = g as Record<string, unknown>;
      if (!isObject(group.columns)) return `${where}.columns is not an object`;
      if (group.deletesPath !== undefined && !isString(group.deletesPath)) return `${where}.deletesPath is not a string`;
      if (group.deleted !== undefined && !(Array.isArray(group.deleted) && group.deleted.every(isCount))) {
        return `${where}.deleted is not an array of row positions`;
      }
    }
  }
  return null;
}

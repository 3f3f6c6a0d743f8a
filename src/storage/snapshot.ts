/**
 * The snapshot file: one committed state of a table, `<table>/_snapshots/<id, 20 digits>.snap`,
 * written once by putIfAbsent and never changed.
 *
 * framed as ./frame.ts draws it (magic "PXSN"; the payload is the UTF-8 JSON of SnapshotJson,
 * ./snapshot-types.ts):
 *
 *   offset size  field
 *        0    4  magic "PXSN"
 *        4    4  format version, u32 LE (1)
 *        8    4  payload length, u32 LE
 *       12    4  payload crc32 (of bytes 20 .. 20+length)
 *       16    4  header crc32 (of bytes 0 .. 16)
 *       20    …  payload: UTF-8 JSON of SnapshotJson
 *
 * A snapshot file is never incomplete: it is fsynced under a temporary name before link()
 * publishes it (./local.ts), and an S3 PUT is atomic. So every mismatch, a short file
 * included, is corruption (XX001) naming the file and the offset of the bad part; a reader
 * never falls back to an older snapshot (that would bring back rows deleted since).
 */
import { corruption } from '../types/index.js';
import { decodeFrame, encodeFrame, FRAME_HEADER_BYTES, FRAME_VERSION, type FrameKind } from './frame.js';
import type { SnapshotJson } from './snapshot-types.js';

export const SNAPSHOT_MAGIC = new Uint8Array([0x50, 0x58, 0x53, 0x4e]); // "PXSN"
export const SNAPSHOT_VERSION = FRAME_VERSION;
export const SNAPSHOT_HEADER_BYTES = FRAME_HEADER_BYTES;
const SNAPSHOT_FRAME: FrameKind = { noun: 'snapshot', magic: SNAPSHOT_MAGIC };

/** The folder of a table's snapshots, and the width of the zero-padded id in their names. */
export const SNAPSHOTS_DIR = '_snapshots';
export const SNAPSHOT_SUFFIX = '.snap';
export const SNAPSHOT_ID_DIGITS = 20;
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
  return encodeFrame(SNAPSHOT_FRAME, s);
}

/** The snapshot in `bytes` (the whole file at `path`); corruption (XX001) for anything else (./frame.ts). */
export function decodeSnapshot(bytes: Uint8Array, path: string): SnapshotJson {
  const value = decodeFrame(SNAPSHOT_FRAME, bytes, path);
  const problem = snapshotShapeProblem(value);
  if (problem !== null) throw corruption(path, SNAPSHOT_HEADER_BYTES, `snapshot ${path}: ${problem}`);
  return value as SnapshotJson;
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
  operation: oneOf('create', 'append', 'delete', 'compact', 'add_column', 'drop', 'replace_view'),
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

export function snapshotShapeProblem(v: unknown): string | null {
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

/**
 * Delete vectors (DESIGN.md "Table format invariants"; docs/FORMAT.md "Delete vectors"): the
 * deleted row positions of one row group. Up to INLINE_DELETES positions are kept inline in
 * the snapshot (`GroupJson.deleted`, a sorted JSON array); more are written to an object of
 * their own, `<table>/deletes/<name>.dv`, referenced by `GroupJson.deletesPath`:
 *
 *   offset  size     field
 *   0       4        magic "PXDV" (50 58 44 56)
 *   4       2        format version, u16 LE (1)
 *   6       2        reserved, zero
 *   8       4        count of positions n, u32 LE
 *   12      4        rows of the group, u32 LE (positions are < rows)
 *   16      4        crc32 of the positions (bytes 24 .. 24 + 4n), u32 LE
 *   20      4        crc32 of the header (bytes 0 .. 20), u32 LE
 *   24      4n       positions, u32 LE, strictly increasing
 *
 * Like data files, an object is written and made durable before a snapshot references it and
 * is never rewritten: a later delete in the same group writes a new object with the union.
 */
import { crc32 } from 'node:zlib';
import { checksumMismatch, corruption } from '../types/index.js';
import { type GroupJson, type ObjectStore, newFileName } from '../storage/index.js';

export const INLINE_DELETES = 1024;
export const DV_MAGIC = new Uint8Array([0x50, 0x58, 0x44, 0x56]); // "PXDV"
export const DV_VERSION = 1;
export const DV_HEADER_BYTES = 24;

const AT_VERSION = 4;
const AT_COUNT = 8;
const AT_ROWS = 12;
const AT_DATA_CRC = 16;
const AT_HEADER_CRC = 20;

export function encodeDeleteVector(positions: readonly number[] | Uint32Array, rows: number): Uint8Array {
  const n = positions.length;
  const out = new Uint8Array(DV_HEADER_BYTES + 4 * n);
  const dv = new DataView(out.buffer);
  out.set(DV_MAGIC, 0);
  dv.setUint16(AT_VERSION, DV_VERSION, true);
  dv.setUint32(AT_COUNT, n, true);
  dv.setUint32(AT_ROWS, rows, true);
  for (let i = 0; i < n; i++) dv.setUint32(DV_HEADER_BYTES + 4 * i, positions[i]!, true);
  dv.setUint32(AT_DATA_CRC, crc32(out.subarray(DV_HEADER_BYTES)) >>> 0, true);
  dv.setUint32(AT_HEADER_CRC, crc32(out.subarray(0, AT_HEADER_CRC)) >>> 0, true);
  return out;
}

/** Decodes and verifies a delete-vector object; every failure is corruption (XX001) at an offset. */
export function decodeDeleteVector(b: Uint8Array, path: string, rows: number): Uint32Array {
  if (b.byteLength < DV_HEADER_BYTES) throw corruption(path, b.byteLength, `delete vector: ${b.byteLength} bytes, shorter than its ${DV_HEADER_BYTES}-byte header`);
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let i = 0; i < 4; i++) if (b[i] !== DV_MAGIC[i]) throw corruption(path, 0, 'delete vector: bad magic, expected "PXDV"');
  const headerCrc = crc32(b.subarray(0, AT_HEADER_CRC)) >>> 0;
  if (headerCrc !== dv.getUint32(AT_HEADER_CRC, true)) throw checksumMismatch('delete vector header', path, 0, headerCrc, dv.getUint32(AT_HEADER_CRC, true));
  const version = dv.getUint16(AT_VERSION, true);
  if (version !== DV_VERSION) throw corruption(path, AT_VERSION, `delete vector: format version ${version}, expected ${DV_VERSION}`);
  const n = dv.getUint32(AT_COUNT, true);
  if (b.byteLength !== DV_HEADER_BYTES + 4 * n) throw corruption(path, AT_COUNT, `delete vector: ${n} positions need ${DV_HEADER_BYTES + 4 * n} bytes, the object has ${b.byteLength}`);
  const stored = dv.getUint32(AT_ROWS, true);
  if (stored !== rows) throw corruption(path, AT_ROWS, `delete vector: written for a group of ${stored} rows, the snapshot says ${rows}`);
  const dataCrc = crc32(b.subarray(DV_HEADER_BYTES)) >>> 0;
  if (dataCrc !== dv.getUint32(AT_DATA_CRC, true)) throw checksumMismatch('delete vector positions', path, DV_HEADER_BYTES, dataCrc, dv.getUint32(AT_DATA_CRC, true));
  const out = new Uint32Array(n);
  let prev = -1;
  for (let i = 0; i < n; i++) {
    const p = dv.getUint32(DV_HEADER_BYTES + 4 * i, true);
    if (p <= prev || p >= rows) throw corruption(path, DV_HEADER_BYTES + 4 * i, `delete vector: position ${p} after ${prev} in a group of ${rows} rows`);
    out[i] = p;
    prev = p;
  }
  return out;
}

/** The deleted positions of a group (sorted), or null when none are deleted. */
export async function loadDeleted(store: ObjectStore, table: string, g: GroupJson): Promise<Uint32Array | null> {
  if (g.deletesPath !== undefined) {
    const path = `${table}/${g.deletesPath}`;
    return decodeDeleteVector(await store.read(path), path, g.rows);
  }
  if (g.deleted === undefined || g.deleted.length === 0) return null;
  return Uint32Array.from(g.deleted);
}

/** A mask over the group's rows, 1 = deleted. */
export function deletedMask(positions: Uint32Array, rows: number): Uint8Array {
  const m = new Uint8Array(rows);
  for (let i = 0; i < positions.length; i++) m[positions[i]!] = 1;
  return m;
}

/**
 * Records `positions` (sorted) in a GroupJson: inline when small, else in a new durable
 * object. Returns the fields to set (`deleted` or `deletesPath`).
 */
export async function storeDeleted(store: ObjectStore, table: string, positions: Uint32Array, rows: number): Promise<Pick<GroupJson, 'deleted' | 'deletesPath'>> {
  if (positions.length === 0) return {};
  if (positions.length <= INLINE_DELETES) return { deleted: Array.from(positions) };
  const rel = `deletes/${newFileName()}.dv`;
  const w = await store.create(`${table}/${rel}`);
  try {
    await w.write(encodeDeleteVector(positions, rows));
    await w.close();
  } catch (e) {
    await w.abort().catch(() => undefined);
    throw e;
  }
  return { deletesPath: rel };
}

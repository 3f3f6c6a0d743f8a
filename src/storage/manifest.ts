/**
 * A checkpoint in parts (format v2, milestone 2 of issue #20; Iceberg's manifest list and
 * manifests are the model): the checkpoint file `<table>/_snapshots/<N>.ckpt` is a small
 * *manifest list* naming *manifests*, each holding a run of the state's data files with their
 * groups. A checkpoint rewrites only what changed since the previous one: manifests whose
 * files are all unchanged are named again, the files added since go to new manifests, and
 * small manifests are merged in tiers (FANOUT of one size class into one of the next), so a
 * file entry is rewritten a bounded number of times and an open reads a few manifests.
 *
 *   <table>/_snapshots/00000000000000000512.ckpt                 manifest list, magic "PXCL"
 *   <table>/_snapshots/00000000000000000512-1f2e3d4c5b6a7980.mf  manifest, magic "PXMF"
 *
 * Both are framed (./frame.ts: magic, version 1, payload length, payload crc, header crc) and
 * created exclusively; a manifest's name carries the number of the checkpoint that wrote it
 * and 8 random bytes (two writers of checkpoint N never collide), and it is never rewritten.
 *
 * Manifest list payload: UTF-8 JSON
 *
 *   { "format": 2, "table": "t", "id": 512,
 *     "state": { SnapshotJson without "files" },            // schema, options, ao, ingested
 *     "manifests": [ { "path": "t/_snapshots/…-….mf",        // in file order
 *                      "files": 12, "groups": 4096, "bytes": 1188112, "crc": 305419896 } ] }
 *
 *   (`bytes`: the manifest's size; `crc`: the crc32 of its payload, as its frame header holds it)
 *
 * Manifest payload (the typed group columns are a checkpoint's, ./checkpoint.ts):
 *
 *   offset  size  field
 *   0       4     H, byte length of the head, u32
 *   4       H     head: UTF-8 JSON {"table": "t", "files": [DataFileJson with groups = its group count]}
 *   4+H     …     the groups of those files as typed columns (encodeGroups)
 *
 * A reader checks the list's frame and shape, then each manifest's size and crc against the
 * list's entry, its frame, head and columns: any mismatch makes the checkpoint unusable (its
 * state is then built from the deltas below it, ./table-state.ts), never a wrong state.
 */
import { randomBytes } from 'node:crypto';
import { corruption } from '../types/index.js';
import { DEC, decodeGroups, ENC, encodeGroups, In, Out, readJsonHead } from './checkpoint.js';
import { decodeFrameBytes, encodeFrame, encodeFrameBytes, FRAME_HEADER_BYTES, FRAME_PAYLOAD_CRC_OFFSET, type FrameKind } from './frame.js';
import type { DataFileJson, SnapshotJson } from './snapshot-types.js';

export const MANIFEST_LIST_FRAME: FrameKind = { noun: 'manifest list', magic: new Uint8Array([0x50, 0x58, 0x43, 0x4c]) }; // "PXCL"
export const MANIFEST_FRAME: FrameKind = { noun: 'manifest', magic: new Uint8Array([0x50, 0x58, 0x4d, 0x46]) }; // "PXMF"
export const MANIFEST_SUFFIX = '.mf';

/** Manifests of one size class merged into one (tiered, as an LSM tree's levels). */
export const MANIFEST_FANOUT = 4;
/** Groups above which a manifest is never merged again, and a run of new files is cut into manifests. */
export const MANIFEST_MAX_GROUPS = 4096;

/** A manifest as a list names it. */
export interface ManifestRef {
  path: string;
  files: number;
  groups: number;
  bytes: number;
  crc: number;
}

/** A manifest and the file entries (the state's own objects) it holds. */
export interface ManifestUse {
  ref: ManifestRef;
  files: readonly DataFileJson[];
}

export interface ManifestListJson {
  format: 2;
  table: string;
  id: number;
  state: Omit<SnapshotJson, 'files'>;
  manifests: ManifestRef[];
}

/** `t/_snapshots/00000000000000000512-1f2e3d4c5b6a7980.mf` */
export function manifestPath(table: string, checkpoint: number): string {
  return `${table}/_snapshots/${String(checkpoint).padStart(20, '0')}-${randomBytes(8).toString('hex')}${MANIFEST_SUFFIX}`;
}

export function isManifestPath(path: string): boolean {
  return /\/_snapshots\/\d{20}-[0-9a-f]{16}\.mf$/.test(path);
}

export function encodeManifest(table: string, files: readonly DataFileJson[]): Uint8Array {
  const out = new Out();
  const head = ENC.encode(JSON.stringify({ table, files: files.map((f) => ({ ...f, groups: f.groups.length })) }));
  out.u32(head.byteLength);
  out.bytes(head);
  encodeGroups(out, files);
  return encodeFrameBytes(MANIFEST_FRAME, out.done());
}

/**
 * The files of manifest `bytes` (the whole object at `path`, named by `ref`); `check` is the
 * shape check of file entries (./snapshot.ts). Corruption (XX001) for anything else.
 */
export function decodeManifest(bytes: Uint8Array, path: string, ref: ManifestRef, table: string, check: (files: unknown[]) => string | null): DataFileJson[] {
  if (bytes.byteLength !== ref.bytes) throw corruption(path, Math.min(bytes.byteLength, ref.bytes), `manifest ${path} is ${bytes.byteLength} bytes long, its manifest list says ${ref.bytes}`);
  // The frame verifies the payload against the crc in its header; that crc must be the list's.
  const payload = decodeFrameBytes(MANIFEST_FRAME, bytes, path);
  const crc = payloadCrcOf(bytes);
  if (crc !== ref.crc) throw corruption(path, FRAME_PAYLOAD_CRC_OFFSET, `manifest ${path}: payload crc32 0x${crc.toString(16)}, its manifest list says 0x${ref.crc.toString(16)}`);
  const r = new In(payload, path, FRAME_HEADER_BYTES, 'manifest');
  const head = readJsonHead(r, path, 'manifest');
  const h = head as { table?: unknown; files?: unknown };
  if (typeof head !== 'object' || head === null || h.table !== table || !Array.isArray(h.files)) throw corruption(path, FRAME_HEADER_BYTES + 4, `manifest ${path}: the head is not {"table": "${table}", "files": [...]}`);
  if (h.files.length !== ref.files) throw corruption(path, FRAME_HEADER_BYTES + 4, `manifest ${path} holds ${h.files.length} files, its manifest list says ${ref.files}`);
  const problem = check(h.files.map((f) => ({ ...(f as object), groups: [] })));
  if (problem !== null) throw corruption(path, FRAME_HEADER_BYTES + 4, `manifest ${path}: ${problem}`);
  const files = decodeGroups(r, payload, path, h.files);
  let groups = 0;
  for (const f of h.files) groups += (f as { groups: number }).groups;
  if (groups !== ref.groups) throw corruption(path, FRAME_HEADER_BYTES + 4, `manifest ${path} holds ${groups} groups, its manifest list says ${ref.groups}`);
  return files;
}

/** The payload crc a framed file's header holds (verified by decodeFrameBytes). */
export function payloadCrcOf(bytes: Uint8Array): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(FRAME_PAYLOAD_CRC_OFFSET, true);
}

export function encodeManifestList(l: ManifestListJson): Uint8Array {
  return encodeFrame(MANIFEST_LIST_FRAME, l);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;

/** The manifest list in `bytes` (the whole file at `path`, checkpoint `id` of `table`); corruption (XX001) for anything else. */
export function decodeManifestList(bytes: Uint8Array, path: string, table: string, id: number): ManifestListJson {
  const payload = decodeFrameBytes(MANIFEST_LIST_FRAME, bytes, path);
  let v: unknown;
  try {
    v = JSON.parse(DEC.decode(payload));
  } catch {
    throw corruption(path, FRAME_HEADER_BYTES, `manifest list ${path}: payload is not valid UTF-8 JSON`);
  }
  const bad = (why: string) => corruption(path, FRAME_HEADER_BYTES, `manifest list ${path}: ${why}`);
  if (!isObject(v) || v.format !== 2 || v.table !== table || v.id !== id) throw bad(`not the manifest list of checkpoint ${id} of table "${table}"`);
  if (!isObject(v.state) || !Array.isArray(v.manifests)) throw bad('it has no state head or no manifests array');
  const prefix = `${table}/_snapshots/`;
  for (const [i, m] of v.manifests.entries()) {
    if (!isObject(m) || typeof m.path !== 'string' || !m.path.startsWith(prefix) || !isManifestPath(m.path) || !isCount(m.files) || !isCount(m.groups) || !isCount(m.bytes) || !isCount(m.crc) || (m.crc as number) > 0xffffffff)
      throw bad(`manifests[${i}] is not {path, files, groups, bytes, crc} of a manifest of this table`);
  }
  return v as unknown as ManifestListJson;
}

/** What a checkpoint of `files` writes: manifests named again (`ref`) and new ones (`files` only), in file order. */
export type PlannedManifest = { ref: ManifestRef; files: readonly DataFileJson[] } | { ref: null; files: readonly DataFileJson[] };

function groupsOf(files: readonly DataFileJson[]): number {
  let n = 0;
  for (const f of files) n += f.groups.length;
  return n;
}

/** Size class of a manifest of `groups` groups: manifests of one class are merged FANOUT at a time. */
function sizeClass(groups: number): number {
  return Math.floor(Math.log(Math.max(1, groups)) / Math.log(MANIFEST_FANOUT));
}

/**
 * The manifests of a checkpoint of `files`, given those of the previous checkpoint (`prev`,
 * whose file entries are the state's own objects where unchanged: a state's unchanged entries
 * are the same objects, ./delta.ts). A previous manifest is named again when the state holds
 * exactly its files, in a row; the other files go to new manifests of at most
 * MANIFEST_MAX_GROUPS groups (a file is never split); then FANOUT adjacent manifests of one
 * size class below MANIFEST_MAX_GROUPS merge into one, repeatedly.
 */
export function planManifests(files: readonly DataFileJson[], prev: readonly ManifestUse[]): PlannedManifest[] {
  const byFirst = new Map<DataFileJson, ManifestUse>();
  for (const m of prev) if (m.files.length > 0) byFirst.set(m.files[0]!, m);
  const out: PlannedManifest[] = [];
  let fresh: DataFileJson[] = [];
  let freshGroups = 0;
  const flush = (): void => {
    if (fresh.length > 0) out.push({ ref: null, files: fresh });
    fresh = [];
    freshGroups = 0;
  };
  for (let i = 0; i < files.length; ) {
    const m = byFirst.get(files[i]!);
    if (m !== undefined && i + m.files.length <= files.length && m.files.every((f, k) => files[i + k] === f)) {
      flush();
      out.push({ ref: m.ref, files: m.files });
      i += m.files.length;
      continue;
    }
    const f = files[i]!;
    if (fresh.length > 0 && freshGroups + f.groups.length > MANIFEST_MAX_GROUPS) flush();
    fresh.push(f);
    freshGroups += f.groups.length;
    i++;
  }
  flush();
  // Tiered merging: FANOUT neighbours of one class (below the cap) become one manifest.
  for (let merged = true; merged; ) {
    merged = false;
    const sizes = out.map((m) => (m.ref !== null ? m.ref.groups : groupsOf(m.files)));
    for (let i = 0; i + MANIFEST_FANOUT <= out.length; i++) {
      const c = sizeClass(sizes[i]!);
      let ok = true;
      let total = 0;
      for (let k = i; k < i + MANIFEST_FANOUT && ok; k++) {
        ok = sizeClass(sizes[k]!) === c && sizes[k]! < MANIFEST_MAX_GROUPS;
        total += sizes[k]!;
      }
      if (!ok || total > MANIFEST_MAX_GROUPS) continue;
      const files = out.slice(i, i + MANIFEST_FANOUT).flatMap((m) => m.files);
      out.splice(i, MANIFEST_FANOUT, { ref: null, files });
      merged = true;
      break;
    }
  }
  return out;
}

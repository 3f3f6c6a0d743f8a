/**
 * The store root log: the one place a store's committed state is decided (docs/FORMAT.md
 * "The store root log"). Root S is `_paxd/root/<S, 20 digits>.root`, created exclusively by
 * putIfAbsent and never changed, framed as ./frame.ts draws it (magic "PXRT") around the
 * UTF-8 JSON of RootJson:
 *
 *   { "format": 1, "id": 7, "parent": 6, "createdAt": "…", "operation": "commit",
 *     "changed": ["a", "b"],
 *     "tables":  { "a": { "snapshot": 12, "incarnation": 1 }, "b": { "snapshot": 4, "incarnation": 3 } },
 *     "dropped": { "c": 9 } }
 *
 * `tables` is the catalog: a table exists iff the newest root names it, and its committed
 * state is the snapshot file the root names — never merely the newest file in `_snapshots/`,
 * which may be an orphan a crashed or beaten writer left. `dropped` remembers, per dropped
 * name, its tombstone's snapshot id: a re-create numbers its snapshots above it (no name is
 * ever reused) and vacuum knows the folder still has data to remove.
 *
 * A store written before the root log (format v1) has no `_paxd/root/`: readers then take each
 * table's newest snapshot file, as v1 did (`null` for the root below), and the first writer
 * creates root 1 from that listing (./catalog.ts `rootForWrite`).
 */
import { corruption, isPaxdError } from '../types/index.js';
import { decodeFrame, encodeFrame, FRAME_HEADER_BYTES, type FrameKind } from './frame.js';
import { readHint, writeHint } from './hint.js';
import type { ObjectStore } from './store.js';

export const ROOT_DIR = '_paxd/root';
const ROOT_SUFFIX = '.root';
const ROOT_ID_DIGITS = 20;
const ROOT_NAME = /^(\d{20})\.root$/;
export const ROOT_MAGIC = new Uint8Array([0x50, 0x58, 0x52, 0x54]); // "PXRT"
const ROOT_FRAME: FrameKind = { noun: 'root', magic: ROOT_MAGIC };

/** One live table in a root: the snapshot committed for it and the incarnation that snapshot belongs to. */
export interface RootEntry {
  snapshot: number;
  incarnation: number;
}

/** What a root commits: create, drop and add_column are DDL; 'upgrade' is root 1 of a v1 store; 'init' root 1 of a new one. */
export type RootOperation = 'init' | 'upgrade' | 'commit';

export interface RootJson {
  format: 1;
  id: number;
  /** The root this one was built on (id − 1; 0 for root 1). */
  parent: number;
  createdAt: string;
  operation: RootOperation;
  /** Tables whose entry this root changed (created, written, dropped), sorted. */
  changed: string[];
  tables: Record<string, RootEntry>;
  /** Dropped names: the snapshot id of the tombstone each left. */
  dropped: Record<string, number>;
}

/** `_paxd/root/00000000000000000007.root` */
export function rootPath(id: number): string {
  return `${ROOT_DIR}/${String(id).padStart(ROOT_ID_DIGITS, '0')}${ROOT_SUFFIX}`;
}

/** The id of a root file's path, or null for other names. */
export function rootIdOf(path: string): number | null {
  if (!path.startsWith(`${ROOT_DIR}/`)) return null;
  const m = ROOT_NAME.exec(path.slice(ROOT_DIR.length + 1));
  if (!m) return null;
  const id = Number(m[1]);
  return Number.isSafeInteger(id) && id >= 1 ? id : null;
}

export function encodeRoot(r: RootJson): Uint8Array {
  return encodeFrame(ROOT_FRAME, r);
}

/** The root in `bytes` (the whole file at `path`, which names root `id`); corruption (XX001) for anything else. */
export function decodeRoot(bytes: Uint8Array, path: string, id: number): RootJson {
  const v = decodeFrame(ROOT_FRAME, bytes, path);
  const problem = rootShapeProblem(v);
  if (problem !== null) throw corruption(path, FRAME_HEADER_BYTES, `root ${path}: ${problem}`);
  const r = v as RootJson;
  if (r.id !== id) throw corruption(path, FRAME_HEADER_BYTES, `root ${path} holds root id ${r.id}, expected ${id}`);
  return r;
}

const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function rootShapeProblem(v: unknown): string | null {
  if (!isRecord(v)) return 'the payload is not an object';
  if (v.format !== 1) return `root.format is ${JSON.stringify(v.format)}, expected 1`;
  for (const k of ['id', 'parent']) if (!isCount(v[k])) return `root.${k} is ${JSON.stringify(v[k]) ?? 'missing'}`;
  if (typeof v.createdAt !== 'string') return 'root.createdAt is not a string';
  if (v.operation !== 'init' && v.operation !== 'upgrade' && v.operation !== 'commit') return `root.operation is ${JSON.stringify(v.operation)}`;
  if (!Array.isArray(v.changed) || !v.changed.every((c) => typeof c === 'string')) return 'root.changed is not an array of names';
  if (!isRecord(v.tables)) return 'root.tables is not an object';
  for (const [name, e] of Object.entries(v.tables)) {
    if (!isRecord(e) || !isCount(e.snapshot) || !isCount(e.incarnation) || (e.incarnation as number) < 1)
      return `root.tables["${name}"] is ${JSON.stringify(e)}`;
  }
  if (!isRecord(v.dropped)) return 'root.dropped is not an object';
  for (const [name, id] of Object.entries(v.dropped)) if (!isCount(id)) return `root.dropped["${name}"] is ${JSON.stringify(id)}`;
  return null;
}

/** Per store: the newest root this process has seen. Roots are immutable and only ever added. */
const NEWEST = new WeakMap<ObjectStore, RootJson>();

/**
 * `_paxd/root/_hint` names a recent root (./hint.ts, magic "PXRH"), rewritten every
 * ROOT_HINT_EVERY roots, so that a process's first look lists only the roots after it (S3
 * `start-after`): the hint and one listing page find the newest root, whatever the length of
 * the history vacuum has not removed yet.
 */
export const ROOT_HINT_PATH = `${ROOT_DIR}/_hint`;
export const ROOT_HINT_EVERY = 64;
const ROOT_HINT_FRAME: FrameKind = { noun: 'root hint', magic: new Uint8Array([0x50, 0x58, 0x52, 0x48]) }; // "PXRH"

/** After root `id` is committed: moves the hint to it every ROOT_HINT_EVERY roots (best effort). */
export async function noteCommittedRoot(store: ObjectStore, id: number): Promise<void> {
  if (id % ROOT_HINT_EVERY !== 0) return;
  await writeHint(store, ROOT_HINT_PATH, ROOT_HINT_FRAME, id).catch(() => undefined);
}

/**
 * The newest root of the store, or null for a store without a root log (format v1, or new and
 * never written). Costs one read of the next root's name that is not there (a GET answering
 * 404 on S3) once a root has been seen; the first call reads the hint and lists the roots after
 * it (two requests on S3), then reads the newest.
 */
export async function newestRoot(store: ObjectStore): Promise<RootJson | null> {
  let last = NEWEST.get(store) ?? null;
  if (last === null) {
    const hint = await readHint(store, ROOT_HINT_PATH, ROOT_HINT_FRAME);
    const ids = await listRootIds(store, hint ?? undefined);
    const id = ids.length > 0 ? ids[ids.length - 1]! : hint;
    if (id === null) return null;
    last = await readRootOrNull(store, id);
    if (last === null) {
      // Vacuumed between the listing and the read (newer ones exist), or a hint naming a root
      // that is gone: list them all.
      const all = await listRootIds(store);
      if (all.length === 0) return null;
      last = await readRootOrNull(store, all[all.length - 1]!);
      if (last === null) return newestRoot(store);
    }
    // Just listed: the newest as of now, no need to probe for the next.
    noteRoot(store, last);
    return last;
  }
  for (;;) {
    const next = await readRootOrNull(store, last.id + 1);
    if (next === null) break;
    last = next;
  }
  noteRoot(store, last);
  return last;
}

/** Remembers `r` as the newest root seen when it is newer than the one remembered. */
export function noteRoot(store: ObjectStore, r: RootJson): void {
  const seen = NEWEST.get(store);
  if (seen === undefined || seen.id < r.id) NEWEST.set(store, r);
}

/** Root ids present in `_paxd/root/`, ascending (with `after`, only those above it: listed from there on S3). */
export async function listRootIds(store: ObjectStore, after?: number): Promise<number[]> {
  const out: number[] = [];
  for (const o of await store.list(`${ROOT_DIR}/`, after === undefined ? undefined : rootPath(after))) {
    const id = rootIdOf(o.path);
    if (id !== null && o.path === rootPath(id) && (after === undefined || id > after)) out.push(id);
  }
  return out.sort((a, b) => a - b);
}

/** Root `id`, or null when there is no such file. */
export async function readRootOrNull(store: ObjectStore, id: number): Promise<RootJson | null> {
  const path = rootPath(id);
  let bytes: Uint8Array;
  try {
    bytes = await store.read(path);
  } catch (e) {
    if (isPaxdError(e) && e.kind === 'not_found') return null;
    throw e;
  }
  return decodeRoot(bytes, path, id);
}

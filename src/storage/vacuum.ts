/**
 * `paxd vacuum TABLE`: removes what no committed state needs any more.
 *
 * 1. Snapshots: the newest `retainSnapshots` committed snapshots (default 1) are kept, and so
 *    is every snapshot file younger than the grace period (a reader may have pinned it); the
 *    rest are deleted. A damaged snapshot among those read (the newest ones) stops vacuum
 *    with XX001 before anything is deleted: it is the evidence of corruption, and nothing
 *    tells what its table still needs.
 * 2. Objects: everything else under the table folder that no kept snapshot references (data
 *    files, `files[].path`; delete vectors, `groups[].deletesPath`; both relative to the table
 *    folder) and that is older than the grace is deleted, `.tmp-*` leftovers of interrupted
 *    commits included.
 *
 *    ao_column tables reference segment files (`ao/<fieldId>/<segno>.seg` of every set in
 *    `ao.segments`; stripe entries name no object). Segment claims (`ao/claims/`) are removed
 *    only once obsolete — their set's committed generation in the newest snapshot is past
 *    theirs — never merely for their age: a live writer may hold one for longer than the grace.
 *
 * A dropped table is vacuumed the same way: its newest snapshot, the tombstone, is kept (a
 * re-create numbers its snapshot above it, so no name is ever reused) and references nothing,
 * so every data file, delete vector and older snapshot past the grace goes. The segment-number
 * claim its drop left (./drop.ts) stays.
 *
 * Snapshots go first, data second: a crash in between leaves garbage, never a kept
 * snapshot pointing at a deleted file.
 *
 * The grace period is what makes vacuum safe next to live writers and readers: it must be
 * longer than the longest write (data files are written before the snapshot that references
 * them is committed) and the longest statement (a reader pins a snapshot). Default one hour;
 * `graceMs: 0` is for tests and for tables nobody else is using.
 */
import { tableNotFound } from '../types/index.js';
import { checkTableName, listSnapshots } from './catalog.js';
import { TEMP_PREFIX } from './local.js';
import { CLAIMS_DIR, parseClaimPath } from './claim.js';
import { decodeSnapshot, snapshotIdOf, snapshotPath } from './snapshot.js';
import type { SnapshotJson } from './snapshot-types.js';
import type { ObjectStore } from './store.js';

export const DEFAULT_VACUUM_GRACE_MS = 60 * 60 * 1000;
export const DEFAULT_RETAIN_SNAPSHOTS = 1;

export interface VacuumOptions {
  /** Objects modified less than this long ago are kept. Default 1 hour. */
  graceMs?: number;
  /** Newest committed snapshots always kept (at least 1). Default 1. */
  retainSnapshots?: number;
  /** The clock, ms since the epoch (tests). */
  now?: () => number;
}

export interface VacuumResult {
  snapshotsRemoved: number;
  snapshotsKept: number;
  /** Data and delete-vector objects removed. */
  filesRemoved: number;
  /** `.tmp-*` leftovers removed. */
  tempFilesRemoved: number;
  /** Bytes of everything removed. */
  bytesRemoved: number;
}

export async function vacuum(store: ObjectStore, table: string, opts: VacuumOptions = {}): Promise<VacuumResult> {
  checkTableName(table);
  const graceMs = opts.graceMs ?? DEFAULT_VACUUM_GRACE_MS;
  const retain = Math.max(1, opts.retainSnapshots ?? DEFAULT_RETAIN_SNAPSHOTS);
  // List before reading any snapshot: an object written after this listing is not seen, and
  // one seen here is either referenced by a snapshot read below or older than the grace.
  const objects = await store.list(`${table}/`);
  const cutoff = (opts.now ?? Date.now)() - graceMs;
  const result: VacuumResult = { snapshotsRemoved: 0, snapshotsKept: 0, filesRemoved: 0, tempFilesRemoved: 0, bytesRemoved: 0 };

  // 1. Which snapshots stay, and what they reference.
  const snapshots = await listSnapshots(store, table);
  const referenced = new Set<string>();
  const doomed: { path: string; size: number }[] = [];
  let keptCommitted = 0;
  let newest: SnapshotJson | null = null;
  for (const s of snapshots) {
    const young = s.mtimeMs > cutoff;
    if (!young && keptCommitted >= retain) {
      doomed.push(s);
      continue;
    }
    const snap = decodeSnapshot(await store.read(s.path), s.path); // a damaged one throws: keep everything
    keptCommitted++;
    result.snapshotsKept++;
    newest ??= snap;
    for (const p of referencedPaths(snap)) referenced.add(`${table}/${p}`);
  }
  // No snapshot at all: nothing tells what is garbage.
  if (keptCommitted === 0) throw tableNotFound(table);

  for (const s of doomed) {
    await store.delete(s.path);
    result.snapshotsRemoved++;
    result.bytesRemoved += s.size;
  }

  // 2. Everything else nobody references.
  for (const o of objects) {
    const id = snapshotIdOf(o.path);
    if (id !== null && o.path === snapshotPath(table, id)) continue;
    if (referenced.has(o.path) || o.mtimeMs > cutoff) continue;
    if (o.path.startsWith(`${table}/${CLAIMS_DIR}/`) && !claimObsolete(o.path, newest!)) continue;
    await store.delete(o.path);
    if (o.path.slice(o.path.lastIndexOf('/') + 1).startsWith(TEMP_PREFIX)) result.tempFilesRemoved++;
    else result.filesRemoved++;
    result.bytesRemoved += o.size;
  }
  return result;
}

/** Paths, relative to the table folder, of the objects a snapshot needs. */
export function referencedPaths(s: SnapshotJson): string[] {
  const out: string[] = [];
  for (const f of s.files) {
    if (f.layout === undefined) out.push(f.path); // an ao_column stripe's path names no object
    for (const g of f.groups) if (g.deletesPath !== undefined) out.push(g.deletesPath);
  }
  for (const seg of s.ao?.segments ?? []) for (const fieldId of Object.keys(seg.eof)) out.push(`ao/${fieldId}/${seg.segno}.seg`);
  return out;
}

/** A claim on a generation the set has committed past (or a malformed name). */
function claimObsolete(path: string, newest: SnapshotJson): boolean {
  const c = parseClaimPath(path);
  if (c === null) return true;
  const seg = newest.ao?.segments.find((s) => s.segno === c.segno);
  return seg !== undefined && seg.gen > c.gen;
}

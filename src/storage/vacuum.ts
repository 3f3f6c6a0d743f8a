/**
 * `paxd vacuum TABLE`: removes what no committed state needs any more.
 *
 * 1. Snapshots: the one the newest root names (given a checkpoint first, docs/FORMAT.md
 *    "Table metadata v2", so that it needs no delta below it) (src/storage/root.ts) and its `retainSnapshots`
 *    − 1 ancestors (default 1 in all) are kept, and so is every snapshot a root that a reader
 *    may still have pinned names (one superseded less than the grace period ago), and every
 *    snapshot file younger than the grace (a commit in flight), and every file numbered above
 *    the committed one (orphans of crashed or beaten writers, kept so that no number is ever
 *    taken twice, until a later commit numbers past them); the rest, older orphans included,
 *    are deleted; so are checkpoints no kept state is built from. Every delta a kept state is
 *    built from (down to its checkpoint) stays. A damaged snapshot among those read stops
 *    vacuum with XX001 before anything is deleted: it is the evidence of corruption, and
 *    nothing tells what its table still needs. (A store without a root log, format v1: the
 *    newest snapshot file is the committed one, as v1 had it.)
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
 * 3. Roots superseded longer than the grace period ago are deleted (never the newest).
 *
 * Snapshots go first, data second, roots last: a crash in between leaves garbage, never a
 * kept snapshot pointing at a deleted file or a kept root naming a deleted snapshot.
 *
 * The grace period is what makes vacuum safe next to live writers and readers: it must be
 * longer than the longest write (data files are written before the snapshot that references
 * them is committed) and the longest statement (a reader pins a snapshot). Default one hour;
 * `graceMs: 0` is for tests and for tables nobody else is using.
 */
import { tableNotFound } from '../types/index.js';
import { checkTableName, listSnapshots } from './catalog.js';
import { newestRoot, readRootOrNull, ROOT_DIR, rootIdOf, rootPath, type RootJson } from './root.js';
import { TEMP_PREFIX } from './local.js';
import { CLAIMS_DIR, parseClaimPath } from './claim.js';
import { snapshotIdOf, snapshotPath } from './snapshot.js';
import { CHECKPOINT_SUFFIX } from './checkpoint.js';
import { hintPath, loadState, writeCheckpoint } from './table-state.js';
import { isManifestPath } from './manifest.js';
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
  // List before reading any root or snapshot: an object written after this listing is not
  // seen, and one seen here is either referenced by a snapshot read below or older than the grace.
  const objects = await store.list(`${table}/`);
  // No grace means every object listed is old enough: a file's mtime (the kernel's clock, to the
  // nanosecond) can be a fraction of a millisecond after Date.now(), which truncates.
  const cutoff = graceMs <= 0 ? Number.POSITIVE_INFINITY : (opts.now ?? Date.now)() - graceMs;
  const result: VacuumResult = { snapshotsRemoved: 0, snapshotsKept: 0, filesRemoved: 0, tempFilesRemoved: 0, bytesRemoved: 0 };

  // 1. Which snapshots stay: those the retained roots name, the newest one's `retain` ancestors,
  //    and every file younger than the grace (a commit in flight); and what they reference.
  const roots = await retainedRoots(store, cutoff);
  const snapshots = await listSnapshots(store, table);
  const named = new Set<number>();
  let newestId: number | undefined;
  if (roots === null)
    newestId = snapshots[0]?.id; // v1: the newest file is the state
  else {
    for (const r of roots.kept) {
      const id = r.tables[table]?.snapshot ?? r.dropped[table];
      if (id !== undefined) named.add(id);
    }
    newestId = roots.newest.tables[table]?.snapshot ?? roots.newest.dropped[table];
  }
  // No committed snapshot at all: nothing tells what is garbage.
  if (newestId === undefined) throw tableNotFound(table);
  const byId = new Map(snapshots.map((s) => [s.id, s]));
  const referenced = new Set<string>();
  const keep = new Set<number>();
  let newest: SnapshotJson | null = null;
  // The files each kept state is built from: its delta, those below it down to its checkpoint
  // (or v1 snapshot), and that checkpoint (./table-state.ts).
  const used = new Set<string>();
  const read = async (id: number): Promise<SnapshotJson | null> => {
    const s = byId.get(id);
    if (s === undefined || keep.has(id)) return null;
    const snap = (await loadState(store, table, id, { fresh: true, used })).snapshot; // a damaged one throws: keep everything
    keep.add(id);
    for (const p of referencedPaths(snap)) referenced.add(`${table}/${p}`);
    return snap;
  };
  // The newest state gets a checkpoint first, so that the deltas below it are needed only by
  // the older states a reader may still have pinned.
  if (roots !== null && byId.has(newestId)) {
    const state = await loadState(store, table, newestId, { fresh: true });
    // (A create alone, or a v1 snapshot, needs nothing below it.)
    if (state.chain.depth > 1 || (state.chain.depth === 1 && state.chain.base > 0)) await writeCheckpoint(store, state);
  }
  newest = await read(newestId);
  if (newest === null) throw tableNotFound(table);
  let at: SnapshotJson | null = newest;
  for (let n = 1; n < retain && at !== null && at.parent > 0; n++) at = await read(at.parent);
  for (const id of named) await read(id);
  for (const s of snapshots) if (s.mtimeMs > cutoff && s.id < newestId) await read(s.id);
  for (const s of snapshots) {
    // Above the committed one: an orphan (or a commit in flight) that no root names yet. Kept
    // unread, so that no snapshot number is ever taken twice (writers number from the
    // committed one up, skipping taken names; caches trust that a name holds one content).
    if (keep.has(s.id) || used.has(s.path) || s.id > newestId) {
      result.snapshotsKept++;
      continue;
    }
    await store.delete(s.path);
    result.snapshotsRemoved++;
    result.bytesRemoved += s.size;
  }

  // 2. Everything else nobody references.
  for (const o of objects) {
    const id = snapshotIdOf(o.path);
    if (id !== null && o.path === snapshotPath(table, id)) continue;
    if (referenced.has(o.path) || used.has(o.path) || o.path === hintPath(table) || o.mtimeMs > cutoff) continue;
    // A checkpoint above the committed snapshot (a commit's, racing this vacuum) is kept unread.
    if (o.path.endsWith(CHECKPOINT_SUFFIX) && (snapshotIdOf(o.path.slice(0, -CHECKPOINT_SUFFIX.length) + '.snap') ?? 0) > newestId) continue;
    // So is a manifest such a checkpoint wrote (named by its number, ./manifest.ts).
    if (isManifestPath(o.path) && Number(o.path.slice(o.path.lastIndexOf('/') + 1, o.path.lastIndexOf('/') + 21)) > newestId) continue;
    if (o.path.startsWith(`${table}/${CLAIMS_DIR}/`) && !claimObsolete(o.path, newest)) continue;
    await store.delete(o.path);
    if (o.path.slice(o.path.lastIndexOf('/') + 1).startsWith(TEMP_PREFIX)) result.tempFilesRemoved++;
    else result.filesRemoved++;
    result.bytesRemoved += o.size;
  }

  // 3. Roots no reader can have pinned any more (every table's vacuum does this; it is cheap).
  if (roots !== null) for (const path of roots.doomed) await store.delete(path);
  return result;
}

/**
 * The roots a reader may still have pinned: the newest, and every root superseded less than
 * the grace period ago (its successor is younger than the cutoff: a reader pins a root only
 * while it is the newest). The others are `doomed`. Null for a store without a root log.
 */
async function retainedRoots(store: ObjectStore, cutoff: number): Promise<{ newest: RootJson; kept: RootJson[]; doomed: string[] } | null> {
  const listed = (await store.list(`${ROOT_DIR}/`)).filter((o) => rootIdOf(o.path) !== null && o.path === rootPath(rootIdOf(o.path)!));
  listed.sort((a, b) => rootIdOf(a.path)! - rootIdOf(b.path)!);
  const newest = await newestRoot(store);
  if (newest === null) return null;
  const kept: RootJson[] = [newest];
  const doomed: string[] = [];
  for (let i = 0; i < listed.length; i++) {
    const o = listed[i]!;
    const id = rootIdOf(o.path)!;
    if (id >= newest.id) continue;
    const successor = listed[i + 1];
    if (successor !== undefined && rootIdOf(successor.path) === id + 1 && successor.mtimeMs <= cutoff) {
      doomed.push(o.path);
      continue;
    }
    const r = await readRootOrNull(store, id);
    if (r !== null) kept.push(r);
  }
  return { newest, kept, doomed };
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

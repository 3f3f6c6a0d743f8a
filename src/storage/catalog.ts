/**
 * Tables over an object store: a table is a folder `<table>/` holding `_snapshots/`, whose
 * numbered snapshot files are its committed states (./snapshot.ts), and the data files they
 * reference.
 *
 * Committing snapshot N+1 is `putIfAbsent(_snapshots/<N+1>.snap)`: exactly one writer wins a
 * number. A loser reloads the newest snapshot, calls its `build` function again on that new
 * base (appends just add their files to whatever base they get; deletes re-check their rows)
 * and retries with exponential backoff and jitter. Snapshots are never overwritten and never
 * deleted here (that is vacuum's job, ./vacuum.ts).
 *
 * The newest snapshot file is the table's state. When it is damaged (truncated, a flipped
 * bit) the table is corrupt: reading it, committing to it and vacuuming it fail with XX001
 * naming the file. Never a fallback to the snapshot before it: that one may still hold rows
 * deleted since, and a commit on top of it would make the rollback permanent. (No crash
 * leaves a short snapshot: it is durable before it gets its name, ./local.ts.)
 *
 * DROP TABLE (./drop.ts) commits a *tombstone*: a snapshot with operation 'drop' and no files.
 * A table whose newest committed snapshot is a tombstone does not exist: reading it, committing
 * to it and listing it behave as for a name never used (42P01), and `createTable` starts a new
 * *incarnation* of it above the tombstone (docs/FORMAT.md "Dropping and re-creating").
 */
import { commitConflict, corruption, isPaxdError, snapshotNotFound, tableExists, tableNotFound, usage } from '../types/index.js';
import { decodeSnapshot, encodeSnapshot, SNAPSHOT_HEADER_BYTES, snapshotIdOf, snapshotPath, SNAPSHOTS_DIR } from './snapshot.js';
import type { SnapshotJson } from './snapshot-types.js';
import type { ObjectInfo, ObjectStore } from './store.js';

/** Listing then reading the newest snapshot can race with vacuum; list again this often. */
const RELIST_ATTEMPTS = 5;

export const DEFAULT_COMMIT_MAX_ATTEMPTS = 200;
export const DEFAULT_COMMIT_TIMEOUT_MS = 60_000;
export const DEFAULT_COMMIT_BACKOFF_MS = 2;
export const DEFAULT_COMMIT_MAX_BACKOFF_MS = 200;

/** The newest committed snapshot of a table; the next commit takes number `snapshot.id + 1`. */
export interface LatestSnapshot {
  snapshot: SnapshotJson;
  /** Store path of its file. */
  path: string;
}

/**
 * A table name is one folder name: not empty, no '/', '\', NUL, and not starting with '.'
 * (so it cannot be '.', '..' or a temp file).
 */
export function checkTableName(table: string): void {
  if (table === '' || /[/\\\0]/.test(table) || table.startsWith('.')) {
    throw usage(`invalid table name "${table}": expected a name without "/", "\\" or NUL, not starting with "."`);
  }
}

/** A tombstone: the snapshot DROP TABLE commits; its table does not exist (./drop.ts). */
export function isDropped(s: SnapshotJson): boolean {
  return s.operation === 'drop';
}

/**
 * The incarnation a snapshot belongs to: the id of the 'create' snapshot that began it. A
 * table created once is incarnation 1 (`incarnation` absent); a re-create after DROP TABLE
 * records its own id, and every later commit carries it forward.
 */
export function incarnationOf(s: SnapshotJson): number {
  return s.incarnation ?? 1;
}

export interface ListTablesOptions {
  /** Also list dropped tables (whose newest snapshot is a tombstone): vacuum still has work there. */
  dropped?: boolean;
}

/**
 * Tables of the store (folders holding snapshot files whose newest committed snapshot is not a
 * tombstone), sorted by name.
 *
 * Telling a dropped table from a live one takes its newest snapshot file; snapshot files are
 * immutable, so what was learnt from one (by path, size and mtime) is remembered per store and
 * a listing of an unchanged store reads no snapshot file (the mirror polls this).
 */
export async function listTables(store: ObjectStore, opts: ListTablesOptions = {}): Promise<string[]> {
  const newest = new Map<string, ObjectInfo>();
  for (const o of await store.list('')) {
    const parts = o.path.split('/');
    const id = parts.length === 3 && parts[1] === SNAPSHOTS_DIR ? snapshotIdOf(o.path) : null;
    if (id === null || o.path !== snapshotPath(parts[0]!, id)) continue;
    const top = newest.get(parts[0]!);
    if (top === undefined || snapshotIdOf(top.path)! < id) newest.set(parts[0]!, o);
  }
  const out: string[] = [];
  for (const [name, top] of newest) {
    if (opts.dropped === true || !(await droppedAt(store, name, top))) out.push(name);
  }
  return out.sort();
}

/** Per store and table: the newest snapshot file seen by listTables and whether it was a tombstone. */
const TOMBSTONES = new WeakMap<ObjectStore, Map<string, { path: string; size: number; mtimeMs: number; dropped: boolean }>>();

/** Whether the table whose newest snapshot file is `top` is dropped (a damaged one throws XX001). */
async function droppedAt(store: ObjectStore, table: string, top: ObjectInfo): Promise<boolean> {
  let seen = TOMBSTONES.get(store);
  if (seen === undefined) TOMBSTONES.set(store, (seen = new Map()));
  const hit = seen.get(table);
  if (hit !== undefined && hit.path === top.path && hit.size === top.size && hit.mtimeMs === top.mtimeMs) return hit.dropped;
  let dropped: boolean;
  try {
    const info = await newestSnapshotInfo(store, table);
    dropped = isDropped(info.snapshot);
    if (info.path === top.path) seen.set(table, { path: top.path, size: top.size, mtimeMs: top.mtimeMs, dropped });
  } catch (e) {
    // Every snapshot vacuumed since the listing: no table to list.
    if (isPaxdError(e) && e.kind === 'not_found') return true;
    throw e;
  }
  return dropped;
}

/** The snapshot files of a table, highest id first. */
export async function listSnapshots(store: ObjectStore, table: string): Promise<{ id: number; path: string; size: number; mtimeMs: number }[]> {
  checkTableName(table);
  const out = [];
  for (const o of await store.list(`${table}/${SNAPSHOTS_DIR}/`)) {
    const id = snapshotIdOf(o.path);
    if (id !== null && o.path === snapshotPath(table, id)) out.push({ id, path: o.path, size: o.size, mtimeMs: o.mtimeMs });
  }
  return out.sort((a, b) => b.id - a.id);
}

/**
 * The newest committed snapshot of a live table; see LatestSnapshot. Kind 'not_found' (42P01)
 * when there is none or it is a tombstone, 'corruption' (XX001) when its file is damaged.
 */
export async function latestSnapshotInfo(store: ObjectStore, table: string): Promise<LatestSnapshot> {
  const info = await newestSnapshotInfo(store, table);
  if (isDropped(info.snapshot)) throw tableNotFound(table);
  return info;
}

/**
 * The newest committed snapshot, a tombstone included (what createTable and vacuum build on);
 * kind 'not_found' (42P01) when there is none.
 */
export async function newestSnapshotInfo(store: ObjectStore, table: string): Promise<LatestSnapshot> {
  for (let attempt = 1; ; attempt++) {
    const newest = (await listSnapshots(store, table))[0];
    if (newest === undefined) throw tableNotFound(table);
    try {
      return { snapshot: await readSnapshotFile(store, newest.path, newest.id), path: newest.path };
    } catch (e) {
      // A snapshot listed a moment ago and gone now was vacuumed meanwhile (a newer one
      // was committed first): list again.
      if (isPaxdError(e) && e.kind === 'not_found' && attempt < RELIST_ATTEMPTS) continue;
      throw e;
    }
  }
}

/** The newest committed snapshot of `table`; kind 'not_found' (42P01) when there is none. */
export async function latestSnapshot(store: ObjectStore, table: string): Promise<SnapshotJson> {
  return (await latestSnapshotInfo(store, table)).snapshot;
}

/** Snapshot `id` of `table`: not_found when it does not exist, corruption when it is damaged. */
export async function readSnapshot(store: ObjectStore, table: string, id: number): Promise<SnapshotJson> {
  checkTableName(table);
  const path = snapshotPath(table, id);
  try {
    return await readSnapshotFile(store, path, id);
  } catch (e) {
    if (isPaxdError(e) && e.kind === 'not_found') throw snapshotNotFound(table, id, path);
    throw e;
  }
}

/**
 * Creates a table: snapshot 1 (parent 0) with the given content. Kind 'exists' (42P07) when
 * the table already exists.
 *
 * Over a dropped table (its newest snapshot a tombstone, N) the create is snapshot N+1 with
 * parent N and `incarnation` N+1: a new table that shares nothing with the dropped one but
 * its folder and the snapshot numbering, so no name is ever reused. Concurrent creates race
 * on that number, which exactly one of them wins; the others get 42P07.
 */
export async function createTable(store: ObjectStore, snapshot0: SnapshotJson, opts: { now?: () => Date } = {}): Promise<SnapshotJson> {
  checkTableName(snapshot0.table);
  const now = opts.now ?? (() => new Date());
  const fresh: SnapshotJson = { ...snapshot0, format: 1, id: 1, parent: 0, createdAt: now().toISOString() };
  delete fresh.incarnation;
  // Vacuum may have removed snapshot 1 of an existing table: any snapshot means it exists,
  // unless the newest committed one is a tombstone.
  if ((await listSnapshots(store, fresh.table)).length === 0) {
    if (!(await store.putIfAbsent(snapshotPath(fresh.table, 1), encodeSnapshot(fresh)))) throw tableExists(fresh.table);
    return fresh;
  }
  let newest: LatestSnapshot;
  try {
    newest = await newestSnapshotInfo(store, fresh.table);
  } catch (e) {
    // Every snapshot vacuumed since the listing: a table that existed a moment ago.
    if (isPaxdError(e) && e.kind === 'not_found') throw tableExists(fresh.table);
    throw e;
  }
  if (!isDropped(newest.snapshot)) throw tableExists(fresh.table);
  const id = newest.snapshot.id + 1;
  const next: SnapshotJson = { ...fresh, id, parent: newest.snapshot.id, incarnation: id };
  if (!(await store.putIfAbsent(snapshotPath(next.table, id), encodeSnapshot(next)))) throw tableExists(next.table);
  return next;
}

export interface CommitOptions {
  /** Give up (kind 'conflict', 40001) after this many lost races. Default 200. */
  maxAttempts?: number;
  /** Give up after this long. Default 60 s. */
  timeoutMs?: number;
  /** First backoff after a lost race; doubles each time up to `maxBackoffMs`. Default 2 ms. */
  backoffMs?: number;
  /** Default 200 ms. */
  maxBackoffMs?: number;
  /** The clock for `createdAt` (tests). */
  now?: () => Date;
  /**
   * The incarnation (incarnationOf) the writer's work belongs to, from the snapshot it
   * started from: when the table's newest is another one (dropped and created again since),
   * the commit fails with 42P01 instead of adding old rows to a new table. Without it, the
   * incarnation of the first base the commit reads is the one expected on every retry.
   */
  incarnation?: number;
}

/** Builds the next snapshot's content from a base; called again with a new base after a lost race. */
export type BuildSnapshot = (base: SnapshotJson) => SnapshotJson | Promise<SnapshotJson>;

/**
 * Commits a new snapshot of `table`: `build(base)` returns its content; commit sets `id`
 * (highest existing number + 1), `parent` (base.id), `table`, `format` and `createdAt`.
 * Returns the snapshot as committed.
 *
 *   const s = await commit(store, 't', (base) => ({ ...base, operation: 'append', files: [...base.files, file] }));
 *   // s.id === base.id + 1 unless someone else committed first
 */
export async function commit(store: ObjectStore, table: string, build: BuildSnapshot, opts: CommitOptions = {}): Promise<SnapshotJson> {
  const maxAttempts = opts.maxAttempts ?? DEFAULT_COMMIT_MAX_ATTEMPTS;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_COMMIT_TIMEOUT_MS;
  const firstBackoff = opts.backoffMs ?? DEFAULT_COMMIT_BACKOFF_MS;
  const maxBackoff = opts.maxBackoffMs ?? DEFAULT_COMMIT_MAX_BACKOFF_MS;
  const now = opts.now ?? (() => new Date());
  const started = Date.now();
  let incarnation = opts.incarnation;

  for (let attempt = 1; ; attempt++) {
    // A tombstone fails here with 42P01: a writer that lost the race to DROP TABLE is dropped.
    const latest = await latestSnapshotInfo(store, table);
    const base = latest.snapshot;
    incarnation ??= incarnationOf(base);
    if (incarnationOf(base) !== incarnation) throw tableNotFound(table);
    const content = await build(base);
    const next: SnapshotJson = {
      ...content,
      format: 1,
      table,
      id: base.id + 1,
      parent: base.id,
      createdAt: now().toISOString(),
    };
    // The incarnation is the base's, whatever `build` returned.
    if (base.incarnation !== undefined) next.incarnation = base.incarnation;
    else delete next.incarnation;
    if (await store.putIfAbsent(snapshotPath(table, next.id), encodeSnapshot(next))) return next;

    const elapsed = Date.now() - started;
    if (attempt >= maxAttempts || elapsed >= timeoutMs) throw commitConflict(table, attempt, elapsed);
    await sleep(backoff(attempt, firstBackoff, maxBackoff));
  }
}

/** "Equal jitter": half the exponential delay fixed, half random, so racers spread out. */
function backoff(attempt: number, first: number, cap: number): number {
  const ceiling = Math.min(cap, first * 2 ** Math.min(attempt - 1, 30));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

async function readSnapshotFile(store: ObjectStore, path: string, id: number): Promise<SnapshotJson> {
  const s = decodeSnapshot(await store.read(path), path);
  if (s.id !== id) throw corruption(path, SNAPSHOT_HEADER_BYTES, `snapshot ${path} holds snapshot id ${s.id}, expected ${id}`);
  return s;
}

/**
 * Tables over an object store: a table is a folder `<table>/` holding `_snapshots/`, whose
 * numbered snapshot files are its committed states (./snapshot.ts), and the data files they
 * reference.
 *
 * Which snapshot is a table's committed state is decided by the store root log (./root.ts,
 * docs/FORMAT.md "The store root log"): the newest root names, for every live table, its
 * snapshot. A commit (`commitTables`, of one table or several) first creates each changed
 * table's next snapshot file exclusively — invisible until a root names it — and then root
 * S+1 naming them all: exactly one writer wins a root number, so a commit of several tables is
 * all or nothing. A loser reads the root that won; the tables it did not change keep the
 * snapshots already written, the others are rebuilt by calling their `build` function again
 * on the new base (appends just add their files to whatever base they get; deletes re-check
 * their rows: 40001), and it retries with exponential backoff and jitter. Snapshots and roots
 * are never overwritten and never deleted here (that is vacuum's job, ./vacuum.ts).
 *
 * The snapshot the newest root names is the table's state. When it is damaged (truncated, a
 * flipped bit) the table is corrupt: reading it, committing to it and vacuuming it fail with
 * XX001 naming the file. Never a fallback to the snapshot before it: that one may still hold
 * rows deleted since, and a commit on top of it would make the rollback permanent. (No crash
 * leaves a short snapshot: it is durable before it gets its name, ./local.ts.)
 *
 * A store without a root log (format v1) is read as v1 read it: a table's state is the newest
 * file of its `_snapshots/`. Its first commit creates root 1 from that listing (`rootForWrite`).
 *
 * DROP TABLE (./drop.ts) commits a *tombstone*: a snapshot with operation 'drop' and no files,
 * which the root records under `dropped` and not under `tables`. A dropped table does not
 * exist: reading it, committing to it and listing it behave as for a name never used (42P01),
 * and `createTable` starts a new *incarnation* of it above the tombstone (docs/FORMAT.md
 * "Dropping and re-creating").
 */
import { commitConflict, isPaxdError, snapshotNotFound, tableExists, tableNotFound, usage } from '../types/index.js';
import { encodeRoot, listRootIds, newestRoot, noteCommittedRoot, noteRoot, readRootOrNull, type RootEntry, type RootJson, rootPath } from './root.js';
import { diffStates, emptyState, encodeDelta } from './delta.js';
import { snapshotIdOf, snapshotPath, SNAPSHOTS_DIR } from './snapshot.js';
import { checkpointDue, loadState, rememberState, stateForCommit, type TableState, writeCheckpoint } from './table-state.js';
import type { SnapshotJson } from './snapshot-types.js';
import type { ObjectInfo, ObjectStore } from './store.js';
import { crc32 } from './checksum.js';

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
  if (table === STORE_DIR) throw usage(`invalid table name "${table}": the store keeps its root log in ${STORE_DIR}/`);
}

/** The store's own folder (./root.ts), never a table's. */
const STORE_DIR = '_paxd';

/** A tombstone: the snapshot DROP TABLE commits; its table does not exist (./drop.ts). */
export function isDropped(s: SnapshotJson): boolean {
  return s.operation === 'drop';
}

/** A view (CREATE VIEW): a catalog entry like a table's, whose snapshot holds its definition and no files (docs/FORMAT.md "Views"). */
export function isView(s: SnapshotJson): boolean {
  return s.view !== undefined;
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
  /** Also list dropped tables (whose folders still hold a tombstone): vacuum still has work there. */
  dropped?: boolean;
}

/**
 * Tables of the store, sorted by name: the names the newest root maps (and, with `dropped`,
 * the names it remembers as dropped). A store without a root log lists its folders (v1).
 */
export async function listTables(store: ObjectStore, opts: ListTablesOptions = {}): Promise<string[]> {
  const root = await newestRoot(store);
  if (root === null) {
    const names = await listTablesV1(store, opts);
    // A writer that upgraded the store since the listing may have left orphans it counted.
    if ((await listRootIds(store)).length > 0) return listTables(store, opts);
    return names;
  }
  const out = Object.keys(root.tables);
  if (opts.dropped === true) for (const name of Object.keys(root.dropped)) if (root.tables[name] === undefined) out.push(name);
  return out.sort();
}

/** v1: folders holding snapshot files whose newest is not a tombstone. */
async function listTablesV1(store: ObjectStore, opts: ListTablesOptions): Promise<string[]> {
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
    if (opts.dropped === true || !(await droppedAtV1(store, name, top))) out.push(name);
  }
  return out.sort();
}

/** Per store and table: the newest snapshot file seen by listTablesV1 and whether it was a tombstone. */
const TOMBSTONES = new WeakMap<ObjectStore, Map<string, { path: string; size: number; mtimeMs: number; dropped: boolean }>>();

/** Whether the v1 table whose newest snapshot file is `top` is dropped (a damaged one throws XX001). */
async function droppedAtV1(store: ObjectStore, table: string, top: ObjectInfo): Promise<boolean> {
  let seen = TOMBSTONES.get(store);
  if (seen === undefined) TOMBSTONES.set(store, (seen = new Map()));
  const hit = seen.get(table);
  if (hit !== undefined && hit.path === top.path && hit.size === top.size && hit.mtimeMs === top.mtimeMs) return hit.dropped;
  let dropped: boolean;
  try {
    const info = await newestSnapshotFileV1(store, table);
    dropped = isDropped(info.snapshot);
    if (info.path === top.path) seen.set(table, { path: top.path, size: top.size, mtimeMs: top.mtimeMs, dropped });
  } catch (e) {
    // Every snapshot vacuumed since the listing: no table to list.
    if (isPaxdError(e) && e.kind === 'not_found') return true;
    throw e;
  }
  return dropped;
}

/** The snapshot files of a table, highest id first (orphans included: which one is committed is the root's to say). */
export async function listSnapshots(store: ObjectStore, table: string): Promise<{ id: number; path: string; size: number; mtimeMs: number }[]> {
  checkTableName(table);
  const out = [];
  for (const o of await store.list(`${table}/${SNAPSHOTS_DIR}/`)) {
    const id = snapshotIdOf(o.path);
    if (id !== null && o.path === snapshotPath(table, id)) out.push({ id, path: o.path, size: o.size, mtimeMs: o.mtimeMs });
  }
  return out.sort((a, b) => b.id - a.id);
}

/** The newest root of the store (null: a store without a root log); what a statement or transaction pins. */
export function currentRoot(store: ObjectStore): Promise<RootJson | null> {
  return newestRoot(store);
}

/**
 * The committed snapshot of a live table as of `root` (from currentRoot; null reads a v1
 * store as v1 did). Kind 'not_found' (42P01) when the table does not exist there or is a
 * tombstone, 'corruption' (XX001) when its file is damaged.
 */
export async function snapshotInRoot(store: ObjectStore, root: RootJson | null, table: string): Promise<LatestSnapshot> {
  const info = await snapshotOrTombstoneInRoot(store, root, table);
  if (isDropped(info.snapshot)) throw tableNotFound(table);
  return info;
}

/** snapshotInRoot, a tombstone included. */
async function snapshotOrTombstoneInRoot(store: ObjectStore, root: RootJson | null, table: string): Promise<LatestSnapshot> {
  checkTableName(table);
  if (root === null) {
    const info = await newestSnapshotFileV1(store, table);
    // Upgraded meanwhile: the newest file may be an orphan of the new protocol; ask the root.
    if ((await listRootIds(store)).length > 0) {
      const now = await newestRoot(store);
      if (now !== null) return snapshotOrTombstoneInRoot(store, now, table);
    }
    return info;
  }
  const id = root.tables[table]?.snapshot ?? root.dropped[table];
  if (id === undefined) throw tableNotFound(table);
  const path = snapshotPath(table, id);
  return { snapshot: await cachedSnapshot(store, table, id), path };
}

/** The state the file of snapshot `id` holds, from memory when this process has built it (./table-state.ts). */
async function cachedSnapshot(store: ObjectStore, table: string, id: number): Promise<SnapshotJson> {
  return (await loadState(store, table, id)).snapshot;
}

/**
 * The newest committed snapshot of a live table; see LatestSnapshot. Kind 'not_found' (42P01)
 * when there is none or it is a tombstone, 'corruption' (XX001) when its file is damaged.
 */
export async function latestSnapshotInfo(store: ObjectStore, table: string): Promise<LatestSnapshot> {
  return snapshotInRoot(store, await newestRoot(store), table);
}

/**
 * The newest committed snapshot, a tombstone included (what vacuum builds on); kind
 * 'not_found' (42P01) when there is none.
 */
export async function newestSnapshotInfo(store: ObjectStore, table: string): Promise<LatestSnapshot> {
  return snapshotOrTombstoneInRoot(store, await newestRoot(store), table);
}

/** v1: the newest file of the table's `_snapshots/`. */
async function newestSnapshotFileV1(store: ObjectStore, table: string): Promise<LatestSnapshot> {
  for (let attempt = 1; ; attempt++) {
    const newest = (await listSnapshots(store, table))[0];
    if (newest === undefined) throw tableNotFound(table);
    try {
      return { snapshot: await cachedSnapshot(store, table, newest.id), path: newest.path };
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
    return (await stateForCommit(store, table, id)).snapshot;
  } catch (e) {
    if (isPaxdError(e) && e.kind === 'not_found') throw snapshotNotFound(table, id, path);
    throw e;
  }
}

/**
 * Creates a table: snapshot 1 (parent 0) with the given content. Kind 'exists' (42P07) when
 * the table already exists.
 *
 * Over a dropped table (the root remembers its tombstone, N) the create is snapshot N+1 (or
 * the next free number) with parent N and `incarnation` its own id: a new table that shares
 * nothing with the dropped one but its folder and the snapshot numbering, so no name is ever
 * reused. Concurrent creates race on the root, which exactly one of them wins; the others get 42P07.
 */
export async function createTable(store: ObjectStore, snapshot0: SnapshotJson, opts: CommitOptions = {}): Promise<SnapshotJson> {
  checkTableName(snapshot0.table);
  const [created] = await commitTables(store, [{ table: snapshot0.table, kind: 'create', build: () => snapshot0 }], opts);
  return created!;
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
 * One table's part of a commit (commitTables):
 * - 'write': `build(base)` on the table's committed snapshot (append, delete, compact, ALTER);
 * - 'create': `build()` returns the new table's first snapshot (42P07 if it exists);
 * - 'drop': `build(base)` returns the tombstone (42P01 if the table does not exist).
 */
export type TableWrite =
  | { table: string; kind: 'write' | 'drop'; build: BuildSnapshot; incarnation?: number }
  | { table: string; kind: 'create'; build: () => SnapshotJson | Promise<SnapshotJson> };

/**
 * Commits a new snapshot of `table`: `build(base)` returns its content; commit sets `id`
 * (the next free number above base.id), `parent` (base.id), `table`, `format` and `createdAt`.
 * Returns the snapshot as committed.
 *
 *   const s = await commit(store, 't', (base) => ({ ...base, operation: 'append', files: [...base.files, file] }));
 *   // s.id === base.id + 1 unless someone else committed first
 */
export async function commit(store: ObjectStore, table: string, build: BuildSnapshot, opts: CommitOptions = {}): Promise<SnapshotJson> {
  const w: TableWrite = opts.incarnation !== undefined ? { table, kind: 'write', build, incarnation: opts.incarnation } : { table, kind: 'write', build };
  const [s] = await commitTables(store, [w], opts);
  return s!;
}

/** What a write built on one base: kept across lost root races while its table's entry stays the same. */
interface Built {
  /** The root entry (or the dropped floor) it was built on. */
  on: string;
  snapshot: SnapshotJson;
  /** Its state as this process holds it, the delta's chain included. */
  state: TableState;
}

/** A next snapshot's content, not written yet, and the state it is built on (an empty one for a create). */
interface Pending {
  next: SnapshotJson;
  base: TableState;
}

/**
 * Commits several tables at once, all or nothing: each write's next snapshot is created
 * exclusively (invisible until named), then root S+1 names them all (docs/FORMAT.md "The
 * commit protocol"). Losing root S+1: writes whose table the winning roots did not change
 * keep their snapshot; the others are built again on the new base (40001 when a delete no
 * longer applies); then S+2 is tried, with backoff. Returns the committed snapshots, in the
 * order of `writes` (one write per table).
 */
export async function commitTables(store: ObjectStore, writes: readonly TableWrite[], opts: CommitOptions = {}): Promise<SnapshotJson[]> {
  const maxAttempts = opts.maxAttempts ?? DEFAULT_COMMIT_MAX_ATTEMPTS;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_COMMIT_TIMEOUT_MS;
  const firstBackoff = opts.backoffMs ?? DEFAULT_COMMIT_BACKOFF_MS;
  const maxBackoff = opts.maxBackoffMs ?? DEFAULT_COMMIT_MAX_BACKOFF_MS;
  const now = opts.now ?? (() => new Date());
  const started = Date.now();
  const names = new Set<string>();
  for (const w of writes) {
    checkTableName(w.table);
    if (names.has(w.table)) throw new Error(`internal error: commitTables got table "${w.table}" twice`);
    names.add(w.table);
  }
  const expected = new Map<string, number>();
  for (const w of writes) if (w.kind !== 'create' && w.incarnation !== undefined) expected.set(w.table, w.incarnation);
  const built = new Map<string, Built>();

  for (let attempt = 1; ; attempt++) {
    const root = await rootForWrite(store, now);
    // Every content first (a 40001 then costs no write), then the new snapshot files, at once.
    const contents: (Built | Pending)[] = [];
    for (const w of writes) contents.push(await buildOne(store, root, w, expected, built, now));
    const out = await Promise.all(contents.map((c, i) => ('on' in c ? c.snapshot : createSnapshotFile(store, writes[i]!, c, built))));
    const next: RootJson = {
      format: 1,
      id: root.id + 1,
      parent: root.id,
      createdAt: now().toISOString(),
      operation: 'commit',
      changed: [...names].sort(),
      tables: { ...root.tables },
      dropped: { ...root.dropped },
    };
    for (const s of out) {
      if (isDropped(s)) {
        delete next.tables[s.table];
        next.dropped[s.table] = s.id;
      } else {
        next.tables[s.table] = { snapshot: s.id, incarnation: incarnationOf(s) };
        delete next.dropped[s.table];
      }
    }
    if (await store.putIfAbsent(rootPath(next.id), encodeRoot(next))) {
      noteRoot(store, next);
      await noteCommittedRoot(store, next.id);
      for (const w of writes) {
        const state = built.get(w.table)!.state;
        rememberState(store, state);
        // A checkpoint bounds what the next open reads; the commit is already durable without it.
        if (checkpointDue(state)) await writeCheckpoint(store, state);
      }
      return out;
    }
    const elapsed = Date.now() - started;
    if (attempt >= maxAttempts || elapsed >= timeoutMs) throw commitConflict([...names].join(', '), attempt, elapsed);
    // Lost to commits of other tables only: what was written stays valid, so retry at once.
    const stale = await changedSince(store, next.id, names);
    if (stale.length === 0) continue;
    // Our snapshots of the tables the winners changed will never be named (our root was not
    // created): remove them now rather than leave them to vacuum; they are built again.
    for (const name of stale) {
      const b = built.get(name);
      built.delete(name);
      if (b !== undefined) await store.delete(snapshotPath(name, b.snapshot.id)).catch(() => undefined);
    }
    await sleep(backoff(attempt, firstBackoff, maxBackoff));
  }
}

/** Which of `names` root `from` and the newer ones changed (read, not listed: roots are only added). */
async function changedSince(store: ObjectStore, from: number, names: ReadonlySet<string>): Promise<string[]> {
  const out = new Set<string>();
  for (let id = from; ; id++) {
    const r = await readRootOrNull(store, id);
    if (r === null) return [...out];
    noteRoot(store, r);
    for (const n of r.changed) if (names.has(n)) out.add(n);
  }
}

/**
 * One write's snapshot on `root`: the Built already written when its base is unchanged, else
 * the content of the next snapshot (not written yet: createSnapshotFile).
 */
async function buildOne(
  store: ObjectStore,
  root: RootJson,
  w: TableWrite,
  expected: Map<string, number>,
  built: Map<string, Built>,
  now: () => Date,
): Promise<Built | Pending> {
  const entry: RootEntry | undefined = root.tables[w.table];
  if (w.kind === 'create') {
    if (entry !== undefined) throw tableExists(w.table);
    const floor = root.dropped[w.table] ?? 0;
    const have = built.get(w.table);
    if (have !== undefined && have.on === `floor ${floor}`) return have;
    const content = await w.build();
    const next: SnapshotJson = { ...content, format: 1, table: w.table, id: floor + 1, parent: floor, createdAt: now().toISOString() };
    delete next.incarnation;
    return { next, base: { snapshot: emptyState(w.table), chain: { base: 0, baseBytes: 0, depth: 0, since: 0 }, crc: 0 } };
  }
  // A tombstone fails here with 42P01: a writer that lost the race to DROP TABLE is dropped.
  if (entry === undefined) throw tableNotFound(w.table);
  const want = expected.get(w.table);
  if (want === undefined) expected.set(w.table, entry.incarnation);
  else if (want !== entry.incarnation) throw tableNotFound(w.table);
  const have = built.get(w.table);
  if (have !== undefined && have.on === baseKey(entry)) return have;
  // Checked against the store, not only memory: a commit never builds on a snapshot damaged since it was read (XX001).
  const state = await stateForCommit(store, w.table, entry.snapshot);
  const base = state.snapshot;
  const content = await w.build(base);
  const next: SnapshotJson = { ...content, format: 1, table: w.table, id: base.id + 1, parent: base.id, createdAt: now().toISOString() };
  // The incarnation is the base's, whatever `build` returned.
  if (base.incarnation !== undefined) next.incarnation = base.incarnation;
  else delete next.incarnation;
  return { next, base: state };
}

/** What a Built was built on: a table's root entry, or a created table's dropped floor. */
function baseKey(entry: RootEntry): string {
  return `${entry.snapshot}/${entry.incarnation}`;
}

/** Creates `next` under the next free number from its id (one taken by an orphan, a crashed or beaten writer's, is skipped). */
async function createSnapshotFile(store: ObjectStore, w: TableWrite, p: Pending, built: Map<string, Built>): Promise<SnapshotJson> {
  let next = p.next;
  const on = w.kind === 'create' ? `floor ${next.parent}` : `${next.parent}/${incarnationOf(next)}`;
  const chain = p.base.chain;
  for (;;) {
    // A re-created table's incarnation is its create's id.
    if (w.kind === 'create' && next.parent > 0) next.incarnation = next.id;
    // A name seen taken costs a stat, not a write (orphans pile up after failed commits).
    const path = snapshotPath(w.table, next.id);
    // The delta: what this commit changed on its base (docs/FORMAT.md "Table metadata v2").
    const delta = diffStates(p.base.snapshot, next, { on: w.kind === 'create' ? 0 : next.parent, base: chain.base, depth: chain.depth + 1, since: chain.since });
    const bytes = encodeDelta(delta);
    if ((await store.stat(path)) === null && (await store.putIfAbsent(path, bytes))) {
      const state: TableState = {
        snapshot: next,
        chain: { base: chain.base, baseBytes: chain.baseBytes, depth: chain.depth + 1, since: chain.since + bytes.byteLength },
        crc: crc32(bytes),
        ...(p.base.manifests !== undefined ? { manifests: p.base.manifests } : {}),
      };
      built.set(w.table, { on, snapshot: next, state });
      return next;
    }
    next = { ...next, id: next.id + 1 };
  }
}

/**
 * The newest root, for a writer. A store without one gets root 1 first: from the listing of
 * its v1 tables ('upgrade'), or empty ('init') for a new store. Two processes racing create
 * the same content from the same listing; putIfAbsent makes one of them root 1. (v1 readers
 * of the same store may be misled by orphan snapshot files from then on: a store, once written
 * by this version, is for this version.)
 */
async function rootForWrite(store: ObjectStore, now: () => Date): Promise<RootJson> {
  const root = await newestRoot(store);
  if (root !== null) return root;
  const tables: Record<string, RootEntry> = {};
  const dropped: Record<string, number> = {};
  for (const name of await listTablesV1(store, { dropped: true })) {
    let info: LatestSnapshot;
    try {
      info = await newestSnapshotFileV1(store, name);
    } catch (e) {
      if (isPaxdError(e) && e.kind === 'not_found') continue; // vacuumed away since the listing
      throw e;
    }
    if (isDropped(info.snapshot)) dropped[name] = info.snapshot.id;
    else tables[name] = { snapshot: info.snapshot.id, incarnation: incarnationOf(info.snapshot) };
  }
  const names = [...Object.keys(tables), ...Object.keys(dropped)];
  const first: RootJson = {
    format: 1,
    id: 1,
    parent: 0,
    createdAt: now().toISOString(),
    operation: names.length === 0 ? 'init' : 'upgrade',
    changed: names.sort(),
    tables,
    dropped,
  };
  await store.putIfAbsent(rootPath(1), encodeRoot(first));
  const after = await newestRoot(store);
  if (after === null) throw new Error(`internal error: ${rootPath(1)} created but not found in ${store.uri}`);
  return after;
}

/** "Equal jitter": half the exponential delay fixed, half random, so racers spread out. */
function backoff(attempt: number, first: number, cap: number): number {
  const ceiling = Math.min(cap, first * 2 ** Math.min(attempt - 1, 30));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

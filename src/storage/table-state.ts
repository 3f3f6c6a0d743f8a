/**
 * A table's state at snapshot N, from the metadata log (format v2, issue #20): the file at
 * `_snapshots/N.snap` is either a delta (./delta.ts, magic "PXDL") or, for a table written by
 * format v1, the whole state (./snapshot.ts, "PXSN"). State N of a delta is the state it
 * applies to plus its changes; the chain below N ends at the empty state (a create), at a v1
 * snapshot, or at a checkpoint (./checkpoint.ts, `_snapshots/N.ckpt`), the whole state written
 * after commit N so that an open reads one checkpoint and the few deltas after it.
 *
 * A process keeps the states it has built in memory by snapshot path (a name never holds two
 * contents: no number is taken twice), so a process with a table open applies only the deltas
 * committed since it last looked: one small read each.
 *
 * A damaged checkpoint is not the end: the state it holds is also its delta on the state
 * below, so the reader takes that way (a checkpoint is never more than a shortcut). A damaged
 * delta or v1 snapshot on the chain is corruption (XX001) naming the file: never an older
 * state in its place (that would bring back rows deleted since).
 */
import { corruption, isPaxdError, type PaxdError } from '../types/index.js';
import { crc32 } from './checksum.js';
import { CHECKPOINT_FRAME, CHECKPOINT_SUFFIX, decodeCheckpoint } from './checkpoint.js';
import { applyDelta, decodeDelta, DELTA_FRAME, type DeltaJson, emptyState } from './delta.js';
import { decodeManifest, decodeManifestList, encodeManifest, encodeManifestList, MANIFEST_LIST_FRAME, manifestPath, type ManifestRef, type ManifestUse, payloadCrcOf, planManifests } from './manifest.js';
import { type FrameKind, hasMagic } from './frame.js';
import { readHint, writeHint } from './hint.js';
import { decodeSnapshot, SNAPSHOT_HEADER_BYTES, snapshotPath, snapshotShapeProblem } from './snapshot.js';
import type { SnapshotJson } from './snapshot-types.js';
import type { ObjectStore } from './store.js';

/**
 * A checkpoint is written after a commit once the deltas since the last one hold this many
 * bytes …
 */
export const CHECKPOINT_MIN_DELTA_BYTES = 64 * 1024;
/**
 * … or once this many deltas follow it (an open reads at most this many). A checkpoint writes
 * only the manifests that changed (./manifest.ts), so its cost follows the deltas since the
 * last one, not the table's size.
 */
export const CHECKPOINT_MAX_DEPTH = 64;
/** Deltas read at once when an open walks a chain. */
const READ_CONCURRENCY = 32;

/** Where a state's chain starts and what follows it, for the next delta and the checkpoint policy. */
export interface Chain {
  /** The checkpoint (or v1 snapshot) the chain starts at; 0: a create. */
  base: number;
  /** Bytes of the base file (0 for a create). */
  baseBytes: number;
  /** Deltas after the base up to this state, inclusive. */
  depth: number;
  /** Their bytes. */
  since: number;
}

export interface TableState {
  snapshot: SnapshotJson;
  chain: Chain;
  /** crc32 of the file `_snapshots/N.snap`, so a commit can check it is still what was read. */
  crc: number;
  /**
   * The manifests of the chain's base checkpoint (./manifest.ts), with the file entries they
   * hold: the next checkpoint names again those whose files are unchanged.
   */
  manifests?: readonly ManifestUse[];
}

/** `t/_snapshots/00000000000000000007.ckpt` */
export function checkpointPath(table: string, id: number): string {
  const p = snapshotPath(table, id);
  return p.slice(0, p.length - '.snap'.length) + CHECKPOINT_SUFFIX;
}

const STATES = new WeakMap<ObjectStore, Map<string, TableState>>();
const STATE_CACHE_ENTRIES = 256;

function cache(store: ObjectStore): Map<string, TableState> {
  let c = STATES.get(store);
  if (c === undefined) STATES.set(store, (c = new Map()));
  return c;
}

export function cachedState(store: ObjectStore, table: string, id: number): TableState | undefined {
  const c = cache(store);
  const path = snapshotPath(table, id);
  const hit = c.get(path);
  if (hit !== undefined) {
    c.delete(path);
    c.set(path, hit); // most recently used last
  }
  return hit;
}

export function rememberState(store: ObjectStore, s: TableState): void {
  const c = cache(store);
  c.set(snapshotPath(s.snapshot.table, s.snapshot.id), s);
  if (c.size > STATE_CACHE_ENTRIES) c.delete(c.keys().next().value!);
}

/** One `N.snap` file, read and verified: a delta, or a whole v1 state. */
type LogFile = { kind: 'delta'; delta: DeltaJson; bytes: number; crc: number; path: string } | { kind: 'full'; snapshot: SnapshotJson; bytes: number; crc: number; path: string };

async function readLogFile(store: ObjectStore, table: string, id: number): Promise<LogFile> {
  const path = snapshotPath(table, id);
  const bytes = await store.read(path);
  return decodeLogFile(bytes, path, table, id);
}

function decodeLogFile(bytes: Uint8Array, path: string, table: string, id: number): LogFile {
  const crc = crc32(bytes);
  if (hasMagic(DELTA_FRAME, bytes)) {
    const delta = decodeDelta(bytes, path, id);
    if (delta.table !== table) throw corruption(path, SNAPSHOT_HEADER_BYTES, `delta ${path} belongs to table "${delta.table}", expected "${table}"`);
    return { kind: 'delta', delta, bytes: bytes.byteLength, crc, path };
  }
  const snapshot = decodeSnapshot(bytes, path);
  if (snapshot.id !== id) throw corruption(path, SNAPSHOT_HEADER_BYTES, `snapshot ${path} holds snapshot id ${snapshot.id}, expected ${id}`);
  return { kind: 'full', snapshot, bytes: bytes.byteLength, crc, path };
}

export interface LoadOptions {
  /** Read every file afresh (vacuum, check): no state from memory. */
  fresh?: boolean;
  /** Collects the store paths the state was built from (vacuum keeps them). */
  used?: Set<string>;
}

/**
 * State `id` of `table`. Kind 'not_found' when `_snapshots/<id>.snap` (or a delta its chain
 * needs) is missing, 'corruption' (XX001) when one is damaged.
 */
export async function loadState(store: ObjectStore, table: string, id: number, opts: LoadOptions = {}): Promise<TableState> {
  if (opts.fresh !== true) {
    const hit = cachedState(store, table, id);
    if (hit !== undefined) return hit;
  }
  // The hint names the newest checkpoint; reading it costs one small read, and only when the
  // state below is not in memory (a cold open), and it is trusted only as far as the checkpoint
  // it names verifies and lies on the chain.
  const path = snapshotPath(table, id);
  const bytes = await store.read(path);
  // A large delta (a bulk load) with a checkpoint of its own: the checkpoint, without parsing the delta.
  if (bytes.byteLength >= CHECKPOINT_MIN_DELTA_BYTES && hasMagic(DELTA_FRAME, bytes) && (await readHint(store, hintPath(table), HINT_FRAME)) === id) {
    const ck = await readCheckpointOrNull(store, table, id, crc32(bytes));
    if (ck !== null) {
      opts.used?.add(path);
      const s = used(ck, opts);
      if (opts.fresh !== true) rememberState(store, s);
      return s;
    }
  }
  const top = decodeLogFile(bytes, path, table, id);
  opts.used?.add(top.path);
  const warm = top.kind === 'delta' && opts.fresh !== true && cachedState(store, table, top.delta.on) !== undefined;
  const hint = top.kind === 'delta' && !warm ? await readHint(store, hintPath(table), HINT_FRAME) : null;
  // Set once a checkpoint the walk counted on is missing or damaged: from then on it looks for
  // one at every number it passes (a checkpoint can name manifests that a vacuum racing its
  // writer removed; an older sound one, vacuum's own, lies further down the chain).
  let searchAll = false;
  if (top.kind === 'delta' && hint === id) {
    const ck = await readCheckpointOrNull(store, table, id, top.crc);
    if (ck !== null && (ck.snapshot.incarnation ?? 1) === (top.delta.incarnation ?? 1)) {
      const s = used(ck, opts);
      if (opts.fresh !== true) rememberState(store, s);
      return s;
    }
    searchAll = true;
  }
  if (top.kind === 'full') {
    const s: TableState = { snapshot: top.snapshot, chain: { base: id, baseBytes: top.bytes, depth: 0, since: 0 }, crc: top.crc };
    if (opts.fresh !== true) rememberState(store, s);
    return s;
  }
  // Walk down: the deltas to apply, newest first, until a state in memory, a checkpoint, a
  // v1 snapshot or the empty state.
  const pending: LogFile[] = [top];
  const prefetched = new Map<number, Promise<LogFile>>();
  let start: TableState | null = null;
  for (let at: LogFile = top; ; ) {
    const d: DeltaJson = (at as Extract<LogFile, { kind: 'delta' }>).delta;
    const below: number = d.on;
    if (below === 0) {
      start = { snapshot: emptyState(table), chain: { base: 0, baseBytes: 0, depth: 0, since: 0 }, crc: 0 };
      break;
    }
    const hit = opts.fresh === true ? undefined : cachedState(store, table, below);
    if (hit !== undefined) {
      start = hit;
      break;
    }
    if (below === d.base || below === hint || searchAll) {
      const ck = await readCheckpointOrNull(store, table, below, null);
      if (ck !== null && (ck.snapshot.incarnation ?? 1) === (d.incarnation ?? 1)) {
        opts.used?.add(snapshotPath(table, below));
        start = used(ck, opts);
        break;
      }
      searchAll = true;
    }
    // Everything between the base and here is read at once (orphans included: the walk skips them).
    if (prefetched.size === 0 && below - d.base > 1) {
      for (let x = Math.max(d.base, 1); x <= below; x++) {
        if (x === d.base && x !== below) continue;
        prefetched.set(x, limited(() => readLogFile(store, table, x)));
      }
      for (const p of prefetched.values()) p.catch(() => undefined);
    }
    const next: LogFile = await (prefetched.get(below) ?? readLogFile(store, table, below)).catch((e: unknown) => {
      // A delta the chain needs is gone: the table's metadata is damaged, not the table absent.
      if (isPaxdError(e) && e.kind === 'not_found') throw missingDelta(table, below, id);
      throw e;
    });
    opts.used?.add(next.path);
    if (next.kind === 'full') {
      start = { snapshot: next.snapshot, chain: { base: below, baseBytes: next.bytes, depth: 0, since: 0 }, crc: next.crc };
      break;
    }
    pending.push(next);
    at = next;
  }
  let state = start;
  for (let i = pending.length - 1; i >= 0; i--) {
    const f = pending[i] as Extract<LogFile, { kind: 'delta' }>;
    const snapshot = applyDelta(state.snapshot, f.delta, f.path);
    checkApplied(snapshot, f.delta, f.path);
    state = {
      snapshot,
      chain: { base: state.chain.base, baseBytes: state.chain.baseBytes, depth: state.chain.depth + 1, since: state.chain.since + f.bytes },
      crc: f.crc,
      ...(state.manifests !== undefined ? { manifests: state.manifests } : {}),
    };
    if (opts.fresh !== true) rememberState(store, state);
  }
  return state;
}

/** The state of a checkpoint read, its files noted in `opts.used`. */
function used(ck: TableState & { paths: string[] }, opts: LoadOptions): TableState {
  const { paths, ...state } = ck;
  for (const p of paths) opts.used?.add(p);
  return state;
}

function missingDelta(table: string, id: number, of: number): PaxdError {
  const path = snapshotPath(table, id);
  return corruption(path, 0, `delta ${path}, which state ${of} of table "${table}" is built on, is missing`);
}

/** The shape check of a SnapshotJson (./snapshot.ts), over what the delta brought: its head and the files it added or changed. */
function checkApplied(s: SnapshotJson, d: DeltaJson, path: string): void {
  // The files it added are checked as the delta carries them (the same objects the state now
  // holds); those whose groups it replaced, as the state holds them.
  const files = [...(d.add ?? [])];
  if (d.groups !== undefined) {
    const touched = new Set(d.groups.map((g) => g.path));
    for (const f of s.files) if (touched.has(f.path)) files.push(f);
  }
  const problem = snapshotShapeProblem({ ...s, files });
  if (problem !== null) throw corruption(path, SNAPSHOT_HEADER_BYTES, `delta ${path}: applied, ${problem}`);
}

/**
 * Checkpoint `id` of `table`, or null when it is missing or damaged (its state is then built
 * from the deltas below it): a manifest list and its manifests (./manifest.ts), or a
 * milestone-1 checkpoint in one file (./checkpoint.ts); `paths`: the files it was read from.
 */
async function readCheckpointOrNull(store: ObjectStore, table: string, id: number, crc: number | null): Promise<(TableState & { paths: string[] }) | null> {
  const path = checkpointPath(table, id);
  const paths = [path];
  try {
    const bytes = await store.read(path);
    let snapshot: SnapshotJson;
    let manifests: ManifestUse[] | undefined;
    if (hasMagic(MANIFEST_LIST_FRAME, bytes)) {
      const list = decodeManifestList(bytes, path, table, id);
      const checkFiles = (files: unknown[]): string | null => snapshotShapeProblem({ ...list.state, files });
      manifests = await Promise.all(
        list.manifests.map(async (ref: ManifestRef): Promise<ManifestUse> => {
          paths.push(ref.path);
          return { ref, files: decodeManifest(await store.read(ref.path), ref.path, ref, table, checkFiles) };
        }),
      );
      snapshot = { ...list.state, files: manifests.flatMap((m) => m.files) } as SnapshotJson;
      const problem = snapshotShapeProblem({ ...snapshot, files: [] });
      if (problem !== null) return null;
    } else snapshot = decodeCheckpoint(bytes, path, snapshotShapeProblem);
    if (snapshot.id !== id || snapshot.table !== table) return null;
    // The crc of the delta file N is what a commit on this state checks; read it (small).
    // crc 0 when unknown: a commit on this very state then reads it afresh (stateForCommit).
    return { snapshot, chain: { base: id, baseBytes: bytes.byteLength, depth: 0, since: 0 }, crc: crc ?? 0, ...(manifests !== undefined ? { manifests } : {}), paths };
  } catch (e) {
    if (isPaxdError(e) && (e.kind === 'not_found' || e.kind === 'corruption')) return null;
    throw e;
  }
}

/**
 * State `id`, checked against the store: the one in memory when `_snapshots/<id>.snap` still
 * holds the bytes it was built from (one small read), else read afresh. What a commit builds
 * on (never on a file damaged since it was read: XX001) and what `readSnapshot` returns.
 */
export async function stateForCommit(store: ObjectStore, table: string, id: number): Promise<TableState> {
  const hit = cachedState(store, table, id);
  if (hit !== undefined) {
    const bytes = await store.read(snapshotPath(table, id));
    const path = snapshotPath(table, id);
    decodeLogFile(bytes, path, table, id); // damaged since: XX001
    if (crc32(bytes) === hit.crc) return hit;
  }
  const s = await loadState(store, table, id, { fresh: true });
  rememberState(store, s);
  return s;
}

/**
 * Reads state `id` afresh from the store (every file of its chain verified) and, when a
 * checkpoint of `id` exists and the deltas below it too, checks that both ways give the same
 * state; `paxd check`. XX001 for a damaged or inconsistent one.
 */
export async function verifyState(store: ObjectStore, table: string, id: number): Promise<void> {
  const used = new Set<string>();
  const s = await loadState(store, table, id, { fresh: true, used });
  const ck = checkpointPath(table, id);
  if (used.has(ck)) {
    // Built from its own checkpoint: compare with the chain below, when it is still there.
    const top = await readLogFile(store, table, id);
    if (top.kind !== 'delta') return;
    let below: TableState;
    try {
      below = top.delta.on === 0 ? { snapshot: emptyState(table), chain: { base: 0, baseBytes: 0, depth: 0, since: 0 }, crc: 0 } : await loadState(store, table, top.delta.on, { fresh: true });
    } catch (e) {
      if (isPaxdError(e) && (e.kind === 'corruption' || e.kind === 'not_found')) return; // vacuumed below the checkpoint
      throw e;
    }
    const chained = applyDelta(below.snapshot, top.delta, top.path);
    if (!sameValue(chained, s.snapshot)) throw corruption(ck, 0, `checkpoint ${ck} holds another state than its deltas build`);
  }
}

/** Deep equality of JSON values, key order ignored. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (!sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  return true;
}

/** Whether a checkpoint of `s` pays now (see CHECKPOINT_MIN_DELTA_BYTES). */
export function checkpointDue(s: TableState): boolean {
  const c = s.chain;
  if (c.depth === 0) return false;
  return c.depth >= CHECKPOINT_MAX_DEPTH || c.since >= CHECKPOINT_MIN_DELTA_BYTES;
}

/**
 * Writes checkpoint `s.snapshot.id` (exclusively; one already there is left as it is) and
 * returns the state as based on it. Best effort: the commit is already durable, a failure
 * leaves the chain as it was.
 */
export async function writeCheckpoint(store: ObjectStore, s: TableState): Promise<TableState> {
  const { table, id } = s.snapshot;
  const plan = planManifests(s.snapshot.files, s.manifests ?? []);
  const written: string[] = [];
  let uses: ManifestUse[];
  let listBytes: Uint8Array;
  try {
    uses = await Promise.all(
      plan.map(async (m): Promise<ManifestUse> => {
        if (m.ref !== null) return { ref: m.ref, files: m.files };
        const bytes = encodeManifest(table, m.files);
        const path = manifestPath(table, id);
        if (!(await store.putIfAbsent(path, bytes))) throw new Error(`manifest name ${path} taken`);
        written.push(path);
        let groups = 0;
        for (const f of m.files) groups += f.groups.length;
        return { ref: { path, files: m.files.length, groups, bytes: bytes.byteLength, crc: payloadCrcOf(bytes) }, files: m.files };
      }),
    );
    const { files: _files, ...head } = s.snapshot;
    listBytes = encodeManifestList({ format: 2, table, id, state: head, manifests: uses.map((u) => u.ref) });
    if (!(await store.putIfAbsent(checkpointPath(table, id), listBytes))) throw new Error('checkpoint already written');
  } catch {
    // Best effort: a manifest no checkpoint names is garbage (vacuum would remove it too).
    for (const p of written) await store.delete(p).catch(() => undefined);
    return s;
  }
  const next: TableState = { snapshot: s.snapshot, chain: { base: id, baseBytes: listBytes.byteLength, depth: 0, since: 0 }, crc: s.crc, manifests: uses };
  rememberState(store, next);
  await writeHint(store, hintPath(table), HINT_FRAME, id).catch(() => undefined);
  return next;
}

/**
 * `<table>/_snapshots/_checkpoint`: names the table's newest checkpoint (./hint.ts; magic
 * "PXCH"). A checkpoint it names is used only when it verifies and lies on the chain read.
 */
export function hintPath(table: string): string {
  return `${table}/_snapshots/${HINT_NAME}`;
}
export const HINT_NAME = '_checkpoint';
export const HINT_FRAME: FrameKind = { noun: 'checkpoint hint', magic: new Uint8Array([0x50, 0x58, 0x43, 0x48]) }; // "PXCH"

// A small limiter so that a long chain does not open hundreds of files at once.
let active = 0;
const waiting: (() => void)[] = [];
async function limited<T>(f: () => Promise<T>): Promise<T> {
  if (active >= READ_CONCURRENCY) await new Promise<void>((go) => waiting.push(go));
  active++;
  try {
    return await f();
  } finally {
    active--;
    waiting.shift()?.();
  }
}

/** Whether `bytes` is a checkpoint file (vacuum, check). */
export function isCheckpoint(bytes: Uint8Array): boolean {
  return hasMagic(CHECKPOINT_FRAME, bytes);
}

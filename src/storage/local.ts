/**
 * The local-disk object store: objects are files under a root folder, keys are relative
 * '/'-separated paths. See ./store.ts for the guarantees; how this store keeps them:
 *
 * - create(): the file is opened with O_EXCL ('wx'); writes are coalesced into a buffer of
 *   `writeBufferBytes` (1 MiB) before a write syscall; close() fsyncs the file, then its
 *   directory, then every directory up to the root that this process has not yet made
 *   durable (a new table folder is a new entry in the root, and so on).
 * - putIfAbsent(): writes `<dir>/.tmp-<random>`, fsyncs it, link()s it to the final name
 *   (EEXIST: lost the race), unlinks the temp name and fsyncs the directory. If that fsync
 *   fails the final name is unlinked again before the error is thrown: a commit must not
 *   stay visible when it is not durable. (A reader that looked in between may have seen
 *   it; the error tells the caller the outcome is unknown, as a failed COMMIT does.)
 * - read(): pread of exact ranges through a small cache of open read handles; a short read
 *   is corruption naming the path and offset. Whole-object reads (snapshots) open the file
 *   afresh, so a name that was deleted and created again is never read through a stale
 *   handle.
 * - append(): opens the existing file, truncates it to the committed offset (dropping what a
 *   crashed append left) and writes from there; close() fsyncs the file.
 *
 * The root folder is created (mkdir -p) by the first operation that writes.
 *
 * Example:
 *   const store = new LocalStore('./paxd-data');
 *   await store.putIfAbsent('t/_snapshots/00000000000000000001.snap', bytes); // true
 *   await store.read('t/_snapshots/00000000000000000001.snap', 0, 4);         // "PXSN"
 */
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve, sep } from 'node:path';
import { corruption, errnoOf, fileError, objectExists, objectNotFound, PaxdError, usage, assert } from '../types/index.js';
import { nodeFs, writeAll, type FsFile, type FsOps } from './fs-ops.js';
import type { ObjectInfo, ObjectStore, ObjectWriter } from './store.js';

export interface LocalStoreOptions {
  /** The filesystem calls to use; a FaultFs in tests. Default: node:fs/promises. */
  fs?: FsOps;
  /** Bytes coalesced before a write syscall. Default 1 MiB. */
  writeBufferBytes?: number;
  /** Read handles kept open between reads. Default 64; 0 disables the cache. */
  maxReadHandles?: number;
}

export const DEFAULT_WRITE_BUFFER_BYTES = 1 << 20;
export const DEFAULT_MAX_READ_HANDLES = 64;
/** Prefix of putIfAbsent's temporary files; vacuum removes leftovers (crashes mid-commit). */
export const TEMP_PREFIX = '.tmp-';
const TEMP_RANDOM_BYTES = 8;

interface ReadHandle {
  readonly file: Promise<FsFile>;
  users: number;
  /** Dropped from the cache; closed when the last user is done. */
  evicted: boolean;
}

/** Files stat'ed at once by a listing. */
const LIST_STAT_CONCURRENCY = 32;

export class LocalStore implements ObjectStore {
  readonly uri: string;
  readonly canAppend = true;
  readonly root: string;
  private readonly fs: FsOps;
  private readonly bufferBytes: number;
  private readonly maxHandles: number;
  private readonly handles = new Map<string, ReadHandle>();
  private closed = false;
  /** Directories whose entry in their parent this process has made durable (or found so). */
  private readonly durableDirs = new Set<string>();
  private rootReady: Promise<void> | null = null;

  constructor(root: string, opts: LocalStoreOptions = {}) {
    this.root = resolve(root);
    this.uri = this.root;
    this.fs = opts.fs ?? nodeFs;
    this.bufferBytes = opts.writeBufferBytes ?? DEFAULT_WRITE_BUFFER_BYTES;
    this.maxHandles = opts.maxReadHandles ?? DEFAULT_MAX_READ_HANDLES;
    assert(this.bufferBytes > 0, 'writeBufferBytes must be positive');
  }

  // ---- reads ----

  async read(path: string, offset?: number, length?: number): Promise<Uint8Array> {
    const os = this.osPath(path);
    if (offset === undefined && length === undefined) return this.readWhole(path, os);
    const at = offset ?? 0;
    assert(Number.isSafeInteger(at) && at >= 0, `read offset ${at} of ${path}`);
    if (length === undefined) {
      return this.withReadHandle(path, os, async (f) => {
        const size = await f.size().catch((e: unknown) => Promise.reject(fsError('stat', path, e)));
        return this.readRange(path, f, at, Math.max(0, size - at));
      });
    }
    assert(Number.isSafeInteger(length) && length >= 0, `read length ${length} of ${path}`);
    return this.withReadHandle(path, os, (f) => this.readRange(path, f, at, length));
  }

  async stat(path: string): Promise<ObjectInfo | null> {
    const os = this.osPath(path);
    try {
      const s = await this.fs.stat(os);
      return s.isFile ? { path, size: s.size, mtimeMs: s.mtimeMs } : null;
    } catch (e) {
      if (errnoOf(e) === 'ENOENT' || errnoOf(e) === 'ENOTDIR') return null;
      throw fsError('stat', path, e);
    }
  }

  async list(prefix: string, startAfter?: string): Promise<ObjectInfo[]> {
    // Walk the folder the prefix names (its part up to the last '/'), keep what matches.
    const cut = prefix.lastIndexOf('/');
    const folder = cut < 0 ? '' : prefix.slice(0, cut);
    if (folder !== '') this.osPath(folder); // rejects prefixes that would leave the root
    const out: ObjectInfo[] = [];
    await this.walk(folder, prefix, out, startAfter);
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  // ---- writes ----

  async create(path: string): Promise<ObjectWriter> {
    const os = this.osPath(path);
    await this.ensureDir(path, dirname(os));
    let file: FsFile;
    try {
      file = await this.fs.open(os, 'create');
    } catch (e) {
      if (errnoOf(e) === 'EEXIST') throw objectExists(path);
      throw fsError('create', path, e);
    }
    return new LocalWriter(path, file, 0, this.bufferBytes, {
      durable: () => this.syncDirChain(path, dirname(os)),
      discard: () => this.removeQuietly(os),
    });
  }

  async append(path: string, offset: number): Promise<ObjectWriter> {
    const os = this.osPath(path);
    assert(Number.isSafeInteger(offset) && offset >= 0, `append offset ${offset} of ${path}`);
    let file: FsFile;
    try {
      file = await this.fs.open(os, 'update');
    } catch (e) {
      if (errnoOf(e) === 'ENOENT') throw objectNotFound(path);
      throw fsError('open', path, e);
    }
    try {
      const size = await file.size();
      // A file shorter than its committed end lost committed bytes: never paper over that
      // by extending it with zeros.
      if (size < offset) throw appendPastEnd(path, offset, size);
      if (size > offset) await file.truncate(offset);
    } catch (e) {
      await file.close().catch(() => undefined);
      throw e instanceof PaxdError ? e : fsError('truncate', path, e);
    }
    return new LocalWriter(path, file, offset, this.bufferBytes, {
      durable: async () => undefined, // no new directory entry
      discard: async () => undefined, // bytes past the committed end are never read
    });
  }

  async putIfAbsent(path: string, bytes: Uint8Array): Promise<boolean> {
    const os = this.osPath(path);
    const dir = dirname(os);
    await this.ensureDir(path, dir);
    const tmp = join(dir, TEMP_PREFIX + randomBytes(TEMP_RANDOM_BYTES).toString('hex'));

    // 1. The whole content, durable under a name nobody else uses.
    let file: FsFile | null = null;
    try {
      file = await this.fs.open(tmp, 'create');
      await writeAll(file, bytes, 0, tmp);
      await file.sync();
      const f = file;
      file = null;
      await f.close();
    } catch (e) {
      if (file) await file.close().catch(() => undefined);
      await this.removeQuietly(tmp);
      throw fsError('write to', path, e);
    }

    // 2. The commit point: link() fails with EEXIST when another writer got there first.
    try {
      await this.fs.link(tmp, os);
    } catch (e) {
      await this.removeQuietly(tmp);
      if (errnoOf(e) === 'EEXIST') return false;
      throw fsError('link', path, e);
    }
    await this.removeQuietly(tmp);

    // 3. Durable: the new entry (and any new folders) reach the disk.
    try {
      await this.syncDirChain(path, dir);
    } catch (e) {
      await this.removeQuietly(os);
      throw e;
    }
    return true;
  }

  async delete(path: string): Promise<void> {
    const os = this.osPath(path);
    this.evict(os);
    try {
      await this.fs.unlink(os);
    } catch (e) {
      if (errnoOf(e) === 'ENOENT') return;
      throw fsError('delete', path, e);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.handles.values()];
    this.handles.clear();
    for (const h of all) {
      h.evicted = true;
      if (h.users === 0) await closeHandle(h);
    }
  }

  // ---- paths and directories ----

  /** The OS path of a key; rejects keys that would leave the root. */
  private osPath(path: string): string {
    const parts = path.split('/');
    if (path === '' || path.includes('\0') || path.includes('\\') || parts.some((p) => p === '' || p === '.' || p === '..')) {
      throw usage(`invalid object path "${path}": expected a relative path of non-empty names without "." or ".."`);
    }
    return join(this.root, ...parts);
  }

  /** mkdir -p of `dir` (and of the root, once); new folders are not durable until synced. */
  private async ensureDir(path: string, dir: string): Promise<void> {
    this.rootReady ??= this.makeRoot().catch((e) => {
      this.rootReady = null;
      throw e;
    });
    await this.rootReady;
    let first: string | undefined;
    try {
      first = await this.fs.mkdirp(dir);
    } catch (e) {
      throw fsError('create the folder of', path, e);
    }
    // Folders removed and created again behind our back are new again.
    if (first !== undefined) for (let d = dir; d.length >= first.length; d = dirname(d)) this.durableDirs.delete(d);
  }

  /** Creates the root and makes its entry (and those of new folders above it) durable. */
  private async makeRoot(): Promise<void> {
    try {
      const first = await this.fs.mkdirp(this.root);
      const top = first ?? this.root;
      for (let d = this.root; ; d = dirname(d)) {
        await this.fs.syncDir(dirname(d));
        if (d.length <= top.length) break;
      }
    } catch (e) {
      throw fsError('create the store root', this.root, e);
    }
    this.durableDirs.add(this.root);
  }

  /**
   * fsync of `dir` (a new entry is in it), then of each parent whose entry for a folder this
   * process has not yet made durable, up to the root.
   */
  private async syncDirChain(path: string, dir: string): Promise<void> {
    try {
      await this.fs.syncDir(dir);
      for (let d = dir; !this.durableDirs.has(d) && d.startsWith(this.root + sep); d = dirname(d)) {
        await this.fs.syncDir(dirname(d));
        this.durableDirs.add(d);
      }
    } catch (e) {
      throw fsError('fsync the folder of', path, e);
    }
  }

  /** Appends the files under `folder` (a key, '' for the root) whose key starts with `prefix`. */
  private async walk(folder: string, prefix: string, out: ObjectInfo[], startAfter?: string): Promise<void> {
    const osFolder = folder === '' ? this.root : join(this.root, ...folder.split('/'));
    let entries;
    try {
      entries = await this.fs.readdir(osFolder);
    } catch (e) {
      const code = errnoOf(e);
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      throw fsError('list', folder === '' ? '.' : folder, e);
    }
    const files: { path: string; name: string }[] = [];
    for (const entry of entries) {
      const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
      // Descend only into folders that can hold matches: "t/da" descends into "t" and
      // "t/data", not into "u".
      if (entry.isDirectory) {
        if (path.startsWith(prefix) || prefix.startsWith(path + '/')) await this.walk(path, prefix, out, startAfter);
        continue;
      }
      // Names up to `startAfter` are not even stat'ed: a long history before it costs a readdir.
      if (path.startsWith(prefix) && (startAfter === undefined || path > startAfter)) files.push({ path, name: entry.name });
    }
    // The stats run side by side, a bounded number at a time: a listing costs about one stat's
    // latency, not one per file (every statement lists its table's snapshots).
    for (let i = 0; i < files.length; i += LIST_STAT_CONCURRENCY) {
      const infos = await Promise.all(
        files.slice(i, i + LIST_STAT_CONCURRENCY).map(async ({ path, name }): Promise<ObjectInfo | null> => {
          try {
            const s = await this.fs.stat(join(osFolder, name));
            return s.isFile ? { path, size: s.size, mtimeMs: s.mtimeMs } : null;
          } catch (e) {
            if (errnoOf(e) !== 'ENOENT') throw fsError('stat', path, e); // ENOENT: deleted since readdir
            return null;
          }
        }),
      );
      for (const info of infos) if (info !== null) out.push(info);
    }
  }

  private async removeQuietly(os: string): Promise<void> {
    this.evict(os);
    await this.fs.unlink(os).catch(() => undefined);
  }

  // ---- reading ----

  private async readWhole(path: string, os: string): Promise<Uint8Array> {
    const f = await this.openForRead(path, os);
    try {
      const size = await f.size();
      return await this.readRange(path, f, 0, size);
    } catch (e) {
      throw e instanceof PaxdError ? e : fsError('read', path, e);
    } finally {
      await f.close().catch(() => undefined);
    }
  }

  private async readRange(path: string, f: FsFile, offset: number, length: number): Promise<Uint8Array> {
    // Not zero-filled: every byte is overwritten by the read, and a short read throws.
    const b = Buffer.allocUnsafeSlow(length);
    const out = new Uint8Array(b.buffer, b.byteOffset, length);
    let got: number;
    try {
      got = length === 0 ? 0 : await f.read(out, offset);
    } catch (e) {
      throw fsError('read', path, e);
    }
    if (got < length) {
      const size = await f.size().catch(() => offset + got);
      throw shortFile(path, offset, length, size);
    }
    return out;
  }

  private async openForRead(path: string, os: string): Promise<FsFile> {
    try {
      return await this.fs.open(os, 'read');
    } catch (e) {
      const code = errnoOf(e);
      if (code === 'ENOENT' || code === 'ENOTDIR') throw objectNotFound(path);
      throw fsError('open', path, e);
    }
  }

  /** Runs `fn` with a cached read handle of `os`, opening one when needed. */
  private async withReadHandle<T>(path: string, os: string, fn: (f: FsFile) => Promise<T>): Promise<T> {
    if (this.maxHandles === 0 || this.closed) {
      // No cache, or a read that outlived close() (a prefetch): open, read, close.
      const f = await this.openForRead(path, os);
      try {
        return await fn(f);
      } finally {
        await f.close().catch(() => undefined);
      }
    }
    let h = this.handles.get(os);
    if (h) {
      this.handles.delete(os); // re-insert: Map order is least recently used first
    } else {
      const opened = this.openForRead(path, os);
      h = { file: opened, users: 0, evicted: false };
      const mine = h;
      opened.catch(() => {
        if (this.handles.get(os) === mine) this.handles.delete(os);
        mine.evicted = true;
      });
    }
    this.handles.set(os, h);
    h.users++;
    try {
      return await fn(await h.file);
    } finally {
      h.users--;
      if (h.evicted && h.users === 0) await closeHandle(h);
      await this.trimHandles();
    }
  }

  private evict(os: string): void {
    const h = this.handles.get(os);
    if (!h) return;
    this.handles.delete(os);
    h.evicted = true;
    if (h.users === 0) void closeHandle(h);
  }

  private async trimHandles(): Promise<void> {
    if (this.handles.size <= this.maxHandles) return;
    for (const [os, h] of this.handles) {
      if (this.handles.size <= this.maxHandles) break;
      if (h.users > 0) continue;
      this.handles.delete(os);
      h.evicted = true;
      await closeHandle(h);
    }
  }
}

/** What create() and append() differ in, for the writer. */
interface WriterHooks {
  /** After the file's fsync in close(): make its directory entry durable. */
  durable(): Promise<void>;
  /** abort(): remove what was written. */
  discard(): Promise<void>;
}

type WriterState = 'open' | 'closed' | 'failed' | 'aborted';

/** A buffered writer; one caller at a time (each write awaited before the next). */
class LocalWriter implements ObjectWriter {
  private state: WriterState = 'open';
  private busy = false;
  private readonly buffer: Uint8Array;
  private buffered = 0;
  private pos: number;
  private fileOpen = true;

  constructor(
    readonly path: string,
    private readonly file: FsFile,
    start: number,
    bufferBytes: number,
    private readonly hooks: WriterHooks,
  ) {
    this.pos = start;
    this.buffer = new Uint8Array(bufferBytes);
  }

  get position(): number {
    return this.pos;
  }

  async write(bytes: Uint8Array): Promise<void> {
    this.begin('write');
    try {
      const cap = this.buffer.byteLength;
      if (this.buffered + bytes.byteLength > cap) {
        await this.flush();
        if (bytes.byteLength >= cap) {
          // Large writes go straight to the file, without a copy.
          await writeAll(this.file, bytes, this.pos, this.path);
          this.pos += bytes.byteLength;
          return;
        }
      }
      this.buffer.set(bytes, this.buffered);
      this.buffered += bytes.byteLength;
      this.pos += bytes.byteLength;
      if (this.buffered === cap) await this.flush();
    } catch (e) {
      this.state = 'failed';
      throw fsError('write to', this.path, e);
    } finally {
      this.busy = false;
    }
  }

  async close(): Promise<void> {
    this.begin('close');
    let op = 'write to';
    try {
      await this.flush();
      op = 'fsync';
      await this.file.sync();
    } catch (e) {
      this.state = 'failed';
      await this.closeFile().catch(() => undefined);
      throw fsError(op, this.path, e);
    } finally {
      this.busy = false;
    }
    this.state = 'closed';
    try {
      await this.closeFile();
    } catch (e) {
      throw fsError('close', this.path, e);
    }
    await this.hooks.durable();
  }

  async abort(): Promise<void> {
    assert(!this.busy, `abort of ${this.path} while a write is in progress`);
    if (this.state === 'aborted') return;
    this.state = 'aborted';
    await this.closeFile().catch(() => undefined);
    await this.hooks.discard();
  }

  private async closeFile(): Promise<void> {
    if (!this.fileOpen) return;
    this.fileOpen = false;
    await this.file.close();
  }

  private begin(op: string): void {
    assert(!this.busy, `${op} of ${this.path} while a write is in progress`);
    assert(this.state === 'open', `${op} of ${this.path} after the writer was ${this.state}`);
    this.busy = true;
  }

  private async flush(): Promise<void> {
    if (this.buffered === 0) return;
    const n = this.buffered;
    await writeAll(this.file, this.buffer.subarray(0, n), this.pos - n, this.path);
    this.buffered = 0;
  }
}

async function closeHandle(h: ReadHandle): Promise<void> {
  try {
    await (await h.file).close();
  } catch {
    // The open failed (already reported to its reader) or the close did; nothing to keep.
  }
}

/** `short read of t/data/1.pax: expected 4096 bytes at offset 1048576, file has 1049000`. */
function shortFile(path: string, offset: number, length: number, size: number): PaxdError {
  return corruption(path, offset, `short read of ${path}: expected ${length} bytes at offset ${offset}, file has ${size}`);
}

/** The committed end of an append-only object lies past the end of its file: bytes were lost. */
function appendPastEnd(path: string, offset: number, size: number): PaxdError {
  return corruption(path, offset, `append to ${path}: committed end is offset ${offset}, file has ${size} bytes`);
}

/**
 * `could not fsync file "t/data/1.pax": EIO: i/o error`, `could not write to file
 * "t/data/1.pax": No space left on device` (53100): PostgreSQL's wording and codes.
 */
function fsError(op: string, path: string, e: unknown): PaxdError {
  return fileError(op, path, e);
}

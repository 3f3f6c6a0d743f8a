/**
 * A fault injector over FsOps, for crash and error tests: counts the operations that change
 * the disk in four categories and fails the Nth one of a chosen category (or the Nth of all
 * of them) with an EIO error, as a dying disk would, or with ENOSPC, as a full one would
 * (`failNth(..., { code: 'ENOSPC' })`; sticky until `disarm()`: space returns). With
 * `shortWrites(k)` every write writes at most k bytes and says so, as write(2) may.
 *
 *   write    FsFile.writeSome and FsFile.truncate
 *   fsync    FsFile.sync
 *   link     FsOps.link
 *   dirsync  FsOps.syncDir
 *
 * Sweep pattern: fail operation N = 1, 2, … of a category until a run completes with no
 * fault injected; by then every operation of that category has failed once.
 *
 *   for (let n = 1; ; n++) {
 *     const fs = new FaultFs();
 *     fs.failNth('fsync', n);
 *     const store = new LocalStore(root, { fs });
 *     try { await store.putIfAbsent(p, bytes); } catch (e) { ... check a clean PaxdError ... }
 *     if (fs.injected === 0) break;
 *   }
 */
import { nodeFs, type FsDirEntry, type FsFile, type FsOps, type FsStat, type OpenMode } from './fs-ops.js';

export type FaultCategory = 'write' | 'fsync' | 'link' | 'dirsync';
export const FAULT_CATEGORIES: readonly FaultCategory[] = ['write', 'fsync', 'link', 'dirsync'];

export interface FaultPlan {
  /** Which operations count towards `n`; 'any' counts all four categories. */
  category: FaultCategory | 'any';
  /** 1-based: the Nth counted operation after arming fails. */
  n: number;
  /** When true, every counted operation after the Nth fails too (a disk that stays dead). */
  sticky?: boolean;
  /** The errno of the failure. Default 'EIO'. */
  code?: FaultCode;
}

export type FaultCode = 'EIO' | 'ENOSPC';
const FAULT_ERRNO: Record<FaultCode, { errno: number; text: string }> = {
  EIO: { errno: -5, text: 'i/o error' },
  ENOSPC: { errno: -28, text: 'no space left on device' },
};

/** The error an injected fault throws: shaped like Node's, code 'EIO' (errno -5) or 'ENOSPC' (-28). */
export class InjectedFault extends Error {
  readonly errno: number;
  constructor(
    readonly category: FaultCategory,
    readonly syscall: string,
    readonly path: string,
    readonly code: FaultCode = 'EIO',
  ) {
    super(`${code}: ${FAULT_ERRNO[code].text} (injected), ${syscall} '${path}'`);
    this.name = 'InjectedFault';
    this.errno = FAULT_ERRNO[code].errno;
  }
}

export class FaultFs implements FsOps {
  /** Operations seen per category since construction (failed ones included). */
  readonly counts: Record<FaultCategory, number> = { write: 0, fsync: 0, link: 0, dirsync: 0 };
  /** Faults injected so far. */
  injected = 0;
  private plan: FaultPlan | null = null;
  private seen = 0;
  /** Largest write that succeeds whole; longer ones are cut short (shortWrites). */
  maxWrite = Infinity;

  constructor(private readonly inner: FsOps = nodeFs) {}

  /** Arms a fault: the Nth operation of `category` from now on fails. */
  failNth(category: FaultCategory | 'any', n: number, sticky = false, code: FaultCode = 'EIO'): this {
    this.plan = { category, n, sticky, code };
    this.seen = 0;
    return this;
  }

  /** From now on every write writes at most `bytes` bytes and returns that count. */
  shortWrites(bytes: number): this {
    this.maxWrite = bytes;
    return this;
  }

  /** No more faults. */
  disarm(): this {
    this.plan = null;
    return this;
  }

  get total(): number {
    return this.counts.write + this.counts.fsync + this.counts.link + this.counts.dirsync;
  }

  async open(path: string, mode: OpenMode): Promise<FsFile> {
    return new FaultFile(this, path, await this.inner.open(path, mode));
  }

  stat(path: string): Promise<FsStat> {
    return this.inner.stat(path);
  }

  readdir(path: string): Promise<FsDirEntry[]> {
    return this.inner.readdir(path);
  }

  mkdirp(path: string): Promise<string | undefined> {
    return this.inner.mkdirp(path);
  }

  async link(existing: string, newPath: string): Promise<void> {
    this.check('link', 'link', newPath);
    return this.inner.link(existing, newPath);
  }

  unlink(path: string): Promise<void> {
    return this.inner.unlink(path);
  }

  rename(from: string, to: string): Promise<void> {
    return this.inner.rename(from, to);
  }

  async syncDir(path: string): Promise<void> {
    this.check('dirsync', 'fsync', path);
    return this.inner.syncDir(path);
  }

  /** Counts an operation; throws when it is the one to fail. */
  check(category: FaultCategory, syscall: string, path: string): void {
    this.counts[category]++;
    const plan = this.plan;
    if (!plan || (plan.category !== 'any' && plan.category !== category)) return;
    this.seen++;
    if (this.seen < plan.n) return;
    if (!plan.sticky) this.plan = null;
    this.injected++;
    throw new InjectedFault(category, syscall, path, plan.code);
  }
}

class FaultFile implements FsFile {
  constructor(
    private readonly fs: FaultFs,
    private readonly path: string,
    private readonly inner: FsFile,
  ) {}

  async writeSome(bytes: Uint8Array, position: number): Promise<number> {
    this.fs.check('write', 'write', this.path);
    return this.inner.writeSome(bytes.byteLength > this.fs.maxWrite ? bytes.subarray(0, this.fs.maxWrite) : bytes, position);
  }

  read(into: Uint8Array, position: number): Promise<number> {
    return this.inner.read(into, position);
  }

  size(): Promise<number> {
    return this.inner.size();
  }

  async sync(): Promise<void> {
    this.fs.check('fsync', 'fsync', this.path);
    return this.inner.sync();
  }

  async truncate(length: number): Promise<void> {
    this.fs.check('write', 'ftruncate', this.path);
    return this.inner.truncate(length);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * The filesystem calls paxd makes when it writes files, behind one small interface, so that a
 * fault injector (./faulty.ts) can wrap them and make the Nth write, fsync, link or directory
 * fsync fail, or cut writes short. `nodeFs` is the real implementation over node:fs/promises.
 * The local store, the rejects file of an ingest and the inbox's reports all write through it.
 *
 * Every write goes through `writeAll`, the one place that continues short writes: a write(2)
 * may write fewer bytes than asked (a disk filling up writes what fits, then fails with
 * ENOSPC), and a short write taken for a whole one loses the rest silently.
 *
 * Errors are the raw Node errors (with `code` such as 'ENOENT', 'EEXIST', 'EIO'); callers
 * turn them into PaxdErrors (fileError in src/types/errors.ts), because only they know which
 * ones are expected outcomes.
 */
import { link, mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

/**
 * How a file is opened:
 * - 'read'    an existing file, read only ('r');
 * - 'update'  an existing file, read and write, not truncated ('r+');
 * - 'create'  a new file, exclusively: fails with EEXIST when the name exists ('wx');
 * - 'replace' a new or emptied file, write only ('w'): a rejects file named by the user.
 */
export type OpenMode = 'read' | 'update' | 'create' | 'replace';

const OPEN_FLAGS: Record<OpenMode, string> = { read: 'r', update: 'r+', create: 'wx', replace: 'w' };

/** Permissions of created files: owner read/write, others read (before the umask). */
const FILE_MODE = 0o644;

/** An open file. Positions are absolute (pread/pwrite); there is no file cursor. */
export interface FsFile {
  /**
   * One write(2) of `bytes` at `position`: resolves to the bytes written, which may be fewer
   * than asked (a short write). Callers use writeAll.
   */
  writeSome(bytes: Uint8Array, position: number): Promise<number>;
  /** Reads into `into` from `position` until it is full or the file ends; returns the bytes read. */
  read(into: Uint8Array, position: number): Promise<number>;
  /** Current size of the file (fstat). */
  size(): Promise<number>;
  /** fsync: the file's data and metadata are durable when this resolves. */
  sync(): Promise<void>;
  /** Cuts (or extends with zeros) the file to `length` bytes. */
  truncate(length: number): Promise<void>;
  close(): Promise<void>;
}

export interface FsStat {
  size: number;
  mtimeMs: number;
  isFile: boolean;
  isDirectory: boolean;
}

export interface FsDirEntry {
  name: string;
  isFile: boolean;
  isDirectory: boolean;
}

export interface FsOps {
  open(path: string, mode: OpenMode): Promise<FsFile>;
  stat(path: string): Promise<FsStat>;
  readdir(path: string): Promise<FsDirEntry[]>;
  /** mkdir -p; returns the first directory it created, or undefined when all existed. */
  mkdirp(path: string): Promise<string | undefined>;
  /** A hard link: `newPath` names the same file as `existing`; EEXIST when `newPath` exists. */
  link(existing: string, newPath: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** rename(2): `to` is replaced when it exists (for the inbox's own reports, never for store objects). */
  rename(from: string, to: string): Promise<void>;
  /** fsync of a directory: entries created or removed in it are durable when this resolves. */
  syncDir(path: string): Promise<void>;
}

class NodeFile implements FsFile {
  constructor(private readonly fh: FileHandle) {}

  async writeSome(bytes: Uint8Array, position: number): Promise<number> {
    return (await this.fh.write(bytes, 0, bytes.byteLength, position)).bytesWritten;
  }

  async read(into: Uint8Array, position: number): Promise<number> {
    let done = 0;
    while (done < into.byteLength) {
      const { bytesRead } = await this.fh.read(into, done, into.byteLength - done, position + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return done;
  }

  async size(): Promise<number> {
    return (await this.fh.stat()).size;
  }

  sync(): Promise<void> {
    return this.fh.sync();
  }

  truncate(length: number): Promise<void> {
    return this.fh.truncate(length);
  }

  close(): Promise<void> {
    return this.fh.close();
  }
}

/** A system error as Node makes them (`code`, `errno`, `syscall`, `path`). */
function systemError(code: string, errno: number, description: string, syscall: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${description}, ${syscall} '${path}'`), { code, errno, syscall, path });
}

/**
 * Writes all of `bytes` at `position` of `file`, continuing short writes. A write that makes
 * no progress is ENOSPC, as PostgreSQL assumes when write() sets no errno ("if write didn't
 * set errno, assume problem is no disk space", src/backend/storage/file/fd.c).
 *
 *   await writeAll(file, bytes, 0);   // every byte written, or a thrown system error
 */
export async function writeAll(file: FsFile, bytes: Uint8Array, position: number, path = ''): Promise<void> {
  let done = 0;
  while (done < bytes.byteLength) {
    const n = await file.writeSome(bytes.subarray(done), position + done);
    if (!(n > 0)) throw systemError('ENOSPC', -28, 'no space left on device', 'write', path);
    done += n;
  }
}

/**
 * A file written whole and durable: opened with `mode`, written (writeAll), fsynced, closed.
 * On failure the file is closed and the error thrown; removing a partial file is the caller's
 * decision (it may be a temporary name). A file that is not a regular file (`/dev/null` as a
 * rejects file) is not fsynced: there is nothing to make durable.
 */
export async function writeFileDurable(fs: FsOps, path: string, bytes: Uint8Array, mode: 'create' | 'replace'): Promise<void> {
  const file = await fs.open(path, mode);
  try {
    await writeAll(file, bytes, 0, path);
    if ((await fs.stat(path)).isFile) await file.sync();
  } catch (e) {
    await file.close().catch(() => undefined);
    throw e;
  }
  await file.close();
}

/** The real filesystem. */
export const nodeFs: FsOps = {
  async open(path, mode) {
    return new NodeFile(await open(path, OPEN_FLAGS[mode], FILE_MODE));
  },
  async stat(path) {
    const s = await stat(path);
    return { size: s.size, mtimeMs: s.mtimeMs, isFile: s.isFile(), isDirectory: s.isDirectory() };
  },
  async readdir(path) {
    const entries = await readdir(path, { withFileTypes: true });
    return entries.map((e) => ({ name: e.name, isFile: e.isFile(), isDirectory: e.isDirectory() }));
  },
  mkdirp(path) {
    return mkdir(path, { recursive: true });
  },
  link(existing, newPath) {
    return link(existing, newPath);
  },
  unlink(path) {
    return unlink(path);
  },
  rename(from, to) {
    return rename(from, to);
  },
  async syncDir(path) {
    // Linux (and the BSDs) make directory entries durable through an fsync of the directory
    // opened read-only; see fsync(2), "Calling fsync() does not necessarily ensure that the
    // entry in the directory containing the file has also reached disk".
    const fh = await open(path, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  },
};

/**
 * The filesystem calls the local store makes, behind one small interface, so that a fault
 * injector (./faulty.ts) can wrap them and make the Nth write, fsync, link or directory
 * fsync fail. `nodeFs` is the real implementation over node:fs/promises.
 *
 * Errors are the raw Node errors (with `code` such as 'ENOENT', 'EEXIST', 'EIO'); the store
 * turns them into PaxdErrors, because only it knows which ones are expected outcomes.
 */
import { link, mkdir, open, readdir, stat, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

/**
 * How a file is opened:
 * - 'read'   an existing file, read only ('r');
 * - 'update' an existing file, read and write, not truncated ('r+');
 * - 'create' a new file, exclusively: fails with EEXIST when the name exists ('wx').
 */
export type OpenMode = 'read' | 'update' | 'create';

const OPEN_FLAGS: Record<OpenMode, string> = { read: 'r', update: 'r+', create: 'wx' };

/** Permissions of created files: owner read/write, others read (before the umask). */
const FILE_MODE = 0o644;

/** An open file. Positions are absolute (pread/pwrite); there is no file cursor. */
export interface FsFile {
  /** Writes all of `bytes` at `position` (short writes are continued). */
  write(bytes: Uint8Array, position: number): Promise<void>;
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
  /** fsync of a directory: entries created or removed in it are durable when this resolves. */
  syncDir(path: string): Promise<void>;
}

class NodeFile implements FsFile {
  constructor(private readonly fh: FileHandle) {}

  async write(bytes: Uint8Array, position: number): Promise<void> {
    let done = 0;
    while (done < bytes.byteLength) {
      const { bytesWritten } = await this.fh.write(bytes, done, bytes.byteLength - done, position + done);
      done += bytesWritten;
    }
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

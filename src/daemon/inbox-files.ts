/**
 * The inbox's files on disk (docs/DAEMON.md): which names are taken, a file's identity, and the
 * moves to `.done/` and `.failed/`.
 *
 *   <inbox>/<table>/events-0001.csv.gz          waiting (or being loaded)
 *   <inbox>/<table>/.done/events-0001.csv.gz    loaded: its rows are committed
 *   <inbox>/<table>/.failed/bad.csv             not loaded
 *   <inbox>/<table>/.failed/bad.csv.error.json  why: { file, line, column, reason, sqlstate }
 *   <inbox>/<table>/.failed/x.csv.rejects.ndjson  on_error = skip: the rows of x.csv rejected
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { writeFileDurable, type FsOps, type IngestedFileJson } from '../storage/index.js';
import { formatOf } from '../insert/readers.js';
import { fileError } from '../types/index.js';

export const DONE_DIR = '.done';
export const FAILED_DIR = '.failed';

/**
 * Whether a name in a table's inbox folder is a file to load: a known format (CSV, NDJSON,
 * Parquet, Arrow, optionally .gz/.zst), not a dotfile and not a temporary name that writers
 * use before renaming a file in (`x.csv.tmp`, `x.csv.part`, `x.csv~`, `~$x.csv`, `_x.csv`).
 */
export function isInboxName(name: string): boolean {
  if (name.startsWith('.') || name.startsWith('~') || name.startsWith('_')) return false;
  if (/(\.tmp|\.temp|\.part|\.partial|\.crdownload|\.swp|~)$/i.test(name)) return false;
  return formatOf(name) !== null;
}

/** `<inbox>/<table>/<name>` → its table and name, or null for anything else. */
export function inboxPathParts(inbox: string, path: string): { table: string; name: string } | null {
  const dir = dirname(path);
  if (dirname(dir) !== inbox) return null;
  const table = basename(dir);
  const name = basename(path);
  if (table.startsWith('.') || !isInboxName(name)) return null;
  return { table, name };
}

/** Name, size and sha256 of a file, read in one pass; null when it is gone. */
export async function fileIdentity(path: string): Promise<IngestedFileJson | null> {
  const hash = createHash('sha256');
  let size = 0;
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).byteLength;
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  // A file still growing would hash a prefix: its size now must be what was read.
  const st = await stat(path).catch(() => null);
  if (st === null) return null;
  if (st.size !== size) return { name: basename(path), size: -1, hash: '' };
  return { name: basename(path), size, hash: `sha256:${hash.digest('hex')}` };
}

/**
 * Where `path` goes in `<its folder>/<sub>/`: the same name unless one is there already (a
 * file of the same name loaded before), then `<name>.<n>`. Creates the folder.
 */
export async function placeIn(path: string, sub: string): Promise<string> {
  const dir = join(dirname(path), sub);
  await mkdir(dir, { recursive: true });
  const name = basename(path);
  for (let n = 0; ; n++) {
    const to = join(dir, n === 0 ? name : `${name}.${n}`);
    // An `.error.json` without its file is the leftover of a crash between the two: reused.
    if (n < 1000 && (await exists(to))) continue;
    return to;
  }
}

/** Moves `path` into `<its folder>/<sub>/` (see placeIn); returns the new path. */
export async function moveInto(path: string, sub: string): Promise<string> {
  const to = await placeIn(path, sub);
  await rename(path, to);
  return to;
}

/** The temporary name writeFileAtomic writes `path` under; Inbox.start removes leftovers (a crash). */
export function isInboxTemp(name: string): boolean {
  return name.startsWith('.') && name.endsWith('.tmp');
}

/**
 * Writes `<dir>/<name>` whole and durable, or not at all: a temporary name, every byte
 * (writeAll), fsync, rename, fsync of the folder. On failure the temporary file is removed and
 * the error is a PaxdError of kind 'io' (53100 on a full disk): never the input file's fault.
 */
export async function writeFileAtomic(fs: FsOps, path: string, data: string): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.tmp`);
  let action = 'create the folder of';
  try {
    await fs.mkdirp(dir);
    action = 'write to';
    await writeFileDurable(fs, tmp, Buffer.from(data, 'utf8'), 'replace');
    action = 'rename';
    await fs.rename(tmp, path);
    action = 'fsync the folder of';
    await fs.syncDir(dir);
  } catch (e) {
    await fs.unlink(tmp).catch(() => undefined);
    throw fileError(action, action === 'write to' ? tmp : path, e);
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

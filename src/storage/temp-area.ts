/**
 * The temporary area of a store: a local folder where statements spill what passes work_mem
 * (sorts, hash aggregates: src/engine/exec/spill/), PostgreSQL's base/pgsql_tmp. Never part of
 * the table data: nothing in it is listed, committed or read back by another process.
 *
 *   local store   <root>/_tmp
 *   other stores  `temp_directory` from the config, else <os.tmpdir()>/paxd-tmp (s3://, in-memory)
 *
 *   _tmp/
 *     <pid>/              one folder per process that spilled (the daemon, a `paxd sql`)
 *       <statement>/      one per statement, removed when it ends (success, error, cancel)
 *         <run files>
 *
 * A process killed mid-statement (kill -9, a crash) leaves its folder behind: `sweepTempArea`,
 * run when a Database opens, removes the folders of processes that no longer run, as
 * PostgreSQL's RemovePgTempFiles does at postmaster start.
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** The folder's name under a local store's root. */
export const TEMP_DIR = '_tmp';

/** The temporary area of the store at `uri` (a local root path or s3://…), `configured` for remote stores. */
export function tempAreaOf(uri: string, configured?: string): string {
  if (configured !== undefined && configured !== '') return configured;
  // Only a local root (an absolute path) has a folder of its own; s3:// and in-memory stores use the OS's.
  if (!isAbsolute(uri)) return join(tmpdir(), 'paxd-tmp');
  return join(uri, TEMP_DIR);
}

/** This process's folder in `area`, created if needed. */
export async function processTempDir(area: string): Promise<string> {
  const dir = join(area, String(process.pid));
  await mkdir(dir, { recursive: true });
  return dir;
}

/**
 * Removes the folders of processes that no longer run (a pid that `kill(pid, 0)` does not
 * find); returns how many it removed. A folder of this process, or of a process still running
 * (another paxd over the same store), is left alone.
 */
export async function sweepTempArea(area: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(area);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const pid = /^\d+$/.test(name) ? Number(name) : Number.NaN;
    if (pid === process.pid || (Number.isSafeInteger(pid) && running(pid))) continue;
    await rm(join(area, name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it runs, as another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

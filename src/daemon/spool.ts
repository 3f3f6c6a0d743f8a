/**
 * Where HTTP request bodies wait (spooled whole) before they are loaded: under the store's own
 * folder for a local store, `<store>/.paxd-tmp/spool/` (a name no table can have, tables never
 * start with "."), and for an S3 store a local folder named after it,
 * `<os tmpdir>/paxd-spool-<sha256 of the store URI, 16 hex>/`. Each body gets a folder of its
 * own, `<pid>-<random>/`, removed when its request ends, whatever the outcome. A daemon killed
 * mid-body (SIGKILL, power loss) cannot remove its folders: the next daemon's start sweeps
 * every folder whose process is gone.
 *
 *   const spool = await Spool.open(store);            // sweeps leftovers
 *   const dir = await spool.dir();                    // <root>/12345-Ab3xYz/
 *   …; await rm(dir, { recursive: true, force: true });
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalStore, type ObjectStore } from '../storage/index.js';

/** The store's temporary area (local stores), holding the spool. */
export const STORE_TEMP_DIR = '.paxd-tmp';

export class Spool {
  private constructor(readonly root: string) {}

  /** The spool of `store`, its leftovers from dead processes removed (their names returned in `swept`). */
  static async open(store: ObjectStore): Promise<{ spool: Spool; swept: string[] }> {
    const root =
      store instanceof LocalStore
        ? join(store.root, STORE_TEMP_DIR, 'spool')
        : join(tmpdir(), `paxd-spool-${createHash('sha256').update(store.uri).digest('hex').slice(0, 16)}`);
    await mkdir(root, { recursive: true });
    const swept: string[] = [];
    for (const name of await readdir(root)) {
      const pid = Number(/^(\d+)-/.exec(name)?.[1] ?? NaN);
      if (Number.isSafeInteger(pid) && alive(pid)) continue;
      await rm(join(root, name), { recursive: true, force: true });
      swept.push(name);
    }
    return { spool: new Spool(root), swept };
  }

  /** A new folder for one body; the caller removes it. */
  dir(): Promise<string> {
    return mkdtemp(join(this.root, `${process.pid}-`));
  }
}

/** Whether a process with this id runs (EPERM: it does, as another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

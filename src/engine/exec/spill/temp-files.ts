/**
 * The temporary files of one statement: a folder `<area>/<pid>/<n>` (src/storage/temp-area.ts)
 * made at the first spill, and removed with everything in it when the statement ends
 * (../../context.ts `withContext`, on success, error and cancel alike). A statement that never
 * spills touches no disk.
 */
import { type FileHandle, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { processTempDir } from '../../../storage/index.js';

let statements = 0;

export class StatementTemp {
  private dir: Promise<string> | null = null;
  private files = 0;

  constructor(private readonly area: string) {}

  /** A path for a new file (not created): `<dir>/<prefix>.<n>`. */
  async path(prefix: string): Promise<string> {
    this.dir ??= (async () => {
      const d = join(await processTempDir(this.area), String(++statements));
      await mkdir(d, { recursive: true });
      return d;
    })();
    return join(await this.dir, `${prefix}.${++this.files}`);
  }

  /** Files open on the statement's run files: closed by `remove` if still open then (a failed statement). */
  private readonly handles = new Set<FileHandle>();

  /** Registers an open file; returns the call that unregisters it (when the file is closed). */
  track(fh: FileHandle): () => void {
    this.handles.add(fh);
    return () => this.handles.delete(fh);
  }

  /** Closes what is still open, then removes the statement's folder, if it made one. */
  async remove(): Promise<void> {
    for (const fh of this.handles) await fh.close().catch(() => undefined);
    this.handles.clear();
    if (this.dir === null) return;
    const d = this.dir;
    this.dir = null;
    const path = await d.catch(() => null);
    if (path !== null) await rm(path, { recursive: true, force: true }).catch(() => undefined);
  }
}

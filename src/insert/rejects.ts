/**
 * The rejects file of `paxd ingest --on-error skip --rejects F` (and of the inbox): one NDJSON
 * line per rejected row, `{"file","line","column","code","message","row"}`.
 *
 * Every write is checked whole (writeAll continues short writes; a full disk fails with
 * 53100), and finish() fsyncs the file: ingestFiles calls it before the commit, so a load
 * reported as done has every rejected row on disk.
 */
import { fileError } from '../types/index.js';
import { writeAll, type FsFile, type FsOps } from '../storage/index.js';

/** The rejects file: NDJSON lines appended with every byte checked, fsynced by finish(). */
export class RejectsFile {
  private at = 0;

  private constructor(
    private readonly fs: FsOps,
    private readonly path: string,
    private readonly file: FsFile,
  ) {}

  static async open(fs: FsOps, path: string): Promise<RejectsFile> {
    try {
      return new RejectsFile(fs, path, await fs.open(path, 'replace'));
    } catch (e) {
      throw fileError('open', path, e);
    }
  }

  async write(text: string): Promise<void> {
    const bytes = Buffer.from(text, 'utf8');
    try {
      await writeAll(this.file, bytes, this.at, this.path);
    } catch (e) {
      throw fileError('write to', this.path, e);
    }
    this.at += bytes.byteLength;
  }

  /** Durable and closed. A device (`/dev/null`) has nothing to make durable. */
  async finish(): Promise<void> {
    let action = 'fsync';
    try {
      if ((await this.fs.stat(this.path)).isFile) await this.file.sync();
      action = 'close';
      await this.file.close();
    } catch (e) {
      if (action === 'fsync') await this.close();
      throw fileError(action, this.path, e);
    }
  }

  /** Closed after a failure (what the file holds no longer matters: the load failed). */
  async close(): Promise<void> {
    await this.file.close().catch(() => undefined);
  }
}

/**
 * The watched inbox (docs/DAEMON.md): files dropped into `<inbox>/<table>/` are loaded into the
 * table, each exactly once, whatever moment the daemon is killed at.
 *
 * How exactly-once holds: a file's identity (name, size, sha256) is recorded in the table's
 * snapshot by the very commit that adds its rows (SinkOptions.ingested,
 * src/storage/ingested.ts), and the file is moved to `.done/` only after that commit. So a
 * file still in the inbox either has no committed rows (a crash before or during the commit:
 * it is loaded again) or is recorded (a crash between commit and move: it is moved to `.done/`
 * without loading). Both are decided against the newest snapshot before every load, and the
 * commit itself refuses an identity it finds recorded already (a second daemon on the same
 * inbox loses that race instead of loading twice).
 *
 * Flow: chokidar reports files once their size has been stable for `stableMs` (a file renamed
 * in is stable at once; one being written is not taken until its writer stops). Ready files
 * wait in a bounded queue (past `queueLimit`, arrivals are left on disk and found by a rescan
 * once the queue drains: backpressure without unbounded memory). One loader takes up to
 * `batchFiles` files / `batchBytes` bytes of one table and loads them as ONE commit recording
 * all their identities; if that fails because of one file (the reader names it), that file
 * fails and the rest are loaded again as a batch, otherwise they are loaded one by one, so a
 * bad file holds back no other. A bad file goes to `.failed/` with `<name>.error.json`; a
 * failure that is not the file's (a full disk, any other I/O error, the store unreachable, a
 * commit conflict) leaves the file where it is, logged, and the table is retried with
 * exponential backoff: the file loads once space returns.
 *
 * With on_error = skip, a file's rejected rows are in `.failed/<name>.rejects.ndjson`, written
 * whole and fsynced before the commit of its rows (IngestOptions.beforeCommit), so no file
 * reaches `.done/` with rejects that were not kept. Temporary files (`.failed/.*.tmp`) are
 * removed when a load fails and at start.
 */
import { lstat, readdir, readFile, rm, unlink, mkdir } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { Database, Table } from '../table/index.js';
import { PaxdError, SQLSTATE, isPaxdError, errnoOf } from '../types/index.js';
import { ingestFiles } from '../table/ingest.js';
import { formatOf, inferSchema, openInput } from '../insert/readers.js';
import { findIngested, isAlreadyIngested, nodeFs, type FsOps, type IngestedFileJson } from '../storage/index.js';
import { DONE_DIR, FAILED_DIR, fileIdentity, inboxPathParts, isInboxName, isInboxTemp, moveInto, placeIn, writeFileAtomic } from './inbox-files.js';
import type { Logger } from './log.js';
import type { DaemonMetrics } from './metrics.js';
import { rename } from 'node:fs/promises';

export interface InboxOptions {
  dir: string;
  /** Create a missing table from its first file (schema inferred). */
  create: boolean;
  stableMs: number;
  batchFiles: number;
  batchBytes: number;
  queueLimit: number;
  onError: 'abort' | 'skip';
  csvHeader: boolean;
  /** First delay before a table is retried after a failure not its files'; doubles up to RETRY_MAX_MS. Default 1 s. */
  retryMs?: number;
  /** The filesystem of the inbox's own writes (rejects, error reports): a FaultFs in tests. */
  fs?: FsOps;
}

/** What `<name>.error.json` holds. */
export interface FailedFileJson {
  file: string;
  table: string;
  line: number | null;
  column: number | null;
  reason: string;
  sqlstate: string;
  time: string;
}

/** Backoff after a failure that is not a file's (disk full, store unreachable, conflicts). */
const RETRY_MS = 1000;
const RETRY_MAX_MS = 60_000;

interface Queued {
  path: string;
  size: number;
}

export class Inbox {
  private watcher: FSWatcher | null = null;
  /** Ready files per table, in arrival order. */
  private readonly queue = new Map<string, Map<string, Queued>>();
  private queued = 0;
  /** Paths queued or being loaded: each is taken once. */
  private readonly known = new Set<string>();
  private loading = 0;
  /** Arrivals were left on disk because the queue was full: rescan when it drains. */
  private missed = false;
  private rescanTimer: NodeJS.Timeout | null = null;
  private readonly retryAt = new Map<string, number>();
  /** Consecutive failed attempts per table (not its files' fault): the backoff's exponent. */
  private readonly failures = new Map<string, number>();
  private wake: (() => void) | null = null;
  private stopping = false;
  private loop: Promise<void> | null = null;
  private rejectsSeq = 0;

  constructor(
    private readonly db: Database,
    private readonly opts: InboxOptions,
    private readonly log: Logger,
    private readonly metrics: DaemonMetrics,
  ) {}

  /** Files seen and not yet loaded (queued or being loaded). */
  get pending(): number {
    return this.queued + this.loading;
  }

  /** Settles files a crash left committed but not moved, then watches the folder. */
  async start(): Promise<void> {
    await mkdir(this.opts.dir, { recursive: true });
    await this.reconcile();
    const dir = this.opts.dir;
    const w = watch(dir, {
      depth: 1,
      ignoreInitial: false,
      // A symbolic link is never followed (a link to /etc/shadow must not be loaded): it is
      // reported as itself and moved to .failed/ (loadBatch).
      followSymlinks: false,
      alwaysStat: true,
      awaitWriteFinish: { stabilityThreshold: this.opts.stableMs, pollInterval: Math.max(10, Math.min(100, Math.floor(this.opts.stableMs / 4))) },
      ignored: (p: string) => {
        const rel = relative(dir, p);
        if (rel === '') return false;
        const parts = rel.split(sep);
        if (parts.length === 1) return parts[0]!.startsWith('.');
        return parts.length > 2 || !isInboxName(parts[1]!);
      },
    });
    const arrive = (p: string, st?: { size: number; isFile(): boolean; isSymbolicLink(): boolean }) => {
      if (st !== undefined && !st.isFile() && !st.isSymbolicLink()) return;
      this.enqueue(p, st?.size ?? 0);
    };
    w.on('add', arrive);
    w.on('change', arrive);
    w.on('error', (e) => this.log.error({ err: e }, 'inbox: watcher error'));
    this.watcher = w;
    await new Promise<void>((resolve) => w.once('ready', () => resolve()));
    this.loop = this.run();
    this.log.info({ inbox: dir }, 'inbox: watching');
  }

  /** Stops taking files; the batch being loaded finishes (its commit and moves). */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.rescanTimer !== null) clearTimeout(this.rescanTimer);
    await this.watcher?.close();
    this.wake?.();
    await this.loop;
  }

  // ---- the queue ----

  private enqueue(path: string, size: number): void {
    if (this.stopping || this.known.has(path)) return;
    const parts = inboxPathParts(this.opts.dir, path);
    if (parts === null) return;
    if (this.queued >= this.opts.queueLimit) {
      this.missed = true; // left on disk; the rescan after the queue drains finds it
      return;
    }
    let q = this.queue.get(parts.table);
    if (q === undefined) this.queue.set(parts.table, (q = new Map()));
    q.set(path, { path, size });
    this.known.add(path);
    this.queued++;
    this.metrics.inboxPending.set(this.pending);
    this.wake?.();
  }

  /** The next batch: files of one table, tables taken in turn. */
  private takeBatch(): { table: string; files: Queued[] } | null {
    const now = Date.now();
    for (const [table, q] of this.queue) {
      if (q.size === 0 || (this.retryAt.get(table) ?? 0) > now) continue;
      // Round robin: this table goes to the back of the line.
      this.queue.delete(table);
      this.queue.set(table, q);
      const files: Queued[] = [];
      let bytes = 0;
      for (const f of q.values()) {
        if (files.length > 0 && (files.length >= this.opts.batchFiles || bytes + f.size > this.opts.batchBytes)) break;
        files.push(f);
        bytes += f.size;
      }
      for (const f of files) q.delete(f.path);
      this.queued -= files.length;
      this.loading += files.length;
      return { table, files };
    }
    return null;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      const batch = this.takeBatch();
      if (batch === null) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          // Tables waiting out a retry delay wake the loop when it ends (at once when it ended
          // since takeBatch looked: a delay that is over must not wait for the next arrival).
          const waits = [...this.retryAt].filter(([table]) => (this.queue.get(table)?.size ?? 0) > 0).map(([, t]) => Math.max(1, t - Date.now()));
          if (waits.length > 0) setTimeout(resolve, Math.min(...waits)).unref();
        });
        this.wake = null;
        continue;
      }
      try {
        const before = this.retryAt.get(batch.table);
        await this.loadBatch(batch.table, batch.files.map((f) => f.path));
        // No new retry scheduled: the table's loads work again.
        if (this.retryAt.get(batch.table) === before) this.failures.delete(batch.table);
      } catch (e) {
        // A bug or an unexpected failure: keep the files, retry the table later.
        this.log.error({ err: e, table: batch.table }, 'inbox: load failed');
        this.metrics.backgroundErrors.inc({ task: 'inbox' });
        this.retry(batch.table, batch.files.map((f) => f.path));
      } finally {
        this.loading -= batch.files.length;
        this.metrics.inboxPending.set(this.pending);
      }
      if (this.missed && this.queued < this.opts.queueLimit / 2) {
        this.missed = false;
        await this.rescan();
      }
    }
  }

  /** Puts files back (their loads failed for reasons not theirs) and holds the table for a while. */
  private retry(table: string, paths: readonly string[]): void {
    const n = (this.failures.get(table) ?? 0) + 1;
    this.failures.set(table, n);
    this.retryAt.set(table, Date.now() + Math.min(RETRY_MAX_MS, (this.opts.retryMs ?? RETRY_MS) * 2 ** Math.min(n - 1, 20)));
    for (const p of paths) this.known.delete(p);
    // Back in the queue as new arrivals (sizes re-read by the next load).
    for (const p of paths) this.enqueue(p, 0);
  }

  private forget(path: string): void {
    this.known.delete(path);
  }

  /** Finds files left on disk while the queue was full (or not stable yet when looked at). */
  private async rescan(): Promise<void> {
    let fresh = false;
    for (const table of await listDirs(this.opts.dir)) {
      const tdir = join(this.opts.dir, table);
      for (const name of await listFiles(tdir)) {
        const p = join(tdir, name);
        if (this.known.has(p)) continue;
        const st = await lstat(p).catch(() => null);
        if (st === null || !(st.isFile() || st.isSymbolicLink())) continue;
        if (Date.now() - st.mtimeMs < this.opts.stableMs) {
          fresh = true;
          continue;
        }
        this.enqueue(p, st.size);
        if (this.missed) return;
      }
    }
    if (fresh && !this.stopping) {
      this.rescanTimer = setTimeout(() => void this.rescan().catch((e: unknown) => this.log.error({ err: e }, 'inbox: rescan failed')), this.opts.stableMs);
      this.rescanTimer.unref();
    }
  }

  /**
   * Before watching: a file whose identity the table already records was committed by a
   * daemon that died before moving it. Only files whose name and size match a recorded
   * identity are hashed.
   */
  private async reconcile(): Promise<void> {
    for (const table of await listDirs(this.opts.dir)) {
      // Temporary files of writes a crash interrupted (error reports, rejects).
      const failedDir = join(this.opts.dir, table, FAILED_DIR);
      for (const name of await readdir(failedDir).catch(() => [])) if (isInboxTemp(name)) await rm(join(failedDir, name), { force: true });
      let t: Table;
      try {
        t = await this.db.table(table);
      } catch (e) {
        if (isPaxdError(e) && e.kind === 'not_found') continue;
        throw e;
      }
      const recorded = t.snapshot.ingested ?? [];
      if (recorded.length === 0) continue;
      const tdir = join(this.opts.dir, table);
      for (const name of await listFiles(tdir)) {
        const p = join(tdir, name);
        const st = await lstat(p).catch(() => null);
        if (st === null || !st.isFile() || !recorded.some((r) => r.name === name && r.size === st.size)) continue;
        const id = await fileIdentity(p);
        if (id !== null && findIngested(t.snapshot, id)) await this.done(table, p, id, 'duplicate');
      }
    }
  }

  // ---- loading ----

  /** Loads files of one table as one commit, or one by one when that fails. */
  private async loadBatch(table: string, paths: readonly string[]): Promise<void> {
    const files: { path: string; id: IngestedFileJson }[] = [];
    for (const p of paths) {
      // lstat: a symbolic link is refused, never read through (its target may be anywhere).
      if ((await lstat(p).catch(() => null))?.isSymbolicLink() === true) {
        await this.fail(table, p, symlinkRefused(p));
        continue;
      }
      const id = await fileIdentity(p);
      if (id === null) {
        this.forget(p); // gone (removed by its writer): nothing to load
        continue;
      }
      if (id.size < 0) {
        this.forget(p); // still changing: its 'change' event brings it back once stable
        continue;
      }
      files.push({ path: p, id });
    }
    if (files.length === 0) return;

    let t: Table;
    try {
      t = await this.db.table(table);
    } catch (e) {
      if (!(isPaxdError(e) && e.kind === 'not_found')) throw e;
      if (!this.opts.create) {
        for (const f of files) await this.fail(table, f.path, e);
        return;
      }
      // The first file creates the table (one commit: table and rows); the rest wait for the next batch.
      await this.createFrom(table, files[0]!);
      if (files.length > 1) this.retryNow(files.slice(1).map((f) => f.path));
      return;
    }

    const fresh = [];
    for (const f of files) {
      if (findIngested(t.snapshot, f.id)) await this.done(table, f.path, f.id, 'duplicate');
      else fresh.push(f);
    }
    if (fresh.length === 0) return;

    const outcome = await this.ingest(t, fresh);
    if (outcome === 'ok') return;
    if (outcome === 'raced') {
      // Another loader recorded one of them meanwhile: decide again against the newest snapshot.
      this.retryNow(fresh.map((f) => f.path));
      return;
    }
    const e = outcome.error;
    if (fresh.length > 1) {
      // The reader names the file it choked on: that one fails, the others go on as a batch.
      const culprit = isPaxdError(e) ? fresh.find((f) => e.file === f.path) : undefined;
      if (culprit !== undefined && isFileFault(e)) {
        await this.fail(table, culprit.path, e);
        await this.loadBatch(table, fresh.filter((f) => f !== culprit).map((f) => f.path));
      } else for (const f of fresh) await this.loadBatch(table, [f.path]);
      return;
    }
    if (isFileFault(e)) await this.fail(table, fresh[0]!.path, e);
    else {
      this.log.warn({ err: e, table, file: fresh[0]!.id.name, sqlstate: isPaxdError(e) ? e.code : errnoOf(e) }, 'inbox: load failed, will retry');
      this.retry(table, [fresh[0]!.path]);
    }
  }

  private retryNow(paths: readonly string[]): void {
    for (const p of paths) this.known.delete(p);
    for (const p of paths) this.enqueue(p, 0);
  }

  /** One commit of `files` into `t`, recording their identities. */
  private async ingest(t: Table, files: readonly { path: string; id: IngestedFileJson }[]): Promise<'ok' | 'raced' | { error: unknown }> {
    const table = t.name;
    const skip = this.opts.onError === 'skip';
    const failedDir = join(this.opts.dir, table, FAILED_DIR);
    const rejects = skip ? join(failedDir, `.rejects-${process.pid}-${++this.rejectsSeq}.tmp`) : undefined;
    const fs = this.opts.fs ?? nodeFs;
    /** Per-file rejects written before the commit; removed again if the commit does not land. */
    const written: string[] = [];
    if (rejects !== undefined) await mkdir(failedDir, { recursive: true });
    const started = performance.now();
    this.log.info({ table, files: files.length, bytes: files.reduce((n, f) => n + f.id.size, 0) }, `inbox: loading ${files.length} file(s) into ${table}`);
    try {
      const r = await ingestFiles(
        t,
        files.map((f) => f.path),
        {
          onError: this.opts.onError,
          csv: { header: this.opts.csvHeader },
          ingested: files.map((f) => f.id),
          summary: { operation: 'inbox', files: files.map((f) => f.id.name).join(' ').slice(0, 1000) },
          fs,
          ...(rejects !== undefined
            ? {
                rejects,
                beforeCommit: async ({ rowsRejected }) => {
                  if (rowsRejected > 0) written.push(...(await splitRejects(fs, rejects, failedDir, files.map((f) => f.path))));
                },
              }
            : {}),
        },
      );
      const bytes = files.reduce((n, f) => n + f.id.size, 0);
      this.metrics.rowsIngested.inc({ source: 'inbox', table }, r.rowsLoaded);
      this.metrics.rowsRejected.inc({ source: 'inbox', table }, r.rowsRejected);
      this.metrics.bytesIngested.inc({ source: 'inbox', table }, bytes);
      this.metrics.commits.inc({ operation: 'ingest', table });
      this.log.info(
        { table, files: files.length, rows: r.rowsLoaded, rejected: r.rowsRejected, bytes, snapshot: r.commit.snapshot.id, ms: Math.round(performance.now() - started) },
        `inbox: loaded ${files.length} file(s) into ${table}`,
      );
      for (const f of files) await this.done(table, f.path, f.id, 'loaded');
      return 'ok';
    } catch (e) {
      if (isAlreadyIngested(e)) return 'raced';
      // The commit may have landed and something after it failed: the snapshot says.
      const now = await this.db.table(table).catch(() => null);
      if (now !== null && files.every((f) => findIngested(now.snapshot, f.id))) {
        for (const f of files) await this.done(table, f.path, f.id, 'loaded');
        return 'ok';
      }
      for (const p of written) await rm(p, { force: true });
      return { error: e };
    } finally {
      if (rejects !== undefined) await rm(rejects, { force: true });
    }
  }

  /** A missing table created from `file`: inferred schema, table and rows in one commit. */
  private async createFrom(table: string, file: { path: string; id: IngestedFileJson }): Promise<void> {
    const csv = { header: this.opts.csvHeader };
    let t: Table;
    try {
      const format = formatOf(file.path);
      if (format === null) throw new PaxdError('usage', SQLSTATE.invalid_parameter_value, `cannot tell the format of ${file.id.name} from its extension`);
      const { columns } = await inferSchema(format, await openInput(file.path), { csv });
      t = this.db.prepareTable(table, columns);
    } catch (e) {
      await this.fail(table, file.path, e);
      return;
    }
    this.log.info({ table, columns: t.fields.map((f) => `${f.name} ${f.type.id}`).join(', ') }, `inbox: creating table ${table} from ${file.id.name}`);
    const outcome = await this.ingest(t, [file]);
    if (outcome === 'ok') return;
    const e = outcome === 'raced' ? null : outcome.error;
    // Created meanwhile (42P07) or a load that failed for reasons not the file's: try again as an append.
    if (e === null || (isPaxdError(e) && e.kind === 'exists') || !isFileFault(e)) this.retry(table, [file.path]);
    else await this.fail(table, file.path, e);
  }

  private async done(table: string, path: string, id: IngestedFileJson, why: 'loaded' | 'duplicate'): Promise<void> {
    try {
      await moveInto(path, DONE_DIR);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    this.forget(path);
    if (why === 'duplicate') {
      this.metrics.inboxDuplicates.inc({ table });
      this.log.info({ table, file: id.name, hash: id.hash }, 'inbox: already ingested, moved to .done');
    }
    this.metrics.inboxDone.inc({ table });
  }

  /** Moves a bad file to `.failed/` with `<name>.error.json` beside it (written first). */
  private async fail(table: string, path: string, e: unknown): Promise<void> {
    const to = await placeIn(path, FAILED_DIR);
    const info = failedJson(table, basename(path), path, e);
    await writeFileAtomic(this.opts.fs ?? nodeFs, `${to}.error.json`, JSON.stringify(info, null, 2) + '\n');
    try {
      await rename(path, to);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await unlink(`${to}.error.json`).catch(() => undefined);
    }
    this.forget(path);
    this.metrics.inboxFailed.inc({ table });
    this.log.warn({ table, file: info.file, line: info.line, column: info.column, sqlstate: info.sqlstate, reason: info.reason }, 'inbox: file failed, moved to .failed');
  }
}

/**
 * Whether an error is the input file's fault (it would fail again), not the store's or the
 * moment's. A full disk, any other I/O error (a PaxdError of kind 'io', or a system error with
 * an errno that escaped as is) and a lost commit race are never the file's: they are retried.
 */
function isFileFault(e: unknown): boolean {
  if (!isPaxdError(e)) return errnoOf(e) === undefined; // a reader choking on garbage, not a failing disk
  switch (e.kind) {
    case 'io':
    case 'conflict':
      return false;
    default:
      return true;
  }
}

function failedJson(table: string, name: string, path: string, e: unknown): FailedFileJson {
  const p = isPaxdError(e) ? e : null;
  const reason = (e instanceof Error ? e.message : String(e)).split(path).join(name);
  return {
    file: name,
    table,
    line: p?.line ?? null,
    column: p?.column ?? null,
    reason,
    sqlstate: p?.code ?? SQLSTATE.internal_error,
    time: new Date().toISOString(),
  };
}

/**
 * Spreads a batch's rejects file (NDJSON lines with `file`) into `<name>.rejects.ndjson` per
 * input, each durable; returns the paths written.
 */
async function splitRejects(fs: FsOps, rejects: string, failedDir: string, paths: readonly string[]): Promise<string[]> {
  const byFile = new Map<string, string[]>();
  for (const line of (await readFile(rejects, 'utf8')).split('\n')) {
    if (line === '') continue;
    let file = '';
    try {
      file = String((JSON.parse(line) as { file?: unknown }).file ?? '');
    } catch {
      continue;
    }
    const name = basename(file);
    const lines = byFile.get(name) ?? [];
    lines.push(line.split(file).join(name));
    byFile.set(name, lines);
  }
  const written: string[] = [];
  for (const p of paths) {
    const lines = byFile.get(basename(p));
    if (lines === undefined) continue;
    const to = join(failedDir, `${basename(p)}.rejects.ndjson`);
    await writeFileAtomic(fs, to, lines.join('\n') + '\n');
    written.push(to);
  }
  return written;
}

async function listDirs(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((d) => d.isDirectory() && !d.name.startsWith('.')).map((d) => d.name);
}

/** Regular files and symbolic links (refused when loaded) of an inbox folder. */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((d) => (d.isFile() || d.isSymbolicLink()) && isInboxName(d.name))
    .map((d) => d.name)
    .sort();
}

/** 42501 for a symbolic link in the inbox: only regular files in the inbox's own folders are loaded. */
function symlinkRefused(path: string): PaxdError {
  return new PaxdError('privilege', SQLSTATE.insufficient_privilege, `"${basename(path)}" is a symbolic link: the inbox loads only regular files, never what a link points to`, { file: path });
}

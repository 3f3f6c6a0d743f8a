/**
 * Background upkeep (docs/DAEMON.md): compaction of tables whose small files or deleted rows pass
 * the thresholds, and vacuum of files no snapshot needs once they are older than the grace
 * period. Both commit (or delete) without blocking readers or writers (src/table/compact.ts
 * rebases over concurrent appends and deletes; vacuum keeps what the grace protects), and both
 * report what they reclaimed in the log and the metrics. One task runs at a time; `stop()`
 * waits for it.
 */
import type { Database } from '../table/index.js';
import type { SnapshotJson } from '../storage/index.js';
import type { Logger } from './log.js';
import type { DaemonMetrics } from './metrics.js';

export interface MaintenanceOptions {
  compactSmallFiles: number;
  compactDeletedFraction: number;
  compactIntervalMs: number;
  vacuumGraceMs: number;
  vacuumIntervalMs: number;
}

/** Why a table needs compaction, or null. */
export function compactionReason(s: SnapshotJson, o: Pick<MaintenanceOptions, 'compactSmallFiles' | 'compactDeletedFraction'>): string | null {
  let rows = 0;
  let live = 0;
  let small = 0;
  for (const f of s.files) {
    let fileRows = 0;
    for (const g of f.groups) {
      rows += g.rows;
      live += g.live;
      fileRows += g.rows;
    }
    if (fileRows < s.options.rowGroupRows) small++;
  }
  if (o.compactSmallFiles > 0 && small >= Math.max(2, o.compactSmallFiles)) return `${small} small files`;
  if (o.compactDeletedFraction > 0 && rows > 0 && (rows - live) / rows >= o.compactDeletedFraction) return `${(((rows - live) / rows) * 100).toFixed(1)}% of rows deleted`;
  return null;
}

export class Maintenance {
  private timers: NodeJS.Timeout[] = [];
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly o: MaintenanceOptions,
    private readonly log: Logger,
    private readonly metrics: DaemonMetrics,
  ) {}

  start(): void {
    if (this.o.compactIntervalMs > 0) this.every(this.o.compactIntervalMs, () => this.compactAll());
    if (this.o.vacuumIntervalMs > 0) this.every(this.o.vacuumIntervalMs, () => this.vacuumAll());
  }

  /** Stops scheduling; waits for the task running now. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    await this.running;
  }

  private every(ms: number, task: () => Promise<void>): void {
    const t = setInterval(() => {
      if (this.stopped) return;
      this.running = this.running.then(() => (this.stopped ? undefined : task()));
    }, ms);
    t.unref();
    this.timers.push(t);
  }

  /** Compacts every table past a threshold. */
  async compactAll(): Promise<void> {
    for (const info of await this.db.tables().catch(() => [])) {
      if (this.stopped) return;
      try {
        const t = await this.db.table(info.name);
        const why = compactionReason(t.snapshot, this.o);
        if (why === null) continue;
        const started = performance.now();
        const r = await t.compact();
        if (r.filesRewritten === 0) continue;
        this.metrics.compactions.inc({ table: info.name });
        this.metrics.compactedFiles.inc({ table: info.name }, r.filesRewritten);
        this.metrics.compactedRowsDropped.inc({ table: info.name }, r.rowsDropped);
        this.metrics.commits.inc({ operation: 'compact', table: info.name });
        this.log.info(
          { table: info.name, reason: why, filesRewritten: r.filesRewritten, filesWritten: r.filesWritten, rows: r.rowsWritten, rowsDropped: r.rowsDropped, snapshot: r.snapshot.id, ms: Math.round(performance.now() - started) },
          `compaction: ${info.name}: ${r.filesRewritten} file(s) into ${r.filesWritten}`,
        );
      } catch (e) {
        // A lost race with another compaction (40001) or a store hiccup: next round.
        this.metrics.backgroundErrors.inc({ task: 'compact' });
        this.log.warn({ err: e, table: info.name }, 'compaction failed');
      }
    }
  }

  /** Vacuums every table, dropped ones too (their files go once past the grace period). */
  async vacuumAll(): Promise<void> {
    const names = [...(await this.db.tables().catch(() => [])).map((t) => t.name), ...(await this.db.droppedTables().catch(() => []))];
    for (const name of names) {
      if (this.stopped) return;
      try {
        const r = await this.db.vacuum(name, { graceMs: this.o.vacuumGraceMs });
        const removed = r.snapshotsRemoved + r.filesRemoved + r.tempFilesRemoved;
        if (removed === 0) continue;
        this.metrics.vacuumed.inc({ table: name }, removed);
        this.metrics.vacuumedBytes.inc({ table: name }, r.bytesRemoved);
        this.log.info({ table: name, ...r }, `vacuum: ${name}: removed ${removed} object(s), ${r.bytesRemoved} bytes`);
      } catch (e) {
        this.metrics.backgroundErrors.inc({ task: 'vacuum' });
        this.log.warn({ err: e, table: name }, 'vacuum failed');
      }
    }
  }
}

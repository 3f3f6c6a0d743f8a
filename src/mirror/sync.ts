/**
 * Keeps the mirror in sync while `paxd serve` runs: mirrors at start, then every
 * `intervalMs` compares paxd's tables and schemas with what was last mirrored and re-runs
 * the mirror when a table was created, altered or dropped. A failed round (PostgreSQL
 * down) is reported and retried on the next tick; the daemon keeps serving meanwhile.
 * Every RECHECK_MS the mirror runs even when paxd did not change, so a foreign table dropped
 * or altered by hand in PostgreSQL comes back (a round that finds nothing to do changes
 * nothing).
 */
import type { Database } from '../table/index.js';
import { desiredTables, signature } from './desired.js';
import { runMirror, type MirrorResult } from './mirror.js';
import type { MirrorOptions } from './options.js';

const RECHECK_MS = 60_000;

export interface SyncEvents {
  onSynced?(r: MirrorResult, ms: number): void;
  onError?(e: unknown): void;
}

export class MirrorSync {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private last: string | null = null;
  private lastRun = 0;
  private stopped = false;
  /** Rounds that changed PostgreSQL, and failed rounds. */
  syncs = 0;
  failures = 0;

  constructor(
    private readonly db: Database,
    private readonly o: MirrorOptions,
    private readonly intervalMs: number,
    private readonly events: SyncEvents = {},
  ) {}

  /** Mirrors once (the result of that first round is returned, errors included), then polls. */
  async start(): Promise<void> {
    const first = this.tick(true);
    this.running = first.catch(() => undefined);
    if (this.intervalMs > 0) {
      this.timer = setInterval(() => {
        if (this.stopped) return;
        this.running = this.running.then(() => (this.stopped ? undefined : this.tick(false).catch(() => undefined)));
      }, this.intervalMs);
      this.timer.unref();
    }
    await first;
  }

  /** Runs a round now if paxd's tables changed since the last successful one (tests, DDL hooks). */
  poke(): Promise<void> {
    this.running = this.running.then(() => (this.stopped ? undefined : this.tick(false).catch(() => undefined)));
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearInterval(this.timer);
    await this.running;
  }

  private async tick(rethrow: boolean): Promise<void> {
    try {
      const tables = await desiredTables(this.db);
      const sig = signature(tables);
      if (sig === this.last && Date.now() - this.lastRun < RECHECK_MS) return;
      const started = performance.now();
      const r = await runMirror(this.db, this.o, { tables });
      this.last = sig;
      this.lastRun = Date.now();
      if (r.steps.length > 0) this.syncs++;
      this.events.onSynced?.(r, performance.now() - started);
    } catch (e) {
      this.failures++;
      this.events.onError?.(e);
      if (rethrow) throw e;
    }
  }
}

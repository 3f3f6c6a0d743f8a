/**
 * Process-wide scan and bind counters (docs/MIRROR.md): cumulative over every table scan and statistics
 * answer the engine finished, so a test (or the daemon's /metrics) can tell that
 * `SELECT count(*) FROM public.t` sent by postgres_fdw was answered from statistics — the
 * answered count grows and the read count does not.
 *
 *   const before = engineCounters();
 *   await query(db, 'SELECT count(*) FROM t');
 *   engineCounters().groupsAnsweredFromStats - before.groupsAnsweredFromStats  // groups of t
 *   engineCounters().groupsRead - before.groupsRead                            // 0
 */
import type { ScanStats } from '../scan/index.js';

export interface EngineCounters {
  /** Scans and statistics answers finished. */
  readonly scans: number;
  readonly groupsAnsweredFromStats: number;
  readonly groupsRead: number;
  readonly groupsSkippedByPredicate: number;
  readonly groupsSkippedByBound: number;
  readonly rowsRead: number;
  /**
   * Query blocks bound (./bind/query.ts `bindQuery`: a SELECT, each of its subqueries and UNION
   * sides): a prepared SELECT binds at prepare and never again when it executes.
   */
  readonly queriesBound: number;
  /** Run files written by operators past work_mem (./exec/spill/), and their bytes. */
  readonly spillFiles: number;
  readonly spillBytes: number;
}

const totals = { scans: 0, groupsAnsweredFromStats: 0, groupsRead: 0, groupsSkippedByPredicate: 0, groupsSkippedByBound: 0, rowsRead: 0, queriesBound: 0, spillFiles: 0, spillBytes: 0 };

/** A copy of the cumulative counters. */
export function engineCounters(): EngineCounters {
  return Object.freeze({ ...totals });
}

/** Counts one query block bound. */
export function recordBind(): void {
  totals.queriesBound++;
}

/** Adds one finished scan's counters (called once per scan, not per batch). */
export function recordScan(s: ScanStats): void {
  totals.scans++;
  totals.groupsAnsweredFromStats += s.groupsAnsweredFromStats;
  totals.groupsRead += s.groupsRead;
  totals.groupsSkippedByPredicate += s.groupsSkippedByPredicate;
  totals.groupsSkippedByBound += s.groupsSkippedByBound;
  totals.rowsRead += s.rowsRead;
}

/** Counts one spill run file finished, of `bytes`. */
export function recordSpill(bytes: number): void {
  totals.spillFiles++;
  totals.spillBytes += bytes;
}

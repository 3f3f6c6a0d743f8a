/**
 * The daemon's Prometheus metrics (docs/DAEMON.md), on its own prom-client registry so that several
 * daemons in one process (tests) do not share counters. `GET /metrics` renders `registry`.
 *
 *   paxd_ingest_rows_total{source="inbox",table="events"} 1200
 *   paxd_inbox_files{state="pending"} 3
 *   paxd_query_duration_seconds_bucket{le="0.01"} 41
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { engineCounters } from '../engine/index.js';

export class DaemonMetrics {
  readonly registry = new Registry();
  readonly rowsIngested = new Counter({ name: 'paxd_ingest_rows_total', help: 'Rows committed by loads (inbox, HTTP)', labelNames: ['source', 'table'], registers: [this.registry] });
  readonly rowsRejected = new Counter({ name: 'paxd_ingest_rejected_rows_total', help: 'Rows rejected by loads in skip mode', labelNames: ['source', 'table'], registers: [this.registry] });
  readonly bytesIngested = new Counter({ name: 'paxd_ingest_bytes_total', help: 'Input bytes of committed loads', labelNames: ['source', 'table'], registers: [this.registry] });
  readonly commits = new Counter({ name: 'paxd_commits_total', help: 'Snapshots committed by the daemon', labelNames: ['operation', 'table'], registers: [this.registry] });
  readonly inboxPending = new Gauge({ name: 'paxd_inbox_files_pending', help: 'Inbox files seen and not yet loaded', registers: [this.registry] });
  readonly inboxDone = new Counter({ name: 'paxd_inbox_files_done_total', help: 'Inbox files loaded and moved to .done', labelNames: ['table'], registers: [this.registry] });
  readonly inboxFailed = new Counter({ name: 'paxd_inbox_files_failed_total', help: 'Inbox files moved to .failed', labelNames: ['table'], registers: [this.registry] });
  readonly inboxDuplicates = new Counter({ name: 'paxd_inbox_files_duplicate_total', help: 'Inbox files found already ingested (after a restart) and moved to .done without loading', labelNames: ['table'], registers: [this.registry] });
  readonly queries = new Counter({ name: 'paxd_queries_total', help: 'SQL statements run over HTTP', labelNames: ['status'], registers: [this.registry] });
  readonly queryDuration = new Histogram({
    name: 'paxd_query_duration_seconds',
    help: 'Duration of SQL statements run over HTTP',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    registers: [this.registry],
  });
  readonly httpRequests = new Counter({ name: 'paxd_http_requests_total', help: 'HTTP requests by route and status', labelNames: ['route', 'status'], registers: [this.registry] });
  readonly authFailures = new Counter({ name: 'paxd_auth_failures_total', help: 'Failed logins (unknown user, wrong password, missing credentials) by protocol', labelNames: ['protocol'], registers: [this.registry] });
  readonly authDelaySeconds = new Counter({ name: 'paxd_auth_delay_seconds_total', help: 'Seconds failed HTTP logins were held before their 401 (auth_failure_delay_ms)', registers: [this.registry] });
  readonly connections = new Gauge({ name: 'paxd_connections', help: 'Client connections open now', labelNames: ['protocol'], registers: [this.registry] });
  readonly compactions = new Counter({ name: 'paxd_compactions_total', help: 'Background compactions committed', labelNames: ['table'], registers: [this.registry] });
  readonly compactedFiles = new Counter({ name: 'paxd_compaction_files_rewritten_total', help: 'Data files rewritten by background compaction', labelNames: ['table'], registers: [this.registry] });
  readonly compactedRowsDropped = new Counter({ name: 'paxd_compaction_rows_dropped_total', help: 'Deleted rows dropped by background compaction', labelNames: ['table'], registers: [this.registry] });
  readonly vacuumed = new Counter({ name: 'paxd_vacuum_objects_removed_total', help: 'Objects (snapshots, data files) removed by background vacuum', labelNames: ['table'], registers: [this.registry] });
  readonly vacuumedBytes = new Counter({ name: 'paxd_vacuum_bytes_removed_total', help: 'Bytes removed by background vacuum', labelNames: ['table'], registers: [this.registry] });
  readonly storeReads = new Counter({ name: 'paxd_store_reads_total', help: 'Reads from the store (snapshot files apart from data files)', labelNames: ['kind'], registers: [this.registry] });
  readonly storeReadBytes = new Counter({ name: 'paxd_store_read_bytes_total', help: 'Bytes read from the store', labelNames: ['kind'], registers: [this.registry] });
  readonly storeObjectsCreated = new Counter({ name: 'paxd_store_objects_created_total', help: 'Objects (data files) created in the store', registers: [this.registry] });
  readonly mirrorSyncs = new Counter({ name: 'paxd_mirror_syncs_total', help: 'Rounds of the postgres_fdw mirror that ran (at start, when a table changed, and every minute)', labelNames: ['status'], registers: [this.registry] });
  readonly mirrorTables = new Gauge({ name: 'paxd_mirror_tables', help: 'Foreign tables the postgres_fdw mirror declares', registers: [this.registry] });
  readonly backgroundErrors = new Counter({ name: 'paxd_background_errors_total', help: 'Failed background tasks', labelNames: ['task'], registers: [this.registry] });

  /** The wire server's connection count, read at scrape time. */
  wireConnections: () => number = () => 0;

  constructor() {
    const self = this;
    new Gauge({
      name: 'paxd_wire_connections',
      help: 'PostgreSQL wire protocol connections open now',
      registers: [this.registry],
      collect() {
        this.set(self.wireConnections());
      },
    });
    // The engine's process-wide scan counters (src/engine/counters.ts), read at scrape time:
    // a count(*) that postgres_fdw sends shows as groups answered from statistics, none read.
    new Counter({
      name: 'paxd_scan_row_groups_total',
      help: 'Row groups met by finished scans, by what happened to them',
      labelNames: ['outcome'],
      registers: [this.registry],
      collect() {
        const c = engineCounters();
        this.reset();
        this.inc({ outcome: 'read' }, c.groupsRead);
        this.inc({ outcome: 'answered_from_statistics' }, c.groupsAnsweredFromStats);
        this.inc({ outcome: 'skipped_by_predicate' }, c.groupsSkippedByPredicate);
        this.inc({ outcome: 'skipped_by_bound' }, c.groupsSkippedByBound);
      },
    });
    new Counter({
      name: 'paxd_scans_total',
      help: 'Table scans and statistics answers finished by the engine',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(engineCounters().scans);
      },
    });
    new Counter({
      name: 'paxd_scan_rows_read_total',
      help: 'Rows read by finished scans',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(engineCounters().rowsRead);
      },
    });
    // Process metrics, event-loop lag among them (nodejs_eventloop_lag_seconds).
    collectDefaultMetrics({ register: this.registry, prefix: 'paxd_' });
  }

  /** Prometheus text exposition. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/**
 * src/daemon: `paxd serve` (docs/DAEMON.md) — the wire server, the HTTP API, the watched inbox and
 * background upkeep over one store, with configuration, structured logs and PostgreSQL's
 * shutdown modes.
 *
 *   config.ts        defaults < config file < PAXD_* environment < flags, validated
 *   log.ts           pino: JSON lines, or readable lines on a terminal
 *   metrics.ts       prom-client counters, gauges, histograms
 *   inbox.ts         the watched folder: exactly-once loads, batches, backpressure
 *   inbox-files.ts   names taken, file identities, moves to .done/.failed
 *   http.ts          /health /ready /metrics /v1/tables/{t}/rows /v1/sql
 *   auth.ts          HTTP Basic against the wire server's verifiers (SCRAM-SHA-256, md5)
 *   body.ts          request bodies as streams: size, time and in-flight limits
 *   bootstrap.ts     the generated "paxd" user when no users are configured
 *   arrow-out.ts     query results as Arrow IPC streams
 *   maintenance.ts   background compaction and vacuum
 *   store-metrics.ts the store, with its reads counted
 *   daemon.ts        wiring, start, stop, signals
 */
export { Daemon, serve, type DaemonDeps, type StartWire, type StopMode } from './daemon.js';
export { loadConfig, defaultConfig, printableConfig, parseToml, CONFIG_KEYS, type DaemonConfig, type RawConfig, type ConfigSources } from './config.js';
export { createLogger, flushLog, type Logger } from './log.js';
export { makeVerifier, checkPassword } from './auth.js';
export { ARROW_STREAM_TYPE } from './http.js';
export type { FailedFileJson } from './inbox.js';

/** `paxd serve`: the daemon (docs/DAEMON.md). */
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { usage } from '../../types/index.js';
import { DEFAULT_LISTEN } from '../../pgwire/index.js';
import { dataOption, positiveInt, type Io } from '../options.js';

export function define(cmd: Command, { out }: Io): void {
  dataOption(
    cmd
      .option('--listen <address>', 'wire protocol host:port, [ipv6]:port or :port (0 picks a free port), or off', DEFAULT_LISTEN)
      .option('--max-message-size <bytes>', 'largest message a client may send', positiveInt('--max-message-size'))
      .option('--max-connections <n>', 'clients served at once (one more gets 53300)', positiveInt('--max-connections'))
      .option('--users <file>', 'users of the wire server and the HTTP API: JSON {"users": {"alice": "SCRAM-SHA-256$…"}, "method"?: …} (verifiers from paxd passwd; config users_file)')
      .option('--read-only-users <names>', 'users (comma-separated) that may only read: SELECT on every table, 42501 for anything else (config read_only_users)')
      .option('--auth <method>', 'authentication: scram-sha-256 (default), md5, or trust (only when asked for, loopback only; config auth_method). Without users, a "paxd" user with a generated password (its file is printed)')
      .option('--state-dir <dir>', 'where the generated password of the "paxd" user is kept (default: the store folder; for s3:// stores ~/.local/state/paxd/<hash>)')
      .option('--authentication-timeout <duration>', "time a wire client has to finish startup and authentication (PostgreSQL's authentication_timeout: a bare number is seconds; default 1min)")
      .option('--tls-key <file>', 'PEM private key: clients may use TLS (sslmode=require)')
      .option('--tls-cert <file>', 'PEM certificate chain for --tls-key')
      .option('--config <file>', 'configuration file, JSON or TOML (env PAXD_CONFIG); environment PAXD_<KEY> overrides it, flags override both')
      .option('--print-config', 'print the effective configuration (secrets masked) and exit')
      .option('--http <address>', 'HTTP API host:port, or off (default 127.0.0.1:7480)')
      .option('--inbox <dir>', 'watch DIR/<table>/ for CSV, NDJSON, Parquet and Arrow files (.gz/.zst too) and load each exactly once')
      .option('--inbox-create', 'create a missing table from its first inbox file (schema inferred)')
      .option('--on-error <mode>', 'inbox and HTTP loads: abort (a bad row fails the file) or skip (bad rows go to its rejects)')
      .option('--vacuum-grace <duration>', 'background vacuum removes unreferenced files older than this (vacuum_grace_ms: a bare number is milliseconds; e.g. 10min, 1h)')
      .option('--work-mem <size>', "memory budget of one statement or load (PostgreSQL's work_mem: a bare number is kB; e.g. 64MB)")
      .option('--log-level <level>', 'trace, debug, info, warn, error, fatal or silent')
      .option('--mirror <url>', 'PostgreSQL (postgres://…) to keep every table mirrored into as postgres_fdw foreign tables (docs/MIRROR.md; mirror_* config keys)'),
  ).action(async (o, c: Command) => {
    const { loadConfig, printableConfig } = await import('../../daemon/config.js');
    const given = (k: string) => c.getOptionValueSource(k) === 'cli';
    const flags: Record<string, unknown> = {};
    const map: [string, string][] = [
      ['data', 'store'], ['listen', 'listen'], ['http', 'http'], ['inbox', 'inbox'], ['inboxCreate', 'inbox_create'], ['onError', 'on_error'],
      ['vacuumGrace', 'vacuum_grace_ms'], ['workMem', 'work_mem'], ['maxConnections', 'max_connections'], ['logLevel', 'log_level'], ['mirror', 'mirror'],
      ['users', 'users_file'], ['readOnlyUsers', 'read_only_users'], ['auth', 'auth_method'], ['stateDir', 'state_dir'], ['authenticationTimeout', 'authentication_timeout'],
    ];
    for (const [opt, key] of map) if (given(opt)) flags[key] = o[opt];
    const config = loadConfig({ ...(o.config !== undefined ? { file: o.config } : {}), flags });
    if (o.printConfig) {
      out(printableConfig(config));
      return;
    }
    const [{ serve }, { startServer }] = await Promise.all([import('../../daemon/index.js'), import('../../pgwire/index.js')]);
    await serve(config, {
      out,
      startWire: (db, host, port, cfg, shared) =>
        startServer({
          db,
          host,
          port,
          maxConnections: cfg.max_connections,
          startupTimeoutMs: cfg.authentication_timeout,
          ...(o.maxMessageSize !== undefined ? { maxMessageSize: o.maxMessageSize } : {}),
          auth: shared.auth,
          log: shared.log,
          workMem: cfg.work_mem,
          statementTimeoutMs: cfg.statement_timeout,
          ...(o.tlsKey !== undefined || o.tlsCert !== undefined ? { tls: tlsFiles(o.tlsKey, o.tlsCert) } : {}),
        }),
    });
  });
}

/** --tls-key and --tls-cert: both, read now so a bad path fails at start. */
function tlsFiles(key: string | undefined, cert: string | undefined): { key: Buffer; cert: Buffer } {
  if (key === undefined || cert === undefined) throw usage('--tls-key and --tls-cert go together');
  return { key: readFileSync(key), cert: readFileSync(cert) };
}

/**
 * `paxd serve` (docs/DAEMON.md): one process wiring the wire server (src/pgwire), the HTTP API
 * (./http.ts), the inbox (./inbox.ts) and background upkeep (./maintenance.ts) over one store,
 * with PostgreSQL's shutdown modes:
 *
 *   SIGTERM  "smart": stop accepting work (listeners closed, inbox unwatched), let running
 *            loads and commits finish, and statements for up to 500 ms (then they are
 *            cancelled: a runaway query must not keep the process alive), then exit 0.
 *   SIGINT   "fast": cancel what runs (connections ended, the batch being loaded abandoned
 *            before its commit — a commit is atomic, so nothing is half-written and the files
 *            stay in the inbox for the next start), then exit 0.
 *   a second signal: exit at once (status 1).
 */
import { Database, roleCatalogOf, type ConfiguredRole } from '../table/index.js';
import { configureMemory } from '../engine/index.js';
import { startServer, parseListen, formatListen, serveAuthConfig, isLoopback, type AuthConfig, type RunningServer, type WireLog } from '../pgwire/index.js';
import { PaxdError, SQLSTATE } from '../types/index.js';
import { defaultConfig, type DaemonConfig } from './config.js';
import { createLogger, flushLog, type Logger } from './log.js';
import { DaemonMetrics } from './metrics.js';
import { startHttp, type HttpServer } from './http.js';
import { Inbox } from './inbox.js';
import { Maintenance } from './maintenance.js';
import { CountedStore } from './store-metrics.js';
import { bootstrapUser, stateDir, type Bootstrap } from './bootstrap.js';
import { openStore } from '../storage/index.js';
import { MirrorSync, mirrorOptions, maskUrl } from '../mirror/index.js';

const DEFAULT_HTTP = defaultConfig().http;

/** What the daemon hands the wire server: its users and log (shared with the HTTP API). */
export interface WireShared {
  readonly auth: AuthConfig;
  readonly log: WireLog;
}

/** Starts the wire server; the CLI passes its own, with the wire options it parses. */
export type StartWire = (db: Database, host: string, port: number, config: DaemonConfig, shared: WireShared) => Promise<RunningServer>;

export interface DaemonDeps {
  startWire?: StartWire;
  log?: Logger;
  /** Lines for people (`paxd: listening on …`), on standard output by default. */
  out?: (s: string) => void;
}

export type StopMode = 'smart' | 'fast';

export class Daemon {
  private stopping: Promise<void> | null = null;

  private constructor(
    readonly config: DaemonConfig,
    readonly db: Database,
    readonly log: Logger,
    readonly metrics: DaemonMetrics,
    readonly wire: RunningServer | null,
    readonly http: HttpServer | null,
    readonly inbox: Inbox | null,
    readonly maintenance: Maintenance,
    /** The postgres_fdw mirror kept in sync (config `mirror`), or null. */
    readonly mirror: MirrorSync | null = null,
  ) {}

  static async start(config: DaemonConfig, deps: DaemonDeps = {}): Promise<Daemon> {
    const log = deps.log ?? createLogger(config.log_level);
    // 0: the engine's default, from the heap limit (--max-old-space-size).
    configureMemory({ ...(config.statement_mem_limit > 0 ? { statementLimit: config.statement_mem_limit } : {}), ...(config.process_mem_limit > 0 ? { processLimit: config.process_mem_limit } : {}) });
    const out = deps.out ?? ((s: string) => process.stdout.write(s));
    const metrics = new DaemonMetrics();
    // One users source for both doors: the config's users, the users file, the method; with
    // none of them, the generated `paxd` user (./bootstrap.ts): nothing is open by default.
    let auth = serveAuthConfig(config.users, config.users_file ?? undefined, config.auth_method ?? undefined, readOnlyUsers(config.read_only_users));
    const generated = auth.method !== 'trust' && Object.keys(auth.users ?? {}).length === 0 && (config.listen !== 'off' || config.http !== 'off');
    // HTTP Basic carries the password itself, in the clear without TLS: off loopback, only for
    // users someone configured (not the generated one), and never for trust.
    if (config.http !== 'off' && (auth.method === 'trust' || generated)) {
      const { host } = parseListen(config.http);
      if (!isLoopback(host)) throw httpOpenNotLoopback(host, auth.method === 'trust');
    }
    let bootstrap: Bootstrap | null = null;
    if (generated) {
      bootstrap = await bootstrapUser(stateDir(config.store, config.state_dir));
      auth = { ...auth, users: { [bootstrap.user]: bootstrap.verifier } };
      reportBootstrap(bootstrap, log, out);
    }
    // Parallel scan workers open the store by its URI: their reads are not in the store metrics.
    const store = await openStore(config.store);
    const db = await Database.open(new CountedStore(store, metrics), { uri: config.store, ...(config.temp_directory !== null ? { tempDirectory: config.temp_directory } : {}) });
    auth = await withStoredRoles(db, auth);
    let wire: RunningServer | null = null;
    let http: HttpServer | null = null;
    let inbox: Inbox | null = null;
    let accepting = false;
    try {
      if (config.listen !== 'off') {
        const { host, port } = parseListen(config.listen);
        const start: StartWire =
          deps.startWire ??
          ((d, h, p, c, w) => startServer({ db: d, host: h, port: p, maxConnections: c.max_connections, startupTimeoutMs: c.authentication_timeout, auth: w.auth, log: w.log, workMem: c.work_mem, statementTimeoutMs: c.statement_timeout }));
        wire = await start(db, host, port, config, { auth, log: wireLog(log, metrics) });
        const w = wire;
        metrics.wireConnections = () => w.connections();
        out(`paxd: listening on ${formatListen(wire.host, wire.port)} (store ${config.store})\n`);
        log.info({ host: wire.host, port: wire.port, store: config.store }, 'wire: listening');
      }
      if (config.http !== 'off') {
        const { host, port } = parseListen(config.http);
        http = await startHttp({
          db,
          host,
          port,
          auth,
          authFailureDelayMs: config.auth_failure_delay_ms,
          maxBodyBytes: config.max_body_bytes,
          maxInflightBodyBytes: config.max_inflight_body_bytes,
          headerTimeoutMs: config.http_header_timeout_ms,
          bodyTimeoutMs: config.http_body_timeout_ms,
          statementTimeoutMs: config.statement_timeout,
          bodyMinRate: config.http_body_min_rate,
          csvHeader: config.csv_header,
          log,
          metrics,
          ready: async () => {
            if (!accepting) return false;
            await db.store.stat('.paxd-ready-probe'); // throws when the store does not answer
            return true;
          },
        }).catch((e: unknown) => {
          // The default address taken (another paxd, a test): serve without HTTP rather than
          // not at all. An address asked for is an error.
          if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || config.http !== DEFAULT_HTTP) throw e;
          log.warn({ address: config.http }, `http: ${config.http} is in use: HTTP API off (set http to another address, or off)`);
          return null;
        });
        if (http !== null) {
          out(`paxd: http on ${formatListen(http.host, http.port)}\n`);
          log.info({ host: http.host, port: http.port }, 'http: listening');
        }
      }
      if (config.inbox !== null) {
        inbox = new Inbox(
          db,
          {
            dir: config.inbox,
            create: config.inbox_create,
            stableMs: config.inbox_stable_ms,
            batchFiles: config.inbox_batch_files,
            batchBytes: config.inbox_batch_bytes,
            queueLimit: config.inbox_queue,
            onError: config.on_error,
            csvHeader: config.csv_header,
          },
          log,
          metrics,
        );
        await inbox.start();
      }
    } catch (e) {
      await inbox?.stop().catch(() => undefined);
      await http?.close(true).catch(() => undefined);
      await wire?.close().catch(() => undefined);
      await db.close().catch(() => undefined);
      throw e;
    }
    const maintenance = new Maintenance(
      db,
      {
        compactSmallFiles: config.compact_small_files,
        compactDeletedFraction: config.compact_deleted_fraction,
        compactIntervalMs: config.compact_interval_ms,
        vacuumGraceMs: config.vacuum_grace_ms,
        vacuumIntervalMs: config.vacuum_interval_ms,
      },
      log,
      metrics,
    );
    maintenance.start();
    // The mirror logs in as the generated user with its password, unless told another.
    const mirrorConfig =
      config.mirror_password === null && bootstrap?.password != null && config.mirror_user === bootstrap.user ? { ...config, mirror_password: bootstrap.password } : config;
    const mirror = config.mirror === null ? null : startMirror(mirrorConfig, db, wire, log, metrics);
    accepting = true;
    log.info({ inbox: config.inbox, http: config.http, listen: config.listen }, 'paxd: ready');
    return new Daemon(config, db, log, metrics, wire, http, inbox, maintenance, mirror);
  }

  /**
   * Stops the daemon. 'smart' waits for running loads, statements and commits; 'fast' ends
   * connections and does not wait for the inbox batch in progress (see the file comment).
   */
  stop(mode: StopMode = 'smart'): Promise<void> {
    this.stopping ??= (async () => {
      const started = performance.now();
      this.log.info({ mode }, `paxd: stopping (${mode})`);
      const inboxStopped = this.inbox?.stop() ?? Promise.resolve();
      await Promise.all([
        this.http?.close(mode === 'fast'),
        this.maintenance.stop(),
        this.mirror?.stop(),
        mode === 'smart' ? inboxStopped : undefined,
      ]);
      await this.wire?.close(mode);
      if (mode === 'smart') await this.db.close();
      this.log.info({ ms: Math.round(performance.now() - started) }, 'paxd: stopped');
    })();
    return this.stopping;
  }
}

/** Says where the generated password is (never the password itself), on standard output and in the log. */
/** `"a, b"` → ['a', 'b']. */
function readOnlyUsers(list: string | null): string[] {
  return list === null ? [] : list.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/**
 * One set of users for both doors, the configured ones and the roles of the store's roles log
 * (CREATE ROLE … LOGIN PASSWORD): `users` is one object, changed in place whenever the roles
 * change (a statement of this daemon, or a newer state another daemon committed, seen at the
 * next statement), so a role created in SQL can log in at once over the wire and HTTP, and a
 * dropped one no longer can. The configured users' rights go to the roles catalog
 * (src/table/roles.ts): a user without attributes is a superuser.
 */
async function withStoredRoles(db: Database, auth: AuthConfig): Promise<AuthConfig> {
  const catalog = roleCatalogOf(db.store);
  const configured: Record<string, ConfiguredRole> = {};
  const attributes = auth.attributes ?? {};
  const names = new Set([...Object.keys(auth.users ?? {}), ...Object.keys(attributes)]);
  for (const name of names) {
    const a = Object.hasOwn(attributes, name) ? attributes[name]! : { superuser: true, readAllData: false };
    const password = Object.hasOwn(auth.users ?? {}, name) ? auth.users![name]! : null;
    configured[name] = { password, superuser: a.superuser, readAllData: a.readAllData };
  }
  catalog.configure(configured);
  await catalog.current();
  const users: Record<string, string> = {};
  const sync = (): void => {
    const now = catalog.loginVerifiers();
    for (const k of Object.keys(users)) if (!Object.hasOwn(now, k)) delete users[k];
    Object.assign(users, now);
  };
  sync();
  catalog.onChange(sync);
  return { ...auth, users };
}

function reportBootstrap(b: Bootstrap, log: Logger, out: (s: string) => void): void {
  if (b.created) {
    out(`paxd: no users configured: created user "${b.user}" with a generated password, in ${b.passwordFile} (mode 0600; configure users with --users, or ask for --auth trust on loopback)\n`);
    log.info({ user: b.user, password_file: b.passwordFile }, `auth: no users configured: created user "${b.user}", password in ${b.passwordFile}`);
  } else {
    const where = b.password !== null ? `password in ${b.passwordFile}` : `password file ${b.passwordFile} removed`;
    out(`paxd: no users configured: user "${b.user}" (generated; ${where})\n`);
    log.info({ user: b.user, password_file: b.passwordFile }, `auth: no users configured: user "${b.user}" (generated; ${where})`);
  }
  for (const f of b.tooOpen) log.warn({ file: f }, `auth: ${f} is readable by others than its owner: chmod 600 ${f}`);
}

/** `--http` on an address others can reach, with trust or with only the generated user. */
function httpOpenNotLoopback(host: string, trust: boolean): PaxdError {
  return new PaxdError(
    'usage',
    SQLSTATE.invalid_parameter_value,
    trust
      ? `refusing to serve HTTP on ${host} with trust authentication: trust is allowed only on a loopback address (127.0.0.1, ::1, localhost)`
      : `refusing to serve HTTP on ${host} without configured users: off loopback, the HTTP API needs users configured (--users FILE, users in the config file, or PAXD_USERS), not only the generated "paxd" user`,
  );
}

/**
 * The wire server's log, into the daemon's: logins that succeed ("wire: connection authorized")
 * and fail (a FATAL 28P01) are logged there with the client address; failures are counted.
 */
function wireLog(log: Logger, metrics: DaemonMetrics): WireLog {
  return {
    info: (fields, message) => log.info({ protocol: 'wire', ...fields }, message),
    warn: (fields, message) => {
      // invalid_password is the code of every failed password login.
      if (fields.code === SQLSTATE.invalid_password) metrics.authFailures.inc({ protocol: 'wire' });
      log.warn({ protocol: 'wire', ...fields }, message);
    },
  };
}

/**
 * The postgres_fdw mirror (config `mirror`, docs/MIRROR.md): declared at start and re-synced
 * whenever a table is created, altered or dropped (polled every mirror_interval_ms). It runs
 * in the background: a PostgreSQL that is down is logged and retried, and never keeps the
 * daemon from serving.
 */
function startMirror(config: DaemonConfig, db: Database, wire: RunningServer | null, log: Logger, metrics: DaemonMetrics): MirrorSync {
  const o = mirrorOptions({
    pg: config.mirror!,
    schema: config.mirror_schema,
    server: config.mirror_server,
    host: config.mirror_host ?? (wire === null || wire.host === '0.0.0.0' || wire.host === '::' ? '127.0.0.1' : wire.host),
    port: config.mirror_port !== 0 ? config.mirror_port : (wire?.port ?? parseListen(config.listen === 'off' ? '127.0.0.1:7432' : config.listen).port),
    dbname: config.mirror_dbname,
    user: config.mirror_user,
    ...(config.mirror_password !== null ? { password: config.mirror_password } : {}),
    fetchSize: config.mirror_fetch_size,
    useRemoteEstimate: config.mirror_use_remote_estimate,
  });
  const where = `server ${o.server}, schema ${o.schema} in ${maskUrl(o.pg)}`;
  const sync = new MirrorSync(db, o, config.mirror_interval_ms, {
    onSynced: (r, ms) => {
      metrics.mirrorSyncs.inc({ status: 'ok' });
      metrics.mirrorTables.set(r.created.length + r.altered.length + r.unchanged.length);
      if (r.steps.length > 0)
        log.info(
          { created: r.created, altered: r.altered, dropped: r.dropped, unchanged: r.unchanged.length, ms: Math.round(ms) },
          `mirror: ${where}: ${r.created.length} created, ${r.altered.length} altered, ${r.dropped.length} dropped`,
        );
    },
    onError: (e) => {
      metrics.mirrorSyncs.inc({ status: 'error' });
      metrics.backgroundErrors.inc({ task: 'mirror' });
      log.warn({ err: e }, `mirror: ${where}: ${(e as Error).message}`);
    },
  });
  sync.start().catch(() => undefined); // reported through onError, retried on the next tick
  return sync;
}

/**
 * Runs the daemon until a signal: SIGTERM → smart stop, SIGINT → fast stop, a second signal →
 * exit at once. Once stopped, the log is flushed and the process exits 0 — without waiting
 * for anything still running after a fast stop (that is what a fast stop means), nor for a
 * stray handle to close.
 */
export async function serve(config: DaemonConfig, deps: DaemonDeps = {}): Promise<never> {
  const d = await Daemon.start(config, deps);
  const out = deps.out ?? ((t: string) => process.stdout.write(t));
  await new Promise<void>((resolve, reject) => {
    let signals = 0;
    const onSignal = (s: NodeJS.Signals) => {
      signals++;
      if (signals > 1) {
        d.log.warn({ signal: s }, 'paxd: second signal: exiting now');
        flushLog();
        process.exit(1);
      }
      d.log.info({ signal: s }, `paxd: ${s}`);
      out(`paxd: ${s}: stopping (${s === 'SIGINT' ? 'fast' : 'smart'} shutdown)\n`);
      d.stop(s === 'SIGINT' ? 'fast' : 'smart').then(resolve, reject);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  flushLog();
  process.exit(0);
}

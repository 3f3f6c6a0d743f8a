/**
 * `paxd serve`'s configuration (docs/DAEMON.md): defaults, overridden by a config file (JSON, or a
 * flat TOML subset), overridden by environment variables `PAXD_<KEY>`, overridden by flags.
 * Every value is validated at start; an error names the key and where the value came from:
 *
 *   config file /etc/paxd.json: on_error: expected one of abort, skip, got "ignore"
 *   environment PAXD_WORK_MEM: work_mem: expected a size like 64MB, got "lots"
 *
 * `users` maps a user name to a SCRAM-SHA-256 verifier in PostgreSQL's format
 * (`SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`, base64); `users_file` (`--users`)
 * adds those of a JSON file (where a user may be `{"password": …, "read_only": true}`), and
 * `read_only_users` makes users read-only (src/table/privileges.ts). The wire server's
 * authentication and the HTTP API's Basic authentication (./auth.ts) check passwords against the same users. They are secrets:
 * `--print-config` masks them.
 */
import { readFileSync } from 'node:fs';
import { PaxdError, SQLSTATE, unreachable, convertUnit, formatSetting, parseSetting, paxdSetting, STATEMENT_TIMEOUT, VACUUM_GRACE, WORK_MEM, type UnitSetting } from '../types/index.js';
import { DEFAULT_INGESTED_WINDOW } from '../storage/index.js';
import { maskUrl } from '../mirror/index.js';
import type { AuthMethod } from '../pgwire/index.js';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
export const LOG_LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
const AUTH_METHODS: readonly AuthMethod[] = ['scram-sha-256', 'md5', 'trust'];

export interface DaemonConfig {
  /** Store root: a folder or s3://bucket/prefix. */
  store: string;
  /** Wire protocol address `host:port`, or "off". */
  listen: string;
  /** HTTP address `host:port`, or "off". */
  http: string;
  /** Inbox folder watched for `<inbox>/<table>/<file>`, or null for none. */
  inbox: string | null;
  /** Create a missing table from its first inbox file (schema inferred). */
  inbox_create: boolean;
  /** A file is taken once its size and mtime have not changed for this long (ms). */
  inbox_stable_ms: number;
  /** Most files of one table loaded in one commit. */
  inbox_batch_files: number;
  /** Most input bytes loaded in one commit (a larger file is loaded alone). */
  inbox_batch_bytes: number;
  /** Ready files held in memory; past it, arrivals are picked up by a rescan later (backpressure). */
  inbox_queue: number;
  /** CSV files in the inbox (and CSV bodies over HTTP) have a header line naming the columns. */
  csv_header: boolean;
  /** Bad rows fail the file (abort) or go to its rejects (skip). */
  on_error: 'abort' | 'skip';
  /** Compact a table when it has at least this many small files (0: never for this reason). */
  compact_small_files: number;
  /** Compact a table when this fraction of its rows is deleted (0..1; 0: never for this reason). */
  compact_deleted_fraction: number;
  /** How often tables are checked for compaction (ms; 0: never). */
  compact_interval_ms: number;
  /** Vacuum removes unreferenced files older than this (ms). */
  vacuum_grace_ms: number;
  /** How often tables are vacuumed (ms; 0: never). */
  vacuum_interval_ms: number;
  /** Memory budget of one statement or load (bytes). */
  work_mem: number;
  /**
   * The local folder where statements spill past work_mem (PostgreSQL's temp_tablespaces);
   * null: `<store>/_tmp` for a local store, the OS's temporary folder for s3:// (src/storage/temp-area.ts).
   */
  temp_directory: string | null;
  /**
   * The default statement_timeout (ms; 0: none) of every wire session (SET changes it per
   * session) and of every HTTP /v1/sql request (its "statement_timeout" field changes it per
   * request): PostgreSQL's setting, a bare number is milliseconds.
   */
  statement_timeout: number;
  /**
   * The most memory one statement may hold (bytes; 0: 40% of the JavaScript heap limit,
   * --max-old-space-size), else 53200 out of memory (src/engine/memory.ts).
   */
  statement_mem_limit: number;
  /**
   * The JavaScript heap past which a growing statement fails with 53200 (bytes; 0: 70% of the
   * heap limit), so that the process itself never runs out.
   */
  process_mem_limit: number;
  /** Wire clients served at once. */
  max_connections: number;
  /** Largest HTTP request body (bytes). */
  max_body_bytes: number;
  /**
   * Most bytes of HTTP request bodies being received at once, over all requests (Content-Length
   * reserved as a request starts, chunked bodies counted as they arrive); past it, 503 with
   * Retry-After.
   */
  max_inflight_body_bytes: number;
  /** An HTTP request's headers must have arrived this long after its first byte (ms), else 408. */
  http_header_timeout_ms: number;
  /** The most an HTTP request body may go without a byte arriving (ms), else 408. */
  http_body_timeout_ms: number;
  /**
   * The least average rate of an HTTP request body, in bytes per second, once it has taken 5 s
   * of the client's time (Apache's mod_reqtimeout MinRate, whose default it takes); else 408.
   * 0: none.
   */
  http_body_min_rate: number;
  /**
   * A wire client has this long to finish its startup (SSL negotiation, startup packet,
   * authentication) before it is disconnected, holding no connection slot meanwhile
   * (PostgreSQL's authentication_timeout; a bare number is seconds, as there). Kept in ms.
   */
  authentication_timeout: number;
  /**
   * Where the generated password of the `paxd` user is kept when no users are configured
   * (./bootstrap.ts); null: the store's folder, or for an S3 store a local folder named after it.
   */
  state_dir: string | null;
  log_level: LogLevel;
  /** User name → SCRAM-SHA-256 verifier. Empty, with no users_file: the generated `paxd` user (./bootstrap.ts). */
  users: Record<string, string>;
  /**
   * A JSON users file (`{"users": {…}, "method"?: …}` or just the users object; SCRAM-SHA-256 or
   * md5 verifiers), added to `users`. Wire server and HTTP API check passwords against both.
   */
  users_file: string | null;
  /**
   * Users that may only read (SELECT on every table: PostgreSQL's pg_read_all_data), comma-separated
   * (`--read-only-users grafana,metabase`), for teams that provision users from config, not SQL.
   */
  read_only_users: string | null;
  /** scram-sha-256 (the default), md5, or trust (only when asked for, and only on loopback). */
  auth_method: AuthMethod | null;
  /** A failed HTTP login is answered (401) after this long, as PostgreSQL's auth_delay (ms; 0: at once). */
  auth_failure_delay_ms: number;
  /**
   * A PostgreSQL (libpq URL) to mirror every table into as postgres_fdw foreign tables, kept in
   * sync while the daemon runs (docs/MIRROR.md), or null. A secret: may hold a password.
   */
  mirror: string | null;
  /** Schema of the foreign tables in that PostgreSQL. */
  mirror_schema: string;
  /** Name of the foreign server there. */
  mirror_server: string;
  /** This daemon's wire address as that PostgreSQL reaches it; null: the listen address. */
  mirror_host: string | null;
  /** 0: the port the wire server listens on. */
  mirror_port: number;
  mirror_dbname: string;
  /** The paxd user and password of the user mapping (the password is a secret). */
  mirror_user: string;
  mirror_password: string | null;
  mirror_fetch_size: number;
  mirror_use_remote_estimate: boolean;
  /** How often tables are compared with what was last mirrored (ms; 0: only at start). */
  mirror_interval_ms: number;
}

type Kind = 'string' | 'string?' | 'address' | 'path?' | 'bool' | 'count' | 'fraction' | 'duration' | 'bytes' | 'on_error' | 'log_level' | 'users' | 'auth_method';

/**
 * Durations and sizes are read as PostgreSQL reads its settings (../types/units.ts). A bare
 * number is in the setting's base unit: milliseconds for the `*_ms` keys, bytes for the
 * `*_bytes` keys, kilobytes for work_mem (PostgreSQL's work_mem); the config keeps
 * milliseconds and bytes.
 */
const ms = (key: string): UnitSetting => paxdSetting(key, 'ms');
const bytes = (key: string): UnitSetting => paxdSetting(key, 'B', 1);
/** A size whose 0 means "the default computed at start" (the memory caps). */
const bytesOrAuto = (key: string): UnitSetting => paxdSetting(key, 'B', 0);
/** PostgreSQL's authentication_timeout: seconds, 1 s to 10 min (guc.c). */
const AUTHENTICATION_TIMEOUT = paxdSetting('authentication_timeout', 's', 1, 600);

/** The keys, their kinds and defaults: the closed set a config file may hold. */
const KEYS: { readonly [K in keyof DaemonConfig]: { kind: Kind; default: DaemonConfig[K]; flag?: string; unit?: UnitSetting } } = {
  store: { kind: 'string', default: './paxd-data', flag: '--data' },
  listen: { kind: 'address', default: '127.0.0.1:7432', flag: '--listen' },
  http: { kind: 'address', default: '127.0.0.1:7480', flag: '--http' },
  inbox: { kind: 'path?', default: null, flag: '--inbox' },
  inbox_create: { kind: 'bool', default: false, flag: '--inbox-create' },
  inbox_stable_ms: { kind: 'duration', default: 1000, unit: ms('inbox_stable_ms') },
  inbox_batch_files: { kind: 'count', default: 64 },
  inbox_batch_bytes: { kind: 'bytes', default: 64 * 1024 * 1024, unit: bytes('inbox_batch_bytes') },
  inbox_queue: { kind: 'count', default: 1000 },
  csv_header: { kind: 'bool', default: true },
  on_error: { kind: 'on_error', default: 'abort', flag: '--on-error' },
  compact_small_files: { kind: 'count', default: 16 },
  compact_deleted_fraction: { kind: 'fraction', default: 0.2 },
  compact_interval_ms: { kind: 'duration', default: 60_000, unit: ms('compact_interval_ms') },
  vacuum_grace_ms: { kind: 'duration', default: 3_600_000, unit: VACUUM_GRACE, flag: '--vacuum-grace' },
  vacuum_interval_ms: { kind: 'duration', default: 600_000, unit: ms('vacuum_interval_ms') },
  work_mem: { kind: 'bytes', default: 64 * 1024 * 1024, flag: '--work-mem', unit: WORK_MEM },
  temp_directory: { kind: 'path?', default: null },
  statement_timeout: { kind: 'duration', default: 0, unit: STATEMENT_TIMEOUT },
  statement_mem_limit: { kind: 'bytes', default: 0, unit: bytesOrAuto('statement_mem_limit') },
  process_mem_limit: { kind: 'bytes', default: 0, unit: bytesOrAuto('process_mem_limit') },
  max_connections: { kind: 'count', default: 100, flag: '--max-connections' },
  max_body_bytes: { kind: 'bytes', default: 1024 * 1024 * 1024, unit: bytes('max_body_bytes') },
  max_inflight_body_bytes: { kind: 'bytes', default: 256 * 1024 * 1024, unit: bytes('max_inflight_body_bytes') },
  http_header_timeout_ms: { kind: 'duration', default: 20_000, unit: paxdSetting('http_header_timeout_ms', 'ms', 1) },
  http_body_timeout_ms: { kind: 'duration', default: 30_000, unit: paxdSetting('http_body_timeout_ms', 'ms', 1) },
  http_body_min_rate: { kind: 'bytes', default: 500, unit: bytes('http_body_min_rate') },
  authentication_timeout: { kind: 'duration', default: 60_000, unit: AUTHENTICATION_TIMEOUT, flag: '--authentication-timeout' },
  state_dir: { kind: 'path?', default: null, flag: '--state-dir' },
  log_level: { kind: 'log_level', default: 'info', flag: '--log-level' },
  users: { kind: 'users', default: {} },
  users_file: { kind: 'path?', default: null, flag: '--users' },
  read_only_users: { kind: 'string?', default: null, flag: '--read-only-users' },
  auth_method: { kind: 'auth_method', default: null, flag: '--auth' },
  auth_failure_delay_ms: { kind: 'duration', default: 300, unit: ms('auth_failure_delay_ms') },
  mirror: { kind: 'string?', default: null },
  mirror_schema: { kind: 'string', default: 'public' },
  mirror_server: { kind: 'string', default: 'paxd' },
  mirror_host: { kind: 'string?', default: null },
  mirror_port: { kind: 'count', default: 0 },
  mirror_dbname: { kind: 'string', default: 'paxd' },
  mirror_user: { kind: 'string', default: 'paxd' },
  mirror_password: { kind: 'string?', default: null },
  mirror_fetch_size: { kind: 'count', default: 10_000 },
  mirror_use_remote_estimate: { kind: 'bool', default: true },
  mirror_interval_ms: { kind: 'duration', default: 5000, unit: ms('mirror_interval_ms') },
};

export const CONFIG_KEYS = Object.keys(KEYS) as (keyof DaemonConfig)[];

/** Values as given (strings from the environment and flags, anything from a file). */
export type RawConfig = Partial<Record<keyof DaemonConfig, unknown>>;

export interface ConfigSources {
  /** Path of a config file (.json or .toml). */
  file?: string;
  /** The environment (PAXD_* is read). */
  env?: NodeJS.ProcessEnv;
  /** Values from flags (only the flags given). */
  flags?: RawConfig;
}

export function defaultConfig(): DaemonConfig {
  const out = {} as Record<string, unknown>;
  for (const k of CONFIG_KEYS) {
    const d = KEYS[k].default;
    out[k] = typeof d === 'object' && d !== null ? { ...d } : d;
  }
  return out as unknown as DaemonConfig;
}

/**
 * The effective configuration: defaults < file < environment < flags, each value validated.
 *
 *   loadConfig({ env: { PAXD_ON_ERROR: 'skip' }, flags: { inbox: './in' } }).on_error  // 'skip'
 */
export function loadConfig(sources: ConfigSources = {}): DaemonConfig {
  const cfg = defaultConfig() as unknown as Record<string, unknown>;
  const env = sources.env ?? process.env;
  const file = sources.file ?? env.PAXD_CONFIG;
  if (file !== undefined && file !== '') {
    for (const [k, v] of Object.entries(readConfigFile(file))) {
      if (!(k in KEYS)) throw configError(`config file ${file}`, k, `unknown key (known: ${CONFIG_KEYS.join(', ')})`);
      cfg[k] = validate(k as keyof DaemonConfig, v, `config file ${file}`);
    }
  }
  for (const k of CONFIG_KEYS) {
    const name = `PAXD_${k.toUpperCase()}`;
    let v = env[name];
    if (k === 'store' && v === undefined) v = env.PAXD_DATA; // the CLI's name for it
    if (v !== undefined && v !== '') cfg[k] = validate(k, v, `environment ${k === 'store' && env[name] === undefined ? 'PAXD_DATA' : name}`);
  }
  for (const [k, v] of Object.entries(sources.flags ?? {})) {
    if (v === undefined) continue;
    if (!(k in KEYS)) throw configError('flags', k, 'unknown key');
    cfg[k] = validate(k as keyof DaemonConfig, v, `flag ${KEYS[k as keyof DaemonConfig].flag ?? k}`);
  }
  // Exactly-once needs every file of a batch still in the snapshot's ingested window after
  // the batch commits (src/storage/ingested.ts).
  if ((cfg.inbox_batch_files as number) > MAX_BATCH_FILES)
    throw configError('configuration', 'inbox_batch_files', `expected at most ${MAX_BATCH_FILES} (half the ingested-files window), got ${String(cfg.inbox_batch_files)}`);
  return cfg as unknown as DaemonConfig;
}

const MAX_BATCH_FILES = DEFAULT_INGESTED_WINDOW / 2;

/** The configuration as `--print-config` shows it: JSON, secrets masked. */
export function printableConfig(c: DaemonConfig): string {
  const masked = Object.fromEntries(Object.entries(c.users).map(([u, v]) => [u, maskVerifier(v)]));
  return (
    JSON.stringify(
      {
        ...c,
        users: masked,
        // In PostgreSQL's units, so that the printed file reads back the same (a bare work_mem is kB).
        work_mem: formatSetting(WORK_MEM, c.work_mem / 1024),
        authentication_timeout: formatSetting(AUTHENTICATION_TIMEOUT, Math.round(c.authentication_timeout / 1000)),
        mirror: c.mirror === null ? null : maskUrl(c.mirror),
        mirror_password: c.mirror_password === null ? null : '********',
      },
      null,
      2,
    ) + '\n'
  );
}

function maskVerifier(v: string): string {
  const i = v.indexOf('$');
  return `${i > 0 ? v.slice(0, i) : 'SCRAM-SHA-256'}$********`;
}

function configError(where: string, key: string, what: string): PaxdError {
  return new PaxdError('usage', SQLSTATE.invalid_parameter_value, `${where}: ${key}: ${what}`);
}

function got(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

const VERIFIER = /^SCRAM-SHA-256\$[1-9][0-9]*:[A-Za-z0-9+/]+=*\$[A-Za-z0-9+/]+=*:[A-Za-z0-9+/]+=*$/;

function validate<K extends keyof DaemonConfig>(key: K, v: unknown, where: string): DaemonConfig[K] {
  const kind = KEYS[key].kind;
  const bad = (expected: string) => configError(where, key, `expected ${expected}, got ${got(v)}`);
  switch (kind) {
    case 'string':
      if (typeof v !== 'string' || v === '') throw bad('a non-empty string');
      return v as DaemonConfig[K];
    case 'string?':
      if (v === null || v === false || v === 'off' || v === '') return null as DaemonConfig[K];
      if (typeof v !== 'string') throw bad('a string, or "off"');
      return v as DaemonConfig[K];
    case 'path?':
      if (v === null || v === false || v === 'off') return null as DaemonConfig[K];
      if (typeof v !== 'string' || v === '') throw bad('a folder path');
      return v as DaemonConfig[K];
    case 'address':
      if (typeof v !== 'string' || !(v === 'off' || /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):\d{1,5}$/.test(v)) || (v !== 'off' && Number(v.slice(v.lastIndexOf(':') + 1)) > 65535))
        throw bad('host:port, [ipv6]:port, :port or "off"');
      return v as DaemonConfig[K];
    case 'bool':
      if (typeof v === 'boolean') return v as DaemonConfig[K];
      if (v === 'true' || v === '1' || v === 'on' || v === 'yes') return true as DaemonConfig[K];
      if (v === 'false' || v === '0' || v === 'off' || v === 'no') return false as DaemonConfig[K];
      throw bad('true or false');
    case 'count': {
      const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw bad('a non-negative integer');
      if (n === 0 && (key === 'inbox_batch_files' || key === 'inbox_queue' || key === 'max_connections' || key === 'mirror_fetch_size')) throw bad('a positive integer');
      if (key === 'mirror_port' && n > 65535) throw bad('a port number (0: the listen port)');
      return n as DaemonConfig[K];
    }
    case 'fraction': {
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
      if (typeof n !== 'number' || !(n >= 0 && n <= 1)) throw bad('a fraction between 0 and 1');
      return n as DaemonConfig[K];
    }
    case 'duration':
      return withUnit(KEYS[key].unit!, 'ms', v, where) as DaemonConfig[K];
    case 'bytes':
      return withUnit(KEYS[key].unit!, 'B', v, where) as DaemonConfig[K];
    case 'on_error':
      if (v !== 'abort' && v !== 'skip') throw bad('one of abort, skip');
      return v as DaemonConfig[K];
    case 'auth_method':
      if (v === null) return null as DaemonConfig[K];
      if (!(AUTH_METHODS as readonly unknown[]).includes(v)) throw bad(`one of ${AUTH_METHODS.join(', ')}`);
      return v as DaemonConfig[K];
    case 'log_level':
      if (!(LOG_LEVELS as readonly unknown[]).includes(v)) throw bad(`one of ${LOG_LEVELS.join(', ')}`);
      return v as DaemonConfig[K];
    case 'users': {
      let o = v;
      if (typeof o === 'string') {
        try {
          o = JSON.parse(o);
        } catch {
          throw configError(where, key, 'expected a JSON object of user name to SCRAM-SHA-256 verifier');
        }
      }
      if (typeof o !== 'object' || o === null || Array.isArray(o)) throw configError(where, key, 'expected an object of user name to SCRAM-SHA-256 verifier');
      for (const [u, ver] of Object.entries(o)) {
        if (typeof ver !== 'string' || !VERIFIER.test(ver))
          throw configError(where, `${key}.${u}`, 'expected a SCRAM-SHA-256 verifier "SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>" (paxd passwd prints one)');
      }
      return { ...(o as Record<string, string>) } as DaemonConfig[K];
    }
    default:
      return unreachable(kind);
  }
}

/**
 * A duration or size setting in `keep` units (milliseconds, bytes), from a string or number in
 * PostgreSQL's grammar; errors are PostgreSQL's (22023, with its hint), after the source.
 *
 *   withUnit(WORK_MEM, 'B', '64MB', 'flag --work-mem')   // 67108864
 */
function withUnit(setting: UnitSetting, keep: 'ms' | 'B', v: unknown, where: string): number {
  if (typeof v !== 'string' && typeof v !== 'number') throw configError(where, setting.name, `expected a ${keep === 'ms' ? 'duration' : 'size'}, got ${got(v)}`);
  try {
    return convertUnit(parseSetting(setting, v), setting.unit, keep);
  } catch (e) {
    if (!(e instanceof PaxdError)) throw e;
    throw new PaxdError('usage', e.code, `${where}: ${e.message}`, e.hint === undefined ? {} : { hint: e.hint });
  }
}

/** A config file: JSON (`.json`) or a flat TOML subset (anything else; see parseToml). */
function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new PaxdError('io', SQLSTATE.io_error, `could not read config file "${file}": ${(e as Error).message}`, { file, cause: e });
  }
  if (file.endsWith('.json')) {
    let o: unknown;
    try {
      o = JSON.parse(text);
    } catch (e) {
      throw new PaxdError('usage', SQLSTATE.invalid_parameter_value, `config file ${file}: invalid JSON: ${(e as Error).message}`, { file });
    }
    if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new PaxdError('usage', SQLSTATE.invalid_parameter_value, `config file ${file}: expected a JSON object`, { file });
    return o as Record<string, unknown>;
  }
  return parseToml(text, file);
}

/**
 * The TOML paxd's config needs: `key = value` lines (strings in double or single quotes,
 * integers, floats, true/false), `#` comments, and one table, `[users]`, of quoted strings.
 *
 *   store = "/var/lib/paxd"
 *   on_error = "skip"
 *   [users]
 *   alice = "SCRAM-SHA-256$4096:…"
 */
export function parseToml(text: string, file = 'config'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let section: Record<string, unknown> = out;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const bad = (what: string) => new PaxdError('usage', SQLSTATE.invalid_parameter_value, `config file ${file}:${i + 1}: ${what}`, { file, line: i + 1 });
    const sec = /^\[\s*([A-Za-z_][A-Za-z0-9_]*)\s*\]$/.exec(line);
    if (sec !== null) {
      const t: Record<string, unknown> = {};
      out[sec[1]!] = t;
      section = t;
      continue;
    }
    const kv = /^("(?:[^"\\]|\\.)*"|[A-Za-z0-9_-]+)\s*=\s*(.*)$/.exec(line);
    if (kv === null) throw bad(`expected key = value, got ${JSON.stringify(line)}`);
    const key = kv[1]!.startsWith('"') ? (JSON.parse(kv[1]!) as string) : kv[1]!;
    section[key] = tomlValue(kv[2]!.replace(/\s+#[^"']*$/, '').trim(), bad);
  }
  return out;
}

function tomlValue(s: string, bad: (what: string) => PaxdError): unknown {
  if (s.startsWith('"')) {
    try {
      return JSON.parse(s) as string;
    } catch {
      throw bad(`invalid string ${s}`);
    }
  }
  if (s.startsWith("'")) {
    if (!s.endsWith("'") || s.length < 2) throw bad(`invalid string ${s}`);
    return s.slice(1, -1);
  }
  if (s === 'true') return true;
  if (s === 'false') return false;
  if (/^[+-]?\d[\d_]*(\.\d+)?([eE][+-]?\d+)?$/.test(s)) return Number(s.replace(/_/g, ''));
  throw bad(`unsupported value ${s}`);
}

/**
 * Run-time parameters a session has (SET / SHOW / RESET and the startup packet), with the
 * ones PostgreSQL reports to clients in ParameterStatus (GUC_REPORT). A value paxd would not
 * honour in its output (DateStyle other than ISO, …) is refused with 0A000 rather than
 * accepted and ignored: the text format must stay exactly PostgreSQL's under the settings the
 * client believes are in force. TimeZone takes what PostgreSQL's check_timezone takes
 * (../../types/timezone.ts) and shows its canonical spelling; an unknown zone is 22023.
 *
 *   const p = new SessionParams({ user: 'app', applicationName: 'psql' });
 *   p.set('datestyle', 'iso, mdy')   // { name: 'DateStyle', value: 'ISO, MDY', report: true }
 *   p.set('timezone', 'europe/berlin') // { name: 'TimeZone', value: 'Europe/Berlin', report: true }
 *   p.set('timezone', '+02')         // value '<+02>-02': two hours east (POSIX sign in the name)
 */
import {
  PaxdError,
  SQLSTATE,
  featureNotSupported,
  formatSetting,
  parseSetting,
  IDLE_IN_TRANSACTION_SESSION_TIMEOUT,
  IDLE_SESSION_TIMEOUT,
  LOCK_TIMEOUT,
  STATEMENT_TIMEOUT,
  WORK_MEM,
  type TimeZone,
  type UnitSetting,
  UTC,
  fixedZone,
  parseInterval,
  timeZoneSetting,
} from '../../types/index.js';
import { invalidParameterValue, unknownParameter } from '../codec/errors.js';
import { DEFAULT_WORK_MEM, SERVER_VERSION } from '../../engine/index.js';
import { SettingStack } from './setting-stack.js';

interface ParamSpec {
  /** PostgreSQL's spelling, the one ParameterStatus and SHOW use. */
  readonly name: string;
  /** Sent in ParameterStatus at startup and whenever it changes. */
  readonly report: boolean;
  readonly initial: (s: SessionIdentity) => string;
  /** Null for read-only parameters; else the canonical value, or throws. */
  readonly canonical: ((value: string) => string) | null;
  /** SHOW prints this other parameter's value (transaction_isolation shows the default's). */
  readonly follows?: string;
}

export interface SessionIdentity {
  readonly user: string;
  readonly applicationName: string;
  /** The server's work_mem in bytes (default: the engine's). */
  readonly workMem?: number;
  /** The server's statement_timeout in ms (default 0: none). */
  readonly statementTimeoutMs?: number;
  /** The server's TimeZone (default UTC). */
  readonly timeZone?: TimeZone;
}

/** What `server_version` says (version() begins with it: the engine's, src/engine/functions/system.ts). */
export { SERVER_VERSION };

/** check_timezone: the zone, or 22023 as PostgreSQL words it. */
function zoneOf(v: string): TimeZone {
  const iv = /^interval\s*'(.*)'$/is.exec(v);
  if (iv !== null) {
    // SET TIME ZONE INTERVAL '…' (./statements.ts passes it on so): hours east, without months or days.
    const p = parseInterval(iv[1]!);
    const why = p.months !== 0 ? 'Cannot specify months in time zone interval.' : p.days !== 0 ? 'Cannot specify days in time zone interval.' : null;
    const east = Number(p.us / 1000000n);
    if (why === null && Math.abs(east) < 168 * 3600) return fixedZone(east);
    throw new PaxdError('invalid_input', SQLSTATE.invalid_parameter_value, `invalid value for parameter "TimeZone": "${v}"`, { detail: why ?? 'UTC timezone offset is out of range.' });
  }
  const z = timeZoneSetting(v);
  if (z === null) {
    // check_timezone's detail for a number of hours it cannot turn into a zone.
    const detail = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(v) ? { detail: 'UTC timezone offset is out of range.' } : {};
    throw new PaxdError('invalid_input', SQLSTATE.invalid_parameter_value, `invalid value for parameter "TimeZone": "${v}"`, detail);
  }
  return z;
}

function anything(v: string): string {
  return v;
}

function notHonoured(name: string, value: string, why: string): PaxdError {
  return new PaxdError('unsupported', SQLSTATE.feature_not_supported, `${name} "${value}" is not supported: ${why}`);
}

/**
 * parse_bool (utils/adt/bool.c): any prefix of true/false/yes/no, on, of/off, 1, 0, in any case;
 * else 22023 `parameter "jit" requires a Boolean value`.
 */
function onOff(name: string, v: string): boolean {
  const l = v.trim().toLowerCase();
  if (l !== '') {
    if ('true'.startsWith(l) || 'yes'.startsWith(l) || l === 'on' || l === '1') return true;
    if ('false'.startsWith(l) || 'no'.startsWith(l) || (l.length >= 2 && 'off'.startsWith(l)) || l === '0') return false;
  }
  throw new PaxdError('invalid_input', SQLSTATE.invalid_parameter_value, `parameter "${name}" requires a Boolean value`);
}

/** A Boolean parameter paxd accepts either way (its SHOW value is on or off). */
function bool(name: string, initial: 'on' | 'off'): ParamSpec {
  return { name, report: false, initial: () => initial, canonical: (v) => (onOff(name, v) ? 'on' : 'off') };
}

/** A Boolean parameter paxd honours only at `value`: the other is 0A000 saying why. */
function boolOnly(name: string, value: 'on' | 'off', why: string): ParamSpec {
  return {
    name,
    report: false,
    initial: () => value,
    canonical: (v) => {
      if ((onOff(name, v) ? 'on' : 'off') === value) return value;
      throw notHonoured(name, v, why);
    },
  };
}

/**
 * An enum parameter (guc.c config_enum): the value matched case-insensitively, SHOW printing
 * the first option of the same meaning (`synchronous_commit = true` shows `on`); else 22023
 * with PostgreSQL's HINT listing the options that are not hidden. `honoured` says which
 * meanings paxd honours (others are 0A000, `why`).
 */
function enumeration(name: string, initial: string, options: readonly (readonly [option: string, meaning: string, hidden?: boolean])[], honoured?: { readonly meanings: readonly string[]; readonly why: string }): ParamSpec {
  return {
    name,
    report: false,
    initial: () => initial,
    canonical: (v) => {
      const hit = options.find(([o]) => o === v.trim().toLowerCase());
      if (hit === undefined) {
        const shown = options.filter(([, , hidden]) => hidden !== true).map(([o]) => o);
        throw new PaxdError('invalid_input', SQLSTATE.invalid_parameter_value, `invalid value for parameter "${name}": "${v}"`, { hint: `Available values: ${shown.join(', ')}.` });
      }
      if (honoured !== undefined && !honoured.meanings.includes(hit[1])) throw notHonoured(name, v, honoured.why);
      return options.find(([, m]) => m === hit[1])![0];
    },
  };
}

/** An integer parameter without a unit (guc.c parse_int: a fraction rounds), in [min, max]. */
function integer(name: string, initial: number, min: number, max: number): ParamSpec {
  return {
    name,
    report: false,
    initial: () => String(initial),
    canonical: (v) => {
      const t = v.trim();
      if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) throw new PaxdError('invalid_input', SQLSTATE.invalid_parameter_value, `invalid value for parameter "${name}": "${v}"`);
      const x = Number(t);
      // C's rint: half to even.
      const r = Math.abs(x % 1) === 0.5 ? 2 * Math.round(x / 2) : Math.round(x);
      if (r < min || r > max) throw new PaxdError('invalid_input', SQLSTATE.invalid_parameter_value, `${r} is outside the valid range for parameter "${name}" (${min} .. ${max})`);
      return String(r);
    },
  };
}

/** The planner's switches (PostgreSQL 15 docs 20.7.1); paxd's planner has none, so they change nothing. */
const PLANNER_SWITCHES: readonly (readonly [string, 'on' | 'off'])[] = [
  ['enable_async_append', 'on'],
  ['enable_bitmapscan', 'on'],
  ['enable_gathermerge', 'on'],
  ['enable_hashagg', 'on'],
  ['enable_hashjoin', 'on'],
  ['enable_incremental_sort', 'on'],
  ['enable_indexscan', 'on'],
  ['enable_indexonlyscan', 'on'],
  ['enable_material', 'on'],
  ['enable_memoize', 'on'],
  ['enable_mergejoin', 'on'],
  ['enable_nestloop', 'on'],
  ['enable_parallel_append', 'on'],
  ['enable_parallel_hash', 'on'],
  ['enable_partition_pruning', 'on'],
  ['enable_partitionwise_join', 'off'],
  ['enable_partitionwise_aggregate', 'off'],
  ['enable_seqscan', 'on'],
  ['enable_sort', 'on'],
  ['enable_tidscan', 'on'],
];

/** guc.c client_message_level_options (hidden: accepted, not listed in the HINT). */
const MESSAGE_LEVELS = [
  ['debug5', 'debug5'],
  ['debug4', 'debug4'],
  ['debug3', 'debug3'],
  ['debug2', 'debug2'],
  ['debug1', 'debug1'],
  ['debug', 'debug2', true],
  ['log', 'log'],
  ['info', 'info', true],
  ['notice', 'notice'],
  ['warning', 'warning'],
  ['error', 'error'],
] as const;

/** Message levels in PostgreSQL's order (elog.h), for client_min_messages. */
const LEVEL_RANK: Readonly<Record<string, number>> = { debug5: 10, debug4: 11, debug3: 12, debug2: 13, debug1: 14, log: 15, info: 17, notice: 18, warning: 19, error: 21 };

const ISOLATION_LEVELS = [
  ['serializable', 'serializable'],
  ['repeatable read', 'repeatable read'],
  ['read committed', 'read committed'],
  ['read uncommitted', 'read uncommitted'],
] as const;

/** quote_identifier: an identifier that is not all lower-case letters, digits, _ (not first a digit) gets double quotes. */
function quoteIdentifier(s: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(s) ? s : `"${s.replace(/"/g, '""')}"`;
}

/**
 * search_path as SHOW prints it (GUC_LIST_QUOTE): the names separated by ", ", each quoted as
 * an identifier when it needs it. SET's arguments arrive joined by ", "; names already in
 * double quotes (the startup packet's text) stay as they are.
 */
function searchPath(v: string): string {
  if (v.trim() === '') return '""';
  return v
    .split(',')
    .map((s) => s.trim())
    .map((s) => (s.startsWith('"') && s.endsWith('"') && s.length > 1 ? s : quoteIdentifier(s)))
    .join(', ');
}

/** check_application_name (PostgreSQL 15): every byte outside printable ASCII becomes '?'. */
function cleanAscii(v: string): string {
  let out = '';
  for (const b of Buffer.from(v, 'utf8')) out += b >= 32 && b <= 126 ? String.fromCharCode(b) : '?';
  return out;
}

/** A duration or size parameter: PostgreSQL's grammar and SHOW form (../types/units.ts). */
function withUnit(setting: UnitSetting, initial: (s: SessionIdentity) => string): ParamSpec {
  return { name: setting.name, report: false, initial, canonical: (v) => formatSetting(setting, parseSetting(setting, v)) };
}

const UNIT_SETTINGS: ReadonlyMap<string, UnitSetting> = new Map(
  [STATEMENT_TIMEOUT, IDLE_IN_TRANSACTION_SESSION_TIMEOUT, IDLE_SESSION_TIMEOUT, LOCK_TIMEOUT, WORK_MEM].map((u) => [u.name, u]),
);

const SPECS: readonly ParamSpec[] = [
  { name: 'server_version', report: true, initial: () => SERVER_VERSION, canonical: null },
  { name: 'server_encoding', report: true, initial: () => 'UTF8', canonical: null },
  {
    name: 'client_encoding',
    report: true,
    initial: () => 'UTF8',
    canonical: (v) => {
      if (/^(utf-?8|unicode)$/i.test(v)) return 'UTF8';
      throw notHonoured('client_encoding', v, 'paxd speaks UTF8 only');
    },
  },
  {
    name: 'DateStyle',
    report: true,
    initial: () => 'ISO, MDY',
    canonical: (v) => {
      for (const part of v.split(',').map((s) => s.trim().toUpperCase())) {
        if (part === 'ISO' || part === 'MDY' || part === 'US' || part === 'NONEURO' || part === 'NONEUROPEAN' || part === 'DEFAULT') continue;
        throw notHonoured('DateStyle', v, 'paxd prints dates as ISO, MDY');
      }
      return 'ISO, MDY';
    },
  },
  {
    name: 'IntervalStyle',
    report: true,
    initial: () => 'postgres',
    canonical: (v) => {
      if (v.toLowerCase() === 'postgres') return 'postgres';
      throw notHonoured('IntervalStyle', v, 'paxd prints intervals in the postgres style');
    },
  },
  {
    name: 'TimeZone',
    report: true,
    initial: (s) => s.timeZone?.name ?? 'UTC',
    canonical: (v) => zoneOf(v).name,
  },
  { name: 'integer_datetimes', report: true, initial: () => 'on', canonical: null },
  {
    name: 'standard_conforming_strings',
    report: true,
    initial: () => 'on',
    canonical: (v) => {
      if (onOff('standard_conforming_strings', v)) return 'on';
      throw notHonoured('standard_conforming_strings', v, 'paxd always treats backslashes in strings literally');
    },
  },
  { name: 'application_name', report: true, initial: (s) => cleanAscii(s.applicationName), canonical: cleanAscii },
  { name: 'is_superuser', report: true, initial: () => 'off', canonical: null },
  { name: 'session_authorization', report: true, initial: (s) => s.user, canonical: null },
  // Recorded and shown; paxd resolves unqualified names in its schemas whatever the path says.
  { name: 'search_path', report: false, initial: () => '"$user", public', canonical: searchPath },
  {
    name: 'extra_float_digits',
    report: false,
    initial: () => '1',
    canonical: (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < -15 || n > 3) throw invalidParameterValue('extra_float_digits', v, 'an integer from -15 to 3');
      // PostgreSQL 12+: any value > 0 prints the shortest exact form, which is what paxd prints.
      if (n <= 0) throw notHonoured('extra_float_digits', v, 'paxd prints floats in the shortest exact form (extra_float_digits 1 to 3)');
      return String(n);
    },
  },
  // Enforced by the session (57014, 25P03, 57P05); lock_timeout has nothing to wait on in paxd.
  withUnit(STATEMENT_TIMEOUT, (s) => formatSetting(STATEMENT_TIMEOUT, s.statementTimeoutMs ?? 0)),
  withUnit(IDLE_IN_TRANSACTION_SESSION_TIMEOUT, () => '0'),
  withUnit(IDLE_SESSION_TIMEOUT, () => '0'),
  withUnit(LOCK_TIMEOUT, () => '0'),
  // The memory one statement may use (the engine's hash joins); the server's default, or SET per session.
  withUnit(WORK_MEM, (s) => formatSetting(WORK_MEM, Math.floor((s.workMem ?? DEFAULT_WORK_MEM) / 1024))),
  // Every level runs as snapshot isolation (docs/WIRE.md "Transactions"), REPEATABLE READ's behaviour: SHOW says so.
  // SHOW transaction_isolation is default_transaction_isolation's, as in PostgreSQL outside a
  // block; SET of it is checked and changes nothing (a block's level is snapshot isolation too).
  { ...enumeration('transaction_isolation', 'repeatable read', ISOLATION_LEVELS), follows: 'default_transaction_isolation' },
  enumeration('default_transaction_isolation', 'repeatable read', ISOLATION_LEVELS),
  {
    name: 'default_transaction_read_only',
    report: true,
    initial: () => 'off',
    canonical: (v) => (onOff('default_transaction_read_only', v) ? 'on' : 'off'),
  },
  { name: 'in_hot_standby', report: true, initial: () => 'off', canonical: null },
  // Which notices the client gets: paxd's are WARNINGs (transaction control), dropped at `error`.
  enumeration('client_min_messages', 'notice', MESSAGE_LEVELS),
  enumeration('bytea_output', 'hex', [['escape', 'escape'], ['hex', 'hex']], { meanings: ['hex'], why: 'paxd prints bytea in hex' }),
  {
    name: 'lc_messages',
    report: false,
    initial: () => 'C',
    canonical: (v) => {
      if (/^(|C|POSIX|C\.(UTF-?8|utf-?8)|en(_[A-Z]{2})?(\.(UTF-?8|utf-?8))?)$/.test(v)) return v;
      throw notHonoured('lc_messages', v, 'paxd writes its messages in English');
    },
  },
  // Accepted and shown, changing nothing in paxd (no JIT, no replication, no row security, no
  // genetic optimizer, no parallel plans of PostgreSQL's kind, no function bodies, no XML).
  ...PLANNER_SWITCHES.map(([name, initial]) => bool(name, initial)),
  bool('jit', 'on'),
  bool('geqo', 'on'),
  bool('row_security', 'on'),
  bool('check_function_bodies', 'on'),
  bool('synchronize_seqscans', 'on'),
  bool('escape_string_warning', 'on'),
  boolOnly('array_nulls', 'on', 'paxd always reads NULL in an array literal as a NULL element'),
  boolOnly('quote_all_identifiers', 'off', 'paxd quotes identifiers only where they need it'),
  integer('max_parallel_workers_per_gather', 2, 0, 1024),
  // paxd makes every commit durable before answering; `off` asks for less, which it gives too.
  enumeration('synchronous_commit', 'on', [
    ['local', 'local'],
    ['remote_write', 'remote_write'],
    ['remote_apply', 'remote_apply'],
    ['on', 'on'],
    ['off', 'off'],
    ['true', 'on', true],
    ['false', 'off', true],
    ['yes', 'on', true],
    ['no', 'off', true],
    ['1', 'on', true],
    ['0', 'off', true],
  ]),
  enumeration('xmloption', 'content', [['content', 'content'], ['document', 'document']]),
  { name: 'default_tablespace', report: false, initial: () => '', canonical: anything },
  {
    name: 'default_table_access_method',
    report: false,
    initial: () => 'heap',
    canonical: (v) => {
      if (v === 'heap') return v;
      throw new PaxdError('invalid_input', SQLSTATE.invalid_parameter_value, `invalid value for parameter "default_table_access_method": "${v}"`, { detail: `Table access method "${v}" does not exist.` });
    },
  },
];

const BY_KEY: ReadonlyMap<string, ParamSpec> = new Map(SPECS.map((s) => [s.name.toLowerCase(), s]));

function specOf(name: string): ParamSpec {
  const spec = BY_KEY.get(name.toLowerCase());
  if (spec === undefined) throw unknownParameter(name);
  return spec;
}

/** 55P02: SET of a read-only parameter. */
function readOnly(name: string): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.cant_change_runtime_param, `parameter "${name}" cannot be changed`);
}

export interface ParamChange {
  readonly name: string;
  readonly value: string;
  readonly report: boolean;
}

export class SessionParams {
  private readonly values = new Map<string, string>();
  /** Values the startup packet gave: RESET returns to them, as PostgreSQL's reset_val. */
  private readonly defaults = new Map<string, string>();
  /** What ends with the transaction or savepoint that SET in it (./setting-stack.ts). */
  private readonly stack = new SettingStack(this.values);

  constructor(private readonly identity: SessionIdentity) {
    for (const s of SPECS) this.values.set(s.name, s.initial(identity));
  }

  /** The session's authenticated user, whose privileges its statements are checked against (src/engine/access.ts). */
  get user(): string {
    return this.identity.user;
  }

  /** Every reported parameter, for the ParameterStatus messages after authentication. */
  reported(): ParamChange[] {
    return SPECS.filter((s) => s.report).map((s) => ({ name: s.name, value: this.values.get(s.name)!, report: true }));
  }

  /** SET (`local`: SET LOCAL, which lasts until the end of the transaction; nothing outside one). */
  set(name: string, value: string, local = false): ParamChange {
    const spec = specOf(name);
    if (spec.canonical === null) throw readOnly(spec.name);
    const v = spec.canonical(value);
    return this.change(spec, v, local);
  }

  /**
   * set_config(name, value, is_local): SET with the value as the function got it, not as SET's
   * arguments are flattened: search_path keeps its text as given (`''` stays empty, where
   * SET search_path = '' shows `""`). is_local outside a transaction block is 0A000: PostgreSQL
   * keeps it until the end of the statement's own transaction, which the session has no stack for.
   */
  setConfig(name: string, value: string, local: boolean): ParamChange {
    const spec = specOf(name);
    if (spec.canonical === null) throw readOnly(spec.name);
    if (local && !this.stack.inTransaction) throw featureNotSupported('set_config(name, value, true) outside a transaction block');
    return this.change(spec, spec.name === 'search_path' ? value : spec.canonical(value), local);
  }

  private change(spec: ParamSpec, v: string, local: boolean): ParamChange {
    // SET LOCAL outside a transaction ends with its own one-statement transaction: no effect.
    if (local && !this.stack.inTransaction) return { name: spec.name, value: this.values.get(spec.name)!, report: spec.report };
    this.stack.willChange(spec.name, local);
    this.values.set(spec.name, v);
    return { name: spec.name, value: v, report: spec.report };
  }

  /** Whether a transaction is open for the parameters (SET LOCAL has an effect). */
  get inTransaction(): boolean {
    return this.stack.inTransaction;
  }

  /** A transaction block begins: SETs from now on are undone by its ROLLBACK, SET LOCALs end with it. */
  beginTransaction(): void {
    this.stack.begin();
  }

  /** SAVEPOINT: SETs from now on are undone by ROLLBACK TO it. */
  savepoint(): void {
    this.stack.savepoint();
  }

  /** COMMIT (`commit`) or ROLLBACK of the transaction: the values changed back. */
  endTransaction(commit: boolean): ParamChange[] {
    return this.changes(this.stack.end(commit, 1));
  }

  /**
   * A statement failed in a transaction block: what was SET in its innermost level (the
   * transaction, or the newest savepoint) is undone at once, as AbortTransaction /
   * AbortSubTransaction do before the block waits for its ROLLBACK.
   */
  abortInnermost(): ParamChange[] {
    const depth = this.stack.depth;
    return depth === 0 ? [] : this.changes(this.stack.end(false, depth));
  }

  /** RELEASE of the savepoint at `index` (0: the first) and those after it. */
  releaseSavepoint(index: number): ParamChange[] {
    return this.changes(this.stack.end(true, index + 2));
  }

  /** ROLLBACK TO the savepoint at `index`: what was SET since it is undone; the savepoint stays. */
  rollbackToSavepoint(index: number): ParamChange[] {
    const c = this.changes(this.stack.end(false, index + 2));
    this.stack.savepoint();
    return c;
  }

  private changes(names: readonly string[]): ParamChange[] {
    return names.map((n) => ({ name: n, value: this.values.get(n)!, report: specOf(n).report }));
  }

  /** A startup packet's value: set, and the value RESET returns to. */
  setDefault(name: string, value: string): ParamChange {
    const c = this.set(name, value);
    this.defaults.set(c.name, c.value);
    return c;
  }

  /** RESET, SET … TO DEFAULT (`local`: SET LOCAL … TO DEFAULT). */
  reset(name: string, local = false): ParamChange {
    const spec = specOf(name);
    if (spec.canonical === null) throw readOnly(spec.name);
    return this.change(spec, this.defaults.get(spec.name) ?? spec.initial(this.identity), local);
  }

  resetAll(): ParamChange[] {
    return SPECS.filter((s) => s.canonical !== null).map((s) => this.reset(s.name));
  }

  /** The TimeZone setting as a zone, for the statements of the session. */
  get timeZone(): TimeZone {
    const name = this.values.get('TimeZone')!;
    return name === 'UTC' ? UTC : zoneOf(name);
  }

  /** work_mem in bytes. */
  get workMem(): number {
    return parseSetting(WORK_MEM, this.show('work_mem').value) * 1024;
  }

  /** A time-valued parameter in milliseconds (0: disabled). */
  milliseconds(name: string): number {
    const setting = UNIT_SETTINGS.get(specOf(name).name);
    if (setting === undefined || setting.unit !== 'ms') throw new PaxdError('internal', SQLSTATE.internal_error, `internal error: ${name} is not a parameter in milliseconds`);
    return parseSetting(setting, this.show(name).value);
  }

  /** Whether a notice of `severity` (WARNING, NOTICE, …) goes to the client under client_min_messages. */
  sendsNotice(severity: string): boolean {
    return (LEVEL_RANK[severity.toLowerCase()] ?? LEVEL_RANK['warning']!) >= LEVEL_RANK[this.show('client_min_messages').value]!;
  }

  show(name: string): { readonly name: string; readonly value: string } {
    const spec = specOf(name);
    return { name: spec.name, value: this.values.get(spec.follows ?? spec.name)! };
  }
}

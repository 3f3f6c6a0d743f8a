/**
 * Run-time parameters a session has (SET / SHOW / RESET and the startup packet), with the
 * ones PostgreSQL reports to clients in ParameterStatus (GUC_REPORT). A value paxd would not
 * honour in its output (DateStyle other than ISO, a TimeZone other than UTC, …) is refused
 * with 0A000 rather than accepted and ignored: the text format must stay exactly
 * PostgreSQL's under the settings the client believes are in force.
 *
 *   const p = new SessionParams({ user: 'app', applicationName: 'psql' });
 *   p.set('datestyle', 'iso, mdy')   // { name: 'DateStyle', value: 'ISO, MDY', report: true }
 *   p.show('timezone')               // { name: 'TimeZone', value: 'UTC' }
 */
import { PaxdError, SQLSTATE } from '../types/index.js';
import { invalidParameterValue, unknownParameter } from './errors.js';
import { DEFAULT_WORK_MEM } from '../engine/index.js';

interface ParamSpec {
  /** PostgreSQL's spelling, the one ParameterStatus and SHOW use. */
  readonly name: string;
  /** Sent in ParameterStatus at startup and whenever it changes. */
  readonly report: boolean;
  readonly initial: (s: SessionIdentity) => string;
  /** Null for read-only parameters; else the canonical value, or throws. */
  readonly canonical: ((value: string) => string) | null;
}

export interface SessionIdentity {
  readonly user: string;
  readonly applicationName: string;
  /** The server's work_mem in bytes (default: the engine's). */
  readonly workMem?: number;
}

const MEMORY_UNITS: Readonly<Record<string, number>> = { B: 1, kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 };

/**
 * A memory-valued parameter in bytes, as PostgreSQL reads work_mem: a number of kilobytes, or
 * a number with a unit (B, kB, MB, GB, TB; PostgreSQL's units are case-sensitive).
 *
 *   memoryBytes('work_mem', '64MB')   // 67108864
 */
export function memoryBytes(name: string, v: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(B|kB|MB|GB|TB)?\s*$/.exec(v);
  if (m === null) throw invalidParameterValue(name, v, 'a size: a number of kilobytes, or a number with unit B, kB, MB, GB or TB');
  const bytes = Math.round(Number(m[1]) * MEMORY_UNITS[m[2] ?? 'kB']!);
  if (bytes < 64 * 1024) throw invalidParameterValue(name, v, 'at least 64kB');
  return bytes;
}

/** PostgreSQL's display of a memory value: the largest unit that divides it ('4MB', '1536kB'). */
export function formatMemory(bytes: number): string {
  for (const [unit, size] of [['TB', 1024 ** 4], ['GB', 1024 ** 3], ['MB', 1024 ** 2], ['kB', 1024]] as const) if (bytes % size === 0) return `${bytes / size}${unit}`;
  return `${bytes}B`;
}

/** What `server_version` says: a real PostgreSQL version first, so libpq and postgres_fdw parse it (≥ 15: CLOSE + DECLARE rescans). */
export const SERVER_VERSION = '15.0 (paxd)';

const UTC_NAMES = new Set(['utc', 'gmt', 'etc/utc', 'etc/gmt', 'uct', 'universal', 'zulu', 'z', 'etc/universal', 'etc/zulu', 'greenwich', '0', '+0', '-0', '00:00', '+00:00']);

function anything(v: string): string {
  return v;
}

function notHonoured(name: string, value: string, why: string): PaxdError {
  return new PaxdError('unsupported', SQLSTATE.feature_not_supported, `${name} "${value}" is not supported: ${why}`);
}

function onOff(name: string, v: string): boolean {
  const l = v.toLowerCase();
  if (['on', 'true', 'yes', '1', 't', 'y'].includes(l)) return true;
  if (['off', 'false', 'no', '0', 'f', 'n'].includes(l)) return false;
  throw invalidParameterValue(name, v, 'a Boolean value (on or off)');
}

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
    initial: () => 'UTC',
    canonical: (v) => {
      if (UTC_NAMES.has(v.toLowerCase())) return v;
      throw notHonoured('TimeZone', v, 'paxd prints timestamptz in UTC');
    },
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
  { name: 'application_name', report: true, initial: (s) => s.applicationName, canonical: anything },
  { name: 'is_superuser', report: true, initial: () => 'off', canonical: null },
  { name: 'session_authorization', report: true, initial: (s) => s.user, canonical: null },
  { name: 'search_path', report: false, initial: () => '"$user", public', canonical: anything },
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
  { name: 'statement_timeout', report: false, initial: () => '0', canonical: (v) => formatDuration(durationMs('statement_timeout', v)) },
  {
    name: 'idle_in_transaction_session_timeout',
    report: false,
    initial: () => '0',
    canonical: (v) => formatDuration(durationMs('idle_in_transaction_session_timeout', v)),
  },
  { name: 'idle_session_timeout', report: false, initial: () => '0', canonical: (v) => formatDuration(durationMs('idle_session_timeout', v)) },
  { name: 'lock_timeout', report: false, initial: () => '0', canonical: (v) => formatDuration(durationMs('lock_timeout', v)) },
  // The memory one statement may use (the engine's hash joins); the server's default, or SET per session.
  { name: 'work_mem', report: false, initial: (s) => formatMemory(s.workMem ?? DEFAULT_WORK_MEM), canonical: (v) => formatMemory(memoryBytes('work_mem', v)) },
  { name: 'transaction_isolation', report: false, initial: () => 'repeatable read', canonical: anything },
  { name: 'default_transaction_isolation', report: false, initial: () => 'repeatable read', canonical: anything },
  {
    name: 'default_transaction_read_only',
    report: true,
    initial: () => 'off',
    canonical: (v) => (onOff('default_transaction_read_only', v) ? 'on' : 'off'),
  },
  { name: 'in_hot_standby', report: true, initial: () => 'off', canonical: null },
];

const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A time-valued parameter in milliseconds, as PostgreSQL's GUC parser reads it: a number
 * (milliseconds) or a number with a unit (ms, s, min, h, d).
 *
 *   durationMs('statement_timeout', '1s')   // 1000
 */
export function durationMs(name: string, v: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|min|h|d)?\s*$/.exec(v);
  if (m === null) throw invalidParameterValue(name, v, 'a duration: a number of milliseconds, or a number with unit ms, s, min, h or d');
  const ms = Math.round(Number(m[1]) * DURATION_UNITS[m[2] ?? 'ms']!);
  if (ms > 2147483647) throw invalidParameterValue(name, v, 'a duration of at most 2147483647 ms');
  return ms;
}

/** PostgreSQL's display of a time value: the largest unit that divides it ('1s', '90s', '2min'). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0';
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['min', 60_000], ['s', 1000]] as const) if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

const BY_KEY: ReadonlyMap<string, ParamSpec> = new Map(SPECS.map((s) => [s.name.toLowerCase(), s]));

function specOf(name: string): ParamSpec {
  const spec = BY_KEY.get(name.toLowerCase());
  if (spec === undefined) throw unknownParameter(name);
  return spec;
}

/** 55P02: SET of a read-only parameter. */
function readOnly(name: string): PaxdError {
  return new PaxdError('invalid_input', '55P02', `parameter "${name}" cannot be changed`);
}

export interface ParamChange {
  readonly name: string;
  readonly value: string;
  readonly report: boolean;
}

export class SessionParams {
  private readonly values = new Map<string, string>();

  constructor(private readonly identity: SessionIdentity) {
    for (const s of SPECS) this.values.set(s.name, s.initial(identity));
  }

  /** Every reported parameter, for the ParameterStatus messages after authentication. */
  reported(): ParamChange[] {
    return SPECS.filter((s) => s.report).map((s) => ({ name: s.name, value: this.values.get(s.name)!, report: true }));
  }

  set(name: string, value: string): ParamChange {
    const spec = specOf(name);
    if (spec.canonical === null) throw readOnly(spec.name);
    const v = spec.canonical(value);
    this.values.set(spec.name, v);
    return { name: spec.name, value: v, report: spec.report };
  }

  reset(name: string): ParamChange {
    const spec = specOf(name);
    if (spec.canonical === null) throw readOnly(spec.name);
    const v = spec.initial(this.identity);
    this.values.set(spec.name, v);
    return { name: spec.name, value: v, report: spec.report };
  }

  resetAll(): ParamChange[] {
    return SPECS.filter((s) => s.canonical !== null).map((s) => this.reset(s.name));
  }

  /** work_mem in bytes. */
  get workMem(): number {
    return memoryBytes('work_mem', this.show('work_mem').value);
  }

  /** A time-valued parameter in milliseconds (0: disabled). */
  milliseconds(name: string): number {
    return durationMs(name, this.show(name).value);
  }

  show(name: string): { readonly name: string; readonly value: string } {
    const spec = specOf(name);
    return { name: spec.name, value: this.values.get(spec.name)! };
  }
}

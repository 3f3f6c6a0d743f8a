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
import { DEFAULT_WORK_MEM } from '../../engine/index.js';

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
  /** The server's TimeZone (default UTC). */
  readonly timeZone?: TimeZone;
}

/** What `server_version` says: a real PostgreSQL version first, so libpq and postgres_fdw parse it (≥ 15: CLOSE + DECLARE rescans). */
export const SERVER_VERSION = '15.0 (paxd)';

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

function onOff(name: string, v: string): boolean {
  const l = v.toLowerCase();
  if (['on', 'true', 'yes', '1', 't', 'y'].includes(l)) return true;
  if (['off', 'false', 'no', '0', 'f', 'n'].includes(l)) return false;
  throw invalidParameterValue(name, v, 'a Boolean value (on or off)');
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
  withUnit(STATEMENT_TIMEOUT, () => '0'),
  withUnit(IDLE_IN_TRANSACTION_SESSION_TIMEOUT, () => '0'),
  withUnit(IDLE_SESSION_TIMEOUT, () => '0'),
  withUnit(LOCK_TIMEOUT, () => '0'),
  // The memory one statement may use (the engine's hash joins); the server's default, or SET per session.
  withUnit(WORK_MEM, (s) => formatSetting(WORK_MEM, Math.floor((s.workMem ?? DEFAULT_WORK_MEM) / 1024))),
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

  /** A startup packet's value: set, and the value RESET returns to. */
  setDefault(name: string, value: string): ParamChange {
    const c = this.set(name, value);
    this.defaults.set(c.name, c.value);
    return c;
  }

  reset(name: string): ParamChange {
    const spec = specOf(name);
    if (spec.canonical === null) throw readOnly(spec.name);
    const v = this.defaults.get(spec.name) ?? spec.initial(this.identity);
    this.values.set(spec.name, v);
    return { name: spec.name, value: v, report: spec.report };
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

  show(name: string): { readonly name: string; readonly value: string } {
    const spec = specOf(name);
    return { name: spec.name, value: this.values.get(spec.name)! };
  }
}

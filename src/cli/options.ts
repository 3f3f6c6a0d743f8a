/**
 * What the commands share: the I/O they print through, `--data`, and the parsers of flag
 * values. Light on purpose: a command's module loads this and commander, and nothing of the
 * layers below until its action runs (./main.ts).
 */
import type { Command } from 'commander';
import { DEFAULT_DATA } from '../storage/index.js';
import { PaxdError, SQLSTATE, usage } from '../types/errors.js';
import { parseSetting, type UnitSetting } from '../types/units.js';
import { type TimeZone, timeZoneSetting } from '../types/timezone.js';

/** Where a command prints its results (tests capture it). */
export interface Io {
  readonly out: (s: string) => void;
}

/** `--timezone ZONE`: the session TimeZone of the command (`what` says what it applies to). */
export function timeZoneOption(cmd: Command, what: string): Command {
  return cmd.option('--timezone <zone>', `the session TimeZone ${what} (default: $PGTZ, else UTC)`);
}

/**
 * The zone `--timezone` names, else PGTZ (libpq's variable, as psql's sessions), else undefined
 * (UTC). TZ, the OS's zone, is not read. An unknown zone is PostgreSQL's 22023.
 */
export function sessionTimeZone(flag: string | undefined): TimeZone | undefined {
  const text = flag ?? (process.env['PGTZ'] || undefined);
  if (text === undefined) return undefined;
  const zone = timeZoneSetting(text);
  if (zone === null) throw usage(`invalid value for parameter "TimeZone": "${text}"`);
  return zone;
}

/** `--data URI`, defaulting to PAXD_DATA, then ./paxd-data. */
export function dataOption(cmd: Command): Command {
  return cmd.option('--data <uri>', 'store root: a folder or s3://bucket/prefix (env PAXD_DATA)', process.env.PAXD_DATA ?? DEFAULT_DATA);
}

export function positiveInt(name: string): (s: string) => number {
  return (s) => {
    const n = Number(s);
    if (!Number.isInteger(n) || n <= 0) throw new PaxdError('usage', SQLSTATE.invalid_parameter_value, `${name} must be a positive integer, got "${s}"`);
    return n;
  };
}

export function nonNegativeInt(name: string): (s: string) => number {
  return (s) => {
    const n = Number(s);
    if (!Number.isInteger(n) || n < 0) throw new PaxdError('usage', SQLSTATE.invalid_parameter_value, `${name} must be a non-negative integer, got "${s}"`);
    return n;
  };
}

/**
 * A flag holding a duration or size, read as the setting it sets (../types/units.ts); an error
 * names the flag as the daemon's config errors name their source.
 *
 *   unitFlag('--grace', VACUUM_GRACE)('1.5min')   // 90000
 */
export function unitFlag(flag: string, setting: UnitSetting): (s: string) => number {
  return (s) => {
    try {
      return parseSetting(setting, s);
    } catch (e) {
      if (!(e instanceof PaxdError)) throw e;
      throw new PaxdError('usage', e.code, `flag ${flag}: ${e.message}`, e.hint === undefined ? {} : { hint: e.hint });
    }
  };
}

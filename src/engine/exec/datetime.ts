/**
 * Date, timestamp and interval kernels with PostgreSQL 15's semantics (docs 9.9 "Date/Time
 * Functions and Operators"; utils/adt/date.c, timestamp.c, datetime.c):
 *
 *   timestampPlusInterval(ts('2024-01-31'), iv('1 month'))  // 2024-02-29 00:00:00 (day clamped)
 *   dateTrunc('week', ts('2024-05-17 10:00'), 'timestamp')  // 2024-05-13 00:00:00 (ISO Monday)
 *   extractField('second', 'timestamp', ts('… 10:11:12.5'), 'numeric')  // '12.500000'
 *
 * Engine values: date = int32 days since 1970-01-01, timestamp and timestamptz = bigint µs
 * since 1970-01-01 00:00 (UTC for timestamptz), interval = 16 bytes (../../types/interval.ts).
 * timestamptz is split into fields, truncated and shifted by months and days in the local time
 * of the session's zone (../context.ts currentTimeZone, ../../types/timezone.ts), as
 * timestamp2tm/DetermineTimeZoneOffset do in PostgreSQL:
 *
 *   SET TimeZone = 'Europe/Berlin';
 *   date_trunc('day', timestamptz '2024-03-31 12:00+02')  // 2024-03-31 00:00:00+01
 *   timestamptz '2024-03-30 12:00+01' + interval '1 day'   // 2024-03-31 12:00:00+02 (23 h later)
 *
 * One concept in one file (over 600 lines): the engine's date/time kernels, which share the
 * field splitting and the month/day arithmetic of PostgreSQL's timestamp.c.
 */
import { type PgType, type TimeZone, type Value, SQLSTATE, UTC, unreachable, type DateUnit, DATE_END_JD, DATEVAL_NOBEGIN, DATEVAL_NOEND, TS_END_US, TS_MIN_US, TS_NOBEGIN, TS_NOEND, UNIX_EPOCH_JD, date2j, daysInMonth, j2date, j2day, offsetForLocal, unitOf, US_PER_DAY, intervalParts, makeInterval, zoneArgument, formatInterval } from '../../types/index.js';
import type { DateTimeFn, Expr } from '../expr.js';
import { SqlError, divisionByZero } from '../errors.js';
import { currentTimeZone } from '../context.js';
import { numericDiv } from './numeric.js';

const US_PER_SECOND = 1_000_000n;

export function isFiniteDate(d: number): boolean {
  return d !== DATEVAL_NOBEGIN && d !== DATEVAL_NOEND;
}

export function isFiniteTimestamp(us: bigint): boolean {
  return us !== TS_NOBEGIN && us !== TS_NOEND;
}

export function dateOutOfRange(): SqlError {
  return new SqlError('invalid_input', SQLSTATE.datetime_field_overflow, 'date out of range');
}

export function timestampOutOfRange(): SqlError {
  return new SqlError('invalid_input', SQLSTATE.datetime_field_overflow, 'timestamp out of range');
}

function checkDate(days: number): number {
  const jd = days + UNIX_EPOCH_JD;
  if (!Number.isSafeInteger(days) || jd < 0 || jd >= DATE_END_JD) throw dateOutOfRange();
  return days;
}

function checkTimestamp(us: bigint): bigint {
  if (us < TS_MIN_US || us >= TS_END_US) throw timestampOutOfRange();
  return us;
}

/** date + integer (date_pli), date - integer (date_mii): 22008 outside the date range. */
export function dateAddDays(date: number, days: number): number {
  if (!isFiniteDate(date)) return date;
  return checkDate(date + days);
}

/** date - date (date_mi): the number of days, an integer. */
export function dateDiff(a: number, b: number): number {
  if (!isFiniteDate(a) || !isFiniteDate(b)) throw new SqlError('invalid_input', SQLSTATE.datetime_field_overflow, 'cannot subtract infinite dates');
  return a - b;
}

/** date to timestamp at midnight (date2timestamp). */
export function dateToTimestamp(date: number): bigint {
  if (!isFiniteDate(date)) return date === DATEVAL_NOEND ? TS_NOEND : TS_NOBEGIN;
  return checkTimestamp(BigInt(date) * US_PER_DAY);
}

/** timestamp to date (timestamp_date): the day it falls in; infinities map to infinities. */
export function timestampToDate(us: bigint): number {
  if (!isFiniteTimestamp(us)) return us === TS_NOEND ? DATEVAL_NOEND : DATEVAL_NOBEGIN;
  return splitTimestamp(us)[0];
}

/** Whole seconds since 1970 (rounded down) of a µs count. */
function secondsOf(us: bigint): number {
  return Number(us >= 0n ? us / US_PER_SECOND : -((-us + US_PER_SECOND - 1n) / US_PER_SECOND));
}

/** The offset east (s) of `zone` at the instant `us`. */
function offsetAt(us: bigint, zone: TimeZone): number {
  return zone.offsetAt(secondsOf(us));
}

/** timestamptz to timestamp (timestamptz2timestamp): the local time in `zone`. */
export function timestamptzToTimestamp(us: bigint, zone: TimeZone): bigint {
  if (!isFiniteTimestamp(us) || zone === UTC) return us;
  return checkTimestamp(us + BigInt(offsetAt(us, zone)) * US_PER_SECOND);
}

/** timestamp to timestamptz (timestamp2timestamptz): the local time read in `zone` (DetermineTimeZoneOffset). */
export function timestampToTimestamptz(local: bigint, zone: TimeZone): bigint {
  if (!isFiniteTimestamp(local) || zone === UTC) return local;
  return checkTimestamp(local - BigInt(offsetForLocal(zone, secondsOf(local))) * US_PER_SECOND);
}

/**
 * timezone(zone, timestamptz) and `timestamptz AT TIME ZONE zone` (timestamptz_zone): the
 * local time there, a timestamp; timezone(zone, timestamp) (timestamp_zone) reads a local
 * time there, a timestamptz. The zone is an abbreviation, a zone name or a POSIX spec
 * ('+05' is POSIX: five hours west), else 22023.
 */
export function atTimeZone(zoneText: string, v: bigint, from: 'timestamp' | 'timestamptz'): bigint {
  const zone = zoneOf(zoneText);
  if (!isFiniteTimestamp(v)) return v;
  return from === 'timestamptz' ? timestamptzToTimestamp(v, zone) : timestampToTimestamptz(v, zone);
}

/** timestamp_izone / timestamptz_izone: AT TIME ZONE INTERVAL '…' is a fixed offset east. */
function atInterval(iv: Uint8Array, v: bigint, from: 'timestamp' | 'timestamptz'): bigint {
  const p = intervalParts(iv);
  if (p.months !== 0 || p.days !== 0) throw new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, `interval time zone "${formatInterval(iv)}" must not include months or days`);
  if (!isFiniteTimestamp(v)) return v;
  const off = (p.us / US_PER_SECOND) * US_PER_SECOND;
  return checkTimestamp(from === 'timestamptz' ? v + off : v - off);
}

const zoneArgs = new Map<string, TimeZone>();

function zoneOf(text: string): TimeZone {
  let z = zoneArgs.get(text);
  if (z === undefined) {
    const found = zoneArgument(text);
    if (found === null) throw new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, `time zone "${text}" not recognized`);
    z = found;
    if (zoneArgs.size > 1000) zoneArgs.clear();
    zoneArgs.set(text, z);
  }
  return z;
}

/** Days since 1970 and microseconds into the day, the day rounded down. */
function splitTimestamp(us: bigint): [number, bigint] {
  let days = us / US_PER_DAY;
  let tod = us - days * US_PER_DAY;
  if (tod < 0n) {
    tod += US_PER_DAY;
    days -= 1n;
  }
  return [Number(days), tod];
}

/**
 * timestamp + interval (timestamp_pl_interval): months first, clamping the day to the end of
 * the month (2024-01-31 + 1 month = 2024-02-29), then days, then microseconds. `sign` -1 is
 * timestamp - interval (timestamp_mi_interval, which negates every field).
 */
export function timestampPlusInterval(ts: bigint, iv: Uint8Array, sign: 1 | -1 = 1): bigint {
  const p = intervalParts(iv);
  const months = sign * p.months;
  const days = sign * p.days;
  const us = sign === 1 ? p.us : -p.us;
  if (!isFiniteTimestamp(ts)) return ts;
  let t = ts;
  if (months !== 0 || days !== 0) {
    let [day, tod] = splitTimestamp(t);
    if (months !== 0) {
      let [y, m, d] = j2date(day + UNIX_EPOCH_JD);
      const total = y * 12 + (m - 1) + months;
      y = Math.floor(total / 12);
      m = total - y * 12 + 1;
      d = Math.min(d, daysInMonth(y, m));
      const jd = date2j(y, m, d);
      if (jd < 0 || jd >= DATE_END_JD) throw timestampOutOfRange();
      day = jd - UNIX_EPOCH_JD;
    }
    day += days;
    t = checkTimestamp(BigInt(day) * US_PER_DAY + tod);
  }
  return checkTimestamp(t + us);
}

/**
 * timestamptz + interval (timestamptz_pl_interval): months, then days, each on the local time
 * in `zone` and read back there (so a day across a DST change is 23 or 25 hours), then the
 * microseconds on the instant.
 */
export function timestamptzPlusInterval(ts: bigint, iv: Uint8Array, sign: 1 | -1, zone: TimeZone): bigint {
  if (zone === UTC) return timestampPlusInterval(ts, iv, sign);
  const p = intervalParts(iv);
  if (!isFiniteTimestamp(ts)) return ts;
  let t = ts;
  if (p.months !== 0) t = timestampToTimestamptz(timestampPlusInterval(timestamptzToTimestamp(t, zone), makeInterval(p.months, 0, 0n), sign), zone);
  if (p.days !== 0) t = timestampToTimestamptz(timestampPlusInterval(timestamptzToTimestamp(t, zone), makeInterval(0, p.days, 0n), sign), zone);
  return checkTimestamp(sign === 1 ? t + p.us : t - p.us);
}

/** timestamp - timestamp (timestamp_mi): microseconds, then whole days split off (justify_hours). */
export function timestampDiff(a: bigint, b: bigint): Uint8Array {
  if (!isFiniteTimestamp(a) || !isFiniteTimestamp(b)) throw new SqlError('invalid_input', SQLSTATE.datetime_field_overflow, 'cannot subtract infinite timestamps');
  const diff = a - b;
  const days = diff / US_PER_DAY;
  return makeInterval(0, Number(days), diff - days * US_PER_DAY);
}

// ---------------------------------------------------------------------------------------------
// Interval arithmetic (interval_pl, interval_mi, interval_um, interval_mul, interval_div)

export function intervalAdd(a: Uint8Array, b: Uint8Array, sign: 1 | -1 = 1): Uint8Array {
  const x = intervalParts(a);
  const y = intervalParts(b);
  return makeInterval(x.months + sign * y.months, x.days + sign * y.days, sign === 1 ? x.us + y.us : x.us - y.us);
}

export function intervalNegate(a: Uint8Array): Uint8Array {
  const x = intervalParts(a);
  return makeInterval(-x.months, -x.days, -x.us);
}

/** TSROUND: rounds to microsecond precision in seconds. */
function tsround(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/**
 * interval * float8 and interval / float8: whole months and days scale in place; their
 * fractions cascade down as 30-day months and 86400-second days, as PostgreSQL 15 does.
 */
export function intervalMul(a: Uint8Array, factor: number): Uint8Array {
  return scaleInterval(a, (x) => x * factor);
}

export function intervalDiv(a: Uint8Array, factor: number): Uint8Array {
  if (factor === 0) throw divisionByZero();
  return scaleInterval(a, (x) => x / factor);
}

function scaleInterval(a: Uint8Array, f: (x: number) => number): Uint8Array {
  const x = intervalParts(a);
  const monthsD = f(x.months);
  const daysD = f(x.days);
  if (Number.isNaN(monthsD) || Number.isNaN(daysD) || Math.abs(monthsD) > 2147483647 || Math.abs(daysD) > 2147483647) throw intervalOverflow();
  const months = Math.trunc(monthsD);
  let days = Math.trunc(daysD);
  const monthRemainderDays = tsround((f(x.months) - months) * 30);
  let secRemainder = tsround((f(x.days) - days + monthRemainderDays - Math.trunc(monthRemainderDays)) * 86400);
  if (Math.abs(secRemainder) >= 86400) {
    const extra = Math.trunc(secRemainder / 86400);
    days += extra;
    secRemainder -= extra * 86400;
  }
  days += Math.trunc(monthRemainderDays);
  const us = Math.round(f(Number(x.us)) + secRemainder * 1e6);
  if (!Number.isFinite(us) || Math.abs(us) >= 2 ** 63) throw intervalOverflow();
  return makeInterval(months, days, BigInt(us));
}

function intervalOverflow(): SqlError {
  return new SqlError('invalid_input', SQLSTATE.datetime_field_overflow, 'interval out of range');
}

// Units of date_trunc and extract: the names are ../../types/datetime.ts's (unitOf)

export type { DateUnit };

/** The type names PostgreSQL's unit errors print. */
export type DateTimeTypeName = 'date' | 'timestamp without time zone' | 'timestamp with time zone' | 'interval';

function unitNotRecognized(lower: string, type: DateTimeTypeName): SqlError {
  return new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, `unit "${lower}" not recognized for type ${type}`);
}

function unitNotSupported(lower: string, type: DateTimeTypeName): SqlError {
  return new SqlError('unsupported', SQLSTATE.feature_not_supported, `unit "${lower}" not supported for type ${type}`);
}

const unitCache = new Map<string, { lower: string; unit: DateUnit | undefined }>();

/** DecodeUnits (special: then DecodeSpecial), memoized: the unit is usually one constant per query. */
function lookupUnit(units: string, special: boolean): { lower: string; unit: DateUnit | undefined } {
  const cacheKey = (special ? 's' : 'u') + units;
  let r = unitCache.get(cacheKey);
  if (r === undefined) {
    const lower = units.toLowerCase();
    r = { lower, unit: unitOf(lower, special) };
    if (unitCache.size > 1000) unitCache.clear();
    unitCache.set(cacheKey, r);
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// date_trunc (timestamp_trunc, timestamptz_trunc, interval_trunc)

/**
 * date_trunc(units, timestamp|timestamptz): 22023 for an unknown unit, 0A000 for one that does
 * not apply. A timestamptz is truncated in the local time of `zone` (timestamptz_trunc_internal):
 * to a day or more, the result is read back in the zone (DetermineTimeZoneOffset); below a day,
 * it keeps the offset the value had (so the second 01:30 of a fall-back night truncates to its
 * own 01:00).
 */
export function dateTrunc(units: string, ts: bigint, type: 'timestamp without time zone' | 'timestamp with time zone', zone: TimeZone = UTC): bigint {
  if (type === 'timestamp with time zone' && zone !== UTC && isFiniteTimestamp(ts)) {
    const off = BigInt(offsetAt(ts, zone)) * US_PER_SECOND;
    const t = truncLocal(units, checkTimestamp(ts + off), type);
    const unit = lookupUnit(units, false).unit!;
    const belowDay = unit === 'microseconds' || unit === 'milliseconds' || unit === 'second' || unit === 'minute' || unit === 'hour';
    return belowDay ? checkTimestamp(t - off) : timestampToTimestamptz(t, zone);
  }
  return truncLocal(units, ts, type);
}

function truncLocal(units: string, ts: bigint, type: 'timestamp without time zone' | 'timestamp with time zone'): bigint {
  const { lower, unit } = lookupUnit(units, false);
  if (unit === undefined) throw unitNotRecognized(lower, type);
  if (!isFiniteTimestamp(ts)) return ts;
  const [day, tod] = splitTimestamp(ts);
  const dayStart = BigInt(day) * US_PER_DAY;
  const jd = day + UNIX_EPOCH_JD;
  const ymd = (): [number, number, number] => j2date(jd);
  const at = (y: number, m: number, d: number): bigint => checkTimestamp(BigInt(date2j(y, m, d) - UNIX_EPOCH_JD) * US_PER_DAY);
  switch (unit) {
    case 'microseconds':
      return ts;
    case 'milliseconds':
      return dayStart + (tod / 1000n) * 1000n;
    case 'second':
      return dayStart + (tod / US_PER_SECOND) * US_PER_SECOND;
    case 'minute':
      return dayStart + (tod / 60_000_000n) * 60_000_000n;
    case 'hour':
      return dayStart + (tod / 3_600_000_000n) * 3_600_000_000n;
    case 'day':
      return dayStart;
    case 'week':
      // The Monday of the ISO week (j2day: 0 is Sunday).
      return checkTimestamp(BigInt(day - ((j2day(jd) + 6) % 7)) * US_PER_DAY);
    case 'month': {
      const [y, m] = ymd();
      return at(y, m, 1);
    }
    case 'quarter': {
      const [y, m] = ymd();
      return at(y, 3 * Math.floor((m - 1) / 3) + 1, 1);
    }
    case 'year':
      return at(ymd()[0], 1, 1);
    case 'decade': {
      const y = ymd()[0];
      return at(y > 0 ? Math.trunc(y / 10) * 10 : -Math.trunc((8 - (y - 1)) / 10) * 10, 1, 1);
    }
    case 'century': {
      const y = ymd()[0];
      return at(y > 0 ? Math.trunc((y + 99) / 100) * 100 - 99 : -Math.trunc((99 - (y - 1)) / 100) * 100 + 1, 1, 1);
    }
    case 'millennium': {
      const y = ymd()[0];
      return at(y > 0 ? Math.trunc((y + 999) / 1000) * 1000 - 999 : -Math.trunc((999 - (y - 1)) / 1000) * 1000 + 1, 1, 1);
    }
    default:
      throw unitNotSupported(lower, type);
  }
}

/** date_trunc(units, interval) (interval_trunc): zeroes the fields below the unit. */
export function intervalTrunc(units: string, iv: Uint8Array): Uint8Array {
  const { lower, unit } = lookupUnit(units, false);
  if (unit === undefined) throw unitNotRecognized(lower, 'interval');
  const p = intervalParts(iv);
  let year = Math.trunc(p.months / 12);
  let mon = p.months % 12;
  let day = p.days;
  let us = p.us;
  const keep = (unitUs: bigint) => (us / unitUs) * unitUs;
  switch (unit) {
    case 'millennium':
      year = Math.trunc(year / 1000) * 1000;
      return makeInterval(year * 12, 0, 0n);
    case 'century':
      year = Math.trunc(year / 100) * 100;
      return makeInterval(year * 12, 0, 0n);
    case 'decade':
      year = Math.trunc(year / 10) * 10;
      return makeInterval(year * 12, 0, 0n);
    case 'year':
      return makeInterval(year * 12, 0, 0n);
    case 'quarter':
      mon = 3 * Math.trunc(mon / 3);
      return makeInterval(year * 12 + mon, 0, 0n);
    case 'month':
      return makeInterval(p.months, 0, 0n);
    case 'day':
      return makeInterval(p.months, day, 0n);
    case 'hour':
      us = keep(3_600_000_000n);
      break;
    case 'minute':
      us = keep(60_000_000n);
      break;
    case 'second':
      us = keep(US_PER_SECOND);
      break;
    case 'milliseconds':
      us = keep(1000n);
      break;
    case 'microseconds':
      break;
    default:
      throw unitNotSupported(lower, 'interval');
  }
  day = p.days;
  return makeInterval(p.months, day, us);
}

/** The ISO 8601 year and week of a Julian day: those of the Thursday of its week. */
export function isoYearWeek(jd: number): [number, number] {
  const thursday = jd - ((j2day(jd) + 6) % 7) + 3;
  const y = j2date(thursday)[0];
  return [y, Math.floor((thursday - date2j(y, 1, 1)) / 7) + 1];
}

// ---------------------------------------------------------------------------------------------
// extract (numeric) and date_part (float8)

export type PartResult = 'numeric' | 'float8';

/** An integer field as the result type asks. */
function int(v: number | bigint, as: PartResult): string | number {
  return as === 'numeric' ? String(v) : Number(v);
}

/** `v / 10^scale` exactly, as int64_div_fast_to_numeric prints it ('12.500000'). */
function scaled(v: bigint, scale: number): string {
  const neg = v < 0n;
  const digits = (neg ? -v : v).toString().padStart(scale + 1, '0');
  return (neg ? '-' : '') + digits.slice(0, digits.length - scale) + '.' + digits.slice(digits.length - scale);
}

/**
 * extract(field FROM source) (numeric) or date_part(field, source) (float8) over a date,
 * timestamp, timestamptz (UTC) or interval value. date_part of a date goes through timestamp
 * in PostgreSQL (a SQL function), so the caller casts it first.
 */
export function extractField(units: string, type: DateTimeTypeName, v: number | bigint | Uint8Array, as: PartResult, zone: TimeZone = UTC): string | number | null {
  const { lower, unit } = lookupUnit(units, true);
  if (unit === undefined) throw unitNotRecognized(lower, type);
  if (type === 'timestamp with time zone' && isFiniteTimestamp(v as bigint)) {
    // Fields of the local time in the zone; the epoch is the instant's; timezone* the offset (C division).
    const ts = v as bigint;
    const off = offsetAt(ts, zone);
    switch (unit) {
      case 'epoch':
        return as === 'numeric' ? scaled(ts, 6) : Number(ts) / 1e6;
      case 'timezone':
        return int(off, as);
      case 'timezone_hour':
        return int(Math.trunc(off / 3600), as);
      case 'timezone_minute':
        return int(Math.trunc(off / 60) % 60, as);
      default:
        return timestampField(unit, lower, type, ts + BigInt(off) * US_PER_SECOND, as);
    }
  }
  if (type === 'interval') return extractInterval(unit, lower, v as Uint8Array, as);
  if (type === 'date') {
    const days = v as number;
    if (!isFiniteDate(days)) return infinitePart(unit, lower, type, days === DATEVAL_NOEND, as);
    switch (unit) {
      case 'microseconds':
      case 'milliseconds':
      case 'second':
      case 'minute':
      case 'hour':
      case 'timezone':
      case 'timezone_hour':
      case 'timezone_minute':
        throw unitNotSupported(lower, type);
      case 'epoch':
        return int(BigInt(days) * 86400n, as);
      default:
        return timestampField(unit, lower, type, BigInt(days) * US_PER_DAY, as);
    }
  }
  return timestampField(unit, lower, type, v as bigint, as);
}

function timestampField(unit: DateUnit, lower: string, type: DateTimeTypeName, ts: bigint, as: PartResult): string | number | null {
  if (!isFiniteTimestamp(ts)) return infinitePart(unit, lower, type, ts === TS_NOEND, as);
  const [day, tod] = splitTimestamp(ts);
  const jd = day + UNIX_EPOCH_JD;
  const [y, m, d] = j2date(jd);
  const secUs = tod % 60_000_000n; // seconds and microseconds of the minute, in µs
  switch (unit) {
    case 'microseconds':
      return int(secUs, as);
    case 'milliseconds':
      return as === 'numeric' ? scaled(secUs, 3) : Number(secUs) / 1000;
    case 'second':
      return as === 'numeric' ? scaled(secUs, 6) : Number(secUs) / 1e6;
    case 'minute':
      return int((tod / 60_000_000n) % 60n, as);
    case 'hour':
      return int(tod / 3_600_000_000n, as);
    case 'day':
      return int(d, as);
    case 'month':
      return int(m, as);
    case 'quarter':
      return int(Math.floor((m - 1) / 3) + 1, as);
    case 'week':
      return int(isoYearWeek(jd)[1], as);
    case 'year':
      return int(y > 0 ? y : y - 1, as);
    case 'decade':
      return int(y >= 0 ? Math.trunc(y / 10) : -Math.trunc((8 - (y - 1)) / 10), as);
    case 'century':
      return int(y > 0 ? Math.trunc((y + 99) / 100) : -Math.trunc((99 - (y - 1)) / 100), as);
    case 'millennium':
      return int(y > 0 ? Math.trunc((y + 999) / 1000) : -Math.trunc((999 - (y - 1)) / 1000), as);
    case 'julian':
      if (as === 'float8') return jd + Number(tod) / 86400e6;
      return tod === 0n ? String(jd) : addIntegerText(jd, numericDiv(String(tod), String(US_PER_DAY)));
    case 'isoyear': {
      const iy = isoYearWeek(jd)[0];
      return int(iy <= 0 ? iy - 1 : iy, as);
    }
    case 'dow':
      return int(j2day(jd), as);
    case 'isodow':
      return int(j2day(jd) === 0 ? 7 : j2day(jd), as);
    case 'doy':
      return int(jd - date2j(y, 1, 1) + 1, as);
    case 'epoch':
      return as === 'numeric' ? scaled(ts, 6) : Number(ts) / 1e6;
    case 'timezone':
    case 'timezone_hour':
    case 'timezone_minute':
      // timestamptz's are answered by extractField, in its zone.
      throw unitNotSupported(lower, type);
    default:
      return unreachable(unit);
  }
}

/**
 * A field of ±infinity (NonFiniteTimestampTzPart, extract_date): the fields that grow with
 * time are ±Infinity, the others NULL; fields the type lacks are still 0A000.
 */
function infinitePart(unit: DateUnit, lower: string, type: DateTimeTypeName, positive: boolean, as: PartResult): string | number | null {
  switch (unit) {
    case 'year':
    case 'decade':
    case 'century':
    case 'millennium':
    case 'julian':
    case 'isoyear':
    case 'epoch':
      return as === 'numeric' ? (positive ? 'Infinity' : '-Infinity') : positive ? Infinity : -Infinity;
    case 'timezone':
    case 'timezone_hour':
    case 'timezone_minute':
      if (type !== 'timestamp with time zone') throw unitNotSupported(lower, type);
      return null;
    case 'microseconds':
    case 'milliseconds':
    case 'second':
    case 'minute':
    case 'hour':
      if (type === 'date') throw unitNotSupported(lower, type);
      return null;
    default:
      return null;
  }
}

/** jd + a fraction in [0, 1) given as numeric text '0.xxx'. */
function addIntegerText(jd: number, frac: string): string {
  return String(jd) + frac.slice(frac.indexOf('.'));
}

function extractInterval(unit: DateUnit, lower: string, iv: Uint8Array, as: PartResult): string | number {
  const p = intervalParts(iv);
  const year = Math.trunc(p.months / 12);
  const mon = p.months % 12;
  const hour = p.us / 3_600_000_000n;
  const min = (p.us / 60_000_000n) % 60n;
  const secUs = p.us % 60_000_000n;
  switch (unit) {
    case 'microseconds':
      return int(secUs, as);
    case 'milliseconds':
      return as === 'numeric' ? scaled(secUs, 3) : Number(secUs) / 1000;
    case 'second':
      return as === 'numeric' ? scaled(secUs, 6) : Number(secUs) / 1e6;
    case 'minute':
      return int(min, as);
    case 'hour':
      return int(hour, as);
    case 'day':
      return int(p.days, as);
    case 'month':
      return int(mon, as);
    case 'quarter':
      return int(Math.trunc(mon / 3) + 1, as);
    case 'year':
      return int(year, as);
    case 'decade':
      return int(Math.trunc(year / 10), as);
    case 'century':
      return int(Math.trunc(year / 100), as);
    case 'millennium':
      return int(Math.trunc(year / 1000), as);
    case 'epoch': {
      // 365.25-day years, 30-day months, 86400-second days (interval_part_common).
      const secs = 31557600n * BigInt(year) + 2592000n * BigInt(mon) + 86400n * BigInt(p.days);
      if (as === 'numeric') return scaled(secs * US_PER_SECOND + p.us, 6);
      return Number(p.us) / 1e6 + 31557600 * year + 2592000 * mon + 86400 * p.days;
    }
    default:
      throw unitNotSupported(lower, 'interval');
  }
}

// ---------------------------------------------------------------------------------------------
// The date/time functions of ../expr.ts, on one row's non-NULL argument values

const TYPE_NAMES: Partial<Record<string, DateTimeTypeName>> = {
  date: 'date',
  timestamp: 'timestamp without time zone',
  timestamptz: 'timestamp with time zone',
  interval: 'interval',
};

export function dateTimeFn(fn: DateTimeFn, argExprs: readonly Expr[], type: PgType, v: readonly Value[]): Value {
  switch (fn) {
    case 'date_pli':
      return dateAddDays(v[0] as number, v[1] as number);
    case 'date_mii':
      return dateAddDays(v[0] as number, -(v[1] as number));
    case 'date_mi':
      return dateDiff(v[0] as number, v[1] as number);
    case 'ts_pl_interval':
      if (type.id === 'timestamptz') return timestamptzPlusInterval(v[0] as bigint, v[1] as Uint8Array, 1, currentTimeZone());
      return timestampPlusInterval(v[0] as bigint, v[1] as Uint8Array, 1);
    case 'ts_mi_interval':
      if (type.id === 'timestamptz') return timestamptzPlusInterval(v[0] as bigint, v[1] as Uint8Array, -1, currentTimeZone());
      return timestampPlusInterval(v[0] as bigint, v[1] as Uint8Array, -1);
    case 'ts_mi':
      return timestampDiff(v[0] as bigint, v[1] as bigint);
    case 'interval_pl':
      return intervalAdd(v[0] as Uint8Array, v[1] as Uint8Array, 1);
    case 'interval_mi':
      return intervalAdd(v[0] as Uint8Array, v[1] as Uint8Array, -1);
    case 'interval_um':
      return intervalNegate(v[0] as Uint8Array);
    case 'interval_mul':
      return intervalMul(v[0] as Uint8Array, v[1] as number);
    case 'interval_div':
      return intervalDiv(v[0] as Uint8Array, v[1] as number);
    case 'date_trunc':
      if (type.id === 'interval') return intervalTrunc(v[0] as string, v[1] as Uint8Array);
      if (type.id === 'timestamptz') {
        // date_trunc(text, timestamptz, zone) truncates in the named zone instead of the session's.
        const zone = v.length > 2 ? zoneOf(v[2] as string) : currentTimeZone();
        return dateTrunc(v[0] as string, v[1] as bigint, 'timestamp with time zone', zone);
      }
      return dateTrunc(v[0] as string, v[1] as bigint, 'timestamp without time zone');
    case 'timezone': {
      const from = argExprs[1]!.type.id === 'timestamptz' ? 'timestamptz' : 'timestamp';
      if (argExprs[0]!.type.id === 'interval') return atInterval(v[0] as Uint8Array, v[1] as bigint, from);
      return atTimeZone(v[0] as string, v[1] as bigint, from);
    }
    case 'extract':
    case 'date_part': {
      const t = TYPE_NAMES[argExprs[1]!.type.id];
      if (t === undefined) throw new Error(`${fn} of ${argExprs[1]!.type.id}: the binder admits date/time types only`);
      return extractField(v[0] as string, t, v[1] as number | bigint | Uint8Array, fn === 'extract' ? 'numeric' : 'float8', currentTimeZone());
    }
    default:
      return unreachable(fn);
  }
}

/**
 * Date/time functions of the library (PostgreSQL 15 docs 9.9, table 9.33) over the engine's
 * values: date = days since 1970-01-01, timestamp[tz] = µs since 1970 (UTC for timestamptz),
 * interval = months, days, µs (../../types/interval.ts).
 *
 *   make_date(2024, 2, 29) → 2024-02-29          make_interval(1, 2, 0, 3) → 1 year 2 mons 3 days
 *   justify_hours('27 hours') → 1 day 03:00:00   age('2024-03-01', '2023-01-31') → 1 year 1 mon 1 day
 *   date_bin('15 minutes', '2020-02-11 15:44:17', '2001-01-01') → 2020-02-11 15:30:00
 *
 * age(timestamp) with one argument (age from today's midnight) and make_time (paxd has no
 * time type) are 0A000.
 */
import {
  type PgType,
  type Value,
  SQLSTATE,
  UNIX_EPOCH_JD,
  US_PER_DAY,
  date2j,
  daysInMonth,
  intervalParts,
  j2date,
  makeInterval,
} from '../../types/index.js';
import { SqlError, notSupported } from '../errors.js';
import { currentTimeZone } from '../context.js';
import { isFiniteDate, isFiniteTimestamp, timestampToTimestamptz, timestamptzToTimestamp } from '../exec/datetime.js';
import { T } from '../types.js';
import type { Family, Kernel, Signature } from './signature.js';

const sig = (params: readonly PgType[], result: PgType, kernel: Kernel, extra: Partial<Signature> = {}): Signature => Object.freeze({ params, result, kernel, ...extra });

const US_PER_HOUR = 3_600_000_000n;
const US_PER_SEC = 1_000_000n;

function fieldOverflow(what: 'date' | 'time', text: string): SqlError {
  return new SqlError('invalid_input', SQLSTATE.datetime_field_overflow, `${what} field value out of range: ${text}`);
}

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');

/** make_date(year, month, day): a negative year is BC; year 0 and invalid days are 22008. */
function makeDate(y: number, m: number, d: number): number {
  const text = `${y}-${pad(m)}-${pad(d)}`;
  if (y === 0) throw fieldOverflow('date', text);
  const year = y < 0 ? y + 1 : y;
  if (m < 1 || m > 12 || d < 1 || d > daysInMonth(year, m)) throw fieldOverflow('date', text);
  const jd = date2j(year, m, d);
  if (jd < 0 || jd >= 2147483494 || !Number.isSafeInteger(jd)) throw new SqlError('invalid_input', SQLSTATE.datetime_field_overflow, `date out of range: ${text}`);
  return jd - UNIX_EPOCH_JD;
}

/** make_timestamp's local timestamp (µs): 22008 for fields out of range, as make_timestamp_internal. */
function makeTimestamp(y: number, mo: number, d: number, h: number, mi: number, s: number): bigint {
  const date = makeDate(y, mo, d);
  const secText = Number.isInteger(s) ? pad(s) : String(s);
  if (h < 0 || h > 24 || mi < 0 || mi > 59 || !(s >= 0 && s <= 60) || (h === 24 && (mi > 0 || s > 0)))
    throw fieldOverflow('time', `${h}:${pad(mi)}:${secText}`);
  const us = BigInt(Math.round(s * 1e6));
  return BigInt(date) * US_PER_DAY + BigInt(h) * US_PER_HOUR + BigInt(mi) * 60n * US_PER_SEC + us;
}

/** make_interval(years, months, weeks, days, hours, mins, secs). */
const makeIntervalK: Kernel = (a) => {
  const n = (i: number) => (a.length > i ? (a[i] as number) : 0);
  const secs = a.length > 6 ? (a[6] as number) : 0;
  if (!Number.isFinite(secs)) throw new SqlError('invalid_input', SQLSTATE.datetime_field_overflow, 'interval out of range');
  const months = n(0) * 12 + n(1);
  const days = n(2) * 7 + n(3);
  const us = BigInt(n(4)) * US_PER_HOUR + BigInt(n(5)) * 60n * US_PER_SEC + BigInt(Math.round(secs * 1e6));
  return makeInterval(months, days, us);
};

/** justify_hours: whole days out of the time (the sign of the remainder follows the days'). */
function justifyHours(v: Uint8Array): Uint8Array {
  const p = intervalParts(v);
  let days = p.days + Number(p.us / US_PER_DAY);
  let us = p.us % US_PER_DAY;
  if (days > 0 && us < 0n) {
    us += US_PER_DAY;
    days--;
  } else if (days < 0 && us > 0n) {
    us -= US_PER_DAY;
    days++;
  }
  return makeInterval(p.months, days, us);
}

/** justify_days: whole 30-day months out of the days. */
function justifyDays(v: Uint8Array): Uint8Array {
  const p = intervalParts(v);
  let months = p.months + Math.trunc(p.days / 30);
  let days = p.days % 30;
  if (months > 0 && days < 0) {
    days += 30;
    months--;
  } else if (months < 0 && days > 0) {
    days -= 30;
    months++;
  }
  return makeInterval(months, days, p.us);
}

/** justify_interval (interval_justify_interval): days from the time, months from the days, signs made to agree. */
function justifyInterval(v: Uint8Array): Uint8Array {
  const p = intervalParts(v);
  let months = p.months;
  let days = p.days + Number(p.us / US_PER_DAY);
  let us = p.us % US_PER_DAY;
  months += Math.trunc(days / 30);
  days %= 30;
  if (months > 0 && (days < 0 || (days === 0 && us < 0n))) {
    days += 30;
    months--;
  } else if (months < 0 && (days > 0 || (days === 0 && us > 0n))) {
    days -= 30;
    months++;
  }
  if (days > 0 && us < 0n) {
    us += US_PER_DAY;
    days--;
  } else if (days < 0 && us > 0n) {
    us -= US_PER_DAY;
    days++;
  }
  return makeInterval(months, days, us);
}

interface Fields {
  y: number;
  m: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  us: number;
}

function fieldsOf(ts: bigint): Fields {
  let days = ts / US_PER_DAY;
  let tod = ts % US_PER_DAY;
  if (tod < 0n) {
    tod += US_PER_DAY;
    days--;
  }
  const [y, m, d] = j2date(Number(days) + UNIX_EPOCH_JD);
  const t = Number(tod);
  return { y, m, d, h: Math.floor(t / 3.6e9), mi: Math.floor(t / 6e7) % 60, s: Math.floor(t / 1e6) % 60, us: t % 1e6 };
}

/** age(a, b) (timestamp_age): the field-wise difference, borrowing from the larger fields. */
function age(a: bigint, b: bigint): Uint8Array {
  if (!isFiniteTimestamp(a) || !isFiniteTimestamp(b)) throw notSupported('age of infinite timestamps');
  const t1 = fieldsOf(a);
  const t2 = fieldsOf(b);
  const sign = a < b ? -1 : 1;
  let us = sign * (t1.us - t2.us);
  let s = sign * (t1.s - t2.s);
  let mi = sign * (t1.mi - t2.mi);
  let h = sign * (t1.h - t2.h);
  let d = sign * (t1.d - t2.d);
  let m = sign * (t1.m - t2.m);
  let y = sign * (t1.y - t2.y);
  while (us < 0) {
    us += 1e6;
    s--;
  }
  while (s < 0) {
    s += 60;
    mi--;
  }
  while (mi < 0) {
    mi += 60;
    h--;
  }
  while (h < 0) {
    h += 24;
    d--;
  }
  while (d < 0) {
    const t = a < b ? t1 : t2;
    d += daysInMonth(t.y, t.m);
    m--;
  }
  while (m < 0) {
    m += 12;
    y--;
  }
  const months = sign * (y * 12 + m);
  const time = BigInt(sign) * (((BigInt(h) * 60n + BigInt(mi)) * 60n + BigInt(s)) * US_PER_SEC + BigInt(us));
  return makeInterval(months, sign * d, time);
}

/** date_bin(stride, source, origin): the start of the stride-wide bin of source, counted from origin. */
function dateBin(strideV: Uint8Array, ts: bigint, origin: bigint): bigint {
  const p = intervalParts(strideV);
  if (p.months !== 0) throw notSupported('timestamps binned into intervals containing months or years');
  const stride = BigInt(p.days) * US_PER_DAY + p.us;
  if (stride <= 0n) throw new SqlError('invalid_input', SQLSTATE.datetime_field_overflow, 'stride must be greater than zero');
  if (!isFiniteTimestamp(ts) || !isFiniteTimestamp(origin)) throw new SqlError('invalid_input', SQLSTATE.datetime_field_overflow, 'timestamp out of range');
  const delta = ts - origin;
  let bins = delta / stride;
  if (delta % stride < 0n) bins--;
  return origin + bins * stride;
}

const i4 = T.int4;
const f8 = T.float8;
const local = (a: readonly Value[]) => makeTimestamp(a[0] as number, a[1] as number, a[2] as number, a[3] as number, a[4] as number, a[5] as number);

export const DATETIME_FUNCTIONS: Family = Object.freeze({
  make_date: [sig([i4, i4, i4], T.date, (a) => makeDate(a[0] as number, a[1] as number, a[2] as number))],
  make_timestamp: [sig([i4, i4, i4, i4, i4, f8], T.timestamp, local)],
  make_timestamptz: [
    sig([i4, i4, i4, i4, i4, f8], T.timestamptz, (a) => timestampToTimestamptz(local(a), currentTimeZone()), { volatility: 'stable' }),
    sig([i4, i4, i4, i4, i4, f8, T.text], T.timestamptz, () => { throw notSupported('make_timestamptz with a time zone argument'); }),
  ],
  make_interval: [0, 1, 2, 3, 4, 5, 6, 7].map((k) => sig([i4, i4, i4, i4, i4, i4, f8].slice(0, k), T.interval, makeIntervalK)),
  make_time: [sig([i4, i4, f8], T.text, () => { throw notSupported('make_time (the time type)'); })],
  justify_hours: [sig([T.interval], T.interval, (a) => justifyHours(a[0] as Uint8Array))],
  justify_days: [sig([T.interval], T.interval, (a) => justifyDays(a[0] as Uint8Array))],
  justify_interval: [sig([T.interval], T.interval, (a) => justifyInterval(a[0] as Uint8Array))],
  isfinite: [
    sig([T.date], T.bool, (a) => isFiniteDate(a[0] as number)),
    sig([T.timestamp], T.bool, (a) => isFiniteTimestamp(a[0] as bigint)),
    sig([T.timestamptz], T.bool, (a) => isFiniteTimestamp(a[0] as bigint)),
    sig([T.interval], T.bool, () => true),
  ],
  age: [
    sig([T.timestamp, T.timestamp], T.interval, (a) => age(a[0] as bigint, a[1] as bigint)),
    sig([T.timestamptz, T.timestamptz], T.interval, (a) => age(timestamptzToTimestamp(a[0] as bigint, currentTimeZone()), timestamptzToTimestamp(a[1] as bigint, currentTimeZone())), { volatility: 'stable' }),
    sig([T.timestamp], T.interval, () => { throw notSupported('age(timestamp) with one argument'); }),
    sig([T.timestamptz], T.interval, () => { throw notSupported('age(timestamptz) with one argument'); }),
  ],
  date_bin: [
    sig([T.interval, T.timestamp, T.timestamp], T.timestamp, (a) => dateBin(a[0] as Uint8Array, a[1] as bigint, a[2] as bigint)),
    sig([T.interval, T.timestamptz, T.timestamptz], T.timestamptz, (a) => dateBin(a[0] as Uint8Array, a[1] as bigint, a[2] as bigint)),
  ],
});

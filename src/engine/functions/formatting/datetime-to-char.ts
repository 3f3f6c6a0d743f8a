/**
 * to_char(timestamp | timestamptz | interval, text) (PostgreSQL 15 docs 9.8, table 9.26;
 * formatting.c's DCH_to_char): each keyword of the template (./template.ts) prints a field of
 * the value, everything else is copied.
 *
 *   to_char(timestamp '2024-03-05 14:07:09.5', 'FMDay, DDth Month YYYY HH12:MI:SS.MS PM')
 *     → 'Tuesday, 05th March 2024 02:07:09.500 PM'
 *   to_char(interval '-25 hours 3 minutes', 'HH24:MI')  → '-24:-57'
 *
 * timestamptz prints in the session's TimeZone (TZ is its abbreviation, OF its offset); a
 * date arrives as timestamptz, as PostgreSQL's implicit cast makes it. Numbers print with C's
 * "%0*d": FM drops the zero padding (and the blank padding of names), a negative field of an
 * interval is one wider. Keywords that name calendar things (month and day names, D, AD, TZ…)
 * are 22007 for an interval, as intervals are not tied to calendar dates.
 */
import { PaxdError, SQLSTATE, UNIX_EPOCH_JD, US_PER_DAY, date2j, intervalParts, j2date, j2day, type TimeZone, zoneAbbreviationAt } from '../../../types/index.js';
import { isoYearWeek } from '../../exec/datetime.js';
import { DAYS, type DtKey, MONTHS, RM_MONTHS, type Template, ordinalSuffix } from './template.js';

/** A value's fields, as formatting.c's pg_tm plus fsec and the zone (tmtc). */
export interface DtFields {
  /** Astronomical (1 BC is 0) for timestamps; the years of an interval. */
  readonly year: number;
  readonly mon: number;
  readonly mday: number;
  readonly hour: number;
  readonly min: number;
  readonly sec: number;
  /** Microseconds. */
  readonly fsec: number;
  readonly wday: number;
  readonly yday: number;
  /** The zone abbreviation (timestamptz only). */
  readonly tzn: string | null;
  /** Seconds east of UTC. */
  readonly gmtoff: number;
  readonly interval: boolean;
}

const US_PER_HOUR = 3_600_000_000n;

/** The fields of a local timestamp (µs since 1970). */
export function timestampFields(local: bigint, tzn: string | null, gmtoff: number): DtFields {
  let days = local / US_PER_DAY;
  let rem = local - days * US_PER_DAY;
  if (rem < 0n) {
    rem += US_PER_DAY;
    days -= 1n;
  }
  const jd = Number(days) + UNIX_EPOCH_JD;
  const [year, mon, mday] = j2date(jd);
  const us = Number(rem);
  const secs = Math.floor(us / 1e6);
  return {
    year,
    mon,
    mday,
    hour: Math.floor(secs / 3600),
    min: Math.floor(secs / 60) % 60,
    sec: secs % 60,
    fsec: us % 1e6,
    wday: j2day(jd),
    yday: jd - date2j(year, 1, 1) + 1,
    tzn,
    gmtoff,
    interval: false,
  };
}

/** The fields of a timestamptz in `zone`. */
export function timestamptzFields(utc: bigint, zone: TimeZone): DtFields {
  const secs = Number(utc / 1_000_000n) - (utc % 1_000_000n < 0n ? 1 : 0);
  const off = zone.offsetAt(secs);
  return timestampFields(utc + BigInt(off) * 1_000_000n, zoneAbbreviationAt(zone, secs, off), off);
}

/** interval2tm: years and months of the months, hours (beyond 24) of the time, signs as C truncates. */
export function intervalFields(v: Uint8Array): DtFields {
  const p = intervalParts(v);
  const year = Math.trunc(p.months / 12);
  const mon = p.months % 12;
  const hour = p.us / US_PER_HOUR;
  let rest = p.us - hour * US_PER_HOUR;
  const min = rest / 60_000_000n;
  rest -= min * 60_000_000n;
  const sec = rest / 1_000_000n;
  return {
    year,
    mon,
    mday: p.days,
    hour: Number(hour),
    min: Number(min),
    sec: Number(sec),
    fsec: Number(rest - sec * 1_000_000n),
    wday: 0,
    // "yday approximates the total span in days" (interval_to_char).
    yday: (year * 12 + mon) * 30 + p.days,
    tzn: null,
    gmtoff: 0,
    interval: true,
  };
}

function invalidForInterval(): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.invalid_datetime_format, 'invalid format specification for an interval value', { hint: 'Intervals are not tied to specific calendar dates.' });
}

/** C's "%0*d": zero-padded to `width` characters, the sign counting. */
function zpad(n: number, width: number): string {
  const s = String(Math.abs(n));
  if (n < 0) return `-${s.padStart(width - 1, '0')}`;
  return s.padStart(width, '0');
}

/** ADJUST_YEAR: a timestamp's year as printed (1 BC is 1); an interval's as it is. */
function adjustYear(f: DtFields, y = f.year): number {
  return f.interval || y > 0 ? y : -(y - 1);
}

/** C's `%` (truncating). */
const cmod = (a: number, b: number): number => a % b;

/** The ISO year's day of a date (date2isoyearday): 1 on the Monday of its week 1. */
function isoYearDay(jd: number): number {
  const [iy] = isoYearWeek(jd);
  const jan4 = date2j(iy, 1, 4);
  const week1 = jan4 - ((j2day(jan4) + 6) % 7);
  return jd - week1 + 1;
}

/** to_char's text: NULL (empty template) is the caller's. */
export function dtToChar(t: Template<DtKey>, f: DtFields): string {
  let out = '';
  const jd = () => date2j(f.year, f.mon, f.mday);
  for (const n of t) {
    if (n.kind === 'char') {
      out += n.ch;
      continue;
    }
    const num = (v: number, width: number, negWidth = width + 1): void => {
      let s = zpad(v, n.fm ? 0 : v >= 0 ? width : negWidth);
      if (n.th !== null) s += ordinalSuffix(s, n.th === 'TH');
      out += s;
    };
    const name = (s: string, pad: boolean): void => {
      out += pad && !n.fm && !n.tm ? s.padEnd(9, ' ') : s;
    };
    const calendar = () => {
      if (f.interval) throw invalidForInterval();
    };
    const pm = cmod(f.hour, 24) >= 12;
    const bc = f.year <= 0;
    switch (n.key) {
      case 'A.M.':
      case 'P.M.':
        out += pm ? 'P.M.' : 'A.M.';
        break;
      case 'AM':
      case 'PM':
        out += pm ? 'PM' : 'AM';
        break;
      case 'a.m.':
      case 'p.m.':
        out += pm ? 'p.m.' : 'a.m.';
        break;
      case 'am':
      case 'pm':
        out += pm ? 'pm' : 'am';
        break;
      case 'HH':
      case 'HH12': {
        const h = cmod(f.hour, 12);
        num(h === 0 ? 12 : h, f.hour >= 0 ? 2 : 3, f.hour >= 0 ? 2 : 3);
        break;
      }
      case 'HH24':
        num(f.hour, 2);
        break;
      case 'MI':
        num(f.min, 2);
        break;
      case 'SS':
        num(f.sec, 2);
        break;
      case 'FF1':
        fraction(Math.trunc(f.fsec / 100000), 1);
        break;
      case 'FF2':
        fraction(Math.trunc(f.fsec / 10000), 2);
        break;
      case 'FF3':
      case 'MS':
        fraction(Math.trunc(f.fsec / 1000), 3);
        break;
      case 'FF4':
        fraction(Math.trunc(f.fsec / 100), 4);
        break;
      case 'FF5':
        fraction(Math.trunc(f.fsec / 10), 5);
        break;
      case 'FF6':
      case 'US':
        fraction(f.fsec, 6);
        break;
      case 'SSSS':
      case 'SSSSS':
        num(f.hour * 3600 + f.min * 60 + f.sec, 0, 0);
        break;
      case 'tz':
      case 'TZ':
        calendar();
        if (f.tzn !== null) out += n.key === 'tz' ? f.tzn.toLowerCase() : f.tzn;
        break;
      case 'TZH':
        calendar();
        out += `${f.gmtoff >= 0 ? '+' : '-'}${zpad(Math.trunc(Math.abs(f.gmtoff) / 3600), 2)}`;
        break;
      case 'TZM':
        calendar();
        out += zpad(Math.trunc((Math.abs(f.gmtoff) % 3600) / 60), 2);
        break;
      case 'OF': {
        calendar();
        const a = Math.abs(f.gmtoff);
        out += `${f.gmtoff >= 0 ? '+' : '-'}${zpad(Math.trunc(a / 3600), n.fm ? 0 : 2)}`;
        if (a % 3600 !== 0) out += `:${zpad(Math.trunc((a % 3600) / 60), 2)}`;
        break;
      }
      case 'A.D.':
      case 'B.C.':
        calendar();
        out += bc ? 'B.C.' : 'A.D.';
        break;
      case 'AD':
      case 'BC':
        calendar();
        out += bc ? 'BC' : 'AD';
        break;
      case 'a.d.':
      case 'b.c.':
        calendar();
        out += bc ? 'b.c.' : 'a.d.';
        break;
      case 'ad':
      case 'bc':
        calendar();
        out += bc ? 'bc' : 'ad';
        break;
      case 'MONTH':
      case 'Month':
      case 'month':
        calendar();
        if (f.mon === 0) break;
        name(caseAs(n.key, MONTHS[f.mon - 1]!), true);
        break;
      case 'MON':
      case 'Mon':
      case 'mon':
        calendar();
        if (f.mon === 0) break;
        name(caseAs(n.key, MONTHS[f.mon - 1]!.slice(0, 3)), false);
        break;
      case 'MM':
        num(f.mon, 2);
        break;
      case 'DAY':
      case 'Day':
      case 'day':
        calendar();
        name(caseAs(n.key, DAYS[f.wday]!), true);
        break;
      case 'DY':
      case 'Dy':
      case 'dy':
        calendar();
        name(caseAs(n.key, DAYS[f.wday]!.slice(0, 3)), false);
        break;
      case 'DDD':
        num(f.yday, 3, 3);
        break;
      case 'IDDD':
        num(isoYearDay(jd()), 3, 3);
        break;
      case 'DD':
        num(f.mday, 2, 2);
        break;
      case 'D':
        calendar();
        num(f.wday + 1, 0, 0);
        break;
      case 'ID':
        calendar();
        num(f.wday === 0 ? 7 : f.wday, 0, 0);
        break;
      case 'WW':
        num(Math.trunc((f.yday - 1) / 7) + 1, 2, 2);
        break;
      case 'IW':
        num(isoYearWeek(jd())[1], 2, 2);
        break;
      case 'Q':
        if (f.mon === 0) break;
        num(Math.trunc((f.mon - 1) / 3) + 1, 0, 0);
        break;
      case 'CC': {
        const c = f.interval ? Math.trunc(f.year / 100) : f.year > 0 ? Math.trunc((f.year - 1) / 100) + 1 : Math.trunc(f.year / 100) - 1;
        if (c <= 99 && c >= -99) num(c, 2);
        else num(c, 0, 0);
        break;
      }
      case 'Y,YYY': {
        const y = adjustYear(f);
        const k = Math.trunc(y / 1000);
        let s = `${k},${zpad(y - k * 1000, 3)}`;
        if (n.th !== null) s += ordinalSuffix(s, n.th === 'TH');
        out += s;
        break;
      }
      case 'YYYY':
      case 'IYYY': {
        const y = n.key === 'YYYY' ? adjustYear(f) : adjustYear(f, isoYearWeek(jd())[0]);
        num(y, 4);
        break;
      }
      case 'YYY':
      case 'IYY':
      case 'YY':
      case 'IY':
      case 'Y':
      case 'I': {
        const iso = n.key[0] === 'I';
        const y = iso ? adjustYear(f, isoYearWeek(jd())[0]) : adjustYear(f);
        const digits = n.key.length;
        if (digits === 1) num(cmod(y, 10), 0, 0);
        else num(cmod(y, 10 ** digits), digits);
        break;
      }
      case 'RM':
      case 'rm': {
        if (f.mon === 0 && f.year === 0) break;
        const i = f.mon === 0 ? (f.year >= 0 ? 0 : 11) : f.mon < 0 ? -(f.mon + 1) : 12 - f.mon;
        const r = n.key === 'RM' ? RM_MONTHS[i]! : RM_MONTHS[i]!.toLowerCase();
        out += n.fm ? r : r.padEnd(4, ' ');
        break;
      }
      case 'W':
        num(Math.trunc((f.mday - 1) / 7) + 1, 0, 0);
        break;
      case 'J':
        num(jd(), 0, 0);
        break;
      case 'FX':
        break;
      default: {
        const never: never = n.key;
        throw new Error(`to_char: keyword ${String(never)}`);
      }
    }
    function fraction(v: number, width: number): void {
      let s = zpad(v, width);
      if (n.kind === 'key' && n.th !== null) s += ordinalSuffix(s, n.th === 'TH');
      out += s;
    }
  }
  return out;
}

/** A name in the keyword's case: MONTH → MARCH, Month → March, month → march. */
function caseAs(key: string, s: string): string {
  if (key === key.toUpperCase()) return s.toUpperCase();
  if (key === key.toLowerCase()) return s.toLowerCase();
  return s;
}

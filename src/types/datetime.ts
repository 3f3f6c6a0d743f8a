/**
 * Dates and timestamps, the one module of the concept: PostgreSQL's calendar (integer Julian
 * days, proleptic Gregorian, year 0 is 1 BC), its limits and infinities, the unit names that
 * interval input, date_trunc and extract share, and the text input and output of date,
 * timestamp and timestamptz. The engine's functions over columns (../engine/exec/datetime.ts),
 * the CSV reader's fast path, the row encoder and intervals (./interval.ts) import from here.
 *
 *   date2j(2000, 1, 1) - UNIX_EPOCH_JD      // 10957 (days since 1970-01-01)
 *   formatDate(-719528)                     // '0001-12-31 BC'
 *   parseTimestamp('2024-01-02T03:04:05.5Z', true)   // 1704164645500000n
 *
 * Dates and timestamps: datetime.c ParseDateTime + DecodeDateTime, date.c date_in,
 * timestamp.c timestamp_in / timestamptz_in. paxd implements the forms data files use:
 *   date:   YYYY-MM-DD (also / or . separators; a first field of 3+ digits is the year),
 *           MM-DD-YYYY and MM/DD/YY (DateStyle MDY; 2-digit years are 1970..2069),
 *           YYYYMMDD (6+ digits: day and month from the right), BC/AD, epoch,
 *           infinity, -infinity
 *   time:   HH:MM, HH:MM:SS[.fraction] (fraction rounded to µs with rint), or 'T' before it
 *   zone:   ±HH, ±HHMM, ±HH:MM[:SS] (ISO sign: east of UTC), the abbreviations of PostgreSQL's
 *           Default set (Z, UTC, CET, PDT, MSK, …), zone names (Europe/Berlin, EST5EDT) and
 *           POSIX specs, through ./timezone.ts
 * A timestamptz without a zone is a wall-clock time in the session's zone (the `zone`
 * argument; UTC when none is given). Other words (month names, 'now', 'today') fail with
 * 0A000 because PostgreSQL might accept them. Dates use PostgreSQL's integer Julian day arithmetic
 * (proleptic Gregorian; year 0 is 1 BC).
 *
 * One concept in one file (over 600 lines): the calendar, the input and the output of dates
 * and timestamps share the Julian-day arithmetic and the limits; every layer imports them here.
 */
import { type PaxdError, SQLSTATE, unreachable, unsupported } from './errors.js';
import { I64_MAX, I64_MIN, err, isAlpha, isDigit, isSpace, skipSpace } from './text/scan.js';
import { latin1, scratch } from './text/out.js';
import { type TimeZone, UTC, offsetForLocal, zoneAbbreviation, zoneByName } from './timezone.js';

/** Julian day number of 1970-01-01, and PostgreSQL's limits (datatype/timestamp.h). */
export const UNIX_EPOCH_JD = 2440588;
/** IS_VALID_DATE: Julian days 0 (4714-11-24 BC) up to date2j(5874898, 1, 1), exclusive. */
export const DATE_END_JD = 2147483494;
/** 'infinity' and '-infinity' of date (DATEVAL_NOEND/NOBEGIN) and timestamp (DT_NOEND/NOBEGIN). */
export const DATEVAL_NOBEGIN = -2147483648;
export const DATEVAL_NOEND = 2147483647;
export const TS_NOBEGIN = I64_MIN;
export const TS_NOEND = I64_MAX;
/** IS_VALID_TIMESTAMP: -211813488000000000 (4714-11-24 BC 00:00, relative to 2000) in µs since 1970. */
export const TS_MIN_US = -210866803200000000n;
/** PostgreSQL ends at 294277-01-01 (exclusive); paxd's int64 since 1970 ends first. */
export const TS_END_US = I64_MAX;

/** date2j of datetime.c: Julian day of a proleptic Gregorian (astronomical) y-m-d. */
export function date2j(y: number, m: number, d: number): number {
  if (m > 2) {
    m += 1;
    y += 4800;
  } else {
    m += 13;
    y += 4799;
  }
  const century = Math.trunc(y / 100);
  let julian = y * 365 - 32167;
  julian += Math.trunc(y / 4) - century + Math.trunc(century / 4);
  julian += Math.trunc((7834 * m) / 256) + d;
  return julian;
}

/** j2date of datetime.c (unsigned arithmetic there; all values here are non-negative). */
export function j2date(jd: number): [number, number, number] {
  let julian = jd + 32044;
  let quad = Math.floor(julian / 146097);
  const extra = (julian - quad * 146097) * 4 + 3;
  julian += 60 + quad * 3 + Math.floor(extra / 146097);
  quad = Math.floor(julian / 1461);
  julian -= quad * 1461;
  let y = Math.floor((julian * 4) / 1461);
  julian = (y !== 0 ? (julian + 305) % 365 : (julian + 306) % 366) + 123;
  y += quad * 4;
  const year = y - 4800;
  quad = Math.floor((julian * 2141) / 65536);
  const day = julian - Math.floor((7834 * quad) / 256);
  const month = ((quad + 10) % 12) + 1;
  return [year, month, day];
}

/** Days of each month (index 0 is January) outside leap years; see daysInMonth. */
export const DAYS_IN_MONTH: readonly number[] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Gregorian leap year (astronomical numbering: year 0 is 1 BC, a leap year). */
export function isLeap(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

/** Days of month m (1..12) of year y. */
export function daysInMonth(y: number, m: number): number {
  return m === 2 && isLeap(y) ? 29 : DAYS_IN_MONTH[m - 1]!;
}

/** j2day of datetime.c: the weekday of a Julian day, 0 is Sunday. */
export function j2day(jd: number): number {
  const d = (jd + 1) % 7;
  return d < 0 ? d + 7 : d;
}

// ---------------------------------------------------------------------------------------------
// Unit names: deltatktbl of datetime.c (interval input, date_trunc, extract), matched on their
// first 10 characters as DecodeUnits does, and the words of datetktbl that only extract and
// date_part take (DecodeSpecial).

export type DateUnit =
  | 'microseconds' | 'milliseconds' | 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year'
  | 'decade' | 'century' | 'millennium' | 'timezone' | 'timezone_hour' | 'timezone_minute'
  | 'dow' | 'isodow' | 'doy' | 'isoyear' | 'julian' | 'epoch';

/** deltatktbl: every spelling of a unit, lower case, cut to 10 characters. */
export const UNIT_NAMES: Readonly<Record<string, DateUnit>> = Object.freeze({
  c: 'century', cent: 'century', centuries: 'century', century: 'century',
  d: 'day', day: 'day', days: 'day',
  dec: 'decade', decade: 'decade', decades: 'decade', decs: 'decade',
  h: 'hour', hour: 'hour', hours: 'hour', hr: 'hour', hrs: 'hour',
  m: 'minute', min: 'minute', mins: 'minute', minute: 'minute', minutes: 'minute',
  microsecon: 'microseconds', us: 'microseconds', usec: 'microseconds', usecs: 'microseconds', usecond: 'microseconds', useconds: 'microseconds',
  mil: 'millennium', millennia: 'millennium', millennium: 'millennium', mils: 'millennium',
  millisecon: 'milliseconds', ms: 'milliseconds', msec: 'milliseconds', msecs: 'milliseconds', msecond: 'milliseconds', mseconds: 'milliseconds',
  mon: 'month', mons: 'month', month: 'month', months: 'month',
  qtr: 'quarter', quarter: 'quarter',
  s: 'second', sec: 'second', second: 'second', seconds: 'second', secs: 'second',
  timezone: 'timezone', timezone_h: 'timezone_hour', timezone_m: 'timezone_minute',
  w: 'week', week: 'week', weeks: 'week',
  y: 'year', year: 'year', years: 'year', yr: 'year', yrs: 'year',
});

/** Recognized by extract/date_part only (datetktbl, through DecodeSpecial). */
export const SPECIAL_UNIT_NAMES: Readonly<Record<string, DateUnit>> = Object.freeze({
  dow: 'dow', doy: 'doy', isodow: 'isodow', isoyear: 'isoyear', j: 'julian', jd: 'julian', julian: 'julian', epoch: 'epoch',
});

/** DecodeUnits: the unit a lower-case word names (on its first 10 characters), or undefined. */
export function unitOf(lower: string, special = false): DateUnit | undefined {
  const key = lower.length > 10 ? lower.slice(0, 10) : lower;
  if (Object.hasOwn(UNIT_NAMES, key)) return UNIT_NAMES[key];
  return special && Object.hasOwn(SPECIAL_UNIT_NAMES, key) ? SPECIAL_UNIT_NAMES[key] : undefined;
}

// ---------------------------------------------------------------------------------------------
// Text input: ParseDateTime + DecodeDateTime.

/** Decoded date/time input (before the type decides what to keep). */
interface DateTimeFields {
  special: 'infinity' | '-infinity' | 'epoch' | null;
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  usec: number;
  /** Offset east of UTC in seconds, from a numeric zone or a fixed abbreviation. */
  tzOffset: number | null;
  /** A named zone (or a dynamic abbreviation's) to resolve at the local time. */
  tzZone: TimeZone | null;
}

const enum F {
  Number,
  Date,
  Time,
  Tz,
  Word,
  SignedWord,
  DateWord, // alpha start with embedded punctuation: a zone name or a text-month date
}

interface Field {
  kind: F;
  text: string;
}

/** datetime.c ParseDateTime: splits input into typed fields; returns null on bad format. */
function splitDateTime(s: string): Field[] | null {
  const fields: Field[] = [];
  let i = 0;
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    const start = i;
    if (isDigit(c)) {
      while (i < n && isDigit(s.charCodeAt(i))) i++;
      const d = s.charCodeAt(i);
      if (d === 58) {
        // time: digits, ':' and '.'
        while (i < n && (isDigit(s.charCodeAt(i)) || s.charCodeAt(i) === 58 || s.charCodeAt(i) === 46)) i++;
        fields.push({ kind: F.Time, text: s.slice(start, i) });
      } else if (d === 45 || d === 47 || d === 46) {
        i++;
        let kind = F.Date;
        if (isDigit(s.charCodeAt(i))) {
          kind = d === 46 ? F.Number : F.Date;
          while (i < n && isDigit(s.charCodeAt(i))) i++;
          if (s.charCodeAt(i) === d) {
            kind = F.Date;
            while (i < n && (isDigit(s.charCodeAt(i)) || s.charCodeAt(i) === d)) i++;
          }
        } else {
          // embedded text month ("2024-jan-02"): letters make the decoder refuse it
          kind = F.DateWord;
          while (i < n && (isDigit(s.charCodeAt(i)) || isAlpha(s.charCodeAt(i)) || s.charCodeAt(i) === d)) i++;
        }
        const text = s.slice(start, i).toLowerCase();
        // Without letters, "205--08-10" is a plain date with a doubled separator.
        fields.push({ kind: kind === F.DateWord && !/[a-z]/.test(text) ? F.Date : kind, text });
      } else {
        fields.push({ kind: F.Number, text: s.slice(start, i) });
      }
    } else if (c === 46) {
      // ".5": a number field in PostgreSQL; never part of a form paxd accepts
      i++;
      while (i < n && isDigit(s.charCodeAt(i))) i++;
      fields.push({ kind: F.Number, text: s.slice(start, i) });
    } else if (isAlpha(c)) {
      while (i < n && isAlpha(s.charCodeAt(i))) i++;
      const word = s.slice(start, i).toLowerCase();
      const d = s.charCodeAt(i);
      let isDate = d === 45 || d === 47 || d === 46;
      if (!isDate && (d === 43 || isDigit(d))) isDate = !DATE_KEYWORDS.has(word);
      if (isDate) {
        i++;
        while (i < n) {
          const e = s.charCodeAt(i);
          if (e === 43 || e === 45 || e === 47 || e === 95 || e === 46 || e === 58 || isDigit(e) || isAlpha(e)) i++;
          else break;
        }
        fields.push({ kind: F.DateWord, text: s.slice(start, i) });
      } else fields.push({ kind: F.Word, text: word });
    } else if (c === 43 || c === 45) {
      i = skipSpace(s, i + 1);
      const sign = String.fromCharCode(c);
      if (isDigit(s.charCodeAt(i))) {
        const from = i;
        while (i < n && (isDigit(s.charCodeAt(i)) || s.charCodeAt(i) === 58 || s.charCodeAt(i) === 46 || s.charCodeAt(i) === 45)) i++;
        fields.push({ kind: F.Tz, text: sign + s.slice(from, i) });
      } else if (isAlpha(s.charCodeAt(i))) {
        const from = i;
        while (i < n && isAlpha(s.charCodeAt(i))) i++;
        fields.push({ kind: F.SignedWord, text: sign + s.slice(from, i).toLowerCase() });
      } else return null;
    } else if (c < 128 && isPunct(c)) {
      i++; // ParseDateTime ignores other punctuation
    } else return null;
  }
  return fields;
}

function isPunct(c: number): boolean {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
}

/**
 * Words of datetime.c's datetktbl that may be followed directly by a digit without starting
 * a zone name. paxd decodes only the ones marked in decodeWord; the rest raise 0A000.
 */
const DATE_KEYWORDS = new Set([
  'ad', 'bc', 'allballs', 'am', 'pm', 'at', 'd', 'h', 'm', 's', 'y', 'j', 'julian', 'mm', 'on', 't',
  'epoch', 'infinity', 'now', 'today', 'tomorrow', 'yesterday',
  'jan', 'january', 'feb', 'february', 'mar', 'march', 'apr', 'april', 'may', 'jun', 'june', 'jul', 'july',
  'aug', 'august', 'sep', 'sept', 'september', 'oct', 'october', 'nov', 'november', 'dec', 'december',
  'sun', 'sunday', 'mon', 'monday', 'tue', 'tues', 'tuesday', 'wed', 'wednesday', 'thu', 'thur', 'thurs',
  'thursday', 'fri', 'friday', 'sat', 'saturday', 'dow', 'doy', 'isodow', 'isoyear',
]);

/** Special date words PostgreSQL accepts and paxd does not yet. */
const DATE_WORDS = new Set(['today', 'tomorrow', 'yesterday', 'now', 'allballs']);

type DtErr = 'bad' | 'field' | 'mdfield' | 'tz';

class DtFail {
  constructor(readonly kind: DtErr) {}
}

/** C strtol on digits (no sign); NaN-free: returns a large number to trigger range errors. */
function digitsValue(t: string, from: number, to: number): number {
  let v = 0;
  for (let k = from; k < to; k++) v = v * 10 + (t.charCodeAt(k) - 48);
  return v;
}

function decodeDateTime(s: string, typeName: string): DateTimeFields {
  const fields = splitDateTime(s);
  if (fields === null || fields.length === 0) throw new DtFail('bad');
  const r: DateTimeFields = { special: null, year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0, usec: 0, tzOffset: null, tzZone: null };
  let haveDate = false;
  let haveTime = false;
  let haveTz = false;
  let bc: boolean | null = null;
  let is2digits = false;
  let isoT = false;
  for (let f = 0; f < fields.length; f++) {
    const { kind, text } = fields[f]!;
    if (isoT && kind !== F.Time && kind !== F.Number) throw new DtFail('bad');
    switch (kind) {
      case F.Date: {
        if (haveDate) throw new DtFail('bad');
        // DecodeDate: runs of separators inside count as one; PostgreSQL 15 accepts one
        // trailing separator ("2092-02-19-") but not two.
        const delim = text.charCodeAt(text.search(/[-/.]/));
        const raw = text.split(String.fromCharCode(delim));
        if (raw.length > 1 && raw[raw.length - 1] === '') raw.pop();
        if (raw[raw.length - 1] === '') throw new DtFail('bad');
        const parts = raw.filter((p) => p !== '');
        if (parts.some((p) => p.length > 10 || Number(p) > 2147483647)) throw new DtFail('field');
        if (parts.length !== 3) throw new DtFail('bad');
        // DecodeNumber: a 3-digit field right after the year is a day of year (1..366),
        // which cannot be followed by a day field.
        if (parts[0]!.length >= 3 && parts[1]!.length === 3 && Number(parts[1]) >= 1 && Number(parts[1]) <= 366) throw new DtFail('bad');
        if (parts[0]!.length >= 3) {
          r.year = Number(parts[0]);
          r.month = Number(parts[1]);
          r.day = Number(parts[2]);
          is2digits = false;
        } else {
          // DateStyle MDY: month, day, year
          r.month = Number(parts[0]);
          r.day = Number(parts[1]);
          r.year = Number(parts[2]);
          is2digits = parts[2]!.length <= 2;
        }
        if (r.year > 2147483647 || r.month > 2147483647 || r.day > 2147483647) throw new DtFail('field');
        haveDate = true;
        break;
      }
      case F.Number: {
        if (text.indexOf('.') >= 0) throw unsupported(`date/time field "${text}" in ${typeName} input`);
        const len = text.length;
        if (isoT || (haveDate && !haveTime && len === 6)) {
          // run-together time hhmmss (after 'T' also hh or hhmm)
          if (haveTime || !(len === 2 || len === 4 || len === 6)) throw new DtFail('bad');
          r.hour = digitsValue(text, 0, 2);
          r.minute = len >= 4 ? digitsValue(text, 2, 4) : 0;
          r.second = len === 6 ? digitsValue(text, 4, 6) : 0;
          haveTime = true;
          isoT = false;
        } else if (!haveDate && len >= 6) {
          // DecodeNumberField: day and month are the last two pairs, the rest the year
          r.day = digitsValue(text, len - 2, len);
          r.month = digitsValue(text, len - 4, len - 2);
          r.year = digitsValue(text, 0, len - 4);
          if (r.year > 2147483647) throw new DtFail('field');
          is2digits = len - 4 === 2;
          haveDate = true;
        } else throw unsupported(`date/time field "${text}" in ${typeName} input`);
        break;
      }
      case F.Time: {
        if (haveTime) throw new DtFail('bad');
        decodeTime(text, r);
        haveTime = true;
        isoT = false;
        break;
      }
      case F.Tz: {
        if (haveTz) throw new DtFail('bad');
        r.tzOffset = decodeTimezone(text);
        haveTz = true;
        break;
      }
      case F.SignedWord: {
        if (text !== '-infinity' || fields.length !== 1) throw new DtFail('bad');
        r.special = '-infinity';
        break;
      }
      case F.Word: {
        if (text === 'bc' || text === 'ad') {
          if (bc !== null) throw new DtFail('bad');
          bc = text === 'bc';
        } else if (text === 't') {
          if (haveTime) throw new DtFail('bad');
          isoT = true;
        } else if (text === 'infinity' || text === 'epoch') {
          if (fields.length !== 1) throw new DtFail('bad');
          r.special = text;
        } else if (zoneAbbreviation(text) !== undefined) {
          if (haveTz) throw new DtFail('bad');
          const a = zoneAbbreviation(text)!;
          if ('zone' in a) r.tzZone = zoneByName(a.zone);
          else r.tzOffset = a.offset;
          haveTz = true;
        } else if (DATE_WORDS.has(text) || /^[a-z]$/.test(text))
          // Words PostgreSQL accepts and paxd does not yet: 0A000, not a wrong 22007.
          throw unsupported(`date/time keyword or time zone abbreviation "${text}" in ${typeName} input`);
        else throw new DtFail('bad'); // PostgreSQL: invalid input syntax (22007)
        break;
      }
      case F.DateWord: {
        if (!haveDate || haveTz) {
          if (/^[a-z]/i.test(text)) throw unsupported(`date/time field "${text}" in ${typeName} input`);
          throw new DtFail('bad');
        }
        const zone = zoneByName(text);
        if (zone === null) throw err(SQLSTATE.invalid_parameter_value, `time zone "${text.toLowerCase()}" not recognized`);
        r.tzZone = zone;
        haveTz = true;
        break;
      }
      default:
        return unreachable(kind);
    }
  }
  if (isoT) throw new DtFail('bad');
  if (r.special !== null) return r;
  if (!haveDate) throw new DtFail('bad');
  // ValidateDate
  if (bc === true) {
    if (r.year <= 0) throw new DtFail('field');
    r.year = -(r.year - 1);
  } else if (is2digits) {
    if (r.year < 70) r.year += 2000;
    else if (r.year < 100) r.year += 1900;
  } else if (r.year <= 0) throw new DtFail('field');
  if (r.month < 1 || r.month > 12) throw new DtFail('mdfield');
  if (r.day < 1 || r.day > 31) throw new DtFail('mdfield');
  if (r.day > daysInMonth(r.year, r.month)) throw new DtFail('field');
  return r;
}

/** DecodeTime: HH:MM, HH:MM:SS[.frac], MM:SS.frac; fraction rounded with rint (ties even). */
function decodeTime(t: string, r: DateTimeFields): void {
  const c1 = t.indexOf(':');
  const c2 = t.indexOf(':', c1 + 1);
  const dot = t.indexOf('.');
  let h: number;
  let m: number;
  let sec = 0;
  let fracFrom = -1;
  const num = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (!isDigit(t.charCodeAt(k))) throw new DtFail('bad');
    return digitsValue(t, from, to);
  };
  if (c2 < 0) {
    if (dot >= 0) {
      // MM:SS.fraction
      h = 0;
      m = num(0, c1);
      sec = num(c1 + 1, dot);
      fracFrom = dot;
    } else {
      h = num(0, c1);
      m = num(c1 + 1, t.length);
    }
  } else {
    h = num(0, c1);
    m = num(c1 + 1, c2);
    const end = dot >= 0 ? dot : t.length;
    sec = num(c2 + 1, end);
    if (dot >= 0) fracFrom = dot;
  }
  let usec = 0;
  if (fracFrom >= 0) {
    const frac = t.slice(fracFrom);
    // A bare trailing '.' is accepted as no fraction, as PostgreSQL does.
    if (frac.indexOf('.', 1) >= 0 || frac.indexOf(':') >= 0) throw new DtFail('bad');
    usec = frac.length < 2 ? 0 : rint(Number('0' + frac) * 1000000);
  }
  if (m > 59 || sec > 60 || usec > 1000000) throw new DtFail('field');
  if (h > 24 || (h === 24 && (m > 0 || sec > 0 || usec > 0))) throw new DtFail('field');
  if (sec === 60 && usec > 0) throw new DtFail('field');
  r.hour = h;
  r.minute = m;
  r.second = sec;
  r.usec = usec;
}

/** C rint(): round to nearest, ties to even. */
function rint(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** DecodeTimezone: ±H, ±HH, ±HHMM (4+ characters run together), ±HH:MM[:SS]; |hours| <= 15. */
function decodeTimezone(t: string): number {
  let i = 1;
  const strtoint = () => {
    const from = i;
    while (i < t.length && isDigit(t.charCodeAt(i))) i++;
    if (i - from > 10) throw new DtFail('tz');
    return digitsValue(t, from, i);
  };
  let hr = strtoint();
  let min = 0;
  let sec = 0;
  if (t.charCodeAt(i) === 58) {
    i++;
    min = strtoint();
    if (t.charCodeAt(i) === 58) {
      i++;
      sec = strtoint();
    }
  } else if (i === t.length && t.length > 3) {
    min = hr % 100;
    hr = Math.floor(hr / 100);
  }
  if (hr > 15 || min >= 60 || sec >= 60) throw new DtFail('tz');
  if (i !== t.length) throw new DtFail('bad');
  const off = (hr * 60 + min) * 60 + sec;
  return t.charCodeAt(0) === 45 ? -off : off;
}

function dateTimeError(kind: DtErr, s: string, typeName: string): PaxdError {
  switch (kind) {
    case 'bad':
      return err(SQLSTATE.invalid_datetime_format, `invalid input syntax for type ${typeName}: "${s}"`);
    case 'field':
      return err(SQLSTATE.datetime_field_overflow, `date/time field value out of range: "${s}"`);
    case 'mdfield':
      // PostgreSQL adds the hint 'Perhaps you need a different "datestyle" setting.'
      return err(SQLSTATE.datetime_field_overflow, `date/time field value out of range: "${s}"`);
    case 'tz':
      return err(SQLSTATE.invalid_time_zone_displacement_value, `time zone displacement out of range: "${s}"`);
    default:
      return unreachable(kind);
  }
}

function decode(s: string, typeName: string): DateTimeFields {
  try {
    return decodeDateTime(s, typeName);
  } catch (e) {
    if (e instanceof DtFail) throw dateTimeError(e.kind, s, typeName);
    throw e;
  }
}

/** IS_VALID_JULIAN of datetime.h: 4714-11 BC (month granularity; astronomical year -4713) to 5874897-12. */
export function isValidJulian(y: number, m: number): boolean {
  return (y > -4713 || (y === -4713 && m >= 11)) && y < 5874898;
}

/** Two ASCII digits at i as a number, or -1. */
function d2(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * Fast path for the canonical layouts data files use, "YYYY-MM-DD" and
 * "YYYY-MM-DD HH:MM:SS[.f…]" (or 'T'), with in-range fields: seconds since 1970 and µs, or
 * null to take the general decoder (which gives PostgreSQL's answer for everything else).
 */
function fastIso(s: string, withTime: boolean): { secs: number; usec: number } | null {
  const n = s.length;
  if (n < 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return null;
  const yh = d2(s, 0);
  const yl = d2(s, 2);
  const mo = d2(s, 5);
  const d = d2(s, 8);
  if (yh < 0 || yl < 0 || mo < 1 || mo > 12 || d < 1) return null;
  const y = yh * 100 + yl;
  if (y === 0 || d > daysInMonth(y, mo)) return null;
  const days = date2j(y, mo, d) - UNIX_EPOCH_JD;
  if (n === 10) return { secs: days * 86400, usec: 0 };
  if (!withTime || n < 19) return null;
  const sep = s.charCodeAt(10);
  if ((sep !== 32 && sep !== 84) || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return null;
  const h = d2(s, 11);
  const mi = d2(s, 14);
  const se = d2(s, 17);
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 59) return null;
  let usec = 0;
  if (n > 19) {
    if (s.charCodeAt(19) !== 46 || n === 20) return null;
    for (let i = 20; i < n; i++) if (!isDigit(s.charCodeAt(i))) return null;
    usec = rint(Number('0' + s.slice(19)) * 1000000);
  }
  return { secs: days * 86400 + h * 3600 + mi * 60 + se, usec };
}

export function parseDate(s: string): number {
  const f = fastIso(s, false);
  if (f !== null) return f.secs / 86400;
  const r = decode(s, 'date');
  if (r.special === 'infinity') return DATEVAL_NOEND;
  if (r.special === '-infinity') return DATEVAL_NOBEGIN;
  if (r.special === 'epoch') return 0;
  const outOfRangeDate = () => err(SQLSTATE.datetime_field_overflow, `date out of range: "${s}"`);
  if (!isValidJulian(r.year, r.month)) throw outOfRangeDate();
  const jd = date2j(r.year, r.month, r.day);
  if (jd < 0 || jd >= DATE_END_JD) throw outOfRangeDate();
  return jd - UNIX_EPOCH_JD;
}

/**
 * timestamp_in / timestamptz_in: µs since 1970 (UTC for timestamptz). A timestamptz without
 * a zone of its own is a local time in `zone` (the session's), resolved as
 * DetermineTimeZoneOffset does across transitions.
 */
export function parseTimestamp(s: string, withTz: boolean, zone: TimeZone = UTC): bigint {
  const f = fastIso(s, true);
  if (f !== null) {
    const secs = withTz && zone !== UTC ? f.secs - offsetForLocal(zone, f.secs) : f.secs;
    return BigInt(secs) * 1000000n + BigInt(f.usec);
  }
  const typeName = withTz ? 'timestamp with time zone' : 'timestamp';
  const r = decode(s, typeName);
  if (r.special === 'infinity') return TS_NOEND;
  if (r.special === '-infinity') return TS_NOBEGIN;
  if (r.special === 'epoch') return 0n;
  const tsOutOfRange = () => err(SQLSTATE.datetime_field_overflow, `timestamp out of range: "${s}"`);
  if (!isValidJulian(r.year, r.month)) throw tsOutOfRange();
  const days = date2j(r.year, r.month, r.day) - UNIX_EPOCH_JD;
  let secs = days * 86400 + r.hour * 3600 + r.minute * 60 + r.second;
  if (withTz) {
    if (r.tzZone !== null) secs -= offsetForLocal(r.tzZone, secs);
    else if (r.tzOffset !== null) secs -= r.tzOffset;
    else secs -= offsetForLocal(zone, secs);
  }
  const us = BigInt(secs) * 1000000n + BigInt(r.usec);
  if (us < TS_MIN_US || us >= TS_END_US) throw tsOutOfRange();
  return us;
}

// ---------------------------------------------------------------------------------------------
// Text output: date_out, timestamp_out, timestamptz_out (DateStyle ISO, in a time zone). The
// layout is written once, as bytes: formatDate/formatTimestamp read them back as a string,
// and the wire's row encoder (../pgwire/row-encoder.ts) writes them straight into DataRow
// messages.
//
//   date          YYYY-MM-DD[ BC]                         at least 4 year digits; BC: years <= 0
//   timestamp     YYYY-MM-DD HH:MM:SS[.ffffff][ BC]       fraction without trailing zeros
//   timestamptz   YYYY-MM-DD HH:MM:SS[.ffffff]+HH[:MM[:SS]][ BC]   local time in the zone, its offset
//   infinities    infinity, -infinity                     (not written by the byte writers)

/** The last day whose y-m-d was computed: neighbouring values are mostly on the same day. */
let ymdDays = NaN;
let ymdY = 0;
let ymdM = 0;
let ymdD = 0;

function civil(days: number): void {
  if (days === ymdDays) return;
  const [y, m, d] = j2date(days + UNIX_EPOCH_JD);
  ymdDays = days;
  ymdY = y;
  ymdM = m;
  ymdD = d;
}

/** Digits of the printed year (1 - y for BC), at least 4. */
function yearWidth(year: number): number {
  let w = 4;
  for (let t = 10000; year >= t && w < 16; t *= 10) w++;
  return w;
}

/** Writes YYYY-MM-DD of the day civil() computed at o; returns the end. */
function putYmd(buf: Uint8Array, o: number): number {
  let year = ymdY <= 0 ? 1 - ymdY : ymdY;
  const w = year < 10000 ? 4 : yearWidth(year);
  for (let k = w - 1; k >= 0; k--) {
    buf[o + k] = 48 + (year % 10);
    year = Math.floor(year / 10);
  }
  o += w;
  buf[o] = 45; // '-'
  buf[o + 1] = 48 + Math.floor(ymdM / 10);
  buf[o + 2] = 48 + (ymdM % 10);
  buf[o + 3] = 45;
  buf[o + 4] = 48 + Math.floor(ymdD / 10);
  buf[o + 5] = 48 + (ymdD % 10);
  return o + 6;
}

function putBC(buf: Uint8Array, o: number): number {
  buf[o] = 32;
  buf[o + 1] = 66; // 'B'
  buf[o + 2] = 67; // 'C'
  return o + 3;
}

/** Bytes of date_out's text of a finite day count (DATEVAL_NOBEGIN/NOEND excluded). */
export function dateTextLength(days: number): number {
  civil(days);
  const year = ymdY <= 0 ? 1 - ymdY : ymdY;
  return (year < 10000 ? 10 : yearWidth(year) + 6) + (ymdY <= 0 ? 3 : 0);
}

/** Writes date_out's text of a finite day count at o; returns the end (o + dateTextLength). */
export function writeDateText(buf: Uint8Array, o: number, days: number): number {
  civil(days);
  o = putYmd(buf, o);
  return ymdY <= 0 ? putBC(buf, o) : o;
}

/** Bytes of ".ffffff" without trailing zeros for microseconds 0..999999 (0 for none). */
function fracLength(usec: number): number {
  if (usec === 0) return 0;
  let len = 7;
  while (usec % 10 === 0) {
    usec /= 10;
    len--;
  }
  return len;
}

/** Bytes of EncodeTimezone's "+HH", "+HH:MM" or "+HH:MM:SS" for an offset east in seconds. */
function offsetLength(east: number): number {
  const abs = east < 0 ? -east : east;
  // POSIX specs allow offsets to 167 hours: three hour digits from 100 on.
  return (abs % 60 !== 0 ? 9 : abs % 3600 !== 0 ? 6 : 3) + (abs >= 360000 ? 1 : 0);
}

/** EncodeTimezone (DateStyle ISO): the sign, two-digit hours, then minutes and seconds when not zero. */
function putOffset(buf: Uint8Array, o: number, east: number): number {
  const abs = east < 0 ? -east : east;
  buf[o] = east < 0 ? 45 : 43; // '-' or '+'
  const hh = Math.floor(abs / 3600);
  const mm = Math.floor(abs / 60) % 60;
  const ss = abs % 60;
  if (hh >= 100) {
    buf[o + 1] = 48 + Math.floor(hh / 100);
    o++;
  }
  buf[o + 1] = 48 + (Math.floor(hh / 10) % 10);
  buf[o + 2] = 48 + (hh % 10);
  o += 3;
  if (mm === 0 && ss === 0) return o;
  buf[o] = 58;
  buf[o + 1] = 48 + Math.floor(mm / 10);
  buf[o + 2] = 48 + (mm % 10);
  o += 3;
  if (ss === 0) return o;
  buf[o] = 58;
  buf[o + 1] = 48 + Math.floor(ss / 10);
  buf[o + 2] = 48 + (ss % 10);
  return o + 3;
}

/**
 * Bytes of timestamp_out's text for a finite value given as whole seconds since 1970 (rounded
 * down) and microseconds 0..999999; with a zone (timestamptz), the local time there and its
 * offset ("+02", "+05:30", "+00:53:28").
 */
export function timestampTextLength(secs: number, usec: number, tz: TimeZone | null): number {
  let off = 0;
  if (tz !== null) {
    off = tz.offsetAt(secs);
    secs += off;
  }
  const days = Math.floor(secs / 86400);
  return dateTextLength(days) + 9 + fracLength(usec) + (tz !== null ? offsetLength(off) : 0);
}

/** Writes timestamp_out's text at o (see timestampTextLength); returns the end. */
export function writeTimestampText(buf: Uint8Array, o: number, secs: number, usec: number, tz: TimeZone | null): number {
  let off = 0;
  if (tz !== null) {
    off = tz.offsetAt(secs);
    secs += off;
  }
  const days = Math.floor(secs / 86400);
  const tod = secs - days * 86400;
  civil(days);
  const bc = ymdY <= 0;
  o = putYmd(buf, o);
  const hh = Math.floor(tod / 3600);
  const mm = Math.floor(tod / 60) % 60;
  const ss = tod % 60;
  buf[o] = 32;
  buf[o + 1] = 48 + Math.floor(hh / 10);
  buf[o + 2] = 48 + (hh % 10);
  buf[o + 3] = 58; // ':'
  buf[o + 4] = 48 + Math.floor(mm / 10);
  buf[o + 5] = 48 + (mm % 10);
  buf[o + 6] = 58;
  buf[o + 7] = 48 + Math.floor(ss / 10);
  buf[o + 8] = 48 + (ss % 10);
  o += 9;
  if (usec !== 0) {
    const kept = fracLength(usec) - 1; // digits after the '.'
    let f = usec;
    for (let k = 6; k > kept; k--) f = Math.floor(f / 10); // drop the trailing zeros
    buf[o] = 46; // '.'
    for (let k = kept; k >= 1; k--) {
      buf[o + k] = 48 + (f % 10);
      f = Math.floor(f / 10);
    }
    o += kept + 1;
  }
  if (tz !== null) o = putOffset(buf, o, off);
  return bc ? putBC(buf, o) : o;
}

/** Seconds since 1970 (rounded down) and microseconds 0..999999 of a µs count. */
export function splitTimestamp(us: bigint): [number, number] {
  let secs = us / 1000000n;
  let usec = Number(us - secs * 1000000n);
  if (usec < 0) {
    usec += 1000000;
    secs -= 1n;
  }
  return [Number(secs), usec];
}

/** date_out: YYYY-MM-DD with at least 4 year digits, " BC" for years <= 0, or [-]infinity. */
export function formatDate(days: number): string {
  if (days === DATEVAL_NOEND) return 'infinity';
  if (days === DATEVAL_NOBEGIN) return '-infinity';
  if (days !== lastDateDays) {
    lastDate = latin1(scratch, writeDateText(scratch, 0, days));
    lastDateDays = days;
  }
  return lastDate;
}

/** formatDate's last answer: dates of neighbouring rows are mostly the same day. */
let lastDateDays = NaN;
let lastDate = '';

/**
 * timestamp_out / timestamptz_out with DateStyle ISO:
 * "2024-01-02 03:04:05.123456" (fraction without trailing zeros, none when zero); for
 * timestamptz the local time in `zone` and its offset ("+02", "+05:30"); " BC" last;
 * "infinity"/"-infinity".
 */
export function formatTimestamp(us: bigint, withTz: boolean, zone: TimeZone = UTC): string {
  if (us === TS_NOEND) return 'infinity';
  if (us === TS_NOBEGIN) return '-infinity';
  const [secs, usec] = splitTimestamp(us);
  return latin1(scratch, writeTimestampText(scratch, 0, secs, usec, withTz ? zone : null));
}

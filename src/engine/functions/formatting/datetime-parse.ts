/**
 * to_date(text, text) and to_timestamp(text, text) (PostgreSQL 15 docs 9.8; formatting.c's
 * DCH_from_char and do_to_timestamp): the template's keywords read fields from the input,
 * then the fields make a date and time.
 *
 *   to_date('05 Dec 2000', 'DD Mon YYYY')                   → 2000-12-05
 *   to_timestamp('2024-03-05 2:07 PM', 'YYYY-MM-DD HH:MI AM') → 2024-03-05 14:07:00 (session zone)
 *   to_date('2024-13-01', 'YYYY-MM-DD')                      → 22008 date/time field value out of range
 *
 * Outside FX mode, spaces before a field are skipped and a template space or separator
 * matches one space or separator of the input, or nothing; a literal character skips one
 * input character (what it is is not checked). A numeric field reads its keyword's width
 * of digits, or as many as there are when FM is given or the next template item is not a
 * digit field. Unknown or contradicting fields are 22007; fields out of range 22008.
 */
import { DATE_END_JD, PaxdError, SQLSTATE, UNIX_EPOCH_JD, US_PER_DAY, date2j, daysInMonth, isLeap, j2date, j2day, type TimeZone } from '../../../types/index.js';
import { notSupported } from '../../errors.js';
import { timestampToTimestamptz } from '../../exec/datetime.js';
import { DAYS, DT_DIGITS, type DtKey, MONTHS, type Node, RM_MONTHS, type Template } from './template.js';

type Mode = 'none' | 'gregorian' | 'iso';

/** TmFromChar: the fields read, 0 when not given (as PostgreSQL's, which zero means unset). */
interface Fields {
  mode: Mode;
  hh: number;
  pm: number;
  mi: number;
  ss: number;
  ssss: number;
  d: number;
  dd: number;
  ddd: number;
  mm: number;
  ms: number;
  year: number;
  bc: number;
  ww: number;
  w: number;
  cc: number;
  j: number;
  us: number;
  yysz: number;
  clock12: boolean;
  tzsign: number;
  tzh: number;
  tzm: number;
  ff: number;
}

const ISO_KEYS: ReadonlySet<DtKey> = new Set<DtKey>(['IDDD', 'ID', 'IW', 'IYYY', 'IYY', 'IY', 'I']);
const GREGORIAN_KEYS: ReadonlySet<DtKey> = new Set<DtKey>([
  'DDD', 'DD', 'D', 'MM', 'MONTH', 'Month', 'month', 'MON', 'Mon', 'mon', 'RM', 'rm', 'WW', 'W', 'Y,YYY', 'YYYY', 'YYY', 'YY', 'Y',
]);

const formatError = (message: string, detail?: string, hint?: string): PaxdError =>
  new PaxdError('invalid_input', SQLSTATE.invalid_datetime_format, message, { ...(detail !== undefined ? { detail } : {}), ...(hint !== undefined ? { hint } : {}) });

const fieldOverflow = (input: string): PaxdError => new PaxdError('invalid_input', SQLSTATE.datetime_field_overflow, `date/time field value out of range: "${input}"`);

const FM_HINT = 'If your source string is not fixed-width, try using the "FM" modifier.';

/** The name a keyword goes by in messages: its spelling in the template. */
function keyName(n: Node<DtKey> & { kind: 'key' }): string {
  return n.key;
}

/** is_separator_char on the input. */
function isSeparatorChar(c: string | undefined): boolean {
  if (c === undefined) return false;
  const x = c.charCodeAt(0);
  return x > 0x20 && x < 0x7f && c !== '"' && !/[A-Za-z0-9]/.test(c);
}

const isSpace = (c: string | undefined): boolean => c !== undefined && /^[ \t\n\r\f\v]$/.test(c);

/** The words a name field matches (seq_search_ascii: the first that is a case-insensitive prefix). */
const AMPM = ['am', 'pm', 'AM', 'PM'];
const AMPM_LONG = ['a.m.', 'p.m.', 'A.M.', 'P.M.'];
const ADBC = ['ad', 'bc', 'AD', 'BC'];
const ADBC_LONG = ['a.d.', 'b.c.', 'A.D.', 'B.C.'];
const MONTHS_SHORT = MONTHS.map((m) => m.slice(0, 3));
const DAYS_SHORT = DAYS.map((d) => d.slice(0, 3));
const RM_LOWER = RM_MONTHS.map((r) => r.toLowerCase());

class Reader {
  i = 0;
  /** Characters skipped beyond what the template asked for (spaces and separators). */
  extraSkip = 0;
  constructor(readonly s: string) {}
  get done(): boolean {
    return this.i >= this.s.length;
  }
  peek(k = 0): string | undefined {
    return this.s[this.i + k];
  }
}

/** from_char_set_int: a field set twice must agree. */
function setField(f: Fields, field: keyof Fields, value: number, n: Node<DtKey> & { kind: 'key' }): void {
  const cur = f[field] as number;
  if (cur !== 0 && cur !== value)
    throw formatError(`conflicting values for "${keyName(n)}" field in formatting string`, 'This value contradicts a previous setting for the same field type.');
  (f[field] as number) = value;
}

/** is_next_separator: whether the item after `k` is not a digit field (or there is none). */
function nextIsSeparator(t: Template<DtKey>, k: number): boolean {
  const n = t[k]!;
  if (n.kind === 'key' && n.th !== null) return true;
  const next = t[k + 1];
  if (next === undefined) return true;
  if (next.kind === 'key') return !DT_DIGITS.has(next.key);
  return !/^[0-9]$/.test(next.ch);
}

/** from_char_parse_int_len: an integer of `len` characters (or, loosely, as many digits as there are). */
function parseInt(r: Reader, len: number, t: Template<DtKey>, k: number): { value: number; used: number } {
  const n = t[k] as Node<DtKey> & { kind: 'key' };
  const init = r.i;
  while (isSpace(r.peek())) r.i++;
  const copy = r.s.slice(r.i, r.i + len);
  let value: number;
  if (n.fm || nextIsSeparator(t, k)) {
    // strtol: spaces, a sign, digits.
    const m = /^[ \t\n\r\f\v]*[+-]?\d+/.exec(r.s.slice(init));
    if (m === null) r.i = init;
    else {
      value = Number(m[0].trim());
      r.i = init + m[0].length;
    }
  } else {
    if ([...copy].length < len)
      throw formatError(`source string too short for "${keyName(n)}" formatting field`, `Field requires ${len} characters, but only ${[...copy].length} remain.`, FM_HINT);
    const m = /^[ \t\n\r\f\v]*[+-]?\d+/.exec(copy);
    const used = m === null ? 0 : m[0].length;
    if (used > 0 && used < len) throw formatError(`invalid value "${copy}" for "${keyName(n)}"`, `Field requires ${len} characters, but only ${used} could be parsed.`, FM_HINT);
    if (m !== null) value = Number(m[0].trim());
    r.i += used;
  }
  if (r.i === init) throw formatError(`invalid value "${copy}" for "${keyName(n)}"`, 'Value must be an integer.');
  value = value!;
  if (!(value >= -2147483648 && value <= 2147483647))
    throw new PaxdError('invalid_input', SQLSTATE.datetime_field_overflow, `value for "${keyName(n)}" in source string is out of range`, { detail: 'Value must be in the range -2147483648 to 2147483647.' });
  return { value, used: r.i - init };
}

/** from_char_seq_search: the index of the word the input starts with. */
function seqSearch(r: Reader, words: readonly string[], n: Node<DtKey> & { kind: 'key' }): number {
  const rest = r.s.slice(r.i);
  const lower = rest.toLowerCase();
  for (let w = 0; w < words.length; w++) {
    if (lower.startsWith(words[w]!.toLowerCase())) {
      r.i += words[w]!.length;
      return w;
    }
  }
  const word = rest.split(/[ \t\n\r\f\v]/)[0]!;
  throw formatError(`invalid value "${word}" for "${keyName(n)}"`, 'The given value did not match any of the allowed values for this field.');
}

/** SKIP_THth: a TH/th suffix skips two input characters. */
function skipTh(r: Reader, n: Node<DtKey> & { kind: 'key' }): void {
  if (n.th !== null) r.i = Math.min(r.s.length, r.i + 2);
}

/** adjust_partial_year_to_2020: 2-digit years to 1970–2069, 3-digit ones to 1100–2099. */
function partialYear(y: number): number {
  if (y < 70) return y + 2000;
  if (y < 100) return y + 1900;
  if (y < 520) return y + 2000;
  if (y < 1000) return y + 1000;
  return y;
}

/** DCH_from_char: the template's fields out of `input`. */
function readFields(t: Template<DtKey>, input: string): Fields {
  const f: Fields = { mode: 'none', hh: 0, pm: 0, mi: 0, ss: 0, ssss: 0, d: 0, dd: 0, ddd: 0, mm: 0, ms: 0, year: 0, bc: 0, ww: 0, w: 0, cc: 0, j: 0, us: 0, yysz: 0, clock12: false, tzsign: 0, tzh: 0, tzm: 0, ff: 0 };
  const r = new Reader(input);
  let fx = false;
  for (let k = 0; k < t.length && !r.done; k++) {
    const n = t[k]!;
    if (!fx && (n.kind !== 'key' || n.key !== 'FX') && (n.kind === 'key' || k === 0)) {
      while (isSpace(r.peek())) {
        r.i++;
        r.extraSkip++;
      }
    }
    if (n.kind === 'char') {
      if (n.separator || n.space) {
        if (!fx) {
          r.extraSkip--;
          if (isSpace(r.peek()) || isSeparatorChar(r.peek())) {
            r.i++;
            r.extraSkip++;
          }
        } else r.i += String.fromCodePoint(r.s.codePointAt(r.i)!).length;
      } else if (!fx) {
        if (r.extraSkip > 0) r.extraSkip--;
        else r.i += String.fromCodePoint(r.s.codePointAt(r.i)!).length;
      } else r.i += String.fromCodePoint(r.s.codePointAt(r.i)!).length;
      continue;
    }
    const mode: Mode = ISO_KEYS.has(n.key) ? 'iso' : GREGORIAN_KEYS.has(n.key) ? 'gregorian' : 'none';
    if (mode !== 'none') {
      if (f.mode === 'none') f.mode = mode;
      else if (f.mode !== mode) throw formatError('invalid combination of date conventions', undefined, 'Do not mix Gregorian and ISO week date conventions in a formatting template.');
    }
    const int = (field: keyof Fields | null, len = n.key.length): number => {
      const { value, used } = parseInt(r, len, t, k);
      if (field !== null) setField(f, field, value, n);
      return used;
    };
    switch (n.key) {
      case 'FX':
        fx = true;
        break;
      case 'A.M.':
      case 'P.M.':
      case 'a.m.':
      case 'p.m.':
        setField(f, 'pm', seqSearch(r, AMPM_LONG, n) % 2, n);
        f.clock12 = true;
        break;
      case 'AM':
      case 'PM':
      case 'am':
      case 'pm':
        setField(f, 'pm', seqSearch(r, AMPM, n) % 2, n);
        f.clock12 = true;
        break;
      case 'HH':
      case 'HH12':
        int('hh', 2);
        f.clock12 = true;
        skipTh(r, n);
        break;
      case 'HH24':
        int('hh', 2);
        skipTh(r, n);
        break;
      case 'MI':
        int('mi');
        skipTh(r, n);
        break;
      case 'SS':
        int('ss');
        skipTh(r, n);
        break;
      case 'MS': {
        const used = int('ms', 3);
        // 25 is 0.25 and 250 is 0.25 too; 025 is 0.025.
        f.ms *= used === 1 ? 100 : used === 2 ? 10 : 1;
        skipTh(r, n);
        break;
      }
      case 'FF1':
      case 'FF2':
      case 'FF3':
      case 'FF4':
      case 'FF5':
      case 'FF6':
      case 'US': {
        if (n.key !== 'US') f.ff = Number(n.key[2]);
        const used = int('us', n.key === 'US' ? 6 : f.ff);
        f.us *= 10 ** (6 - Math.min(6, used));
        skipTh(r, n);
        break;
      }
      case 'SSSS':
      case 'SSSSS':
        int('ssss');
        skipTh(r, n);
        break;
      case 'tz':
      case 'TZ':
      case 'OF':
        throw notSupported(`formatting field "${n.key}" in to_date/to_timestamp (only to_char)`);
      case 'TZH': {
        const c = r.peek();
        if (c === '+' || c === '-' || c === ' ') {
          f.tzsign = c === '-' ? -1 : 1;
          r.i++;
        } else f.tzsign = r.extraSkip > 0 && r.s[r.i - 1] === '-' ? -1 : 1;
        int('tzh', 2);
        break;
      }
      case 'TZM':
        if (f.tzsign === 0) f.tzsign = 1;
        int('tzm', 2);
        break;
      case 'A.D.':
      case 'B.C.':
      case 'a.d.':
      case 'b.c.':
        setField(f, 'bc', seqSearch(r, ADBC_LONG, n) % 2, n);
        break;
      case 'AD':
      case 'BC':
      case 'ad':
      case 'bc':
        setField(f, 'bc', seqSearch(r, ADBC, n) % 2, n);
        break;
      case 'MONTH':
      case 'Month':
      case 'month':
        setField(f, 'mm', seqSearch(r, MONTHS, n) + 1, n);
        break;
      case 'MON':
      case 'Mon':
      case 'mon':
        setField(f, 'mm', seqSearch(r, MONTHS_SHORT, n) + 1, n);
        break;
      case 'MM':
        int('mm');
        skipTh(r, n);
        break;
      case 'DAY':
      case 'Day':
      case 'day':
        setField(f, 'd', seqSearch(r, DAYS, n) + 1, n);
        break;
      case 'DY':
      case 'Dy':
      case 'dy':
        setField(f, 'd', seqSearch(r, DAYS_SHORT, n) + 1, n);
        break;
      case 'DDD':
        int('ddd');
        skipTh(r, n);
        break;
      case 'IDDD':
        int('ddd', 3);
        skipTh(r, n);
        break;
      case 'DD':
        int('dd');
        skipTh(r, n);
        break;
      case 'D':
        int('d');
        skipTh(r, n);
        break;
      case 'ID': {
        int('d', 1);
        // ISO's 1 (Monday) … 7 (Sunday) to Gregorian's 1 (Sunday) … 7.
        f.d = f.d + 1 > 7 ? 1 : f.d + 1;
        skipTh(r, n);
        break;
      }
      case 'WW':
      case 'IW':
        int('ww');
        skipTh(r, n);
        break;
      case 'Q':
        // Read and ignored: which day of the quarter would it be? (as PostgreSQL does)
        int(null);
        skipTh(r, n);
        break;
      case 'CC':
        int('cc');
        skipTh(r, n);
        break;
      case 'Y,YYY': {
        const m = /^[ \t\n\r\f\v]*([+-]?\d+),(\d{1,3})/.exec(r.s.slice(r.i));
        if (m === null) throw formatError('invalid input string for "Y,YYY"');
        setField(f, 'year', Number(m[1]) * 1000 + Number(m[2]), n);
        f.yysz = 4;
        r.i += m[0].length;
        skipTh(r, n);
        break;
      }
      case 'YYYY':
      case 'IYYY':
        int('year');
        f.yysz = 4;
        skipTh(r, n);
        break;
      case 'YYY':
      case 'IYY':
      case 'YY':
      case 'IY':
      case 'Y':
      case 'I': {
        const used = int('year');
        if (used < 4) f.year = partialYear(f.year);
        f.yysz = n.key.length;
        skipTh(r, n);
        break;
      }
      case 'RM':
      case 'rm':
        setField(f, 'mm', 12 - seqSearch(r, RM_LOWER, n), n);
        break;
      case 'W':
        int('w');
        skipTh(r, n);
        break;
      case 'J':
        int('j');
        skipTh(r, n);
        break;
      default: {
        const never: never = n.key;
        throw new Error(`to_timestamp: keyword ${String(never)}`);
      }
    }
    if (!fx) {
      r.extraSkip = 0;
      while (isSpace(r.peek())) {
        r.i++;
        r.extraSkip++;
      }
    }
  }
  return f;
}

/** isoweek2j: the Julian day of the Monday of ISO week `week` of ISO year `year`. */
function isoWeekToJ(year: number, week: number): number {
  const day4 = date2j(year, 1, 4);
  const day0 = j2day(day4 - 1);
  return (week - 1) * 7 + (day4 - day0);
}

const YSUM = [
  [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365],
  [0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366],
];

interface Parsed {
  /** Astronomical year, month, day. */
  year: number;
  mon: number;
  mday: number;
  /** µs of the day. */
  time: bigint;
  /** Seconds east, when TZH/TZM were given. */
  zone: number | null;
}

/** do_to_timestamp: the fields to a date and time, range-checked. */
function toParts(t: Template<DtKey>, input: string): Parsed {
  const f = readFields(t, input);
  let year = 0;
  let mon = 1;
  let mday = 1;
  let hour = 0;
  let min = 0;
  let sec = 0;
  let fmYear = false;
  let fmMonth = false;
  let fmDay = false;
  if (f.ssss !== 0) {
    hour = Math.trunc(f.ssss / 3600);
    min = Math.trunc((f.ssss % 3600) / 60);
    sec = f.ssss % 60;
  }
  if (f.ss !== 0) sec = f.ss;
  if (f.mi !== 0) min = f.mi;
  if (f.hh !== 0) hour = f.hh;
  if (f.clock12) {
    if (hour < 1 || hour > 12) throw formatError(`hour "${hour}" is invalid for the 12-hour clock`, undefined, 'Use the 24-hour clock, or give an hour between 1 and 12.');
    if (f.pm !== 0 && hour < 12) hour += 12;
    else if (f.pm === 0 && hour === 12) hour = 0;
  }
  if (f.year !== 0) {
    if (f.cc !== 0 && f.yysz <= 2) {
      const cc = f.bc !== 0 ? -f.cc : f.cc;
      year = f.year % 100;
      if (year !== 0) year = cc >= 0 ? year + (cc - 1) * 100 : (cc + 1) * 100 - year + 1;
      else year = cc * 100 + (cc >= 0 ? 0 : 1);
    } else {
      year = f.bc !== 0 ? -f.year : f.year;
      if (year < 0) year++;
    }
    fmYear = true;
  } else if (f.cc !== 0) {
    const cc = f.bc !== 0 ? -f.cc : f.cc;
    year = cc >= 0 ? (cc - 1) * 100 + 1 : cc * 100 + 1;
    fmYear = true;
  }
  if (f.j !== 0) {
    [year, mon, mday] = j2date(f.j);
    fmYear = fmMonth = fmDay = true;
  }
  if (f.ww !== 0) {
    if (f.mode === 'iso') {
      let jd = isoWeekToJ(year, f.ww);
      if (f.d !== 0) jd += f.d > 1 ? f.d - 2 : 6;
      [year, mon, mday] = j2date(jd);
      fmYear = fmMonth = fmDay = true;
    } else f.ddd = (f.ww - 1) * 7 + 1;
  }
  if (f.w !== 0) f.dd = (f.w - 1) * 7 + 1;
  if (f.dd !== 0) {
    mday = f.dd;
    fmDay = true;
  }
  if (f.mm !== 0) {
    mon = f.mm;
    fmMonth = true;
  }
  if (f.ddd !== 0 && (mon <= 1 || mday <= 1)) {
    if (year === 0 && f.bc === 0) throw formatError('cannot calculate day of year without year information');
    if (f.mode === 'iso') {
      [year, mon, mday] = j2date(isoWeekToJ(year, 1) - 1 + f.ddd);
      fmYear = fmMonth = fmDay = true;
    } else {
      const y = YSUM[isLeap(year) ? 1 : 0]!;
      let i = 1;
      for (; i <= 12; i++) if (f.ddd <= y[i]!) break;
      if (mon <= 1) mon = i;
      if (mday <= 1) mday = f.ddd - y[i - 1]!;
      fmMonth = fmDay = true;
    }
  }
  const fsec = f.ms * 1000 + f.us;
  // ValidateDate: the month, a day of 1..31, the day of the month once year, month and day are all known.
  if ((fmMonth && (mon < 1 || mon > 12)) || (fmDay && (mday < 1 || mday > 31))) throw fieldOverflow(input);
  if (fmYear && fmMonth && fmDay && mday > daysInMonth(year, mon)) throw fieldOverflow(input);
  if (hour < 0 || hour >= 24 || min < 0 || min >= 60 || sec < 0 || sec >= 60 || fsec < 0 || fsec >= 1e6) throw fieldOverflow(input);
  let zone: number | null = null;
  if (f.tzsign !== 0) {
    if (f.tzh < 0 || f.tzh > 15 || f.tzm < 0 || f.tzm >= 60)
      throw new PaxdError('invalid_input', SQLSTATE.invalid_time_zone_displacement_value, `time zone displacement out of range: "${input}"`);
    zone = f.tzsign * (f.tzh * 3600 + f.tzm * 60);
  }
  return { year, mon, mday, time: BigInt(((hour * 60 + min) * 60 + sec) * 1e6 + fsec), zone };
}

/** IS_VALID_JULIAN: from 4714-11-24 BC. */
function validJulian(y: number, m: number, d: number): boolean {
  return y > -4713 || (y === -4713 && (m > 11 || (m === 11 && d >= 24)));
}

/** to_date(text, text): days since 1970. */
export function toDate(t: Template<DtKey>, input: string): number {
  const p = toParts(t, input);
  const jd = validJulian(p.year, p.mon, p.mday) ? date2j(p.year, p.mon, p.mday) : -1;
  if (jd < 0 || jd >= DATE_END_JD)
    throw new PaxdError('invalid_input', SQLSTATE.datetime_field_overflow, `date out of range: "${input}"`);
  return jd - UNIX_EPOCH_JD;
}

const PG_EPOCH_SECS = 946684800;
const PG_EPOCH_SECS_N = 946684800n;

/** C's "%g": 6 significant digits, trailing zeros dropped, an exponent outside 1e-4 … 1e6. */
function cFormatG(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const exp = Math.floor(Math.log10(Math.abs(Number(x.toPrecision(6)))));
  if (exp < -4 || exp >= 6) {
    const [m, e] = x.toExponential(5).split('e');
    const mant = m!.includes('.') ? m!.replace(/0+$/, '').replace(/\.$/, '') : m!;
    const n = Number(e);
    return `${mant}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  const s = x.toFixed(Math.max(0, 5 - exp));
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

/**
 * to_timestamp(double precision): seconds since 1970 as a timestamptz, rounded to µs (rint);
 * ±Infinity are the infinite timestamps, NaN and values out of range are 22008.
 */
export function epochToTimestamp(seconds: number): bigint {
  if (Number.isNaN(seconds)) throw new PaxdError('invalid_input', SQLSTATE.datetime_field_overflow, 'timestamp cannot be NaN');
  if (seconds === Infinity) return 9223372036854775807n;
  if (seconds === -Infinity) return -9223372036854775808n;
  const outOfRange = () => new PaxdError('invalid_input', SQLSTATE.datetime_field_overflow, `timestamp out of range: "${cFormatG(seconds)}"`);
  // From 4714-11-24 BC; paxd's timestamps (µs since 1970 in an int64) end before PostgreSQL's 294277 AD.
  if (seconds < -210866803200 || seconds >= 9223372036854) throw outOfRange();
  // As PostgreSQL computes it, from its own epoch (2000-01-01): the rounding is the same.
  const us = (seconds - PG_EPOCH_SECS) * 1e6;
  const even = Math.abs(us - Math.trunc(us)) === 0.5 ? 2 * Math.round(us / 2) : Math.round(us);
  const v = BigInt(even) + PG_EPOCH_SECS_N * 1_000_000n;
  if (v < -210866803200000000n || v >= 9223372036854775807n) throw outOfRange();
  return v;
}

/** to_timestamp(text, text): a timestamptz, the local time read in `zone` unless TZH/TZM gave one. */
export function toTimestamp(t: Template<DtKey>, input: string, zone: TimeZone): bigint {
  const p = toParts(t, input);
  const outOfRange = () => new PaxdError('invalid_input', SQLSTATE.datetime_field_overflow, 'timestamp out of range');
  if (!validJulian(p.year, p.mon, p.mday)) throw outOfRange();
  const local = BigInt(date2j(p.year, p.mon, p.mday) - UNIX_EPOCH_JD) * US_PER_DAY + p.time;
  if (local >= 9223372036854775807n - US_PER_DAY || local < -210866803200000000n) throw outOfRange();
  return p.zone !== null ? local - BigInt(p.zone) * 1_000_000n : timestampToTimestamptz(local, zone);
}

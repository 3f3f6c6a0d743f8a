/**
 * PostgreSQL's `interval`: months, days and microseconds kept apart, because a month and a
 * day have no fixed length (PostgreSQL 15 docs 8.5.4; utils/adt/timestamp.c). paxd computes
 * with intervals in SQL expressions but does not store them in tables (no column type).
 *
 * The engine value is 16 bytes, PostgreSQL's struct Interval in little-endian order:
 *
 *   offset 0   int64  time    microseconds
 *   offset 8   int32  day     days
 *   offset 12  int32  month   months
 *
 *   formatInterval(makeInterval(14, 3, 14706000000n))  // '1 year 2 mons 3 days 04:05:06'
 *   parseInterval('1.5 days')                          // { months: 0, days: 1, us: 43200000000n }
 *
 * Text output is IntervalStyle `postgres` (EncodeInterval in datetime.c); input accepts the
 * `postgres` forms: `[@] N unit [N unit …] [[+|-]hh:mm[:ss[.f]]] [ago]` with fractional units
 * cascading down (DecodeInterval), and a bare number whose unit the typmod's range gives.
 */
import { PaxdError, SQLSTATE, unreachable } from './errors.js';
import { type DateUnit, unitOf } from './datetime.js';

export interface IntervalParts {
  readonly months: number;
  readonly days: number;
  readonly us: bigint;
}

export const US_PER_SECOND = 1_000_000n;
export const US_PER_MINUTE = 60_000_000n;
export const US_PER_HOUR = 3_600_000_000n;
export const US_PER_DAY = 86_400_000_000n;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** 22008 `interval out of range` (timestamp.c). */
export function intervalOutOfRange(): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.datetime_field_overflow, 'interval out of range');
}

function badSyntax(text: string): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.invalid_datetime_format, `invalid input syntax for type interval: "${text}"`);
}

function fieldOverflow(text: string): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.datetime_field_overflow, `interval field value out of range: "${text}"`);
}

/** Builds the 16-byte value; fails with 22008 when a field leaves its integer range. */
export function makeInterval(months: number, days: number, us: bigint): Uint8Array {
  if (!Number.isInteger(months) || !Number.isInteger(days) || months < INT32_MIN || months > INT32_MAX || days < INT32_MIN || days > INT32_MAX || us < INT64_MIN || us > INT64_MAX)
    throw intervalOutOfRange();
  const b = new Uint8Array(16);
  const v = new DataView(b.buffer);
  v.setBigInt64(0, us, true);
  v.setInt32(8, days, true);
  v.setInt32(12, months, true);
  return b;
}

export function intervalParts(b: Uint8Array): IntervalParts {
  const v = new DataView(b.buffer, b.byteOffset, 16);
  return { us: v.getBigInt64(0, true), days: v.getInt32(8, true), months: v.getInt32(12, true) };
}

/** interval_cmp_value: a month is 30 days and a day 24 hours for ordering and equality. */
export function intervalSpan(b: Uint8Array): bigint {
  const p = intervalParts(b);
  return p.us + (BigInt(p.days) + BigInt(p.months) * 30n) * US_PER_DAY;
}

export function compareInterval(a: Uint8Array, b: Uint8Array): number {
  const x = intervalSpan(a);
  const y = intervalSpan(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Output: EncodeInterval, IntervalStyle postgres

/**
 *   '1 year 2 mons 3 days 04:05:06', '-1 days +01:00:00', '00:00:00.1', '100:00:00'
 * Each nonzero date field after a negative one carries an explicit '+' (AddPostgresIntPart).
 */
export function formatInterval(b: Uint8Array): string {
  const p = intervalParts(b);
  const year = Math.trunc(p.months / 12);
  const mon = p.months % 12;
  let out = '';
  let isZero = true;
  let isBefore = false;
  const part = (value: number, unit: string) => {
    if (value === 0) return;
    out += `${isZero ? '' : ' '}${isBefore && value > 0 ? '+' : ''}${value} ${unit}${value !== 1 ? 's' : ''}`;
    isBefore = value < 0;
    isZero = false;
  };
  part(year, 'year');
  part(mon, 'mon');
  part(p.days, 'day');
  if (isZero || p.us !== 0n) {
    const neg = p.us < 0n;
    let t = neg ? -p.us : p.us;
    const hour = t / US_PER_HOUR;
    t -= hour * US_PER_HOUR;
    const min = t / US_PER_MINUTE;
    t -= min * US_PER_MINUTE;
    const sec = t / US_PER_SECOND;
    const frac = t - sec * US_PER_SECOND;
    out += `${isZero ? '' : ' '}${neg ? '-' : isBefore ? '+' : ''}${pad2(hour)}:${pad2(min)}:${pad2(sec)}`;
    if (frac !== 0n) out += '.' + frac.toString().padStart(6, '0').replace(/0+$/, '');
  }
  return out;
}

function pad2(n: bigint): string {
  return n < 10n ? `0${n}` : String(n);
}

// ---------------------------------------------------------------------------------------------
// Input: DecodeInterval (postgres style) and AdjustIntervalForTypmod

/** INTERVAL_MASK bits of the typmod's range (datetime.h: MONTH 1, YEAR 2, DAY 3, HOUR 10, MINUTE 11, SECOND 12). */
export const INTERVAL_RANGE = Object.freeze({
  MONTH: 1 << 1,
  YEAR: 1 << 2,
  DAY: 1 << 3,
  HOUR: 1 << 10,
  MINUTE: 1 << 11,
  SECOND: 1 << 12,
  FULL: 0x7fff,
});

type Unit = 'us' | 'ms' | 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month' | 'year' | 'decade' | 'century' | 'millennium';

/**
 * The unit a word names for interval input: deltatktbl's spellings (./datetime.ts, shared with
 * date_trunc and extract), of which DecodeInterval takes these; quarter and timezone* are
 * "invalid input syntax" there.
 */
const INTERVAL_UNIT: Partial<Record<DateUnit, Unit>> = {
  microseconds: 'us', milliseconds: 'ms', second: 'second', minute: 'minute', hour: 'hour', day: 'day',
  week: 'week', month: 'month', year: 'year', decade: 'decade', century: 'century', millennium: 'millennium',
};

function intervalUnit(word: string): Unit | undefined {
  const u = unitOf(word);
  return u === undefined ? undefined : INTERVAL_UNIT[u];
}

/** The unit a bare trailing number has under the typmod's range (DecodeInterval, DTK_NUMBER). */
function unitOfRange(range: number): Unit {
  const R = INTERVAL_RANGE;
  switch (range) {
    case R.YEAR:
      return 'year';
    case R.MONTH:
    case R.YEAR | R.MONTH:
      return 'month';
    case R.DAY:
      return 'day';
    case R.HOUR:
    case R.DAY | R.HOUR:
      return 'hour';
    case R.MINUTE:
    case R.HOUR | R.MINUTE:
    case R.DAY | R.HOUR | R.MINUTE:
      return 'minute';
    default:
      return 'second';
  }
}

/** Accumulates fields as PostgreSQL's pg_itm_in does, fractions cascading to smaller units. */
class Acc {
  months = 0;
  days = 0;
  us = 0n;

  add(unit: Unit, value: number, text: string): void {
    const ip = Math.trunc(value);
    const frac = value - ip;
    switch (unit) {
      case 'us':
        this.us += BigInt(Math.round(value));
        break;
      case 'ms':
        this.us += BigInt(Math.round(value * 1000));
        break;
      case 'second':
        this.us += BigInt(Math.round(value * 1e6));
        break;
      case 'minute':
        this.us += BigInt(ip) * US_PER_MINUTE + BigInt(Math.round(frac * 60e6));
        break;
      case 'hour':
        this.us += BigInt(ip) * US_PER_HOUR + BigInt(Math.round(frac * 3600e6));
        break;
      case 'day':
        this.days += ip;
        this.fractDays(frac, 1);
        break;
      case 'week':
        this.days += ip * 7;
        this.fractDays(frac, 7);
        break;
      case 'month':
        this.months += ip;
        this.fractDays(frac, 30);
        break;
      case 'year':
        this.months += ip * 12 + Math.round(frac * 12);
        break;
      case 'decade':
        this.months += ip * 120 + Math.round(frac * 120);
        break;
      case 'century':
        this.months += ip * 1200 + Math.round(frac * 1200);
        break;
      case 'millennium':
        this.months += ip * 12000 + Math.round(frac * 12000);
        break;
      default:
        return unreachable(unit);
    }
    if (!Number.isSafeInteger(this.months) || !Number.isSafeInteger(this.days)) throw fieldOverflow(text);
  }

  /** AdjustFractDays: whole days of `frac * scale` to days, the rest to microseconds. */
  private fractDays(frac: number, scale: number): void {
    if (frac === 0) return;
    const d = frac * scale;
    const whole = Math.trunc(d);
    this.days += whole;
    this.us += BigInt(Math.round((d - whole) * 86400e6));
  }
}

const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)$/;
const TIME_RE = /^([+-]?)(\d+):(\d+)(?::(\d+(?:\.\d*)?))?$/;
/** SQL-standard year-month: `1-2` is 1 year 2 months. */
const YEAR_MONTH_RE = /^([+-]?)(\d+)-(\d+)$/;

/** The fields each token sets (DecodeInterval's tmask): a field given twice is 22007. */
const FIELD_BITS: Record<Unit, number> = {
  us: 1, ms: 2, second: 4, minute: 8, hour: 16, day: 32, week: 64, month: 128, year: 256, decade: 512, century: 1024, millennium: 2048,
};
const TIME_BITS = FIELD_BITS.hour | FIELD_BITS.minute | FIELD_BITS.second | FIELD_BITS.ms | FIELD_BITS.us;

/**
 * interval_in with the typmod's range (INTERVAL_RANGE; FULL when none): 22007 for text that
 * is not an interval, 22015/22008 for fields out of range.
 */
export function parseInterval(text: string, range: number = INTERVAL_RANGE.FULL, precision: number | null = null): IntervalParts {
  const src = text.trim().toLowerCase();
  if (src.startsWith('p')) return roundToPrecision(truncateToRange(parseIso8601(src, text), range), precision);
  let tokens = splitTokens(src);
  if (tokens === null || tokens.length === 0) throw badSyntax(text);
  let negate = false;
  if (tokens[0] === '@') tokens = tokens.slice(1);
  if (tokens[tokens.length - 1] === 'ago') {
    negate = true;
    tokens = tokens.slice(0, -1);
  }
  if (tokens.length === 0) throw badSyntax(text);
  const acc = new Acc();
  // Right to left, as DecodeInterval: a unit names the number before it; a bare number
  // before a time field counts days; a bare number at the end takes the range's unit.
  let pending: Unit | null = unitOfRange(range);
  let fields = 0;
  const claim = (bits: number) => {
    if ((fields & bits) !== 0) throw badSyntax(text);
    fields |= bits;
  };
  for (let i = tokens.length - 1; i >= 0; i--) {
    const tok = tokens[i]!;
    const ym = YEAR_MONTH_RE.exec(tok);
    if (ym !== null) {
      claim(FIELD_BITS.year | FIELD_BITS.month);
      const months = Number(ym[2]) * 12 + Number(ym[3]);
      acc.months += ym[1] === '-' ? -months : months;
      pending = 'day';
      continue;
    }
    const t = TIME_RE.exec(tok);
    if (t !== null) {
      claim(TIME_BITS);
      const us = BigInt(t[2]!) * US_PER_HOUR + BigInt(t[3]!) * US_PER_MINUTE + BigInt(Math.round(Number(t[4] ?? '0') * 1e6));
      acc.us += t[1] === '-' ? -us : us;
      pending = 'day';
      continue;
    }
    if (NUMBER_RE.test(tok)) {
      if (pending === null) throw badSyntax(text);
      const v = Number(tok);
      if (!Number.isFinite(v)) throw fieldOverflow(text);
      claim(pending === 'second' && !Number.isInteger(v) ? FIELD_BITS.second | FIELD_BITS.ms | FIELD_BITS.us : FIELD_BITS[pending]);
      acc.add(pending, v, text);
      pending = null;
      continue;
    }
    const unit = intervalUnit(tok);
    if (unit === undefined || i === 0 || pending === null && !NUMBER_RE.test(tokens[i - 1]!)) throw badSyntax(text);
    pending = unit;
  }
  let { months, days, us } = acc;
  if (negate) {
    months = -months;
    days = -days;
    us = -us;
  }
  if (months < INT32_MIN || months > INT32_MAX || days < INT32_MIN || days > INT32_MAX || us < INT64_MIN || us > INT64_MAX) throw fieldOverflow(text);
  return roundToPrecision(truncateToRange({ months, days, us }, range), precision);
}

const ISO_RE = /^p(?:([\d.]+)y)?(?:([\d.]+)m)?(?:([\d.]+)w)?(?:([\d.]+)d)?(?:t(?:([\d.]+)h)?(?:([\d.]+)m)?(?:([\d.]+)s)?)?$/;

/** ISO 8601 "format with designators": P1Y2M3DT4H5M6S, fractions cascading as above (DecodeISO8601Interval). */
function parseIso8601(src: string, text: string): IntervalParts {
  const m = ISO_RE.exec(src);
  if (m === null || src === 'p') throw badSyntax(text);
  const acc = new Acc();
  const units: Unit[] = ['year', 'month', 'week', 'day', 'hour', 'minute', 'second'];
  units.forEach((u, i) => {
    const v = m[i + 1];
    if (v === undefined) return;
    if (!NUMBER_RE.test(v)) throw badSyntax(text);
    acc.add(u, Number(v), text);
  });
  if (acc.months < INT32_MIN || acc.months > INT32_MAX || acc.days < INT32_MIN || acc.days > INT32_MAX || acc.us < INT64_MIN || acc.us > INT64_MAX) throw fieldOverflow(text);
  return { months: acc.months, days: acc.days, us: acc.us };
}

/** interval(p): fractional seconds rounded to p digits, half away from zero (AdjustIntervalForTypmod). */
export function roundToPrecision(p: IntervalParts, precision: number | null): IntervalParts {
  if (precision === null || precision >= 6) return p;
  const scale = 10n ** BigInt(6 - Math.max(precision, 0));
  const half = scale / 2n;
  const us = p.us >= 0n ? ((p.us + half) / scale) * scale : -(((-p.us + half) / scale) * scale);
  return { ...p, us };
}

/** Splits `1day 2 hours` into ['1', 'day', '2', 'hours']; null on characters intervals never hold. */
function splitTokens(s: string): string[] | null {
  const out: string[] = [];
  const re = /\s*(@|[+-]?\d+:\d+(?::\d+(?:\.\d*)?)?|[+-]?\d+-\d+|[+-]?(?:\d+\.?\d*|\.\d+)|[a-z_]+)\s*/y;
  let pos = 0;
  while (pos < s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (m === null || m[0].length === 0) return null;
    out.push(m[1]!);
    pos = re.lastIndex;
  }
  return out;
}

/** AdjustIntervalForTypmod: `interval '1 day 3 hours' day` is '1 day'. */
export function truncateToRange(p: IntervalParts, range: number): IntervalParts {
  const R = INTERVAL_RANGE;
  switch (range) {
    case R.YEAR:
      return { months: Math.trunc(p.months / 12) * 12, days: 0, us: 0n };
    case R.MONTH:
    case R.YEAR | R.MONTH:
      return { months: p.months, days: 0, us: 0n };
    case R.DAY:
      return { months: p.months, days: p.days, us: 0n };
    case R.HOUR:
    case R.DAY | R.HOUR:
      return { ...p, us: (p.us / US_PER_HOUR) * US_PER_HOUR };
    case R.MINUTE:
    case R.HOUR | R.MINUTE:
    case R.DAY | R.HOUR | R.MINUTE:
      return { ...p, us: (p.us / US_PER_MINUTE) * US_PER_MINUTE };
    default:
      return p;
  }
}

export function parseIntervalValue(text: string, range?: number, precision: number | null = null): Uint8Array {
  const p = parseInterval(text, range, precision);
  return makeInterval(p.months, p.days, p.us);
}

/** For the storage layers' exhaustive switches: no column has type interval (parse-type rejects it). */
export function intervalNotStorable(where: string): never {
  throw new Error(`${where}: interval is an expression type; no column stores it`);
}

/**
 * Time zones, the one module of the concept: the session's TimeZone setting (check_timezone of
 * PostgreSQL's commands/variable.c), zone names as pg_tzset resolves them (IANA names through
 * Node's Intl, which carries the tz database, then POSIX-style specs), the abbreviations of
 * PostgreSQL's "Default" set (timezonesets/Default), and the offset of a zone at an instant or
 * for a local wall-clock time (DetermineTimeZoneOffset of utils/adt/datetime.c).
 *
 *   timeZoneSetting('europe/berlin')!.name     // 'Europe/Berlin'
 *   timeZoneSetting('+02')!.offsetAt(0)        // 7200   (a number: SQL sign, east of UTC)
 *   timeZoneSetting('UTC+3')!.offsetAt(0)      // -10800 (POSIX sign: hours west of UTC)
 *   timeZoneSetting('Mars/Base')               // null (the caller says 22023)
 *
 * Offsets are seconds east of UTC and instants seconds since 1970-01-01 00:00 UTC (the caller
 * splits off the microseconds). An IANA zone asks Intl only while it fills a table: instants
 * are cut into buckets of 2^25 s (about 388 days), and a bucket's transitions are found by
 * sampling every 4 days and bisecting to the second where the offset changes (a change that
 * reverts within 4 days would be missed; the tz database has none since 1900 that matters to
 * the test zones). Lookups then read the table, and the last constant-offset interval is kept,
 * so a column of nearby instants costs a comparison per value.
 */

/** A zone: PostgreSQL's spelling (what SHOW TimeZone prints) and its offsets. */
export interface TimeZone {
  readonly name: string;
  /** Offset east of UTC, in seconds, at the UTC instant `utc` (seconds since 1970). */
  offsetAt(utc: number): number;
  /** The first transition after `utc` (strictly), if there is one within about a year. */
  nextTransition(utc: number): Transition | null;
}

export interface Transition {
  /** The first instant at which `after` applies. */
  readonly at: number;
  readonly before: number;
  readonly after: number;
}

/** A zone with one offset for ever (UTC, '+02', 'UTC+3', INTERVAL '+05:30'). */
class FixedZone implements TimeZone {
  constructor(
    readonly name: string,
    private readonly offset: number,
  ) {}

  offsetAt(): number {
    return this.offset;
  }

  nextTransition(): Transition | null {
    return null;
  }
}

export const UTC: TimeZone = new FixedZone('UTC', 0);

const BUCKET_SHIFT = 2 ** 25;
const SAMPLE_STEP = 4 * 86400;
/** Date's range ends at 8.64e15 ms; later instants repeat 400-year cycles (the rules do). */
const SECS_400Y = 146097 * 86400;
const SECS_DATE_MAX = 8.64e12 - 2 * SECS_400Y;

/** A zone of the tz database, read through Intl and tabulated per bucket. */
class IanaZone implements TimeZone {
  private readonly format: Intl.DateTimeFormat;
  /** Per bucket: [start, offset, t1, offset1, …]: the offset at the bucket's start and each change in it. */
  private readonly buckets = new Map<number, Float64Array>();
  private lo = 1;
  private hi = 0;
  private off = 0;

  constructor(
    readonly name: string,
    intlName: string,
  ) {
    this.format = new Intl.DateTimeFormat('en-US', { timeZone: intlName, timeZoneName: 'longOffset' });
  }

  offsetAt(utc: number): number {
    if (utc >= this.lo && utc < this.hi) return this.off;
    const b = Math.floor(utc / BUCKET_SHIFT);
    const tab = this.bucket(b);
    let k = 0;
    while (k + 2 < tab.length && tab[k + 2]! <= utc) k += 2;
    this.lo = tab[k]!;
    this.hi = k + 2 < tab.length ? tab[k + 2]! : (b + 1) * BUCKET_SHIFT;
    this.off = tab[k + 1]!;
    return this.off;
  }

  nextTransition(utc: number): Transition | null {
    const b = Math.floor(utc / BUCKET_SHIFT);
    for (let c = b; c <= b + 1; c++) {
      const tab = this.bucket(c);
      for (let k = 2; k < tab.length; k += 2) if (tab[k]! > utc) return { at: tab[k]!, before: tab[k - 1]!, after: tab[k + 1]! };
    }
    return null;
  }

  private bucket(b: number): Float64Array {
    let tab = this.buckets.get(b);
    if (tab !== undefined) return tab;
    const start = b * BUCKET_SHIFT;
    const end = start + BUCKET_SHIFT;
    const out = [start, this.raw(start)];
    let cur = start;
    let curOff = out[1]!;
    for (let s = Math.min(start + SAMPLE_STEP, end - 1); ; s = Math.min(s + SAMPLE_STEP, end - 1)) {
      while (this.raw(s) !== curOff) {
        // The first second in (cur, s] whose offset is not curOff.
        let a = cur;
        let z = s;
        while (z - a > 1) {
          const m = Math.floor((a + z) / 2);
          if (this.raw(m) === curOff) a = m;
          else z = m;
        }
        cur = z;
        curOff = this.raw(z);
        out.push(z, curOff);
      }
      cur = s;
      if (s === end - 1) break;
    }
    tab = Float64Array.from(out);
    if (this.buckets.size > 4096) this.buckets.clear();
    this.buckets.set(b, tab);
    return tab;
  }

  /** The offset Intl reports at an instant ("GMT", "GMT+05:30", "GMT-04:56:02"). */
  private raw(utc: number): number {
    let t = utc;
    while (t > SECS_DATE_MAX) t -= SECS_400Y;
    while (t < -SECS_DATE_MAX) t += SECS_400Y;
    const parts = this.format.formatToParts(t * 1000);
    let text = 'GMT';
    for (const p of parts) if (p.type === 'timeZoneName') text = p.value;
    if (text === 'GMT') return 0;
    const m = /^GMT([+-])(\d{1,2})(?::(\d\d))?(?::(\d\d))?$/.exec(text);
    if (m === null) throw new Error(`Intl time zone offset "${text}" of ${this.name}: expected GMT±HH[:MM[:SS]]`);
    const secs = Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
    return m[1] === '-' ? -secs : secs;
  }
}

// ---------------------------------------------------------------------------------------------
// POSIX-style specs (PostgreSQL docs B.5 "POSIX Time Zone Specifications"): STD offset [DST
// [offset] [,rule]]. The offset is hours WEST of UTC ('UTC+3' is three hours behind UTC);
// PostgreSQL also allows an empty STD name, so '-05:30' alone is five and a half hours east.

interface PosixRule {
  /** 'J': Julian day 1..365 without Feb 29; 'D': zero-based day 0..365; 'M': month.week.weekday. */
  readonly kind: 'J' | 'D' | 'M';
  readonly day: number;
  readonly week: number;
  readonly month: number;
  /** Seconds after local midnight (in the offset in effect before the change). */
  readonly time: number;
}

/** A POSIX spec with daylight saving rules: transitions computed per year. */
class PosixZone implements TimeZone {
  private readonly years = new Map<number, [number, number]>();

  constructor(
    readonly name: string,
    private readonly std: number,
    private readonly dst: number,
    private readonly start: PosixRule,
    private readonly end: PosixRule,
  ) {}

  /** The UTC instants DST starts and ends in year y. */
  private yearTransitions(y: number): [number, number] {
    let t = this.years.get(y);
    if (t === undefined) {
      t = [ruleLocal(this.start, y) - this.std, ruleLocal(this.end, y) - this.dst];
      if (this.years.size > 1000) this.years.clear();
      this.years.set(y, t);
    }
    return t;
  }

  offsetAt(utc: number): number {
    const y = yearOf(utc + this.std);
    const [on, off] = this.yearTransitions(y);
    const inDst = on < off ? utc >= on && utc < off : !(utc >= off && utc < on);
    return inDst ? this.dst : this.std;
  }

  nextTransition(utc: number): Transition | null {
    const y = yearOf(utc + this.std);
    const cands: Transition[] = [];
    for (const yy of [y, y + 1]) {
      const [on, off] = this.yearTransitions(yy);
      cands.push({ at: on, before: this.std, after: this.dst }, { at: off, before: this.dst, after: this.std });
    }
    let best: Transition | null = null;
    for (const c of cands) if (c.at > utc && (best === null || c.at < best.at)) best = c;
    return best;
  }
}

/** The Gregorian year of a count of seconds since 1970 read as a local time. */
function yearOf(secs: number): number {
  const days = Math.floor(secs / 86400);
  // civil_from_days (Howard Hinnant's algorithm)
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const m = mp < 10 ? mp + 3 : mp - 9;
  return yoe + era * 400 + (m <= 2 ? 1 : 0);
}

function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function leap(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

/** transtime of tzcode's localtime.c: the local time (seconds since 1970, as if UTC) a rule names in year y. */
function ruleLocal(r: PosixRule, y: number): number {
  const jan1 = daysFromCivil(y, 1, 1);
  let day: number;
  switch (r.kind) {
    case 'J':
      day = jan1 + r.day - 1 + (leap(y) && r.day >= 60 ? 1 : 0);
      break;
    case 'D':
      day = jan1 + r.day;
      break;
    case 'M': {
      const first = daysFromCivil(y, r.month, 1);
      const dow1 = (((first + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday
      let d = first + ((r.day - dow1 + 7) % 7) + (r.week - 1) * 7;
      const mdays = [31, leap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][r.month - 1]!;
      while (d >= first + mdays) d -= 7;
      day = d;
      break;
    }
    default:
      return r.kind;
  }
  return day * 86400 + r.time;
}

/** A cursor over a POSIX spec. */
class PosixReader {
  i = 0;
  constructor(readonly s: string) {}

  peek(): string {
    return this.s[this.i] ?? '';
  }

  /** A zone name: <…> quoted, or letters. */
  name(): string | null {
    if (this.peek() === '<') {
      const end = this.s.indexOf('>', this.i);
      if (end < 0) return null;
      const n = this.s.slice(this.i + 1, end);
      this.i = end + 1;
      return n;
    }
    const from = this.i;
    while (this.i < this.s.length && !/[0-9,+-]/.test(this.s[this.i]!)) this.i++;
    return this.s.slice(from, this.i);
  }

  num(max: number): number | null {
    const from = this.i;
    while (this.i < this.s.length && this.s.charCodeAt(this.i) >= 48 && this.s.charCodeAt(this.i) <= 57) this.i++;
    if (this.i === from) return null;
    const v = Number(this.s.slice(from, this.i));
    return v > max ? null : v;
  }

  /** hh[:mm[:ss]] in seconds (getsecs). */
  secs(maxHours: number): number | null {
    const h = this.num(maxHours);
    if (h === null) return null;
    let v = h * 3600;
    if (this.peek() === ':') {
      this.i++;
      const m = this.num(59);
      if (m === null) return null;
      v += m * 60;
      if (this.peek() === ':') {
        this.i++;
        const s = this.num(60);
        if (s === null) return null;
        v += s;
      }
    }
    return v;
  }

  /** [+-]hh[:mm[:ss]], POSIX sign (getoffset): the value is seconds WEST. */
  offset(): number | null {
    let neg = false;
    if (this.peek() === '-') {
      neg = true;
      this.i++;
    } else if (this.peek() === '+') this.i++;
    const v = this.secs(167);
    return v === null ? null : neg ? -v : v;
  }

  rule(): PosixRule | null {
    let r: { kind: 'J' | 'D' | 'M'; day: number; week: number; month: number };
    if (this.peek() === 'J') {
      this.i++;
      const d = this.num(365);
      if (d === null || d < 1) return null;
      r = { kind: 'J', day: d, week: 0, month: 0 };
    } else if (this.peek() === 'M') {
      this.i++;
      const month = this.num(12);
      if (month === null || month < 1 || this.peek() !== '.') return null;
      this.i++;
      const week = this.num(5);
      if (week === null || week < 1 || this.peek() !== '.') return null;
      this.i++;
      const day = this.num(6);
      if (day === null) return null;
      r = { kind: 'M', day, week, month };
    } else {
      const d = this.num(365);
      if (d === null) return null;
      r = { kind: 'D', day: d, week: 0, month: 0 };
    }
    let time = 7200;
    if (this.peek() === '/') {
      this.i++;
      let neg = false;
      if (this.peek() === '-' || this.peek() === '+') neg = this.s[this.i++] === '-';
      const t = this.secs(167);
      if (t === null) return null;
      time = neg ? -t : t;
    }
    return { ...r, time };
  }
}

/** tzparse of PostgreSQL's localtime.c (not lastditch): a POSIX spec, or null. */
function parsePosix(spec: string, name: string): TimeZone | null {
  const p = new PosixReader(spec);
  const std = p.name();
  if (std === null || p.i >= spec.length) return null;
  const stdWest = p.offset();
  if (stdWest === null) return null;
  if (p.i === spec.length) return new FixedZone(name, -stdWest);
  const dst = p.name();
  if (dst === null || dst === '') return null;
  let dstWest = stdWest - 3600;
  if (p.i < spec.length && p.peek() !== ',' && p.peek() !== ';') {
    const o = p.offset();
    if (o === null) return null;
    dstWest = o;
  }
  // No rule: PostgreSQL's TZDEFRULESTRING, the US rules since 2007.
  const rules = p.i === spec.length ? new PosixReader(',M3.2.0,M11.1.0') : p;
  if (rules.peek() !== ',' && rules.peek() !== ';') return null;
  rules.i++;
  const start = rules.rule();
  if (start === null || rules.peek() !== ',') return null;
  rules.i++;
  const end = rules.rule();
  if (end === null || rules.i !== rules.s.length) return null;
  return new PosixZone(name, -stdWest, -dstWest, start, end);
}

// ---------------------------------------------------------------------------------------------
// Names

const zones = new Map<string, TimeZone | null>();
let canonicalNames: Map<string, string> | null = null;

/** The tz database's spelling of a name given in any case, as PostgreSQL's directory scan finds it. */
function spelling(input: string, resolved: string): string {
  if (input.toLowerCase() === resolved.toLowerCase()) return resolved;
  if (input !== input.toLowerCase() && input !== input.toUpperCase()) return input;
  canonicalNames ??= new Map(Intl.supportedValuesOf('timeZone').map((z) => [z.toLowerCase(), z]));
  const known = canonicalNames.get(input.toLowerCase());
  if (known !== undefined) return known;
  // The System V names of the tz database are upper case (EST5EDT, PST8PDT).
  if (/^[a-z]{3}\d[a-z]{3}$/i.test(input)) return input.toUpperCase();
  // A link name typed in one case ('us/pacific'): the tz database capitalizes each word.
  return input
    .toLowerCase()
    .replace(/(^|[/_-])([a-z])/g, (_m, sep: string, c: string) => sep + c.toUpperCase())
    .replace(/^(Us|Gb|Nz|Prc|Roc|Rok|Uct|Utc|Gmt|Est|Mst|Hst|Cet|Met|Eet|Wet|W-Su)(?=$|\/|-|\d)/, (w) => w.toUpperCase())
    .replace(/(?<=\/)(Utc|Gmt|Uct)(?=$|[+-])/, (w) => w.toUpperCase());
}

/** ICU's legacy three-letter IDs that the tz database has no file for (PostgreSQL refuses 'PST'). */
const ICU_ONLY = new Set('ACT AET AGT ART AST BET BST CAT CNT CST CTT EAT ECT IET IST JST MIT NET NST PLT PNT PRT PST SST VST'.split(' '));

/**
 * pg_tzset: a zone file's name (case-insensitive; an IANA name through Intl) or a POSIX spec,
 * or null when neither. 'GMT' is always the POSIX spec, as in PostgreSQL.
 */
export function zoneByName(input: string): TimeZone | null {
  const key = input.toUpperCase();
  const hit = zones.get(key);
  if (hit !== undefined) return hit;
  let z: TimeZone | null = null;
  if (key === 'GMT') z = new FixedZone('GMT', 0);
  else if (/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(input) && !ICU_ONLY.has(key)) {
    try {
      const resolved = new Intl.DateTimeFormat('en-US', { timeZone: input }).resolvedOptions().timeZone;
      const name = spelling(input, resolved);
      z = resolved === 'UTC' ? new FixedZone(name, 0) : new IanaZone(name, input);
    } catch {
      z = null;
    }
  }
  z ??= input.startsWith(':') ? null : parsePosix(key, key);
  if (zones.size > 1000) zones.clear();
  zones.set(key, z);
  return z;
}

/** pg_tzset_offset: a zone of a fixed offset (seconds east), spelled as PostgreSQL does ('<+05:30>-05:30'). */
export function fixedZone(east: number): TimeZone {
  const abs = Math.abs(east);
  let text = String(Math.floor(abs / 3600)).padStart(2, '0');
  const rest = abs % 3600;
  if (rest !== 0) {
    text += ':' + String(Math.floor(rest / 60)).padStart(2, '0');
    if (rest % 60 !== 0) text += ':' + String(rest % 60).padStart(2, '0');
  }
  return new FixedZone(east < 0 ? `<-${text}>+${text}` : `<+${text}>-${text}`, east);
}

/** tzparse takes offsets below 168 hours (getsecs: a week); pg_tzset_offset fails beyond. */
const MAX_SETTING_OFFSET = 168 * 3600;

/**
 * check_timezone: the value of SET TimeZone (or the startup packet's, or PGTZ's) as a zone,
 * or null for a value PostgreSQL refuses (22023 `invalid value for parameter "TimeZone"`).
 * A bare number is hours east ('+02', '-7', '5.5'); `INTERVAL '…'` is handled by the caller
 * with the interval parser, through fixedZone.
 */
export function timeZoneSetting(value: string): TimeZone | null {
  const t = value.trim();
  if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t) && t === value) {
    const east = Math.round(Number(t) * 3600);
    if (!Number.isFinite(east) || Math.abs(east) >= MAX_SETTING_OFFSET) return null;
    return fixedZone(east);
  }
  return zoneByName(value);
}

// ---------------------------------------------------------------------------------------------
// Abbreviations: PostgreSQL 15's timezonesets/Default, abbreviation → seconds east (a fixed
// offset, D when daylight time) or the zone whose offset at the time in question it means.

const ABBREVIATIONS_DEFAULT =
  'EAT 10800;SAST 7200;WAT 3600;ACT -18000;AKDT -28800 D;AKST -32400;ART America/Argentina/Buenos_Aires;ARST America/Argentina/Buenos_Aires;' +
  'BOT -14400;BRA -10800;BRST -7200 D;BRT -10800;COT -18000;CDT -18000 D;CLST -10800 D;CLT America/Santiago;CST -21600;EDT -14400 D;' +
  'EGST 0 D;EGT -3600;EST -18000;FNT -7200;FNST -3600 D;GFT -10800;GYT America/Guyana;MDT -21600 D;MST -25200;NDT -9000 D;NFT -12600;' +
  'NST -12600;PET -18000;PDT -25200 D;PMDT -7200 D;PMST -10800;PST -28800;PYST -10800 D;PYT America/Asuncion;UYST -7200 D;UYT -10800;' +
  'VET America/Caracas;WGST -7200 D;WGT -10800;DAVT Antarctica/Davis;DDUT 36000;MAWT Antarctica/Mawson;AFT 16200;ALMT 21600;ALMST 25200 D;' +
  'AMST Asia/Yerevan;AMT -14400;ANAST Asia/Anadyr;ANAT Asia/Anadyr;AZST Asia/Baku;AZT Asia/Baku;BDT 21600;BNT 28800;BORT 28800;BTT 21600;' +
  'CCT 28800;GEST Asia/Tbilisi;GET Asia/Tbilisi;HKT 28800;ICT 25200;IDT 10800 D;IRKST Asia/Irkutsk;IRKT Asia/Irkutsk;IRT 12600;IST 7200;' +
  'JAYT 32400;JST 32400;KDT 36000 D;KGST 21600 D;KGT Asia/Bishkek;KRAST Asia/Krasnoyarsk;KRAT Asia/Krasnoyarsk;KST 32400;LKT Asia/Colombo;' +
  'MAGST Asia/Magadan;MAGT Asia/Magadan;MMT 23400;MYT 28800;NOVST Asia/Novosibirsk;NOVT Asia/Novosibirsk;NPT 20700;OMSST Asia/Omsk;' +
  'OMST Asia/Omsk;PETST Asia/Kamchatka;PETT Asia/Kamchatka;PHT 28800;PKT 18000;PKST 21600 D;SGT Asia/Singapore;TJT 18000;TMT Asia/Ashgabat;' +
  'ULAST 32400 D;ULAT Asia/Ulaanbaatar;UZST 21600 D;UZT 18000;VLAST Asia/Vladivostok;VLAT Asia/Vladivostok;XJT 21600;YAKST Asia/Yakutsk;' +
  'YAKT Asia/Yakutsk;YEKST 21600 D;YEKT Asia/Yekaterinburg;ADT -10800 D;AST -14400;AZOST 0 D;AZOT -3600;FKST Atlantic/Stanley;' +
  'FKT Atlantic/Stanley;ACSST 37800 D;ACDT 37800 D;ACST 34200;ACWST 31500;AESST 39600 D;AEDT 39600 D;AEST 36000;AWSST 32400 D;AWST 28800;' +
  'CADT 37800 D;CAST 34200;LHDT Australia/Lord_Howe;LHST 37800;LIGT 36000;NZT 43200;SADT 37800 D;WADT 28800 D;WAST 25200;WDT 32400 D;' +
  'GMT 0;UCT 0;UT 0;UTC 0;Z 0;ZULU 0;BST 3600 D;BDST 7200 D;CEST 7200 D;CET 3600;CETDST 7200 D;EEST 10800 D;EET 7200;EETDST 10800 D;' +
  'FET 10800;MEST 7200 D;MESZ 7200 D;MET 3600;METDST 7200 D;MEZ 3600;MSD 14400 D;MSK Europe/Moscow;VOLT Europe/Volgograd;WET 0;' +
  'WETDST 3600 D;CXT 25200;IOT Indian/Chagos;MUT 14400;MUST 18000 D;MVT 18000;RET 14400;SCT 14400;TFT 18000;CHADT 49500 D;CHAST 45900;' +
  'CHUT 36000;CKT Pacific/Rarotonga;EASST Pacific/Easter;EAST Pacific/Easter;FJST 46800 D;FJT 43200;GALT -21600;GAMT -32400;GILT 43200;' +
  'HST -36000;KOST Pacific/Kosrae;LINT Pacific/Kiritimati;MART -34200;MHT 43200;MPT 36000;NUT Pacific/Niue;NZDT 46800 D;NZST 43200;' +
  'PGT 36000;PONT 39600;PWT 32400;TAHT -36000;TKT Pacific/Fakaofo;TOT 46800;TRUT 36000;TVT 43200;VUT 39600;WAKT 43200;WFT 43200;YAPT 36000';

/** An abbreviation's meaning: a fixed offset east, or a zone to ask at the time in question. */
export type Abbreviation = { readonly offset: number; readonly dst: boolean } | { readonly zone: string };

const ABBREVIATIONS: ReadonlyMap<string, Abbreviation> = new Map(
  ABBREVIATIONS_DEFAULT.split(';').map((e) => {
    const [abbrev, value, d] = e.split(' ') as [string, string, string | undefined];
    const a: Abbreviation = /^-?\d+$/.test(value) ? { offset: Number(value), dst: d === 'D' } : { zone: value };
    return [abbrev.toLowerCase(), a];
  }),
);

/** DecodeTimezoneAbbrev: the meaning of a lower-case abbreviation, or undefined. */
export function zoneAbbreviation(lower: string): Abbreviation | undefined {
  return ABBREVIATIONS.get(lower);
}

/**
 * A zone argument of timezone()/AT TIME ZONE (timestamp_zone, timestamptz_zone): an
 * abbreviation first, then a zone name or POSIX spec (so '+05' is POSIX: five hours WEST);
 * a fixed-offset abbreviation becomes a fixed zone. Null when not recognized.
 */
export function zoneArgument(text: string): TimeZone | null {
  const a = ABBREVIATIONS.get(text.toLowerCase());
  if (a !== undefined) return 'zone' in a ? zoneByName(a.zone) : new FixedZone(text, a.offset);
  return zoneByName(text);
}

// ---------------------------------------------------------------------------------------------
// Local time

/**
 * DetermineTimeZoneOffset: the offset east for a local wall-clock time `local` (seconds since
 * 1970 read as if UTC). Around a transition: a nonexistent time (spring forward) takes the
 * offset before it, an ambiguous one (fall back) the offset after it — PostgreSQL's rule
 * (docs B.1 "Handling of Invalid or Ambiguous Timestamps").
 */
export function offsetForLocal(zone: TimeZone, local: number): number {
  const prev = local - 86400;
  const before = zone.offsetAt(prev);
  const t = zone.nextTransition(prev);
  if (t === null) return before;
  const beforeTime = local - t.before;
  const afterTime = local - t.after;
  if (beforeTime < t.at && afterTime < t.at) return t.before;
  if (beforeTime >= t.at && afterTime >= t.at) return t.after;
  return beforeTime > afterTime ? t.before : t.after;
}

/**
 * The abbreviation a zone uses at an instant (CET, CEST, PDT, IST, +04), which to_char's TZ
 * prints (PostgreSQL 15 docs 9.8; pg_tm's tm_zone). Offsets come from ./timezone.ts; the
 * abbreviations come from the tz database's own files, the ones PostgreSQL's Debian packages
 * read too (/usr/share/zoneinfo, TZif, RFC 8536):
 *
 *   offset  size                 field
 *   0       4                    "TZif"
 *   4       1                    version ('\0', '2', '3', '4')
 *   20      6 × 4 (big endian)   isutcnt isstdcnt leapcnt timecnt typecnt charcnt
 *   44      v1 data block (4-byte times), skipped when a v2 block follows
 *   then    a second header and the data block with 8-byte times:
 *           timecnt × 8 transition times, timecnt × 1 type indices,
 *           typecnt × 6 types (int32 utoff, uint8 isdst, uint8 abbreviation index),
 *           charcnt abbreviation bytes (NUL-terminated strings), leap and indicator bytes
 *   last    "\n" POSIX TZ string "\n": the rule after the last transition
 *           (slim files stop listing transitions where the rule takes over)
 *
 *   zoneAbbreviationAt(zoneByName('Europe/Berlin')!, 1719835200, 7200)  // 'CEST'
 *
 * A zone without a file (a POSIX spec, a fixed offset) prints its offset as PostgreSQL's
 * numeric abbreviations do ('+02', '-03:30'); UTC prints UTC.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TimeZone } from './timezone.js';

interface ZoneFile {
  readonly times: readonly number[];
  readonly types: readonly number[];
  readonly ttinfo: readonly { readonly utoff: number; readonly abbr: string }[];
  /** The POSIX rule's standard and daylight abbreviations and offsets (east), if any. */
  readonly rule: { readonly std: string; readonly stdOff: number; readonly dst: string | null } | null;
}

const ZONEINFO = '/usr/share/zoneinfo';
const files = new Map<string, ZoneFile | null>();

function readZoneFile(name: string): ZoneFile | null {
  if (files.has(name)) return files.get(name)!;
  let z: ZoneFile | null = null;
  try {
    if (/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name) && !name.includes('..')) z = parseTzif(readFileSync(join(ZONEINFO, name)));
  } catch {
    z = null;
  }
  files.set(name, z);
  return z;
}

function parseTzif(b: Buffer): ZoneFile | null {
  if (b.length < 44 || b.toString('latin1', 0, 4) !== 'TZif') return null;
  const counts = (at: number) => [0, 1, 2, 3, 4, 5].map((k) => b.readUInt32BE(at + 20 + 4 * k)) as [number, number, number, number, number, number];
  let at = 0;
  let [isut, isstd, leap, timecnt, typecnt, charcnt] = counts(at);
  let timeSize = 4;
  if (b[4]! >= 0x32) {
    at = 44 + timecnt * 5 + typecnt * 6 + charcnt + leap * 8 + isstd + isut;
    if (b.toString('latin1', at, at + 4) !== 'TZif') return null;
    [isut, isstd, leap, timecnt, typecnt, charcnt] = counts(at);
    timeSize = 8;
  }
  let o = at + 44;
  const times: number[] = [];
  for (let i = 0; i < timecnt; i++, o += timeSize) times.push(timeSize === 8 ? Number(b.readBigInt64BE(o)) : b.readInt32BE(o));
  const types: number[] = [];
  for (let i = 0; i < timecnt; i++, o++) types.push(b[o]!);
  const raw: { utoff: number; idx: number }[] = [];
  for (let i = 0; i < typecnt; i++, o += 6) raw.push({ utoff: b.readInt32BE(o), idx: b[o + 5]! });
  const chars = b.toString('latin1', o, o + charcnt);
  o += charcnt + leap * (timeSize + 4) + isstd + isut;
  const ttinfo = raw.map((t) => ({ utoff: t.utoff, abbr: chars.slice(t.idx, chars.indexOf('\0', t.idx)) }));
  let rule: ZoneFile['rule'] = null;
  if (timeSize === 8 && b[o] === 0x0a) {
    const end = b.indexOf(0x0a, o + 1);
    if (end > o) rule = parseRule(b.toString('latin1', o + 1, end));
  }
  return { times, types, ttinfo, rule };
}

/** The names and standard offset of a POSIX TZ string: `CET-1CEST,M3.5.0,M10.5.0/3`, `<+04>-4`. */
function parseRule(spec: string): ZoneFile['rule'] {
  const m = /^(<[^>]*>|[A-Za-z]+)([+-]?\d{1,3}(?::\d{1,2}){0,2})(<[^>]*>|[A-Za-z]+)?/.exec(spec);
  if (m === null) return null;
  const unquote = (s: string) => (s.startsWith('<') ? s.slice(1, -1) : s);
  const [h, mi = '0', s = '0'] = m[2]!.replace(/^[+-]/, '').split(':');
  const west = (Number(h) * 3600 + Number(mi) * 60 + Number(s)) * (m[2]!.startsWith('-') ? -1 : 1);
  return { std: unquote(m[1]!), stdOff: -west, dst: m[3] === undefined ? null : unquote(m[3]) };
}

/** The numeric abbreviation of an offset: +02, -03:30, +05:45. */
function numeric(east: number): string {
  const a = Math.abs(east);
  const hh = String(Math.trunc(a / 3600)).padStart(2, '0');
  const mm = Math.trunc((a % 3600) / 60);
  return `${east < 0 ? '-' : '+'}${hh}${mm !== 0 ? `:${String(mm).padStart(2, '0')}` : ''}`;
}

/** The abbreviation `zone` uses at `utc` (seconds since 1970), where its offset is `east`. */
export function zoneAbbreviationAt(zone: TimeZone, utc: number, east: number): string {
  const name = zone.name;
  if (name === 'UTC' || name === 'GMT') return name;
  const quoted = /^<([^>]*)>/.exec(name);
  if (quoted !== null) return quoted[1]!;
  const f = readZoneFile(name);
  if (f === null) return numeric(east);
  const n = f.times.length;
  if (n === 0 || utc >= f.times[n - 1]!) {
    if (f.rule !== null && (n === 0 || utc >= f.times[n - 1]!)) {
      if (east === f.rule.stdOff || f.rule.dst === null) return f.rule.std;
      return f.rule.dst;
    }
  }
  if (n === 0 || utc < f.times[0]!) return f.ttinfo[0]?.abbr ?? numeric(east);
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (f.times[mid]! <= utc) lo = mid;
    else hi = mid - 1;
  }
  return f.ttinfo[f.types[lo]!]?.abbr ?? numeric(east);
}

/**
 * Templates of the formatting functions (PostgreSQL 15 docs 9.8, tables 9.26–9.29): a
 * template string cut into keyword nodes and literal characters, as formatting.c's
 * parse_format does, for date/time templates (to_char of timestamps and intervals, to_date,
 * to_timestamp) and number templates (to_char of numbers, to_number).
 *
 *   parseTemplate('FMDD "of" Month', 'datetime')
 *     → DD (fm), ' ', 'o', 'f', ' ', Month
 *
 * Keywords are matched case-sensitively, longest first among those with the same first
 * character (HH24 before HH); a date/time keyword may carry the prefixes FM/TM and the suffixes
 * TH/th/SP. Text in double quotes is literal (a backslash there quotes the next character);
 * outside quotes a backslash is literal except before a double quote. A prefix with no keyword
 * after it is dropped, as PostgreSQL drops it. Parsed templates are cached (a column of values
 * usually shares one constant template).
 */

/** A date/time keyword (table 9.26), by its meaning; case variants that print differently are separate. */
export type DtKey =
  | 'A.D.' | 'A.M.' | 'AD' | 'AM' | 'B.C.' | 'BC' | 'a.d.' | 'a.m.' | 'ad' | 'am' | 'b.c.' | 'bc'
  | 'P.M.' | 'PM' | 'p.m.' | 'pm'
  | 'CC' | 'DAY' | 'Day' | 'day' | 'DDD' | 'DD' | 'DY' | 'Dy' | 'dy' | 'D'
  | 'FF1' | 'FF2' | 'FF3' | 'FF4' | 'FF5' | 'FF6' | 'FX'
  | 'HH24' | 'HH12' | 'HH' | 'IDDD' | 'ID' | 'IW' | 'IYYY' | 'IYY' | 'IY' | 'I' | 'J'
  | 'MI' | 'MM' | 'MONTH' | 'Month' | 'month' | 'MON' | 'Mon' | 'mon' | 'MS' | 'OF' | 'Q' | 'RM' | 'rm'
  | 'SSSSS' | 'SSSS' | 'SS' | 'TZH' | 'TZM' | 'TZ' | 'tz' | 'US' | 'WW' | 'W'
  | 'Y,YYY' | 'YYYY' | 'YYY' | 'YY' | 'Y';

/** A number keyword (table 9.28). */
export type NumKey = ',' | '.' | '0' | '9' | 'B' | 'C' | 'D' | 'EEEE' | 'FM' | 'G' | 'L' | 'MI' | 'PL' | 'PR' | 'RN' | 'rn' | 'SG' | 'SP' | 'S' | 'TH' | 'th' | 'V';

/** Spellings in matching order (per first character, longest first), each with its key. */
const DT_SPELLINGS: readonly (readonly [string, DtKey])[] = [
  ['A.D.', 'A.D.'], ['A.M.', 'A.M.'], ['AD', 'AD'], ['AM', 'AM'],
  ['B.C.', 'B.C.'], ['BC', 'BC'],
  ['CC', 'CC'],
  ['DAY', 'DAY'], ['DDD', 'DDD'], ['DD', 'DD'], ['DY', 'DY'], ['Day', 'Day'], ['Dy', 'Dy'], ['D', 'D'],
  ['FF1', 'FF1'], ['FF2', 'FF2'], ['FF3', 'FF3'], ['FF4', 'FF4'], ['FF5', 'FF5'], ['FF6', 'FF6'], ['FX', 'FX'],
  ['HH24', 'HH24'], ['HH12', 'HH12'], ['HH', 'HH'],
  ['IDDD', 'IDDD'], ['ID', 'ID'], ['IW', 'IW'], ['IYYY', 'IYYY'], ['IYY', 'IYY'], ['IY', 'IY'], ['I', 'I'],
  ['J', 'J'],
  ['MI', 'MI'], ['MM', 'MM'], ['MONTH', 'MONTH'], ['MON', 'MON'], ['MS', 'MS'], ['Month', 'Month'], ['Mon', 'Mon'],
  ['OF', 'OF'],
  ['P.M.', 'P.M.'], ['PM', 'PM'],
  ['Q', 'Q'],
  ['RM', 'RM'],
  ['SSSSS', 'SSSSS'], ['SSSS', 'SSSS'], ['SS', 'SS'],
  ['TZH', 'TZH'], ['TZM', 'TZM'], ['TZ', 'TZ'],
  ['US', 'US'],
  ['WW', 'WW'], ['W', 'W'],
  ['Y,YYY', 'Y,YYY'], ['YYYY', 'YYYY'], ['YYY', 'YYY'], ['YY', 'YY'], ['Y', 'Y'],
  ['a.d.', 'a.d.'], ['a.m.', 'a.m.'], ['ad', 'ad'], ['am', 'am'],
  ['b.c.', 'b.c.'], ['bc', 'bc'],
  ['cc', 'CC'],
  ['day', 'day'], ['ddd', 'DDD'], ['dd', 'DD'], ['dy', 'dy'], ['d', 'D'],
  ['ff1', 'FF1'], ['ff2', 'FF2'], ['ff3', 'FF3'], ['ff4', 'FF4'], ['ff5', 'FF5'], ['ff6', 'FF6'], ['fx', 'FX'],
  ['hh24', 'HH24'], ['hh12', 'HH12'], ['hh', 'HH'],
  ['iddd', 'IDDD'], ['id', 'ID'], ['iw', 'IW'], ['iyyy', 'IYYY'], ['iyy', 'IYY'], ['iy', 'IY'], ['i', 'I'],
  ['j', 'J'],
  ['mi', 'MI'], ['mm', 'MM'], ['month', 'month'], ['mon', 'mon'], ['ms', 'MS'],
  ['of', 'OF'],
  ['p.m.', 'p.m.'], ['pm', 'pm'],
  ['q', 'Q'],
  ['rm', 'rm'],
  ['sssss', 'SSSSS'], ['ssss', 'SSSS'], ['ss', 'SS'],
  ['tzh', 'TZH'], ['tzm', 'TZM'], ['tz', 'tz'],
  ['us', 'US'],
  ['ww', 'WW'], ['w', 'W'],
  ['y,yyy', 'Y,YYY'], ['yyyy', 'YYYY'], ['yyy', 'YYY'], ['yy', 'YY'], ['y', 'Y'],
];

const NUM_SPELLINGS: readonly (readonly [string, NumKey])[] = [
  [',', ','], ['.', '.'], ['0', '0'], ['9', '9'],
  ['B', 'B'], ['C', 'C'], ['D', 'D'], ['EEEE', 'EEEE'], ['FM', 'FM'], ['G', 'G'], ['L', 'L'], ['MI', 'MI'],
  ['PL', 'PL'], ['PR', 'PR'], ['RN', 'RN'], ['SG', 'SG'], ['SP', 'SP'], ['S', 'S'], ['TH', 'TH'], ['V', 'V'],
  ['b', 'B'], ['c', 'C'], ['d', 'D'], ['eeee', 'EEEE'], ['fm', 'FM'], ['g', 'G'], ['l', 'L'], ['mi', 'MI'],
  ['pl', 'PL'], ['pr', 'PR'], ['rn', 'rn'], ['sg', 'SG'], ['sp', 'SP'], ['s', 'S'], ['th', 'th'], ['v', 'V'],
];

/** The date/time keywords that read or print digits (is_digit in formatting.c's table). */
export const DT_DIGITS: ReadonlySet<DtKey> = new Set<DtKey>([
  'CC', 'DDD', 'DD', 'D', 'HH24', 'HH12', 'HH', 'IDDD', 'ID', 'IW', 'IYYY', 'IYY', 'IY', 'I', 'J', 'MI', 'MM', 'MS',
  'Q', 'SSSSS', 'SSSS', 'SS', 'TZM', 'US', 'WW', 'W', 'Y,YYY', 'YYYY', 'YYY', 'YY', 'Y',
]);

export type Node<K> =
  | { readonly kind: 'key'; readonly key: K; readonly fm: boolean; readonly tm: boolean; readonly th: 'TH' | 'th' | null; readonly sp: boolean }
  /** `separator`: punctuation a parsing template may match loosely; `space`: white space. */
  | { readonly kind: 'char'; readonly ch: string; readonly separator: boolean; readonly space: boolean; readonly quoted: boolean };

export type Template<K> = readonly Node<K>[];

/** is_separator_char: ASCII punctuation other than a double quote, that is not a letter or digit. */
function isSeparator(c: string): boolean {
  const x = c.charCodeAt(0);
  return c.length === 1 && x > 0x20 && x < 0x7f && c !== '"' && !/[A-Za-z0-9]/.test(c);
}

function lookup<K>(table: readonly (readonly [string, K])[], s: string, i: number): readonly [string, K] | null {
  for (const e of table) if (s.startsWith(e[0], i)) return e;
  return null;
}

function parse<K>(s: string, table: readonly (readonly [string, K])[], dt: boolean): Template<K> {
  const out: Node<K>[] = [];
  let i = 0;
  while (i < s.length) {
    let fm = false;
    let tm = false;
    if (dt) {
      const p = s.slice(i, i + 2);
      if (p === 'FM' || p === 'fm') fm = true;
      else if (p === 'TM' || p === 'tm') tm = true;
      if (fm || tm) i += 2;
      if (i >= s.length) break;
    }
    const k = lookup(table, s, i);
    if (k !== null) {
      i += k[0].length;
      let th: 'TH' | 'th' | null = null;
      let sp = false;
      if (dt) {
        const p = s.slice(i, i + 2);
        if (p === 'TH' || p === 'th') th = p;
        else if (p === 'SP') sp = true;
        if (th !== null || sp) i += 2;
      }
      out.push(Object.freeze({ kind: 'key', key: k[1], fm, tm, th, sp }));
      continue;
    }
    if (s[i] === '"') {
      i++;
      while (i < s.length) {
        if (s[i] === '"') {
          i++;
          break;
        }
        if (s[i] === '\\' && i + 1 < s.length) i++;
        const ch = String.fromCodePoint(s.codePointAt(i)!);
        out.push(Object.freeze({ kind: 'char', ch, separator: false, space: false, quoted: true }));
        i += ch.length;
      }
      continue;
    }
    if (s[i] === '\\' && s[i + 1] === '"') i++;
    const ch = String.fromCodePoint(s.codePointAt(i)!);
    const separator = dt && isSeparator(ch);
    out.push(Object.freeze({ kind: 'char', ch, separator, space: !separator && /^\s$/.test(ch), quoted: false }));
    i += ch.length;
  }
  return Object.freeze(out);
}

const CACHE_SIZE = 256;
const dtCache = new Map<string, Template<DtKey>>();
const numCache = new Map<string, Template<NumKey>>();

function cached<K>(cache: Map<string, Template<K>>, s: string, make: () => Template<K>): Template<K> {
  let t = cache.get(s);
  if (t === undefined) {
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
    t = make();
    cache.set(s, t);
  }
  return t;
}

/** A date/time template (to_char of timestamps and intervals, to_date, to_timestamp). */
export function dateTimeTemplate(s: string): Template<DtKey> {
  return cached(dtCache, s, () => parse(s, DT_SPELLINGS, true));
}

/** A number template (to_char of numbers, to_number). */
export function numberTemplate(s: string): Template<NumKey> {
  return cached(numCache, s, () => parse(s, NUM_SPELLINGS, false));
}

// ---- names ----

export const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
export const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
/** Roman numerals of the months, December first (formatting.c's rm_months_upper). */
export const RM_MONTHS = ['XII', 'XI', 'X', 'IX', 'VIII', 'VII', 'VI', 'V', 'IV', 'III', 'II', 'I'];

/** The ordinal suffix of a number's text (get_th): 1st, 2nd, 3rd, 11th–13th, 4th…; `upper` for TH. */
export function ordinalSuffix(digits: string, upper: boolean): string {
  const last = digits[digits.length - 1]!;
  const teen = digits.length > 1 && digits[digits.length - 2] === '1';
  const th = teen ? 'th' : last === '1' ? 'st' : last === '2' ? 'nd' : last === '3' ? 'rd' : 'th';
  return upper ? th.toUpperCase() : th;
}

/**
 * Character types: varchar.c. Text is any valid UTF-8 without NUL (the server rejects NUL and
 * invalid sequences while converting input: 22021). varchar(n)/character(n) raise 22001 when
 * longer than n characters unless the excess is all spaces, which is cut; character(n) pads
 * with spaces to n and is stored padded (bpchar without typmod keeps the input as is).
 */
import { SQLSTATE } from '../errors.js';
import { err } from './scan.js';

interface WellFormed {
  isWellFormed(): boolean;
}

export function checkText(s: string): string {
  if (s.indexOf('\0') >= 0) throw err(SQLSTATE.character_not_in_repertoire, 'invalid byte sequence for encoding "UTF8": 0x00');
  if (!(s as unknown as WellFormed).isWellFormed()) {
    // A lone surrogate: its bytes as CESU-8 would be 0xed 0xa0..0xbf 0x80..0xbf.
    let i = 0;
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
      else if ((c & 0xf800) === 0xd800) break;
    }
    const c = s.charCodeAt(i);
    const hex = [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63)].map((b) => '0x' + b.toString(16)).join(' ');
    throw err(SQLSTATE.character_not_in_repertoire, `invalid byte sequence for encoding "UTF8": ${hex}`);
  }
  return s;
}

/** Index (in UTF-16 units) just past the first n code points of s, or -1 if s has <= n. */
function codePointCut(s: string, n: number): number {
  if (s.length <= n) return -1;
  let i = 0;
  let count = 0;
  while (i < s.length) {
    if (count === n) return i;
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
    count++;
  }
  return -1;
}

function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!(c >= 0xdc00 && c <= 0xdfff && i > 0)) n++;
    else if (!(s.charCodeAt(i - 1) >= 0xd800 && s.charCodeAt(i - 1) <= 0xdbff)) n++;
  }
  return n;
}

function cutExcessSpaces(s: string, n: number, display: string): string {
  const cut = codePointCut(s, n);
  if (cut < 0) return s;
  for (let i = cut; i < s.length; i++) {
    if (s.charCodeAt(i) !== 32) throw err(SQLSTATE.string_data_right_truncation, `value too long for type ${display}(${n})`);
  }
  return s.slice(0, cut);
}

/**
 * The first n characters of s: an explicit cast to varchar(n) or character(n) truncates
 * (PostgreSQL 15 docs 8.3; varchar(…, isExplicit) in varchar.c), where assignment raises 22001.
 */
export function truncateChars(s: string, n: number): string {
  const cut = codePointCut(s, n);
  return cut < 0 ? s : s.slice(0, cut);
}

export function parseVarchar(n: number | undefined, s: string): string {
  checkText(s);
  return n === undefined ? s : cutExcessSpaces(s, n, 'character varying');
}

export function parseBpchar(n: number | undefined, s: string): string {
  checkText(s);
  if (n === undefined) return s;
  const t = cutExcessSpaces(s, n, 'character');
  if (t.length >= n && t !== s) return t;
  const len = codePointLength(t);
  return len < n ? t + ' '.repeat(n - len) : t;
}

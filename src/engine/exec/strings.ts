/**
 * Text kernels with PostgreSQL's semantics under the C collation paxd's PostgreSQL uses
 * (PostgreSQL 15 docs, 9.4 "String Functions and Operators", 9.7.1 "LIKE"):
 *
 *   likeMatcher('a\\%b%', '\\', false).test('a%bc')  // true: `\` escapes, `_` one character, `%` any
 *   lower('ÉcoLE')                      // 'École': only ASCII letters change under "C"
 *
 * Positions and lengths count characters (code points), not UTF-16 units. Under the C
 * collation lower/upper/ILIKE change only ASCII letters (str_tolower's asc_tolower path).
 */
import { SQLSTATE } from '../../types/index.js';
import { SqlError } from '../errors.js';
import { checkAllocation, MAX_ALLOC_SIZE } from '../memory.js';

export function asciiLower(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

export function asciiUpper(s: string): string {
  return s.replace(/[a-z]+/g, (m) => m.toUpperCase());
}

/** Fails with 22025 unless `escape` is one character or empty (like_escape). */
export function checkEscape(escape: string): void {
  if ([...escape].length > 1) throw new SqlError('invalid_input', SQLSTATE.invalid_escape_sequence, 'invalid escape string', undefined);
}

/** A compiled LIKE pattern: whether a whole text matches it. */
export interface LikeMatcher {
  test(s: string): boolean;
}

const cache = new Map<string, LikeMatcher>();

/**
 * The matcher a LIKE pattern means; an escape at the pattern's end is 22025.
 *
 * Not a RegExp: `'%a%a%a%a%a%b'` as `^.*a.*a.*a.*a.*a.*b$` backtracks in O(n^5) over a long
 * text of a's (issue #18). The pattern is cut at its `%`s into segments of fixed length (a
 * literal character, or `_` for any one), and a text matches when the first segment matches
 * its start, the last its end, and the ones between are found, leftmost first, in order
 * (greedy placement of fixed-length segments loses no match): O(text × pattern) at worst, as
 * PostgreSQL's like_match.c, whose `%` handling is the same "no backtracking past a match" rule.
 */
export function likeMatcher(pattern: string, escape: string, ci: boolean): LikeMatcher {
  const key = `${ci ? 'i' : 'c'}${escape}\u0000${pattern}`;
  let m = cache.get(key);
  if (m !== undefined) return m;
  // PostgreSQL rewrites the pattern to backslash escapes (like_escape) before ILIKE lowers
  // it, so the escape character is matched as written and every other character lowered.
  const chars = [...pattern];
  const segments: Segment[] = [[]];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const seg = segments[segments.length - 1]!;
    if (escape !== '' && c === escape) {
      if (i + 1 >= chars.length) throw new SqlError('invalid_input', SQLSTATE.invalid_escape_sequence, 'LIKE pattern must not end with escape character');
      const lit = chars[++i]!;
      seg.push(ci ? asciiLower(lit) : lit);
    } else if (c === '%') segments.push([]);
    else if (c === '_') seg.push(ANY);
    else seg.push(ci ? asciiLower(c) : c);
  }
  // A text without surrogates is indexed as it is (a UTF-16 unit is then a character).
  m = { test: (s: string) => likeMatch(SURROGATE.test(s) ? [...s] : s, segments) };
  if (cache.size > 1000) cache.clear();
  cache.set(key, m);
  return m;
}

/** `_` in a segment: any one character. */
const ANY = null;
const SURROGATE = /[\uD800-\uDFFF]/;
/** Characters (code points) between two `%`s: each one literal, or ANY. */
type Segment = (string | null)[];

function likeMatch(text: ArrayLike<string>, segments: readonly Segment[]): boolean {
  const first = segments[0]!;
  if (segments.length === 1) return text.length === first.length && segmentAt(text, 0, first);
  const last = segments[segments.length - 1]!;
  if (first.length + last.length > text.length) return false;
  if (!segmentAt(text, 0, first) || !segmentAt(text, text.length - last.length, last)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (let k = 1; k < segments.length - 1; k++) {
    const seg = segments[k]!;
    let found = -1;
    for (let i = at; i + seg.length <= end; i++) {
      if (segmentAt(text, i, seg)) {
        found = i;
        break;
      }
    }
    if (found < 0) return false;
    at = found + seg.length;
  }
  return true;
}

function segmentAt(text: ArrayLike<string>, at: number, seg: Segment): boolean {
  for (let j = 0; j < seg.length; j++) {
    const c = seg[j];
    if (c !== ANY && text[at + j] !== c) return false;
  }
  return true;
}

export function charLength(s: string): number {
  // UTF-16 units less one per surrogate pair. The string iterator made a string per character
  // (a second per 50 M characters, one synchronous stretch: length(repeat(…)) over a cross join
  // in issue #18's hostile suite), and charCodeAt walks a rope (repeat's result) at every call:
  // the regular expression flattens it once and scans natively.
  if (!SURROGATE.test(s)) return s.length;
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** substring(s FROM start [FOR count]) (text_substring): 1-based, start may be < 1. */
export function substring(s: string, start: number, count: number | null): string {
  if (count !== null && count < 0) throw new SqlError('invalid_input', SQLSTATE.substring_error, 'negative substring length not allowed');
  const chars = [...s];
  const from = Math.max(start, 1);
  const end = count === null ? chars.length + 1 : start + count; // exclusive, 1-based
  if (end <= from) return '';
  return chars.slice(from - 1, end - 1).join('');
}

/** position(sub IN s): the 1-based character index of the first match, 0 when none. */
export function position(s: string, sub: string): number {
  const i = s.indexOf(sub);
  return i < 0 ? 0 : charLength(s.slice(0, i)) + 1;
}

/** btrim/ltrim/rtrim: removes characters of `set` from the chosen ends. */
export function trim(s: string, set: string, leading: boolean, trailing: boolean): string {
  const chars = [...s];
  const drop = new Set([...set]);
  let a = 0;
  let b = chars.length;
  if (leading) while (a < b && drop.has(chars[a]!)) a++;
  if (trailing) while (b > a && drop.has(chars[b - 1]!)) b--;
  return chars.slice(a, b).join('');
}

/** 54000, as PostgreSQL's repeat and lpad/rpad refuse a result past MaxAllocSize. */
function lengthTooLarge(): SqlError {
  return new SqlError('usage', SQLSTATE.program_limit_exceeded, 'requested length too large');
}

/**
 * repeat(s, n) (varlena.c repeat): '' for n ≤ 0; 54000 `requested length too large` when the
 * result's bytes (plus the 4-byte header) pass MaxAllocSize, as PostgreSQL; below that, a
 * result the statement's memory cannot hold is 53200 (../memory.ts).
 *
 *   repeat('ab', 3)            // 'ababab'
 *   repeat('x', 1100000000)    // 54000
 */
export function repeatText(s: string, n: number): string {
  if (n <= 0 || s === '') return '';
  const bytes = Buffer.byteLength(s, 'utf8') * n;
  if (bytes + 4 > MAX_ALLOC_SIZE) throw lengthTooLarge();
  checkAllocation(s.length * n, 'ExecutorState');
  return s.repeat(n);
}

/**
 * lpad/rpad(s, len [, fill]) (oracle_compat.c): s cut or padded with fill to len characters;
 * '' for len ≤ 0; s cut when fill is ''. PostgreSQL refuses len × the encoding's longest
 * character (4 bytes in UTF-8) past MaxAllocSize with 54000, whatever the fill.
 */
export function pad(s: string, len: number, fill: string, left: boolean): string {
  if (len <= 0) return '';
  if (len * 4 + 4 > MAX_ALLOC_SIZE) throw lengthTooLarge();
  const chars = [...s];
  if (chars.length >= len) return chars.slice(0, len).join('');
  const f = [...fill];
  if (f.length === 0) return s;
  const need = len - chars.length;
  checkAllocation(s.length + need * 2, 'ExecutorState');
  const whole = Math.floor(need / f.length);
  const padding = fill.repeat(whole) + f.slice(0, need - whole * f.length).join('');
  return left ? padding + s : s + padding;
}

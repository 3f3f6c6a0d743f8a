/**
 * Text kernels with PostgreSQL's semantics under the C collation paxd's PostgreSQL uses
 * (PostgreSQL 15 docs, 9.4 "String Functions and Operators", 9.7.1 "LIKE"):
 *
 *   likeRegExp('a\\%b%', '\\', false)  // /^a%b.*$/su : `\` escapes, `_` one character, `%` any
 *   lower('ÉcoLE')                      // 'École': only ASCII letters change under "C"
 *
 * Positions and lengths count characters (code points), not UTF-16 units. Under the C
 * collation lower/upper/ILIKE change only ASCII letters (str_tolower's asc_tolower path).
 */
import { SQLSTATE } from '../../types/index.js';
import { SqlError } from '../errors.js';

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

const cache = new Map<string, RegExp>();

/** The anchored RegExp a LIKE pattern means; an escape at the pattern's end is 22025. */
export function likeRegExp(pattern: string, escape: string, ci: boolean): RegExp {
  const key = `${ci ? 'i' : 'c'}${escape}\u0000${pattern}`;
  let re = cache.get(key);
  if (re !== undefined) return re;
  // PostgreSQL rewrites the pattern to backslash escapes (like_escape) before ILIKE lowers
  // it, so the escape character is matched as written and every other character lowered.
  const chars = [...pattern];
  const lit = (c: string) => quote(ci ? asciiLower(c) : c);
  let src = '';
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (escape !== '' && c === escape) {
      if (i + 1 >= chars.length) throw new SqlError('invalid_input', SQLSTATE.invalid_escape_sequence, 'LIKE pattern must not end with escape character');
      src += lit(chars[++i]!);
    } else if (c === '%') src += '.*';
    else if (c === '_') src += '.';
    else src += lit(c);
  }
  re = new RegExp(`^${src}$`, 'su');
  if (cache.size > 1000) cache.clear();
  cache.set(key, re);
  return re;
}

function quote(c: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(c) ? `\\${c}` : c;
}

export function charLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
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

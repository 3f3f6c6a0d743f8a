/**
 * Character-level helpers shared by the text input functions of every family (./*.ts,
 * ../numeric.ts, ../datetime.ts): C's isspace/isdigit in the C locale, case-insensitive word
 * tests, and the 22xxx error constructor.
 */
import { PaxdError } from '../errors.js';

/** C isspace() in the C locale: space, \t, \n, \v, \f, \r. */
export function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function isAlpha(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

export function skipSpace(s: string, i: number): number {
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  return i;
}

/** Case-insensitive (ASCII) test that s[i..] starts with `word` (lower case). */
export function startsWithCI(s: string, i: number, word: string): boolean {
  if (s.length - i < word.length) return false;
  for (let k = 0; k < word.length; k++) {
    let c = s.charCodeAt(i + k);
    if (c >= 65 && c <= 90) c += 32;
    if (c !== word.charCodeAt(k)) return false;
  }
  return true;
}

export function onlySpaceFrom(s: string, i: number): boolean {
  return skipSpace(s, i) === s.length;
}

export function err(code: string, message: string, detail?: string): PaxdError {
  return new PaxdError('invalid_input', code, message, detail === undefined ? {} : { detail });
}


export function hexVal(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 32;
  if (l >= 97 && l <= 102) return l - 87;
  return -1;
}

export const I64_MIN = -(2n ** 63n);
export const I64_MAX = 2n ** 63n - 1n;

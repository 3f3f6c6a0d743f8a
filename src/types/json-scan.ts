/**
 * The JSON scanner (RFC 8259, as PostgreSQL 15's common/jsonapi.c lexes it): positions in a
 * string, no allocation, -1 for "not JSON". jsonb input (./text/jsonb.ts) parses with it, and
 * NDJSON input (../insert/ndjson.ts) finds each line's top-level values with it, so both
 * accept exactly the same strings and numbers.
 *
 *   jsonStringEnd('"a\\"b", 1', 1, 9)   // 5: the closing quote; jsonScan.escaped is true
 *   jsonNumberEnd('-1.5e3]', 0, 7)      // 6
 *   jsonNumberEnd('01', 0, 2)           // 1: "0" is a number; what follows is the caller's
 *   jsonNestedEnd('{"a": [1]} x', 0, 12) // 10: brackets balanced, strings scanned
 */

/** What the last jsonStringEnd saw: whether the string had a backslash escape. */
export const jsonScan = { escaped: false };

/** JSON whitespace: space, \t, \n, \r (not \f or \v, unlike C's isspace). */
export function isJsonWs(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/** The first position in [i, end) that is not JSON whitespace (end if none). */
export function jsonSkipWs(s: string, i: number, end: number): number {
  while (i < end && isJsonWs(s.charCodeAt(i))) i++;
  return i;
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * From just after an opening quote: the index of the closing quote, or -1 when the string has
 * an unescaped control character, a bad escape (\uXXXX needs four hex digits) or no end.
 * Sets jsonScan.escaped. Surrogate pairing and \u0000 are the decoder's to judge.
 */
export function jsonStringEnd(s: string, i: number, end: number): number {
  jsonScan.escaped = false;
  while (i < end) {
    const c = s.charCodeAt(i);
    if (c === 34) return i;
    if (c < 0x20) return -1;
    if (c === 92) {
      jsonScan.escaped = true;
      const e = s.charCodeAt(i + 1);
      if (e === 117 /* u */) {
        if (i + 5 >= end || !isHex(s.charCodeAt(i + 2)) || !isHex(s.charCodeAt(i + 3)) || !isHex(s.charCodeAt(i + 4)) || !isHex(s.charCodeAt(i + 5))) return -1;
        i += 6;
        continue;
      }
      // \" \\ \/ \b \f \n \r \t
      if (e !== 34 && e !== 92 && e !== 47 && e !== 98 && e !== 102 && e !== 110 && e !== 114 && e !== 116) return -1;
      i += 2;
      continue;
    }
    i++;
  }
  return -1;
}

/**
 * A number from i by the JSON grammar, -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?:
 * the index just past it, or -1. What may follow is the caller's grammar (`12x` is a number
 * and then junk).
 */
export function jsonNumberEnd(s: string, i: number, end: number): number {
  if (s.charCodeAt(i) === 45) i++;
  if (i >= end) return -1;
  let c = s.charCodeAt(i);
  if (c === 48) i++;
  else if (c >= 49 && c <= 57) while (i < end && isDigit(s.charCodeAt(i))) i++;
  else return -1;
  if (i < end && s.charCodeAt(i) === 46) {
    const d = ++i;
    while (i < end && isDigit(s.charCodeAt(i))) i++;
    if (i === d) return -1;
  }
  c = s.charCodeAt(i);
  if (i < end && (c === 101 || c === 69)) {
    i++;
    c = s.charCodeAt(i);
    if (c === 43 || c === 45) i++;
    const d = i;
    while (i < end && isDigit(s.charCodeAt(i))) i++;
    if (i === d) return -1;
  }
  return i;
}

/**
 * An object or array from i: the index just past its closing bracket, or -1. Brackets are
 * only counted (strings are scanned, so brackets inside them do not count); commas, colons
 * and literals are the parser's to check.
 */
export function jsonNestedEnd(s: string, i: number, end: number): number {
  let depth = 0;
  while (i < end) {
    const c = s.charCodeAt(i);
    if (c === 34) {
      const e = jsonStringEnd(s, i + 1, end);
      if (e < 0) return -1;
      i = e + 1;
      continue;
    }
    if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

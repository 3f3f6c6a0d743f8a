/**
 * UTF-8 verification with PostgreSQL's rules and message (common/wchar.c pg_utf8_verifystr,
 * pg_utf8_islegal; mb/mbutils.c report_invalid_encoding): overlong forms, surrogates, code
 * points past U+10FFFF, truncated sequences and NUL bytes are invalid, and the error shows the
 * bytes of the offending character as PostgreSQL does:
 *
 *   invalid byte sequence for encoding "UTF8": 0xc3 0x28
 *
 * The one validator of every text input: the CSV and NDJSON readers check whole blocks with
 * node's native `isUtf8` first and run this scanner only to locate the first bad byte of a
 * block that failed; Arrow and Parquet utf8 columns are checked value by value through
 * `checkUtf8Values` (./arrow.ts), so no input stores bytes that are not UTF-8.
 */
import { isUtf8 } from 'node:buffer';
import { PaxdError, SQLSTATE } from './errors.js';

/** true when bytes[start, end) is valid UTF-8 without NUL bytes (fast, native). */
export function isCleanUtf8(bytes: Uint8Array, start: number, end: number): boolean {
  if (start >= end) return true;
  const view = bytes.subarray(start, end);
  return view.indexOf(0) < 0 && isUtf8(view);
}

/** pg_utf_mblen: the sequence length a lead byte announces (1 for anything unexpected). */
function mblen(b: number): number {
  if ((b & 0x80) === 0) return 1;
  if ((b & 0xe0) === 0xc0) return 2;
  if ((b & 0xf0) === 0xe0) return 3;
  if ((b & 0xf8) === 0xf0) return 4;
  return 1;
}

/** pg_utf8_islegal for the `len` bytes at `i` (all present). */
function isLegal(s: Uint8Array, i: number, len: number): boolean {
  if (len < 1 || len > 4) return false;
  for (let k = 2; k < len; k++) {
    const a = s[i + k]!;
    if (a < 0x80 || a > 0xbf) return false;
  }
  const lead = s[i]!;
  if (len >= 2) {
    const a = s[i + 1]!;
    let lo = 0x80;
    let hi = 0xbf;
    if (lead === 0xe0) lo = 0xa0;
    else if (lead === 0xed) hi = 0x9f;
    else if (lead === 0xf0) lo = 0x90;
    else if (lead === 0xf4) hi = 0x8f;
    if (a < lo || a > hi) return false;
  }
  return !((lead >= 0x80 && lead < 0xc2) || lead > 0xf4);
}

/**
 * Index of the first invalid character in bytes[start, end), or -1. A sequence cut by `end`
 * counts as invalid (callers pass complete rows, so only the end of input can cut one).
 */
export function firstInvalidUtf8(bytes: Uint8Array, start: number, end: number): number {
  let i = start;
  while (i < end) {
    const b = bytes[i]!;
    if (b < 0x80) {
      if (b === 0) return i;
      i++;
      continue;
    }
    const l = mblen(b);
    if (i + l > end || !isLegal(bytes, i, l)) return i;
    i += l;
  }
  return -1;
}

/** `invalid byte sequence for encoding "UTF8": 0xc3 0x28` for the character at bytes[i]; `avail` bytes follow it in the input. */
export function invalidEncodingMessage(bytes: Uint8Array, i: number, avail: number): string {
  const n = Math.min(mblen(bytes[i]!), avail, 8);
  const hex: string[] = [];
  for (let j = 0; j < n; j++) hex.push('0x' + bytes[i + j]!.toString(16).padStart(2, '0'));
  return `invalid byte sequence for encoding "UTF8": ${hex.join(' ')}`;
}

export function invalidEncoding(bytes: Uint8Array, i: number, avail: number): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.character_not_in_repertoire, invalidEncodingMessage(bytes, i, avail));
}

/**
 * Checks the variable-width values of a utf8 column (Arrow layout: `offsets[i]..offsets[i+1]`
 * of `bytes`, rows `isValid` says are not NULL): each must be valid UTF-8 without NUL, on its
 * own. Throws 22021 for the first bad one, with `row` its 1-based position.
 *
 * Fast path: the whole range checked natively, then only that no value begins inside a
 * character (a continuation byte): a sequence split between two values is valid as a whole
 * and invalid in each.
 */
export function checkUtf8Values(bytes: Uint8Array, offsets: ArrayLike<number | bigint>, length: number, isValid: (i: number) => boolean): void {
  const at = (i: number) => Number(offsets[i]!);
  const from = at(0);
  const to = at(length);
  if (isCleanUtf8(bytes, from, to)) {
    let i = 0;
    for (; i < length; i++) {
      const s = at(i);
      if (s < at(i + 1) && (bytes[s]! & 0xc0) === 0x80 && isValid(i)) break;
    }
    if (i === length) return;
  }
  for (let i = 0; i < length; i++) {
    const s = at(i);
    const e = at(i + 1);
    if (s === e || !isValid(i) || isCleanUtf8(bytes, s, e)) continue;
    const bad = firstInvalidUtf8(bytes, s, e);
    const err = invalidEncoding(bytes, bad, e - bad);
    throw new PaxdError(err.kind, err.code, err.message, { row: i + 1 });
  }
}

/**
 * Integers: numutils.c pg_strtoint16/32/64. Leading/trailing isspace, optional sign, at least
 * one digit, digits only (PostgreSQL 16 added '_' separators and 0x/0o/0b; 15 has neither).
 * Overflow is detected while reading digits, so "99999999999x" is out of range, not syntax.
 */
import { invalidInput, outOfRange } from '../errors.js';
import { I64_MAX, I64_MIN, isDigit, onlySpaceFrom, skipSpace } from './scan.js';

export function parseSmallInt(s: string, name: string, min: number, max: number): number {
  let i = skipSpace(s, 0);
  let neg = false;
  const c0 = s.charCodeAt(i);
  if (c0 === 45) {
    neg = true;
    i++;
  } else if (c0 === 43) i++;
  if (!isDigit(s.charCodeAt(i))) throw invalidInput(name, s);
  // Accumulate negatively, as PostgreSQL does, so that the minimum value fits.
  let acc = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c)) break;
    acc = acc * 10 - (c - 48);
    if (acc < min) throw outOfRange(name, s);
  }
  if (!onlySpaceFrom(s, i)) throw invalidInput(name, s);
  if (neg) return acc;
  if (-acc > max) throw outOfRange(name, s);
  return 0 - acc;
}

export function parseInt8(s: string): bigint {
  let i = skipSpace(s, 0);
  const c0 = s.charCodeAt(i);
  const neg = c0 === 45;
  if (c0 === 45 || c0 === 43) i++;
  const start = i;
  while (i < s.length && isDigit(s.charCodeAt(i))) i++;
  if (i === start) throw invalidInput('bigint', s);
  let v: bigint;
  if (i - start <= 15) {
    // Up to 15 digits is exact in a double: one BigInt conversion instead of a parse.
    let n = 0;
    for (let k = start; k < i; k++) n = n * 10 + (s.charCodeAt(k) - 48);
    v = BigInt(neg ? -n : n);
  } else {
    v = BigInt(s.slice(start, i));
    if (neg) v = -v;
    if (v < I64_MIN || v > I64_MAX) throw outOfRange('bigint', s);
  }
  if (!onlySpaceFrom(s, i)) throw invalidInput('bigint', s);
  return v;
}

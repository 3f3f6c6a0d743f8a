/**
 * The object identifier family's text I/O (PostgreSQL 15 docs 8.19 "Object Identifier Types",
 * 8.3 for "char" and name; utils/adt/oid.c, xid.c, char.c, name.c, int.c's int2vectorin):
 *
 *   parseOid(' 42 ')       // 42n          parseOid('-1')        // 4294967295n (wraps, as oidin)
 *   parseOid('4294967296') // 22003 value "4294967296" is out of range for type oid
 *   parseXid('0x10')       // 16n          (strtoul base 0, no checks: 'abc' is 0)
 *   parseChar('é')         // '\303'       (the first byte; bytes past 127 print as octal)
 *   parseName('a'.repeat(70)).length      // 63 (NAMEDATALEN - 1 bytes, cut at a character)
 *   parseVector('oid', ' 23  25')          // '23 25'
 *
 * Values: oid, xid and the reg* types are bigints in [0, 2^32) (Kind.Oid, ./kind.ts); a reg*
 * value's text here is its digits: the name an output function prints needs the catalog, which
 * the engine has (src/engine/catalog/names.ts), as does a reg* input that is a name. "char" is
 * its output text ('' for the zero byte); int2vector and oidvector their canonical text.
 */
import { PaxdError, SQLSTATE } from '../errors.js';
import { invalidInput, outOfRange } from '../errors.js';
import { checkText } from './character.js';
import { isDigit, isSpace, onlySpaceFrom, skipSpace } from './scan.js';

const U32 = 4294967296;

/** oidin_subr: strtoul base 10; values past 2^32 are 22003, negatives down to -2^31 wrap; trailing spaces only. */
export function parseOid(s: string, name = 'oid'): bigint {
  const [v, end] = oidPrefix(s, name);
  if (!onlySpaceFrom(s, end)) throw invalidInput(name, s);
  return v;
}

/** The oid at the start of `s` and the index after it (oidvectorin reads one element at a time). */
function oidPrefix(s: string, name: string): [bigint, number] {
  let i = skipSpace(s, 0);
  const c0 = s.charCodeAt(i);
  const neg = c0 === 45;
  if (neg || c0 === 43) i++;
  const start = i;
  let n = 0;
  while (i < s.length && isDigit(s.charCodeAt(i))) {
    n = n * 10 + (s.charCodeAt(i) - 48);
    if (n >= U32 * 2 ** 20) n = U32 * 2 ** 20; // far out of range: stop growing, keep reading digits
    i++;
  }
  if (i === start) throw invalidInput(name, s);
  // strtoul negates the unsigned value; oidin accepts what fits an int (-2^31 .. -1) as it wraps.
  if (neg ? n > 2 ** 31 : n >= U32) throw outOfRange(name, s);
  return [BigInt(neg && n !== 0 ? U32 - n : n), i];
}

/** xidin (PostgreSQL 15): strtoul(str, NULL, 0) with no checks, truncated to 32 bits. */
export function parseXid(s: string): bigint {
  let i = skipSpace(s, 0);
  const neg = s[i] === '-';
  if (neg || s[i] === '+') i++;
  let base = 10;
  if (s[i] === '0' && (s[i + 1] === 'x' || s[i + 1] === 'X') && /[0-9a-fA-F]/.test(s[i + 2] ?? '')) {
    base = 16;
    i += 2;
  } else if (s[i] === '0') base = 8;
  let v = 0n;
  for (; i < s.length; i++) {
    const d = parseInt(s[i]!, base);
    if (Number.isNaN(d)) break;
    v = v * BigInt(base) + BigInt(d);
    if (v > 0xffffffffffffffffn) v = 0xffffffffffffffffn; // ULONG_MAX on overflow
  }
  if (neg) v = (0x10000000000000000n - v) & 0xffffffffffffffffn;
  return v & 0xffffffffn;
}

export function formatOid(v: bigint): string {
  return String(v);
}

/** charin: a backslash and three octal digits is that byte; otherwise the first byte (or 0 for ''). */
export function parseChar(s: string): string {
  if (s.length === 4 && s[0] === '\\' && /^[0-7]{3}$/.test(s.slice(1))) return charOut(parseInt(s.slice(1), 8) & 0xff);
  if (s.length === 0) return '';
  const c = s.codePointAt(0)!;
  return charOut(c < 0x80 ? c : new TextEncoder().encode(String.fromCodePoint(c))[0]!);
}

/** charout: '' for the zero byte, bytes past 127 as \ooo (PostgreSQL 15), else the character. */
function charOut(b: number): string {
  if (b === 0) return '';
  if (b >= 0x80) return `\\${b.toString(8).padStart(3, '0')}`;
  return String.fromCharCode(b);
}

/** The byte a "char" value holds (its output text read back), for comparisons: chareq/charlt compare unsigned bytes. */
export function charByte(v: string): number {
  if (v.length === 0) return 0;
  return v.length === 4 && v[0] === '\\' ? parseInt(v.slice(1), 8) : v.charCodeAt(0);
}

/** NAMEDATALEN - 1: the bytes a name keeps. */
export const NAME_MAX_BYTES = 63;

/** namein: text cut to 63 bytes at a character boundary (pg_mbcliplen), as PostgreSQL truncates identifiers. */
export function parseName(s: string): string {
  checkText(s);
  if (s.length <= NAME_MAX_BYTES / 3) return s;
  let bytes = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.codePointAt(i)!;
    const n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (bytes + n > NAME_MAX_BYTES) return s.slice(0, i);
    bytes += n;
    i += c >= 0x10000 ? 2 : 1;
  }
  return s;
}

/** FUNC_MAX_ARGS: the elements an int2vector or oidvector may hold. */
const FUNC_MAX_ARGS = 100;

/** int2vectorin / oidvectorin: whitespace-separated int2s or oids, printed one space apart. */
export function parseVector(element: 'int2' | 'oid', s: string): string {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    i = skipSpace(s, i);
    if (i >= s.length) break;
    if (out.length === FUNC_MAX_ARGS) throw new PaxdError('invalid_input', SQLSTATE.invalid_parameter_value, `${element === 'oid' ? 'oidvector' : 'int2vector'} has too many elements`);
    let end = i;
    while (end < s.length && !isSpace(s.charCodeAt(end))) end++;
    const item = s.slice(i, end);
    out.push(element === 'oid' ? String(oidPrefixWhole(item, s)) : String(int2Of(item, s.slice(i))));
    i = end;
  }
  return out.join(' ');
}

function oidPrefixWhole(item: string, rest: string): bigint {
  try {
    return parseOid(item);
  } catch (e) {
    if (e instanceof PaxdError && e.code === SQLSTATE.numeric_value_out_of_range) throw outOfRange('oid', rest);
    throw invalidInput('oid', rest);
  }
}

function int2Of(item: string, rest: string): number {
  if (!/^[+-]?\d+$/.test(item)) throw invalidInput('smallint', rest);
  const n = Number(item);
  if (n < -32768 || n > 32767) throw outOfRange('smallint', item);
  return n;
}

/** The elements of an int2vector or oidvector value, as numbers. */
export function vectorElements(v: string): number[] {
  return v === '' ? [] : v.split(' ').map(Number);
}

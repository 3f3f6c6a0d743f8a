/**
 * String functions (PostgreSQL 15 docs 9.4, table 9.10): characters are code points, and case
 * is ASCII only, as under the C collation paxd has (asc_initcap, asc_tolower).
 *
 *   split_part('a,b,c', ',', -1)   → 'c'        left('abcde', -2)      → 'abc'
 *   translate('12345', '143', 'ax') → 'a2x5'     concat_ws(',', 1, NULL, 'x') → '1,x'
 */
import { createHash } from 'node:crypto';
import { type PgType, type Value, SQLSTATE } from '../../types/index.js';
import { SqlError } from '../errors.js';
import { toText } from '../exec/kernels.js';
import { T } from '../types.js';
import type { Family, Kernel, Signature } from './signature.js';

function invalidParameter(message: string): SqlError {
  return new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, message);
}

function programLimit(message: string): SqlError {
  return new SqlError('invalid_input', SQLSTATE.program_limit_exceeded, message);
}

function substringError(): SqlError {
  return new SqlError('invalid_input', SQLSTATE.substring_error, 'negative substring length not allowed');
}

const chars = (s: string): string[] => Array.from(s);

const sig = (params: readonly PgType[], result: PgType, kernel: Kernel, extra: Partial<Signature> = {}): Signature => Object.freeze({ params, result, kernel, ...extra });

/** split_part: fields between `delim`; n < 0 counts from the end; 22023 for n = 0. */
function splitPart(s: string, delim: string, n: number): string {
  if (n === 0) throw invalidParameter('field position must not be zero');
  if (delim === '') return n === 1 || n === -1 ? s : '';
  const fields = s.split(delim);
  const k = n > 0 ? n - 1 : fields.length + n;
  return k >= 0 && k < fields.length ? fields[k]! : '';
}

function left(s: string, n: number): string {
  const c = chars(s);
  return (n >= 0 ? c.slice(0, n) : c.slice(0, Math.max(0, c.length + n))).join('');
}

function right(s: string, n: number): string {
  const c = chars(s);
  return (n >= 0 ? c.slice(Math.max(0, c.length - n)) : c.slice(Math.min(c.length, -n))).join('');
}

/** translate: each character of `from` becomes the one at its place in `to`, or is deleted. */
function translate(s: string, from: string, to: string): string {
  const f = chars(from);
  const t = chars(to);
  const map = new Map<string, string | null>();
  f.forEach((c, i) => {
    if (!map.has(c)) map.set(c, i < t.length ? t[i]! : null);
  });
  let out = '';
  for (const c of chars(s)) {
    const r = map.get(c);
    if (r === undefined) out += c;
    else if (r !== null) out += r;
  }
  return out;
}

const isAlnum = (c: string) => /^[A-Za-z0-9]$/.test(c);

/** initcap under the C collation (asc_initcap): words are runs of ASCII letters and digits. */
function initcap(s: string): string {
  let out = '';
  let inWord = false;
  for (const c of s) {
    out += inWord ? c.replace(/[A-Z]/, (x) => x.toLowerCase()) : c.replace(/[a-z]/, (x) => x.toUpperCase());
    inWord = isAlnum(c);
  }
  return out;
}

/** chr for UTF8 (PostgreSQL's chr): 22023 below 0; 54000 for 0, for surrogates and beyond U+10FFFF. */
function chr(n: number): string {
  if (n < 0) throw invalidParameter('character number must be positive');
  if (n === 0) throw programLimit('null character not permitted');
  if (n > 0x10ffff) throw programLimit(`requested character too large for encoding: ${n}`);
  if (n >= 0xd800 && n <= 0xdfff) throw programLimit(`requested character not valid for encoding: ${n}`);
  return String.fromCodePoint(n);
}

/**
 * overlay(s placing r from start [for count]) (textoverlay): s's first start - 1 characters (22011
 * when start < 1), r, then s from start + count on (a negative count goes back).
 */
function overlay(s: string, r: string, start: number, count: number | null): string {
  const c = chars(s);
  const len = count ?? chars(r).length;
  if (start < 1) throw substringError();
  return c.slice(0, start - 1).join('') + r + c.slice(Math.max(0, start - 1 + len)).join('');
}

/** quote_ident (quote_identifier): double quotes unless lower-case letters, digits and `_` only, not a digit first, and no keyword. */
export function quoteIdent(s: string): string {
  if (/^[a-z_][a-z0-9_]*$/.test(s) && !RESERVED.has(s)) return s;
  return `"${s.replaceAll('"', '""')}"`;
}

/** quote_literal: single quotes doubled, and an E'' string when there is a backslash. */
export function quoteLiteral(s: string): string {
  const body = s.replaceAll("'", "''");
  return s.includes('\\') ? `E'${body.replaceAll('\\', '\\\\')}'` : `'${body}'`;
}

/**
 * The keywords quote_ident must quote (ScanKeywordLookup with category other than
 * UNRESERVED_KEYWORD: reserved, column-name and type-function-name keywords of PostgreSQL 15).
 */
const RESERVED = new Set(
  (
    'all analyse analyze and any array as asc asymmetric both case cast check collate column constraint create current_catalog ' +
    'current_date current_role current_time current_timestamp current_user default deferrable desc distinct do else end except false ' +
    'fetch for foreign from grant group having in initially intersect into lateral leading limit localtime localtimestamp not null ' +
    'offset on only or order placing primary references returning select session_user some symmetric system_user table then to trailing true ' +
    'union unique user using variadic when where window with authorization binary collation concurrently cross current_schema freeze full ' +
    'ilike inner is isnull join left like natural notnull outer overlaps right similar tablesample verbose between bigint bit boolean char ' +
    'character coalesce dec decimal exists extract float greatest grouping inout int integer interval least national nchar none normalize ' +
    'nullif numeric out overlay position precision real row setof smallint substring time timestamp treat trim values varchar xmlattributes ' +
    'xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot xmlserialize xmltable'
  ).split(' '),
);

function toHex(v: Value, bits: 32n | 64n): string {
  const x = BigInt(v as number | bigint);
  return (x < 0n ? x + (1n << bits) : x).toString(16);
}

/** concat_ws(sep, VARIADIC "any"): NULL when the separator is; NULL arguments are skipped. */
const concatWs: Kernel = (a, types) => {
  if (a[0] === null) return null;
  const parts: string[] = [];
  for (let i = 1; i < a.length; i++) if (a[i] !== null) parts.push(toText(types[i]!, a[i]!));
  return parts.join(a[0] as string);
};

const text1 = (f: (s: string) => Value, result: PgType = T.text) => [sig([T.text], result, (a) => f(a[0] as string))];

export const STRING_FUNCTIONS: Family = Object.freeze({
  split_part: [sig([T.text, T.text, T.int4], T.text, (a) => splitPart(a[0] as string, a[1] as string, a[2] as number))],
  left: [sig([T.text, T.int4], T.text, (a) => left(a[0] as string, a[1] as number))],
  right: [sig([T.text, T.int4], T.text, (a) => right(a[0] as string, a[1] as number))],
  reverse: text1((s) => chars(s).reverse().join('')),
  translate: [sig([T.text, T.text, T.text], T.text, (a) => translate(a[0] as string, a[1] as string, a[2] as string))],
  md5: [
    sig([T.text], T.text, (a) => createHash('md5').update(a[0] as string, 'utf8').digest('hex')),
    sig([T.bytea], T.text, (a) => createHash('md5').update(a[0] as Uint8Array).digest('hex')),
  ],
  initcap: text1(initcap),
  starts_with: [sig([T.text, T.text], T.bool, (a) => (a[0] as string).startsWith(a[1] as string))],
  concat_ws: [sig([T.text], T.text, concatWs, { variadic: 'any', strict: false })],
  chr: [sig([T.int4], T.text, (a) => chr(a[0] as number))],
  ascii: text1((s) => (s === '' ? 0 : s.codePointAt(0)!), T.int4),
  replace: [sig([T.text, T.text, T.text], T.text, (a) => ((a[1] as string) === '' ? (a[0] as string) : (a[0] as string).replaceAll(a[1] as string, a[2] as string)))],
  overlay: [
    sig([T.text, T.text, T.int4, T.int4], T.text, (a) => overlay(a[0] as string, a[1] as string, a[2] as number, a[3] as number)),
    sig([T.text, T.text, T.int4], T.text, (a) => overlay(a[0] as string, a[1] as string, a[2] as number, null)),
  ],
  quote_ident: text1(quoteIdent),
  quote_literal: text1(quoteLiteral),
  quote_nullable: [sig([T.text], T.text, (a) => (a[0] === null ? 'NULL' : quoteLiteral(a[0] as string)), { strict: false })],
  to_hex: [sig([T.int4], T.text, (a) => toHex(a[0]!, 32n)), sig([T.int8], T.text, (a) => toHex(a[0]!, 64n))],
  bit_length: text1((s) => Buffer.byteLength(s, 'utf8') * 8, T.int4),
});

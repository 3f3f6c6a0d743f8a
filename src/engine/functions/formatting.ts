/**
 * format(formatstr, VARIADIC "any") (PostgreSQL 15 docs 9.4.1): `%[n$][-][width]type` with
 * types s (the value's text, NULL as empty), I (quote_ident; NULL is 22004), L (quote_literal;
 * NULL as NULL) and `%%`; width `*` or `*n$` takes it from an argument, a negative width
 * left-justifies.
 *
 *   format('Hello %s, %1$s', 'World')          → 'Hello World, World'
 *   format('INSERT INTO %I VALUES(%L)', 'My T', NULL) → 'INSERT INTO "My T" VALUES(NULL)'
 *   format('|%-5s|%5s|', 'ab', 'cd')           → '|ab   |   cd|'
 *
 * to_char, to_date, to_timestamp and to_number (docs 9.8) are in ./formatting/: templates
 * (template.ts), to_char of dates and times (datetime-to-char.ts), their parsing
 * (datetime-parse.ts) and numbers both ways (number.ts).
 */
import { type PgType, type Value, SQLSTATE } from '../../types/index.js';
import { SqlError } from '../errors.js';
import { fromText, toText } from '../exec/kernels.js';
import { T } from '../types.js';
import type { Family, Kernel, Signature } from './signature.js';
import { quoteIdent, quoteLiteral } from './strings.js';
import { currentTimeZone } from '../context.js';
import { isFiniteTimestamp } from '../exec/datetime.js';
import { dateTimeTemplate } from './formatting/template.js';
import { dtToChar, intervalFields, timestampFields, timestamptzFields } from './formatting/datetime-to-char.js';
import { epochToTimestamp, toDate, toTimestamp } from './formatting/datetime-parse.js';
import { numberTemplate } from './formatting/template.js';
import { type NumberInput, numberToChar, toNumber } from './formatting/number.js';

const sig = (params: readonly PgType[], result: PgType, kernel: Kernel, extra: Partial<Signature> = {}): Signature => Object.freeze({ params, result, kernel, ...extra });

function formatError(message: string): SqlError {
  return new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, message);
}

/** text_format: `a[0]` the format string, the rest the arguments (of `types`). */
const format: Kernel = (a, types) => {
  if (a[0] === null) return null;
  const f = a[0] as string;
  const nargs = a.length - 1;
  let next = 1;
  let out = '';
  const argAt = (k: number) => {
    if (k > nargs) throw formatError('too few arguments for format()');
    return k;
  };
  /** An argument number `n$` at `i`, or null when there is none. */
  const position = (i: number): { n: number; end: number } | null => {
    const m = /^(\d+)\$/.exec(f.slice(i));
    if (m === null) return null;
    const n = Number(m[1]);
    if (n === 0) throw formatError('format specifies argument 0, but arguments are numbered from 1');
    return { n, end: i + m[0].length };
  };
  for (let i = 0; i < f.length; i++) {
    const c = f[i]!;
    if (c !== '%') {
      out += c;
      continue;
    }
    i++;
    if (i >= f.length) throw formatError('unterminated format() type specifier');
    if (f[i] === '%') {
      out += '%';
      continue;
    }
    let argNo: number | null = null;
    const p = position(i);
    if (p !== null) {
      argNo = p.n;
      i = p.end;
    }
    let left = false;
    while (f[i] === '-') {
      left = true;
      i++;
    }
    let width: number | null = null;
    if (f[i] === '*') {
      i++;
      const wp = position(i);
      let k: number;
      if (wp !== null) {
        k = argAt(wp.n);
        i = wp.end;
      } else k = argAt(next++);
      const w = a[k];
      if (w !== null) {
        // A width of another type is read as integer text (22P02 when it is not one), as text_format does.
        const t = types[k]!;
        width = t.id === 'int4' || t.id === 'int2' ? Number(w) : (fromText(T.int4, toText(t, w!)) as number);
      }
    } else {
      const m = /^\d+/.exec(f.slice(i));
      if (m !== null) {
        width = Number(m[0]);
        i += m[0].length;
      }
    }
    if (i >= f.length) throw formatError('unterminated format() type specifier');
    const type = f[i]!;
    if (type !== 's' && type !== 'I' && type !== 'L') throw formatError(`unrecognized format() type specifier "${type}"`);
    const k = argNo !== null ? argAt(argNo) : argAt(next);
    next = k + 1;
    const v = a[k]!;
    let s: string;
    if (type === 's') s = v === null ? '' : toText(types[k]!, v);
    else if (type === 'I') {
      if (v === null) throw new SqlError('invalid_input', SQLSTATE.null_value_not_allowed, 'null values cannot be formatted as an SQL identifier');
      s = quoteIdent(toText(types[k]!, v));
    } else s = v === null ? 'NULL' : quoteLiteral(toText(types[k]!, v));
    if (width !== null) {
      if (width < 0) {
        left = true;
        width = -width;
      }
      const len = Array.from(s).length;
      if (len < width) s = left ? s + ' '.repeat(width - len) : ' '.repeat(width - len) + s;
    }
    out += s;
  }
  return out;
};

/** to_char(timestamp | timestamptz | interval, text): NULL for an empty template or an infinite value. */
const toCharDateTime = (kind: 'timestamp' | 'timestamptz' | 'interval'): Kernel => (a) => {
  const fmt = a[1] as string;
  if (fmt === '') return null;
  if (kind === 'interval') return dtToChar(dateTimeTemplate(fmt), intervalFields(a[0] as Uint8Array));
  const ts = a[0] as bigint;
  if (!isFiniteTimestamp(ts)) return null;
  return dtToChar(dateTimeTemplate(fmt), kind === 'timestamp' ? timestampFields(ts, null, 0) : timestamptzFields(ts, currentTimeZone()));
};

const stable = { volatility: 'stable' } as const;

/** to_char(int4 | int8 | float4 | float8 | numeric, text). */
const toCharNumber = (input: (v: Value) => NumberInput): Kernel => (a) => numberToChar(numberTemplate(a[1] as string), input(a[0]!));

export const FORMATTING_FUNCTIONS: Family = Object.freeze({
  to_char: [
    sig([T.timestamp, T.text], T.text, toCharDateTime('timestamp'), stable),
    sig([T.timestamptz, T.text], T.text, toCharDateTime('timestamptz'), stable),
    sig([T.interval, T.text], T.text, toCharDateTime('interval'), stable),
    sig([T.int4, T.text], T.text, toCharNumber((v) => ({ kind: 'int', value: BigInt(v as number) })), stable),
    sig([T.int8, T.text], T.text, toCharNumber((v) => ({ kind: 'int', value: v as bigint })), stable),
    sig([T.float4, T.text], T.text, toCharNumber((v) => ({ kind: 'float', value: v as number, digits: 6 })), stable),
    sig([T.float8, T.text], T.text, toCharNumber((v) => ({ kind: 'float', value: v as number, digits: 15 })), stable),
    sig([T.numeric, T.text], T.text, toCharNumber((v) => ({ kind: 'numeric', value: v as string })), stable),
  ],
  // An empty template is NULL (numeric_to_number).
  to_number: [sig([T.text, T.text], T.numeric, (a) => ((a[1] as string) === '' ? null : toNumber(numberTemplate(a[1] as string), a[0] as string)), stable)],
  to_date: [sig([T.text, T.text], T.date, (a) => toDate(dateTimeTemplate(a[1] as string), a[0] as string), stable)],
  to_timestamp: [
    sig([T.text, T.text], T.timestamptz, (a) => toTimestamp(dateTimeTemplate(a[1] as string), a[0] as string, currentTimeZone()), stable),
    sig([T.float8], T.timestamptz, (a) => epochToTimestamp(a[0] as number)),
  ],
  format: [sig([T.text], T.text, format, { strict: false }), sig([T.text], T.text, format, { variadic: 'any', strict: false })],
});

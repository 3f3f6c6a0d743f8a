/**
 * Set-returning functions (PostgreSQL 15 docs 9.25 "Set Returning Functions", 9.19 unnest,
 * 9.7.3 regexp_split_to_table): each signature carries a `setReturning` kernel that yields the
 * function's rows, one value each, lazily (generate_series(1, 1e9) is never an array). They run
 * in FROM (../exec/function-scan.ts) and, through the binder's rewrite of a select list into a
 * LATERAL ROWS FROM (../bind/select-srf.ts), in the SELECT list. Strict: a NULL argument gives
 * no row.
 *
 *   generate_series(1, 10, 3)                          → 1, 4, 7, 10
 *   generate_series('2024-01-01'::date, '2024-01-03', '1 day') → three timestamptz
 *   unnest('{a,NULL}'::text[])                         → 'a', NULL
 *   regexp_split_to_table('a1b22c', '\d+')             → 'a', 'b', 'c'
 *   generate_subscripts('{7,8,9}'::int4[], 1, true)    → 3, 2, 1
 *
 * Later SRFs (jsonb_array_elements, jsonb_each, regexp_matches) are entries of this shape.
 */
import { type PgType, type Value, SQLSTATE, arrayOf, internalError, intervalParts, parseArrayText } from '../../types/index.js';
import { SqlError, notSupported } from '../errors.js';
import { arith, compare, fromText } from '../exec/kernels.js';
import { timestampPlusInterval, timestamptzPlusInterval } from '../exec/datetime.js';
import { regexSearcher } from '../exec/regex.js';
import { regexpMatches } from './regex.js';
import { currentTimeZone } from '../context.js';
import { T } from '../types.js';
import { ANYARRAY, type Family, type SetKernel, type Signature } from './signature.js';

const notScalar = (): Value => {
  throw internalError('internal error: a set-returning function was called as a scalar');
};

const srf = (params: readonly PgType[], result: PgType, setReturning: SetKernel, extra: Partial<Signature> = {}): Signature =>
  Object.freeze({ params, result, kernel: notScalar, setReturning, ...extra });

function invalidParameter(message: string): SqlError {
  return new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, message);
}

const stepZero = () => invalidParameter('step size cannot equal zero');

/** generate_series over int4 or int8 (number or bigint): stops before overflowing, as int4/int8 generate_series do. */
function* integerSeries(a: readonly Value[], big: boolean): Generator<Value> {
  if (big) {
    const [start, stop] = [a[0] as bigint, a[1] as bigint];
    const step = a.length > 2 ? (a[2] as bigint) : 1n;
    if (step === 0n) throw stepZero();
    for (let v = start; step > 0n ? v <= stop : v >= stop; v += step) yield v;
    return;
  }
  const [start, stop] = [a[0] as number, a[1] as number];
  const step = a.length > 2 ? (a[2] as number) : 1;
  if (step === 0) throw stepZero();
  for (let v = start; step > 0 ? v <= stop : v >= stop; v += step) yield v;
}

/** generate_series(numeric, numeric [, numeric]): exact decimal steps; NaN and infinities are 22023. */
function* numericSeries(a: readonly Value[]): Generator<Value> {
  const [start, stop] = [a[0] as string, a[1] as string];
  const step = a.length > 2 ? (a[2] as string) : '1';
  const what = (v: string) => (v === 'NaN' ? 'NaN' : /Infinity/.test(v) ? 'infinity' : null);
  for (const [v, name] of [[start, 'start value'], [stop, 'stop value'], [step, 'step size']] as const) {
    const w = what(v);
    if (w !== null) throw invalidParameter(`${name} cannot be ${w}`);
  }
  const sign = compare(T.numeric, step, '0');
  if (sign === 0) throw stepZero();
  for (let v = start; sign > 0 ? compare(T.numeric, v, stop) <= 0 : compare(T.numeric, v, stop) >= 0; v = arith(T.numeric, '+', v, step) as string) yield v;
}

/** generate_series(timestamp[tz], timestamp[tz], interval): each value the previous plus the step. */
function* timestampSeries(a: readonly Value[], tz: boolean): Generator<Value> {
  const [start, stop, step] = [a[0] as bigint, a[1] as bigint, a[2] as Uint8Array];
  // interval_cmp's order: months as 30 days, days as 24 hours.
  const p = intervalParts(step);
  const span = (BigInt(p.months) * 30n + BigInt(p.days)) * 86_400_000_000n + p.us;
  if (span === 0n) throw stepZero();
  const sign = span > 0n ? 1 : -1;
  const zone = currentTimeZone();
  for (let v = start; sign > 0 ? v <= stop : v >= stop; v = tz ? timestamptzPlusInterval(v, step, 1, zone) : timestampPlusInterval(v, step)) yield v;
}

/** unnest(anyarray): the elements, read as the element type. */
function* unnestArray(a: readonly Value[], types: readonly PgType[]): Generator<Value> {
  const element = types[0]!.element ?? T.text;
  for (const x of parseArrayText(a[0] as string)) yield x === null ? null : fromText(element, x);
}

/** generate_subscripts(anyarray, dim [, reverse]): 1..n of a one-dimensional array's dimension 1. */
function* subscripts(a: readonly Value[]): Generator<Value> {
  const n = parseArrayText(a[0] as string).length;
  if ((a[1] as number) !== 1 || n === 0) return;
  const reverse = a.length > 2 && a[2] === true;
  for (let i = 0; i < n; i++) yield reverse ? n - i : i + 1;
}

/**
 * regexp_split_to_table(string, pattern [, flags]): the pieces between matches, ignoring empty
 * matches at the start, at the end and right after a match (PostgreSQL's ignore_degenerate).
 */
function* splitToTable(a: readonly Value[]): Generator<Value> {
  const [s, pattern] = [a[0] as string, a[1] as string];
  let ci = false;
  for (const c of a.length > 2 ? (a[2] as string) : '') {
    if (c === 'g') throw invalidParameter('regexp_split_to_table() does not support the "global" option');
    else if (c === 'i') ci = true;
    else if (c === 'c') ci = false;
    else if (c !== 's' && c !== 't') {
      if ('npwxbeq'.includes(c)) throw notSupported(`regular expression option "${c}"`);
      throw invalidParameter(`invalid regular expression option: "${c}"`);
    }
  }
  const re = regexSearcher(pattern, ci);
  let piece = 0;
  let from = 0;
  while (from <= s.length) {
    const m = re.search(s, from);
    if (m === null) break;
    const degenerate = m.start === m.end && (m.start === 0 || m.start === s.length || m.start === piece);
    if (!degenerate) {
      yield s.slice(piece, m.start);
      piece = m.end;
    }
    from = m.end > m.start ? m.end : m.end + ((s.codePointAt(m.end) ?? 0) > 0xffff ? 2 : 1);
  }
  yield s.slice(piece);
}

const { int4, int8, numeric, timestamp, timestamptz, interval, text, bool } = T;
const TEXT_ARRAY = arrayOf(text);

export const SET_RETURNING_FUNCTIONS: Family = Object.freeze({
  generate_series: [
    srf([int4, int4], int4, (a) => integerSeries(a, false)),
    srf([int4, int4, int4], int4, (a) => integerSeries(a, false)),
    srf([int8, int8], int8, (a) => integerSeries(a, true)),
    srf([int8, int8, int8], int8, (a) => integerSeries(a, true)),
    srf([numeric, numeric], numeric, numericSeries),
    srf([numeric, numeric, numeric], numeric, numericSeries),
    srf([timestamp, timestamp, interval], timestamp, (a) => timestampSeries(a, false)),
    srf([timestamptz, timestamptz, interval], timestamptz, (a) => timestampSeries(a, true), { volatility: 'stable' }),
  ],
  unnest: [srf([ANYARRAY], text, unnestArray, { resultOf: { arg: 0, element: true } })],
  generate_subscripts: [srf([ANYARRAY, int4], int4, subscripts), srf([ANYARRAY, int4, bool], int4, subscripts)],
  regexp_split_to_table: [srf([text, text], text, splitToTable), srf([text, text, text], text, splitToTable)],
  regexp_matches: [srf([text, text], TEXT_ARRAY, regexpMatches), srf([text, text, text], TEXT_ARRAY, regexpMatches)],
});

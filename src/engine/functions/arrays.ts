/**
 * Array functions and operators over one-dimensional arrays (PostgreSQL 15 docs 9.19), on the
 * engine's array value: array_out's text (../../types/array.ts, the project's one parser and
 * formatter). Elements compare as their element type does (IS NOT DISTINCT FROM for
 * array_position), so 1.0 finds 1.00 in a numeric[].
 *
 *   array_length('{1,2,3}'::int4[], 1) → 3          cardinality('{}'::int4[]) → 0
 *   array_position(ARRAY['a','b'], 'b') → 2         array_positions(ARRAY[1,2,1], 1) → {1,3}
 *   array_to_string(ARRAY[1,NULL,3], ',', '*') → '1,*,3'
 *   string_to_array('a,b,,c', ',', '') → {a,b,NULL,c}
 *   ARRAY[1,2] || ARRAY[3] → {1,2,3}                ARRAY[1,2] || 3 → {1,2,3}
 */
import { type PgType, type Value, SQLSTATE, elementOf, formatArrayText, parseArrayText } from '../../types/index.js';
import { SqlError } from '../errors.js';
import { compare, fromText, toText } from '../exec/kernels.js';
import { T } from '../types.js';
import { ANYARRAY, type Family, type Kernel, type Signature } from './signature.js';

const sig = (params: readonly PgType[], result: PgType, kernel: Kernel, extra: Partial<Signature> = {}): Signature => Object.freeze({ params, result, kernel, ...extra });

const elements = (v: Value): (string | null)[] => parseArrayText(v as string);

/** The element of text `x` equals value `v` of type `t` (both non-NULL). */
function equalElement(t: PgType, x: string, v: Value): boolean {
  return compare(t, fromText(t, x), v) === 0;
}

function positions(a: readonly Value[], types: readonly PgType[], first: boolean): number[] {
  // The elements read as the searched value's type (anycompatible: int4[] searched for an int8).
  const t = types[1]!;
  const els = elements(a[0]!);
  const start = a.length > 2 ? (a[2] as number | null) : 1;
  const out: number[] = [];
  for (let i = Math.max(0, (start ?? 1) - 1); i < els.length; i++) {
    const x = els[i]!;
    const hit = a[1] === null ? x === null : x !== null && equalElement(t, x, a[1]!);
    if (hit) {
      out.push(i + 1);
      if (first) break;
    }
  }
  return out;
}

/** array_position(anyarray, anyelement [, start]): not strict in the element (NULL finds NULL). */
const arrayPosition: Kernel = (a, types) => {
  if (a[0] === null) return null;
  if (a.length > 2 && a[2] === null) throw new SqlError('invalid_input', SQLSTATE.null_value_not_allowed, 'initial position must not be null');
  return positions(a, types, true)[0] ?? null;
};

const arrayPositions: Kernel = (a, types) => (a[0] === null ? null : formatArrayText(positions(a, types, false).map(String)));

/** array_to_string(array, delimiter [, null_string]): NULL elements skipped unless null_string is given. */
const arrayToString: Kernel = (a) => {
  if (a[0] === null || a[1] === null) return null;
  const nullText = a.length > 2 ? (a[2] as string | null) : null;
  const parts: string[] = [];
  for (const x of elements(a[0]!)) {
    if (x !== null) parts.push(x);
    else if (nullText !== null) parts.push(nullText);
  }
  return parts.join(a[1] as string);
};

/** string_to_array(text, delimiter [, null_string]): a NULL delimiter splits into characters, '' gives one element. */
const stringToArray: Kernel = (a) => {
  if (a[0] === null) return null;
  const s = a[0] as string;
  const d = a[1] as string | null;
  const nullText = a.length > 2 ? (a[2] as string | null) : null;
  if (s === '') return '{}';
  const parts = d === null ? Array.from(s) : d === '' ? [s] : s.split(d);
  return formatArrayText(parts.map((p) => (nullText !== null && p === nullText ? null : p)));
};

/** The element text an element value gets in an array of element type `t`. */
const elementText = (t: PgType, v: Value): string | null => (v === null ? null : toText(t, v));

/** ARRAY[a, b, …] over any expressions: the array of the elements' common type (the binder unifies them). */
const arrayConstruct: Kernel = (a, types) => formatArrayText(a.map((v, i) => elementText(types[i]!, v)));

/** Subscript x[i]: the element (of the array's element type), NULL out of range. */
const subscript: Kernel = (a, types) => {
  const els = elements(a[0]!);
  const i = a[1] as number;
  const x = i >= 1 && i <= els.length ? els[i - 1]! : null;
  return x === null ? null : fromText(elementOf(types[0]!), x);
};

export const ARRAY_FUNCTIONS: Family = Object.freeze({
  array_length: [sig([ANYARRAY, T.int4], T.int4, (a) => (a[1] !== 1 ? null : elements(a[0]!).length || null))],
  cardinality: [sig([ANYARRAY], T.int4, (a) => elements(a[0]!).length)],
  array_ndims: [sig([ANYARRAY], T.int4, (a) => (elements(a[0]!).length === 0 ? null : 1))],
  array_lower: [sig([ANYARRAY, T.int4], T.int4, (a) => (a[1] !== 1 || elements(a[0]!).length === 0 ? null : 1))],
  array_upper: [sig([ANYARRAY, T.int4], T.int4, (a) => (a[1] !== 1 ? null : elements(a[0]!).length || null))],
  array_position: [
    sig([ANYARRAY, ANYARRAY], T.int4, arrayPosition, { elementOf: { 1: 0 }, compatible: true, strict: false }),
    sig([ANYARRAY, ANYARRAY, T.int4], T.int4, arrayPosition, { elementOf: { 1: 0 }, compatible: true, strict: false }),
  ],
  array_positions: [sig([ANYARRAY, ANYARRAY], { id: 'array', element: T.int4 } as PgType, arrayPositions, { elementOf: { 1: 0 }, compatible: true, strict: false })],
  array_to_string: [sig([ANYARRAY, T.text], T.text, arrayToString, { strict: false }), sig([ANYARRAY, T.text, T.text], T.text, arrayToString, { strict: false })],
  string_to_array: [
    sig([T.text, T.text], { id: 'array', element: T.text } as PgType, stringToArray, { strict: false }),
    sig([T.text, T.text, T.text], { id: 'array', element: T.text } as PgType, stringToArray, { strict: false }),
  ],
  array_cat: [sig([ANYARRAY, ANYARRAY], ANYARRAY, (a) => (a[0] === null ? a[1]! : a[1] === null ? a[0]! : formatArrayText([...elements(a[0]!), ...elements(a[1]!)])), { strict: false, resultOf: { arg: 0 } })],
  array_append: [sig([ANYARRAY, ANYARRAY], ANYARRAY, (a, t) => formatArrayText([...(a[0] === null ? [] : elements(a[0]!)), elementText(elementOf(t[0]!), a[1]!)]), { elementOf: { 1: 0 }, strict: false, resultOf: { arg: 0 } })],
  array_prepend: [sig([ANYARRAY, ANYARRAY], ANYARRAY, (a, t) => formatArrayText([elementText(elementOf(t[1]!), a[0]!), ...(a[1] === null ? [] : elements(a[1]!))]), { elementOf: { 0: 1 }, strict: false, resultOf: { arg: 1 } })],
  // The binder's own calls: ARRAY[…] of non-constant elements, and subscripts of array expressions.
  'ARRAY[]': [sig([], ANYARRAY, arrayConstruct, { variadic: 'any', strict: false })],
  '[]': [sig([ANYARRAY, T.int4], T.text, subscript, { resultOf: { arg: 0, element: true } })],
});

/**
 * The json and jsonb operators and the functions that read documents (PostgreSQL 15 docs 9.16,
 * tables 9.44–9.46 and 9.48), on the one JSON model (../../types/json-value.ts). jsonb values
 * are their normalized text, json values their text as written: `->` on json returns the
 * member's source text.
 *
 *   '{"a": [1, 2]}'::jsonb -> 'a' → [1, 2]          '[1, 2, 3]'::jsonb -> -1 → 3
 *   '{"a": {"b": "x"}}'::jsonb #>> '{a,b}' → x      '{"a": 1, "b": 2}'::jsonb @> '{"b": 2}' → t
 *   '{"a": 1}'::jsonb || '{"b": 2}' → {"a": 1, "b": 2}   '["a", "b"]'::jsonb - 'a' → ["b"]
 *
 * The operators are registered under their own spelling (`->`, `@>` …), as ARRAY[] and [] are in
 * ./arrays.ts; ../bind/json.ts binds `a -> b` to them. Path updates (jsonb_set, jsonb_insert,
 * `#-`) are in ./json-path.ts, constructors and aggregates in ./json-build.ts.
 */
import { type JsonValue, type PgType, type Value, J, compareJsonbValues, findKey, jsonText, jsonTypeName, jsonbContains, jsonbEqual, jsonbPretty, jsonbText, normalizeJsonb, parseArrayText, parseJsonValue } from '../../types/index.js';
import { T } from '../types.js';
import type { Family, Kernel, Signature } from './signature.js';
import { JSON_PATH_FUNCTIONS, invalidParameter, jsonbArrayIndex } from './json-path.js';

export const JSONB: PgType = Object.freeze({ id: 'jsonb' });
export const JSON_T: PgType = Object.freeze({ id: 'json' });
export const TEXT_ARRAY: PgType = Object.freeze({ id: 'array', element: T.text });

const sig = (params: readonly PgType[], result: PgType, kernel: Kernel, extra: Partial<Signature> = {}): Signature => Object.freeze({ params, result, kernel, ...extra });

/** A jsonb value's tree (its text is normalized already). */
export const jb = (v: Value | undefined): JsonValue => parseJsonValue(v as string);
/** A json value's tree, strings de-escaped with their checks, numbers as written. */
const js = (v: Value | undefined): JsonValue => parseJsonValue(v as string, 'json');

/** How the result of a member lookup is returned: as jsonb, as json (its source text), or as text (->>). */
type Out = 'jsonb' | 'json' | 'text';

function emit(v: JsonValue | null, out: Out, source: string): Value {
  if (v === null) return null;
  if (out === 'text') {
    if (v.t === 'null') return null;
    if (v.t === 'string') return v.v;
  }
  return out === 'jsonb' ? jsonbText(v) : jsonText(v, source);
}

function field(v: JsonValue, key: string): JsonValue | null {
  if (v.t !== 'object') return null;
  const i = findKey(v, key);
  return i < 0 ? null : v.vals[i]!;
}

function element(v: JsonValue, i: number): JsonValue | null {
  if (v.t !== 'array') return null;
  return elementOf(v, i);
}

/** `->` int on jsonb: a top-level scalar is a one-element array there (JB_ROOT_IS_ARRAY), as it is not for json or paths. */
function rootElement(v: JsonValue, i: number): JsonValue | null {
  return v.t === 'array' || v.t === 'object' ? element(v, i) : elementOf(J.array([v]), i);
}

function elementOf(v: JsonValue & { t: 'array' }, i: number): JsonValue | null {
  const k = i < 0 ? v.v.length + i : i;
  return k >= 0 && k < v.v.length ? v.v[k]! : null;
}

/** A path's step on a value: a key of an object, an index (as text, negative from the end) of an array. */
function step(v: JsonValue, key: string | null): JsonValue | null {
  if (key === null) return null;
  if (v.t === 'object') return field(v, key);
  if (v.t === 'array') {
    const i = jsonbArrayIndex(key);
    return i === null ? null : element(v, i);
  }
  return null;
}

function extractPath(v: JsonValue, path: readonly (string | null)[]): JsonValue | null {
  let cur: JsonValue | null = v;
  for (const k of path) {
    if (cur === null) return null;
    cur = step(cur, k);
  }
  return cur;
}

const parseOf = (t: PgType) => (t.id === 'json' ? js : jb);
const outOf = (t: PgType, text: boolean): Out => (text ? 'text' : t.id === 'json' ? 'json' : 'jsonb');

const getField =
  (text: boolean): Kernel =>
  (a, t) =>
    emit(field(parseOf(t[0]!)(a[0]), a[1] as string), outOf(t[0]!, text), a[0] as string);
const getElement =
  (text: boolean): Kernel =>
  (a, t) =>
    emit((t[0]!.id === 'jsonb' ? rootElement : element)(parseOf(t[0]!)(a[0]), a[1] as number), outOf(t[0]!, text), a[0] as string);
const getPath =
  (text: boolean): Kernel =>
  (a, t) =>
    emit(extractPath(parseOf(t[0]!)(a[0]), parseArrayText(a[1] as string)), outOf(t[0]!, text), a[0] as string);
/** jsonb_extract_path(from_json, VARIADIC path_elems text[]): the path as separate arguments. */
const getPathVariadic =
  (text: boolean): Kernel =>
  (a, t) =>
    a[0] === null ? null : emit(extractPath(parseOf(t[0]!)(a[0]), a.slice(1) as (string | null)[]), outOf(t[0]!, text), a[0] as string);

/** `?`: a key of an object, a string element of an array, or the string itself. */
function exists(v: JsonValue, key: string): boolean {
  if (v.t === 'object') return findKey(v, key) >= 0;
  if (v.t === 'array') return v.v.some((x) => x.t === 'string' && x.v === key);
  return v.t === 'string' && v.v === key;
}

const existsAny: Kernel = (a) => {
  const v = jb(a[0]);
  return parseArrayText(a[1] as string).some((k) => k !== null && exists(v, k));
};
const existsAll: Kernel = (a) => {
  const v = jb(a[0]);
  return parseArrayText(a[1] as string).every((k) => k === null || exists(v, k));
};

/** `||` (jsonb_concat): objects merge (the right side wins); otherwise both as arrays, a scalar or object as one element. */
const concat: Kernel = (a) => {
  const x = jb(a[0]);
  const y = jb(a[1]);
  if (x.t === 'object' && y.t === 'object') return jsonbText(normalizeJsonb(J.object([...x.keys, ...y.keys], [...x.vals, ...y.vals])));
  const items = (v: JsonValue) => (v.t === 'array' ? v.v : [v]);
  return jsonbText(J.array([...items(x), ...items(y)]));
};

const scalarDelete = () => invalidParameter('cannot delete from scalar');

/** `-` text: the key of an object, the equal string elements of an array. */
function deleteKeys(v: JsonValue, keys: readonly (string | null)[]): JsonValue {
  if (v.t === 'object') {
    const ks: string[] = [];
    const vs: JsonValue[] = [];
    v.keys.forEach((k, i) => {
      if (!keys.includes(k)) {
        ks.push(k);
        vs.push(v.vals[i]!);
      }
    });
    return J.object(ks, vs);
  }
  if (v.t === 'array') return J.array(v.v.filter((x) => !(x.t === 'string' && keys.includes(x.v))));
  throw scalarDelete();
}

const deleteKey: Kernel = (a) => jsonbText(deleteKeys(jb(a[0]), [a[1] as string]));
const deleteKeyArray: Kernel = (a) => {
  const keys = parseArrayText(a[1] as string);
  if (keys.length === 0) return a[0]!;
  return jsonbText(deleteKeys(jb(a[0]), keys));
};
const deleteIndex: Kernel = (a) => {
  const v = jb(a[0]);
  if (v.t === 'object') throw invalidParameter('cannot delete from object using integer index');
  if (v.t !== 'array') throw scalarDelete();
  const n = v.v.length;
  const i = a[1] as number;
  const k = i < 0 ? n + i : i;
  if (k < 0 || k >= n) return a[0]!;
  return jsonbText(J.array(v.v.filter((_, j) => j !== k)));
};

function arrayLength(v: JsonValue): number {
  if (v.t === 'array') return v.v.length;
  throw invalidParameter(v.t === 'object' ? 'cannot get array length of a non-array' : 'cannot get array length of a scalar');
}

/** jsonb_strip_nulls: object fields whose value is null, at every level (array elements stay). */
function stripNulls(v: JsonValue): JsonValue {
  if (v.t === 'array') return J.array(v.v.map(stripNulls));
  if (v.t !== 'object') return v;
  const ks: string[] = [];
  const vs: JsonValue[] = [];
  v.keys.forEach((k, i) => {
    const x = v.vals[i]!;
    if (x.t !== 'null') {
      ks.push(k);
      vs.push(stripNulls(x));
    }
  });
  return J.object(ks, vs);
}

/** json_strip_nulls prints what it keeps without whitespace, strings and numbers as written. */
function compactJson(v: JsonValue, source: string): string {
  switch (v.t) {
    case 'array':
      return '[' + v.v.map((x) => compactJson(x, source)).join(',') + ']';
    case 'object':
      return '{' + v.keys.map((k, i) => `${jsonText(J.string(k), null)}:${compactJson(v.vals[i]!, source)}`).join(',') + '}';
    default:
      return jsonText(v, source);
  }
}

const cmp = (a: readonly Value[]): number => compareJsonbValues(jb(a[0]), jb(a[1]));
const bool = (k: (a: readonly Value[]) => boolean): Kernel => k;

export const JSON_FUNCTIONS: Family = Object.freeze({
  '->': [
    sig([JSONB, T.text], JSONB, getField(false)),
    sig([JSONB, T.int4], JSONB, getElement(false)),
    sig([JSON_T, T.text], JSON_T, getField(false)),
    sig([JSON_T, T.int4], JSON_T, getElement(false)),
  ],
  '->>': [
    sig([JSONB, T.text], T.text, getField(true)),
    sig([JSONB, T.int4], T.text, getElement(true)),
    sig([JSON_T, T.text], T.text, getField(true)),
    sig([JSON_T, T.int4], T.text, getElement(true)),
  ],
  '#>': [sig([JSONB, TEXT_ARRAY], JSONB, getPath(false)), sig([JSON_T, TEXT_ARRAY], JSON_T, getPath(false))],
  '#>>': [sig([JSONB, TEXT_ARRAY], T.text, getPath(true)), sig([JSON_T, TEXT_ARRAY], T.text, getPath(true))],
  '@>': [sig([JSONB, JSONB], T.bool, bool((a) => jsonbContains(jb(a[0]), jb(a[1]))))],
  '<@': [sig([JSONB, JSONB], T.bool, bool((a) => jsonbContains(jb(a[1]), jb(a[0]))))],
  '?': [sig([JSONB, T.text], T.bool, bool((a) => exists(jb(a[0]), a[1] as string)))],
  '?|': [sig([JSONB, TEXT_ARRAY], T.bool, existsAny)],
  '?&': [sig([JSONB, TEXT_ARRAY], T.bool, existsAll)],
  '||': [sig([JSONB, JSONB], JSONB, concat)],
  '-': [sig([JSONB, T.text], JSONB, deleteKey), sig([JSONB, T.int4], JSONB, deleteIndex), sig([JSONB, TEXT_ARRAY], JSONB, deleteKeyArray)],
  jsonb_cmp: [sig([JSONB, JSONB], T.int4, cmp)],
  jsonb_eq: [sig([JSONB, JSONB], T.bool, bool((a) => jsonbEqual(jb(a[0]), jb(a[1]))))],
  jsonb_contains: [sig([JSONB, JSONB], T.bool, bool((a) => jsonbContains(jb(a[0]), jb(a[1]))))],
  jsonb_contained: [sig([JSONB, JSONB], T.bool, bool((a) => jsonbContains(jb(a[1]), jb(a[0]))))],
  jsonb_exists: [sig([JSONB, T.text], T.bool, bool((a) => exists(jb(a[0]), a[1] as string)))],
  jsonb_exists_any: [sig([JSONB, TEXT_ARRAY], T.bool, existsAny)],
  jsonb_exists_all: [sig([JSONB, TEXT_ARRAY], T.bool, existsAll)],
  jsonb_concat: [sig([JSONB, JSONB], JSONB, concat)],
  jsonb_typeof: [sig([JSONB], T.text, (a) => jsonTypeName(jb(a[0])))],
  json_typeof: [sig([JSON_T], T.text, (a) => jsonTypeName(js(a[0])))],
  jsonb_array_length: [sig([JSONB], T.int4, (a) => arrayLength(jb(a[0])))],
  json_array_length: [sig([JSON_T], T.int4, (a) => arrayLength(js(a[0])))],
  jsonb_extract_path: [sig([JSONB], JSONB, getPathVariadic(false), { variadic: T.text, strict: false })],
  jsonb_extract_path_text: [sig([JSONB], T.text, getPathVariadic(true), { variadic: T.text, strict: false })],
  json_extract_path: [sig([JSON_T], JSON_T, getPathVariadic(false), { variadic: T.text, strict: false })],
  json_extract_path_text: [sig([JSON_T], T.text, getPathVariadic(true), { variadic: T.text, strict: false })],
  jsonb_strip_nulls: [sig([JSONB], JSONB, (a) => jsonbText(stripNulls(jb(a[0]))))],
  json_strip_nulls: [sig([JSON_T], JSON_T, (a) => compactJson(stripNulls(js(a[0])), a[0] as string))],
  jsonb_pretty: [sig([JSONB], T.text, (a) => jsonbPretty(jb(a[0])))],
  ...JSON_PATH_FUNCTIONS,
});

/**
 * jsonb's btree order and containment (utils/adt/jsonb_util.c compareJsonbContainers and
 * JsonbDeepContains; PostgreSQL 15 docs 8.14.4 "jsonb Containment and Existence", 8.14.5
 * "jsonb Indexing"), on ./json-value.ts's values.
 *
 * The order: object > array > boolean > number > string > null; objects with more pairs first
 * greater, then key by key (keys in jsonb's stored order, compared as strings) and value by
 * value; arrays with more elements greater, then element by element; numbers by value; strings
 * in the database's collation (paxd's is C: code point order). A top-level scalar is a one-element
 * "raw scalar" array there, which gives PostgreSQL's quirks: '1' < '[5]' but '1' > '[]'.
 *
 *   compareJsonb('{"a": 1}', '[1, 2]')   // 1      compareJsonb('1.0', '1')   // 0
 *   jsonbContains(v('{"a": [1, 2], "b": 3}'), v('{"a": [2]}'))   // true
 */
import type { JsonValue } from './json-value.js';
import { parseDecimalValue } from './numeric.js';
import { parseJsonValue } from './text/jsonb.js';

/** jbvType's order: null < string < numeric < bool < array < object. */
const RANK: Readonly<Record<JsonValue['t'], number>> = { null: 0, string: 1, number: 2, bool: 3, array: 4, object: 5 };

/** Code point order of two strings (strcmp of their UTF-8): UTF-16 units with surrogates above the rest of the BMP. */
export function compareJsonStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && x <= 0xdfff) x += 0x2000;
    else if (x >= 0xe000) x -= 0x800;
    if (y >= 0xd800 && y <= 0xdfff) y += 0x2000;
    else if (y >= 0xe000) y -= 0x800;
    return x - y;
  }
  return a.length - b.length;
}

/** numeric_cmp of two finite numeric texts (JSON numbers are never NaN or infinite). */
export function compareJsonNumbers(a: string, b: string): number {
  if (a === b) return 0;
  const x = parseDecimalValue(a);
  const y = parseDecimalValue(b);
  const s = Math.max(x.scale, y.scale);
  const u = x.coef * 10n ** BigInt(s - x.scale);
  const v = y.coef * 10n ** BigInt(s - y.scale);
  return u < v ? -1 : u > v ? 1 : 0;
}

function compareScalars(a: JsonValue, b: JsonValue): number {
  if (a.t !== b.t) return RANK[a.t] - RANK[b.t];
  switch (a.t) {
    case 'string':
      return Math.sign(compareJsonStrings(a.v, (b as typeof a).v));
    case 'number':
      return compareJsonNumbers(a.v, (b as typeof a).v);
    case 'bool':
      return (a.v ? 1 : 0) - ((b as typeof a).v ? 1 : 0);
    default:
      return 0;
  }
}

/** compareJsonbContainers below the top level. */
function compareNodes(a: JsonValue, b: JsonValue): number {
  if (a.t === 'array' && b.t === 'array') {
    if (a.v.length !== b.v.length) return a.v.length > b.v.length ? 1 : -1;
    for (let i = 0; i < a.v.length; i++) {
      const c = compareNodes(a.v[i]!, b.v[i]!);
      if (c !== 0) return c;
    }
    return 0;
  }
  if (a.t === 'object' && b.t === 'object') {
    if (a.keys.length !== b.keys.length) return a.keys.length > b.keys.length ? 1 : -1;
    for (let i = 0; i < a.keys.length; i++) {
      const k = Math.sign(compareJsonStrings(a.keys[i]!, b.keys[i]!));
      if (k !== 0) return k;
      const c = compareNodes(a.vals[i]!, b.vals[i]!);
      if (c !== 0) return c;
    }
    return 0;
  }
  return compareScalars(a, b);
}

const isScalar = (v: JsonValue): boolean => v.t !== 'array' && v.t !== 'object';

/** jsonb_cmp of two (normalized) values. */
export function compareJsonbValues(a: JsonValue, b: JsonValue): number {
  const ra = isScalar(a);
  const rb = isScalar(b);
  if (ra && rb) return compareScalars(a, b);
  if (ra || rb) {
    const arr = ra ? b : a;
    if (arr.t === 'object') return ra ? -1 : 1;
    // A raw scalar against an array: the raw one is less without looking at the elements,
    // unless the lengths differ (1 element against n): then the longer is greater.
    const len = (arr as { v: JsonValue[] }).v.length;
    if (len === 1) return ra ? -1 : 1;
    return (ra ? 1 : -1) * (len > 1 ? -1 : 1);
  }
  return compareNodes(a, b);
}

/** jsonb_cmp of two jsonb texts. */
export function compareJsonb(a: string, b: string): number {
  if (a === b) return 0;
  return compareJsonbValues(parseJsonValue(a), parseJsonValue(b));
}

/** Whether two values are equal as jsonb (numbers by value). */
export function jsonbEqual(a: JsonValue, b: JsonValue): boolean {
  return isScalar(a) === isScalar(b) && compareNodes(a, b) === 0;
}

/**
 * `a @> b` (JsonbDeepContains): every pair of an object in b is in a's object with a containing
 * value; every element of an array in b is an element of a's array (scalars by equality,
 * containers by containment of a container of the same kind). At the top level an array
 * contains a scalar that is one of its elements, but a scalar contains no array.
 */
export function jsonbContains(a: JsonValue, b: JsonValue): boolean {
  if (isScalar(a) || isScalar(b)) {
    if (isScalar(a) && isScalar(b)) return compareScalars(a, b) === 0;
    if (a.t === 'array' && isScalar(b)) return a.v.some((x) => isScalar(x) && compareScalars(x, b) === 0);
    return false;
  }
  return contains(a, b);
}

function contains(a: JsonValue, b: JsonValue): boolean {
  if (a.t !== b.t) return false;
  if (a.t === 'object' && b.t === 'object') {
    for (let i = 0; i < b.keys.length; i++) {
      const j = findKey(a, b.keys[i]!);
      if (j < 0) return false;
      const x = a.vals[j]!;
      const y = b.vals[i]!;
      if (isScalar(y)) {
        if (!isScalar(x) || compareScalars(x, y) !== 0) return false;
      } else if (!contains(x, y)) return false;
    }
    return true;
  }
  if (a.t === 'array' && b.t === 'array') {
    for (const y of b.v) {
      if (isScalar(y)) {
        if (!a.v.some((x) => isScalar(x) && compareScalars(x, y) === 0)) return false;
      } else if (!a.v.some((x) => x.t === y.t && contains(x, y))) return false;
    }
    return true;
  }
  return compareScalars(a, b) === 0;
}

/** The index of `key` in an object (the last one when a json object repeats it), or -1. */
export function findKey(o: { readonly keys: readonly string[] }, key: string): number {
  for (let i = o.keys.length - 1; i >= 0; i--) if (o.keys[i] === key) return i;
  return -1;
}

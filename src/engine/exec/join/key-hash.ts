/**
 * Join keys as PostgreSQL compares them (the equality of the key's type), made hashable:
 *
 *   normalizeKey   one column of key values → the values that are equal exactly when the keys
 *                  are: numeric text canonical (`1.50` → `1.5`), bpchar without trailing
 *                  blanks; every other type is its own normal form.
 *   hashKeys       the normal forms of a batch's key columns → one 32-bit hash per row
 *                  (Int32Array), equal values giving equal hashes: 0 and -0 hash alike, every
 *                  NaN alike, an integral float as the integer, an int8 as the number it
 *                  equals when it is one.
 *   sameKey        equality of two normal forms: `===`, and NaN = NaN (float equality in
 *                  PostgreSQL sorts NaN as one value equal to itself).
 *
 * A NULL key matches nothing: the callers skip a row with a NULL in any key column before
 * they look at its hash (which is then 0).
 */
import type { PgType, Value } from '../../../types/index.js';

/** The column of normal forms of a key column of type `t` (the input itself when it is one). */
export function normalizeKey(t: PgType, col: readonly Value[], rows: number): readonly Value[] {
  switch (t.id) {
    case 'numeric': {
      const out = new Array<Value>(rows);
      for (let i = 0; i < rows; i++) {
        const v = col[i]!;
        out[i] = v === null ? null : canonicalNumeric(v as string);
      }
      return out;
    }
    case 'bpchar': {
      const out = new Array<Value>(rows);
      for (let i = 0; i < rows; i++) {
        const v = col[i]!;
        out[i] = v === null ? null : trimBlanks(v as string);
      }
      return out;
    }
    default:
      return col;
  }
}

/** Whether row i has a NULL in one of the key columns (it matches nothing). */
export function hasNullKey(keys: readonly (readonly Value[])[], i: number): boolean {
  for (let k = 0; k < keys.length; k++) if (keys[k]![i] === null) return true;
  return false;
}

/** The hashes of rows 0..rows-1 of the key columns (normal forms), into `out` (grown if short). */
export function hashKeys(keys: readonly (readonly Value[])[], rows: number, out: Int32Array): Int32Array {
  const h = out.length >= rows ? out : new Int32Array(Math.max(rows, 2 * out.length));
  if (keys.length === 0) {
    h.fill(0, 0, rows);
    return h;
  }
  const k0 = keys[0]!;
  for (let i = 0; i < rows; i++) h[i] = hashValue(k0[i]!);
  for (let k = 1; k < keys.length; k++) {
    const kc = keys[k]!;
    for (let i = 0; i < rows; i++) h[i] = mix(Math.imul(h[i]!, 0x01000193) ^ hashValue(kc[i]!));
  }
  return h;
}

/** Whether two normal forms are the same key (neither is NULL). */
export function sameKey(a: Value, b: Value): boolean {
  return a === b || (a !== a && b !== b);
}

const F64 = new Float64Array(1);
const I32 = new Int32Array(F64.buffer);
const NAN_HASH = 0x7ff80000;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The hash of one normal form (see the header: equal keys, equal hashes). */
export function hashValue(v: Value): number {
  switch (typeof v) {
    case 'number':
      if ((v | 0) === v) return mix(v | 0);
      return hashFloat(v);
    case 'string':
      return hashText(v);
    case 'bigint':
      return v >= -SAFE && v <= SAFE ? hashNumber(Number(v)) : hashText(v.toString());
    case 'boolean':
      return v ? 0x2f1a3b5c : 0x1c4d2e3f;
    default:
      if (v === null) return 0;
      return hashBytes(v);
  }
}

function hashNumber(v: number): number {
  return (v | 0) === v ? mix(v | 0) : hashFloat(v);
}

function hashFloat(v: number): number {
  if (v !== v) return NAN_HASH;
  F64[0] = v;
  return mix(I32[0]! ^ Math.imul(I32[1]!, 0x9e3779b1));
}

function hashText(s: string): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return mix(h);
}

function hashBytes(b: Uint8Array): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return mix(h);
}

/** murmur3's 32-bit finalizer: every input bit reaches every output bit. */
export function mix(x: number): number {
  let h = x | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

function trimBlanks(s: string): string {
  let e = s.length;
  while (e > 0 && s.charCodeAt(e - 1) === 32) e--;
  return e === s.length ? s : s.slice(0, e);
}

/** `-01.500` → `-1.5`, `0.00` → `0`: equal numerics, equal text. */
function canonicalNumeric(s: string): string {
  if (!/^[+-]?\d*\.?\d*$/.test(s)) return s; // NaN, Infinity
  let neg = s.startsWith('-');
  let t = s.replace(/^[+-]/, '');
  if (t.includes('.')) t = t.replace(/0+$/, '').replace(/\.$/, '');
  t = t.replace(/^0+(?=\d)/, '');
  if (t === '' || /^0*$/.test(t)) {
    t = '0';
    neg = false;
  }
  return neg ? `-${t}` : t;
}

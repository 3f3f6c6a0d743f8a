/**
 * The runtime the generated code calls (`H` in its source): byte comparisons for text
 * columns, LIKE over bytes, 32-bit views of 64- and 128-bit values, and the errors the
 * interpreter raises for the same rows. Small monomorphic functions, so V8 inlines them.
 */
import type { Values } from '../../types/index.js';
import { divisionByZero, floatOverflow, outOfRange } from '../errors.js';
import { DEOPT } from './codegen.js';

/** Little-endian 32-bit words over int64 or decimal128 values, without copying when aligned. */
function words(v: Values): Int32Array {
  if ((v.byteOffset & 3) === 0) return new Int32Array(v.buffer, v.byteOffset, v.byteLength >>> 2);
  return new Int32Array(new Uint8Array(v.buffer, v.byteOffset, v.byteLength).slice().buffer);
}

/** The end of [s, e) without trailing spaces (bpchar semantics). */
function rtrim(d: Uint8Array, s: number, e: number): number {
  while (e > s && d[e - 1] === 0x20) e--;
  return e;
}

function eqBytes(d: Uint8Array, s: number, e: number, k: Uint8Array): boolean {
  if (e - s !== k.length) return false;
  for (let j = 0; j < k.length; j++) if (d[s + j] !== k[j]) return false;
  return true;
}

/** Byte order (= code point order of UTF-8, PostgreSQL's C collation). */
function cmpBytes(a: Uint8Array, as: number, ae: number, b: Uint8Array, bs: number, be: number): number {
  const la = ae - as;
  const lb = be - bs;
  const n = la < lb ? la : lb;
  for (let j = 0; j < n; j++) {
    const x = a[as + j]!;
    const y = b[bs + j]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return la === lb ? 0 : la < lb ? -1 : 1;
}

/** LIKE with a pattern of literal parts between `%`s (`parts.length - 1` wildcards). */
function like(d: Uint8Array, s: number, e: number, parts: readonly Uint8Array[]): boolean {
  const first = parts[0]!;
  if (parts.length === 1) return eqBytes(d, s, e, first);
  if (e - s < first.length || !startsAt(d, s, first)) return false;
  let pos = s + first.length;
  const last = parts[parts.length - 1]!;
  const end = e - last.length;
  if (end < pos || !startsAt(d, end, last)) return false;
  for (let p = 1; p < parts.length - 1; p++) {
    const needle = parts[p]!;
    const at = indexOf(d, pos, end, needle);
    if (at < 0) return false;
    pos = at + needle.length;
  }
  return true;
}

function startsAt(d: Uint8Array, at: number, k: Uint8Array): boolean {
  for (let j = 0; j < k.length; j++) if (d[at + j] !== k[j]) return false;
  return true;
}

function indexOf(d: Uint8Array, from: number, to: number, k: Uint8Array): number {
  const n = k.length;
  if (n === 0) return from;
  const k0 = k[0]!;
  for (let p = from; p + n <= to; p++) {
    if (d[p] !== k0) continue;
    let j = 1;
    while (j < n && d[p + j] === k[j]) j++;
    if (j === n) return p;
  }
  return -1;
}

/** An integral number within ±2^30 as a small integer (V8's smi), others unchanged. */
function smi(v: number): number {
  return v >= -1073741824 && v <= 1073741823 ? v | 0 : v;
}

/** PostgreSQL's float order: NaN equals NaN and sorts above everything. */
function cmpFloat(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) return 0;
  return a !== a ? (b !== b ? 0 : 1) : -1;
}

export const H = Object.freeze({ DEOPT, smi, words, rtrim, eqBytes, cmpBytes, like, cmpFloat, divisionByZero, floatOverflow, outOfRange });
export type Helpers = typeof H;

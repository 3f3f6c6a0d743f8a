/**
 * Brute-force statistics, value at a time through getValue and compareValues: the oracle
 * that the typed-array kernels of src/stats/compute.ts are tested against.
 */
import * as assert from 'uvu/assert';
import { getValue } from '../../src/types/builder.js';
import type { Column, Value } from '../../src/types/column.js';
import { compareValues, parseNumericText, stripTrailingSpaces } from '../../src/types/compare.js';
import { type PgType, isDecimal128 } from '../../src/types/type.js';
import type { ColumnStats } from '../../src/stats/index.js';
import { addDecimalText } from '../../src/stats/index.js';

const enc = new TextEncoder();

function isNumericText(t: PgType): boolean {
  return t.id === 'numeric' && !isDecimal128(t);
}

/** Truncated lower bound of a string, computed over code points. */
function strLower(s: string): { v: string; exact: boolean } {
  if (enc.encode(s).length <= 64) return { v: s, exact: true };
  let out = '';
  for (const ch of s) {
    if (enc.encode(out + ch).length > 64) break;
    out += ch;
  }
  return { v: out, exact: false };
}

function strUpper(s: string): { v: string | null; exact: boolean } {
  const lo = strLower(s);
  if (lo.exact) return { v: s, exact: true };
  const cps = [...lo.v].map((c) => c.codePointAt(0)!);
  while (cps.length && cps[cps.length - 1] === 0x10ffff) cps.pop();
  if (!cps.length) return { v: null, exact: false };
  let last = cps.pop()! + 1;
  if (last === 0xd800) last = 0xe000;
  cps.push(last);
  return { v: String.fromCodePoint(...cps), exact: false };
}

export function bruteStats(c: Column, start: number, end: number): ColumnStats {
  const t = c.type;
  const s: ColumnStats = { rows: end - start, nulls: 0, nans: 0, min: null, max: null, minExact: true, maxExact: true, sum: null };
  let min: Value = null;
  let max: Value = null;
  let sum: bigint | number | string | null = null;
  for (let i = start; i < end; i++) {
    let v = getValue(c, i);
    if (v === null) {
      s.nulls++;
      continue;
    }
    if (t.id === 'bpchar') v = stripTrailingSpaces(v as string);
    // sums
    switch (t.id) {
      case 'int2':
      case 'int4':
        sum = ((sum as bigint | null) ?? 0n) + BigInt(v as number);
        break;
      case 'int8':
        sum = ((sum as bigint | null) ?? 0n) + (v as bigint);
        break;
      case 'float4':
        sum = sum === null ? (v as number) : Math.fround((sum as number) + (v as number));
        break;
      case 'float8':
        sum = sum === null ? (v as number) : (sum as number) + (v as number);
        break;
      case 'numeric':
        if (isDecimal128(t)) sum = ((sum as bigint | null) ?? 0n) + (v as bigint);
        else sum = sum === null ? addDecimalText('0', v as string) : addDecimalText(sum as string, v as string);
        break;
      default:
        break;
    }
    if (t.id === 'jsonb' || t.id === 'json') continue;
    if ((t.id === 'float4' || t.id === 'float8') && Number.isNaN(v)) {
      s.nans++;
      continue;
    }
    if (isNumericText(t) && parseNumericText(v as string)?.kind !== 'finite' && parseNumericText(v as string)?.kind !== 'pinf' && parseNumericText(v as string)?.kind !== 'ninf') {
      s.nans++;
      continue;
    }
    if (min === null || compareValues(t, v, min) < 0) min = v;
    if (max === null || compareValues(t, v, max) > 0) max = v;
  }
  if (t.id === 'text' || t.id === 'varchar' || t.id === 'bpchar') {
    if (min !== null) {
      const lo = strLower(min as string);
      const hi = strUpper(max as string);
      s.min = lo.v;
      s.minExact = lo.exact;
      s.max = hi.v;
      s.maxExact = hi.exact;
    }
  } else if (t.id === 'bytea') {
    if (min !== null) {
      const a = min as Uint8Array;
      const b = max as Uint8Array;
      s.min = a.length > 64 ? a.slice(0, 64) : a;
      s.minExact = a.length <= 64;
      if (b.length <= 64) s.max = b;
      else {
        s.maxExact = false;
        let n = 64;
        while (n > 0 && b[n - 1] === 255) n--;
        if (n === 0) s.max = null;
        else {
          const m = b.slice(0, n);
          m[n - 1]!++;
          s.max = m;
        }
      }
    }
  } else {
    s.min = min;
    s.max = max;
  }
  s.sum = sum;
  return s;
}

/** Asserts two stats are equal: min/max by PostgreSQL order and exactness, sums exactly. */
export function assertStatsEqual(t: PgType, got: ColumnStats, want: ColumnStats, what: string): void {
  assert.is(got.rows, want.rows, `${what}: rows`);
  assert.is(got.nulls, want.nulls, `${what}: nulls`);
  assert.is(got.nans, want.nans, `${what}: nans`);
  for (const k of ['min', 'max'] as const) {
    const g = got[k];
    const w = want[k];
    if (g === null || w === null) assert.ok(g === null && w === null, `${what}: ${k} ${String(g)} vs ${String(w)}`);
    else assert.is(compareValues(t, g, w), 0, `${what}: ${k} ${String(g)} vs ${String(w)}`);
  }
  assert.is(got.minExact, want.minExact, `${what}: minExact`);
  assert.is(got.maxExact, want.maxExact, `${what}: maxExact`);
  if (typeof got.sum === 'number' && typeof want.sum === 'number') assert.ok(Object.is(got.sum, want.sum), `${what}: sum ${got.sum} vs ${want.sum}`);
  else if (isNumericText(t) && typeof got.sum === 'string' && typeof want.sum === 'string') assert.is(got.sum, want.sum, `${what}: sum`);
  else assert.is(got.sum, want.sum, `${what}: sum`);
}

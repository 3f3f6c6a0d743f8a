/**
 * Sort: a stable sort of rows by keys with PostgreSQL's order — ASC NULLS LAST and DESC NULLS
 * FIRST unless said otherwise, NaN above every number, text by code point (the C collation
 * paxd's PostgreSQL uses).
 */
import type { PgType, Value } from '../../types/index.js';
import { BoundedHeap } from '../../scan/index.js';
import { compare } from './kernels.js';

export interface SortKey {
  /** Index into the row. */
  readonly index: number;
  readonly type: PgType;
  readonly desc: boolean;
  readonly nullsFirst: boolean;
}

export function compareRows(keys: readonly SortKey[], a: readonly Value[], b: readonly Value[]): number {
  for (const k of keys) {
    const x = a[k.index]!;
    const y = b[k.index]!;
    if (x === null || y === null) {
      if (x === y) continue;
      return (x === null) === k.nullsFirst ? -1 : 1;
    }
    const c = compare(k.type, x, y);
    if (c !== 0) return k.desc ? -c : c;
  }
  return 0;
}

/**
 * Sorts `rows` in place; given `limit`, only the first `limit` rows of the order are needed,
 * and when they are few a bounded heap keeps them (O(n log k), not O(n log n)): `rows` is then
 * cut to them. Ties keep input order either way (Array.prototype.sort is stable; the heap
 * breaks ties by position).
 */
export function sortRows(rows: Value[][], keys: readonly SortKey[], limit?: number): Value[][] {
  if (limit === undefined || limit * 8 >= rows.length) return rows.sort((a, b) => compareRows(keys, a, b));
  // Row positions, ties broken by position so that the order is total and the sort stable.
  const heap = new BoundedHeap<number>(Math.max(0, limit), (x, y) => compareRows(keys, rows[x]!, rows[y]!) || x - y);
  for (let i = 0; i < rows.length; i++) heap.offer(i);
  const kept = heap.sorted().map((i) => rows[i]!);
  rows.length = 0;
  rows.push(...kept);
  return rows;
}

/**
 * Sort: a stable sort of rows by keys with PostgreSQL's order — ASC NULLS LAST and DESC NULLS
 * FIRST unless said otherwise, NaN above every number, text by code point (the C collation
 * paxd's PostgreSQL uses).
 */
import type { PgType, Value } from '../../types/index.js';
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
  const k = Math.max(0, limit);
  // A max-heap of row positions: the root is the worst row kept so far.
  const heap: number[] = [];
  const worse = (x: number, y: number): boolean => {
    const c = compareRows(keys, rows[x]!, rows[y]!);
    return c > 0 || (c === 0 && x > y);
  };
  const down = (at: number): void => {
    for (;;) {
      const l = 2 * at + 1;
      const r = l + 1;
      let top = at;
      if (l < heap.length && worse(heap[l]!, heap[top]!)) top = l;
      if (r < heap.length && worse(heap[r]!, heap[top]!)) top = r;
      if (top === at) return;
      [heap[at], heap[top]] = [heap[top]!, heap[at]!];
      at = top;
    }
  };
  for (let i = 0; i < rows.length && k > 0; i++) {
    if (heap.length < k) {
      heap.push(i);
      for (let at = heap.length - 1; at > 0; ) {
        const up = (at - 1) >> 1;
        if (!worse(heap[at]!, heap[up]!)) break;
        [heap[at], heap[up]] = [heap[up]!, heap[at]!];
        at = up;
      }
    } else if (worse(heap[0]!, i)) {
      heap[0] = i;
      down(0);
    }
  }
  heap.sort((x, y) => compareRows(keys, rows[x]!, rows[y]!) || x - y);
  const kept = heap.map((i) => rows[i]!);
  rows.length = 0;
  rows.push(...kept);
  return rows;
}

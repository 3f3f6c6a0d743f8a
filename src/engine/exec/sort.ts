/**
 * Sort: a stable sort of rows by keys with PostgreSQL's order — ASC NULLS LAST and DESC NULLS
 * FIRST unless said otherwise, NaN above every number, text by code point (the C collation
 * paxd's PostgreSQL uses).
 */
import type { PgType, Value } from '../../types/index.js';
import { BoundedHeap } from '../../scan/index.js';
import { compare } from './kernels.js';
import { chargeMemory, tick, yieldIfDue, yieldNow } from '../context.js';

/**
 * Rows one synchronous Array.prototype.sort may take: a larger input is sorted as runs of this
 * many (each a few milliseconds), then merged pairwise, giving the event loop back between runs
 * and every few thousand merged rows (../context.ts), so that sorting millions of rows neither
 * keeps other sessions waiting nor outlives a cancel.
 */
export const SORT_RUN = 4096;

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
 * cut to them. Ties keep input order either way (the runs' sort and the merge are stable; the
 * heap breaks ties by position).
 */
export async function sortRows(rows: Value[][], keys: readonly SortKey[], limit?: number): Promise<Value[][]> {
  const cmp = (a: readonly Value[], b: readonly Value[]) => compareRows(keys, a, b);
  if (limit === undefined || limit * 8 >= rows.length) return mergeSort(rows, cmp);
  // Row positions, ties broken by position so that the order is total and the sort stable.
  const heap = new BoundedHeap<number>(Math.max(0, limit), (x, y) => compareRows(keys, rows[x]!, rows[y]!) || x - y);
  for (let i = 0; i < rows.length; i++) {
    if ((i & 4095) === 0 && tick()) await yieldNow();
    heap.offer(i);
  }
  const kept = heap.sorted().map((i) => rows[i]!);
  rows.length = 0;
  for (const r of kept) rows.push(r);
  return rows;
}

/**
 * A stable sort of `a` in place: runs of SORT_RUN sorted by Array.prototype.sort, then merged
 * bottom-up between `a` and one scratch array (the left row first on ties).
 */
export async function mergeSort<T>(a: T[], cmp: (x: T, y: T) => number): Promise<T[]> {
  const n = a.length;
  if (n <= SORT_RUN) return a.sort(cmp);
  // The scratch array and a run: what the sort itself adds to the statement's memory (../memory.ts).
  const bytes = 8 * (n + SORT_RUN);
  chargeMemory(bytes, 'TupleSort main');
  try {
    return await mergeRuns(a, cmp);
  } finally {
    chargeMemory(-bytes, 'TupleSort main');
  }
}

async function mergeRuns<T>(a: T[], cmp: (x: T, y: T) => number): Promise<T[]> {
  const n = a.length;
  for (let lo = 0; lo < n; lo += SORT_RUN) {
    const run = a.slice(lo, Math.min(n, lo + SORT_RUN)).sort(cmp);
    for (let i = 0; i < run.length; i++) a[lo + i] = run[i]!;
    await yieldIfDue();
  }
  let src = a;
  let dst = a.slice();
  for (let width = SORT_RUN; width < n; width *= 2) {
    let done = 0;
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        dst[k++] = cmp(src[j]!, src[i]!) < 0 ? src[j++]! : src[i++]!;
        if ((++done & 4095) === 0 && tick()) await yieldNow();
      }
      while (i < mid) dst[k++] = src[i++]!;
      while (j < hi) dst[k++] = src[j++]!;
    }
    [src, dst] = [dst, src];
  }
  if (src !== a) for (let i = 0; i < n; i++) a[i] = src[i]!;
  return a;
}

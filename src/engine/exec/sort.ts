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

export function sortRows(rows: Value[][], keys: readonly SortKey[]): Value[][] {
  return rows.sort((a, b) => compareRows(keys, a, b)); // Array.prototype.sort is stable
}

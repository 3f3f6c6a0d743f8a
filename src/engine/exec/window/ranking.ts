/**
 * WindowAgg, ranking functions (PostgreSQL 15 docs table 9.63; windowfuncs.c): they read the
 * partition's order and peer groups, never the frame.
 *
 *   row_number  bigint   1, 2, 3, 4     over keys a, a, b, c
 *   rank        bigint   1, 1, 3, 4
 *   dense_rank  bigint   1, 1, 2, 3
 *   percent_rank float8  (rank - 1) / (rows - 1), 0 for one row
 *   cume_dist   float8   (rows up to the last peer) / rows
 *   ntile(k)    int4     buckets 1..k, the first (rows % k) one row larger
 */
import { SQLSTATE } from '../../../types/index.js';
import { SqlError } from '../../errors.js';
import type { WindowFnName } from '../../ir.js';
import { type PartitionView, rowOf } from './view.js';

export type RankingFn = Extract<WindowFnName, 'row_number' | 'rank' | 'dense_rank' | 'percent_rank' | 'cume_dist' | 'ntile'>;

export function rank(fn: RankingFn, v: PartitionView): void {
  const { n, gs, ge, out } = v;
  switch (fn) {
    case 'row_number':
      for (let i = 0; i < n; i++) out[rowOf(v, i)] = BigInt(i + 1);
      return;
    case 'rank':
      for (let i = 0; i < n; i++) out[rowOf(v, i)] = BigInt(gs[i]! + 1);
      return;
    case 'dense_rank':
      for (let i = 0; i < n; i++) out[rowOf(v, i)] = BigInt(v.sorted.group[v.p0 + i]! + 1);
      return;
    case 'percent_rank':
      for (let i = 0; i < n; i++) out[rowOf(v, i)] = n > 1 ? gs[i]! / (n - 1) : 0;
      return;
    case 'cume_dist':
      for (let i = 0; i < n; i++) out[rowOf(v, i)] = ge[i]! / n;
      return;
    case 'ntile':
      ntile(v);
      return;
    default: {
      const never: never = fn;
      throw new Error(`ranking function ${String(never)}`);
    }
  }
}

/**
 * ntile: the bucket count is read at the partition's first row (and again at each following
 * row while it is NULL, whose result is NULL), as windowfuncs.c's window_ntile does.
 */
function ntile(v: PartitionView): void {
  let bucket = 0;
  let inBucket = 0;
  let boundary = 0;
  let remainder = 0;
  for (let i = 0; i < v.n; i++) {
    const row = rowOf(v, i);
    if (bucket === 0) {
      const k = v.args[0]![row]! as number | null;
      if (k === null) {
        v.out[row] = null;
        continue;
      }
      if (k <= 0) throw new SqlError('invalid_input', SQLSTATE.invalid_argument_for_ntile_function, 'argument of ntile must be greater than zero');
      bucket = 1;
      inBucket = 0;
      boundary = Math.floor(v.n / k);
      if (boundary <= 0) boundary = 1;
      else {
        remainder = v.n % k;
        if (remainder !== 0) boundary++;
      }
    }
    inBucket++;
    if (boundary < inBucket) {
      if (remainder !== 0 && bucket === remainder) {
        remainder = 0;
        boundary--;
      }
      bucket++;
      inBucket = 1;
    }
    v.out[row] = bucket;
  }
}

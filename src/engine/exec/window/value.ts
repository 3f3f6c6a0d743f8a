/**
 * WindowAgg, value functions (PostgreSQL 15 docs table 9.63):
 *
 *   lag(x [, k [, d]]), lead(…)   x at k rows before / after the current row in the partition
 *                                 (k per row, default 1; NULL k gives NULL), else d (default NULL)
 *   first_value(x), last_value(x), nth_value(x, k)   x at that row of the frame, after EXCLUDE
 */
import { SQLSTATE, type Value } from '../../../types/index.js';
import { SqlError } from '../../errors.js';
import type { WindowFnName } from '../../ir.js';
import { frameSegments } from './frame.js';
import { type PartitionView, rowOf } from './view.js';

export type ValueFn = Extract<WindowFnName, 'lag' | 'lead' | 'first_value' | 'last_value' | 'nth_value'>;

export function valueAt(fn: ValueFn, v: PartitionView): void {
  const [x, k, d] = v.args as [readonly Value[], readonly Value[] | undefined, readonly Value[] | undefined];
  for (let i = 0; i < v.n; i++) {
    const row = rowOf(v, i);
    if (fn === 'lag' || fn === 'lead') {
      const off = k![row]! as number | null;
      if (off === null) {
        v.out[row] = null;
        continue;
      }
      const j = fn === 'lag' ? i - off : i + off;
      v.out[row] = j >= 0 && j < v.n ? x[rowOf(v, j)]! : d === undefined ? null : d[row]!;
      continue;
    }
    const segs = frameSegments(v.frame.exclude, i, v.start[i]!, v.end[i]!, v.gs[i]!, v.ge[i]!);
    if (fn === 'first_value') v.out[row] = segs.length === 0 ? null : x[rowOf(v, segs[0]!)]!;
    else if (fn === 'last_value') v.out[row] = segs.length === 0 ? null : x[rowOf(v, segs[segs.length - 1]! - 1)]!;
    else v.out[row] = nth(v, x, segs, k![row]! as number | null);
  }
}

function nth(v: PartitionView, x: readonly Value[], segs: readonly number[], k: number | null): Value {
  if (k === null) return null;
  if (k <= 0) throw new SqlError('invalid_input', SQLSTATE.invalid_argument_for_nth_value_function, 'argument of nth_value must be greater than zero');
  let left = k - 1;
  for (let s = 0; s < segs.length; s += 2) {
    const len = segs[s + 1]! - segs[s]!;
    if (left < len) return x[rowOf(v, segs[s]! + left)]!;
    left -= len;
  }
  return null;
}

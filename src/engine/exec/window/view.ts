/**
 * WindowAgg: what a window function sees of one partition — its rows in window order, their
 * peer groups and frames, the call's argument columns — and where it writes its results.
 */
import type { Value } from '../../../types/index.js';
import type { ResolvedFrame } from './frame.js';
import type { Sorted } from './partition.js';

export interface PartitionView {
  readonly sorted: Sorted;
  /** The partition is sorted positions [p0, p0 + n). */
  readonly p0: number;
  readonly n: number;
  /** Row i's peer group is [gs[i], ge[i]) (relative to p0). */
  readonly gs: Int32Array;
  readonly ge: Int32Array;
  /** Row i's frame before EXCLUDE is [start[i], end[i]). */
  readonly start: Int32Array;
  readonly end: Int32Array;
  readonly frame: ResolvedFrame;
  /** The call's argument columns, by input position. */
  readonly args: readonly (readonly Value[])[];
  /** The result column, by input position. */
  readonly out: Value[];
}

/** The input position of the partition's row i. */
export function rowOf(v: PartitionView, i: number): number {
  return v.sorted.idx[v.p0 + i]!;
}

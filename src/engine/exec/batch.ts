/**
 * The engine's batch: equal-length columns of values for the rows that survived so far.
 * The scan adapter (./scan.ts) applies the storage batch's selection vector once, when it
 * materializes the columns a query reads; operators above pass arrays, never rows.
 *
 * This is the interpreter's batch: columns are plain `Value[]` arrays and expressions are
 * interpreted one node per batch (./eval.ts), not per row. Single-table pipelines are compiled
 * to generated JavaScript over the storage batches' typed arrays instead (../compile/,
 * docs/ARCHITECTURE.md "Compiled pipelines and parallel execution").
 */
import type { Value } from '../../types/index.js';

export interface RowBatch {
  readonly rows: number;
  readonly cols: readonly Value[][];
}

/** The rows of `b` at `idx`, in that order. */
export function take(b: RowBatch, idx: readonly number[]): RowBatch {
  return { rows: idx.length, cols: b.cols.map((c) => idx.map((i) => c[i]!)) };
}

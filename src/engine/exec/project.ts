/** Project: one output column per expression. */
import type { Expr } from '../expr.js';
import type { RowBatch } from './batch.js';
import { evaluate } from './eval.js';

export function project(b: RowBatch, exprs: readonly Expr[]): RowBatch {
  return { rows: b.rows, cols: exprs.map((e) => evaluate(e, b)) };
}

/** Filter: the rows of a batch for which a condition is TRUE (NULL and FALSE leave). */
import type { Expr } from '../expr.js';
import { type RowBatch, take } from './batch.js';
import { evaluate } from './eval.js';

export function filter(b: RowBatch, cond: Expr): RowBatch {
  const v = evaluate(cond, b);
  const keep: number[] = [];
  for (let i = 0; i < b.rows; i++) if (v[i] === true) keep.push(i);
  return keep.length === b.rows ? b : take(b, keep);
}

/**
 * WindowAgg, partitioning: the rows in the order of one window's PARTITION BY keys, then its
 * ORDER BY keys (PostgreSQL's WindowAgg reads them from a Sort with exactly these keys), cut
 * into partitions and, within each, into peer groups (rows equal on every ORDER BY key; every
 * row of a partition is a peer when the window has no ORDER BY).
 *
 *   rows:   idx   = [7, 2, 5, 0, 3 …]   input positions in window order
 *   parts:  [0, 3, 5 …, n]             partition p is idx[parts[p] .. parts[p + 1])
 *   group:  group[j] = peer group number of sorted position j, counted from 0 per partition
 */
import type { PgType, Value } from '../../../types/index.js';
import type { Expr } from '../../expr.js';
import type { OrderItem } from '../../ir.js';
import type { RowBatch } from '../batch.js';
import { evaluate } from '../eval.js';
import { compare } from '../kernels.js';
import { mergeSort } from '../sort.js';
import { yieldIfDue } from '../../context.js';

/** Rows evaluated per stretch, between interrupt points (../../context.ts). */
export const EVAL_CHUNK = 4096;

export interface Sorted {
  readonly idx: number[];
  readonly parts: number[];
  readonly group: Int32Array;
}

/** `e` over every input row, a chunk at a time so that a cancel or timeout gets in. */
export async function evaluateAll(e: Expr, input: RowBatch): Promise<Value[]> {
  if (input.rows <= EVAL_CHUNK) return evaluate(e, input);
  const out = new Array<Value>(input.rows);
  for (let lo = 0; lo < input.rows; lo += EVAL_CHUNK) {
    const hi = Math.min(input.rows, lo + EVAL_CHUNK);
    const part = evaluate(e, { rows: hi - lo, cols: input.cols.map((c) => c.slice(lo, hi)) });
    for (let i = 0; i < part.length; i++) out[lo + i] = part[i]!;
    await yieldIfDue();
  }
  return out;
}

/**
 * The comparison of non-NULL values of `type`: plain number and bigint comparisons for the
 * integer and date types, the engine's `compare` (NaN above all, text by code point, …) for
 * the rest. Peers are rows it finds equal on every ORDER BY key (PostgreSQL's are_peers).
 */
function comparatorOf(type: PgType): (a: Value, b: Value) => number {
  switch (type.id) {
    case 'int2':
    case 'int4':
    case 'date':
      return (a, b) => (a as number) - (b as number);
    case 'int8':
    case 'timestamp':
    case 'timestamptz':
      return (a, b) => ((a as bigint) < (b as bigint) ? -1 : (a as bigint) > (b as bigint) ? 1 : 0);
    default:
      return (a, b) => compare(type, a, b);
  }
}

/**
 * Sorts the input's positions by `partition` (ascending, NULLs last) and `order`, stable, and
 * finds partitions and peer groups.
 */
export async function sortForWindow(input: RowBatch, partition: readonly Expr[], order: readonly OrderItem[]): Promise<Sorted> {
  const n = input.rows;
  const pcols: Value[][] = [];
  for (const p of partition) pcols.push(await evaluateAll(p, input));
  const ocols: Value[][] = [];
  for (const o of order) ocols.push(await evaluateAll(o.expr, input));
  const keys = [
    ...partition.map((p, k) => ({ col: pcols[k]!, cmp: comparatorOf(p.type), desc: false, nullsFirst: false })),
    ...order.map((o, k) => ({ col: ocols[k]!, cmp: comparatorOf(o.expr.type), desc: o.desc, nullsFirst: o.nullsFirst })),
  ];
  /** Compares input rows x and y by the first `upTo` keys (partition keys, then order keys). */
  const compareBy = (x: number, y: number, from: number, upTo: number): number => {
    for (let i = from; i < upTo; i++) {
      const k = keys[i]!;
      const a = k.col[x]!;
      const b = k.col[y]!;
      if (a === null || b === null) {
        if (a === b) continue;
        return (a === null) === k.nullsFirst ? -1 : 1;
      }
      const c = k.cmp(a, b);
      if (c !== 0) return k.desc ? -c : c;
    }
    return 0;
  };
  const idx = Array.from({ length: n }, (_v, i) => i);
  const all = keys.length;
  if (all > 0) await mergeSort(idx, (x, y) => compareBy(x, y, 0, all));
  const parts = [0];
  const group = new Int32Array(n);
  const np = partition.length;
  let g = 0;
  for (let j = 1; j < n; j++) {
    const x = idx[j - 1]!;
    const y = idx[j]!;
    if (compareBy(x, y, 0, np) !== 0) {
      parts.push(j);
      g = 0;
    } else if (compareBy(x, y, np, all) !== 0) g++;
    group[j] = g;
    if ((j & 65535) === 0) await yieldIfDue();
  }
  if (n > 0) parts.push(n);
  return { idx, parts, group };
}

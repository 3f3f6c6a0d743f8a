/**
 * The scan adapter: storage batches (Arrow layout, selection vectors) from a TableScan or a
 * top-N result become the engine's RowBatches of the columns a query reads, in slot order,
 * with numeric(p,s) as exact decimal text (the engine's numeric representation).
 */
import type { Batch, Column, Field, Value } from '../../types/index.js';
import { formatDecimal, getValue, isDecimal128 } from '../../types/index.js';
import type { RowBatch } from './batch.js';
import { fastColumn } from './scan-columns.js';

export function materialize(b: Batch, fields: readonly Field[]): RowBatch {
  const sel = b.selection;
  const rows = sel === null ? b.length : sel.length;
  const cols = fields.map((f, j) => column(b.columns[j]!, f, sel, rows));
  return { rows, cols };
}

function column(c: Column, f: Field, sel: Uint32Array | null, rows: number): Value[] {
  const fast = fastColumn(c, f, sel, rows);
  if (fast !== null) return fast;
  const out = new Array<Value>(rows);
  const scale = isDecimal128(f.type) ? (f.type.scale ?? 0) : -1;
  for (let i = 0; i < rows; i++) {
    const v = getValue(c, sel === null ? i : sel[i]!);
    out[i] = scale >= 0 && v !== null ? formatDecimal(v as bigint, scale) : v;
  }
  return out;
}

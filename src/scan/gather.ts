/**
 * gather: the rows of a selection vector copied into a new contiguous column, runs of
 * consecutive rows at a time (one allocation per column, none per row). Used where a kernel
 * over contiguous rows (statistics, encoders) must see only the selected rows.
 */
import { type Column, concatRanges, type ColumnRange } from '../types/index.js';

export function gather(col: Column, sel: Uint32Array): Column {
  const ranges: ColumnRange[] = [];
  let i = 0;
  while (i < sel.length) {
    let j = i + 1;
    while (j < sel.length && sel[j] === sel[j - 1]! + 1) j++;
    ranges.push({ column: col, start: sel[i]!, length: j - i });
    i = j;
  }
  return concatRanges(col.type, ranges);
}

/** The positions in [start, start + n) not marked in `deleted`, relative to start; null when none is deleted. */
export function liveSelection(deleted: Uint8Array | null, start: number, n: number): Uint32Array | null {
  if (deleted === null) return null;
  let count = 0;
  for (let i = 0; i < n; i++) count += deleted[start + i]! ^ 1;
  if (count === n) return null;
  const sel = new Uint32Array(count);
  let k = 0;
  for (let i = 0; i < n; i++) if (deleted[start + i] === 0) sel[k++] = i;
  return sel;
}

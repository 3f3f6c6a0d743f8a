/** Reading whole tables back and comparing columns exactly (NULL slots' bytes ignored). */
import type { Batch, Column } from '../../src/types/column.js';
import { isValid } from '../../src/types/column.js';
import { concatRanges, type ColumnRange } from '../../src/types/concat.js';
import { byteWidth, type Field } from '../../src/types/type.js';
import { physicalOf } from '../../src/types/kind.js';
import type { BatchReader } from '../../src/scan/reader.js';

/** Drains a reader into one column per field (selections applied). */
export async function readAll(reader: BatchReader): Promise<Column[]> {
  await reader.begin();
  const ranges: ColumnRange[][] = reader.fields.map(() => []);
  try {
    for (let b = await reader.next(); b !== null; b = await reader.next()) addBatch(ranges, b);
  } finally {
    await reader.end();
  }
  return reader.fields.map((f: Field, i) => concatRanges(f.type, ranges[i]!));
}

function addBatch(ranges: ColumnRange[][], b: Batch): void {
  if (b.selection === null) {
    b.columns.forEach((c, i) => ranges[i]!.push({ column: c, start: 0, length: b.length }));
    return;
  }
  for (const pos of b.selection) b.columns.forEach((c, i) => ranges[i]!.push({ column: c, start: pos, length: 1 }));
}

/** Throws with the first differing row when two columns differ in length, NULLs or values. */
export function assertColumnEqual(actual: Column, expected: Column, what: string): void {
  if (actual.length !== expected.length) throw new Error(`${what}: ${actual.length} rows, expected ${expected.length}`);
  if (actual.nullCount !== expected.nullCount) throw new Error(`${what}: ${actual.nullCount} NULLs, expected ${expected.nullCount}`);
  const p = physicalOf(expected.type);
  const w = byteWidth(p);
  const av = bytesOf(actual.values);
  const ev = bytesOf(expected.values);
  for (let i = 0; i < expected.length; i++) {
    const va = isValid(actual, i);
    if (va !== isValid(expected, i)) throw new Error(`${what}: row ${i}: NULL mismatch`);
    if (!va) continue;
    let same = true;
    if (p === 'bit') same = ((av[i >>> 3]! >> (i & 7)) & 1) === ((ev[i >>> 3]! >> (i & 7)) & 1);
    else if (p === 'var') {
      const a0 = actual.offsets![i]!, a1 = actual.offsets![i + 1]!;
      const e0 = expected.offsets![i]!, e1 = expected.offsets![i + 1]!;
      if (a1 - a0 !== e1 - e0) same = false;
      else for (let k = 0; k < a1 - a0 && same; k++) same = actual.data![a0 + k] === expected.data![e0 + k];
    } else for (let k = 0; k < w && same; k++) same = av[i * w + k] === ev[i * w + k];
    if (!same) throw new Error(`${what}: row ${i}: values differ`);
  }
}

function bytesOf(v: Column['values']): Uint8Array {
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

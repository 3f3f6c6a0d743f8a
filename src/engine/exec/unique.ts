/**
 * Unique (PostgreSQL's nodeUnique.c) for SELECT DISTINCT ON: over rows sorted by the DISTINCT ON
 * keys first, the first row of each run of rows whose keys are equal (NULLs equal, numeric by
 * value: ./key.ts).
 */
import type { PgType, Value } from '../../types/index.js';
import { tick, yieldNow } from '../context.js';
import { keyNorm, keyText } from './key.js';

/** `rows` (sorted) without the rows whose columns `from … from + types.length − 1` equal the previous row's. */
export async function uniqueRuns(rows: Value[][], from: number, types: readonly PgType[]): Promise<Value[][]> {
  const norms = types.map(keyNorm);
  const out: Value[][] = [];
  let prev: string | null = null;
  for (let j = 0; j < rows.length; j++) {
    if ((j & 4095) === 0 && tick()) await yieldNow();
    const r = rows[j]!;
    let k = '';
    for (let i = 0; i < norms.length; i++) k += `${keyText(r[from + i]!, norms[i]!)}\u0000`;
    if (k === prev) continue;
    prev = k;
    out.push(r);
  }
  return out;
}

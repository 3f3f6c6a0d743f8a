/**
 * What the set operators (./set-op.ts, ./recursive-union.ts) share: a side's rows cast to the
 * operation's column types, the key that says two rows are the same row (NULLs equal, as
 * DISTINCT and set operations compare), and the bytes a kept row is charged.
 */
import type { Value } from '../../../types/index.js';
import type { QueryField } from '../../ir.js';
import type { QueryResult } from '../../result.js';
import { tick, yieldNow } from '../../context.js';
import { castValue } from '../kernels.js';
import { type KeyNorm, keyNorm, keyText } from '../key.js';

/** `r`'s rows with each column cast to `fields`' type where it differs (an unknown literal side is text, read by the type's input function). */
export async function castRows(r: QueryResult, fields: readonly QueryField[]): Promise<Value[][]> {
  const casts = fields.map((f, i) => {
    const from = r.fields[i]!.type;
    return from.id === f.type.id && from.id !== 'bpchar' ? null : ([from, f.type] as const);
  });
  if (casts.every((c) => c === null)) return r.rows.slice() as Value[][];
  const out = new Array<Value[]>(r.rows.length);
  for (let k = 0; k < r.rows.length; k++) {
    if ((k & 4095) === 0 && tick()) await yieldNow();
    out[k] = r.rows[k]!.map((v, i) => (v === null || casts[i] === null ? v : castValue(casts[i]![0], casts[i]![1], v)));
  }
  return out;
}

/** The row-identity key of each row over `fields` (./key.ts: 1.0 and 1.00 are one numeric). */
export function rowKeyer(fields: readonly QueryField[]): (row: readonly Value[]) => string {
  const norms: KeyNorm[] = fields.map((f) => keyNorm(f.type));
  return (row) => {
    let k = '';
    for (let i = 0; i < norms.length; i++) k += `${keyText(row[i]!, norms[i]!)}\u0000`;
    return k;
  };
}

/** A kept row's bytes, by estimate: the array and its slots, strings at two bytes a unit. */
export function rowBytes(row: readonly Value[]): number {
  let n = 32 + 8 * row.length;
  for (const v of row) if (typeof v === 'string') n += 16 + 2 * v.length;
  return n;
}

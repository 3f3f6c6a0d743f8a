/**
 * The `ctid` system column in the engine (docs/MIRROR.md): every table has it, `SELECT *` does
 * not show it. Its values are tid text `(block,offset)` (../scan/ctid.ts: block and offset
 * from the group's storage rank in the pinned snapshot and the row's position in the group),
 * computed from the scan's batch position, so only the interpreted pipeline reads it (the
 * compiled and parallel pipelines, statistics and top-N plans step aside). The engine has no
 * tid type: a ctid is text whose values are always canonical, and comparisons with it accept
 * = and <> only, against tid text canonicalized first (`'( 0, 1)'` is `(0,1)`); malformed
 * text is 22P02 as tidin says it.
 *
 *   SELECT id, ctid FROM t WHERE id = 5 FOR UPDATE   →  5 | (0,5)
 *   SELECT id FROM t WHERE ctid = '(0,5)'            →  5
 */
import type { Batch, Field, Value } from '../types/index.js';
import { SQLSTATE } from '../types/index.js';
import { formatCtid } from '../scan/index.js';
import type { BatchPosition } from '../scan/index.js';
import { SqlError } from './errors.js';
import { T } from './types.js';

/** The pseudo field a bound query reads for ctid; fieldId -1 marks it (no stored field has it). */
export const CTID_FIELD: Field = Object.freeze({ name: 'ctid', type: T.text, notNull: true, fieldId: -1 });

export function isCtidField(f: Field): boolean {
  return f.fieldId === CTID_FIELD.fieldId;
}

/** The canonical text of a tid literal; 22P02 when PostgreSQL's tidin would reject it. */
export function canonicalTid(text: string): string {
  const m = /^\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*$/.exec(text);
  const block = m === null ? NaN : Number(m[1]);
  const offset = m === null ? NaN : Number(m[2]);
  if (!Number.isSafeInteger(block) || block > 0xffffffff || !Number.isSafeInteger(offset) || offset > 0xffff)
    throw new SqlError('invalid_input', SQLSTATE.invalid_text_representation, `invalid input syntax for type tid: "${text}"`);
  return `(${block},${offset})`;
}

/** The ctid of each row of a scan batch: group row = position.row + (selection ?? identity)[i]. */
export function ctidColumn(b: Batch, pos: BatchPosition): Value[] {
  const sel = b.selection;
  const rows = sel === null ? b.length : sel.length;
  const out = new Array<Value>(rows);
  for (let i = 0; i < rows; i++) out[i] = formatCtid(pos.unit, pos.row + (sel === null ? i : sel[i]!));
  return out;
}

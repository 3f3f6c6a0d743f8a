/**
 * Values Scan (PostgreSQL's nodeValuesscan.c): the rows of a VALUES list, each expression
 * evaluated once (the binder has cast them to the columns' types).
 */
import type { Value } from '../../types/index.js';
import type { BoundValues } from '../ir.js';
import type { QueryResult } from '../result.js';
import { yieldIfDue } from '../context.js';
import { evaluate } from './eval.js';

/** The one empty row expressions of a VALUES row are evaluated over. */
const ONE_ROW = { rows: 1, cols: [] };

export async function scanValues(q: BoundValues): Promise<QueryResult> {
  const rows: Value[][] = [];
  for (const r of q.rows) {
    await yieldIfDue();
    rows.push(r.map((e) => evaluate(e, ONE_ROW)[0] ?? null));
  }
  return { command: 'SELECT', fields: q.fields, rows };
}

/**
 * Values Scan (PostgreSQL's nodeValuesscan.c): the rows of a VALUES list, each expression
 * evaluated once (the binder has cast them to the columns' types), then ORDER BY (output
 * positions) and LIMIT/OFFSET of a top-level `VALUES … ORDER BY 1`.
 */
import type { Value } from '../../types/index.js';
import type { BoundValues } from '../ir.js';
import type { QueryResult } from '../result.js';
import { yieldIfDue } from '../context.js';
import { evaluate } from './eval.js';
import { sortRows } from './sort.js';
import { limitRows } from './limit.js';

/** The one empty row expressions of a VALUES row are evaluated over. */
const ONE_ROW = { rows: 1, cols: [] };

export async function scanValues(q: BoundValues): Promise<QueryResult> {
  let rows: Value[][] = [];
  for (const r of q.rows) {
    await yieldIfDue();
    rows.push(r.map((e) => evaluate(e, ONE_ROW)[0] ?? null));
  }
  if (q.orderBy.length > 0) await sortRows(rows, q.orderBy.map((o) => ({ index: o.index, type: q.fields[o.index]!.type, desc: o.desc, nullsFirst: o.nullsFirst })));
  rows = limitRows(rows, q.limit, q.offset);
  return { command: 'SELECT', fields: q.fields.map((f) => ({ name: f.name, type: f.type })), rows };
}

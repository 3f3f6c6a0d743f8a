/**
 * SetOp (PostgreSQL's nodeSetOp.c, HashSetOp in its EXPLAIN): INTERSECT and EXCEPT [ALL] over
 * both sides' rows, cast to the operation's column types as UNION casts them. Rows are equal
 * as DISTINCT compares them (NULLs equal). With a row that appears l times on the left and r
 * times on the right (PostgreSQL 15 docs 7.4):
 *
 *   INTERSECT      once if l > 0 and r > 0        INTERSECT ALL   min(l, r) times
 *   EXCEPT         once if l > 0 and r = 0        EXCEPT ALL      max(l − r, 0) times
 *
 * Each output row is the first left row of its group; groups come out in the order of their
 * first left row, then ORDER BY (output columns) and LIMIT/OFFSET.
 */
import type { Value } from '../../../types/index.js';
import type { BoundSetOp } from '../../ir.js';
import type { QueryResult } from '../../result.js';
import { chargeMemory, yieldIfDue } from '../../context.js';
import { sortRows } from '../sort.js';
import { limitRows } from '../limit.js';
import { castRows, rowBytes, rowKeyer } from './rows.js';

const CONTEXT = 'SetOp';

interface Group {
  readonly row: Value[];
  left: number;
  right: number;
}

/** `left` and `right` are the two sides' results, in that order. */
export async function runSetOp(q: BoundSetOp, left: QueryResult, right: QueryResult): Promise<QueryResult> {
  const key = rowKeyer(q.fields);
  const groups = new Map<string, Group>();
  let charged = 0;
  const lrows = await castRows(left, q.fields);
  const rrows = await castRows(right, q.fields);
  let out: Value[][] = [];
  try {
    for (let i = 0; i < lrows.length; i++) {
      if ((i & 1023) === 0) await yieldIfDue();
      const row = lrows[i]!;
      const k = key(row);
      const g = groups.get(k);
      if (g !== undefined) g.left++;
      else {
        groups.set(k, { row, left: 1, right: 0 });
        const bytes = rowBytes(row) + 2 * k.length;
        chargeMemory(bytes, CONTEXT);
        charged += bytes;
      }
    }
    for (let i = 0; i < rrows.length; i++) {
      if ((i & 1023) === 0) await yieldIfDue();
      const g = groups.get(key(rrows[i]!));
      if (g !== undefined) g.right++;
    }
    for (const g of groups.values()) {
      const n = q.setOp === 'intersect' ? (q.all ? Math.min(g.left, g.right) : g.left > 0 && g.right > 0 ? 1 : 0) : q.all ? Math.max(g.left - g.right, 0) : g.right === 0 ? 1 : 0;
      for (let c = 0; c < n; c++) out.push(c === 0 ? g.row : g.row.slice());
    }
  } finally {
    chargeMemory(-charged, CONTEXT);
  }
  if (q.orderBy.length > 0) await sortRows(out, q.orderBy.map((o) => ({ index: o.index, type: q.fields[o.index]!.type, desc: o.desc, nullsFirst: o.nullsFirst })));
  out = limitRows(out, q.limit, q.offset);
  return { command: 'SELECT', fields: q.fields.map((f) => ({ name: f.name, type: f.type })), rows: out };
}

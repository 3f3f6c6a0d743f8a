/**
 * Recursive Union (PostgreSQL's nodeRecursiveunion.c; docs 7.8.2 "Recursive Queries"):
 *
 *   1. run the non-recursive term; its rows (without duplicates for UNION) are the result so
 *      far and the work table;
 *   2. while the work table has rows: run the recursive term over it (./cte-scan.ts
 *      `withWorkTable`); its rows (for UNION: those not seen before) join the result and are
 *      the next work table.
 *
 * A recursive term without a bound never ends by itself; every iteration passes the interrupt
 * point (57014 on cancel or statement_timeout; other sessions run in between) and charges the
 * rows it keeps to the statement's memory account (53200 past the statement cap,
 * ../../memory.ts).
 */
import type { Value } from '../../../types/index.js';
import type { BoundRecursiveUnion } from '../../ir.js';
import type { QueryResult } from '../../result.js';
import { chargeMemory, yieldIfDue } from '../../context.js';
import { type QueryRunner, withWorkTable } from '../cte-scan.js';
import { castRows, rowBytes, rowKeyer } from './rows.js';

const CONTEXT = 'RecursiveUnion';

export async function runRecursiveUnion(q: BoundRecursiveUnion, runQuery: QueryRunner): Promise<QueryResult> {
  const fields = q.fields;
  const key = rowKeyer(q.fields);
  const seen = q.all ? null : new Set<string>();
  const out: Value[][] = [];
  let charged = 0;
  const keep = async (rows: Value[][]): Promise<Value[][]> => {
    const added: Value[][] = [];
    for (let i = 0; i < rows.length; i++) {
      if ((i & 1023) === 0) await yieldIfDue();
      const row = rows[i]!;
      if (seen !== null) {
        const k = key(row);
        if (seen.has(k)) continue;
        seen.add(k);
      }
      const bytes = rowBytes(row);
      chargeMemory(bytes, CONTEXT);
      charged += bytes;
      added.push(row);
      out.push(row);
    }
    return added;
  };
  try {
    let work = await keep(await castRows(await runQuery(q.nonRecursive), q.fields));
    while (work.length > 0) {
      await yieldIfDue();
      const table: QueryResult = { command: 'SELECT', fields, rows: work };
      const r = await withWorkTable(q.id, table, () => runQuery(q.recursive));
      work = await keep(await castRows(r, q.fields));
    }
  } finally {
    chargeMemory(-charged, CONTEXT);
  }
  return { command: 'SELECT', fields, rows: out };
}

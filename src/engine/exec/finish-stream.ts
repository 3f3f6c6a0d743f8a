/**
 * The end of a relational query without an aggregate — projection, DISTINCT, ORDER BY and
 * LIMIT/OFFSET — over the join tree's stream of batches, holding only what the answer needs
 * (./run.ts `finish` takes the batches materialized):
 *
 *   ORDER BY … LIMIT n   a top-N heap of the n + offset best rows (PostgreSQL's bounded sort):
 *                        `select a.id, b.id from a, b order by a.s || b.s limit 5` keeps 5 rows
 *                        whatever the size of the cross join;
 *   ORDER BY             an external merge sort (./spill/external-sort.ts): runs on disk past work_mem;
 *   DISTINCT             the hash aggregate with the output columns as keys and no aggregate,
 *                        which spills past work_mem (./hash-aggregate.ts).
 *
 * ORDER BY keys that are not output columns ride along as hidden columns (as in `finish`).
 */
import type { Value } from '../../types/index.js';
import { type SelectClauses, outputField } from '../ir.js';
import type { Expr } from '../expr.js';
import type { QueryResult } from '../result.js';
import type { RowBatch } from './batch.js';
import { BoundedHeap } from '../../scan/index.js';
import { currentWorkMem, tick, yieldIfDue, yieldNow } from '../context.js';
import { HashAggregate } from './hash-aggregate.js';
import { limitRows } from './limit.js';
import { project } from './project.js';
import { compareRows, type SortKey } from './sort.js';
import { ExternalSort } from './spill/external-sort.js';

type Finishing = Pick<SelectClauses, 'targets' | 'orderBy' | 'limit' | 'offset' | 'distinct'>;

/**
 * The clauses this path knows. A query with any other (one a later change adds: window
 * functions, DISTINCT ON…) takes `finish`, which stays the reference.
 */
const KNOWN = new Set([
  'where',
  'grouping',
  'having',
  'targets',
  'orderBy',
  'limit',
  'offset',
  'distinct',
  'initPlans',
  'root',
  'leaves',
  'slots',
  'joins',
  'from',
  'table',
  'columns',
  'kind',
]);

/** Whether a query is one `finishStream` serves, and one where streaming pays (ORDER BY or DISTINCT). */
export function streamsFinish(q: Finishing & object): boolean {
  if (q.orderBy.length === 0 && !q.distinct) return false;
  for (const [k, v] of Object.entries(q))
    if (!KNOWN.has(k) && v !== undefined && v !== null && v !== false && !(Array.isArray(v) && v.length === 0)) return false;
  return true;
}

/** Rows before LIMIT/OFFSET and after, for EXPLAIN ANALYZE. */
export type FinishTrace = (sortedRows: number, outRows: number) => void;

export async function finishStream(q: Finishing, source: AsyncIterable<RowBatch>, trace: FinishTrace | null): Promise<QueryResult> {
  const nt = q.targets.length;
  const hidden: Expr[] = q.orderBy.map((o) => o.expr);
  const exprs = [...q.targets.map((t) => t.expr), ...hidden];
  const keys: SortKey[] = q.orderBy.map((o, k) => ({ index: nt + k, type: o.expr.type, desc: o.desc, nullsFirst: o.nullsFirst }));
  const sink = rowSink(q, keys);
  let seen = 0;
  if (q.distinct) {
    const agg = new HashAggregate(exprs, []);
    for await (const b of source) await agg.add(b);
    for await (const g of agg.batches()) seen += await sink.add(g);
  } else {
    for await (const b of source) seen += await sink.add(project(b, exprs));
  }
  let rows = await sink.rows();
  rows = limitRows(rows, q.limit, q.offset);
  const out = new Array<Value[]>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    if ((i & 4095) === 0 && tick()) await yieldNow();
    out[i] = hidden.length > 0 ? rows[i]!.slice(0, nt) : rows[i]!;
  }
  trace?.(seen, out.length);
  return { command: 'SELECT', fields: q.targets.map(outputField), rows: out };
}

interface RowSink {
  /** Takes a batch of projected columns; returns its row count. */
  add(b: RowBatch): Promise<number>;
  /** The rows in their final order (before LIMIT/OFFSET). */
  rows(): Promise<Value[][]>;
}

function rowSink(q: Finishing, keys: readonly SortKey[]): RowSink {
  if (keys.length === 0) {
    const all: Value[][] = [];
    return { add: (b) => addRows(b, (r) => void all.push(r)), rows: async () => all };
  }
  if (q.limit !== null) {
    // Ties by arrival, so that the order is total and the top-N stable as the full sort is.
    type Item = { row: Value[]; seq: number };
    const heap = new BoundedHeap<Item>(q.limit + q.offset, (x, y) => compareRows(keys, x.row, y.row) || x.seq - y.seq);
    let seq = 0;
    return {
      add: async (b) => {
        // Once the heap is full, a row is compared in a scratch array first: only a row that
        // beats the worst kept is copied (a cross join's millions of others make no garbage).
        const w = b.cols.length;
        const scratch = new Array<Value>(w);
        for (let i = 0; i < b.rows; i++) {
          if ((i & 4095) === 4095 && tick()) await yieldNow();
          for (let k = 0; k < w; k++) scratch[k] = b.cols[k]![i]!;
          const worst = heap.worst();
          // Ties lose to the row kept: it came first.
          if (heap.full && (worst === undefined || compareRows(keys, scratch, worst.row) >= 0)) {
            seq++;
            continue;
          }
          heap.offer({ row: scratch.slice(), seq: seq++ });
        }
        await yieldIfDue();
        return b.rows;
      },
      rows: async () => heap.sorted().map((x) => x.row),
    };
  }
  const sort = new ExternalSort(keys, currentWorkMem());
  return {
    add: (b) => addRows(b, (r) => sort.add(r)),
    rows: async () => {
      const out: Value[][] = [];
      await sort.sorted(out);
      return out;
    },
  };
}

/** Turns a batch of columns into rows, handing each to `take` (awaited when it returns a promise). */
async function addRows(b: RowBatch, take: (row: Value[]) => Promise<void> | void): Promise<number> {
  const w = b.cols.length;
  for (let i = 0; i < b.rows; i++) {
    const row = new Array<Value>(w);
    for (let k = 0; k < w; k++) row[k] = b.cols[k]![i]!;
    const p = take(row);
    if (p !== undefined) await p;
    else if ((i & 4095) === 4095 && tick()) await yieldNow();
  }
  await yieldIfDue();
  return b.rows;
}

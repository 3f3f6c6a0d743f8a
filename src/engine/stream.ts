/**
 * Streaming scans for cursors: the shape postgres_fdw sends for a base scan,
 *
 *   SELECT <stored columns in any order, possibly repeated, or NULL> FROM [public.]t
 *   [WHERE <a condition the scan evaluates entirely as a pushed predicate>]
 *
 * with no ORDER BY, LIMIT/OFFSET, GROUP BY, DISTINCT, aggregates, functions or ctid, is
 * answered by the table's batch reader itself: its rows are the scan's selected rows in
 * storage order, each output column one stored column (or NULL). The statement is bound and
 * planned exactly as `query` does it (./bind.ts, ./plan.ts); only a 'pipeline' plan without a
 * residual filter whose targets are bare columns qualifies, so the rows are those the engine
 * returns for the same statement, in the same order.
 *
 *   const s = await scanPlanOf(db, 'SELECT b, a FROM t WHERE a > 10', [], []);
 *   s.fields      // [{ name: 'b', … }, { name: 'a', … }]
 *   s.sources     // [0, 1]: output column → column of the batches
 *   const r = s.open(); await r.begin(); await r.next()   // a Batch of b, a
 *   scanPlanOf(db, 'SELECT a + 1 FROM t', [], [])        // null: not a plain scan
 */
import type { Database } from '../table/index.js';
import type { BatchReader } from '../scan/index.js';
import { type Batch, type Field, type PgType, type TimeZone, type Value, UTC } from '../types/index.js';
import { type AstNode, parseSql, kindOf } from './parse.js';
import { bindQuery } from './bind.js';
import { planQuery } from './plan.js';
import { DEFAULT_WORK_MEM, withContext } from './context.js';
import { authorize } from './access.js';
import { materialize } from './exec/scan.js';
import { isCtidField } from './ctid.js';
import { recordScan } from './counters.js';
import type { ResultField } from './result.js';

export interface ScanCursorPlan {
  /** The result columns, as `query` describes them. */
  readonly fields: readonly ResultField[];
  /** The stored fields the batches of `open()` carry, in their column order. */
  readonly columns: readonly Field[];
  /** Per output column: the index of its column in the batches, or -1 for a NULL constant. */
  readonly sources: readonly number[];
  /** A new reader over the table's snapshot pinned when the statement was bound (not begun). */
  open(): BatchReader;
  /** The zone the statement ran in (its timestamptz text is printed there). */
  readonly timeZone: TimeZone;
  /** The selected rows [from, to) of a batch as engine values (what `query` returns for them). */
  rows(batch: Batch, from: number, to: number): Value[][];
}

/**
 * The streaming form of one SELECT (its text, or its tree parsed before), or null when it is
 * not a plain scan. `paramTypes` and
 * `params` are the `$n` types and values (as a prepared statement's execute gets them).
 * Binding errors (unknown table or column, …) are thrown as `query` throws them.
 */
export async function scanPlanOf(
  db: Database,
  sql: string | AstNode,
  paramTypes: readonly PgType[],
  params: readonly Value[],
  options: { readonly workMem?: number; readonly timeZone?: TimeZone; readonly user?: string } = {},
): Promise<ScanCursorPlan | null> {
  const stmts = typeof sql === 'string' ? await parseSql(sql) : [sql];
  if (stmts.length !== 1 || kindOf(stmts[0]!) !== 'SelectStmt') return null;
  const ctx = {
    types: [...paramTypes],
    values: params,
    workMem: options.workMem ?? DEFAULT_WORK_MEM,
    ...(options.timeZone !== undefined ? { timeZone: options.timeZone } : {}),
    ...(options.user !== undefined ? { user: options.user } : {}),
  };
  // The cursor's SELECT is checked as any statement is (./access.ts), at DECLARE.
  await withContext(ctx, () => authorize(db, stmts[0]!));
  const bound = await withContext(ctx, () => bindQuery(db, stmts[0]!));
  if (bound.kind !== 'select') return null;
  const p = planQuery(bound);
  if (p.kind !== 'pipeline' || p.residual !== null) return null;
  const q = p.query;
  if (q.grouping !== null || q.having !== null || q.orderBy.length > 0 || q.limit !== null || q.offset !== 0 || q.distinct) return null;
  if (q.columns.some(isCtidField)) return null;
  const slots: number[] = [];
  const sources: number[] = [];
  for (const t of q.targets) {
    const e = t.expr;
    if (e.kind === 'const' && e.value === null) {
      sources.push(-1);
      continue;
    }
    if (e.kind !== 'column') return null;
    const f = q.columns[e.slot];
    if (f === undefined || !sameType(f.type, e.type)) return null;
    let k = slots.indexOf(e.slot);
    if (k < 0) k = slots.push(e.slot) - 1;
    sources.push(k);
  }
  // A scan of no output column still counts rows: it reads the first column, as the engine does.
  const columns = slots.length > 0 ? slots.map((s) => q.columns[s]!) : [q.table.fields[0]!];
  const names = columns.map((f) => f.name);
  const where = p.where;
  const table = q.table;
  return Object.freeze({
    timeZone: options.timeZone ?? UTC,
    fields: q.targets.map((t) => ({ name: t.name, type: t.expr.type })),
    columns,
    sources,
    open: () => {
      // The scan counts in engineCounters() when it ends, as the engine's own scans do.
      const scan = table.scan({ columns: names, ...(where !== undefined ? { where } : {}) });
      const end = scan.end.bind(scan);
      let recorded = false;
      scan.end = async () => {
        await end();
        if (!recorded) recordScan(scan.stats);
        recorded = true;
      };
      return scan;
    },
    rows(batch: Batch, from: number, to: number): Value[][] {
      const m = materialize(batch, columns);
      const out: Value[][] = [];
      for (let i = from; i < to; i++) out.push(sources.map((s) => (s < 0 ? null : m.cols[s]![i]!)));
      return out;
    },
  });
}

/** The column expression reads the stored value as it is (numeric(p,s) is exact text in the engine, ./types.ts engineType). */
function sameType(stored: PgType, e: PgType): boolean {
  if (stored.id !== e.id) return false;
  if (stored.id === 'numeric') return true;
  return stored.length === e.length && stored.precision === e.precision && stored.scale === e.scale;
}

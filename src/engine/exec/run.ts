/**
 * Runs a plan (../plan.ts) to a result. Rows leave operators as column batches until the
 * final projection; ORDER BY keys that are not output columns ride along as hidden columns
 * and are cut after the sort.
 */
import type { PgType, Value } from '../../types/index.js';
import { formatDecimal, unreachable } from '../../types/index.js';
import type { Plan } from '../plan.js';
import type { ScanStats } from '../../scan/index.js';
import type { BoundQuery, BoundSelect } from '../ir.js';
import { planQuery } from '../plan.js';
import { castValue } from './kernels.js';
import { resolveInitPlans } from './init-plans.js';
import { execRel, type NodeTrace, type RelContext } from './rel.js';
import type { Expr } from '../expr.js';
import type { QueryResult } from '../result.js';
import type { RowBatch } from './batch.js';
import { filter } from './filter.js';
import { project } from './project.js';
import { type Aggregator, aggregateOf } from './aggregate/grouping-sets.js';
import { finishStream, streamsFinish } from './finish-stream.js';
import { keyNorm, keyText, type KeyNorm } from './key.js';
import { sortRows, type SortKey } from './sort.js';
import { limitRows } from './limit.js';
import { materialize } from './scan.js';
import { compile, runCompiled } from '../compile/pipeline.js';
import { runParallel } from '../compile/parallel.js';
import { recordScan } from '../counters.js';
import { ctidColumn, isCtidField } from '../ctid.js';
import { tick, yieldIfDue, yieldNow } from '../context.js';
import { windowAgg } from './window/window-agg.js';
import { isWorkMemExceeded } from '../errors.js';
import { hasCteState, scanCte, scanWorkTable, withCteState } from './cte-scan.js';
import { runRecursiveUnion } from './set/recursive-union.js';
import { runSetOp } from './set/set-op.js';
import { scanValues } from './values-scan.js';
import { uniqueRuns } from './unique.js';

/**
 * What EXPLAIN ANALYZE shows (../explain.ts), filled in by `run` when given: the scan's
 * counters, and rows and times (ms since the start) per stage.
 */
export interface RunTrace {
  start: number;
  stats: ScanStats | null;
  /** Rows leaving the scan node (after the residual filter). */
  scanRows: number;
  scanFirst: number;
  scanLast: number;
  /** Groups leaving the aggregate (after HAVING). */
  aggRows: number;
  aggAt: number;
  /** Rows before LIMIT/OFFSET, and after. */
  sortedRows: number;
  outRows: number;
  finishAt: number;
  /** Relational plans: rows and times per RelNode (./rel.ts). */
  nodes: Map<object, NodeTrace>;
  /** UNION plans: the traces of both sides. */
  sides?: [RunTrace, RunTrace];
  /** Relational plans: the traces of subqueries in FROM, by RelNode. */
  subs?: Map<object, RunTrace>;
}

export function newTrace(): RunTrace {
  return { start: performance.now(), stats: null, scanRows: 0, scanFirst: 0, scanLast: 0, aggRows: 0, aggAt: 0, sortedRows: 0, outRows: 0, finishAt: 0, nodes: new Map() };
}

/** Plans and runs any bound query (subqueries in FROM, UNION sides). */
export function runQuery(q: BoundQuery, trace?: RunTrace): Promise<QueryResult> {
  return run(planQuery(q), trace);
}

export async function run(p: Plan, trace?: RunTrace): Promise<QueryResult> {
  // The outermost run of a statement holds its CTE rows and work tables (./cte-scan.ts).
  if (!hasCteState()) return withCteState(() => run(p, trace));
  const t = trace ?? null;
  const now = () => (t === null ? 0 : performance.now() - t.start);
  switch (p.kind) {
    case 'relational':
      return runRelational(p, t);
    case 'union':
      return runUnion(p, t);
    case 'init-plans':
      return run(planQuery(await resolveInitPlans(p.query, runQuery)), trace);
    case 'cte-scan':
      return scanCte(p.query, runQuery);
    case 'worktable':
      return scanWorkTable(p.query);
    case 'recursive-union':
      return runRecursiveUnion(p.query, runQuery);
    case 'values':
      return scanValues(p.query);
    case 'stats-aggregate': {
      const q = p.query;
      const r = await q.table.aggregate(p.specs, p.where, { interrupt: yieldIfDue });
      recordScan(r.stats);
      const cols = r.values.map((v, j) => [engineValue(v, q.grouping!.aggs[j]!.type.id, r.types[j]!)]);
      if (t !== null) Object.assign(t, { stats: r.stats, scanRows: 1, scanFirst: now(), scanLast: now(), aggRows: 1, aggAt: now() });
      return finish(q, [{ rows: 1, cols }], true, t);
    }
    case 'top-n': {
      const q = p.query;
      const r = await q.table.topN({
        orderBy: p.orderBy,
        limit: q.limit!,
        offset: q.offset,
        columns: q.columns.map((f) => f.name),
        interrupt: yieldIfDue,
        ...(p.where !== undefined ? { where: p.where } : {}),
      });
      recordScan(r.stats);
      const b = materialize(r.batch, q.columns);
      if (t !== null) Object.assign(t, { stats: r.stats, scanRows: b.rows, scanFirst: now(), scanLast: now() });
      return finish(q, [b], false, t);
    }
    case 'pipeline': {
      const q = p.query;
      const fused = await runFused(p, t, now);
      if (fused !== null) return fused;
      // ctid is no stored column: it is computed from each batch's position (../ctid.ts).
      const ctidSlot = q.columns.findIndex(isCtidField);
      const stored = ctidSlot < 0 ? q.columns : q.columns.filter((f) => !isCtidField(f));
      const names = stored.length > 0 ? stored.map((f) => f.name) : [q.table.fields[0]!.name];
      const fields = stored.length > 0 ? stored : [q.table.fields[0]!];
      const scan = q.table.scan({ columns: names, ...(p.where !== undefined ? { where: p.where } : {}) });
      const agg = q.grouping === null ? null : aggregateOf(q.grouping);
      const batches: RowBatch[] = [];
      await scan.begin();
      try {
        for (let sb = await scan.next(); sb !== null; sb = await scan.next()) {
          await yieldIfDue();
          let b = materialize(sb, fields);
          if (ctidSlot >= 0) {
            const cols = stored.length > 0 ? [...b.cols] : [];
            cols.splice(ctidSlot, 0, ctidColumn(sb, scan.position));
            b = { rows: b.rows, cols };
          }
          if (p.residual !== null) b = filter(b, p.residual);
          if (t !== null) {
            if (t.scanRows === 0) t.scanFirst = now();
            t.scanRows += b.rows;
          }
          if (b.rows === 0) continue;
          if (agg !== null) await agg.add(b);
          else batches.push(b);
        }
      } finally {
        await scan.end();
      }
      recordScan(scan.stats);
      if (t !== null) Object.assign(t, { stats: scan.stats, scanLast: now() });
      return agg !== null ? finishGroupBatches(q, agg, t, now) : finish(q, batches, true, t);
    }
    default:
      return unreachable(p);
  }
}

/**
 * The pipeline compiled to one generated loop per batch (../compile/pipeline.ts), or null
 * when generation does not cover the plan or a value left the exact range: then the
 * interpreter below runs it.
 */
async function runFused(p: Extract<Plan, { kind: 'pipeline' }>, t: RunTrace | null, now: () => number): Promise<QueryResult | null> {
  const c = compile(p);
  if (c === null) return null;
  try {
    return await runFusedCompiled(p, c, t, now);
  } catch (e) {
    // The generated loop's groups cannot spill: past work_mem the interpreter's aggregate, which can, runs it.
    if (isWorkMemExceeded(e)) return null;
    throw e;
  }
}

async function runFusedCompiled(p: Extract<Plan, { kind: 'pipeline' }>, c: NonNullable<ReturnType<typeof compile>>, t: RunTrace | null, now: () => number): Promise<QueryResult | null> {
  const q = p.query;
  const onBatch = (rows: number): void => {
    if (t === null) return;
    if (t.scanRows === 0) t.scanFirst = now();
    t.scanRows += rows;
  };
  const r = (await runParallel(p, c, onBatch)) ?? (await runCompiled(p, c, onBatch));
  if (r === null) {
    if (t !== null) t.scanRows = 0;
    return null;
  }
  recordScan(r.stats);
  if (t !== null) Object.assign(t, { stats: r.stats, scanLast: now() });
  return q.grouping === null ? finish(q, r.batches, true, t) : finishGroups(q, r.batches[0]!, t, now);
}

/**
 * A relational plan: the join tree's wide batches (./rel.ts) feed the same aggregate, HAVING,
 * projection, sort and limit as a single-table pipeline.
 */
async function runRelational(p: Extract<Plan, { kind: 'relational' }>, t: RunTrace | null): Promise<QueryResult> {
  const q = p.query;
  const now = () => (t === null ? 0 : performance.now() - t.start);
  const agg = q.grouping === null ? null : aggregateOf(q.grouping);
  const batches: RowBatch[] = [];
  const runSub = (sub: BoundQuery, node: object): Promise<QueryResult> => {
    if (t === null) return runQuery(sub);
    const st = { ...newTrace(), start: t.start };
    (t.subs ??= new Map()).set(node, st);
    return runQuery(sub, st);
  };
  const ctx: RelContext = { width: q.columns.length, runQuery: runSub, trace: t === null ? null : { start: t.start, nodes: t.nodes } };
  // ORDER BY and DISTINCT over the join's stream, in bounded memory (./finish-stream.ts).
  if (agg === null && streamsFinish(q)) return finishStream(q, execRel(p.root, ctx), t === null ? null : (sorted, out) => Object.assign(t, { sortedRows: sorted, outRows: out, finishAt: performance.now() - t.start }));
  // LIMIT alone stops reading once its rows are there (generate_series(1, 1e8) LIMIT 10 is never built whole).
  const enough = agg === null && q.limit !== null && q.orderBy.length === 0 && !q.distinct && q.windows === undefined ? q.limit + q.offset : Infinity;
  let read = 0;
  for await (const b of execRel(p.root, ctx)) {
    if (agg !== null) await agg.add(b);
    else batches.push(b);
    read += b.rows;
    if (read >= enough) break;
  }
  return agg !== null ? finishGroupBatches(q, agg, t, now) : finish(q, batches, true, t);
}

/**
 * UNION [ALL]: each side's rows, cast to the union's column types (an unknown literal side is
 * text, cast by its input function as PostgreSQL resolves it), deduplicated for UNION, then
 * ORDER BY (output columns) and LIMIT/OFFSET.
 */
async function runUnion(p: Extract<Plan, { kind: 'union' }>, t: RunTrace | null): Promise<QueryResult> {
  const q = p.query;
  const sides: [RunTrace, RunTrace] | undefined = t === null ? undefined : [{ ...newTrace(), start: t.start }, { ...newTrace(), start: t.start }];
  if (t !== null && sides !== undefined) t.sides = sides;
  const results = [await run(p.left, sides?.[0]), await run(p.right, sides?.[1])];
  if (q.setOp !== undefined) return runSetOp(q, results[0]!, results[1]!);
  let rows: Value[][] = [];
  for (const r of results) {
    const casts = q.fields.map((f, i) => {
      const from = r.fields[i]!.type;
      return from.id === f.type.id && from.id !== 'bpchar' ? null : ([from, f.type] as const);
    });
    for (let k = 0; k < r.rows.length; k++) {
      if ((k & 4095) === 0 && tick()) await yieldNow();
      rows.push(r.rows[k]!.map((v, i) => (v === null || casts[i] === null ? v : castValue(casts[i]![0], casts[i]![1], v))));
    }
  }
  if (!q.all) rows = await distinctRows(rows, q.fields.map((f) => keyNorm(f.type)));
  if (q.orderBy.length > 0) await sortRows(rows, q.orderBy.map((o) => ({ index: o.index, type: q.fields[o.index]!.type, desc: o.desc, nullsFirst: o.nullsFirst })));
  if (t !== null) t.sortedRows = rows.length;
  rows = limitRows(rows, q.limit, q.offset);
  if (t !== null) Object.assign(t, { outRows: rows.length, finishAt: performance.now() - t.start });
  return { command: 'SELECT', fields: q.fields.map((f) => ({ name: f.name, type: f.type })), rows };
}

/** What `finish` reads of a query: its outputs, order and limits. */
type Finishing = Pick<BoundSelect, 'targets' | 'orderBy' | 'limit' | 'offset' | 'distinct' | 'windows' | 'distinctOn'>;

/** The groups of an aggregate (keys, then aggregates): HAVING, then projection, sort, LIMIT. */
function finishGroups(q: Finishing & Pick<BoundSelect, 'having'>, groups: RowBatch, t: RunTrace | null, now: () => number): Promise<QueryResult> {
  const g = q.having === null ? groups : filter(groups, q.having);
  if (t !== null) Object.assign(t, { aggRows: g.rows, aggAt: now() });
  return finish(q, [g], true, t);
}

/** finishGroups over an aggregate's batches, HAVING applied batch by batch: a spilled aggregate's groups are never all in memory at once. */
async function finishGroupBatches(q: Finishing & Pick<BoundSelect, 'having'>, agg: Aggregator, t: RunTrace | null, now: () => number): Promise<QueryResult> {
  const kept: RowBatch[] = [];
  for await (const b of agg.batches()) kept.push(q.having === null ? b : filter(b, q.having));
  if (t !== null) Object.assign(t, { aggRows: kept.reduce((n, b) => n + b.rows, 0), aggAt: now() });
  return finish(q, kept, true, t);
}

/**
 * Projection, then (when `order`) sort and LIMIT/OFFSET. Each step over all rows passes the
 * interrupt point (../context.ts): a result of millions of rows is no single synchronous stretch.
 */
async function finish(q: Finishing, batches0: RowBatch[], order: boolean, t: RunTrace | null): Promise<QueryResult> {
  // Window functions (./window/window-agg.ts) run over the rows HAVING left, before projection.
  const batches = q.windows === undefined ? batches0 : [await windowAgg(batches0, q.windows)];
  const hidden: Expr[] = order ? q.orderBy.map((o) => o.expr) : [];
  const exprs = [...q.targets.map((t) => t.expr), ...hidden];
  let rows: Value[][] = [];
  for (const b of batches) {
    await yieldIfDue();
    const out = project(b, exprs);
    for (let i = 0; i < out.rows; i++) rows.push(out.cols.map((c) => c[i]!));
  }
  if (q.distinct) rows = await distinctRows(rows, q.targets.map((t) => keyNorm(t.expr.type)));
  if (order) {
    if (t !== null) t.sortedRows = rows.length;
    if (hidden.length > 0) {
      const keys: SortKey[] = q.orderBy.map((o, k) => ({ index: q.targets.length + k, type: o.expr.type, desc: o.desc, nullsFirst: o.nullsFirst }));
      await sortRows(rows, keys, q.limit === null || q.distinctOn !== undefined ? undefined : q.limit + q.offset);
    }
    if (q.distinctOn !== undefined) rows = await uniqueRuns(rows, q.targets.length, q.orderBy.slice(0, q.distinctOn.length).map((o) => o.expr.type));
    rows = limitRows(rows, q.limit, q.offset);
    if (hidden.length > 0) {
      const cut = new Array<Value[]>(rows.length);
      for (let i = 0; i < rows.length; i++) {
        if ((i & 4095) === 0 && tick()) await yieldNow();
        cut[i] = rows[i]!.slice(0, q.targets.length);
      }
      rows = cut;
    }
  } else if (t !== null) t.sortedRows = rows.length;
  if (t !== null) Object.assign(t, { outRows: rows.length, finishAt: performance.now() - t.start });
  return { command: 'SELECT', fields: q.targets.map((t) => (t.declared === undefined ? { name: t.name, type: t.expr.type } : { name: t.name, type: t.expr.type, declared: t.declared })), rows };
}

/** SELECT DISTINCT: the first of each set of equal rows (ORDER BY keys are output columns, so equal too). */
async function distinctRows(rows: Value[][], norms: readonly KeyNorm[]): Promise<Value[][]> {
  const seen = new Set<string>();
  const out: Value[][] = [];
  for (let j = 0; j < rows.length; j++) {
    if ((j & 4095) === 0 && tick()) await yieldNow();
    const r = rows[j]!;
    let k = '';
    for (let i = 0; i < norms.length; i++) k += `${keyText(r[i]!, norms[i]!)}\u0000`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(r);
  }
  return out;
}

/** Table.aggregate gives min/max of numeric(p,s) as unscaled bigints; the engine wants text. */
function engineValue(v: Value, engineTypeId: string, stored: PgType): Value {
  if (v !== null && engineTypeId === 'numeric' && typeof v === 'bigint') return formatDecimal(v, stored.scale ?? 0);
  return v;
}

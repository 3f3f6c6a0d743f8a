/**
 * EXPLAIN [ANALYZE] SELECT …: the plan (./plan.ts) as PostgreSQL-shaped lines, one result
 * column "QUERY PLAN" (DESIGN.md "Interfaces"):
 *
 *   Limit
 *     ->  Sort
 *           Sort Key: g, id
 *           ->  Seq Scan on t
 *                 Pushed Filter: id < 100
 *                 Filter: ((i4 + i2) > 5)
 *                 Row Groups: 3 total, 2 skipped by predicate, 0 skipped by bound, 0 answered from statistics, 1 read
 *
 * Every scan node has the `Row Groups:` line. Without ANALYZE its counts are what the
 * snapshot's statistics decide before reading (bounds are only known while running, so 0);
 * with ANALYZE they are the scan's own counters (ScanStats), each node adds `(actual
 * time=first..last rows=n loops=1)`, and the output ends with `Execution Time: X ms`.
 * Each node line carries PostgreSQL's `  (cost=S..T rows=R width=W)` (./cost.ts), the estimate
 * postgres_fdw's use_remote_estimate reads from the first line; `EXPLAIN (COSTS OFF)` omits it.
 */
import { bindPredicate, classify, describePredicate, type Predicate, type ScanStats, groupStats } from '../scan/index.js';
import type { Table, Database } from '../table/index.js';
import { type Field, internalError, unreachable } from '../types/index.js';
import { type RelNode, estimateQuery } from './join-plan.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, str } from './parse.js';
import { bindQuery, type BoundJoinSelect, type BoundSelect } from './bind.js';
import { type Plan, planQuery } from './plan.js';
import type { Expr } from './expr.js';
import type { WindowClause } from './ir.js';
import { newTrace, run, runQuery, type RunTrace } from './exec/run.js';
import { describeGroupingSets } from './exec/aggregate/grouping-sets.js';
import { resolveAllInitPlans } from './exec/init-plans.js';
import { holdsLateralParams } from './ir.js';
import { toText } from './exec/kernels.js';
import { notSupported } from './errors.js';
import { T } from './types.js';
import type { QueryResult } from './result.js';
import { isCtidField } from './ctid.js';
import { type Cost, COST, aggregateCost, residualSelectivity, typeWidth, columnDistinct, DEFAULT_DISTINCT, estimateScan, formatCost, groupCount, limitCost, scanCost, sortCost, widthOf } from './cost.js';
import { isLibraryFn, libraryName } from './functions/registry.js';

interface Node {
  name: string;
  details: string[];
  /** ANALYZE: rows out and the times of the first and last row (ms from the start). */
  actual?: { rows: number; first: number; last: number };
  /** ANALYZE: the node never ran (an inner join whose build side was empty). */
  never?: boolean;
  children?: Node[];
  /** The planner's estimate (./cost.ts). */
  cost?: Cost;
}

export async function explain(db: Database, s: AstFields): Promise<QueryResult> {
  let analyze = false;
  let costs = true;
  for (const o of (s.options ?? []) as AstNode[]) {
    const d = fieldsOf(o);
    const name = (d.defname as string).toLowerCase();
    const value = d.arg === undefined ? 'true' : kindOf(d.arg) === 'String' ? str(d.arg).toLowerCase() : String(fieldsOf(d.arg).ival ?? fieldsOf(d.arg).boolval ?? '');
    const on = value !== 'false' && value !== 'off' && value !== '0';
    if (name === 'analyze') analyze = on;
    else if (name === 'costs') costs = on;
    else if (name === 'format' && value !== 'text') throw notSupported(`EXPLAIN (FORMAT ${value.toUpperCase()})`);
    else if (!['verbose', 'costs', 'timing', 'summary', 'buffers', 'settings', 'wal', 'format'].includes(name)) throw notSupported(`EXPLAIN option ${name}`);
  }
  const stmt = s.query as AstNode;
  if (kindOf(stmt) !== 'SelectStmt') throw notSupported(`EXPLAIN of ${kindOf(stmt).replace(/Stmt$/, '').toUpperCase()}`);
  // The InitPlans run first (as PostgreSQL's EXPLAIN does not): their rows decide the plan shown.
  const p = planQuery(await resolveAllInitPlans(await bindQuery(db, stmt), runQuery));
  let trace: RunTrace | null = null;
  if (analyze) {
    trace = newTrace();
    await run(p, trace);
  }
  const lines = render(describePlan(p, trace), costs);
  if (trace !== null) lines.push(`Execution Time: ${trace.finishAt.toFixed(3)} ms`);
  return { command: 'EXPLAIN', tag: 'EXPLAIN', fields: [{ name: 'QUERY PLAN', type: T.text }], rows: lines.map((l) => [l]) };
}

/** The plan's node tree, root first. Exported for tests. */
export function describePlan(p: Plan, t: RunTrace | null): Node {
  switch (p.kind) {
    case 'relational':
      return describeRelational(p, t);
    case 'union':
      return describeUnion(p, t);
    case 'init-plans':
      throw internalError('internal error: EXPLAIN describes a plan whose InitPlans have run (exec/init-plans.ts resolveAllInitPlans)');
    case 'cte-scan':
    case 'worktable':
    case 'recursive-union':
    case 'values':
      return describeRows(p);
    default:
      return describeSingle(p, t);
  }
}

const at = (t: RunTrace | null, rows: number, first: number, last: number) => (t === null ? {} : { actual: { rows, first, last } });

function rowGroupsLine(stats: ScanStats): string {
  return `Row Groups: ${stats.groupsTotal} total, ${stats.groupsSkippedByPredicate} skipped by predicate, ${stats.groupsSkippedByBound} skipped by bound, ${stats.groupsAnsweredFromStats} answered from statistics, ${stats.groupsRead} read`;
}

function sortKeyLine(orderBy: readonly { expr: Expr; desc: boolean; nullsFirst: boolean }[], names: readonly string[]): string {
  return `Sort Key: ${orderBy.map((o) => `${sql(o.expr, names)}${o.desc ? ' DESC' : ''}${o.nullsFirst !== o.desc ? (o.nullsFirst ? ' NULLS FIRST' : ' NULLS LAST') : ''}`).join(', ')}`;
}

/** Aggregate, DISTINCT, Sort and Limit over `node`, the same for single-table and relational plans. */
function describeTop(q: Omit<BoundSelect, 'table' | 'columns'>, node0: Node, scanNames: readonly string[], t: RunTrace | null, ndv: (e: Expr, rows: number) => number): Node {
  let node = node0;
  const outWidth = widthOf(q.targets.map((x) => x.expr.type));
  let cost: Cost = node0.cost!;
  const aggNames = q.grouping === null ? [] : [...q.grouping.keys.map((k) => sql(k, scanNames)), ...q.grouping.aggs.map((a) => `${a.fn}(${a.distinct ? 'DISTINCT ' : ''}${a.arg === null ? '*' : sql(a.arg, scanNames)})`)];
  const outNames = q.grouping === null ? scanNames : aggNames;
  if (q.grouping !== null) {
    const keys = q.grouping.keys.map((k) => sql(k, scanNames));
    const groups = keys.length === 0 ? 1 : groupCount(q.grouping.keys.map((k) => ndv(k, cost.rows)), cost.rows);
    cost = aggregateCost(cost, groups, outWidth, Math.max(1, q.grouping.keys.length + q.grouping.aggs.length));
    if (q.having !== null && keys.length > 0) cost = { ...cost, rows: cost.rows / 3 };
    const sets = q.grouping.sets === undefined ? null : describeGroupingSets(q.grouping.sets, keys);
    node = {
      cost,
      name: sets?.name ?? (keys.length === 0 ? 'Aggregate' : 'HashAggregate'),
      details: [...(sets?.details ?? (keys.length === 0 ? [] : [`Group Key: ${keys.join(', ')}`])), ...(q.having === null ? [] : [`Filter: ${sql(q.having, aggNames)}`])],
      children: [node],
      ...at(t, t?.aggRows ?? 0, t?.aggAt ?? 0, t?.aggAt ?? 0),
    };
  }
  if (q.windows !== undefined) node = describeWindows(q.windows, node, outNames, t);
  if (q.distinct) {
    cost = aggregateCost(cost, groupCount(q.targets.map(() => DEFAULT_DISTINCT), cost.rows), outWidth, q.targets.length);
    node = { cost, name: 'HashAggregate', details: [`Group Key: ${q.targets.map((x) => sql(x.expr, outNames)).join(', ')}`], children: [node], ...at(t, t?.sortedRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0) };
  }
  if (q.grouping === null && !q.distinct) cost = { ...cost, width: outWidth };
  if (q.orderBy.length > 0) {
    cost = sortCost(cost, q.limit === null ? null : q.limit + q.offset);
    node = { cost, name: 'Sort', details: [sortKeyLine(q.orderBy, outNames)], children: [node], ...at(t, t?.sortedRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0) };
  }
  if (q.distinctOn !== undefined) node = { cost, name: 'Unique', details: [], children: [node], ...at(t, t?.sortedRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0) };
  if (q.limit !== null || q.offset !== 0) node = { cost: limitCost(cost, q.limit, q.offset), name: 'Limit', details: [], children: [node], ...at(t, t?.outRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0) };
  else if (node === node0) node = { ...node, cost };
  return node;
}

/**
 * WindowAgg over Sort, PostgreSQL's shape: one Sort (by PARTITION BY, then ORDER BY keys) and
 * one WindowAgg per distinct sort of the windows, the first innermost; no Sort for a window
 * with neither. Rows and times of ANALYZE are the finishing step's.
 */
function describeWindows(w: WindowClause, node0: Node, names: readonly string[], t: RunTrace | null): Node {
  let node = node0;
  const seen = new Set<string>();
  for (const spec of w.specs) {
    const keys = [...spec.partition.map((expr) => ({ expr, desc: false, nullsFirst: false })), ...spec.order];
    const line = keys.length === 0 ? '' : sortKeyLine(keys, names);
    if (seen.has(line)) continue;
    seen.add(line);
    const cost = node.cost!;
    const at = t === null ? {} : { actual: { rows: t.sortedRows, first: t.finishAt, last: t.finishAt } };
    if (keys.length > 0) node = { cost: sortCost(cost, null), name: 'Sort', details: [line], children: [node], ...at };
    node = { cost: { ...node.cost!, total: node.cost!.total + cost.rows * COST.operator }, name: 'WindowAgg', details: [], children: [node], ...at };
  }
  return node;
}

function describeSingle(p: Exclude<Plan, { kind: 'relational' | 'union' | 'init-plans' | 'cte-scan' | 'worktable' | 'recursive-union' | 'values' }>, t: RunTrace | null): Node {
  const q = p.query;
  const pushed = p.where === undefined ? null : describePredicate(bindPredicate(p.where, q.table.fields, q.table.name));
  const rowGroups = rowGroupsLine(t?.stats ?? estimate(q.table, p.where, p.kind === 'stats-aggregate'));
  const scanNames = q.columns.map((f) => f.name);
  const scanAt = at(t, t?.scanRows ?? 0, t?.scanFirst ?? 0, t?.scanLast ?? 0);
  // ctid is a 6-byte tid in PostgreSQL (text in the engine).
  const scanWidth = q.columns.reduce((w, f) => w + (isCtidField(f) ? 6 : typeWidth(f.type)), 0);
  let tableRows = 0;
  for (const f of q.table.snapshot.files) for (const g of f.groups) tableRows += g.live;
  const ndv = (e: Expr, rows: number): number => (e.kind === 'column' ? Math.min(rows, columnDistinct(q.table, q.columns[e.slot]!, tableRows)) : Math.min(rows, DEFAULT_DISTINCT));
  const residualSel = residualSelectivity(
    p.kind === 'pipeline' ? p.residual : null,
    (c) => ndv(c, tableRows),
    (c) => (c.kind === 'column' && !isCtidField(q.columns[c.slot]!) ? { table: q.table, field: q.columns[c.slot]! } : undefined),
  );
  const est = estimateScan(q.table, p.where, residualSel, p.kind === 'stats-aggregate');
  switch (p.kind) {
    case 'stats-aggregate': {
      const sc = scanCost(est, scanWidth);
      const scan: Node = {
        cost: sc, name: `Statistics Scan on ${q.table.name}`, details: [...(pushed === null ? [] : [`Pushed Filter: ${pushed}`]), rowGroups], ...scanAt };
      return { cost: aggregateCost(sc, 1, widthOf(q.targets.map((x) => x.expr.type)), 0), name: 'Aggregate', details: [], children: [scan], ...at(t, 1, t?.aggAt ?? 0, t?.aggAt ?? 0) };
    }
    case 'top-n': {
      const n = Math.min(est.rowsOut, q.limit! + q.offset);
      const startup = est.rowsRead * COST.readRow;
      const sc: Cost = { startup, total: startup + n * COST.returnRow, rows: n, width: widthOf(q.targets.map((x) => x.expr.type)) };
      const scan: Node = { cost: sc, name: `Top-N Scan on ${q.table.name}`, details: [sortKeyLine(q.orderBy, scanNames), ...(pushed === null ? [] : [`Pushed Filter: ${pushed}`]), rowGroups], ...scanAt };
      return { cost: limitCost(sc, q.limit, q.offset), name: 'Limit', details: [], children: [scan], ...at(t, t?.outRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0) };
    }
    case 'pipeline': {
      const scan: Node = {
        cost: scanCost(est, scanWidth),
        name: `Seq Scan on ${q.table.name}`,
        details: [...(pushed === null ? [] : [`Pushed Filter: ${pushed}`]), ...(p.residual === null ? [] : [`Filter: ${sql(p.residual, scanNames)}`]), rowGroups],
        ...scanAt,
      };
      return describeTop(q, scan, scanNames, t, ndv);
    }
    default:
      return unreachable(p);
  }
}

/** A relational plan: the join tree in PostgreSQL's shape (Hash Join over a Hash of the build side). */
function describeRelational(p: Extract<Plan, { kind: 'relational' }>, t: RunTrace | null): Node {
  const q = p.query;
  const names = q.columns.map((c) => `${q.leaves[c.leaf]!.alias}.${q.leaves[c.leaf]!.fields[fieldIndex(q, c.leaf, c.field.fieldId)]?.name ?? c.field.name}`);
  // Where each slot comes from, for distinct-value estimates of join and group keys.
  const slotSource = new Map<number, { table: Table; field: Field; rows: number }>();
  const collect = (n: RelNode): void => {
    if (n.kind === 'scan') {
      let rows = 0;
      for (const f of n.table.snapshot.files) for (const g of f.groups) rows += g.live;
      n.slots.forEach((slot, k) => slotSource.set(slot, { table: n.table, field: n.fields[k]!, rows }));
    } else if (n.kind === 'join') {
      collect(n.probe);
      collect(n.build);
    }
  };
  collect(p.root);
  const ndv = (e: Expr, rows: number): number => {
    const src = e.kind === 'column' ? slotSource.get(e.slot) : undefined;
    return src === undefined ? Math.min(rows, DEFAULT_DISTINCT) : Math.min(rows, columnDistinct(src.table, src.field, src.rows));
  };
  const widthOfSlots = (slots: readonly number[]) => widthOf(slots.map((s) => q.columns[s]?.field.type).filter((x) => x !== undefined));
  const filtered = (c: Cost, f: Expr | null): Cost => (f === null ? c : { ...c, rows: c.rows / 3 });
  const rel = (n: RelNode): Node => {
    const tr = t?.nodes.get(n);
    const actual = t === null ? {} : tr === undefined ? { never: true } : { actual: { rows: tr.rows, first: tr.first, last: tr.last } };
    switch (n.kind) {
      case 'scan': {
        const pushed = n.where === undefined ? null : describePredicate(bindPredicate(n.where, n.table.fields, n.table.name));
        return {
          cost: scanCost(estimateScan(n.table, n.where, residualSelectivity(n.filter, (c) => ndv(c, Infinity), (c) => (c.kind === 'column' ? slotSource.get(c.slot) : undefined)), false), widthOfSlots(n.slots)),
          name: `Seq Scan on ${n.table.name}${n.alias !== n.table.name ? ` ${n.alias}` : ''}`,
          details: [...(pushed === null ? [] : [`Pushed Filter: ${pushed}`]), ...(n.filter === null ? [] : [`Filter: ${sql(n.filter, names)}`]), rowGroupsLine(tr?.stats ?? estimate(n.table, n.where, false))],
          ...actual,
        };
      }
      case 'function': {
        const src = q.leaves[n.leaf]!.source;
        const fname = src.kind === 'function' ? src.calls[0]!.name : '';
        return { cost: { startup: 0, total: n.est * COST.returnRow, rows: n.est, width: widthOfSlots(n.slots) }, name: `Function Scan on ${fname}${fname === n.alias ? '' : ` ${n.alias}`}`, details: n.filter === null ? [] : [`Filter: ${sql(n.filter, names)}`], ...actual };
      }
      case 'lateral': {
        const l = rel(n.left);
        // A dependent subquery runs per distinct outer tuple (exec/dependent-join.ts), planned then.
        const r = n.right.kind === 'subquery' && holdsLateralParams(n.right.query) ? { cost: { startup: 0, total: COST.returnRow, rows: 1, width: widthOfSlots(n.right.slots) }, name: `Memoize`, details: [`Cache Key: ${n.args.map((a) => sql(a, names)).join(', ')}`, `Subquery: ${n.right.alias}`] } : rel(n.right);
        const rows = l.cost!.rows * r.cost!.rows;
        const details = [...(n.joinFilter === null ? [] : [`Join Filter: ${sql(n.joinFilter, names)}`]), ...(n.filter === null ? [] : [`Filter: ${sql(n.filter, names)}`])];
        return { cost: { startup: l.cost!.startup, total: l.cost!.total + l.cost!.rows * r.cost!.total, rows, width: l.cost!.width + r.cost!.width }, name: n.outer ? 'Nested Loop Left Join' : 'Nested Loop', details, children: [l, r], ...actual };
      }
      case 'result':
        return { cost: { startup: 0, total: COST.returnRow, rows: 1, width: 0 }, name: 'Result', details: n.filter === null ? [] : [`One-Time Filter: ${sql(n.filter, names)}`], ...actual };
      case 'subquery': {
        const child = describePlan(planQuery(n.query), t?.subs?.get(n) ?? null);
        // A CTE, work table or VALUES list is scanned by its own node, named as PostgreSQL names it.
        if (n.query.kind === 'cte-scan' || n.query.kind === 'worktable' || n.query.kind === 'values')
          return { ...child, cost: filtered(child.cost!, n.filter), name: `${child.name}${n.query.kind === 'values' || n.alias === child.name.replace(/^.* on /, '') ? '' : ` ${n.alias}`}`, details: [...child.details, ...(n.filter === null ? [] : [`Filter: ${sql(n.filter, names)}`])], ...actual };
        return {
          cost: filtered(child.cost!, n.filter),
          name: `Subquery Scan on ${n.alias}`,
          details: n.filter === null ? [] : [`Filter: ${sql(n.filter, names)}`],
          children: [child],
          ...actual,
        };
      }
      case 'join': {
        const kind = n.semi ? ' Semi Join' : n.anti ? ' Anti Join' : n.preserveProbe && n.preserveBuild ? ' Full Join' : n.preserveProbe ? ' Left Join' : n.preserveBuild ? ' Right Join' : n.probeKeys.length > 0 ? ' Join' : '';
        const conds = n.probeKeys.map((k, i) => `(${sql(k, names)} = ${sql(n.buildKeys[i]!, names)})`);
        const details = [
          ...(conds.length === 0 ? [] : [`Hash Cond: ${conds.length === 1 ? conds[0]! : `(${conds.join(' AND ')})`}`]),
          ...(n.joinFilter === null ? [] : [`Join Filter: ${sql(n.joinFilter, names)}`]),
          ...(n.filter === null ? [] : [`Filter: ${sql(n.filter, names)}`]),
        ];
        const build = rel(n.build);
        const probe = rel(n.probe);
        const pc = probe.cost!;
        const bc = build.cost!;
        const keyed = n.probeKeys.length > 0;
        let rows = keyed
          ? (pc.rows * bc.rows) / Math.max(1, ...n.probeKeys.map((k) => ndv(k, pc.rows)), ...n.buildKeys.map((k) => ndv(k, bc.rows)))
          : pc.rows * bc.rows;
        if (n.semi || n.anti) rows = pc.rows / 2;
        if (n.preserveProbe) rows = Math.max(rows, pc.rows);
        if (n.preserveBuild) rows = Math.max(rows, bc.rows);
        if (n.joinFilter !== null) rows /= 3;
        if (n.filter !== null) rows /= 3;
        const width = n.semi || n.anti ? pc.width : pc.width + bc.width;
        const startup = keyed ? bc.total + bc.rows * COST.operator + pc.startup : pc.startup + bc.total;
        const total = keyed ? startup + (pc.total - pc.startup) + pc.rows * COST.operator + rows * COST.returnRow : pc.total + bc.total + pc.rows * bc.rows * COST.operator + rows * COST.returnRow;
        const btr = t?.nodes.get(n.build);
        const inner: Node = n.probeKeys.length > 0 ? { cost: { startup: bc.total, total: bc.total, rows: bc.rows, width: bc.width }, name: 'Hash', details: [], children: [build], ...(btr === undefined ? (t === null ? {} : { never: true }) : { actual: { rows: btr.buildRows ?? btr.rows, first: btr.last, last: btr.last } }) } : build;
        return { cost: { startup, total, rows, width }, name: n.probeKeys.length > 0 ? `Hash${kind}` : `Nested Loop${kind}`, details, children: [probe, inner], ...actual };
      }
      default:
        return unreachable(n);
    }
  };
  return describeTop(q, rel(p.root), names, t, ndv);
}

function fieldIndex(q: BoundJoinSelect, leaf: number, fieldId: number): number {
  const l = q.leaves[leaf]!;
  const fields = l.source.kind === 'table' ? l.source.table.fields : l.fields;
  return fields.findIndex((f) => f.fieldId === fieldId);
}

/** UNION ALL is an Append of both sides; UNION adds a HashAggregate over all columns. */
function describeUnion(p: Extract<Plan, { kind: 'union' }>, t: RunTrace | null): Node {
  const q = p.query;
  const names = q.fields.map((f) => f.name);
  const left = describePlan(p.left, t?.sides?.[0] ?? null);
  const right = describePlan(p.right, t?.sides?.[1] ?? null);
  const lc = left.cost!;
  const rc = right.cost!;
  let cost: Cost = { startup: lc.startup, total: lc.total + rc.total, rows: lc.rows + rc.rows, width: Math.max(lc.width, rc.width) };
  let node: Node = { cost, name: 'Append', details: [], children: [left, right], ...at(t, t?.sortedRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0) };
  // INTERSECT / EXCEPT: PostgreSQL's HashSetOp over the Append of both sides.
  if (q.setOp !== undefined) node = { cost: { ...cost, rows: Math.max(1, lc.rows / 2) }, name: `HashSetOp ${q.setOp === 'intersect' ? 'Intersect' : 'Except'}${q.all ? ' All' : ''}`, details: [], children: [node], ...at(t, t?.sortedRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0) };
  if (!q.all && q.setOp === undefined) cost = aggregateCost(cost, cost.rows, cost.width, names.length);
  if (!q.all && q.setOp === undefined) node = { cost, name: 'HashAggregate', details: [`Group Key: ${names.join(', ')}`], children: [node], ...at(t, t?.sortedRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0) };
  if (q.orderBy.length > 0) cost = sortCost(cost, q.limit === null ? null : q.limit + q.offset);
  if (q.orderBy.length > 0)
    node = {
      cost,
      name: 'Sort',
      details: [`Sort Key: ${q.orderBy.map((o) => `${names[o.index]}${o.desc ? ' DESC' : ''}${o.nullsFirst !== o.desc ? (o.nullsFirst ? ' NULLS FIRST' : ' NULLS LAST') : ''}`).join(', ')}`],
      children: [node],
      ...at(t, t?.sortedRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0),
    };
  if (q.limit !== null || q.offset !== 0) node = { cost: limitCost(cost, q.limit, q.offset), name: 'Limit', details: [], children: [node], ...at(t, t?.outRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0) };
  return node;
}

/**
 * CTE Scan (with the CTE's plan below it), WorkTable Scan, Recursive Union (non-recursive term,
 * then recursive term) and Values Scan; ANALYZE shows no per-node times for them.
 */
function describeRows(p: Extract<Plan, { kind: 'cte-scan' | 'worktable' | 'recursive-union' | 'values' }>): Node {
  const width = widthOf(p.query.kind === 'cte-scan' ? p.query.cte.fields.map((f) => f.type) : p.query.fields.map((f) => f.type));
  const rows = estimateQuery(p.query);
  const leafCost: Cost = { startup: 0, total: rows * COST.returnRow, rows, width };
  switch (p.kind) {
    case 'cte-scan': {
      const child = describePlan(planQuery(p.query.cte.query), null);
      return { cost: { ...leafCost, total: child.cost!.total + leafCost.total }, name: `CTE Scan on ${p.query.cte.name}`, details: [], children: [child] };
    }
    case 'worktable':
      return { cost: leafCost, name: `WorkTable Scan on ${p.query.name}`, details: [] };
    case 'recursive-union': {
      const a = describePlan(planQuery(p.query.nonRecursive), null);
      const b = describePlan(planQuery(p.query.recursive), null);
      return { cost: { startup: a.cost!.startup, total: a.cost!.total + 10 * b.cost!.total, rows, width }, name: 'Recursive Union', details: [], children: [a, b] };
    }
    case 'values':
      return { cost: leafCost, name: 'Values Scan on "*VALUES*"', details: [] };
    default:
      return unreachable(p);
  }
}

/** Row-group counts the snapshot's statistics decide before reading anything. */
function estimate(table: Table, where: Predicate | undefined, fromStats: boolean): ScanStats {
  const snap = table.snapshot;
  const bound = where === undefined ? null : bindPredicate(where, table.fields, table.name);
  const s = { groupsTotal: 0, groupsSkippedByPredicate: 0, groupsSkippedByBound: 0, groupsAnsweredFromStats: 0, groupsRead: 0, zonesRead: 0, zonesSkippedByPredicate: 0, zonesSkippedByBound: 0, rowsRead: 0, rowsReturned: 0, bytesRead: 0 };
  for (const f of snap.files)
    for (const g of f.groups) {
      s.groupsTotal++;
      const cls = bound === null ? (g.live === 0 ? 'none' : 'all') : classify(bound, g.live, (slot) => groupStats(g, bound.fields[slot]!, snap.options.zoneRows));
      if (cls === 'none') s.groupsSkippedByPredicate++;
      else if (cls === 'all' && fromStats) s.groupsAnsweredFromStats++;
      else s.groupsRead++;
    }
  return s;
}

function render(root: Node, costs: boolean): string[] {
  const out: string[] = [];
  const visit = (n: Node, depth: number): void => {
    const cost = costs && n.cost !== undefined ? `  ${formatCost(n.cost)}` : '';
    const actual = n.actual !== undefined ? `${cost === '' ? '  ' : ' '}(actual time=${n.actual.first.toFixed(3)}..${n.actual.last.toFixed(3)} rows=${n.actual.rows} loops=1)` : n.never === true ? `${cost === '' ? '  ' : ' '}(never executed)` : '';
    out.push(depth === 0 ? `${n.name}${cost}${actual}` : `${' '.repeat(6 * depth - 4)}->  ${n.name}${cost}${actual}`);
    for (const d of n.details) out.push(`${' '.repeat(6 * depth + 2)}${d}`);
    for (const c of n.children ?? []) visit(c, depth + 1);
  };
  visit(root, 0);
  return out;
}

/** An expression as SQL text, PostgreSQL's EXPLAIN style (parenthesized operators). */
function sql(e: Expr, names: readonly string[]): string {
  const go = (x: Expr): string => {
    switch (x.kind) {
      case 'column':
        return names[x.slot] ?? x.name;
      case 'const':
        return x.value === null ? 'NULL' : x.type.id === 'text' || x.type.id === 'date' || x.type.id === 'timestamp' ? `'${toText(x.type, x.value).replace(/'/g, "''")}'::${x.type.id}` : toText(x.type, x.value);
      case 'cast':
        return `(${go(x.arg)})::${x.type.id}`;
      case 'arith':
      case 'cmp':
        return `(${go(x.left)} ${x.op} ${go(x.right)})`;
      case 'neg':
        return `(- ${go(x.arg)})`;
      case 'and':
      case 'or':
        return `(${x.args.map(go).join(x.kind === 'and' ? ' AND ' : ' OR ')})`;
      case 'not':
        return `(NOT ${go(x.arg)})`;
      case 'isNull':
        return `(${go(x.arg)} IS ${x.negated ? 'NOT ' : ''}NULL)`;
      case 'case':
        return `CASE ${x.whens.map((w) => `WHEN ${go(w.cond)} THEN ${go(w.result)}`).join(' ')} ELSE ${go(x.otherwise)} END`;
      case 'coalesce':
        return `COALESCE(${x.args.map(go).join(', ')})`;
      case 'like':
        return `(${go(x.arg)} ${x.negated ? '!' : ''}~~${x.ci ? '*' : ''} ${go(x.pattern)})`;
      case 'func':
        // The library's operators (`->`, `@>` … of functions/json.ts) print infix, as PostgreSQL's do.
        if (isLibraryFn(x.fn) && x.args.length === 2 && !/^[A-Za-z_]/.test(libraryName(x.fn))) return `(${go(x.args[0]!)} ${libraryName(x.fn)} ${go(x.args[1]!)})`;
        return x.fn === 'textcat' ? `(${go(x.args[0]!)} || ${go(x.args[1]!)})` : `${isLibraryFn(x.fn) ? libraryName(x.fn) : x.fn}(${x.args.map(go).join(', ')})`;
      case 'inSet':
        // PostgreSQL's hashed subplan, with the number of values its InitPlan returned.
        return `(hashed ${go(x.arg)} IN (${x.values.length}${x.hasNull ? ' values and NULL' : ' values'}))`;
      case 'subquery':
        return `(InitPlan ${x.id + 1})`;
      case 'element':
        return '(subquery row)';
      case 'param':
        return `$${x.index + 1}`;
      default:
        return unreachable(x);
    }
  };
  return go(e);
}

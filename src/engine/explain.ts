/**
 * EXPLAIN [ANALYZE] SELECT …: the plan (./plan.ts) as PostgreSQL-shaped lines, one result
 * column "QUERY PLAN" (issue 6, DESIGN.md "Interfaces"):
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
 * paxd shows no cost estimates.
 */
import { bindPredicate, classify, describePredicate, type Predicate, type ScanStats } from '../scan/index.js';
import type { Table } from '../database.js';
import type { RelNode } from './join-plan.js';
import { groupStats } from '../scan/unit-stats.js';
import type { Database } from '../database.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, str } from './parse.js';
import { bindQuery, type BoundJoinSelect, type BoundSelect } from './bind.js';
import { type Plan, planQuery } from './plan.js';
import type { Expr } from './expr.js';
import { newTrace, run, type RunTrace } from './exec/run.js';
import { toText } from './exec/kernels.js';
import { notSupported } from './errors.js';
import { T } from './types.js';
import type { QueryResult } from './result.js';

interface Node {
  name: string;
  details: string[];
  /** ANALYZE: rows out and the times of the first and last row (ms from the start). */
  actual?: { rows: number; first: number; last: number };
  /** ANALYZE: the node never ran (an inner join whose build side was empty). */
  never?: boolean;
  children?: Node[];
}

export async function explain(db: Database, s: AstFields): Promise<QueryResult> {
  let analyze = false;
  for (const o of (s.options ?? []) as AstNode[]) {
    const d = fieldsOf(o);
    const name = (d.defname as string).toLowerCase();
    const value = d.arg === undefined ? 'true' : kindOf(d.arg) === 'String' ? str(d.arg).toLowerCase() : String(fieldsOf(d.arg).ival ?? fieldsOf(d.arg).boolval ?? '');
    const on = value !== 'false' && value !== 'off' && value !== '0';
    if (name === 'analyze') analyze = on;
    else if (name === 'format' && value !== 'text') throw notSupported(`EXPLAIN (FORMAT ${value.toUpperCase()})`);
    else if (!['verbose', 'costs', 'timing', 'summary', 'buffers', 'settings', 'wal', 'format'].includes(name)) throw notSupported(`EXPLAIN option ${name}`);
  }
  const stmt = s.query as AstNode;
  if (kindOf(stmt) !== 'SelectStmt') throw notSupported(`EXPLAIN of ${kindOf(stmt).replace(/Stmt$/, '').toUpperCase()}`);
  const p = planQuery(await bindQuery(db, stmt));
  let trace: RunTrace | null = null;
  if (analyze) {
    trace = newTrace();
    await run(p, trace);
  }
  const lines = render(describePlan(p, trace));
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
function describeTop(q: Omit<BoundSelect, 'table' | 'columns'>, node0: Node, scanNames: readonly string[], t: RunTrace | null): Node {
  let node = node0;
  const aggNames = q.grouping === null ? [] : [...q.grouping.keys.map((k) => sql(k, scanNames)), ...q.grouping.aggs.map((a) => `${a.fn}(${a.distinct ? 'DISTINCT ' : ''}${a.arg === null ? '*' : sql(a.arg, scanNames)})`)];
  const outNames = q.grouping === null ? scanNames : aggNames;
  if (q.grouping !== null) {
    const keys = q.grouping.keys.map((k) => sql(k, scanNames));
    node = {
      name: keys.length === 0 ? 'Aggregate' : 'HashAggregate',
      details: [...(keys.length === 0 ? [] : [`Group Key: ${keys.join(', ')}`]), ...(q.having === null ? [] : [`Filter: ${sql(q.having, aggNames)}`])],
      children: [node],
      ...at(t, t?.aggRows ?? 0, t?.aggAt ?? 0, t?.aggAt ?? 0),
    };
  }
  if (q.distinct) node = { name: 'HashAggregate', details: [`Group Key: ${q.targets.map((x) => sql(x.expr, outNames)).join(', ')}`], children: [node], ...at(t, t?.sortedRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0) };
  if (q.orderBy.length > 0) node = { name: 'Sort', details: [sortKeyLine(q.orderBy, outNames)], children: [node], ...at(t, t?.sortedRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0) };
  if (q.limit !== null || q.offset !== 0) node = { name: 'Limit', details: [], children: [node], ...at(t, t?.outRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0) };
  return node;
}

function describeSingle(p: Exclude<Plan, { kind: 'relational' | 'union' }>, t: RunTrace | null): Node {
  const q = p.query;
  const pushed = p.where === undefined ? null : describePredicate(bindPredicate(p.where, q.table.fields, q.table.name));
  const rowGroups = rowGroupsLine(t?.stats ?? estimate(q.table, p.where, p.kind === 'stats-aggregate'));
  const scanNames = q.columns.map((f) => f.name);
  const scanAt = at(t, t?.scanRows ?? 0, t?.scanFirst ?? 0, t?.scanLast ?? 0);
  switch (p.kind) {
    case 'stats-aggregate': {
      const scan: Node = { name: `Statistics Scan on ${q.table.name}`, details: [...(pushed === null ? [] : [`Pushed Filter: ${pushed}`]), rowGroups], ...scanAt };
      return { name: 'Aggregate', details: [], children: [scan], ...at(t, 1, t?.aggAt ?? 0, t?.aggAt ?? 0) };
    }
    case 'top-n': {
      const scan: Node = { name: `Top-N Scan on ${q.table.name}`, details: [sortKeyLine(q.orderBy, scanNames), ...(pushed === null ? [] : [`Pushed Filter: ${pushed}`]), rowGroups], ...scanAt };
      return { name: 'Limit', details: [], children: [scan], ...at(t, t?.outRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0) };
    }
    case 'pipeline': {
      const scan: Node = {
        name: `Seq Scan on ${q.table.name}`,
        details: [...(pushed === null ? [] : [`Pushed Filter: ${pushed}`]), ...(p.residual === null ? [] : [`Filter: ${sql(p.residual, scanNames)}`]), rowGroups],
        ...scanAt,
      };
      return describeTop(q, scan, scanNames, t);
    }
    default: {
      const never: never = p;
      throw new Error(`explain: unknown plan ${JSON.stringify(never)}`);
    }
  }
}

/** A relational plan: the join tree in PostgreSQL's shape (Hash Join over a Hash of the build side). */
function describeRelational(p: Extract<Plan, { kind: 'relational' }>, t: RunTrace | null): Node {
  const q = p.query;
  const names = q.columns.map((c) => `${q.leaves[c.leaf]!.alias}.${q.leaves[c.leaf]!.fields[fieldIndex(q, c.leaf, c.field.fieldId)]?.name ?? c.field.name}`);
  const rel = (n: RelNode): Node => {
    const tr = t?.nodes.get(n);
    const actual = t === null ? {} : tr === undefined ? { never: true } : { actual: { rows: tr.rows, first: tr.first, last: tr.last } };
    switch (n.kind) {
      case 'scan': {
        const pushed = n.where === undefined ? null : describePredicate(bindPredicate(n.where, n.table.fields, n.table.name));
        return {
          name: `Seq Scan on ${n.table.name}${n.alias !== n.table.name ? ` ${n.alias}` : ''}`,
          details: [...(pushed === null ? [] : [`Pushed Filter: ${pushed}`]), ...(n.filter === null ? [] : [`Filter: ${sql(n.filter, names)}`]), rowGroupsLine(tr?.stats ?? estimate(n.table, n.where, false))],
          ...actual,
        };
      }
      case 'values':
        return { name: `Values Scan on ${p.query.leaves[n.leaf]!.alias}`, details: [...(n.filter === null ? [] : [`Filter: ${sql(n.filter, names)}`])], ...actual };
      case 'result':
        return { name: 'Result', details: n.filter === null ? [] : [`One-Time Filter: ${sql(n.filter, names)}`], ...actual };
      case 'subquery':
        return {
          name: `Subquery Scan on ${n.alias}`,
          details: n.filter === null ? [] : [`Filter: ${sql(n.filter, names)}`],
          children: [describePlan(planQuery(n.query), t?.subs?.get(n) ?? null)],
          ...actual,
        };
      case 'join': {
        const kind = n.semi ? ' Semi Join' : n.anti ? ' Anti Join' : n.preserveProbe && n.preserveBuild ? ' Full Join' : n.preserveProbe ? ' Left Join' : n.preserveBuild ? ' Right Join' : n.probeKeys.length > 0 ? ' Join' : '';
        const conds = n.probeKeys.map((k, i) => `(${sql(k, names)} = ${sql(n.buildKeys[i]!, names)})`);
        const details = [
          ...(conds.length === 0 ? [] : [`Hash Cond: ${conds.length === 1 ? conds[0]! : `(${conds.join(' AND ')})`}`]),
          ...(n.joinFilter === null ? [] : [`Join Filter: ${sql(n.joinFilter, names)}`]),
          ...(n.filter === null ? [] : [`Filter: ${sql(n.filter, names)}`]),
        ];
        const build = rel(n.build);
        const btr = t?.nodes.get(n.build);
        const inner: Node = n.probeKeys.length > 0 ? { name: 'Hash', details: [], children: [build], ...(btr === undefined ? (t === null ? {} : { never: true }) : { actual: { rows: btr.buildRows ?? btr.rows, first: btr.last, last: btr.last } }) } : build;
        return { name: n.probeKeys.length > 0 ? `Hash${kind}` : `Nested Loop${kind}`, details, children: [rel(n.probe), inner], ...actual };
      }
      default: {
        const never: never = n;
        throw new Error(`explain: unknown node ${JSON.stringify(never)}`);
      }
    }
  };
  return describeTop(q, rel(p.root), names, t);
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
  let node: Node = { name: 'Append', details: [], children: [describePlan(p.left, t?.sides?.[0] ?? null), describePlan(p.right, t?.sides?.[1] ?? null)], ...at(t, t?.sortedRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0) };
  if (!q.all) node = { name: 'HashAggregate', details: [`Group Key: ${names.join(', ')}`], children: [node], ...at(t, t?.sortedRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0) };
  if (q.orderBy.length > 0)
    node = {
      name: 'Sort',
      details: [`Sort Key: ${q.orderBy.map((o) => `${names[o.index]}${o.desc ? ' DESC' : ''}${o.nullsFirst !== o.desc ? (o.nullsFirst ? ' NULLS FIRST' : ' NULLS LAST') : ''}`).join(', ')}`],
      children: [node],
      ...at(t, t?.sortedRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0),
    };
  if (q.limit !== null || q.offset !== 0) node = { name: 'Limit', details: [], children: [node], ...at(t, t?.outRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0) };
  return node;
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

function render(root: Node): string[] {
  const out: string[] = [];
  const visit = (n: Node, depth: number): void => {
    const actual = n.actual !== undefined ? `  (actual time=${n.actual.first.toFixed(3)}..${n.actual.last.toFixed(3)} rows=${n.actual.rows} loops=1)` : n.never === true ? '  (never executed)' : '';
    out.push(depth === 0 ? `${n.name}${actual}` : `${' '.repeat(6 * depth - 4)}->  ${n.name}${actual}`);
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
        return x.fn === 'textcat' ? `(${go(x.args[0]!)} || ${go(x.args[1]!)})` : `${x.fn}(${x.args.map(go).join(', ')})`;
      default: {
        const never: never = x;
        throw new Error(`sql: unknown expression ${JSON.stringify(never)}`);
      }
    }
  };
  return go(e);
}

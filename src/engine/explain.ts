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
import { bindPredicate, classify, describePredicate, type ScanStats } from '../scan/index.js';
import { groupStats } from '../scan/unit-stats.js';
import type { Database } from '../database.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, str } from './parse.js';
import { bindSelect, type BoundSelect } from './bind.js';
import { type Plan, plan } from './plan.js';
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
  child?: Node;
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
  const p = plan(await bindSelect(db, stmt));
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
  const q = p.query;
  const pushed = p.where === undefined ? null : describePredicate(bindPredicate(p.where, q.table.fields, q.table.name));
  const stats = t?.stats ?? estimate(p);
  const rowGroups = `Row Groups: ${stats.groupsTotal} total, ${stats.groupsSkippedByPredicate} skipped by predicate, ${stats.groupsSkippedByBound} skipped by bound, ${stats.groupsAnsweredFromStats} answered from statistics, ${stats.groupsRead} read`;
  const scanNames = q.columns.map((f) => f.name);
  const aggNames = q.grouping === null ? [] : [...q.grouping.keys.map((k) => sql(k, scanNames)), ...q.grouping.aggs.map((a) => `${a.fn}(${a.distinct ? 'DISTINCT ' : ''}${a.arg === null ? '*' : sql(a.arg, scanNames)})`)];
  const outNames = q.grouping === null ? scanNames : aggNames;
  const at = (rows: number, first: number, last: number) => (t === null ? {} : { actual: { rows, first, last } });
  const limitDetails = q.limit === null && q.offset === 0 ? null : [];
  const sortKey = `Sort Key: ${q.orderBy.map((o) => `${sql(o.expr, outNames)}${o.desc ? ' DESC' : ''}${o.nullsFirst !== o.desc ? (o.nullsFirst ? ' NULLS FIRST' : ' NULLS LAST') : ''}`).join(', ')}`;
  switch (p.kind) {
    case 'stats-aggregate': {
      const scan: Node = { name: `Statistics Scan on ${q.table.name}`, details: [...(pushed === null ? [] : [`Pushed Filter: ${pushed}`]), rowGroups], ...at(t?.scanRows ?? 0, t?.scanFirst ?? 0, t?.scanLast ?? 0) };
      return { name: 'Aggregate', details: [], child: scan, ...at(1, t?.aggAt ?? 0, t?.aggAt ?? 0) };
    }
    case 'top-n': {
      const scan: Node = {
        name: `Top-N Scan on ${q.table.name}`,
        details: [sortKey, ...(pushed === null ? [] : [`Pushed Filter: ${pushed}`]), rowGroups],
        ...at(t?.scanRows ?? 0, t?.scanFirst ?? 0, t?.scanLast ?? 0),
      };
      return { name: 'Limit', details: [], child: scan, ...at(t?.outRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0) };
    }
    case 'pipeline': {
      let node: Node = {
        name: `Seq Scan on ${q.table.name}`,
        details: [...(pushed === null ? [] : [`Pushed Filter: ${pushed}`]), ...(p.residual === null ? [] : [`Filter: ${sql(p.residual, scanNames)}`]), rowGroups],
        ...at(t?.scanRows ?? 0, t?.scanFirst ?? 0, t?.scanLast ?? 0),
      };
      if (q.grouping !== null) {
        const keys = q.grouping.keys.map((k) => sql(k, scanNames));
        node = {
          name: keys.length === 0 ? 'Aggregate' : 'HashAggregate',
          details: [...(keys.length === 0 ? [] : [`Group Key: ${keys.join(', ')}`]), ...(q.having === null ? [] : [`Filter: ${sql(q.having, aggNames)}`])],
          child: node,
          ...at(t?.aggRows ?? 0, t?.aggAt ?? 0, t?.aggAt ?? 0),
        };
      }
      if (q.distinct) node = { name: 'HashAggregate', details: [`Group Key: ${q.targets.map((x) => sql(x.expr, outNames)).join(', ')}`], child: node, ...at(t?.sortedRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0) };
      if (q.orderBy.length > 0) node = { name: 'Sort', details: [sortKey], child: node, ...at(t?.sortedRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0) };
      if (limitDetails !== null) node = { name: 'Limit', details: limitDetails, child: node, ...at(t?.outRows ?? 0, t?.finishAt ?? 0, t?.finishAt ?? 0) };
      return node;
    }
    default: {
      const never: never = p;
      throw new Error(`explain: unknown plan ${JSON.stringify(never)}`);
    }
  }
}

/** Row-group counts the snapshot's statistics decide before reading anything. */
function estimate(p: Plan): ScanStats {
  const q: BoundSelect = p.query;
  const snap = q.table.snapshot;
  const bound = p.where === undefined ? null : bindPredicate(p.where, q.table.fields, q.table.name);
  const s = { groupsTotal: 0, groupsSkippedByPredicate: 0, groupsSkippedByBound: 0, groupsAnsweredFromStats: 0, groupsRead: 0, zonesRead: 0, zonesSkippedByPredicate: 0, zonesSkippedByBound: 0, rowsRead: 0, rowsReturned: 0, bytesRead: 0 };
  for (const f of snap.files)
    for (const g of f.groups) {
      s.groupsTotal++;
      const cls = bound === null ? (g.live === 0 ? 'none' : 'all') : classify(bound, g.live, (slot) => groupStats(g, bound.fields[slot]!, snap.options.zoneRows));
      if (cls === 'none') s.groupsSkippedByPredicate++;
      else if (cls === 'all' && p.kind === 'stats-aggregate') s.groupsAnsweredFromStats++;
      else s.groupsRead++;
    }
  return s;
}

function render(root: Node): string[] {
  const out: string[] = [];
  let depth = 0;
  for (let n: Node | undefined = root; n !== undefined; n = n.child, depth++) {
    const actual = n.actual === undefined ? '' : `  (actual time=${n.actual.first.toFixed(3)}..${n.actual.last.toFixed(3)} rows=${n.actual.rows} loops=1)`;
    out.push(depth === 0 ? `${n.name}${actual}` : `${' '.repeat(6 * depth - 4)}->  ${n.name}${actual}`);
    for (const d of n.details) out.push(`${' '.repeat(6 * depth + 2)}${d}`);
  }
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

/**
 * Runs a RelNode tree (../join-plan.ts) as a stream of wide batches: scans and subqueries at
 * the leaves, hash joins (./join/grace-join.ts) above. A join first drains its build side into its
 * hash table, then streams its probe side through it, then emits the build rows an outer join
 * preserves.
 */
import { recordScan } from '../counters.js';
import { type Value, unreachable } from '../../types/index.js';
import type { ScanStats } from '../../scan/index.js';
import type { RelNode } from '../join-plan.js';
import type { Expr } from '../expr.js';
import type { QueryResult } from '../result.js';
import type { BoundQuery } from '../ir.js';
import { currentWorkMem, yieldIfDue } from '../context.js';
import type { RowBatch } from './batch.js';
import { evaluate } from './eval.js';
import { hashJoin } from './join/grace-join.js';
import { materialize } from './scan.js';
import { functionRows } from './function-scan.js';
import { lateralJoin } from './lateral-join.js';

const EMPTY: Value[] = [];
const SUBQUERY_BATCH = 1024;

/** Rows and times (ms from the start) of one node, for EXPLAIN ANALYZE. */
export interface NodeTrace {
  rows: number;
  first: number;
  last: number;
  /** Hash joins: rows in the hash table. */
  buildRows?: number;
  /** Scans: the scan's own counters. */
  stats?: ScanStats;
}

export interface RelContext {
  readonly width: number;
  /** Runs a subquery in FROM; `node` keys its trace. */
  readonly runQuery: (q: BoundQuery, node: object) => Promise<QueryResult>;
  /** Null unless EXPLAIN ANALYZE. */
  readonly trace: { readonly start: number; readonly nodes: Map<object, NodeTrace> } | null;
}

export async function* execRel(n: RelNode, ctx: RelContext): AsyncGenerator<RowBatch> {
  const t = ctx.trace;
  let tr: NodeTrace | null = null;
  if (t !== null) {
    tr = { rows: 0, first: 0, last: 0 };
    t.nodes.set(n, tr);
  }
  for await (const b of produce(n, ctx)) {
    // Every node's every batch passes the interrupt point: a cross join's output included.
    await yieldIfDue();
    if (tr !== null && t !== null) {
      if (tr.rows === 0) tr.first = performance.now() - t.start;
      tr.rows += b.rows;
    }
    if (b.rows > 0) yield b;
  }
  if (tr !== null && t !== null) tr.last = performance.now() - t.start;
}

async function* produce(n: RelNode, ctx: RelContext): AsyncGenerator<RowBatch> {
  switch (n.kind) {
    case 'scan': {
      const fields = n.fields.length > 0 ? n.fields : [n.table.fields[0]!];
      const scan = n.table.scan({ columns: fields.map((f) => f.name), ...(n.where !== undefined ? { where: n.where } : {}) });
      await scan.begin();
      try {
        for (let sb = await scan.next(); sb !== null; sb = await scan.next()) {
          const local = materialize(sb, fields);
          const cols: Value[][] = new Array<Value[]>(ctx.width).fill(EMPTY);
          n.slots.forEach((slot, k) => (cols[slot] = local.cols[k]!));
          const b = { rows: local.rows, cols };
          yield n.filter === null ? b : filterWide(b, n.filter, n.slots);
        }
      } finally {
        await scan.end();
      }
      recordScan(scan.stats);
      const tr = ctx.trace?.nodes.get(n);
      if (tr !== undefined) tr.stats = scan.stats;
      return;
    }
    case 'subquery': {
      const r = await ctx.runQuery(n.query, n);
      for (let start = 0; start < r.rows.length; start += SUBQUERY_BATCH) {
        const rows = r.rows.slice(start, start + SUBQUERY_BATCH);
        const cols: Value[][] = new Array<Value[]>(ctx.width).fill(EMPTY);
        n.columnSlots.forEach((slot, k) => {
          if (slot >= 0) cols[slot] = rows.map((row) => row[k]!);
        });
        const b = { rows: rows.length, cols };
        yield n.filter === null ? b : filterWide(b, n.filter, n.slots);
      }
      return;
    }
    case 'function': {
      for await (const fr of functionRows(n.calls, n.ordinality, { rows: 1, cols: new Array<Value[]>(ctx.width).fill(EMPTY) })) {
        const cols: Value[][] = new Array<Value[]>(ctx.width).fill(EMPTY);
        n.columnSlots.forEach((slot, k) => slot >= 0 && (cols[slot] = fr.cols[k]!));
        yield n.filter === null ? { rows: fr.rows, cols } : filterWide({ rows: fr.rows, cols }, n.filter, n.slots);
      }
      return;
    }
    case 'lateral': {
      for await (const b of lateralJoin(n, { width: ctx.width, runQuery: ctx.runQuery, execRel: (x) => execRel(x, ctx) })) yield n.filter === null ? b : filterWide(b, n.filter, n.slots);
      return;
    }
    case 'result': {
      const b = { rows: 1, cols: new Array<Value[]>(ctx.width).fill(EMPTY) };
      yield n.filter === null ? b : filterWide(b, n.filter, n.slots);
      return;
    }
    case 'join': {
      const spec = {
        width: ctx.width,
        probeSlots: n.probe.slots,
        buildSlots: n.build.slots,
        probeKeys: n.probeKeys,
        buildKeys: n.buildKeys,
        semi: n.semi,
        anti: n.anti,
        preserveProbe: n.preserveProbe,
        preserveBuild: n.preserveBuild,
        joinFilter: n.joinFilter,
        workMem: currentWorkMem(),
      };
      const info = { rows: 0, partitions: 0 };
      const out = (b: RowBatch) => (n.filter === null ? b : filterWide(b, n.filter, n.slots));
      try {
        for await (const b of hashJoin(spec, execRel(n.build, ctx), execRel(n.probe, ctx), info)) yield out(b);
      } finally {
        const tr = ctx.trace?.nodes.get(n.build);
        if (tr !== undefined) tr.buildRows = info.rows;
      }
      return;
    }
    default:
      return unreachable(n);
  }
}

/** The rows of a wide batch for which `cond` is TRUE, copying only the filled slots. */
export function filterWide(b: RowBatch, cond: Expr, slots: readonly number[]): RowBatch {
  const v = evaluate(cond, b);
  const keep: number[] = [];
  for (let i = 0; i < b.rows; i++) if (v[i] === true) keep.push(i);
  if (keep.length === b.rows) return b;
  const cols: Value[][] = new Array<Value[]>(b.cols.length).fill(EMPTY);
  for (const s of slots) {
    const src = b.cols[s]!;
    const out = new Array<Value>(keep.length);
    for (let i = 0; i < keep.length; i++) out[i] = src[keep[i]!]!;
    cols[s] = out;
  }
  return { rows: keep.length, cols };
}

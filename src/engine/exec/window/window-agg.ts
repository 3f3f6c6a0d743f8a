/**
 * WindowAgg: the step between HAVING and the final projection that computes a query level's
 * window function calls (../../ir.ts) over its rows. Rows are gathered (charged to the
 * statement's memory account, ../../memory.ts, so that a huge partition fails with 53200 and
 * never exhausts the process), then for each distinct PARTITION BY + ORDER BY they are sorted
 * once (./partition.ts) and walked partition by partition: frames (./frame.ts), ranking
 * (./ranking.ts), value (./value.ts) and aggregate (./aggregate.ts) functions write one result
 * column per call. The rows leave in the order of the last window's sort, as PostgreSQL's top
 * WindowAgg hands them on; call k's result is column base + k.
 */
import type { Value } from '../../../types/index.js';
import { exprKey } from '../../expr.js';
import type { WindowClause, WindowSpec } from '../../ir.js';
import type { RowBatch } from '../batch.js';
import { chargeMemory, tick, yieldIfDue, yieldNow } from '../../context.js';
import { aggregateFrames } from './aggregate.js';
import { frameBounds, resolveFrame } from './frame.js';
import { evaluateAll, sortForWindow, type Sorted } from './partition.js';
import { rank, type RankingFn } from './ranking.js';
import { valueAt, type ValueFn } from './value.js';
import type { PartitionView } from './view.js';

const MEMORY_NAME = 'WindowAgg';

/** Estimated bytes of a batch's values kept by the step: a slot each, and strings' characters. */
function batchBytes(b: RowBatch): number {
  let bytes = 0;
  for (const c of b.cols)
    for (let i = 0; i < b.rows; i++) {
      const v = c[i]!;
      bytes += typeof v === 'string' ? 24 + v.length : v instanceof Uint8Array ? 64 + v.byteLength : 16;
    }
  return bytes + 16 * b.rows;
}

export async function windowAgg(batches: readonly RowBatch[], w: WindowClause): Promise<RowBatch> {
  let charged = 0;
  const charge = (bytes: number): void => {
    chargeMemory(bytes, MEMORY_NAME);
    charged += bytes;
  };
  try {
    const input = await gather(batches, w.base, charge);
    const n = input.rows;
    charge(n * 16 * w.calls.length);
    const outs: Value[][] = w.calls.map(() => new Array<Value>(n).fill(null));
    // One sort per distinct PARTITION BY + ORDER BY, in the order the windows first appear.
    const sorts = new Map<string, WindowSpec[]>();
    w.specs.forEach((s) => {
      const key = JSON.stringify([s.partition.map(exprKey), s.order.map((o) => [exprKey(o.expr), o.desc, o.nullsFirst])]);
      sorts.set(key, [...(sorts.get(key) ?? []), s]);
    });
    let last: Sorted | null = null;
    for (const specs of sorts.values()) {
      const sorted = await sortForWindow(input, specs[0]!.partition, specs[0]!.order);
      charge(n * 12);
      for (const spec of specs) await runSpec(w, w.specs.indexOf(spec), spec, input, sorted, outs);
      last = sorted;
    }
    const order = last?.idx ?? [];
    const cols: Value[][] = [...input.cols, ...outs].map((c) => {
      const o = new Array<Value>(n);
      for (let j = 0; j < n; j++) o[j] = c[order[j]!]!;
      return o;
    });
    return { rows: n, cols };
  } finally {
    chargeMemory(-charged, MEMORY_NAME);
  }
}

/** The input batches as one, each charged before it is kept. */
async function gather(batches: readonly RowBatch[], width: number, charge: (bytes: number) => void): Promise<RowBatch> {
  const cols: Value[][] = Array.from({ length: width }, () => []);
  let rows = 0;
  for (const b of batches) {
    charge(batchBytes(b));
    for (let c = 0; c < width; c++) {
      const from = b.cols[c]!;
      const to = cols[c]!;
      for (let i = 0; i < b.rows; i++) to.push(from[i]!);
    }
    rows += b.rows;
    await yieldIfDue();
  }
  return { rows, cols };
}

/** The calls over window `k`, partition by partition. */
async function runSpec(w: WindowClause, k: number, spec: WindowSpec, input: RowBatch, sorted: Sorted, outs: Value[][]): Promise<void> {
  const calls = w.calls.flatMap((c, j) => (c.window === k ? [{ c, j }] : []));
  if (calls.length === 0) return;
  const frame = await resolveFrame(spec, input);
  const args: Value[][][] = [];
  const filters: (Value[] | null)[] = [];
  for (const { c } of calls) {
    const exprs = c.kind === 'fn' ? c.args : c.agg.arg === null ? [] : [c.agg.arg];
    const cols: Value[][] = [];
    for (const e of exprs) cols.push(await evaluateAll(e, input));
    args.push(cols);
    filters.push(c.kind === 'agg' && c.agg.filter !== undefined ? await evaluateAll(c.agg.filter, input) : null);
  }
  const { parts } = sorted;
  const max = parts.reduce((m, p, i) => (i === 0 ? m : Math.max(m, p - parts[i - 1]!)), 0);
  const gs = new Int32Array(max);
  const ge = new Int32Array(max);
  const start = new Int32Array(max);
  const end = new Int32Array(max);
  for (let p = 0; p + 1 < parts.length; p++) {
    if (tick()) await yieldNow();
    const p0 = parts[p]!;
    const len = parts[p + 1]! - p0;
    peerGroups(sorted, p0, len, gs, ge);
    frameBounds(frame, sorted, p0, p0 + len, gs, ge, start, end);
    for (let q = 0; q < calls.length; q++) {
      const { c, j } = calls[q]!;
      const view: PartitionView = { sorted, p0, n: len, gs, ge, start, end, frame, args: args[q]!, out: outs[j]! };
      if (c.kind === 'agg') aggregateFrames(c.agg, view, filters[q]!);
      else if (c.fn === 'lag' || c.fn === 'lead' || c.fn === 'first_value' || c.fn === 'last_value' || c.fn === 'nth_value') valueAt(c.fn as ValueFn, view);
      else rank(c.fn as RankingFn, view);
    }
  }
}

/** Each row's peer group [gs, ge) in the partition at sorted positions [p0, p0 + n). */
function peerGroups(s: Sorted, p0: number, n: number, gs: Int32Array, ge: Int32Array): void {
  let first = 0;
  for (let i = 1; i <= n; i++) {
    if (i === n || s.group[p0 + i] !== s.group[p0 + i - 1]) {
      for (let j = first; j < i; j++) {
        gs[j] = first;
        ge[j] = i;
      }
      first = i;
    }
  }
}

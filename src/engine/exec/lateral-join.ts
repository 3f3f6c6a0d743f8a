/**
 * The dependent join of LATERAL (../lateral-plan.ts): a nested loop that runs its right side
 * for each left row, PostgreSQL's Nested Loop with the left row's columns as the inner side's
 * parameters. The right side is a Function Scan over the left batch (./function-scan.ts: its
 * calls read the left columns directly), or a subquery run once per distinct tuple of the left
 * rows' values of its outer columns (./dependent-join.ts, which memoizes the runs).
 * LEFT JOIN LATERAL … ON c emits a left row with NULLs when no right row satisfies c.
 */
import type { Value } from '../../types/index.js';
import type { BoundQuery } from '../ir.js';
import type { RelNode } from '../join-plan.js';
import type { QueryResult } from '../result.js';
import type { RowBatch } from './batch.js';
import { evaluate } from './eval.js';
import { functionRows, type FunctionRows } from './function-scan.js';
import { DependentRuns, dependentBase } from './dependent-join.js';

type LateralNode = Extract<RelNode, { kind: 'lateral' }>;

export interface LateralContext {
  readonly width: number;
  readonly runQuery: (q: BoundQuery, node: object) => Promise<QueryResult>;
  /** ./rel.ts's execRel, for the left side. */
  readonly execRel: (n: RelNode) => AsyncGenerator<RowBatch>;
}

const EMPTY: Value[] = [];

/** The right side's rows for every row of a left batch, as function rows (origin = left row). */
async function* rightRows(n: LateralNode, left: RowBatch, runs: DependentRuns | null): AsyncGenerator<FunctionRows> {
  const r = n.right;
  if (r.kind === 'function') {
    yield* functionRows(r.calls, r.ordinality, left);
    return;
  }
  const args = n.args.map((a) => evaluate(a, left));
  for (let i = 0; i < left.rows; i++) {
    const res = await runs!.rows(args.map((c) => c[i]!));
    if (res.rows.length === 0) continue;
    const cols = (res.fields.length === 0 ? [] : res.fields.map((_f, k) => res.rows.map((row) => row[k]!)));
    yield { rows: res.rows.length, origin: new Array<number>(res.rows.length).fill(i), cols };
  }
}

/** Left columns repeated per output row, right columns placed in their slots. */
function widen(n: LateralNode, left: RowBatch, fr: FunctionRows, width: number): RowBatch {
  const cols: Value[][] = new Array<Value[]>(width).fill(EMPTY);
  for (const s of n.left.slots) {
    const src = left.cols[s]!;
    cols[s] = fr.origin.map((i) => src[i]!);
  }
  n.right.columnSlots.forEach((slot, k) => {
    if (slot >= 0) cols[slot] = fr.cols[k]!;
  });
  return { rows: fr.rows, cols };
}

function keep(b: RowBatch, rows: readonly number[], slots: readonly number[]): RowBatch {
  const cols: Value[][] = new Array<Value[]>(b.cols.length).fill(EMPTY);
  for (const s of slots) cols[s] = rows.map((i) => b.cols[s]![i]!);
  return { rows: rows.length, cols };
}

export async function* lateralJoin(n: LateralNode, ctx: LateralContext): AsyncGenerator<RowBatch> {
  const r = n.right;
  const runs = r.kind === 'subquery' ? new DependentRuns(r.query, dependentBase(r.query), n.args, (q) => ctx.runQuery(q, r)) : null;
  for await (const left of ctx.execRel(n.left)) {
    const matched = n.outer ? new Uint8Array(left.rows) : null;
    for await (const fr of rightRows(n, left, runs)) {
      let b = widen(n, left, fr, ctx.width);
      if (n.joinFilter !== null) {
        const v = evaluate(n.joinFilter, b);
        const rows: number[] = [];
        for (let i = 0; i < b.rows; i++) if (v[i] === true) rows.push(i);
        b = keep(b, rows, n.slots);
        if (matched !== null) for (const i of rows) matched[fr.origin[i]!] = 1;
      } else if (matched !== null) for (const i of fr.origin) matched[i] = 1;
      if (b.rows > 0) yield b;
    }
    if (matched === null) continue;
    const unmatched: number[] = [];
    for (let i = 0; i < left.rows; i++) if (matched[i] === 0) unmatched.push(i);
    if (unmatched.length === 0) continue;
    const cols: Value[][] = new Array<Value[]>(ctx.width).fill(EMPTY);
    for (const s of n.left.slots) cols[s] = unmatched.map((i) => left.cols[s]![i]!);
    for (const s of n.right.slots) cols[s] = new Array<Value>(unmatched.length).fill(null);
    yield { rows: unmatched.length, cols };
  }
}

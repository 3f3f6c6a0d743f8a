/**
 * Function Scan (PostgreSQL's nodeFunctionscan.c): the rows of the calls of a FROM item, for
 * each row of an input batch (a LATERAL join's left rows, ./lateral-join.ts; the one empty row
 * otherwise). The calls run side by side, as ROWS FROM does: row k holds each call's k-th value,
 * NULL for a call that has ended, until every call has ended; a scalar call gives one row; WITH
 * ORDINALITY numbers the rows from 1 (int8). Set-returning calls are the function library's
 * `setReturning` kernels (../functions/set-returning.ts), pulled lazily, so a long series costs
 * memory for one output batch only. A call of several columns (jsonb_each's key and value, a
 * record function's column definition list) fills that many columns, all NULL once it ends.
 *
 *   ROWS FROM (generate_series(1, 3), unnest('{a,b}'::text[])) WITH ORDINALITY
 *   → (1, a, 1), (2, b, 2), (3, NULL, 3)
 */
import type { PgType, Value } from '../../types/index.js';
import type { Expr } from '../expr.js';
import { entryOf, isLibraryFn } from '../functions/registry.js';
import type { SetKernel } from '../functions/signature.js';
import { RECORD_COLUMNS } from '../functions/json-set-returning.js';
import { yieldIfDue } from '../context.js';
import type { RowBatch } from './batch.js';
import { evaluate } from './eval.js';

/** Output rows per chunk. */
const CHUNK = 1024;

/** Function rows for the rows of an input batch: `origin[r]` is the input row of output row r. */
export interface FunctionRows {
  readonly rows: number;
  readonly origin: number[];
  /** One column per call, then the ordinality column when asked for. */
  readonly cols: Value[][];
}

type CallPlan =
  | { readonly kind: 'set'; readonly kernel: SetKernel; readonly strict: boolean; readonly args: Value[][]; readonly types: readonly PgType[]; readonly width: number; readonly rows: boolean }
  | { readonly kind: 'scalar'; readonly values: Value[]; readonly width: 1; readonly rows: false };

function planCall(e: Expr, input: RowBatch): CallPlan {
  if (e.kind === 'func' && isLibraryFn(e.fn)) {
    const { sig } = entryOf(e.fn);
    if (sig.setReturning !== undefined) {
      const args = e.args.map((a) => evaluate(a, input));
      // A record call's last argument is its column definition list (../functions/json-set-returning.ts).
      const width = sig.record === true ? recordWidth(args[args.length - 1]![0]) : (sig.columns?.length ?? 1);
      return { kind: 'set', kernel: sig.setReturning, strict: sig.strict ?? true, args, types: e.args.map((a) => a.type), width, rows: sig.record === true || sig.columns !== undefined };
    }
  }
  return { kind: 'scalar', values: evaluate(e, input), width: 1, rows: false };
}

const recordWidth = (v: Value | undefined): number => (JSON.parse((v as string).slice(RECORD_COLUMNS.length)) as { names: string[] }).names.length;

const NONE: Iterator<Value | readonly Value[]> = { next: () => ({ done: true, value: undefined }) };

function iteratorOf(p: CallPlan, i: number): Iterator<Value | readonly Value[]> {
  if (p.kind === 'scalar') return [p.values[i]!][Symbol.iterator]();
  const row = p.args.map((c) => c[i]!);
  if (p.strict && row.some((v) => v === null)) return NONE;
  return p.kernel(row, p.types)[Symbol.iterator]();
}

/** The function rows of every row of `input`, in chunks of up to CHUNK rows, in input order. */
export async function* functionRows(calls: readonly Expr[], ordinality: boolean, input: RowBatch): AsyncGenerator<FunctionRows> {
  const plans = calls.map((c) => planCall(c, input));
  // Each call's first output column; a call of several columns (jsonb_each) yields Value[] rows.
  const firstCol = plans.map((_p, k) => plans.slice(0, k).reduce((n, q) => n + q.width, 0));
  const callWidth = plans.reduce((n, p) => n + p.width, 0);
  const width = callWidth + (ordinality ? 1 : 0);
  const fresh = (): FunctionRows => ({ rows: 0, origin: [], cols: Array.from({ length: width }, () => []) });
  let out = fresh();
  for (let i = 0; i < input.rows; i++) {
    const its = plans.map((p) => iteratorOf(p, i));
    const live = its.map(() => true);
    for (let n = 1; ; n++) {
      const vals = its.map((it, k) => {
        if (!live[k]) return null;
        const r = it.next();
        if (r.done === true) {
          live[k] = false;
          return null;
        }
        return r.value;
      });
      if (!live.some(Boolean)) break;
      vals.forEach((v, k) => {
        const p = plans[k]!;
        if (!p.rows) out.cols[firstCol[k]!]!.push(v as Value);
        else for (let c = 0; c < p.width; c++) out.cols[firstCol[k]! + c]!.push(v === null ? null : (v as readonly Value[])[c]!);
      });
      if (ordinality) out.cols[callWidth]!.push(BigInt(n));
      out.origin.push(i);
      (out as { rows: number }).rows++;
      if (out.rows >= CHUNK) {
        yield out;
        out = fresh();
        await yieldIfDue();
      }
    }
  }
  if (out.rows > 0) yield out;
}

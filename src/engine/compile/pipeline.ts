/**
 * Compiled pipelines (DESIGN.md "Hot paths"): a single-table plan's residual filter,
 * GROUP BY keys and aggregate arguments become ONE generated JavaScript function per plan,
 * run once per storage batch, that reads the batch's typed arrays, filters, finds each row's
 * group and folds every aggregate in a single loop — operator fusion, with no per-row
 * allocation and no per-row interpretation of the expression tree.
 *
 *   scan batch ──▶ for each selected row i: [filter] → [group id] → [aggregate updates]
 *
 * Aggregate state lives in Float64Arrays indexed by group id; exact sums spill into bigints
 * before they leave ±2^52. Groups are found through one dense code per key (an open-addressing
 * number table, a byte-keyed table for text, a direct table for strings of ≤ 2 bytes) and, for
 * several keys, a chain of pair tables over codes. A query without aggregation compiles its residual filter
 * into a selection vector, so only matching rows are materialized for the operators above.
 *
 * The group tables and aggregation state are ./groups.ts; what a compiled pipeline is, and the
 * merge of partitions' states into the result, ./merge.ts; the code generator ./codegen.ts.
 *
 * The result is what the interpreter produces at the same point (../exec/run.ts): the groups
 * as a RowBatch of key columns then aggregate columns, or the filtered rows. When generation
 * does not cover an expression, `compile` returns null; when a value leaves the exact range at
 * run time, `runCompiled` returns null; either way the caller runs the interpreter.
 */
import { isCtidField } from '../ctid.js';
import type { Predicate, ScanStats } from '../../scan/index.js';
import type { BoundSelect } from '../ir.js';
import type { Expr } from '../expr.js';
import type { RowBatch } from '../exec/batch.js';
import { materialize } from '../exec/scan.js';
import { currentWorkMem, yieldIfDue } from '../context.js';
import { PaxdError, SQLSTATE } from '../../types/index.js';
import { DEOPT, Gen, LIMIT, type Frag } from './codegen.js';
import { H } from './helpers.js';
import { GroupState } from './groups.js';
import { type AggOut, type BatchFn, type Compiled, type KeyOut, merge, partialOf } from './merge.js';

export { type Compiled, type Partial, merge, partialOf } from './merge.js';

/** The plan shape this module compiles (../plan.ts, kind 'pipeline'). */
export interface PipelineInput {
  readonly query: BoundSelect;
  readonly residual: Expr | null;
}

/** Rows per storage batch the compiled loop asks the scan for (a zone's worth amortizes the call). */
export const COMPILED_BATCH_ROWS = 16384;


/** Off: every plan runs in the interpreter (tests compare the two; `SET paxd.compile = off` later). */
export const COMPILE = { enabled: process.env.PAXD_COMPILE !== 'off' };

const cache = new WeakMap<object, Compiled | null>();
const fnCache = new Map<string, BatchFn>();

/** The compiled form of a plan, or null when its expressions are not covered (cached per plan). */
/** The aggregates the generated loop folds; the others run in the interpreter (../exec/hash-aggregate.ts). */
const FUSED_AGGREGATES: ReadonlySet<string> = new Set(['count', 'sum', 'avg', 'min', 'max']);

export function compile(p: PipelineInput): Compiled | null {
  if (!COMPILE.enabled) return null;
  // ctid comes from batch positions, which only the interpreter tracks (../ctid.ts).
  if (p.query.columns.some(isCtidField)) return null;
  // Grouping sets run one aggregate per set (../exec/aggregate/grouping-sets.ts): the interpreter's.
  if (p.query.grouping?.sets !== undefined) return null;
  let c = cache.get(p);
  if (c === undefined) {
    c = generate(p.query, p.residual);
    cache.set(p, c);
  }
  return c;
}

function generate(q: BoundSelect, residual: Expr | null): Compiled | null {
  const g = new Gen(q.columns);
  const body: string[] = [];
  g.top = body;
  if (residual !== null) {
    const f = g.expr(residual, body);
    if (f === null || f.rep.k !== 'bool') return null;
    body.push(`if ((${f.n}) || !(${f.v})) continue;`);
  }
  const header: string[] = [];
  const keys: KeyOut[] = [];
  let aggs: AggOut[] | null = null;
  if (q.grouping === null) {
    if (residual === null || q.distinct) return null; // nothing to fuse: the interpreter materializes as fast
    body.push('S.sel[m++] = i;');
  } else {
    aggs = [];
    body.push('m++;');
    for (const a of q.grouping.aggs) if ((a.distinct && a.fn !== 'count') || !FUSED_AGGREGATES.has(a.fn) || a.order !== undefined) return null;
    // Group id.
    const codes: string[] = [];
    for (const [j, k] of q.grouping.keys.entries()) {
      // jsonb keys group by value (exec/hash-aggregate.ts keyNorm): the interpreter's work.
      if (k.type.id === 'jsonb') return null;
      const f = g.expr(k, body);
      if (f === null || f.rep.k === 'sconst' || f.ds !== undefined) return null;
      keys.push({ rep: f.rep, type: k.type });
      const c = g.fresh('kc');
      if (f.rep.k === 'str') {
        const col = f.rep.col;
        const end = f.rep.rtrim ? `H.rtrim(c${col}d, c${col}o[i], c${col}o[i + 1])` : `c${col}o[i + 1]`;
        header.push(`const T${j} = S.T[${j}];`);
        body.push(`const ${c} = (${f.n}) ? T${j}.nul() : T${j}.code(c${col}d, c${col}o[i], ${end});`);
      } else {
        // Integers computed from two words are doubles to V8: as small integers (smi) they
        // hash and store without a heap number per key.
        const kv = f.rep.k === 'bool' ? `((${f.v}) ? 1 : 0)` : f.rep.k === 'big' || f.rep.k === 'dec' ? `H.smi(${f.v})` : f.v;
        // The previous row's key first: data clustered on the key (orders' lines) skips the Map.
        header.push(`const D${j} = S.D[${j}];`, `let lk${j} = undefined, lc${j} = 0;`);
        body.push(
          `const k${c} = (${f.n}) ? null : ${kv};`,
          `let ${c} = lc${j};`,
          `if (k${c} !== lk${j}) { ${c} = k${c} === null ? S.nullCode(${j}) : D${j}.code(k${c}); lk${j} = k${c}; lc${j} = ${c}; }`,
        );
      }
      codes.push(c);
    }
    if (codes.length === 0) body.push('const g = 0;');
    else if (codes.length === 1) body.push(`const g = ${codes[0]};`, 'if (g >= cap) { S.grow(g + 1); RELOAD }');
    else {
      body.push(`let g = ${codes[0]};`);
      for (let j = 1; j < codes.length; j++) {
        const last = j === codes.length - 1;
        // Small ids pair through a direct table, others through a Map of id × 2^26 + code.
        header.push(`const Q${j} = S.Q[${j}], P${j} = S.P[${j}];`);
        const make = (key: string, pk: string): string => (last ? `S.newGroup(${j}, ${key}, ${pk}, [${codes.join(', ')}])` : `S.pair(${j}, ${key}, ${pk})`);
        body.push(
          `{ let q; const c = ${codes[j]};`,
          `  if (g < 256 && c < 256) { const ix = (g << 8) | c; q = Q${j}[ix]; if (q < 0) q = ${make('ix', '-1')}; }`,
          `  else { const pk = g * 67108864 + c; q = P${j}.get(pk); if (q < 0) q = ${make('-1', 'pk')}; }`,
          '  g = q; }',
        );
      }
      body.push('if (g >= cap) { S.grow(g + 1); RELOAD }');
    }
    // Aggregate updates.
    for (const [j, a] of q.grouping.aggs.entries()) {
      header.push(`let A${j} = S.A[${j}], C${j} = S.C[${j}], M${j} = S.M[${j}];`);
      if (a.arg === null) {
        body.push(`C${j}[g]++;`);
        aggs.push({ call: a, rep: null });
        continue;
      }
      const f: Frag | null = g.expr(a.arg, body);
      if (f === null || f.rep.k === 'str' || f.rep.k === 'sconst') return null;
      if (f.rep.k === 'bool' && a.fn !== 'count') return null;
      aggs.push({ call: a, rep: f.rep, dynamic: f.ds !== undefined });
      // The largest display scale summed (sum, avg), or the display scale of the min/max.
      const keepScale = f.ds === undefined ? '' : a.fn === 'sum' || a.fn === 'avg' ? ` if (${f.ds} > M${j}[g]) M${j}[g] = ${f.ds};` : ` M${j}[g] = ${f.ds};`;
      const notNull = f.n === 'false' ? '' : `if (!(${f.n})) `;
      const float = f.rep.k === 'f4' || f.rep.k === 'f8';
      switch (a.fn) {
        case 'count':
          if (a.distinct) {
            // count(DISTINCT x): a Set of the group's values (SameValueZero: -0 is 0, NaN is NaN, as PostgreSQL's equality).
            header.push(`const U${j} = S.U[${j}];`);
            body.push(`${notNull}{ let st = U${j}[g]; if (st === undefined) st = U${j}[g] = new Set(); st.add(${f.rep.k === 'bool' ? `(${f.v}) ? 1 : 0` : f.v}); }`);
          } else body.push(`${notNull}C${j}[g]++;`);
          break;
        case 'sum':
        case 'avg':
          if (float) body.push(`${notNull}{ C${j}[g]++; A${j}[g] = ${f.rep.k === 'f4' && a.fn === 'sum' ? 'Math.fround' : ''}(A${j}[g] + ${f.v}); }`);
          else body.push(`${notNull}{ C${j}[g]++; const s = A${j}[g] + ${f.v}; if (s > ${LIMIT} || s < -${LIMIT}) { S.spill(${j}, g, s); A${j}[g] = 0; } else A${j}[g] = s;${keepScale} }`);
          break;
        case 'min':
        case 'max': {
          // `<=`/`>=`: of equal values the later wins, as in ../exec/agg-state.ts (min(-0, 0) is 0).
          const better = float ? `H.cmpFloat(${f.v}, A${j}[g]) ${a.fn === 'min' ? '<=' : '>='} 0` : `${f.v} ${a.fn === 'min' ? '<=' : '>='} A${j}[g]`;
          body.push(`${notNull}{ if (C${j}[g] === 0 || ${better}) { A${j}[g] = ${f.v};${keepScale} } C${j}[g]++; }`);
          break;
        }
        default:
          return null;
      }
    }
  }
  const reload = aggs === null ? '' : `cap = S.cap; ${aggs.map((_a, j) => `A${j} = S.A[${j}]; C${j} = S.C[${j}]; M${j} = S.M[${j}];`).join(' ')}`;
  const source = [
    '"use strict";',
    g.prologue(),
    'let m = 0;',
    'let cap = S.cap;',
    ...header,
    'for (let k = 0; k < count; k++) {',
    'const i = sel === null ? k : sel[k];',
    ...body.map((l) => l.replace('RELOAD', reload)),
    '}',
    'return m;',
  ].join('\n');
  let fn = fnCache.get(source);
  if (fn === undefined) {
    fn = new Function('cols', 'sel', 'count', 'S', 'K', 'H', source) as BatchFn;
    if (fnCache.size > 256) fnCache.clear();
    fnCache.set(source, fn);
  }
  return { fn, consts: g.consts, source, aggs, keys };
}

/** What one pass of a compiled pipeline over (some of) a table's groups produced. */
export interface ScanOutcome {
  /** Filter-only pipelines: the selected rows. */
  readonly batches: RowBatch[];
  /** Aggregating pipelines: the aggregation state. */
  readonly state: GroupState;
  readonly stats: ScanStats;
}

export interface RunOptions {
  workMem?: number;
  /**
   * A query worker's stop flag (./parallel.ts): the main thread stores 1 in element 0 when
   * the statement is stopped, and the worker ends at its next batch.
   */
  stop?: Int32Array;
  /** Only these groups of the snapshot (a partition, for parallel execution). */
  groups?: (file: number, group: number) => boolean;
}

/**
 * Runs a compiled pipeline over the plan's scan; null when a value left the exact range (the
 * caller then runs the interpreter).
 */
export async function scanCompiled(p: PlanInput, c: Compiled, onBatch: (rows: number) => void, options: RunOptions = {}): Promise<ScanOutcome | null> {
  const q = p.query;
  const names = q.columns.length > 0 ? q.columns.map((f) => f.name) : [q.table.fields[0]!.name];
  const fields = q.columns.length > 0 ? q.columns : [q.table.fields[0]!];
  const scan = q.table.scan({
    columns: names,
    batchRows: COMPILED_BATCH_ROWS,
    ...(p.where !== undefined ? { where: p.where } : {}),
    ...(options.groups !== undefined ? { groups: options.groups } : {}),
    // An aggregating pipeline is done with a batch when c.fn returns (its state copies text
    // keys), so zones may decode into reused memory; the filter-only one keeps batches.
    reuseBuffers: c.aggs !== null,
  });
  const nAggs = c.aggs?.length ?? 0;
  const S = new GroupState(nAggs, c.keys.length, 64 + 24 * nAggs + 56 * c.keys.length, options.workMem ?? currentWorkMem());
  const out: RowBatch[] = [];
  await scan.begin();
  try {
    for (let b = await scan.next(); b !== null; b = await scan.next()) {
      // The generated code runs one batch per call: the interrupt point comes once per batch.
      await yieldIfDue();
      if (options.stop !== undefined && Atomics.load(options.stop, 0) !== 0) throw stoppedInWorker();
      const count = b.selection === null ? b.length : b.selection.length;
      if (c.aggs === null) {
        if (S.sel.length < count) S.sel = new Uint32Array(Math.max(count, COMPILED_BATCH_ROWS));
        const m = c.fn(b.columns, b.selection, count, S, c.consts, H);
        onBatch(m);
        if (m > 0) out.push(materialize({ length: b.length, columns: b.columns, selection: S.sel.slice(0, m) }, fields));
      } else onBatch(c.fn(b.columns, b.selection, count, S, c.consts, H));
    }
  } catch (e) {
    if (e === DEOPT) return null;
    throw e;
  } finally {
    await scan.end();
  }
  return { batches: out, state: S, stats: scan.stats };
}

/** 57014 in a query worker whose statement was stopped (the main thread reports the statement's own reason). */
function stoppedInWorker(): PaxdError {
  return new PaxdError('io', SQLSTATE.query_canceled, 'canceling statement due to user request');
}

/** Partition `part` of `parts` of a snapshot's groups: round robin over (file, group). */
export function partition(part: number, parts: number): (file: number, group: number) => boolean {
  return (file, group) => (file * 7919 + group) % parts === part;
}

export type PlanInput = PipelineInput & { readonly where: Predicate | undefined };

/** The single-threaded run: the groups (one RowBatch) or the filtered rows; null to fall back. */
export async function runCompiled(p: PlanInput, c: Compiled, onBatch: (rows: number) => void, options: RunOptions = {}): Promise<{ batches: RowBatch[]; stats: ScanStats } | null> {
  const r = await scanCompiled(p, c, onBatch, options);
  if (r === null) return null;
  return { batches: c.aggs === null ? r.batches : [await merge(c, [partialOf(r.state, c)])], stats: r.stats };
}

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
 * The result is what the interpreter produces at the same point (../exec/run.ts): the groups
 * as a RowBatch of key columns then aggregate columns, or the filtered rows. When generation
 * does not cover an expression, `compile` returns null; when a value leaves the exact range at
 * run time, `runCompiled` returns null; either way the caller runs the interpreter.
 */
import { isCtidField } from '../ctid.js';
import type { Batch, PgType, Value } from '../../types/index.js';
import type { Predicate, ScanStats } from '../../scan/index.js';
import { keyText } from '../exec/key.js';
import { formatDecimalValue, averageDecimal } from '../../types/index.js';
import type { AggCall, BoundSelect } from '../ir.js';
import type { Expr } from '../expr.js';
import type { RowBatch } from '../exec/batch.js';
import { materialize } from '../exec/scan.js';
import { workMemExceeded } from '../errors.js';
import { currentWorkMem, tick, yieldIfDue, yieldNow } from '../context.js';
import { PaxdError, SQLSTATE } from '../../types/index.js';
import { DEOPT, Gen, LIMIT, type Frag, type Rep } from './codegen.js';
import { H } from './helpers.js';

/** The plan shape this module compiles (../plan.ts, kind 'pipeline'). */
export interface PipelineInput {
  readonly query: BoundSelect;
  readonly residual: Expr | null;
}

/** Rows per storage batch the compiled loop asks the scan for (a zone's worth amortizes the call). */
export const COMPILED_BATCH_ROWS = 16384;


type BatchFn = (cols: Batch['columns'], sel: Uint32Array | null, count: number, S: GroupState, K: unknown[], H: unknown) => number;

export interface Compiled {
  readonly fn: BatchFn;
  readonly consts: unknown[];
  readonly source: string;
  /** Null for a filter-only pipeline. */
  readonly aggs: readonly AggOut[] | null;
  readonly keys: readonly KeyOut[];
}

interface KeyOut {
  readonly rep: Rep;
  readonly type: PgType;
}

interface AggOut {
  readonly call: AggCall;
  readonly rep: Rep | null; // null for count(*)
  /** Decimal arguments whose display scale varies by row: tracked per group in `M`. */
  readonly dynamic?: boolean;
}

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
          const better = float ? `H.cmpFloat(${f.v}, A${j}[g]) ${a.fn === 'min' ? '<' : '>'} 0` : `${f.v} ${a.fn === 'min' ? '<' : '>'} A${j}[g]`;
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

/**
 * An open-addressing hash table from numbers to ids (codes of a key's values, or pair ids):
 * V8's Map takes about a microsecond per insert at millions of entries; this takes tens of
 * nanoseconds. Keys compare as PostgreSQL's equality does: -0 is 0, NaN equals NaN.
 * With `onNew`, `code(v)` assigns ids to new keys; without, `get`/`set` are used.
 */
class NumTable {
  private keys = new Float64Array(1024);
  private ids = new Int32Array(1024).fill(-1);
  private mask = 1023;
  private size = 0;
  private readonly f = new Float64Array(1);
  private readonly w = new Int32Array(this.f.buffer);

  constructor(private readonly onNew: ((v: number) => number) | null) {}

  private slot(v: number): number {
    this.f[0] = v;
    let h = Math.imul(this.w[0]! ^ Math.imul(this.w[1]!, 0x85ebca6b), 0x9e3779b1);
    h ^= h >>> 15;
    let at = h & this.mask;
    for (;;) {
      if (this.ids[at]! < 0) return at;
      const k = this.keys[at]!;
      if (k === v || (k !== k && v !== v)) return at;
      at = (at + 1) & this.mask;
    }
  }

  /** The id of `v`, or -1. */
  get(v: number): number {
    return this.ids[this.slot(v === 0 ? 0 : v)]!;
  }

  set(v: number, id: number): void {
    if (v === 0) v = 0;
    const at = this.slot(v);
    if (this.ids[at]! < 0) this.size++;
    this.keys[at] = v;
    this.ids[at] = id;
    if (this.size * 2 > this.mask) this.grow();
  }

  /** The code of `v`, assigned by `onNew` when it is new. */
  code(v: number): number {
    if (v === 0) v = 0;
    const at = this.slot(v);
    const id = this.ids[at]!;
    if (id >= 0) return id;
    const c = this.onNew!(v);
    this.keys[at] = v;
    this.ids[at] = c;
    if (++this.size * 2 > this.mask) this.grow();
    return c;
  }

  private grow(): void {
    const keys = this.keys;
    const ids = this.ids;
    this.keys = new Float64Array(keys.length * 2);
    this.ids = new Int32Array(ids.length * 2).fill(-1);
    this.mask = this.keys.length - 1;
    for (let i = 0; i < keys.length; i++) {
      if (ids[i]! < 0) continue;
      const at = this.slot(keys[i]!);
      this.keys[at] = keys[i]!;
      this.ids[at] = ids[i]!;
    }
  }
}

/** Dense codes of one text key's values. Strings of ≤ 2 bytes index a direct table. */
class TextCodes {
  private readonly small = new Int32Array(1 + 256 + 65536).fill(-1);
  private readonly byHash = new Map<number, number[]>();
  private readonly bytes: Uint8Array[] = [];
  private nullCode = -1;
  readonly values: (string | null)[] = [];

  constructor(private readonly onNew: () => number) {}

  nul(): number {
    if (this.nullCode < 0) {
      this.nullCode = this.onNew();
      this.values[this.nullCode] = null;
    }
    return this.nullCode;
  }

  code(d: Uint8Array, s: number, e: number): number {
    const len = e - s;
    if (len <= 2) {
      const at = len === 0 ? 0 : len === 1 ? 1 + d[s]! : 257 + d[s]! * 256 + d[s + 1]!;
      const c = this.small[at]!;
      return c >= 0 ? c : (this.small[at] = this.add(d, s, e));
    }
    let h = 0x811c9dc5;
    for (let p = s; p < e; p++) h = Math.imul(h ^ d[p]!, 0x01000193);
    const chain = this.byHash.get(h);
    if (chain !== undefined) {
      for (const c of chain) if (H.eqBytes(d, s, e, this.bytes[c]!)) return c;
      const c = this.add(d, s, e);
      chain.push(c);
      return c;
    }
    const c = this.add(d, s, e);
    this.byHash.set(h, [c]);
    return c;
  }

  private add(d: Uint8Array, s: number, e: number): number {
    const c = this.onNew();
    const b = d.slice(s, e);
    this.bytes[c] = b;
    this.values[c] = DECODER.decode(b);
    return c;
  }
}

const DECODER = new TextDecoder('utf-8', { ignoreBOM: true }); // a leading U+FEFF is part of the value

/** The aggregation state the generated function reads and writes (`S` in its source). */
export class GroupState {
  cap = 0;
  groups = 0;
  A: Float64Array[];
  C: Float64Array[];
  /** Display scales (see AggOut.dynamic). */
  M: Float64Array[];
  /** Exact-sum overflow per aggregate and group. */
  readonly big: (bigint[] | null)[];
  /** count(DISTINCT): per aggregate, the distinct values of each group. */
  readonly U: (Set<number> | undefined)[][];
  /** Per key: number → code (numeric keys), code → value. */
  readonly D: NumTable[];
  readonly numValues: (number | null)[][];
  private readonly nullCodes: number[];
  readonly T: TextCodes[];
  readonly codeCount: number[];
  /** Level j ≥ 1: (id at level j-1, code j) → id; the last level's ids are group ids. */
  readonly P: NumTable[];
  /** The same for ids and codes under 256: a direct table (-1: not yet). */
  readonly Q: Int32Array[];
  readonly pairCount: number[];
  /** Per group (several keys only): the code of each key. */
  gcodes: Int32Array[];
  /** Filter-only pipelines: the selected rows of the current batch. */
  sel: Uint32Array = new Uint32Array(0);

  constructor(
    private readonly nAggs: number,
    private readonly nKeys: number,
    private readonly bytesPerGroup: number,
    private readonly workMem: number,
  ) {
    this.A = [];
    this.C = [];
    this.M = [];
    this.big = Array.from({ length: nAggs }, () => null);
    this.U = Array.from({ length: nAggs }, () => []);
    this.numValues = Array.from({ length: nKeys }, () => []);
    this.nullCodes = new Array<number>(nKeys).fill(-1);
    this.D = Array.from({ length: nKeys }, (_v, j) => new NumTable((v) => this.numCode(j, v)));
    this.codeCount = new Array<number>(nKeys).fill(0);
    this.T = Array.from({ length: nKeys }, (_v, j) => new TextCodes(() => this.codeCount[j]!++));
    this.P = Array.from({ length: nKeys }, () => new NumTable(null));
    this.Q = Array.from({ length: nKeys }, (_v, j) => (j === 0 ? new Int32Array(0) : new Int32Array(65536).fill(-1)));
    this.pairCount = new Array<number>(nKeys).fill(0);
    this.gcodes = Array.from({ length: nKeys }, () => new Int32Array(0));
    this.grow(1);
    if (nKeys === 0) this.groups = 1;
  }

  grow(need: number): void {
    if (need <= this.cap) return;
    let cap = Math.max(16, this.cap);
    while (cap < need) cap *= 2;
    if (cap * this.bytesPerGroup > this.workMem && need * this.bytesPerGroup > this.workMem) throw workMemExceeded('hash aggregate', this.workMem);
    const widen = (a: Float64Array | undefined): Float64Array => {
      const b = new Float64Array(cap);
      if (a !== undefined) b.set(a);
      return b;
    };
    for (let j = 0; j < this.nAggs; j++) {
      this.A[j] = widen(this.A[j]);
      this.C[j] = widen(this.C[j]);
      this.M[j] = widen(this.M[j]);
    }
    if (this.nKeys > 1)
      this.gcodes = this.gcodes.map((a) => {
        const b = new Int32Array(cap);
        b.set(a);
        return b;
      });
    this.cap = cap;
  }

  nullCode(j: number): number {
    if (this.nullCodes[j]! < 0) this.nullCodes[j] = this.numCode(j, null);
    return this.nullCodes[j]!;
  }

  /** A new code of key j for `v` (the table or nullCode remembers it). */
  private numCode(j: number, v: number | null): number {
    const c = this.codeCount[j]!++;
    this.numValues[j]![c] = v;
    if (this.nKeys === 1) this.groups = c + 1;
    return c;
  }

  /** A new id at level j for a direct-table index `ix` or a Map key `pk` (the other is -1). */
  pair(j: number, ix: number, pk: number): number {
    const id = this.pairCount[j]!++;
    this.remember(j, ix, pk, id);
    return id;
  }

  newGroup(j: number, ix: number, pk: number, codes: number[]): number {
    const g = this.groups++;
    this.remember(j, ix, pk, g);
    this.grow(g + 1);
    for (let k = 0; k < codes.length; k++) this.gcodes[k]![g] = codes[k]!;
    return g;
  }

  private remember(j: number, ix: number, pk: number, id: number): void {
    if (ix >= 0) this.Q[j]![ix] = id;
    else this.P[j]!.set(pk, id);
  }

  spill(j: number, g: number, s: number): void {
    const b = (this.big[j] ??= []);
    b[g] = (b[g] ?? 0n) + BigInt(s);
  }

  /** After the last batch: the number of groups (single text keys count through their codes). */
  finalGroups(): number {
    if (this.nKeys === 1) return this.codeCount[0]!;
    return this.groups;
  }
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

/**
 * Aggregation state reduced to plain data (what a worker thread sends back): per group its
 * key values, and per aggregate the accumulator, count and exact-sum overflow.
 */
export interface Partial {
  readonly groups: number;
  /** Raw key values: numbers as generated (converted once, after merging), text as strings. */
  readonly keys: (number | string | null)[][];
  readonly A: Float64Array[];
  readonly C: Float64Array[];
  readonly big: (bigint[] | null)[];
  /** count(DISTINCT): per aggregate, per group, the distinct values (empty for other aggregates). */
  readonly U: (Float64Array | null)[][];
  readonly M: Float64Array[];
}

export function partialOf(S: GroupState, c: Compiled): Partial {
  const n = S.finalGroups();
  const keys: (number | string | null)[][] = [];
  for (const [j, k] of c.keys.entries()) {
    const values = k.rep.k === 'str' ? S.T[j]!.values : S.numValues[j]!;
    if (c.keys.length === 1) keys.push(values.slice(0, n));
    else {
      const col: (number | string | null)[] = [];
      for (let g = 0; g < n; g++) col.push(values[S.gcodes[j]![g]!]!);
      keys.push(col);
    }
  }
  const U = c.aggs!.map((a, j) => (a.call.distinct ? Array.from({ length: n }, (_v, g) => (S.U[j]![g] === undefined ? null : Float64Array.from(S.U[j]![g]))) : []));
  return { groups: n, keys, A: S.A.map((a) => a.slice(0, n)), C: S.C.map((a) => a.slice(0, n)), big: S.big.map((b) => (b === null ? null : b.slice(0, n))), U, M: S.M.map((a) => a.slice(0, n)) };
}

/** Partials merged by key (PostgreSQL's combine functions), then finalized: keys, then aggregates. */
export async function merge(c: Compiled, parts: readonly Partial[]): Promise<RowBatch> {
  const aggs = c.aggs!;
  const total = parts.reduce((a, p) => a + p.groups, 0);
  const index = new Map<number | string | null, number>();
  // Arrays grow by push: `new Array(n)` of millions is a slow dictionary-mode array in V8.
  const keys: (number | string | null)[][] = c.keys.map(() => []);
  // Per aggregate: count, accumulator (a number while exact), display scale, and the groups
  // whose exact sum outgrew a number (bigint) or whose distinct values are kept.
  const cnt = aggs.map(() => new Float64Array(total));
  const acc = aggs.map(() => new Float64Array(total));
  const scales = aggs.map(() => new Float64Array(total));
  const big = aggs.map(() => new Map<number, bigint>());
  const sets = aggs.map(() => new Map<number, Set<number>>());
  let n = 0;
  for (const p of parts) {
    for (let g = 0; g < p.groups; g++) {
      if ((g & 4095) === 0 && tick()) await yieldNow();
      let at = n;
      if (parts.length > 1) {
        // One key: its raw value is the Map key (SameValueZero: -0 is 0, NaN is NaN); several:
        // their texts joined.
        let k: number | string | null;
        if (keys.length === 1) k = p.keys[0]![g]!;
        else {
          k = '';
          for (let j = 0; j < keys.length; j++) k += `${keyText(p.keys[j]![g]!, null)}\u0000`;
        }
        at = index.get(k) ?? n;
        if (at === n) index.set(k, at);
      }
      if (at === n) {
        n++;
        for (let j = 0; j < keys.length; j++) keys[j]!.push(p.keys[j]![g]!);
      }
      for (let j = 0; j < aggs.length; j++) {
        const a = aggs[j]!;
        if (a.call.distinct) {
          const vals = p.U[j]![g];
          let into = sets[j]!.get(at);
          if (into === undefined) sets[j]!.set(at, (into = new Set()));
          if (vals !== null && vals !== undefined) for (const v of vals) into.add(v);
          cnt[j]![at] = into.size;
          continue;
        }
        const C = p.C[j]![g]!;
        const n0 = cnt[j]![at]!;
        cnt[j]![at] = n0 + C;
        if (C === 0 || a.call.fn === 'count') continue;
        const A = p.A[j]![g]!;
        const M = p.M[j]![g]!;
        const prev = acc[j]![at]!;
        const float = a.rep!.k === 'f4' || a.rep!.k === 'f8';
        if (a.call.fn === 'min' || a.call.fn === 'max') {
          const better = float ? H.cmpFloat(A, prev) : A - prev;
          if (n0 === 0 || (a.call.fn === 'min' ? better < 0 : better > 0)) {
            acc[j]![at] = A;
            scales[j]![at] = M;
          }
          continue;
        }
        if (n0 === 0 || M > scales[j]![at]!) scales[j]![at] = M;
        if (float) {
          acc[j]![at] = n0 === 0 ? A : a.rep!.k === 'f4' && a.call.fn === 'sum' ? Math.fround(prev + A) : prev + A;
          continue;
        }
        // Exact: a number while it is one (|x| ≤ 2^53), the rest in a bigint.
        const spill = p.big[j]?.[g];
        const sum = (n0 === 0 ? 0 : prev) + A;
        if (spill === undefined && sum <= 9007199254740991 && sum >= -9007199254740991) acc[j]![at] = sum;
        else {
          big[j]!.set(at, (big[j]!.get(at) ?? 0n) + BigInt(n0 === 0 ? 0 : prev) + BigInt(A) + (spill ?? 0n));
          acc[j]![at] = 0;
        }
      }
    }
  }
  const cols: Value[][] = keys.map((col, j) => {
    const k = c.keys[j]!;
    if (k.rep.k === 'str') return col;
    const out: Value[] = [];
    for (let g = 0; g < n; g++) out.push(toValue(col[g] as number | null, k.rep, k.type));
    return out;
  });
  for (let j = 0; j < aggs.length; j++) {
    const a = aggs[j]!;
    const col: Value[] = [];
    for (let g = 0; g < n; g++) {
      const b = big[j]!.get(g);
      col.push(aggValue(a, b === undefined ? acc[j]![g]! : b + BigInt(acc[j]![g]!), cnt[j]![g]!, scales[j]![g]!));
    }
    cols.push(col);
  }
  return { rows: n, cols };
}

function aggValue(a: AggOut, acc: number | bigint | undefined, count: number, display: number): Value {
  const fn = a.call.fn;
  if (fn === 'count') return BigInt(count);
  if (count === 0) return null;
  const rep = a.rep!;
  if (fn === 'min' || fn === 'max') {
    if (a.dynamic && rep.k === 'dec') return formatDecimalValue({ kind: 'finite', coef: BigInt(acc as number) / 10n ** BigInt(rep.scale - display), scale: display });
    return toValue(acc as number, rep, a.call.arg!.type);
  }
  if (rep.k === 'f4' || rep.k === 'f8') return fn === 'sum' ? (acc as number) : (acc as number) / count;
  let scale = rep.k === 'dec' ? rep.scale : 0;
  if (typeof acc === 'number' && !a.dynamic && fn === 'sum') return a.call.type.id === 'int8' ? BigInt(acc) : formatScaled(acc, scale);
  let exact = BigInt(acc!);
  if (a.dynamic && rep.k === 'dec') {
    // Every value had at most `display` digits after the point: the lower ones are zeros.
    exact /= 10n ** BigInt(scale - display);
    scale = display;
  }
  if (fn === 'avg') return averageDecimal({ kind: 'finite', coef: exact, scale }, BigInt(count));
  // sum: int2/int4 → int8; int8 → numeric; numeric → numeric at the inputs' scale.
  if (a.call.type.id === 'int8') return exact;
  return formatDecimalValue({ kind: 'finite', coef: exact, scale });
}

/** An exact integer `v` (|v| ≤ 2^53) scaled by 10^-scale as numeric text: formatDecimalValue without a bigint. */
function formatScaled(v: number, scale: number): string {
  const digits = String(Math.abs(v));
  const sign = v < 0 ? '-' : '';
  if (scale === 0) return sign + digits;
  const padded = digits.length <= scale ? '0'.repeat(scale - digits.length + 1) + digits : digits;
  return `${sign}${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`;
}

/** A generated number as the engine's value of `type`. */
function toValue(v: number | null, rep: Rep, type: PgType): Value {
  if (v === null) return null;
  switch (rep.k) {
    case 'big':
      return BigInt(v);
    case 'dec':
      return formatScaled(v, rep.scale);
    case 'bool':
      return v === 1;
    default:
      return type.id === 'int8' ? BigInt(v) : v;
  }
}

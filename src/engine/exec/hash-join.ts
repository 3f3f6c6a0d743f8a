/**
 * Hash join (and, without keys, nested loop) over wide batches (../join-plan.ts): the build
 * side is materialized into one column per slot it fills, hashed on its first key; probe
 * batches stream through and leave as batches of matched pairs.
 *
 *   build   rows 0..n-1 in `cols` (one Value[] per build slot); `head` maps a key to its
 *           last row, `next[i]` chains to the previous row with the same key (-1 ends):
 *             head: 42 → 7,  next[7] = 3,  next[3] = -1     (rows 3 and 7 have key 42)
 *   probe   per row, walk the chain of its first key, check the other keys with PostgreSQL's
 *           equality, collect (probe row, build row) pairs into two growable int arrays;
 *           then the join filter over the pairs, then outer-join padding with NULLs.
 *
 * Keys: NULL never matches. Integers, dates, floats (0 = -0, NaN = NaN as in PostgreSQL) and
 * bigints hash as themselves; numeric text hashes by its canonical form (1.50 = 1.5), bpchar
 * without trailing blanks. No object is allocated per probe row.
 *
 * Memory: the build side's estimated bytes (rows × row width) are checked against the work
 * memory after every build batch; past it the statement fails with 53200.
 */
import type { PgType, Value } from '../../types/index.js';
import type { Expr } from '../expr.js';
import { SQLSTATE } from '../../types/index.js';
import { SqlError } from '../errors.js';
import type { RowBatch } from './batch.js';
import { evaluate } from './eval.js';
import { tick, yieldNow } from '../context.js';

/** Output batches of a probe are cut at about this many rows. */
const CHUNK = 4096;

const EMPTY: Value[] = [];

export interface HashJoinSpec {
  readonly width: number;
  readonly probeSlots: readonly number[];
  readonly buildSlots: readonly number[];
  readonly probeKeys: readonly Expr[];
  readonly buildKeys: readonly Expr[];
  /** Semi-join: each probe row at most once, with no build columns. */
  readonly semi: boolean;
  /** Anti-join: the probe rows without a match, with no build columns. */
  readonly anti?: boolean;
  readonly preserveProbe: boolean;
  readonly preserveBuild: boolean;
  readonly joinFilter: Expr | null;
  readonly workMem: number;
}

type Norm = (v: Value) => unknown;

export class HashJoin {
  private readonly cols: Value[][];
  private readonly keyCols: Value[][];
  private readonly norms: Norm[];
  private n = 0;
  private bytes = 0;
  private rowWidth = -1;
  private head = new Map<unknown, number>();
  private next = new Int32Array(0);
  private matched: Uint8Array | null = null;
  private readonly pIdx: number[] = [];
  private readonly bIdx: number[] = [];
  /** Semi-joins: the probe row of the current probe batch last emitted. */
  private semiLast = -1;

  constructor(private readonly s: HashJoinSpec) {
    this.cols = s.buildSlots.map(() => []);
    this.keyCols = s.buildKeys.map(() => []);
    this.norms = s.buildKeys.map((k) => normalizer(k.type));
  }

  get buildRows(): number {
    return this.n;
  }

  addBuild(b: RowBatch): void {
    if (b.rows === 0) return;
    const keys = this.s.buildKeys.map((k) => evaluate(k, b));
    for (let k = 0; k < this.cols.length; k++) append(this.cols[k]!, b.cols[this.s.buildSlots[k]!]!, b.rows);
    for (let k = 0; k < keys.length; k++) append(this.keyCols[k]!, keys[k]!, b.rows);
    this.n += b.rows;
    if (this.rowWidth < 0) this.rowWidth = estimateWidth([...this.s.buildSlots.map((sl) => b.cols[sl]!), ...keys], b.rows);
    this.bytes = this.n * this.rowWidth;
    if (this.bytes > this.s.workMem) throw workMemExceeded(this.bytes, this.s.workMem, this.n);
  }

  /** Hashes the build side; call once, after the last addBuild. */
  async finishBuild(): Promise<void> {
    const n = this.n;
    this.next = new Int32Array(n);
    if (this.s.preserveBuild) this.matched = new Uint8Array(n);
    if (this.keyCols.length === 0) return;
    const key = this.keyCols[0]!;
    const norm = this.norms[0] === IDENTITY ? null : this.norms[0]!;
    // From the last row down, so that each chain runs in build order.
    for (let i = n - 1; i >= 0; i--) {
      if ((i & 4095) === 0 && tick()) await yieldNow();
      const v = key[i]!;
      if (v === null) {
        this.next[i] = -1;
        continue;
      }
      const k = norm === null ? v : norm(v);
      const h = this.head.get(k);
      this.next[i] = h === undefined ? -1 : h;
      this.head.set(k, i);
    }
  }

  /**
   * The joined batches of one probe batch. Batches are cut at CHUNK pairs, also in the middle of
   * one probe row's matches (a cross join's row meets every build row), so that every batch
   * that leaves is bounded and the caller's interrupt point (./rel.ts) comes often.
   */
  *probe(b: RowBatch): Generator<RowBatch> {
    const s = this.s;
    const pIdx = this.pIdx;
    const bIdx = this.bIdx;
    pIdx.length = 0;
    bIdx.length = 0;
    const keys = s.probeKeys.map((k) => evaluate(k, b));
    const matchedProbe = s.preserveProbe || s.anti === true ? new Uint8Array(b.rows) : null;
    const nk = keys.length;
    const n = this.n;
    // Integer, date, float, bigint and text keys hash as themselves: no call per row for them.
    const norm0 = nk > 0 && this.norms[0] !== IDENTITY ? this.norms[0]! : null;
    let from = 0;
    this.semiLast = -1;
    for (let i = 0; i < b.rows; i++) {
      if (nk === 0) {
        for (let j = 0; j < n; j++) {
          pIdx.push(i);
          bIdx.push(j);
          if (pIdx.length >= CHUNK) {
            // Row i is not done: it is padded (outer, anti) by a later batch, once it is.
            const out = this.emit(b, matchedProbe, from, i);
            from = i;
            pIdx.length = 0;
            bIdx.length = 0;
            if (out.rows > 0) yield out;
          }
        }
      } else {
        const v = keys[0]![i]!;
        if (v !== null) {
          let j = this.head.get(norm0 === null ? v : norm0(v));
          if (j !== undefined) {
            for (; j >= 0; j = this.next[j]!) {
              let ok = true;
              for (let k = 1; k < nk && ok; k++) {
                const a = keys[k]![i]!;
                const c = this.keyCols[k]![j]!;
                ok = a !== null && c !== null && same(this.norms[k]!(a), this.norms[k]!(c));
              }
              if (ok) {
                pIdx.push(i);
                bIdx.push(j);
                if ((s.semi || s.anti === true) && s.joinFilter === null) break;
                if (pIdx.length >= CHUNK) {
                  const out = this.emit(b, matchedProbe, from, i);
                  from = i;
                  pIdx.length = 0;
                  bIdx.length = 0;
                  if (out.rows > 0) yield out;
                }
              }
            }
          }
        }
      }
      if (pIdx.length >= CHUNK || i === b.rows - 1) {
        const out = this.emit(b, matchedProbe, from, i + 1);
        from = i + 1;
        pIdx.length = 0;
        bIdx.length = 0;
        if (out.rows > 0) yield out;
      }
    }
  }

  /** The pairs collected (after the join filter), then the unmatched probe rows in [from, to). */
  private emit(b: RowBatch, matchedProbe: Uint8Array | null, from: number, to: number): RowBatch {
    const s = this.s;
    let p = this.pIdx;
    let q = this.bIdx;
    if (s.joinFilter !== null && p.length > 0) {
      const v = evaluate(s.joinFilter, this.pairs(b, p, q));
      const kp: number[] = [];
      const kq: number[] = [];
      for (let i = 0; i < p.length; i++)
        if (v[i] === true) {
          kp.push(p[i]!);
          kq.push(q[i]!);
        }
      p = kp;
      q = kq;
    }
    if (s.semi) {
      // Pairs come in probe-row order: keep the first of each row, without its build row (a
      // row's pairs may span batches: `semiLast` is the last row kept, across them).
      const sp: number[] = [];
      const sq: number[] = [];
      for (let i = 0; i < p.length; i++)
        if (p[i] !== this.semiLast) {
          this.semiLast = p[i]!;
          sp.push(p[i]!);
          sq.push(-1);
        }
      return this.pairs(b, sp, sq);
    }
    if (s.anti === true && matchedProbe !== null) {
      for (let i = 0; i < p.length; i++) matchedProbe[p[i]!] = 1;
      const ap: number[] = [];
      const aq: number[] = [];
      for (let i = from; i < to; i++)
        if (matchedProbe[i] === 0) {
          ap.push(i);
          aq.push(-1);
        }
      return this.pairs(b, ap, aq);
    }
    if (matchedProbe !== null) {
      for (let i = 0; i < p.length; i++) matchedProbe[p[i]!] = 1;
      for (let i = from; i < to; i++)
        if (matchedProbe[i] === 0) {
          p.push(i);
          q.push(-1);
        }
    }
    if (this.matched !== null) for (let i = 0; i < q.length; i++) if (q[i]! >= 0) this.matched[q[i]!] = 1;
    return this.pairs(b, p, q);
  }

  /** The batch of pairs (probe row p[i], build row q[i]; -1 is a row of NULLs). */
  private pairs(b: RowBatch, p: readonly number[], q: readonly number[]): RowBatch {
    const s = this.s;
    const rows = p.length;
    const cols: Value[][] = new Array<Value[]>(s.width).fill(EMPTY);
    for (const slot of s.probeSlots) {
      const src = b.cols[slot]!;
      const out = new Array<Value>(rows);
      for (let i = 0; i < rows; i++) out[i] = p[i]! < 0 ? null : src[p[i]!]!;
      cols[slot] = out;
    }
    s.buildSlots.forEach((slot, k) => {
      const src = this.cols[k]!;
      const out = new Array<Value>(rows);
      for (let i = 0; i < rows; i++) out[i] = q[i]! < 0 ? null : src[q[i]!]!;
      cols[slot] = out;
    });
    return { rows, cols };
  }

  /** Build rows no probe row matched (RIGHT/FULL joins by execution side), after the last probe. */
  *unmatched(): Generator<RowBatch> {
    if (this.matched === null) return;
    const p: number[] = [];
    const q: number[] = [];
    for (let j = 0; j < this.n; j++)
      if (this.matched[j] === 0) {
        p.push(-1);
        q.push(j);
        if (q.length >= CHUNK) {
          yield this.pairs({ rows: 0, cols: [] }, p, q);
          p.length = 0;
          q.length = 0;
        }
      }
    if (q.length > 0) yield this.pairs({ rows: 0, cols: [] }, p, q);
  }
}

function append(dst: Value[], src: readonly Value[], rows: number): void {
  for (let i = 0; i < rows; i++) dst.push(src[i]!);
}

/** 0 = -0 and NaN = NaN, as PostgreSQL's float equality; the rest by value. */
function same(a: unknown, b: unknown): boolean {
  return a === b || (a !== a && b !== b);
}

/** The hash key of a value of a key type (see the header). */
function normalizer(t: PgType): Norm {
  switch (t.id) {
    case 'numeric':
      return (v) => canonicalNumeric(v as string);
    case 'bpchar':
      return (v) => (v as string).replace(/ +$/, '');
    default:
      return IDENTITY;
  }
}

const IDENTITY: Norm = (v) => v;

/** `-01.500` → `-1.5`, `0.00` → `0`: equal numerics, equal text. */
function canonicalNumeric(s: string): string {
  if (!/^[+-]?\d*\.?\d*$/.test(s)) return s; // NaN, Infinity
  let neg = s.startsWith('-');
  let t = s.replace(/^[+-]/, '');
  if (t.includes('.')) t = t.replace(/0+$/, '').replace(/\.$/, '');
  t = t.replace(/^0+(?=\d)/, '');
  if (t === '' || /^0*$/.test(t)) {
    t = '0';
    neg = false;
  }
  return neg ? `-${t}` : t;
}

/** Bytes per build row: values, strings by a sample, plus the hash chain's share. */
function estimateWidth(cols: readonly Value[][], rows: number): number {
  let w = 24;
  for (const c of cols) {
    let sample = 0;
    let n = 0;
    for (let i = 0; i < rows && n < 32; i++, n++) {
      const v = c[i];
      sample += typeof v === 'string' ? 24 + 2 * v.length : typeof v === 'bigint' ? 24 : v instanceof Uint8Array ? 64 + v.length : 8;
    }
    w += n === 0 ? 8 : Math.ceil(sample / n) + 8;
  }
  return w;
}

function workMemExceeded(bytes: number, workMem: number, rows: number): SqlError {
  const mb = (x: number) => `${(x / (1024 * 1024)).toFixed(1)} MB`;
  return new SqlError(
    'usage',
    SQLSTATE.out_of_memory,
    `out of memory: the hash join's build side needs more than ${mb(bytes)} for ${rows} rows, more than the work memory of ${mb(workMem)}`,
  );
}

/**
 * Hash join (and, without keys, nested loop) over wide batches (../../join-plan.ts), in memory:
 * the build side is materialized into one column per slot it fills and hashed on all its keys
 * into typed arrays; probe batches stream through and leave as batches of matched pairs.
 * ./grace-join.ts drives it, and partitions both sides to temporary files when the build side
 * does not fit in the work memory.
 *
 *   build   rows 0..n-1 in `cols` (one Value[] per build slot), the keys' normal forms in
 *           `keyCols` (./key-hash.ts) and each row's 32-bit key hash in `hashes`. The table is
 *           chained in two Int32Arrays: `head[h & mask]` is the first row of a bucket,
 *           `next[i]` the row after row i (-1 ends), in build order:
 *             head[5] = 3,  next[3] = 7,  next[7] = -1     (rows 3 and 7 hash to bucket 5)
 *           A row with a NULL key is in no chain.
 *   probe   per batch: the probe keys' normal forms and hashes (one pass per key column), then
 *           per row one walk of its bucket's chain comparing the stored hash first and then
 *           every key; the matches go to two Int32Arrays (probe row, build row), a selection
 *           pair, from which the output columns are gathered once per output batch; then the
 *           join filter over the pairs, then outer-join padding with NULLs.
 *
 * Keys compare with PostgreSQL's equality (./key-hash.ts): NULL never matches, 0 = -0,
 * NaN = NaN, numeric by value, bpchar without trailing blanks. No object is allocated and no
 * closure called per probe row.
 *
 * Memory: the build side's estimated bytes (rows × row width) are checked against the work
 * memory after every build batch (`exceeded`); the driver spills or fails with 53200.
 */
import type { Value } from '../../../types/index.js';
import { SQLSTATE } from '../../../types/index.js';
import type { Expr } from '../../expr.js';
import { SqlError } from '../../errors.js';
import type { RowBatch } from '../batch.js';
import { evaluate } from '../eval.js';
import { tick, yieldNow } from '../../context.js';
import { hasNullKey, hashKeys, normalizeKey, sameKey } from './key-hash.js';

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

export class HashJoin {
  private readonly cols: Value[][];
  private readonly keyCols: Value[][];
  private hashes: Int32Array = new Int32Array(1024);
  private n = 0;
  private bytes = 0;
  private rowWidth = -1;
  private head = new Int32Array(0);
  private mask = 0;
  private next = new Int32Array(0);
  private matched: Uint8Array | null = null;
  /** The pairs collected for the next output batch: probe row pIdx[i] with build row bIdx[i]. */
  private pIdx = new Int32Array(CHUNK + 1);
  private bIdx = new Int32Array(CHUNK + 1);
  private m = 0;
  private probeHashes: Int32Array = new Int32Array(1024);
  /** Semi-joins: the probe row of the current probe batch last emitted. */
  private semiLast = -1;

  constructor(private readonly s: HashJoinSpec) {
    this.cols = s.buildSlots.map(() => []);
    this.keyCols = s.buildKeys.map(() => []);
  }

  get buildRows(): number {
    return this.n;
  }

  /** Whether the build side so far needs more than the work memory. */
  get exceeded(): boolean {
    return this.bytes > this.s.workMem;
  }

  /** The normal forms of a batch's build (or probe) keys and their hashes (./grace-join.ts partitions by them). */
  keysOf(b: RowBatch, side: 'build' | 'probe'): { keys: readonly (readonly Value[])[]; hashes: Int32Array } {
    const exprs = side === 'build' ? this.s.buildKeys : this.s.probeKeys;
    const keys = exprs.map((k) => normalizeKey(k.type, evaluate(k, b), b.rows));
    return { keys, hashes: hashKeys(keys, b.rows, new Int32Array(b.rows)) };
  }

  addBuild(b: RowBatch): void {
    if (b.rows === 0) return;
    const s = this.s;
    const raw = s.buildKeys.map((k) => evaluate(k, b));
    const keys = raw.map((c, k) => normalizeKey(s.buildKeys[k]!.type, c, b.rows));
    for (let k = 0; k < this.cols.length; k++) append(this.cols[k]!, b.cols[s.buildSlots[k]!]!, b.rows);
    for (let k = 0; k < keys.length; k++) append(this.keyCols[k]!, keys[k]!, b.rows);
    if (this.hashes.length < this.n + b.rows) {
      const h = new Int32Array(Math.max(this.n + b.rows, 2 * this.hashes.length));
      h.set(this.hashes.subarray(0, this.n));
      this.hashes = h;
    }
    hashKeys(keys, b.rows, this.hashes.subarray(this.n));
    this.n += b.rows;
    if (this.rowWidth < 0) this.rowWidth = estimateWidth([...s.buildSlots.map((sl) => b.cols[sl]!), ...raw], b.rows);
    this.bytes = this.n * this.rowWidth;
  }

  /** The build rows so far as wide batches, leaving the table empty (the driver spills them). */
  *drain(): Generator<RowBatch> {
    const s = this.s;
    for (let start = 0; start < this.n; start += CHUNK) {
      const rows = Math.min(CHUNK, this.n - start);
      const cols: Value[][] = new Array<Value[]>(s.width).fill(EMPTY);
      for (let k = 0; k < s.buildSlots.length; k++) cols[s.buildSlots[k]!] = this.cols[k]!.slice(start, start + rows);
      yield { rows, cols };
    }
    for (const c of this.cols) c.length = 0;
    for (const c of this.keyCols) c.length = 0;
    this.n = 0;
    this.bytes = 0;
  }

  /** The 53200 of a build side past the work memory (a join that cannot spill). */
  tooBig(): SqlError {
    return workMemExceeded(this.bytes, this.s.workMem, this.n);
  }

  /** Hashes the build side; call once, after the last addBuild. */
  async finishBuild(): Promise<void> {
    const n = this.n;
    this.next = new Int32Array(n).fill(-1);
    if (this.s.preserveBuild) this.matched = new Uint8Array(n);
    if (this.keyCols.length === 0) return;
    let size = 16;
    while (size < 2 * n) size *= 2;
    this.mask = size - 1;
    const head = (this.head = new Int32Array(size).fill(-1));
    const next = this.next;
    const hashes = this.hashes;
    const keys = this.keyCols;
    // From the last row down, so that each chain runs in build order.
    for (let i = n - 1; i >= 0; i--) {
      if ((i & 65535) === 0 && tick()) await yieldNow();
      if (hasNullKey(keys, i)) continue;
      const bucket = hashes[i]! & this.mask;
      next[i] = head[bucket]!;
      head[bucket] = i;
    }
  }

  /**
   * The joined batches of one probe batch. Batches are cut at CHUNK pairs, also in the middle of
   * one probe row's matches (a cross join's row meets every build row), so that every batch
   * that leaves is bounded and the caller's interrupt point (../rel.ts) comes often.
   */
  *probe(b: RowBatch): Generator<RowBatch> {
    const s = this.s;
    this.m = 0;
    const nk = s.probeKeys.length;
    const keys = s.probeKeys.map((k) => normalizeKey(k.type, evaluate(k, b), b.rows));
    const matchedProbe = s.preserveProbe || s.anti === true ? new Uint8Array(b.rows) : null;
    const firstOnly = (s.semi || s.anti === true) && s.joinFilter === null;
    const n = this.n;
    let from = 0;
    this.semiLast = -1;
    if (nk === 0) {
      for (let i = 0; i < b.rows; i++) {
        for (let j = 0; j < n; j++) {
          this.pIdx[this.m] = i;
          this.bIdx[this.m++] = j;
          if (firstOnly) break;
          if (this.m >= CHUNK) {
            // Row i is not done: it is padded (outer, anti) by a later batch, once it is.
            const out = this.emit(b, matchedProbe, from, i);
            from = i;
            if (out.rows > 0) yield out;
          }
        }
        if (this.m >= CHUNK || i === b.rows - 1) {
          const out = this.emit(b, matchedProbe, from, i + 1);
          from = i + 1;
          if (out.rows > 0) yield out;
        }
      }
      return;
    }
    const ph = (this.probeHashes = hashKeys(keys, b.rows, this.probeHashes));
    const head = this.head;
    const next = this.next;
    const mask = this.mask;
    const bh = this.hashes;
    const bk = this.keyCols;
    const k0 = keys[0]!;
    const b0 = bk[0]!;
    for (let i = 0; i < b.rows; i++) {
      const v = k0[i]!;
      if (v !== null && (nk === 1 || !hasNullKey(keys, i))) {
        const h = ph[i]!;
        for (let j = head[h & mask]!; j >= 0; j = next[j]!) {
          if (bh[j] !== h || !sameKey(v, b0[j]!)) continue;
          let ok = true;
          for (let k = 1; k < nk && ok; k++) ok = sameKey(keys[k]![i]!, bk[k]![j]!);
          if (!ok) continue;
          this.pIdx[this.m] = i;
          this.bIdx[this.m++] = j;
          if (firstOnly) break;
          if (this.m >= CHUNK) {
            const out = this.emit(b, matchedProbe, from, i);
            from = i;
            if (out.rows > 0) yield out;
          }
        }
      }
      if (this.m >= CHUNK || i === b.rows - 1) {
        const out = this.emit(b, matchedProbe, from, i + 1);
        from = i + 1;
        if (out.rows > 0) yield out;
      }
    }
  }

  /**
   * The pairs collected (after the join filter), then the unmatched probe rows in [from, to);
   * empties the pair buffers.
   */
  private emit(b: RowBatch, matchedProbe: Uint8Array | null, from: number, to: number): RowBatch {
    const s = this.s;
    const p = this.pIdx;
    const q = this.bIdx;
    let m = this.m;
    this.m = 0;
    if (s.joinFilter !== null && m > 0) {
      const v = evaluate(s.joinFilter, this.pairs(b, p, q, m));
      let w = 0;
      for (let i = 0; i < m; i++)
        if (v[i] === true) {
          p[w] = p[i]!;
          q[w++] = q[i]!;
        }
      m = w;
    }
    if (s.semi) {
      // Pairs come in probe-row order: keep the first of each row, without its build row (a
      // row's pairs may span batches: `semiLast` is the last row kept, across them).
      let w = 0;
      for (let i = 0; i < m; i++)
        if (p[i] !== this.semiLast) {
          this.semiLast = p[i]!;
          p[w] = p[i]!;
          q[w++] = -1;
        }
      return this.pairs(b, p, q, w);
    }
    if (this.matched !== null) for (let i = 0; i < m; i++) this.matched[q[i]!] = 1;
    if (matchedProbe !== null) {
      for (let i = 0; i < m; i++) matchedProbe[p[i]!] = 1;
      if (s.anti === true) m = 0;
      this.room(m + (to - from));
      const pp = this.pIdx;
      const qq = this.bIdx;
      for (let i = from; i < to; i++)
        if (matchedProbe[i] === 0) {
          pp[m] = i;
          qq[m++] = -1;
        }
      return this.pairs(b, pp, qq, m);
    }
    return this.pairs(b, p, q, m);
  }

  /** Grows the pair buffers to hold `n` pairs (keeping their contents). */
  private room(n: number): void {
    if (this.pIdx.length >= n) return;
    const size = Math.max(n, 2 * this.pIdx.length);
    const p = new Int32Array(size);
    const q = new Int32Array(size);
    p.set(this.pIdx);
    q.set(this.bIdx);
    this.pIdx = p;
    this.bIdx = q;
  }

  /** The batch of pairs i < rows (probe row p[i], build row q[i]; -1 is a row of NULLs). */
  private pairs(b: RowBatch, p: Int32Array, q: Int32Array, rows: number): RowBatch {
    const s = this.s;
    const cols: Value[][] = new Array<Value[]>(s.width).fill(EMPTY);
    for (const slot of s.probeSlots) {
      const src = b.cols[slot]!;
      const out = new Array<Value>(rows);
      for (let i = 0; i < rows; i++) {
        const r = p[i]!;
        out[i] = r < 0 ? null : src[r]!;
      }
      cols[slot] = out;
    }
    for (let k = 0; k < s.buildSlots.length; k++) {
      const src = this.cols[k]!;
      const out = new Array<Value>(rows);
      for (let i = 0; i < rows; i++) {
        const r = q[i]!;
        out[i] = r < 0 ? null : src[r]!;
      }
      cols[s.buildSlots[k]!] = out;
    }
    return { rows, cols };
  }

  /** Build rows no probe row matched (RIGHT/FULL joins by execution side), after the last probe. */
  *unmatched(): Generator<RowBatch> {
    const matched = this.matched;
    if (matched === null) return;
    const none = { rows: 0, cols: [] };
    let m = 0;
    for (let j = 0; j < this.n; j++)
      if (matched[j] === 0) {
        this.pIdx[m] = -1;
        this.bIdx[m++] = j;
        if (m >= CHUNK) {
          yield this.pairs(none, this.pIdx, this.bIdx, m);
          m = 0;
        }
      }
    if (m > 0) yield this.pairs(none, this.pIdx, this.bIdx, m);
  }
}

function append(dst: Value[], src: readonly Value[], rows: number): void {
  for (let i = 0; i < rows; i++) dst.push(src[i]!);
}

/** Bytes per build row: values, strings by a sample, plus the hash table's share. */
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

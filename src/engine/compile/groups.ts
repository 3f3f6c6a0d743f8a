/**
 * The group tables of a compiled pipeline: one dense code per key value (an open-addressing
 * number table, byte-keyed codes for text, direct tables for short strings), pairs of codes
 * for several keys, and the aggregation state indexed by group id (Float64Arrays, exact-sum
 * spills into bigints, distinct sets, display scales) that the generated loop updates.
 */

import { workMemExceeded } from '../errors.js';
import { H } from './helpers.js';

/**
 * An open-addressing hash table from numbers to ids (codes of a key's values, or pair ids):
 * V8's Map takes about a microsecond per insert at millions of entries; this takes tens of
 * nanoseconds. Keys compare as PostgreSQL's equality does: -0 is 0, NaN equals NaN.
 * With `onNew`, `code(v)` assigns ids to new keys; without, `get`/`set` are used.
 */
export class NumTable {
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
export class TextCodes {
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

export const DECODER = new TextDecoder('utf-8', { ignoreBOM: true }); // a leading U+FEFF is part of the value

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

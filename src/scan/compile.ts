/**
 * Row evaluation of a bound predicate, compiled to JavaScript (STYLE.md "Hot paths"): one
 * generated loop per predicate shape, with every leaf inlined as an expression over the
 * columns' typed arrays, so V8 sees one monomorphic loop per batch. No closure is called and
 * no object is allocated per row (except for unconstrained numeric, whose text must be
 * parsed to be compared); int8/timestamp values are compared as (hi int32, lo uint32) pairs
 * so that no BigInt is created.
 *
 * The generated function maps a selection to a selection:
 *
 *   const ev = compilePredicate(bp);
 *   const n = ev.run(cols, start, end, sel, selLen, out);
 *   // out[0..n) = the rows i (start <= i < end, or i in sel[0..selLen)) where bp is TRUE
 *
 * `cols[slot]` is the column of the predicate's field `slot`. Sources are cached per shape
 * (the leaves' slots, physical kinds, operators and, for floats, whether the constant is
 * NaN); constants are passed in an array, so a running bound whose value changes reuses the
 * compiled code (./bounds.ts).
 *
 * Leaves follow PostgreSQL: NULL is never true; floats order NaN above everything (NaN = NaN);
 * text compares byte-wise on UTF-8 (collation "C"), bpchar ignoring trailing spaces;
 * bytea/uuid memcmp with the shorter prefix first; numeric(p,s) as unscaled decimal128.
 */
import { type Column, type Value, compareNumericParts, parseNumericText, type NumericParts, type PgType, physicalOf, unreachable } from '../types/index.js';
import { type BoundPredicate, type CmpOp, type Node, IN_NODE_MIN } from './predicate.js';

export type PredicateFn = (cols: readonly Column[], start: number, end: number, sel: Uint32Array | null, selLen: number, out: Uint32Array) => number;

export interface CompiledPredicate {
  readonly run: PredicateFn;
  /** The generated source (for tests and debugging). */
  readonly source: string;
}

type Kernel = (cols: readonly Column[], k: readonly unknown[], start: number, end: number, sel: Uint32Array | null, selLen: number, out: Uint32Array) => number;

const cache = new Map<string, { kernel: Kernel; source: string }>();

/** The number of distinct shapes compiled so far (tests assert reuse). */
export function compiledShapes(): number {
  return cache.size;
}

export function compilePredicate(bp: BoundPredicate): CompiledPredicate {
  const g = new Generator(bp);
  const expr = g.node(bp.root);
  const key = g.shape.join(';');
  let hit = cache.get(key);
  if (hit === undefined) {
    const source = g.source(expr);
    const factory = new Function('H', source) as (h: typeof HELPERS) => Kernel;
    hit = { kernel: factory(HELPERS), source };
    cache.set(key, hit);
  }
  const kernel = hit.kernel;
  const k = g.constants;
  return { run: (cols, start, end, sel, selLen, out) => kernel(cols, k, start, end, sel, selLen, out), source: hit.source };
}

const JS_OP: Record<CmpOp, string> = { '=': '===', '<>': '!==', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

class Generator {
  readonly shape: string[] = [];
  readonly constants: unknown[] = [];
  private readonly prelude = new Set<string>();
  private temps = 0;

  constructor(private readonly bp: BoundPredicate) {}

  private constant(v: unknown): string {
    this.constants.push(v);
    return `k${this.constants.length - 1}`;
  }

  private valid(slot: number): string {
    this.prelude.add(`const V${slot} = cols[${slot}].validity;`);
    return `(V${slot} === null || (V${slot}[i >>> 3] & (1 << (i & 7))) !== 0)`;
  }

  node(n: Node): string {
    switch (n.kind) {
      case 'never':
        this.shape.push('never');
        return 'false';
      case 'null':
        this.shape.push(`null${n.slot}${n.negated ? '!' : ''}`);
        this.prelude.add(`const V${n.slot} = cols[${n.slot}].validity;`);
        return n.negated ? this.valid(n.slot) : `(V${n.slot} !== null && (V${n.slot}[i >>> 3] & (1 << (i & 7))) === 0)`;
      case 'and':
      case 'or': {
        this.shape.push(`${n.kind}(`);
        const parts = [...this.memberships(n.kind, n.args), ...this.rest(n.kind, n.args).map((a) => this.node(a))];
        this.shape.push(')');
        return `(${parts.join(n.kind === 'and' ? ' && ' : ' || ')})`;
      }
      case 'cmp':
        return `(${this.valid(n.slot)} && ${this.cmp(n.slot, this.bp.fields[n.slot]!.type, n.op, n.value)})`;
      case 'in': {
        // A long IN list bound as one node (./predicate.ts): the same membership test as an OR of `=`.
        const t = this.bp.fields[n.slot]!.type;
        if (n.negated) this.shape.push('!');
        return `(${this.valid(n.slot)} && ${n.negated ? '!' : ''}${this.member(n.slot, t, physicalOf(t), n.values)})`;
      }
    }
  }

  /**
   * A long IN list (an OR of `=` on one column; NOT IN: an AND of `<>`) as one membership test
   * per column instead of one comparison per value: 100,000 values would otherwise be a
   * function V8 takes seconds to compile, and as many comparisons per row.
   */
  private memberships(kind: 'and' | 'or', args: readonly Node[]): string[] {
    const out: string[] = [];
    for (const [slot, values] of listsOf(kind, args)) {
      const t = this.bp.fields[slot]!.type;
      const p = physicalOf(t);
      const test = this.member(slot, t, p, values);
      out.push(`(${this.valid(slot)} && ${kind === 'or' ? '' : '!'}${test})`);
    }
    return out;
  }

  /** The operands `memberships` does not take. */
  private rest(kind: 'and' | 'or', args: readonly Node[]): readonly Node[] {
    const lists = listsOf(kind, args);
    if (lists.size === 0) return args;
    return args.filter((a) => !(a.kind === 'cmp' && a.op === (kind === 'or' ? '=' : '<>') && lists.has(a.slot)));
  }

  private member(slot: number, t: PgType, p: ReturnType<typeof physicalOf>, values: readonly Exclude<Value, null>[]): string {
    this.shape.push(`in${t.id}${slot}`); // the type, not only its layout: uuid and decimal128 (bpchar, numeric and text) search differently
    switch (p) {
      case 'i16':
      case 'i32':
      case 'f32':
      case 'f64':
        // SameValueZero: -0 finds 0 and NaN finds NaN, as PostgreSQL's float equality has it.
        this.prelude.add(`const A${slot} = cols[${slot}].values;`);
        return `${this.constant(new Set(values as number[]))}.has(A${slot}[i])`;
      case 'i64': {
        // hi word → the set of lo words: no BigInt per row.
        const byHi = new Map<number, Set<number>>();
        for (const v of values) {
          const big = BigInt.asUintN(64, v as bigint);
          const hi = Number(BigInt.asIntN(32, big >> 32n));
          let lo = byHi.get(hi);
          if (lo === undefined) byHi.set(hi, (lo = new Set()));
          lo.add(Number(big & 0xffffffffn));
        }
        this.prelude.add(`const W${slot} = H.words(cols[${slot}].values);`);
        return `H.has64(${this.constant(byHi)}, W${slot}, i)`;
      }
      case 'bit':
        this.prelude.add(`const A${slot} = cols[${slot}].values;`);
        return `${this.constant(new Set((values as boolean[]).map((b) => (b ? 1 : 0))))}.has((A${slot}[i >>> 3] >>> (i & 7)) & 1)`;
      case 'fixed16': {
        this.prelude.add(`const W${slot} = H.words(cols[${slot}].values);`);
        if (t.id === 'uuid') {
          this.prelude.add(`const A${slot} = cols[${slot}].values;`);
          const keys = (values as Uint8Array[]).slice().sort((a, b) => HELPERS.cmp16(a, 0, b));
          return `H.search16(${this.constant(keys)}, A${slot}, i)`;
        }
        // decimal128: the four limbs of each value, sorted as cmp128 orders them.
        const limbs = (values as bigint[]).map((v) => {
          const u = BigInt.asUintN(128, v);
          return Int32Array.from([0, 1, 2, 3], (j) => Number((u >> BigInt(32 * j)) & 0xffffffffn) | 0);
        });
        limbs.sort((a, b) => HELPERS.cmp128(a, 0, b[3]!, b[2]! >>> 0, b[1]! >>> 0, b[0]! >>> 0));
        return `H.search128(${this.constant(limbs)}, W${slot}, i)`;
      }
      case 'var': {
        this.prelude.add(`const O${slot} = cols[${slot}].offsets, D${slot} = cols[${slot}].data;`);
        if (t.id === 'numeric') {
          const keys = (values as string[]).map((v) => parseNumericText(v) ?? NAN_PARTS).sort(compareNumericParts);
          return `H.searchNumText(${this.constant(keys)}, D${slot}, O${slot}[i], O${slot}[i + 1])`;
        }
        const bytes = values.map((v) => (typeof v === 'string' ? ENC.encode(t.id === 'bpchar' ? stripSpaces(v) : v) : (v as Uint8Array)));
        bytes.sort((a, b) => HELPERS.cmpBytes(a, 0, a.length, b));
        return `H.${t.id === 'bpchar' ? 'searchBpchar' : 'searchBytes'}(${this.constant(bytes)}, D${slot}, O${slot}[i], O${slot}[i + 1])`;
      }
      default:
        return unreachable(p);
    }
  }

  private cmp(slot: number, t: PgType, op: CmpOp, v: Exclude<Value, null>): string {
    const p = physicalOf(t);
    const A = `A${slot}`;
    switch (p) {
      case 'i16':
      case 'i32':
        this.shape.push(`${p}${slot}${op}`);
        this.prelude.add(`const ${A} = cols[${slot}].values;`);
        return `${A}[i] ${JS_OP[op]} ${this.constant(v)}`;
      case 'f32':
      case 'f64': {
        const c = v as number;
        const nan = c !== c;
        this.shape.push(`${p}${slot}${op}${nan ? 'nan' : ''}`);
        this.prelude.add(`const ${A} = cols[${slot}].values;`);
        const x = `${A}[i]`;
        if (nan) {
          // NaN = NaN and NaN is above every other value (float8_cmp_internal).
          switch (op) {
            case '=':
            case '>=':
              return `${x} !== ${x}`;
            case '<>':
            case '<':
              return `${x} === ${x}`;
            case '<=':
              return 'true';
            case '>':
              return 'false';
          }
        }
        const k = this.constant(c);
        if (op === '>' || op === '>=') return `(${x} ${JS_OP[op]} ${k} || ${x} !== ${x})`;
        return `${x} ${JS_OP[op]} ${k}`;
      }
      case 'i64': {
        this.shape.push(`i64${slot}${op}`);
        this.prelude.add(`const W${slot} = H.words(cols[${slot}].values);`);
        const big = BigInt.asUintN(64, v as bigint);
        const hi = this.constant(Number(BigInt.asIntN(32, big >> 32n)));
        const lo = this.constant(Number(big & 0xffffffffn));
        const h = `h${this.temps}`;
        const l = `l${this.temps++}`;
        this.prelude.add(`let ${h} = 0, ${l} = 0;`);
        return `(((${h} = W${slot}[(i << 1) + 1]) < ${hi} ? -1 : ${h} > ${hi} ? 1 : (${l} = W${slot}[i << 1] >>> 0) < ${lo} ? -1 : ${l} > ${lo} ? 1 : 0) ${JS_OP[op]} 0)`;
      }
      case 'bit':
        this.shape.push(`bit${slot}${op}`);
        this.prelude.add(`const ${A} = cols[${slot}].values;`);
        return `(((${A}[i >>> 3] >>> (i & 7)) & 1) - ${this.constant(v ? 1 : 0)}) ${JS_OP[op]} 0`;
      case 'fixed16': {
        if (t.id === 'uuid') {
          this.shape.push(`uuid${slot}${op}`);
          this.prelude.add(`const ${A} = cols[${slot}].values;`);
          return `H.cmp16(${A}, i, ${this.constant(v)}) ${JS_OP[op]} 0`;
        }
        this.shape.push(`dec${slot}${op}`);
        this.prelude.add(`const W${slot} = H.words(cols[${slot}].values);`);
        const u = BigInt.asUintN(128, v as bigint);
        const limbs = [0, 1, 2, 3].map((j) => Number((u >> BigInt(32 * j)) & 0xffffffffn));
        const c3 = this.constant(limbs[3]! | 0); // top limb signed
        const c2 = this.constant(limbs[2]!);
        const c1 = this.constant(limbs[1]!);
        const c0 = this.constant(limbs[0]!);
        return `H.cmp128(W${slot}, i, ${c3}, ${c2}, ${c1}, ${c0}) ${JS_OP[op]} 0`;
      }
      case 'var': {
        this.prelude.add(`const O${slot} = cols[${slot}].offsets, D${slot} = cols[${slot}].data;`);
        if (t.id === 'numeric') {
          this.shape.push(`numtext${slot}${op}`);
          return `H.cmpNumText(D${slot}, O${slot}[i], O${slot}[i + 1], ${this.constant(parseNumericText(v as string) ?? NAN_PARTS)}) ${JS_OP[op]} 0`;
        }
        const bytes = typeof v === 'string' ? ENC.encode(t.id === 'bpchar' ? stripSpaces(v) : v) : (v as Uint8Array);
        const fn = t.id === 'bpchar' ? 'cmpBpchar' : 'cmpBytes';
        this.shape.push(`${fn}${slot}${op}`);
        return `H.${fn}(D${slot}, O${slot}[i], O${slot}[i + 1], ${this.constant(bytes)}) ${JS_OP[op]} 0`;
      }
      default:
        return unreachable(p);
    }
  }

  source(expr: string): string {
    const consts = this.constants.map((_, i) => `const k${i} = k[${i}];`).join('\n  ');
    return `"use strict";
return function predicate(cols, k, start, end, sel, selLen, out) {
  ${consts}
  ${[...this.prelude].join('\n  ')}
  let n = 0;
  if (sel === null) {
    for (let i = start; i < end; i++) if (${expr}) out[n++] = i;
  } else {
    for (let j = 0; j < selLen; j++) {
      const i = sel[j];
      if (${expr}) out[n++] = i;
    }
  }
  return n;
};`;
  }
}

/** Lists worth a membership test: at least this many `=` (or `<>`) operands on one column (the length at which an IN list binds to one node). */
const LIST_MIN = IN_NODE_MIN;

/** The columns of `args` with LIST_MIN or more equalities (OR) / inequalities (AND), and their values. */
function listsOf(kind: 'and' | 'or', args: readonly Node[]): Map<number, Exclude<Value, null>[]> {
  const op = kind === 'or' ? '=' : '<>';
  const by = new Map<number, Exclude<Value, null>[]>();
  for (const a of args) {
    if (a.kind !== 'cmp' || a.op !== op) continue;
    let l = by.get(a.slot);
    if (l === undefined) by.set(a.slot, (l = []));
    l.push(a.value);
  }
  for (const [slot, l] of by) if (l.length < LIST_MIN) by.delete(slot);
  return by;
}

/** Binary search of `keys` (sorted ascending by `cmp(key)` = probe vs key) for a key comparing equal. */
function bsearch<K>(keys: readonly K[], cmp: (k: K) => number): boolean {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = cmp(keys[mid]!);
    if (c === 0) return true;
    if (c < 0) hi = mid - 1;
    else lo = mid + 1;
  }
  return false;
}

const ENC = new TextEncoder();
const DEC = new TextDecoder('utf-8', { ignoreBOM: true }); // a leading U+FEFF is part of the value
const NAN_PARTS: NumericParts = { kind: 'nan', negative: false, digits: '', point: 0 };

function stripSpaces(s: string): string {
  let e = s.length;
  while (e > 0 && s.charCodeAt(e - 1) === 0x20) e--;
  return s.slice(0, e);
}

/** Helpers the generated code calls: small, monomorphic, allocation-free (but cmpNumText). */
const HELPERS = {
  /** An Int32Array view of int64/decimal128 values (copied when not 4-byte aligned). */
  words(v: ArrayBufferView): Int32Array {
    if ((v.byteOffset & 3) === 0) return new Int32Array(v.buffer, v.byteOffset, v.byteLength >>> 2);
    return new Int32Array(new Uint8Array(v.buffer, v.byteOffset, v.byteLength).slice().buffer);
  },
  /** memcmp of data[s, e) with c, shorter prefix first. */
  cmpBytes(d: Uint8Array, s: number, e: number, c: Uint8Array): number {
    const len = e - s;
    const n = len < c.length ? len : c.length;
    for (let k = 0; k < n; k++) {
      const x = d[s + k]! - c[k]!;
      if (x !== 0) return x;
    }
    return len - c.length;
  },
  cmpBpchar(d: Uint8Array, s: number, e: number, c: Uint8Array): number {
    while (e > s && d[e - 1] === 0x20) e--;
    return HELPERS.cmpBytes(d, s, e, c);
  },
  cmp16(v: Uint8Array, i: number, c: Uint8Array): number {
    const b = i * 16;
    for (let k = 0; k < 16; k++) {
      const x = v[b + k]! - c[k]!;
      if (x !== 0) return x;
    }
    return 0;
  },
  cmp128(w: Int32Array, i: number, c3: number, c2: number, c1: number, c0: number): number {
    const b = i << 2;
    const a3 = w[b + 3]!;
    if (a3 !== c3) return a3 < c3 ? -1 : 1;
    const a2 = w[b + 2]! >>> 0;
    if (a2 !== c2) return a2 < c2 ? -1 : 1;
    const a1 = w[b + 1]! >>> 0;
    if (a1 !== c1) return a1 < c1 ? -1 : 1;
    const a0 = w[b]! >>> 0;
    return a0 === c0 ? 0 : a0 < c0 ? -1 : 1;
  },
  cmpNumText(d: Uint8Array, s: number, e: number, c: NumericParts): number {
    return compareNumericParts(parseNumericText(DEC.decode(d.subarray(s, e))) ?? NAN_PARTS, c);
  },
  // Membership tests of long IN lists (Generator.memberships); keys sorted as the matching cmp orders them.
  has64(byHi: Map<number, Set<number>>, w: Int32Array, i: number): boolean {
    const lo = byHi.get(w[(i << 1) + 1]!);
    return lo?.has(w[i << 1]! >>> 0) === true;
  },
  searchBytes(keys: readonly Uint8Array[], d: Uint8Array, s: number, e: number): boolean {
    return bsearch(keys, (k) => HELPERS.cmpBytes(d, s, e, k));
  },
  searchBpchar(keys: readonly Uint8Array[], d: Uint8Array, s: number, e: number): boolean {
    while (e > s && d[e - 1] === 0x20) e--;
    return bsearch(keys, (k) => HELPERS.cmpBytes(d, s, e, k));
  },
  search16(keys: readonly Uint8Array[], v: Uint8Array, i: number): boolean {
    return bsearch(keys, (k) => HELPERS.cmp16(v, i, k));
  },
  search128(keys: readonly Int32Array[], w: Int32Array, i: number): boolean {
    return bsearch(keys, (k) => HELPERS.cmp128(w, i, k[3]!, k[2]! >>> 0, k[1]! >>> 0, k[0]! >>> 0));
  },
  searchNumText(keys: readonly NumericParts[], d: Uint8Array, s: number, e: number): boolean {
    const x = parseNumericText(DEC.decode(d.subarray(s, e))) ?? NAN_PARTS;
    return bsearch(keys, (k) => compareNumericParts(x, k));
  },
};

/**
 * Expression code generation: a bound expression (../expr.ts) over a table's columns becomes
 * JavaScript source that computes it for row `i` of a storage batch, reading the typed arrays
 * directly (DESIGN.md "Hot paths": no per-row allocation, no per-row dispatch). The pipeline
 * (./pipeline.ts) wraps these fragments in one fused loop per batch and compiles it once per
 * plan with `new Function`.
 *
 * Every value is a JS number or boolean in the generated code:
 *
 *   int2, int4, date       the number itself                       rep 'i'
 *   int8, timestamp(tz)    the number, exact because |v| ≤ 2^52      rep 'big'
 *   numeric(p,s)           the unscaled integer (12.50 → 1250)       rep 'dec', scale s
 *   float4, float8         the number (float4 rounded by fround)     rep 'f4' / 'f8'
 *   bool                   true / false                              rep 'bool'
 *   text types             the row's index into offsets/data         rep 'str' (columns only)
 *
 * Exactness is checked, not assumed: an int8 or decimal that leaves ±2^52 throws DEOPT at run
 * time and the query reruns in the interpreter (../exec/), which is exact everywhere. What the
 * generator does not cover returns null at compile time: the same fallback, decided once.
 *
 * A fragment is `{ v, n }`: JS expressions for the value and for "is NULL" ('false' when the
 * value can never be NULL). Statements needed to compute them go to `out`, in row order;
 * CASE and COALESCE nest their branches in blocks so a branch runs only for rows that take it.
 */
import type { Field, PgType } from '../../types/index.js';
import { isDecimal128 } from '../../types/index.js';
import { parseDecimalValue } from '../../types/index.js';
import { type CmpOp, type Expr, exprKey } from '../expr.js';

/** Thrown by generated code when a value leaves the range where numbers are exact. */
export const DEOPT = Object.freeze(new Error('paxd: compiled pipeline left its exact range'));

/** 2^52: decimal and int8 values and results stay within ±LIMIT, so sums of two stay exact. */
export const LIMIT = 4503599627370496;

export type Rep =
  | { readonly k: 'i' | 'big' | 'f4' | 'f8' | 'bool' }
  | { readonly k: 'dec'; readonly scale: number }
  | { readonly k: 'str'; readonly col: number; readonly rtrim: boolean; readonly bp: boolean }
  | { readonly k: 'sconst'; readonly bytes: Uint8Array };

export interface Frag {
  readonly v: string;
  readonly n: string;
  readonly rep: Rep;
  /**
   * Decimals whose display scale varies by row (CASE/COALESCE over decimals of several
   * scales): a JS expression for the row's display scale; the value is at `rep.scale`.
   */
  readonly ds?: string;
}

/** How a column of the batch is read; `slot` is its index in the batch's columns. */
interface ColumnUse {
  readonly slot: number;
  readonly field: Field;
  /** Declared in the batch prologue: the views this column needs. */
  readonly views: Set<'v' | 'w' | 'n' | 'o' | 'd'>;
}

/**
 * One generation context per compiled function: the columns it reads, constants it closes
 * over (`K[k]`), and fresh variable names.
 */
export class Gen {
  readonly consts: unknown[] = [];
  readonly uses = new Map<number, ColumnUse>();
  private next = 0;

  constructor(private readonly fields: readonly Field[]) {}

  fresh(prefix: string): string {
    return `${prefix}${this.next++}`;
  }

  konst(v: unknown): string {
    this.consts.push(v);
    return `K[${this.consts.length - 1}]`;
  }

  /** Declarations for the batch prologue: `cols` is the batch's column array. */
  prologue(): string {
    const lines: string[] = [];
    for (const u of this.uses.values()) {
      const c = `cols[${u.slot}]`;
      const j = u.slot;
      if (u.views.has('v')) lines.push(`const c${j} = ${c}.values;`);
      if (u.views.has('w')) lines.push(`const c${j}w = H.words(${c}.values);`);
      if (u.views.has('n')) lines.push(`const c${j}n = ${c}.validity;`);
      if (u.views.has('o')) lines.push(`const c${j}o = ${c}.offsets;`);
      if (u.views.has('d')) lines.push(`const c${j}d = ${c}.data;`);
    }
    return lines.join('\n');
  }

  private use(slot: number, ...views: ('v' | 'w' | 'n' | 'o' | 'd')[]): void {
    let u = this.uses.get(slot);
    if (u === undefined) {
      u = { slot, field: this.fields[slot]!, views: new Set() };
      this.uses.set(slot, u);
    }
    for (const v of views) u.views.add(v);
  }

  /**
   * The statement list of the loop body itself: fragments computed there are reused by later
   * expressions (common subexpressions: a column read by four aggregates is read once).
   * Fragments inside CASE/COALESCE branches are not, since their blocks may not run.
   */
  top: string[] | null = null;
  private readonly memo = new Map<string, Frag>();

  /** Compiles `e` for row `i`, or null when the generator does not cover it. */
  expr(e: Expr, out: string[]): Frag | null {
    if (out !== this.top || e.kind === 'const') return this.build(e, out);
    const key = exprKey(e);
    const hit = this.memo.get(key);
    if (hit !== undefined) return hit;
    const f = this.build(e, out);
    if (f !== null) this.memo.set(key, f);
    return f;
  }

  private build(e: Expr, out: string[]): Frag | null {
    switch (e.kind) {
      case 'column':
        return this.column(e.slot, out);
      case 'const':
        return this.constant(e.value, e.type);
      case 'cast': {
        const a = this.expr(e.arg, out);
        return a === null ? null : this.cast(a, e.arg.type, e.type, out);
      }
      case 'arith': {
        const l = this.expr(e.left, out);
        const r = l === null ? null : this.expr(e.right, out);
        return l === null || r === null ? null : this.arith(e.op, l, r, e.type, out);
      }
      case 'neg': {
        const a = this.expr(e.arg, out);
        if (a === null || a.rep.k === 'str' || a.rep.k === 'sconst' || a.rep.k === 'bool') return null;
        const x = this.fresh('v');
        if (a.rep.k === 'i') {
          const lim = e.type.id === 'int2' ? 32768 : 2147483648;
          out.push(`const ${x} = -(${a.v});`, `if (!(${a.n}) && ${x} === ${lim}) throw H.outOfRange('${e.type.id === 'int2' ? 'smallint' : 'integer'}');`);
        } else out.push(`const ${x} = -(${a.v});`);
        return { v: x, n: a.n, rep: a.rep, ...(a.ds !== undefined ? { ds: a.ds } : {}) };
      }
      case 'cmp': {
        const l = this.expr(e.left, out);
        const r = l === null ? null : this.expr(e.right, out);
        return l === null || r === null ? null : this.compare(e.op, l, r, e.left.type, out);
      }
      case 'and':
      case 'or': {
        const args: Frag[] = [];
        for (const a of e.args) {
          const f = this.expr(a, out);
          if (f === null || f.rep.k !== 'bool') return null;
          args.push(f);
        }
        const decided = this.fresh('d');
        const unknown = this.fresh('u');
        out.push(`let ${decided} = false, ${unknown} = false;`);
        for (const a of args) out.push(`if (${a.n}) ${unknown} = true; else if (${e.kind === 'and' ? '!' : ''}(${a.v})) ${decided} = true;`);
        // AND: a FALSE decides (false); OR: a TRUE decides (true); else NULL if any NULL.
        return { v: e.kind === 'and' ? `!${decided}` : decided, n: `(!${decided} && ${unknown})`, rep: { k: 'bool' } };
      }
      case 'not': {
        const a = this.expr(e.arg, out);
        return a === null || a.rep.k !== 'bool' ? null : { v: `!(${a.v})`, n: a.n, rep: a.rep };
      }
      case 'isNull': {
        const a = this.expr(e.arg, out);
        return a === null ? null : { v: e.negated ? `!(${a.n})` : `(${a.n})`, n: 'false', rep: { k: 'bool' } };
      }
      case 'case':
        return this.branches(
          e.whens.map((w) => ({ cond: w.cond, result: w.result })),
          e.otherwise,
          out,
        );
      case 'coalesce':
        return this.coalesce(e.args, out);
      case 'like': {
        if (e.ci || e.pattern.kind !== 'const' || typeof e.pattern.value !== 'string') return null;
        const a = this.expr(e.arg, out);
        if (a === null || a.rep.k !== 'str') return null;
        const pat = e.pattern.value;
        if (pat.includes('_') || (e.escape !== '' && pat.includes(e.escape))) return null;
        const parts = pat.split('%').map((s) => new TextEncoder().encode(s));
        const k = this.konst(parts);
        const x = this.fresh('v');
        this.use(a.rep.col, 'o', 'd');
        const c = a.rep.col;
        out.push(`const ${x} = ${e.negated ? '!' : ''}H.like(c${c}d, c${c}o[${a.v}], ${a.rep.rtrim ? `H.rtrim(c${c}d, c${c}o[${a.v}], c${c}o[${a.v} + 1])` : `c${c}o[${a.v} + 1]`}, ${k});`);
        return { v: x, n: a.n, rep: { k: 'bool' } };
      }
      case 'func':
        return null;
      default:
        return null;
    }
  }

  column(slot: number, out: string[]): Frag | null {
    const f = this.fields[slot]!;
    const t = f.type;
    const nullable = !f.notNull;
    let n = 'false';
    if (nullable) {
      this.use(slot, 'n');
      n = this.fresh('n');
      out.push(`const ${n} = c${slot}n !== null && (c${slot}n[i >>> 3] & (1 << (i & 7))) === 0;`);
    }
    const x = this.fresh('v');
    switch (t.id) {
      case 'int2':
      case 'int4':
      case 'date':
        this.use(slot, 'v');
        return { v: `c${slot}[i]`, n, rep: { k: 'i' } };
      case 'float4':
        this.use(slot, 'v');
        return { v: `c${slot}[i]`, n, rep: { k: 'f4' } };
      case 'float8':
        this.use(slot, 'v');
        return { v: `c${slot}[i]`, n, rep: { k: 'f8' } };
      case 'int8':
      case 'timestamp':
      case 'timestamptz': {
        this.use(slot, 'w');
        const h = this.fresh('h');
        out.push(`const ${h} = c${slot}w[2 * i + 1];`, `if (${h} > 1048575 || ${h} < -1048576) throw H.DEOPT;`, `const ${x} = ${h} * 4294967296 + (c${slot}w[2 * i] >>> 0);`);
        return { v: x, n, rep: { k: 'big' } };
      }
      case 'numeric': {
        if (!isDecimal128(t)) return null;
        this.use(slot, 'w');
        const h = this.fresh('h');
        out.push(`const ${h} = c${slot}w[4 * i + 1];`);
        if ((t.precision ?? 38) > 15)
          out.push(`if (${h} > 1048575 || ${h} < -1048576 || c${slot}w[4 * i + 2] !== (${h} >> 31) || c${slot}w[4 * i + 3] !== (${h} >> 31)) throw H.DEOPT;`);
        out.push(`const ${x} = ${h} * 4294967296 + (c${slot}w[4 * i] >>> 0);`);
        return { v: x, n, rep: { k: 'dec', scale: t.scale ?? 0 } };
      }
      case 'bool':
        this.use(slot, 'v');
        return { v: `((c${slot}[i >>> 3] >> (i & 7)) & 1) === 1`, n, rep: { k: 'bool' } };
      case 'text':
      case 'varchar':
      case 'bpchar':
        this.use(slot, 'o', 'd');
        return { v: 'i', n, rep: { k: 'str', col: slot, rtrim: false, bp: t.id === 'bpchar' } };
      default:
        return null;
    }
  }

  constant(value: unknown, t: PgType): Frag | null {
    if (value === null) {
      const rep = t.id === 'numeric' ? ({ k: 'dec', scale: 0 } as const) : repOfType(t);
      return rep === null ? null : { v: '0', n: 'true', rep };
    }
    switch (t.id) {
      case 'int2':
      case 'int4':
      case 'date':
        return { v: numLit(value as number), n: 'false', rep: { k: 'i' } };
      case 'float4':
        return { v: numLit(value as number), n: 'false', rep: { k: 'f4' } };
      case 'float8':
        return { v: numLit(value as number), n: 'false', rep: { k: 'f8' } };
      case 'int8':
      case 'timestamp':
      case 'timestamptz': {
        const b = value as bigint;
        if (b > BigInt(LIMIT) || b < -BigInt(LIMIT)) return null;
        return { v: numLit(Number(b)), n: 'false', rep: { k: 'big' } };
      }
      case 'numeric': {
        const d = parseDecimalValue(value as string);
        if (d.kind !== 'finite' || d.coef > BigInt(LIMIT) || d.coef < -BigInt(LIMIT)) return null;
        return { v: numLit(Number(d.coef)), n: 'false', rep: { k: 'dec', scale: d.scale } };
      }
      case 'bool':
        return { v: value ? 'true' : 'false', n: 'false', rep: { k: 'bool' } };
      case 'text':
      case 'varchar':
      case 'bpchar': {
        let s = value as string;
        if (t.id === 'bpchar') s = s.replace(/ +$/, '');
        return { v: '0', n: 'false', rep: { k: 'sconst', bytes: new TextEncoder().encode(s) } };
      }
      default:
        return null;
    }
  }

  private cast(a: Frag, from: PgType, to: PgType, out: string[]): Frag | null {
    const r = a.rep;
    switch (to.id) {
      case 'int2':
      case 'int4':
        return (from.id === 'int2' || from.id === 'int4') && (to.id === 'int4' || from.id === 'int2') ? a : null;
      case 'int8':
        return r.k === 'i' && from.id !== 'date' ? { ...a, rep: { k: 'big' } } : r.k === 'big' && from.id === 'int8' ? a : null;
      case 'numeric':
        if (isDecimal128(to)) return null; // a typmod: rounding the interpreter does
        if (r.k === 'dec') return a;
        return (r.k === 'i' && from.id !== 'date') || (r.k === 'big' && from.id === 'int8') ? { ...a, rep: { k: 'dec', scale: 0 } } : null;
      case 'float8':
      case 'float4': {
        const fr = to.id === 'float4' ? 'Math.fround' : '';
        const rep: Rep = { k: to.id === 'float4' ? 'f4' : 'f8' };
        if (r.k === 'f4' || r.k === 'f8') return to.id === 'float8' || r.k === 'f4' ? { ...a, rep } : { v: `Math.fround(${a.v})`, n: a.n, rep };
        if ((r.k === 'i' && from.id !== 'date') || (r.k === 'big' && from.id === 'int8')) return { v: `${fr}(${a.v})`, n: a.n, rep };
        // Division by a power of ten is correctly rounded, as strtod of the numeric's text is.
        if (r.k === 'dec') return { v: `${fr}(${a.v} / ${10 ** r.scale})`, n: a.n, rep };
        return null;
      }
      case 'timestamp':
        if (from.id !== 'date') return from.id === 'timestamp' ? a : null;
        {
          const x = this.fresh('v');
          out.push(`const ${x} = (${a.v}) * 86400000000;`, `if (${x} > ${LIMIT} || ${x} < -${LIMIT}) throw H.DEOPT;`);
          return { v: x, n: a.n, rep: { k: 'big' } };
        }
      case 'text':
      case 'varchar':
        if (to.length !== undefined) return null; // the length check (or explicit truncation) castValue does
        if (r.k === 'str') return { ...a, rep: { ...r, rtrim: r.rtrim || r.bp, bp: false } };
        if (r.k === 'sconst') return a;
        return null;
      case 'bpchar':
        return r.k === 'str' && from.id === 'bpchar' && (to.length === undefined || to.length === from.length) ? a : null;
      default:
        return from.id === to.id ? a : null;
    }
  }

  private arith(op: string, l: Frag, r: Frag, t: PgType, out: string[]): Frag | null {
    const n = orNull(l.n, r.n);
    const x = this.fresh('v');
    const lk = l.rep.k;
    if (lk !== r.rep.k && !(lk === 'dec' && r.rep.k === 'dec')) return null;
    switch (lk) {
      case 'i': {
        if (t.id !== 'int2' && t.id !== 'int4') return null;
        const [lo, hi, name] = t.id === 'int2' ? [-32768, 32767, 'smallint'] : [-2147483648, 2147483647, 'integer'];
        const range = `if (${x} < ${lo} || ${x} > ${hi}) throw H.outOfRange('${name}');`;
        switch (op) {
          case '+':
          case '-':
          case '*':
            out.push(`let ${x} = 0;`, `if (!${n}) { ${x} = ${l.v} ${op} ${r.v}; ${range} }`);
            return { v: x, n, rep: l.rep };
          case '/':
            out.push(`let ${x} = 0;`, `if (!${n}) { if (${r.v} === 0) throw H.divisionByZero(); ${x} = Math.trunc(${l.v} / ${r.v}); ${range} }`);
            return { v: x, n, rep: l.rep };
          case '%':
            out.push(`let ${x} = 0;`, `if (!${n}) { if (${r.v} === 0) throw H.divisionByZero(); ${x} = (${l.v} % ${r.v}) | 0; }`);
            return { v: x, n, rep: l.rep };
          default:
            return null;
        }
      }
      case 'big': {
        if (t.id !== 'int8' || (op !== '+' && op !== '-' && op !== '*')) return null;
        out.push(`const ${x} = ${l.v} ${op} ${r.v};`, `if (!${n} && (${x} > ${LIMIT} || ${x} < -${LIMIT})) throw H.DEOPT;`);
        return { v: x, n, rep: l.rep };
      }
      case 'dec': {
        const ls = (l.rep as { scale: number }).scale;
        const rs = (r.rep as { scale: number }).scale;
        const dynamic = l.ds !== undefined || r.ds !== undefined;
        const lds = l.ds ?? String(ls);
        const rds = r.ds ?? String(rs);
        if (op === '*') {
          out.push(`const ${x} = ${l.v} * ${r.v};`, `if (!${n} && (${x} > ${LIMIT} || ${x} < -${LIMIT})) throw H.DEOPT;`);
          return { v: x, n, rep: { k: 'dec', scale: ls + rs }, ...(dynamic ? { ds: `(${lds} + ${rds})` } : {}) };
        }
        if (op !== '+' && op !== '-') return null;
        const s = Math.max(ls, rs);
        const lv = this.rescale(l.v, s - ls, n, out);
        const rv = this.rescale(r.v, s - rs, n, out);
        out.push(`const ${x} = ${lv} ${op} ${rv};`, `if (!${n} && (${x} > ${LIMIT} || ${x} < -${LIMIT})) throw H.DEOPT;`);
        return { v: x, n, rep: { k: 'dec', scale: s }, ...(dynamic ? { ds: `Math.max(${lds}, ${rds})` } : {}) };
      }
      case 'f4':
      case 'f8': {
        if (op === '%') return null;
        const fr = lk === 'f4' ? 'Math.fround' : '';
        const div = op === '/' ? `if (!${n} && ${r.v} === 0) throw H.divisionByZero();` : '';
        out.push(`${div}const ${x} = ${fr}(${l.v} ${op} ${r.v});`, `if (!${n} && !Number.isFinite(${x}) && ${x} === ${x} && Number.isFinite(${l.v}) && Number.isFinite(${r.v})) throw H.floatOverflow();`);
        return { v: x, n, rep: l.rep };
      }
      default:
        return null;
    }
  }

  /** `v × 10^by`, checked to stay exact. */
  private rescale(v: string, by: number, n: string, out: string[]): string {
    if (by === 0) return v;
    const x = this.fresh('v');
    out.push(`const ${x} = ${v} * ${10 ** by};`, `if (!${n} && (${x} > ${LIMIT} || ${x} < -${LIMIT})) throw H.DEOPT;`);
    return x;
  }

  private compare(op: CmpOp, l: Frag, r: Frag, t: PgType, out: string[]): Frag | null {
    const n = orNull(l.n, r.n);
    const lk = l.rep.k;
    const rk = r.rep.k;
    const js = op === '=' ? '===' : op === '<>' ? '!==' : op;
    if ((lk === 'str' || lk === 'sconst') && (rk === 'str' || rk === 'sconst')) {
      if (lk === 'sconst' && rk === 'sconst') return null;
      const bp = t.id === 'bpchar';
      const side = (f: Frag): string => {
        const rep = f.rep as Extract<Rep, { k: 'str' }>;
        this.use(rep.col, 'o', 'd');
        const c = rep.col;
        const end = rep.rtrim || bp ? `H.rtrim(c${c}d, c${c}o[${f.v}], c${c}o[${f.v} + 1])` : `c${c}o[${f.v} + 1]`;
        return `c${c}d, c${c}o[${f.v}], ${end}`;
      };
      const x = this.fresh('v');
      if (lk === 'str' && rk === 'str') out.push(`const ${x} = H.cmpBytes(${side(l)}, ${side(r)}) ${js} 0;`);
      else {
        const [colSide, k, flip] = lk === 'str' ? [l, r, false] : [r, l, true];
        const bytes = (k.rep as Extract<Rep, { k: 'sconst' }>).bytes;
        const kb = this.konst(bytes);
        const cmp = op === '=' || op === '<>' ? `H.eqBytes(${side(colSide)}, ${kb}) ? 0 : 1` : `H.cmpBytes(${side(colSide)}, ${kb}, 0, ${bytes.length})`;
        out.push(`const ${x} = (${cmp}) ${flip ? flipOp(js) : js} 0;`);
      }
      return { v: x, n, rep: { k: 'bool' } };
    }
    if (lk === 'str' || lk === 'sconst' || rk === 'str' || rk === 'sconst') return null;
    if (lk === 'bool' && rk === 'bool') return { v: `(+(${l.v}) ${js} +(${r.v}))`, n, rep: { k: 'bool' } };
    if (lk === 'f4' || lk === 'f8' || rk === 'f4' || rk === 'f8') {
      if (lk !== rk) return null;
      return { v: `(H.cmpFloat(${l.v}, ${r.v}) ${js} 0)`, n, rep: { k: 'bool' } };
    }
    if (lk === 'dec' || rk === 'dec') {
      if (lk !== 'dec' || rk !== 'dec') return null;
      const s = Math.max(l.rep.scale, r.rep.scale);
      const lv = this.rescale(l.v, s - l.rep.scale, n, out);
      const rv = this.rescale(r.v, s - r.rep.scale, n, out);
      return { v: `(${lv} ${js} ${rv})`, n, rep: { k: 'bool' } };
    }
    if (lk !== rk) return null;
    return { v: `(${l.v} ${js} ${r.v})`, n, rep: { k: 'bool' } };
  }

  /** Searched CASE: nested blocks, so a branch's result is computed only when it is taken. */
  private branches(whens: readonly { cond: Expr; result: Expr }[], otherwise: Expr, out: string[]): Frag | null {
    return this.joinBranches(out, (assign) => {
      const emit = (k: number, sink: string[]): boolean => {
        if (k === whens.length) {
          const f = this.expr(otherwise, sink);
          return f !== null && assign(f, sink);
        }
        const c = this.expr(whens[k]!.cond, sink);
        if (c === null || c.rep.k !== 'bool') return false;
        const then: string[] = [];
        const f = this.expr(whens[k]!.result, then);
        if (f === null || !assign(f, then)) return false;
        const rest: string[] = [];
        if (!emit(k + 1, rest)) return false;
        sink.push(`if (!(${c.n}) && (${c.v})) {`, ...then, '} else {', ...rest, '}');
        return true;
      };
      return emit(0, out);
    });
  }

  /** COALESCE: argument k is computed only for rows whose arguments before it are NULL. */
  private coalesce(args: readonly Expr[], out: string[]): Frag | null {
    return this.joinBranches(out, (assign) => {
      const emit = (k: number, sink: string[]): boolean => {
        if (k === args.length) return true;
        const f = this.expr(args[k]!, sink);
        if (f === null) return false;
        const then: string[] = [];
        if (!assign(f, then)) return false;
        const rest: string[] = [];
        if (!emit(k + 1, rest)) return false;
        sink.push(`if (!(${f.n})) {`, ...then, '} else {', ...rest, '}');
        return true;
      };
      return emit(0, out);
    });
  }

  /**
   * Results of branches assigned to one value: every branch must have the same representation,
   * except that decimals of different scales are rescaled to the largest while their own scale
   * (PostgreSQL's display scale: CASE … THEN 1.50 ELSE 0 END yields 1.50 or 0) rides along in
   * a variable, `ds`. The assignments are written once all branches are known: `build` leaves
   * a token where each goes.
   */
  private joinBranches(out: string[], build: (assign: (f: Frag, sink: string[]) => boolean) => boolean): Frag | null {
    const v = this.fresh('v');
    const n = this.fresh('n');
    const ds = this.fresh('s');
    out.push(`let ${v} = 0, ${n} = true, ${ds} = 0;`);
    const taken = new Map<string, Frag>();
    const assign = (f: Frag, sink: string[]): boolean => {
      if (f.rep.k === 'str' || f.rep.k === 'sconst') return false;
      const token = `@@${this.fresh('a')}@@`;
      sink.push(token);
      taken.set(token, f);
      return true;
    };
    if (!build(assign) || taken.size === 0) return null;
    const frags = [...taken.values()];
    const rep = frags[0]!.rep;
    if (frags.some((f) => f.rep.k !== rep.k)) return null;
    let scale = 0;
    let mixed = false;
    if (rep.k === 'dec') {
      scale = Math.max(...frags.map((f) => (f.rep as { scale: number }).scale));
      mixed = frags.some((f) => (f.rep as { scale: number }).scale !== scale || f.ds !== undefined);
    }
    for (let k = 0; k < out.length; k++) {
      const f = taken.get(out[k]!);
      if (f === undefined) continue;
      if (rep.k !== 'dec') {
        out[k] = `${v} = ${f.v}; ${n} = ${f.n};`;
        continue;
      }
      const own = (f.rep as { scale: number }).scale;
      const by = 10 ** (scale - own);
      const value = by === 1 ? f.v : `${f.v} * ${by}`;
      const check = by === 1 ? '' : `if (!(${f.n}) && (${v} > ${LIMIT} || ${v} < -${LIMIT})) throw H.DEOPT; `;
      out[k] = `${v} = ${value}; ${n} = ${f.n}; ${check}${mixed ? `${ds} = ${f.ds ?? own};` : ''}`;
    }
    return rep.k === 'dec' ? { v, n, rep: { k: 'dec', scale }, ...(mixed ? { ds } : {}) } : { v, n, rep };
  }
}

/** The representation of a type's values, or null when the generator does not cover it. */
export function repOfType(t: PgType): Rep | null {
  switch (t.id) {
    case 'int2':
    case 'int4':
    case 'date':
      return { k: 'i' };
    case 'int8':
    case 'timestamp':
    case 'timestamptz':
      return { k: 'big' };
    case 'float4':
      return { k: 'f4' };
    case 'float8':
      return { k: 'f8' };
    case 'bool':
      return { k: 'bool' };
    default:
      return null;
  }
}

function orNull(a: string, b: string): string {
  if (a === 'false') return b;
  if (b === 'false') return a;
  return `(${a} || ${b})`;
}

function flipOp(js: string): string {
  return ({ '<': '>', '>': '<', '<=': '>=', '>=': '<=' } as Record<string, string>)[js] ?? js;
}

function numLit(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (Object.is(v, -0)) return '-0';
  return `(${String(v)})`;
}

/**
 * Bound expressions: immutable trees built by the frozen factory `E`, typed with PostgreSQL's
 * rules by the binder (./bind.ts) and evaluated batch at a time (./exec/eval.ts). A column
 * is a slot of the row layout the expression runs over: the scan's projected columns before
 * aggregation, the group keys followed by the aggregates after it.
 *
 * Every operand of an operator already has the operator's input type (the binder inserts
 * casts), so evaluation never resolves types. Numeric values are exact decimal text in the
 * engine ("12.50"), whatever the stored layout (./types.ts `engineType`).
 */
import type { Value } from '../types/index.js';
import { type PgType, unreachable } from '../types/index.js';

export type ArithOp = '+' | '-' | '*' | '/' | '%';
export type CmpOp = '=' | '<>' | '<' | '<=' | '>' | '>=';

export type Expr =
  | { readonly kind: 'column'; readonly slot: number; readonly type: PgType; readonly name: string }
  | { readonly kind: 'const'; readonly value: Value; readonly type: PgType }
  /** `explicit`: a cast written in SQL (`::`, CAST), which truncates to a varchar/char length. */
  | { readonly kind: 'cast'; readonly arg: Expr; readonly type: PgType; readonly explicit?: true }
  | { readonly kind: 'arith'; readonly op: ArithOp; readonly left: Expr; readonly right: Expr; readonly type: PgType }
  | { readonly kind: 'neg'; readonly arg: Expr; readonly type: PgType }
  | { readonly kind: 'cmp'; readonly op: CmpOp; readonly left: Expr; readonly right: Expr; readonly type: PgType }
  | { readonly kind: 'and' | 'or'; readonly args: readonly Expr[]; readonly type: PgType }
  | { readonly kind: 'not'; readonly arg: Expr; readonly type: PgType }
  | { readonly kind: 'isNull'; readonly arg: Expr; readonly negated: boolean; readonly type: PgType }
  /** Searched CASE; a branch's result is evaluated only for the rows that take it. */
  | { readonly kind: 'case'; readonly whens: readonly { readonly cond: Expr; readonly result: Expr }[]; readonly otherwise: Expr; readonly type: PgType }
  /** COALESCE: argument k is evaluated only for the rows still NULL after k - 1. */
  | { readonly kind: 'coalesce'; readonly args: readonly Expr[]; readonly type: PgType }
  /** [NOT] LIKE / ILIKE with an escape character ('' for none); both operands are text. */
  | { readonly kind: 'like'; readonly arg: Expr; readonly pattern: Expr; readonly escape: string; readonly negated: boolean; readonly ci: boolean; readonly type: PgType }
  /** A scalar function over text (./exec/strings.ts): strict unless the function says otherwise. */
  | { readonly kind: 'func'; readonly fn: ScalarFn; readonly args: readonly Expr[]; readonly type: PgType }
  /**
   * The result of InitPlan `id` of the query (./ir.ts `InitPlan`): an uncorrelated subquery,
   * run once per execution before the plan that reads it (./exec/init-plans.ts), which then
   * puts a constant, a list of comparisons or a membership test in its place. No plan is
   * made of an expression that still holds one.
   */
  | { readonly kind: 'subquery'; readonly id: number; readonly type: PgType }
  /**
   * `$n` of a statement bound once and executed many times (./index.ts `prepare`): its value,
   * a constant of `type`, is put in place at each execution (./exec/params.ts) before planning.
   */
  | { readonly kind: 'param'; readonly index: number; readonly type: PgType }
  /** In an ANY/ALL InitPlan's comparison (`x op element`): the value of one row of the subquery. */
  | { readonly kind: 'element'; readonly type: PgType }
  /**
   * `arg IN (values)` as one hash lookup, PostgreSQL's hashed subplan: true for a member, else
   * NULL when `arg` is NULL or the list held a NULL (`hasNull`), else false. `values` are
   * distinct, non-NULL and of `arg`'s type; they are what an InitPlan returned.
   */
  | { readonly kind: 'inSet'; readonly arg: Expr; readonly values: readonly Value[]; readonly hasNull: boolean; readonly type: PgType };

/**
 * The scalar functions the engine evaluates; `textcat` is the || operator. The date/time
 * operators are functions named as PostgreSQL's (date_pli is date + integer, ts_pl_interval
 * timestamp + interval, …), typed by ./bind/functions.ts; greatest and least skip NULLs.
 */
export type ScalarFn = TextFn | DateTimeFn | MathFn | LibraryFn;

/**
 * A function of the library (./functions/registry.ts), by its signature's key:
 * `split_part(text,text,int4)`; its kernel and strictness are the registry's.
 */
export type LibraryFn = `${string}(${string})`;

export type TextFn =
  | 'length' | 'lower' | 'upper' | 'substring' | 'position' | 'btrim' | 'ltrim' | 'rtrim' | 'concat' | 'textcat' | 'octet_length'
  /** repeat(text, int4), lpad/rpad(text, int4 [, text]): bounded by the statement's memory (./memory.ts). */
  | 'repeat' | 'lpad' | 'rpad'
  /** `text ~ pattern` / `~*` (PostgreSQL's textregexeq / texticregexeq; ./exec/regex.ts). */
  | 'textregexeq'
  | 'texticregexeq'
  /** ROW(a, b, …) as record_out's text `(a,b,…)`; not strict (a NULL field is empty). */
  | 'record_out'
  /** jsonb (normalized text) → a text equal for equal jsonb values (jsonb `=` and `<>`; ./exec/jsonb.ts). */
  | 'jsonb_eqkey';

export type DateTimeFn =
  | 'date_pli' // date + int4 → date
  | 'date_mii' // date - int4 → date
  | 'date_mi' // date - date → int4
  | 'ts_pl_interval' // timestamp[tz] + interval → timestamp[tz]
  | 'ts_mi_interval' // timestamp[tz] - interval → timestamp[tz]
  | 'ts_mi' // timestamp[tz] - timestamp[tz] → interval
  | 'interval_pl'
  | 'interval_mi'
  | 'interval_um'
  | 'interval_mul' // interval * float8
  | 'interval_div' // interval / float8
  | 'date_trunc' // (text, timestamp[tz][, zone text]) → timestamp[tz]
  | 'timezone' // (zone text, timestamp[tz]) → timestamptz[timestamp]: AT TIME ZONE
  | 'extract' // (text, date|timestamp[tz]|interval) → numeric
  | 'date_part'; // (text, timestamp[tz]|interval) → float8

export type MathFn = 'abs' | 'round' | 'trunc' | 'ceil' | 'floor' | 'sign' | 'mod' | 'power' | 'sqrt' | 'greatest' | 'least'
  /** (numeric, precision, scale): a cast to numeric(p,s) */
  | 'numeric_typmod';

/** The SQL operator a function stands for, for EXPLAIN: date_pli(d, 1) is `(d + 1)`. */
export const OPERATOR_OF: Readonly<Partial<Record<ScalarFn, string>>> = Object.freeze({
  textcat: '||',
  textregexeq: '~',
  texticregexeq: '~*',
  date_pli: '+',
  date_mii: '-',
  date_mi: '-',
  ts_pl_interval: '+',
  ts_mi_interval: '-',
  ts_mi: '-',
  interval_pl: '+',
  interval_mi: '-',
  interval_mul: '*',
  interval_div: '/',
});

export type ExprKind = Expr['kind'];

export const BOOL: PgType = Object.freeze({ id: 'bool' });

const freeze = <T extends object>(x: T): T => Object.freeze(x);

/** Factories of bound expressions; every node is frozen, so plans can be cached and shared. */
export const E = freeze({
  column: (slot: number, type: PgType, name: string): Expr => freeze({ kind: 'column', slot, type, name }),
  const: (value: Value, type: PgType): Expr => freeze({ kind: 'const', value, type }),
  cast: (arg: Expr, type: PgType, explicit = false): Expr => freeze(explicit ? { kind: 'cast', arg, type, explicit: true } : { kind: 'cast', arg, type }),
  arith: (op: ArithOp, left: Expr, right: Expr, type: PgType): Expr => freeze({ kind: 'arith', op, left, right, type }),
  neg: (arg: Expr): Expr => freeze({ kind: 'neg', arg, type: arg.type }),
  cmp: (op: CmpOp, left: Expr, right: Expr): Expr => freeze({ kind: 'cmp', op, left, right, type: BOOL }),
  and: (args: readonly Expr[]): Expr => (args.length === 1 ? args[0]! : freeze({ kind: 'and', args: freeze([...args]), type: BOOL })),
  or: (args: readonly Expr[]): Expr => (args.length === 1 ? args[0]! : freeze({ kind: 'or', args: freeze([...args]), type: BOOL })),
  not: (arg: Expr): Expr => freeze({ kind: 'not', arg, type: BOOL }),
  isNull: (arg: Expr, negated: boolean): Expr => freeze({ kind: 'isNull', arg, negated, type: BOOL }),
  case: (whens: readonly { cond: Expr; result: Expr }[], otherwise: Expr, type: PgType): Expr =>
    freeze({ kind: 'case', whens: freeze(whens.map((w) => freeze({ ...w }))), otherwise, type }),
  coalesce: (args: readonly Expr[], type: PgType): Expr => freeze({ kind: 'coalesce', args: freeze([...args]), type }),
  like: (arg: Expr, pattern: Expr, escape: string, negated: boolean, ci: boolean): Expr => freeze({ kind: 'like', arg, pattern, escape, negated, ci, type: BOOL }),
  func: (fn: ScalarFn, args: readonly Expr[], type: PgType): Expr => freeze({ kind: 'func', fn, args: freeze([...args]), type }),
  subquery: (id: number, type: PgType): Expr => freeze({ kind: 'subquery', id, type }),
  element: (type: PgType): Expr => freeze({ kind: 'element', type }),
  param: (index: number, type: PgType): Expr => freeze({ kind: 'param', index, type }),
  inSet: (arg: Expr, values: readonly Value[], hasNull: boolean): Expr => freeze({ kind: 'inSet', arg, values: freeze([...values]), hasNull, type: BOOL }),
});

/** The top-level conjuncts of a condition: `a AND (b AND c)` is [a, b, c]. */
export function conjuncts(e: Expr): Expr[] {
  return e.kind === 'and' ? e.args.flatMap(conjuncts) : [e];
}

/** A structural key of an expression, equal for equal trees (GROUP BY matching, dedup). */
export function exprKey(e: Expr): string {
  return JSON.stringify(e, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? Array.from(v) : v));
}

/**
 * `e` with every node for which `f` gives a replacement replaced (the rest rebuilt over the
 * replaced children, unchanged subtrees kept as they are).
 */
export function substitute(e: Expr, f: (x: Expr) => Expr | null): Expr {
  const r = f(e);
  if (r !== null) return r;
  const kids = childrenOf(e);
  if (kids.length === 0) return e;
  const next = kids.map((k) => substitute(k, f));
  return next.every((k, i) => k === kids[i]) ? e : rebuild(e, next);
}

/** The direct sub-expressions of an expression, in the order `rebuild` takes them. */
export function childrenOf(e: Expr): readonly Expr[] {
  switch (e.kind) {
    case 'column':
    case 'const':
    case 'subquery':
    case 'element':
    case 'param':
      return [];
    case 'cast':
    case 'neg':
    case 'not':
    case 'isNull':
    case 'inSet':
      return [e.arg];
    case 'arith':
    case 'cmp':
      return [e.left, e.right];
    case 'and':
    case 'or':
    case 'coalesce':
    case 'func':
      return e.args;
    case 'case':
      return [...e.whens.flatMap((w) => [w.cond, w.result]), e.otherwise];
    case 'like':
      return [e.arg, e.pattern];
    default:
      return unreachable(e);
  }
}

/** `e` over new children (as childrenOf lists them). */
function rebuild(e: Expr, k: readonly Expr[]): Expr {
  switch (e.kind) {
    case 'column':
    case 'const':
    case 'subquery':
    case 'element':
    case 'param':
      return e;
    case 'cast':
      return E.cast(k[0]!, e.type, e.explicit === true);
    case 'neg':
      return Object.freeze({ ...e, arg: k[0]! });
    case 'not':
      return E.not(k[0]!);
    case 'isNull':
      return E.isNull(k[0]!, e.negated);
    case 'inSet':
      return E.inSet(k[0]!, e.values, e.hasNull);
    case 'arith':
      return E.arith(e.op, k[0]!, k[1]!, e.type);
    case 'cmp':
      return E.cmp(e.op, k[0]!, k[1]!);
    case 'and':
      return E.and(k);
    case 'or':
      return E.or(k);
    case 'coalesce':
      return E.coalesce(k, e.type);
    case 'func':
      return E.func(e.fn, k, e.type);
    case 'case':
      return E.case(
        e.whens.map((_, i) => ({ cond: k[2 * i]!, result: k[2 * i + 1]! })),
        k[k.length - 1]!,
        e.type,
      );
    case 'like':
      return E.like(k[0]!, k[1]!, e.escape, e.negated, e.ci);
    default:
      return unreachable(e);
  }
}

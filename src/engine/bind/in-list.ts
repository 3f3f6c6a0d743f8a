/**
 * A long IN list of constants as one hashed membership test, built once per statement:
 *
 *   id IN (3, 6, 9, … 100,000 values)       →  inSet(id, [3, 6, 9, …])          (hashed id IN (100000 values))
 *   id NOT IN (3, 6, 9, …, NULL)            →  NOT inSet(id, [3, 6, 9, …], NULL)
 *
 * instead of an OR of 100,000 comparisons, which every later stage walked node by node (the
 * pushdown, the scan's predicate binding, pruning and compile, the interpreter's OR per row):
 * issue #18 measured a 100,000-value list keeping the event loop, and every other session, for
 * hundreds of ms. PostgreSQL does the same for a ScalarArrayOpExpr of 9 or more constants
 * (MIN_ARRAY_SIZE_FOR_HASHED_SAOP, src/backend/executor/execExpr.c); the threshold here is the
 * InitPlans' (../exec/init-plans.ts), whose `x IN (subquery)` becomes the same `inSet`, so
 * everything after the binder has one hashed IN list to know.
 *
 * The semantics are the comparisons': `x IN (…)` is NULL for a NULL x, true for a member,
 * else NULL when the list holds a NULL and false otherwise; NOT IN is its negation (an AND of
 * `<>`, three-valued). The test is taken only where every comparison is `=` (or `<>` for NOT
 * IN) of one and the same left operand with a constant of its type, and that type's equality
 * is its grouping key's (HASHABLE): otherwise the comparisons stay as bound.
 */
import type { PgType, Value } from '../../types/index.js';
import { type CmpOp, type Expr, E } from '../expr.js';
import type { ConstList } from '../parse.js';
import { HASHABLE, MEMBERSHIP_MIN_VALUES } from '../exec/init-plans.js';
import { categoryOf, commonType } from '../types.js';
import { ctidExprs } from './catalog.js';
import { classConverter, constClasses } from './const-list.js';
import { unknownLiterals } from './literals.js';

/**
 * The type the string literals of `x IN (…)` are read as when the list's typed operands are not
 * all of x's type: PostgreSQL resolves an IN list as a whole (transformAExprIn,
 * src/backend/parser/parse_expr.c: select_common_type over x and the list), so
 * `int2col IN (1, '40000')` reads '40000' as an integer and answers, where comparing one
 * operand at a time would read it as int2 and fail with 22003. Null when the literals take x's
 * own type (every typed operand is of x's type, or no common numeric or date/time type exists).
 */
export function inListLiteralType(x: Expr, items: readonly Expr[]): PgType | null {
  if (unknownLiterals.has(x)) return null;
  const cat = categoryOf(x.type);
  if (cat !== 'numeric' && cat !== 'datetime') return null;
  const typed: PgType[] = [];
  let other = false;
  for (const e of items) {
    if (unknownLiterals.has(e)) continue;
    typed.push(e.type);
    other ||= !sameType(e.type, x.type);
  }
  return other ? commonType([x.type, ...typed]) : null;
}

/** `parts`, the bound comparisons of an IN list (`=`; `<>` for NOT IN), as one membership test, or null. */
export function hashedInList(parts: readonly Expr[], negated: boolean): Expr | null {
  if (parts.length <= MEMBERSHIP_MIN_VALUES) return null;
  const first = parts[0]!;
  if (first.kind !== 'cmp') return null;
  const left = first.left;
  if (!HASHABLE.has(left.type.id)) return null;
  const op = negated ? '<>' : '=';
  const values: Value[] = [];
  let hasNull = false;
  for (const p of parts) {
    if (p.kind !== 'cmp' || p.op !== op || p.right.kind !== 'const' || !sameType(p.right.type, left.type) || !sameOperand(p.left, left)) return null;
    if (p.right.value === null) hasNull = true;
    else values.push(p.right.value);
  }
  const test = E.inSet(left, values, hasNull);
  return negated ? E.not(test) : test;
}

/** The binder casts the left operand anew for each comparison: the same operand, or the same cast of it. */
function sameOperand(a: Expr, b: Expr): boolean {
  if (a === b) return true;
  return a.kind === 'cast' && b.kind === 'cast' && a.arg === b.arg && sameType(a.type, b.type);
}

function sameType(a: PgType, b: PgType): boolean {
  return a.id === b.id && a.length === b.length && a.precision === b.precision && a.scale === b.scale && a.element === undefined && b.element === undefined;
}

/** What constInList borrows from the binder: its casts and comparisons (./operators.ts). */
export interface InListBinder {
  cast(e: Expr, type: PgType, location: number): Expr;
  compare(op: CmpOp, l: Expr, r: Expr, location: number): Expr;
}

/**
 * `x [NOT] IN (c1, c2, …)` over a list of plain constants that came from the parser in column
 * form (../parse.ts ConstList): the hashed test that binding each constant, comparing it and
 * handing the comparisons to hashedInList gives, built in one pass over the values
 * (./const-list.ts: the first constant of each class compared by the binder, the others
 * converted alike). 100,000 constants were 100,000 nodes bound, cast and compared one by one,
 * some 100 ms of the event loop on a quiet machine (issue #18). Null (bind the nodes one by
 * one) where the list is not one test of the hashed kind (hashedInList's conditions).
 */
export function constInList(b: InListBinder, x: Expr, c: ConstList, negated: boolean, location: number): Expr | null {
  const n = c.kinds.length;
  // Conversions that depend on the value stay with the binder: ctid's canonical text, and a
  // date compared as a timestamp (a midnight constant compares as a date: dateComparison).
  if (n <= MEMBERSHIP_MIN_VALUES || unknownLiterals.has(x) || ctidExprs.has(x) || (x.kind === 'cast' && x.arg.type.id === 'date')) return null;
  const { values: lit, classes, reps } = constClasses(c);
  const literalType = inListLiteralType(x, reps);
  const op = negated ? '<>' : '=';
  // Per class, once its first constant is compared: how a value of the class becomes the compared constant.
  const convert: (((v: Value) => Value) | null)[] = reps.map(() => null);
  let left: Expr | null = null;
  const values: Value[] = [];
  let hasNull = false;
  for (let i = 0; i < n; i++) {
    const k = classes[i]!;
    let f = convert[k] ?? null;
    if (f === null) {
      const rep = reps[k]!;
      const unknown = unknownLiterals.has(rep);
      const p = b.compare(op, x, literalType !== null && unknown ? b.cast(rep, literalType, location) : rep, location);
      if (p.kind !== 'cmp' || p.op !== op || !HASHABLE.has(p.left.type.id) || !sameType(p.right.type, p.left.type)) return null;
      if (left === null) left = p.left;
      else if (!sameOperand(p.left, left)) return null;
      f = classConverter(rep, p.right, unknown ? (literalType ?? x.type) : null);
      if (f === null) return null;
      convert[k] = f;
    }
    const v = lit[i]!;
    if (v === null) hasNull = true;
    else values.push(f(v));
  }
  if (left === null) return null;
  const test = E.inSet(left, values, hasNull);
  return negated ? E.not(test) : test;
}

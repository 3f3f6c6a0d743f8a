/**
 * PostgreSQL 15's choice among candidate signatures, for operators and functions alike (docs
 * 10.2 "Operators", 10.3 "Functions"; parse_func.c func_select_candidate, parse_oper.c
 * oper_select_candidate), kept in this one place:
 *
 *   1. an operator with one unknown operand first tries the other operand's type on both sides;
 *   2. candidates whose every known argument casts implicitly to the parameter;
 *   3. those with the most exact type matches; then the most preferred types where a cast is needed;
 *   4. at each unknown argument, the string category when a candidate takes it there, else one
 *      category among the candidates, then its preferred type.
 *
 *   left(text, int4) with ('abc', 2)           → left(text, int4): the unknown 'abc' takes text
 *   gcd(int4,int4) … gcd(numeric,numeric) with (int4 column, 2::int8) → gcd(int8, int8)
 */
import { type PgType, isOidType } from '../../types/index.js';
import type { Expr } from '../expr.js';
import { categoryOf } from '../types.js';

/** What resolution asks of the binder: whether an argument is an untyped literal (or `$n`). */
export interface ArgTest {
  isUnknown(e: Expr): boolean;
}

/** pg_cast's implicit casts among the types paxd computes in. */
export function implicitlyCasts(from: PgType, to: PgType): boolean {
  if (from.id === to.id) return true;
  // Integers to oid and its reg* aliases, and those to one another through oid (pg_cast 'i');
  // text, varchar and bpchar to name, name and "char" to text.
  if (isOidType(to) && to.id !== 'xid' && (from.id === 'int2' || from.id === 'int4' || from.id === 'int8' || from.id === 'oid' || (isOidType(from) && to.id === 'oid'))) return true;
  if (to.id === 'name') return from.id === 'text' || from.id === 'varchar' || from.id === 'bpchar';
  if (from.id === 'name' || from.id === 'char') return to.id === 'text';
  switch (from.id) {
    case 'int2':
      return to.id === 'int4' || to.id === 'int8' || to.id === 'numeric' || to.id === 'float4' || to.id === 'float8';
    case 'int4':
      return to.id === 'int8' || to.id === 'numeric' || to.id === 'float4' || to.id === 'float8';
    case 'int8':
      return to.id === 'numeric' || to.id === 'float4' || to.id === 'float8';
    case 'numeric':
      return to.id === 'float4' || to.id === 'float8';
    case 'float4':
      return to.id === 'float8';
    case 'date':
      return to.id === 'timestamp' || to.id === 'timestamptz';
    case 'timestamp':
      return to.id === 'timestamptz';
    case 'varchar':
      return to.id === 'text' || to.id === 'bpchar';
    case 'bpchar':
      return to.id === 'text' || to.id === 'varchar';
    case 'text':
      return to.id === 'varchar' || to.id === 'bpchar';
    default:
      return false;
  }
}

/** The preferred type of each category (pg_type.typispreferred). */
export function isPreferred(t: PgType): boolean {
  return t.id === 'float8' || t.id === 'timestamptz' || t.id === 'interval' || t.id === 'text' || t.id === 'bool';
}

/** The candidate that applies (null: none; 'ambiguous': several remain). */
export function resolve<C extends { readonly params: readonly PgType[] }>(cands: readonly C[], args: readonly Expr[], b: ArgTest, operator: boolean): C | null | 'ambiguous' {
  const known = args.map((a) => !b.isUnknown(a));
  if (operator && known[0] !== known[1]) {
    const t = args[known[0] ? 0 : 1]!.type;
    const same = cands.find((c) => c.params[0]!.id === t.id && c.params[1]!.id === t.id);
    if (same !== undefined) return same;
  }
  let live = cands.filter((c) => c.params.length === args.length && c.params.every((p, i) => !known[i] || implicitlyCasts(args[i]!.type, p)));
  if (live.length <= 1) return live[0] ?? null;
  const exact = (c: C) => c.params.filter((p, i) => known[i] && p.id === args[i]!.type.id).length;
  const best = Math.max(...live.map(exact));
  live = live.filter((c) => exact(c) === best);
  if (live.length === 1) return live[0]!;
  const preferred = (c: C) => c.params.filter((p, i) => known[i] && p.id !== args[i]!.type.id && isPreferred(p)).length;
  const bestP = Math.max(...live.map(preferred));
  live = live.filter((c) => preferred(c) === bestP);
  if (live.length === 1) return live[0]!;
  for (let i = 0; i < args.length; i++) {
    if (known[i]) continue;
    const cats = new Set(live.map((c) => categoryOf(c.params[i]!)));
    if (cats.has('string')) live = live.filter((c) => categoryOf(c.params[i]!) === 'string');
    else if (cats.size > 1) return 'ambiguous';
    if (live.some((c) => isPreferred(c.params[i]!))) live = live.filter((c) => isPreferred(c.params[i]!));
  }
  return live.length === 1 ? live[0]! : live.length === 0 ? null : 'ambiguous';
}

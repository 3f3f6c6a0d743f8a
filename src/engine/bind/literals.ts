/**
 * Literals and `$n` parameters as the binder types them: string literals and parameters keep
 * PostgreSQL's type `unknown` until their context gives them one (`col = '2024-01-01'` reads the
 * literal as the column's type); the phases of a parameter are ./context.ts's. A select-list
 * entry remembers the declared type (numeric(p,s)) of its expression for RowDescription.
 */
import { type PgType, type Value, SQLSTATE, parseText } from '../../types/index.js';
import type { AstFields } from '../parse.js';
import { type Expr, E } from '../expr.js';
import { T, engineType } from '../types.js';
import { notSupported, positionOf, SqlError } from '../errors.js';
import { type BoundQuery, type Target, queryFields } from '../ir.js';
import { currentContext } from '../context.js';

/** Expressions whose value has a declared type beyond their engine type (see Target.declared). */
export const declaredTypes = new WeakMap<Expr, PgType>();

/** A select-list entry, with the declared type of its expression when it has one. */
export function target(name: string, expr: Expr): Target {
  const declared = declaredTypes.get(expr);
  return declared === undefined ? { name, expr } : { name, expr, declared };
}

/** Per output column: still an unknown-typed literal (`SELECT 'a'`), which a UNION resolves. */
export function queryUnknown(q: BoundQuery): boolean[] {
  if (q.kind === 'union') return q.fields.map(() => false);
  if (q.kind !== 'select' && q.kind !== 'join-select') return queryFields(q).map(() => false);
  const targets = q.kind === 'select' ? q.select.targets : q.targets;
  return targets.map((t) => unknownLiterals.has(t.expr));
}

/** String literals have PostgreSQL's type `unknown` until context gives them one. */
export const unknownLiterals = new WeakSet<Expr>();

/** Placeholders of `$n` whose type is still unknown (infer phase, ./context.ts): n - 1. */
export const paramPlaceholders = new WeakMap<Expr, number>();

/**
 * `$n`: in the infer phase an unknown-typed placeholder (its type comes from the context, see
 * `cast`) unless the caller gave the type; in the execute phase a constant of the parameter's
 * type. 42P02 when there is no such parameter.
 */
export function paramRef(n: AstFields): Expr {
  const k = (n.number as number | undefined) ?? 0;
  const ctx = currentContext();
  const noParam = () => new SqlError('invalid_input', SQLSTATE.undefined_parameter, `there is no parameter $${k}`, positionOf(n.location));
  if (ctx === null || k < 1) throw noParam();
  if (ctx.generic === true) {
    const type = ctx.types[k - 1];
    if (type === undefined || type === null) throw noParam();
    return E.param(k - 1, engineType(type));
  }
  if (ctx.values !== null) {
    const type = ctx.types[k - 1];
    if (type === undefined || type === null || k > ctx.values.length) throw noParam();
    return E.const(ctx.values[k - 1]!, engineType(type));
  }
  while (ctx.types.length < k) ctx.types.push(null);
  const given = ctx.types[k - 1];
  if (given !== null && given !== undefined) return E.const(null, engineType(given));
  const e = E.const(null, T.text);
  unknownLiterals.add(e);
  paramPlaceholders.set(e, k - 1);
  return e;
}

/** Records the type context gives a `$n` placeholder (the first one wins, as PostgreSQL's). */
export function inferParam(e: Expr, type: PgType): void {
  const k = paramPlaceholders.get(e);
  if (k === undefined) return; // not a placeholder: no statement context to look up (100,000 casts of an IN list)
  const ctx = currentContext();
  if (ctx === null || ctx.values !== null) return;
  if (ctx.types[k] === null || ctx.types[k] === undefined) ctx.types[k] = engineType(type);
}

/** True for a string or NULL literal whose type is still PostgreSQL's `unknown`. */
export function isUnknownLiteral(e: Expr): boolean {
  return unknownLiterals.has(e);
}

/** A string or NULL literal still of type unknown. */
export function isUnknownText(e: Expr): boolean {
  return unknownLiterals.has(e);
}

/** An unknown literal left untyped at the top of an expression is text, as in PostgreSQL. */
export function resolveUnknown(e: Expr): Expr {
  return e;
}

export function negateConst(c: Extract<Expr, { kind: 'const' }>): Value {
  const v = c.value;
  if (typeof v === 'bigint') return -v;
  if (typeof v === 'number') return -v;
  if (typeof v === 'string') return v.startsWith('-') ? v.slice(1) : `-${v}`;
  return v;
}

export function literal(n: AstFields): Expr {
  if (n.isnull === true) {
    const e = E.const(null, T.text);
    unknownLiterals.add(e);
    return e;
  }
  if (n.ival !== undefined) return E.const((n.ival.ival as number | undefined) ?? 0, T.int4);
  if (n.fval !== undefined) {
    // An integer too large for int4 is an int8 (if it fits) or a numeric, as in make_const; the
    // grammar negates constants, so -2147483648 arrives here and is an int4.
    const text = n.fval.fval as string;
    if (/^-?\d+$/.test(text)) {
      const b = BigInt(text);
      if (b === -(2n ** 31n)) return E.const(Number(b), T.int4);
      if (b <= 2n ** 63n - 1n && b >= -(2n ** 63n)) return E.const(b, T.int8);
    }
    return E.const(parseText(T.numeric, text), T.numeric);
  }
  if (n.boolval !== undefined) return E.const(n.boolval.boolval === true, T.bool);
  if (n.sval !== undefined) {
    const e = E.const((n.sval.sval as string | undefined) ?? '', T.text);
    unknownLiterals.add(e);
    return e;
  }
  if (n.bsval !== undefined) throw notSupported('bit-string literals', n.location);
  throw notSupported('this literal', n.location);
}

/**
 * Assignment coercion (PostgreSQL 15 docs, section 10.4 "Value Storage"): how INSERT turns an
 * expression's value into a stored column value.
 *
 *   INSERT INTO t (i2) VALUES (40000)       -- 22003 smallint out of range
 *   INSERT INTO t (n)  VALUES (1.23456)     -- numeric(12,3): stored as 1.235
 *   INSERT INTO t (d)  VALUES ('2024-02-30') -- 22008, the date input function's error
 *   INSERT INTO t (i4) VALUES ('12'::text)  -- 42804, text has no assignment cast to integer
 *
 * An untyped literal goes through the column type's input function; a typed value takes an
 * assignment cast: numeric types among themselves (rounding as the cast functions do), any
 * type to a string type (its output text, length-checked), date, timestamp and timestamptz to
 * each other.
 * Everything else is 42804 with PostgreSQL's message.
 */
import { type Field, type PgType, type Value, isDecimal128, parseText, pgDisplayName } from '../../types/index.js';
import type { Expr } from '../expr.js';
import { isUnknownLiteral } from '../bind.js';
import { datatypeMismatch } from '../errors.js';
import { castValue, fromText } from '../exec/kernels.js';
import { categoryOf, engineType } from '../types.js';

/** Fails with 42804 unless a value of `from` may be stored in `to` by an assignment cast. */
export function checkAssignable(from: PgType, to: Field, location?: number): void {
  const cf = categoryOf(from);
  const ct = categoryOf(to.type);
  const ok =
    from.id === to.type.id ||
    (cf === 'numeric' && ct === 'numeric') ||
    ct === 'string' ||
    // date, timestamp and timestamptz all assign to each other (pg_cast 'i' and 'a' entries).
    (cf === 'datetime' && ct === 'datetime');
  if (!ok)
    throw datatypeMismatch(`column "${to.name}" is of type ${pgDisplayName(to.type)} but expression is of type ${pgDisplayName(from)}`, location);
}

/** The storage value of `v` (an engine value of `from`, or an unknown literal's text) in column `to`. */
export function assignValue(from: PgType, unknown: boolean, to: Field, v: Value): Value {
  if (v === null) return null;
  if (unknown) return fromText(to.type, v as string);
  const engine = castValue(from, engineType(to.type), v);
  // numeric(p,s) is an unscaled decimal128 on disk: its input function rounds and checks precision.
  return isDecimal128(to.type) ? parseText(to.type, engine as string) : engine;
}

/** assignValue for a bound expression's constant value. */
export function assignExpr(e: Expr, to: Field, v: Value): Value {
  return assignValue(e.type, isUnknownLiteral(e), to, v);
}

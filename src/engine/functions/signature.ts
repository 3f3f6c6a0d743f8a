/**
 * What a function of the library is (./registry.ts): pg_proc's rows, one per signature, with
 * the kernel that computes one result from one row of arguments.
 *
 *   left: [{ params: [T.text, T.int4], result: T.text, kernel: ([s, n]) => … }]
 *
 * A kernel gets non-NULL arguments when the signature is strict (the default: a NULL argument
 * gives NULL without calling it, as PostgreSQL's proisstrict), and the arguments' types
 * (the variadic "any" ones differ per call). It throws a SqlError for bad input.
 */
import type { PgType, Value } from '../../types/index.js';
import type { Expr } from '../expr.js';

export type Kernel = (args: readonly Value[], types: readonly PgType[]) => Value;

/**
 * A set-returning function's rows for one row of arguments (./set-returning.ts): one value each,
 * or one Value[] each for a function of several columns (Signature `columns`, `record`).
 */
export type SetKernel = (args: readonly Value[], types: readonly PgType[]) => Iterable<Value | readonly Value[]>;

/**
 * pg_proc.provolatile: immutable calls over constants are folded at bind time; stable ones
 * (current_setting) and volatile ones (random, set_config) run at each execution, so a
 * prepared statement sees the session as it is when it runs.
 */
export type Volatility = 'immutable' | 'stable' | 'volatile';

export interface Signature {
  readonly params: readonly PgType[];
  /**
   * VARIADIC trailing arguments after `params`: of this type, or 'any' ("any": each keeps its
   * own type, an unknown literal becomes text), as concat_ws and format take them.
   */
  readonly variadic?: PgType | 'any';
  readonly result: PgType;
  readonly kernel: Kernel;
  /**
   * Polymorphic parameters (anyarray, anyelement): a parameter of type ANYARRAY takes any array;
   * `elementOf[i] = j` makes parameter i the element type of argument j's array, as
   * array_position(anyarray, anyelement) and array_append(anyarray, anyelement) do.
   */
  readonly elementOf?: Readonly<Record<number, number>>;
  /** anycompatible: an `elementOf` parameter widens to its argument's type when the element type casts to it implicitly. */
  readonly compatible?: boolean;
  /**
   * The result is argument `arg`'s type (anyarray results) or, with `element`, its element
   * type (anyelement results), not `result`.
   */
  readonly resultOf?: { readonly arg: number; readonly element?: boolean };
  /** Default true. */
  readonly strict?: boolean;
  /** Default 'immutable'. */
  readonly volatility?: Volatility;
  /**
   * Binds the call itself instead of a kernel call (pg_typeof is its argument's type name, a
   * constant): gets the arguments cast to `params`, whether each was an unknown literal, and
   * `fail`, which throws the call's 42883.
   */
  readonly bind?: (args: readonly Expr[], unknown: readonly boolean[], fail: () => never) => Expr;
  /** pg_proc.proretset: the function returns a set, computed by this kernel (`kernel` is never called). */
  readonly setReturning?: SetKernel;
  /**
   * The named OUT columns of a set-returning function (jsonb_each: key text, value jsonb;
   * jsonb_array_elements: value jsonb): its kernel yields one Value[] per row, and FROM names
   * the columns so. Several columns make a record, which the select list cannot take (0A000).
   */
  readonly columns?: readonly { readonly name: string; readonly type: PgType }[];
  /**
   * Returns record (jsonb_to_record): the call's column definition list gives the columns, passed
   * to the kernel as the trailing RECORD_COLUMNS argument that ../bind/function-from.ts appends
   * (./json-set-returning.ts); the kernel yields one Value[] per row.
   */
  readonly record?: boolean;
}

/** A family's functions by name (one file per family: strings, math, regex, system, …). */
/** anyarray: a parameter any one-dimensional array matches (its `element` is unset). */
export const ANYARRAY: PgType = Object.freeze({ id: 'array' });

export type Family = Readonly<Record<string, readonly Signature[]>>;

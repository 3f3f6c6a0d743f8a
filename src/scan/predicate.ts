/**
 * Predicates over bare columns (docs/ARCHITECTURE.md "Scans that skip"): immutable values built by the frozen factory `P`,
 * then bound to a table's fields and normalized for pruning (./prune.ts) and row evaluation
 * (./compile.ts).
 *
 *   const p = P.and(P.ge('ts', 1_700_000_000_000_000n), P.in('kind', ['buy', 'sell']), P.not(P.isNull('qty')));
 *   table.aggregate([{ fn: 'count_star' }], p);
 *
 * Values are in paxd's Value representation of the column's type (src/types/column.ts):
 * number for int2/int4/float/date (days), bigint for int8/timestamp (µs) and numeric(p,s)
 * (unscaled), string for text types and unconstrained numeric, Uint8Array for bytea/uuid,
 * boolean for bool. For convenience a string is also accepted for non-text types and parsed
 * as PostgreSQL text input ('2024-01-01', '12.50'), and an integral number for int8/timestamp.
 *
 * Semantics are PostgreSQL's three-valued logic: a comparison with a NULL (column or value)
 * is unknown, never true; NOT unknown is unknown; a row passes a WHERE only when it is true.
 * NaN equals NaN and sorts above every other float (and numeric), as in PostgreSQL.
 *
 * Binding rewrites a predicate into negation normal form: NOT is pushed down to the leaves
 * (De Morgan holds in Kleene's three-valued logic, and NOT (x < c) is x >= c because a NULL
 * x makes both unknown and NaN is ordered), BETWEEN becomes two comparisons, IN an OR of
 * equalities (NOT IN an AND of <>), and a comparison with a NULL value a leaf that is never
 * true. Only bare columns of the stored type exist at this level: a cast, function or
 * arithmetic on a column has no node here, so an engine above can only evaluate it itself
 * and prune nothing with it ("some rows may match").
 */
import { compareValues, parseDecimalValue, type Value, PaxdError, SQLSTATE, unreachable, undefinedColumn, featureNotSupported, type Field, type PgType, isDecimal128, pgDisplayName, parseText, intervalNotStorable, arrayNotStorable, objectIdNotStorable, isObjectIdTypeId } from '../types/index.js';

export type CmpOp = '=' | '<>' | '<' | '<=' | '>' | '>=';

export type Predicate =
  | { readonly kind: 'cmp'; readonly column: string; readonly op: CmpOp; readonly value: Value }
  | { readonly kind: 'between'; readonly column: string; readonly low: Value; readonly high: Value }
  | { readonly kind: 'in'; readonly column: string; readonly values: readonly Value[] }
  | { readonly kind: 'isNull'; readonly column: string }
  | { readonly kind: 'and'; readonly args: readonly Predicate[] }
  | { readonly kind: 'or'; readonly args: readonly Predicate[] }
  | { readonly kind: 'not'; readonly arg: Predicate };

const freeze = <T extends object>(x: T): T => Object.freeze(x);

function cmp(op: CmpOp) {
  return (column: string, value: Value): Predicate => freeze({ kind: 'cmp', column, op, value });
}

/** AND/OR of `args` (an array: a 500,000-value IN list must not be spread into arguments). */
function junctionOf(kind: 'and' | 'or', args: readonly Predicate[]): Predicate {
  if (args.length === 0) throw new PaxdError('usage', SQLSTATE.invalid_parameter_value, `${kind.toUpperCase()} needs at least one operand`);
  return args.length === 1 ? args[0]! : freeze({ kind, args: freeze(args.slice()) });
}

function junction(kind: 'and' | 'or') {
  return (...args: Predicate[]): Predicate => junctionOf(kind, args);
}

/** Factories of predicates; every node is frozen, so predicates can be cached and shared. */
export const P = freeze({
  eq: cmp('='),
  ne: cmp('<>'),
  lt: cmp('<'),
  le: cmp('<='),
  gt: cmp('>'),
  ge: cmp('>='),
  /** `column BETWEEN low AND high` (inclusive, as in SQL). */
  between: (column: string, low: Value, high: Value): Predicate => freeze({ kind: 'between', column, low, high }),
  /** `column IN (values…)`; a NULL in the list makes non-matches unknown, as in SQL. */
  in: (column: string, values: readonly Value[]): Predicate => freeze({ kind: 'in', column, values: freeze([...values]) }),
  isNull: (column: string): Predicate => freeze({ kind: 'isNull', column }),
  isNotNull: (column: string): Predicate => freeze({ kind: 'not', arg: freeze({ kind: 'isNull', column }) }),
  and: junction('and'),
  or: junction('or'),
  /** P.and / P.or of an array of operands, however many. */
  all: (args: readonly Predicate[]): Predicate => junctionOf('and', args),
  any: (args: readonly Predicate[]): Predicate => junctionOf('or', args),
  not: (arg: Predicate): Predicate => freeze({ kind: 'not', arg }),
});

// ---- bound, normalized form ----

/** A leaf or junction of a bound predicate in negation normal form. `slot` indexes `fields`. */
export type Node =
  | { readonly kind: 'cmp'; readonly slot: number; readonly op: CmpOp; readonly value: Exclude<Value, null> }
  | { readonly kind: 'null'; readonly slot: number; readonly negated: boolean }
  | { readonly kind: 'never' }
  | { readonly kind: 'and' | 'or'; readonly args: readonly Node[] }
  /**
   * A long IN list (IN_NODE_MIN values or more): true where the column holds one of `values`
   * (NOT IN, `negated`: where it holds none of them), never where it is NULL. The values are
   * distinct from NULL and sorted as compareValues orders them, so pruning a unit is a binary
   * search rather than one comparison per value (issue #18: 100,000 values, every group).
   */
  | { readonly kind: 'in'; readonly slot: number; readonly values: readonly Exclude<Value, null>[]; readonly negated: boolean };

/** IN lists of at least this many values bind to one `in` node, shorter ones to an OR of `=` (NOT IN: an AND of `<>`). */
export const IN_NODE_MIN = 16;

/** A predicate bound to a table's fields: the columns it reads and its normalized tree. */
export interface BoundPredicate {
  readonly fields: readonly Field[];
  readonly root: Node;
}

const NEGATE: Record<CmpOp, CmpOp> = { '=': '<>', '<>': '=', '<': '>=', '<=': '>', '>': '<=', '>=': '<' };

/** Binds `p` to `fields` (by name) and normalizes it; unknown columns are 42703, bad values 42804. */
export function bindPredicate(p: Predicate, fields: readonly Field[], table = 'table'): BoundPredicate {
  const used: Field[] = [];
  const slotOf = (name: string): number => {
    let i = used.findIndex((f) => f.name === name);
    if (i >= 0) return i;
    const f = fields.find((x) => x.name === name);
    if (f === undefined) throw undefinedColumn(name, { relation: table });
    used.push(f);
    i = used.length - 1;
    return i;
  };
  const leaf = (column: string, op: CmpOp, value: Value): Node => {
    const slot = slotOf(column);
    const f = used[slot]!;
    if (f.type.id === 'jsonb') throw new PaxdError('unsupported', SQLSTATE.feature_not_supported, `comparisons of jsonb column "${column}" are not supported in scan predicates`);
    const v = normalizeValue(f, value);
    if (v === null) return NEVER;
    return freeze({ kind: 'cmp', slot, op, value: v });
  };
  const go = (q: Predicate, neg: boolean): Node => {
    switch (q.kind) {
      case 'cmp':
        return leaf(q.column, neg ? NEGATE[q.op] : q.op, q.value);
      case 'between':
        // x BETWEEN a AND b = x >= a AND x <= b; negated: x < a OR x > b
        return neg
          ? junctionNode('or', [leaf(q.column, '<', q.low), leaf(q.column, '>', q.high)])
          : junctionNode('and', [leaf(q.column, '>=', q.low), leaf(q.column, '<=', q.high)]);
      case 'in': {
        if (q.values.length === 0) throw new PaxdError('usage', SQLSTATE.syntax_error, `IN list of column "${q.column}" is empty`);
        if (q.values.length >= IN_NODE_MIN) return inNode(q.column, q.values, neg);
        return junctionNode(neg ? 'and' : 'or', q.values.map((v) => leaf(q.column, neg ? '<>' : '=', v)));
      }
      case 'isNull':
        return freeze({ kind: 'null', slot: slotOf(q.column), negated: neg });
      case 'and':
      case 'or': {
        const kind = (q.kind === 'and') !== neg ? 'and' : 'or';
        return junctionNode(kind, q.args.map((a) => go(a, neg)));
      }
      case 'not':
        return go(q.arg, !neg);
      default:
        return unreachable(q);
    }
  };
  /** `column [NOT] IN (values)`: a NULL value drops out of IN and makes NOT IN never true, as its `<>` would. */
  const inNode = (column: string, values: readonly Value[], negated: boolean): Node => {
    const slot = slotOf(column);
    const f = used[slot]!;
    if (f.type.id === 'jsonb') throw new PaxdError('unsupported', SQLSTATE.feature_not_supported, `comparisons of jsonb column "${column}" are not supported in scan predicates`);
    const kept: Exclude<Value, null>[] = [];
    for (const v of values) {
      const x = normalizeValue(f, v);
      if (x !== null) kept.push(x);
      else if (negated) return NEVER;
    }
    if (kept.length === 0) return NEVER;
    return freeze({ kind: 'in', slot, values: freeze(sortValues(f.type, kept)), negated });
  };
  const root = go(p, false);
  return freeze({ fields: freeze(used), root });
}

/** `values` sorted as compareValues orders them (numbers as a Float64Array: NaN last, as PostgreSQL sorts it). */
function sortValues(t: PgType, values: Exclude<Value, null>[]): Exclude<Value, null>[] {
  if (!values.every((v) => typeof v === 'number')) return values.sort((a, b) => compareValues(t, a, b));
  // Lists are often written in order: then there is nothing to sort (NaN fails the test and sorts).
  let sorted = true;
  for (let i = 1; i < values.length && sorted; i++) sorted = (values[i - 1] as number) <= (values[i] as number);
  return sorted ? values : Array.from(Float64Array.from(values as number[]).sort());
}

const NEVER: Node = freeze({ kind: 'never' });

/** AND/OR with flattening and the obvious simplifications of a never-true operand. */
function junctionNode(kind: 'and' | 'or', args: Node[]): Node {
  const flat: Node[] = [];
  for (const a of args) {
    if (a.kind === kind) for (const x of (a as { args: readonly Node[] }).args) flat.push(x);
    else if (a.kind === 'never') {
      if (kind === 'and') return NEVER; // false-or-unknown AND anything is never true
    } else flat.push(a);
  }
  if (flat.length === 0) return NEVER;
  if (flat.length === 1) return flat[0]!;
  return freeze({ kind, args: freeze(flat) });
}

function mismatch(f: Field, v: Value): PaxdError {
  return new PaxdError(
    'invalid_input',
    SQLSTATE.datatype_mismatch,
    `column "${f.name}" is of type ${pgDisplayName(f.type)} but the value ${describe(v)} is not`,
    { columnName: f.name },
  );
}

function describe(v: Value): string {
  if (v instanceof Uint8Array) return `a Uint8Array of ${v.length} bytes`;
  return `${typeof v} ${String(v)}`;
}

/** The value in the column's stored representation, or null for a NULL. */
export function normalizeValue(f: Field, v: Value): Value {
  if (v === null) return null;
  const t: PgType = f.type;
  if (isObjectIdTypeId(t.id)) return objectIdNotStorable('normalizeValue');
  switch (t.id) {
    case 'int2':
    case 'int4':
    case 'date':
      if (typeof v === 'string') return parseText(t, v);
      if (typeof v === 'number' && !Number.isNaN(v)) return v;
      if (typeof v === 'bigint') return Number(v);
      throw mismatch(f, v);
    case 'float4':
    case 'float8':
      if (typeof v === 'string') return parseText({ id: 'float8' }, v);
      if (typeof v === 'number') return v;
      if (typeof v === 'bigint') return Number(v);
      throw mismatch(f, v);
    case 'int8':
    case 'timestamp':
    case 'timestamptz':
      if (typeof v === 'bigint') return v;
      if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
      if (typeof v === 'string') return parseText(t, v);
      throw mismatch(f, v);
    case 'bool':
      if (typeof v === 'boolean') return v;
      if (typeof v === 'string') return parseText(t, v);
      throw mismatch(f, v);
    case 'text':
    case 'varchar':
    case 'bpchar':
      if (typeof v === 'string') return v;
      throw mismatch(f, v);
    case 'bytea':
    case 'uuid':
      if (v instanceof Uint8Array) {
        if (t.id === 'uuid' && v.length !== 16) throw mismatch(f, v);
        return v;
      }
      if (typeof v === 'string') return parseText(t, v);
      throw mismatch(f, v);
    case 'numeric':
      if (!isDecimal128(t)) {
        if (typeof v === 'string') return parseText(t, v);
        if (typeof v === 'number' || typeof v === 'bigint') return parseText(t, String(v));
        throw mismatch(f, v);
      }
      if (typeof v === 'bigint') return v;
      if (typeof v === 'string' || typeof v === 'number') return exactUnscaled(f, String(v));
      throw mismatch(f, v);
    case 'jsonb':
    case 'json':
      throw new PaxdError('unsupported', SQLSTATE.feature_not_supported, `${t.id} values in scan predicates are not supported`);
    case 'interval':
      return intervalNotStorable('normalizeValue');
    case 'array':
      return arrayNotStorable('normalizeValue');
    default:
      return unreachable(t.id);
  }
}

/**
 * A numeric text as the unscaled value of numeric(p,s), exactly: rounding '1.505' to scale 2
 * would change what `x > 1.505` means, so a constant with more significant fractional digits
 * than the column's scale is not supported (0A000) rather than answered differently.
 */
function exactUnscaled(f: Field, text: string): bigint {
  const scale = f.type.scale ?? 0;
  const d = parseDecimalValue(text);
  if (d.kind !== 'finite') throw featureNotSupported(`comparing numeric(${f.type.precision},${scale}) column "${f.name}" with ${text}`);
  let coef = d.coef;
  let s = d.scale;
  while (s > scale && coef % 10n === 0n) {
    coef /= 10n;
    s--;
  }
  if (s > scale) throw featureNotSupported(`comparing numeric(${f.type.precision},${scale}) column "${f.name}" with ${text} (more than ${scale} decimals)`);
  return coef * 10n ** BigInt(scale - s);
}

/** A short text form of a bound predicate's shape and values, for messages and tests. */
export function describePredicate(bp: BoundPredicate): string {
  const go = (n: Node): string => {
    switch (n.kind) {
      case 'cmp':
        return `${bp.fields[n.slot]!.name} ${n.op} ${typeof n.value === 'string' ? JSON.stringify(n.value) : String(n.value)}`;
      case 'null':
        return `${bp.fields[n.slot]!.name} IS ${n.negated ? 'NOT ' : ''}NULL`;
      case 'never':
        return 'NULL';
      case 'and':
      case 'or':
        return `(${n.args.map(go).join(` ${n.kind.toUpperCase()} `)})`;
      case 'in':
        return `${bp.fields[n.slot]!.name} ${n.negated ? 'NOT ' : ''}IN (${n.values.length} values)`;
    }
  };
  return go(bp.root);
}

/**
 * Binding of the date/time operators and the date/time and math functions (docs/ARCHITECTURE.md "The SQL engine"), with
 * PostgreSQL 15's operator and function resolution over their candidate signatures (docs
 * 10.2 "Operators", 10.3 "Functions"): exact matches first, then implicit casts preferring
 * the most exact matches, and an unknown literal taking the other operand's type when that
 * operator exists.
 *
 *   d + 1                      date_pli(d, 1)                       → date
 *   d + interval '1' month     ts_pl_interval(d::timestamp, …)      → timestamp
 *   ts - ts                    ts_mi(ts, ts)                        → interval
 *   d + '1'                    42725 operator is not unique: date + unknown
 *   round(f8)                  round(float8); round(n, 2) round(numeric, int4)
 *
 * Every call whose inputs are all constants is folded here (`fold`), so that
 * `d < date '1994-01-01' + interval '1' year` compares with one constant and the planner can
 * push it into the scan (`dateComparison` turns a comparison of a date with a timestamp at
 * midnight into a date comparison, which is exactly equivalent).
 */
import { JSON_SET_RETURNING } from './json-aggregates.js';
import { type PgType, pgDisplayName, SQLSTATE, INTERVAL_RANGE, makeInterval, parseInterval } from '../../types/index.js';
import type { AstFields, AstNode } from '../parse.js';
import { fieldsOf } from '../parse.js';
import { type ArithOp, type CmpOp, type Expr, E } from '../expr.js';
import { T, categoryOf } from '../types.js';
import { SqlError, notSupported, positionOf, undefinedFunction, undefinedOperator } from '../errors.js';
import { currentContext, currentTimeZone, type StatementContext } from '../context.js';
import { timestampToDate, timestamptzToTimestamp } from '../exec/datetime.js';
import { evaluate } from '../exec/eval.js';
import { implicitlyCasts, resolve } from '../functions/resolve.js';
import { type Entry, isFoldable, signaturesOf } from '../functions/registry.js';

/** What the binder lends: its casts (which fold constants and type `$n`), and its unknown-literal test. */
export interface FnBinder {
  cast(e: Expr, type: PgType, location?: number): Expr;
  isUnknown(e: Expr): boolean;
  /** Casts to the common type (CASE's rules), 42804 when there is none. */
  unify(exprs: Expr[], what: string, location?: number): Expr[];
}

const US_PER_DAY = 86_400_000_000n;

// ---------------------------------------------------------------------------------------------
// Constant folding

/** Evaluates calls and casts over constants at bind time, innermost first; other expressions stay. */
export function fold(e: Expr): Expr {
  let x = e;
  if (x.kind === 'func') x = E.func(x.fn, x.args.map(fold), x.type);
  else if (x.kind === 'cast') x = E.cast(fold(x.arg), x.type, x.explicit === true);
  else if (x.kind !== 'arith' && x.kind !== 'neg') return e;
  const args = x.kind === 'func' ? x.args : x.kind === 'arith' ? [x.left, x.right] : x.kind === 'cast' || x.kind === 'neg' ? [x.arg] : [];
  if (!args.every((a) => a.kind === 'const')) return x;
  if (x.kind === 'func' && !isFoldable(x.fn)) return x;
  const v = evaluate(x, { rows: 1, cols: [] })[0]!;
  return E.const(v, x.type);
}

// ---------------------------------------------------------------------------------------------
// Operators

interface OpCandidate {
  readonly left: PgType;
  readonly right: PgType;
  readonly result: PgType;
  /** Builds the call from operands already of `left` and `right`. */
  readonly make: (l: Expr, r: Expr) => Expr;
}

const fn = (name: Parameters<typeof E.func>[0], type: PgType) => (l: Expr, r: Expr) => E.func(name, [l, r], type);
const swapped = (name: Parameters<typeof E.func>[0], type: PgType) => (l: Expr, r: Expr) => E.func(name, [r, l], type);

/** pg_operator's date/time arithmetic (PostgreSQL 15 docs table 9.31), by operator. */
const DATETIME_OPERATORS: Record<ArithOp, readonly OpCandidate[]> = {
  '+': [
    { left: T.date, right: T.int4, result: T.date, make: fn('date_pli', T.date) },
    { left: T.int4, right: T.date, result: T.date, make: swapped('date_pli', T.date) },
    { left: T.date, right: T.interval, result: T.timestamp, make: (l, r) => E.func('ts_pl_interval', [E.cast(l, T.timestamp), r], T.timestamp) },
    { left: T.interval, right: T.date, result: T.timestamp, make: (l, r) => E.func('ts_pl_interval', [E.cast(r, T.timestamp), l], T.timestamp) },
    { left: T.timestamp, right: T.interval, result: T.timestamp, make: fn('ts_pl_interval', T.timestamp) },
    { left: T.interval, right: T.timestamp, result: T.timestamp, make: swapped('ts_pl_interval', T.timestamp) },
    { left: T.timestamptz, right: T.interval, result: T.timestamptz, make: fn('ts_pl_interval', T.timestamptz) },
    { left: T.interval, right: T.timestamptz, result: T.timestamptz, make: swapped('ts_pl_interval', T.timestamptz) },
    { left: T.interval, right: T.interval, result: T.interval, make: fn('interval_pl', T.interval) },
  ],
  '-': [
    { left: T.date, right: T.int4, result: T.date, make: fn('date_mii', T.date) },
    { left: T.date, right: T.date, result: T.int4, make: fn('date_mi', T.int4) },
    { left: T.date, right: T.interval, result: T.timestamp, make: (l, r) => E.func('ts_mi_interval', [E.cast(l, T.timestamp), r], T.timestamp) },
    { left: T.timestamp, right: T.interval, result: T.timestamp, make: fn('ts_mi_interval', T.timestamp) },
    { left: T.timestamptz, right: T.interval, result: T.timestamptz, make: fn('ts_mi_interval', T.timestamptz) },
    { left: T.timestamp, right: T.timestamp, result: T.interval, make: fn('ts_mi', T.interval) },
    { left: T.timestamptz, right: T.timestamptz, result: T.interval, make: fn('ts_mi', T.interval) },
    { left: T.interval, right: T.interval, result: T.interval, make: fn('interval_mi', T.interval) },
  ],
  '*': [
    { left: T.interval, right: T.float8, result: T.interval, make: fn('interval_mul', T.interval) },
    { left: T.float8, right: T.interval, result: T.interval, make: swapped('interval_mul', T.interval) },
  ],
  '/': [{ left: T.interval, right: T.float8, result: T.interval, make: fn('interval_div', T.interval) }],
  '%': [],
};

function argTypeName(e: Expr, b: FnBinder): string {
  return b.isUnknown(e) ? 'unknown' : pgDisplayName(e.type);
}

/**
 * `l op r` when either operand is a date/time or interval: the call PostgreSQL's operator
 * resolution picks, folded over constants; null when neither operand is one (numeric
 * arithmetic is the binder's).
 */
export function bindDateTimeArith(op: ArithOp, l: Expr, r: Expr, location: number, b: FnBinder): Expr | null {
  const temporal = (e: Expr) => !b.isUnknown(e) && (categoryOf(e.type) === 'datetime' || categoryOf(e.type) === 'timespan');
  if (!temporal(l) && !temporal(r)) return null;
  const cands = DATETIME_OPERATORS[op].map((c) => ({ ...c, params: [c.left, c.right] }));
  const sig = `${argTypeName(l, b)} ${op} ${argTypeName(r, b)}`;
  const c = resolve(cands, [l, r], b, true);
  if (c === 'ambiguous') throw new SqlError('invalid_input', SQLSTATE.ambiguous_function, `operator is not unique: ${sig}`, positionOf(location));
  if (c === null) throw undefinedOperator(sig, location);
  return fold(c.make(b.cast(l, c.left, location), b.cast(r, c.right, location)));
}

/** `- interval` (interval_um); null for other types. */
export function bindNegate(a: Expr): Expr | null {
  if (a.type.id !== 'interval') return null;
  return fold(E.func('interval_um', [a], T.interval));
}

/**
 * Comparing a date with a timestamp compares the date at midnight; against a constant
 * timestamp at midnight that is the date comparison with the constant's date, which the
 * planner can push into the scan's zone maps. Null when the rewrite does not apply.
 */
export function dateComparison(op: CmpOp, l: Expr, r: Expr): Expr | null {
  const ld = side(l);
  const rd = midnight(r);
  if (ld !== null && rd !== null) return E.cmp(op, ld, E.const(rd, T.date));
  const rd2 = side(r);
  const ld2 = midnight(l);
  if (rd2 !== null && ld2 !== null) return E.cmp(op, E.const(ld2, T.date), rd2);
  return null;
}

// Module functions, not closures per call: dateComparison runs once per element of an IN list
// (100,000 in issue #18's hostile suite).
function side(e: Expr): Expr | null {
  return e.kind === 'cast' && e.arg.type.id === 'date' && (e.type.id === 'timestamp' || e.type.id === 'timestamptz') ? e.arg : null;
}

function midnight(e: Expr): number | null {
  return e.kind === 'const' && (e.type.id === 'timestamp' || e.type.id === 'timestamptz') && typeof e.value === 'bigint' && e.value % US_PER_DAY === 0n && inDateRange(e.value / US_PER_DAY) ? Number(e.value / US_PER_DAY) : null;
}

function inDateRange(days: bigint): boolean {
  return days > -2147483648n && days < 2147483647n;
}

// ---------------------------------------------------------------------------------------------
// interval literals and casts: interval '1' year, '1 day'::interval, CAST(x AS interval)

/** The interval range and precision of an `interval [fields] [(p)]` type name (its typmods). */
function intervalTypmods(typeName: AstFields): { range: number; precision: number | null } {
  const mods = ((typeName.typmods ?? []) as AstNode[]).map((m) => (fieldsOf(m).ival?.ival as number | undefined) ?? 0);
  return { range: mods[0] ?? INTERVAL_RANGE.FULL, precision: mods.length > 1 ? mods[1]! : null };
}

/** True when a TypeCast's type is interval (which the storage type names do not include). */
export function isIntervalType(typeName: AstFields): boolean {
  const names = ((typeName.names ?? []) as AstNode[]).map((n) => fieldsOf(n).sval as string).filter((s) => s !== 'pg_catalog');
  return names.length === 1 && names[0] === 'interval' && typeName.arrayBounds === undefined;
}

/** A cast to interval: text parses with the typmod's range; interval keeps its value. */
export function bindIntervalCast(arg: Expr, typeName: AstFields, location: number, b: FnBinder): Expr {
  const { range, precision } = intervalTypmods(typeName);
  if (precision !== null && (precision < 0 || precision > 6)) throw notSupported(`interval(${precision})`, location);
  if (arg.kind === 'const' && b.isUnknown(arg)) {
    b.cast(arg, T.interval, location); // types a `$n` placeholder
    if (arg.value === null) return E.const(null, T.interval);
    const p = parseInterval(arg.value as string, range, precision);
    return E.const(makeInterval(p.months, p.days, p.us), T.interval);
  }
  if (range !== INTERVAL_RANGE.FULL || precision !== null) throw notSupported('interval fields or precision in a cast of a non-literal', location);
  if (arg.type.id === 'interval') return arg;
  if (categoryOf(arg.type) !== 'string') throw new SqlError('invalid_input', SQLSTATE.cannot_coerce, `cannot cast type ${pgDisplayName(arg.type)} to interval`, positionOf(location));
  return fold(b.cast(arg, T.interval, location));
}

// ---------------------------------------------------------------------------------------------
// CURRENT_DATE, CURRENT_TIMESTAMP, LOCALTIMESTAMP, now(): one instant per statement

const statementClocks = new WeakMap<StatementContext, bigint>();

/** The statement's time in µs since 1970 (UTC), taken the first time the statement asks. */
export function statementTimestamp(): bigint {
  const ctx = currentContext();
  const now = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000));
  if (ctx === null) return now;
  let t = statementClocks.get(ctx);
  if (t === undefined) {
    t = now;
    statementClocks.set(ctx, t);
  }
  return t;
}

/**
 * Whether binding under `ctx` read the statement's time (a constant now() the binder folded):
 * such a bound statement is good for that one execution only (../index.ts `prepare`).
 */
export function readStatementTime(ctx: StatementContext): boolean {
  return statementClocks.has(ctx);
}

/** SQLValueFunction: CURRENT_DATE, CURRENT_TIMESTAMP[(p)], LOCALTIMESTAMP[(p)]; the time types are 0A000. */
export function bindSqlValueFunction(n: AstFields): Expr {
  const now = statementTimestamp();
  const p = (n.typmod as number | undefined) ?? -1;
  switch (n.op as string) {
    case 'SVFOP_CURRENT_DATE':
      return E.const(timestampToDate(timestamptzToTimestamp(now, currentTimeZone())), T.date);
    case 'SVFOP_CURRENT_TIMESTAMP':
      return E.const(now, T.timestamptz);
    case 'SVFOP_CURRENT_TIMESTAMP_N':
      return E.const(roundToPrecision(now, p), T.timestamptz);
    case 'SVFOP_LOCALTIMESTAMP':
      return E.const(timestamptzToTimestamp(now, currentTimeZone()), T.timestamp);
    case 'SVFOP_LOCALTIMESTAMP_N':
      return E.const(roundToPrecision(timestamptzToTimestamp(now, currentTimeZone()), p), T.timestamp);
    // The session's user (../functions/system.ts); `paxd` for the daemon itself, the library and the CLI.
    case 'SVFOP_CURRENT_USER':
    case 'SVFOP_CURRENT_ROLE':
    case 'SVFOP_USER':
    case 'SVFOP_SESSION_USER':
      return E.const(currentContext()?.user ?? 'paxd', T.name);
    case 'SVFOP_CURRENT_CATALOG':
      return E.const('paxd', T.name);
    case 'SVFOP_CURRENT_SCHEMA':
      return E.func('current_schema()', [], T.name);
    default:
      throw notSupported(String(n.op).replace(/^SVFOP_/, '').replace(/_N$/, '').toLowerCase(), n.location);
  }
}

/** AdjustTimestampForTypmod: rounds to `p` fractional digits (half up). */
function roundToPrecision(us: bigint, p: number): bigint {
  if (p < 0 || p >= 6) return us;
  const unit = 10n ** BigInt(6 - p);
  return ((us + unit / 2n) / unit) * unit;
}

// ---------------------------------------------------------------------------------------------
// GREATEST / LEAST

export function bindMinMax(n: AstFields, args: Expr[], b: FnBinder): Expr {
  const what = n.op === 'IS_GREATEST' ? 'GREATEST' : 'LEAST';
  const unified = b.unify(args, what, n.location);
  const type = unified[0]!.type;
  if (type.id === 'jsonb') throw notSupported(`${what} of jsonb`, n.location);
  return fold(E.func(n.op === 'IS_GREATEST' ? 'greatest' : 'least', unified, type));
}

// ---------------------------------------------------------------------------------------------
// Functions

interface FnCandidate {
  readonly params: readonly PgType[];
  readonly result: PgType;
  readonly make: (args: Expr[]) => Expr;
}

const call = (name: Parameters<typeof E.func>[0], result: PgType) => (args: Expr[]) => E.func(name, args, result);

/** Same-type overloads of a numeric function (abs, ceil, …) over `types`. */
function overloads(name: Parameters<typeof E.func>[0], types: readonly PgType[]): FnCandidate[] {
  return types.map((t) => ({ params: [t], result: t, make: call(name, t) }));
}

const NUMERIC_TYPES = [T.int2, T.int4, T.int8, T.float4, T.float8, T.numeric];

/** pg_proc's signatures of the functions bound here (PostgreSQL 15 docs 9.3 and 9.9). */
const FUNCTIONS: Record<string, readonly FnCandidate[]> = {
  abs: overloads('abs', NUMERIC_TYPES),
  round: [
    { params: [T.float8], result: T.float8, make: call('round', T.float8) },
    { params: [T.numeric], result: T.numeric, make: call('round', T.numeric) },
    { params: [T.numeric, T.int4], result: T.numeric, make: call('round', T.numeric) },
  ],
  trunc: [
    { params: [T.float8], result: T.float8, make: call('trunc', T.float8) },
    { params: [T.numeric], result: T.numeric, make: call('trunc', T.numeric) },
    { params: [T.numeric, T.int4], result: T.numeric, make: call('trunc', T.numeric) },
  ],
  ceil: overloads('ceil', [T.float8, T.numeric]),
  ceiling: overloads('ceil', [T.float8, T.numeric]),
  floor: overloads('floor', [T.float8, T.numeric]),
  sign: overloads('sign', [T.float8, T.numeric]),
  sqrt: overloads('sqrt', [T.float8, T.numeric]),
  mod: [T.int2, T.int4, T.int8, T.numeric].map((t) => ({ params: [t, t], result: t, make: call('mod', t) })),
  power: [
    { params: [T.float8, T.float8], result: T.float8, make: call('power', T.float8) },
    { params: [T.numeric, T.numeric], result: T.numeric, make: call('power', T.numeric) },
  ],
  date_trunc: [
    { params: [T.text, T.timestamp], result: T.timestamp, make: call('date_trunc', T.timestamp) },
    { params: [T.text, T.timestamptz], result: T.timestamptz, make: call('date_trunc', T.timestamptz) },
    { params: [T.text, T.interval], result: T.interval, make: call('date_trunc', T.interval) },
    { params: [T.text, T.timestamptz, T.text], result: T.timestamptz, make: call('date_trunc', T.timestamptz) },
  ],
  // timezone(zone, ts) is also `ts AT TIME ZONE zone` (the parser's pg_catalog.timezone).
  timezone: [
    { params: [T.text, T.timestamptz], result: T.timestamp, make: call('timezone', T.timestamp) },
    { params: [T.text, T.timestamp], result: T.timestamptz, make: call('timezone', T.timestamptz) },
    { params: [T.interval, T.timestamptz], result: T.timestamp, make: call('timezone', T.timestamp) },
    { params: [T.interval, T.timestamp], result: T.timestamptz, make: call('timezone', T.timestamptz) },
  ],
  extract: [T.date, T.timestamp, T.timestamptz, T.interval].map((t) => ({ params: [T.text, t], result: T.numeric, make: call('extract', T.numeric) })),
  date_part: [
    // date_part(text, date) is `date_part($1, $2::timestamp)` in pg_proc.
    { params: [T.text, T.date], result: T.float8, make: (a: Expr[]) => E.func('date_part', [a[0]!, E.cast(a[1]!, T.timestamp)], T.float8) },
    ...[T.timestamp, T.timestamptz, T.interval].map((t) => ({ params: [T.text, t], result: T.float8, make: call('date_part', T.float8) })),
  ],
  now: [{ params: [], result: T.timestamptz, make: () => E.const(statementTimestamp(), T.timestamptz) }],
  // bpcharoctetlen counts the padding; byteaoctetlen the bytes.
  octet_length: [T.text, T.bpchar, T.bytea].map((t) => ({ params: [t], result: T.int4, make: call('octet_length', T.int4) })),
};
FUNCTIONS['pow'] = FUNCTIONS['power']!;

/** A call of one of FUNCTIONS or of the library's (../functions/), or null when `name` is neither. */
export function bindFunction(name: string, args: Expr[], location: number, b: FnBinder): Expr | null {
  const cands = FUNCTIONS[name];
  if (cands === undefined) return bindLibraryCall(name, args, location, b);
  const sig = `${name}(${args.map((a) => argTypeName(a, b)).join(', ')})`;
  const c = resolve(cands, args, b, false);
  if (c === 'ambiguous') throw new SqlError('invalid_input', SQLSTATE.ambiguous_function, `function ${sig} is not unique`, positionOf(location));
  if (c === null) throw undefinedFunction(sig, location);
  return fold(c.make(args.map((a, i) => b.cast(a, c.params[i]!, location))));
}

/** One candidate of a library call: an entry's parameters with its variadic ones spread to the call's arity. */
interface LibCandidate {
  readonly params: readonly PgType[];
  readonly entry: Entry;
}

function libCandidates(entries: readonly Entry[], args: readonly Expr[], b: FnBinder): LibCandidate[] {
  const out: LibCandidate[] = [];
  for (const entry of entries) {
    const { variadic, elementOf } = entry.sig;
    let params = entry.sig.params;
    if (elementOf !== undefined) {
      // anyelement: the element type of the array argument it goes with (none: no match).
      const p = [...params];
      let ok = true;
      for (const [i, j] of Object.entries(elementOf)) {
        const arr = args[j];
        const x = args[Number(i)];
        if (arr === undefined || arr.type.id !== 'array' || b.isUnknown(arr)) ok = false;
        // anycompatible (array_position): an element type that casts to the argument's widens to it.
        else if (entry.sig.compatible === true && x !== undefined && !b.isUnknown(x) && implicitlyCasts(arr.type.element!, x.type)) p[Number(i)] = x.type;
        else p[Number(i)] = arr.type.element!;
      }
      if (!ok) continue;
      params = p;
    }
    // Every anyarray argument must have the same element type (anyarray || anyarray).
    const arrays = params.flatMap((p, i) => (p.id === 'array' && p.element === undefined && args[i] !== undefined && !b.isUnknown(args[i]!) ? [args[i]!.type.element?.id] : []));
    if (new Set(arrays).size > 1) continue;
    if (variadic === undefined) {
      out.push({ params, entry });
      continue;
    }
    if (args.length < params.length + 1) continue;
    const rest = args.slice(params.length).map((a) => (variadic !== 'any' ? variadic : b.isUnknown(a) ? T.text : a.type));
    out.push({ params: [...params, ...rest], entry });
  }
  return out;
}

/** A call of the library's `name` (../functions/registry.ts), or null when it has no such function. */
function bindLibraryCall(name: string, args: Expr[], location: number, b: FnBinder): Expr | null {
  const entries = signaturesOf(name);
  if (entries === undefined) return null;
  const sig = `${name}(${args.map((a) => argTypeName(a, b)).join(', ')})`;
  const c = resolve(libCandidates(entries, args, b), args, b, false);
  if (c === 'ambiguous') throw new SqlError('invalid_input', SQLSTATE.ambiguous_function, `function ${sig} is not unique`, positionOf(location));
  if (c === null) throw undefinedFunction(sig, location);
  const unknown = args.map((a) => b.isUnknown(a));
  // An unknown literal for anyarray takes the type of the other anyarray argument (none: 42804).
  const anyarray = (p: PgType) => p.id === 'array' && p.element === undefined;
  const known = args.find((_a, i) => anyarray(c.params[i]!) && !unknown[i])?.type;
  if (c.params.some((p, i) => anyarray(p) && unknown[i]) && known === undefined)
    throw new SqlError('invalid_input', SQLSTATE.datatype_mismatch, 'could not determine polymorphic type because input has type unknown', positionOf(location));
  const cast = args.map((a, i) => b.cast(a, anyarray(c.params[i]!) && unknown[i] ? known! : c.params[i]!, location));
  const { sig: s, key } = c.entry;
  if (s.bind !== undefined) return fold(s.bind(cast, unknown, () => { throw undefinedFunction(sig, location); }));
  const r = s.resultOf;
  const type = r === undefined ? s.result : r.element === true ? cast[r.arg]!.type.element! : cast[r.arg]!.type;
  return fold(E.func(key, cast, type));
}

/**
 * PostgreSQL 15 built-in functions paxd does not evaluate (yet): calling one is 0A000, naming
 * it; any other unknown name is PostgreSQL's 42883 `function f(argtypes) does not exist`.
 */
const POSTGRES_BUILTINS = new Set(
  (
    'acos acosd acosh age array_agg array_length array_to_string ascii asin asind asinh atan atan2 atan2d atand atanh ' +
    'bit_and bit_length bit_or bool_and bool_or btrim cardinality cbrt char_length character_length chr clock_timestamp concat_ws ' +
    'corr cos cosd cosh cot cotd count covar_pop covar_samp cume_dist current_database current_schema current_setting current_user ' +
    'date_bin decode degrees dense_rank div encode every exp factorial first_value format gcd gen_random_uuid generate_series ' +
    'initcap isfinite json_agg json_build_object jsonb_agg jsonb_array_length jsonb_build_object jsonb_extract_path jsonb_extract_path_text ' +
    'jsonb_object_agg jsonb_typeof justify_days justify_hours justify_interval lag last_value lcm lead left length ln localtime log log10 ' +
    'make_date make_interval make_time make_timestamp make_timestamptz md5 min_scale max min mode nth_value ntile nullif num_nonnulls num_nulls ' +
    'octet_length overlay percent_rank percentile_cont percentile_disc pg_typeof pi quote_ident quote_literal quote_nullable radians random ' +
    'rank regexp_match regexp_matches regexp_replace regexp_split_to_array regexp_split_to_table regr_avgx regr_avgy regr_count regr_intercept ' +
    'regr_r2 regr_slope regr_sxx regr_sxy regr_syy replace reverse right row_number scale setseed sha224 sha256 sha384 sha512 ' +
    'sin sind sinh split_part starts_with statement_timestamp stddev stddev_pop stddev_samp string_agg string_to_array strpos sum tan tand tanh ' +
    'timeofday to_char to_date to_hex to_json to_jsonb to_number to_timestamp transaction_timestamp translate trim_scale unnest ' +
    'upper_inf lower_inf var_pop var_samp variance version width_bucket xmlagg'
  ).split(' '),
);

/** The error for a function name the binder does not know: 0A000 for PostgreSQL's, else 42883. */
export function unknownFunction(name: string, args: readonly Expr[], location: number, b: FnBinder): SqlError {
  if (POSTGRES_BUILTINS.has(name) || JSON_SET_RETURNING.has(name)) return notSupported(`function ${name}()`, location);
  return undefinedFunction(`${name}(${args.map((a) => argTypeName(a, b)).join(', ')})`, location);
}

/** A cast to numeric(p,s) of a numeric expression: rounded to s decimals, 22003 beyond p digits. */
export function numericTypmod(e: Expr, precision: number, scale: number): Expr {
  return fold(E.func('numeric_typmod', [e, E.const(precision, T.int4), E.const(scale, T.int4)], T.numeric));
}

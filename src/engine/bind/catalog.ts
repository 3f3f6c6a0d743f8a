/**
 * What names resolve to outside the query: tables (42P01), `'t'::regclass` literals, type
 * names with their typmods, casts PostgreSQL allows, and the function and operator names the
 * binder knows (aggregates with their result types, PostgreSQL 15 docs 9.21).
 */
import type { Database, Table } from '../../table/index.js';
import { type PgType, PaxdError, SQLSTATE, arrayOf, objectIdTypeNamed, parseTypeName, pgDisplayName, unreachable } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, str } from '../parse.js';
import type { ArithOp, CmpOp, Expr } from '../expr.js';
import { T, categoryOf, engineType, isFloat, isInteger } from '../types.js';
import { notSupported, positionOf, SqlError, undefinedFunction, undefinedTable } from '../errors.js';
import type { AggName } from '../ir.js';
import { systemRegclassOid } from '../catalog/names.js';


export const AGGREGATES = new Set<string>([
  'count', 'sum', 'avg', 'min', 'max', 'bool_and', 'bool_or', 'every',
  'stddev', 'stddev_samp', 'stddev_pop', 'variance', 'var_samp', 'var_pop',
  'string_agg', 'array_agg', 'percentile_cont', 'percentile_disc',
]);

/** PostgreSQL 15's other built-in aggregates (docs 9.21): 0A000, whatever the call's syntax. */
export const UNSUPPORTED_AGGREGATES = new Set<string>(
  ('bit_and bit_or bit_xor corr covar_pop covar_samp json_agg json_object_agg jsonb_agg jsonb_object_agg mode range_agg range_intersect_agg ' +
    'regr_avgx regr_avgy regr_count regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy xmlagg rank dense_rank percent_rank cume_dist').split(' '),
);

/** Names that are other aggregates' aliases (PostgreSQL 15 docs 9.21). */
export const AGGREGATE_ALIAS: Readonly<Record<string, AggName>> = { every: 'bool_and', stddev: 'stddev_samp', variance: 'var_samp' };

export const ARITH: Record<string, ArithOp> = { '+': '+', '-': '-', '*': '*', '/': '/', '%': '%' };

export const CMP: Record<string, CmpOp> = { '=': '=', '<>': '<>', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

export async function openTable(db: Database, name: string, location: number): Promise<Table> {
  try {
    return await db.table(name);
  } catch (e) {
    if (e instanceof PaxdError && e.code === SQLSTATE.undefined_table) throw undefinedTable(name, location);
    throw e;
  }
}

/** Result types of aggregates (PostgreSQL 15 docs, table 9.58). */
export function aggregateType(fn: AggName, t: PgType, location?: number): PgType {
  const sig = () => undefinedFunction(`${fn}(${pgDisplayName(t)})`, location);
  switch (fn) {
    case 'count':
      return T.int8;
    case 'sum':
      if (t.id === 'int2' || t.id === 'int4') return T.int8;
      if (t.id === 'int8' || t.id === 'numeric') return T.numeric;
      if (isFloat(t)) return t;
      if (t.id === 'interval') throw notSupported('sum(interval)', location);
      throw sig();
    case 'avg':
      if (isInteger(t) || t.id === 'numeric') return T.numeric;
      if (isFloat(t)) return T.float8;
      throw sig();
    case 'bool_and':
    case 'bool_or':
      if (t.id !== 'bool') throw sig();
      return T.bool;
    case 'stddev_samp':
    case 'stddev_pop':
    case 'var_samp':
    case 'var_pop':
      if (isInteger(t) || t.id === 'numeric') return T.numeric;
      if (isFloat(t)) return T.float8;
      throw sig();
    case 'string_agg':
      return T.text;
    case 'array_agg':
      return arrayOf(t);
    case 'percentile_cont':
      return T.float8;
    case 'percentile_disc':
      return t;
    case 'min':
    case 'max':
      if (t.id === 'bool' || t.id === 'jsonb' || t.id === 'uuid') throw sig();
      // PostgreSQL has no min/max(varchar): varchar resolves to min/max(text), typed text.
      return t.id === 'varchar' ? T.text : t;
    default:
      return unreachable(fn);
  }
}

export function checkCast(from: PgType, to: PgType, location?: number): void {
  const cf = categoryOf(from);
  const ct = categoryOf(to);
  // Text converts to and from every type through the types' text I/O (PostgreSQL's I/O casts).
  if (cf === 'string' || ct === 'string') return;
  if (cf === ct && (cf !== 'other' || from.id === to.id) && (cf !== 'oid' || objectIdCasts(from, to))) return;
  // Integers to oid and the reg* types; oid and the reg* types to int4 and int8 (pg_cast).
  if ((isInteger(from) && ct === 'oid' && to.id !== 'xid') || (cf === 'oid' && from.id !== 'xid' && (to.id === 'int4' || to.id === 'int8'))) return;
  // pg_cast has these, paxd does not evaluate them; every other pair has no cast (42846).
  if ((cf === 'bool' && to.id === 'int4') || (from.id === 'int4' && ct === 'bool')) return;
  // json ↔ jsonb, and jsonb to a number or a boolean (jsonb_numeric, jsonb_bool …: a scalar of that kind).
  if ((from.id === 'json' && to.id === 'jsonb') || (from.id === 'jsonb' && (to.id === 'json' || ct === 'numeric' || ct === 'bool'))) return;
  throw new SqlError('invalid_input', SQLSTATE.cannot_coerce, `cannot cast type ${pgDisplayName(from)} to ${pgDisplayName(to)}`, positionOf(location));
}

/** Among the oid family, pg_cast has oid to and from each reg* type, nothing else (xid has none). */
function objectIdCasts(from: PgType, to: PgType): boolean {
  return from.id === to.id || (from.id === 'oid' && to.id !== 'xid') || (to.id === 'oid' && from.id !== 'xid');
}

export function engineTypeFor(t: PgType): PgType {
  return engineType(t);
}

/** Tables named by `'name'::regclass` casts, resolved before binding (the binder has no catalog access). */
export const regclassTables = new WeakMap<AstFields, Table>();

/** Expressions that stand for a regclass (the table's name, as text), by table. */
export const regclassExprs = new WeakMap<Expr, Table>();

/** ctid columns (tid text), for the comparisons they allow. */
export const ctidExprs = new WeakSet<Expr>();

export function isRegclass(typeName: AstFields): boolean {
  const names = (typeName.names as AstNode[]).map(str);
  return names[names.length - 1] === 'regclass' && (names.length === 1 || names[0] === 'pg_catalog') && typeName.arrayBounds === undefined;
}

/**
 * Opens the tables that `'…'::regclass` casts of string literals name (42P01 if missing), for the
 * binder; the casts are found by ../catalog/bind.ts prepareCatalog's walk of the statement.
 */
export async function openRegclasses(db: Database, casts: readonly AstFields[]): Promise<void> {
  for (const tc of casts) {
    const arg = tc.arg as AstNode;
    // An oid expression cast to regclass prints its relation's name (../catalog/names.ts bindRegCast).
    if (kindOf(arg) !== 'A_Const' || fieldsOf(arg).sval === undefined) continue;
    const text = (fieldsOf(arg).sval.sval as string | undefined) ?? '';
    if (systemRegclassOid(text) !== null) continue; // bound as its oid (../catalog/names.ts)
    if (/^\s*(\d+|-)\s*$/.test(text)) continue; // an oid as digits, or '-' (0): no lookup
    regclassTables.set(tc, await openTable(db, relationName(text, tc.location as number), tc.location as number));
  }
}

/** The table a regclass literal names: `t`, `public.t`, `"T"`; another schema is 42P01. */
export function relationName(text: string, location: number): string {
  const parts = text.trim().match(/("([^"]|"")*"|[^."]+)/g) ?? [];
  const names = parts.map((p) => (p.startsWith('"') ? p.slice(1, -1).replace(/""/g, '"') : p.toLowerCase()));
  if (names.length === 2 && names[0] === 'public') return names[1]!;
  if (names.length === 1) return names[0]!;
  throw undefinedTable(text, location);
}

export function typeOf(typeName: AstFields): PgType {
  const tn = typeName as AstFields;
  if (tn.arrayBounds !== undefined) throw notSupported('array types', tn.location);
  const names = (tn.names as AstNode[]).map(str).filter((s) => s !== 'pg_catalog');
  const mods = ((tn.typmods ?? []) as AstNode[]).map((m) => {
    const c = fieldsOf(m);
    return (c.ival?.ival as number | undefined) ?? 0;
  });
  const objectId = mods.length === 0 ? objectIdTypeNamed((tn.names as AstNode[]).map(str).filter((s, _i, all) => s !== 'pg_catalog' || all.length === 1)) : null;
  if (objectId !== null) return objectId;
  const name = names.join('.') + (mods.length > 0 ? `(${mods.join(',')})` : '');
  if (/^(interval|time|timetz)\b/.test(name)) throw notSupported(`type ${names.join('.')}`, tn.location);
  try {
    return parseTypeName(name);
  } catch (e) {
    // An unknown name is 42704 naming it as written; a bad typmod (22023) or a type paxd lacks
    // (0A000: timestamp(3), time) keeps its own code.
    if (e instanceof PaxdError && (e.code === SQLSTATE.undefined_object || e.code === SQLSTATE.syntax_error))
      throw new SqlError('not_found', SQLSTATE.undefined_object, `type "${names.join('.')}" does not exist`, positionOf(tn.location));
    if (e instanceof PaxdError && e.position === undefined) throw new SqlError(e.kind, e.code, e.message, positionOf(tn.location));
    throw e;
  }
}

/** GROUP BY and DISTINCT: json has no equality operator (42883), as in PostgreSQL. */
export function checkGroupable(type: PgType, location: number | undefined): void {
  if (type.id === 'json') throw new SqlError('not_found', SQLSTATE.undefined_function, 'could not identify an equality operator for type json', positionOf(location));
}

/** ORDER BY: jsonb sorts by jsonb_cmp (../../types/json-compare.ts); json has no ordering operator (42883). */
export function checkSortable(type: PgType, location: number | undefined): void {
  if (type.id === 'json') throw new SqlError('not_found', SQLSTATE.undefined_function, 'could not identify an ordering operator for type json', positionOf(location));
}

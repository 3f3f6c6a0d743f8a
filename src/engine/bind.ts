/**
 * The binder: a parsed SELECT (./parse.ts) over paxd's catalog becomes a BoundSelect, with
 * names resolved to table fields and every expression typed by PostgreSQL's rules
 * (./types.ts): untyped literals ('2024-01-01') take the type of the other operand, mixed
 * numeric operands are cast to their common type, aggregates get their result types.
 *
 * Two row layouts exist. Before aggregation an expression reads the scan's columns (`columns`,
 * in slot order). In an aggregating query the targets, HAVING and ORDER BY read the group
 * keys followed by the aggregates: slot k < keys.length is key k, slot keys.length + j is
 * aggregate j. A column outside an aggregate must then be a GROUP BY key (42803).
 *
 * Supported (the rest is 0A000 naming the feature): SELECT [DISTINCT] [*, expressions] FROM
 * one table [WHERE] [GROUP BY expressions|positions] [HAVING] [ORDER BY … ASC|DESC NULLS
 * FIRST|LAST] [LIMIT n] [OFFSET m]; literals of integer, numeric, string, boolean and NULL,
 * typed literals and casts ('x'::date, CAST(… AS …)); + - * / %, unary minus, comparisons,
 * AND, OR, NOT, IS [NOT] NULL, [NOT] BETWEEN, [NOT] IN (list); CASE (searched and simple),
 * COALESCE, NULLIF, [NOT] LIKE/ILIKE [ESCAPE], ||, length, lower, upper, substring/substr,
 * position/strpos, trim/btrim/ltrim/rtrim, concat; count(*), count, sum, avg, min, max,
 * bool_and, bool_or, every, each with DISTINCT. `bindValue` and `bindCondition` bind the
 * expressions of other statements (./statements/).
 *
 * postgres_fdw's dialect (docs/MIRROR.md): `x op ANY|ALL (ARRAY[…] | '{…}'::type[] | $n)` as the
 * OR/AND of comparisons (an IN list the scan can push), `(ARRAY[…])[i]`, `~ ~* !~ !~*`
 * (./exec/regex.ts), FOR UPDATE/SHARE (a no-op: the pinned snapshot is read), the `ctid`
 * system column (./ctid.ts), `'t'::regclass` with pg_relation_size, whole-row
 * `(r.*)::text IS NOT NULL` and ROW(…) (record text), stddev/variance families, string_agg
 * and array_agg with ORDER BY and FILTER, percentile_cont/disc WITHIN GROUP, `pg_catalog.`
 * qualified function names.
 *
 * Relational queries (`bindQuery`): FROM lists, [INNER|LEFT|RIGHT|FULL|CROSS] JOIN … ON /
 * USING / NATURAL, subqueries in FROM (with column aliases), SELECT without FROM, UNION [ALL]
 * (./bind.ts `bindSetOp`), uncorrelated subqueries in expressions (run once, before binding:
 * scalar, EXISTS, IN/ANY/ALL), correlated [NOT] EXISTS by equalities and large IN lists as
 * semi-/anti-joins. Their expressions read one global row layout (BoundJoinSelect.columns: a
 * slot per leaf field read). Names resolve as PostgreSQL's do: 42702 for an ambiguous
 * column, 42P01 for a qualifier no FROM item has. `$n` parameters bind per ./context.ts.
 */
import type { Database, Table } from '../table/index.js';
import { type Field, type PgType, type Value, PaxdError, SQLSTATE, arrayOf, formatArrayText, parseArrayText, parseText, parseTypeName, pgDisplayName, unreachable, invalidRowCount, isPaxdError, undefinedColumn as sharedUndefinedColumn } from '../types/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, locationOf, str } from './parse.js';
import { type ArithOp, type CmpOp, type Expr, BOOL, E, exprKey } from './expr.js';
import { T, categoryOf, commonType, comparisonType, engineType, isFloat, isInteger, numericCommon } from './types.js';
import { checkEscape } from './exec/strings.js';
import {
  aggregateNotAllowed,
  datatypeMismatch,
  groupingError,
  notSupported,
  positionOf,
  SqlError,
  undefinedColumn,
  undefinedFunction,
  undefinedOperator,
  undefinedTable,
  } from './errors.js';
import { castValue, fromText, toText } from './exec/kernels.js';
import { type AggCall, type AggName, type BoundQuery, type BoundSelect, type BoundSetOp, type FromNode, type InitPlan, type JoinType, type Leaf, type OrderItem, type SlotColumn, type Target, COLLECTING_AGGREGATES, leavesOf, queryFields } from './ir.js';

export type { AggCall, AggName, BoundJoinSelect, BoundQuery, BoundSelect, BoundSetOp, FromNode, JoinType, Leaf, OrderItem, SlotColumn, Target } from './ir.js';
export { COLLECTING_AGGREGATES, leavesOf, queryFields } from './ir.js';
import { type FnBinder, bindDateTimeArith, bindFunction, bindIntervalCast, bindMinMax, bindNegate, bindSqlValueFunction, dateComparison, isIntervalType, numericTypmod, unknownFunction } from './bind-functions.js';
import { currentContext } from './context.js';
import { recordBind } from './counters.js';
import { CTID_FIELD, canonicalTid, isCtidField } from './ctid.js';
import { regexFor } from './exec/regex.js';

/** Expressions whose value has a declared type beyond their engine type (see Target.declared). */
const declaredTypes = new WeakMap<Expr, PgType>();

/** A select-list entry, with the declared type of its expression when it has one. */
function target(name: string, expr: Expr): Target {
  const declared = declaredTypes.get(expr);
  return declared === undefined ? { name, expr } : { name, expr, declared };
}

/** Per output column: still an unknown-typed literal (`SELECT 'a'`), which a UNION resolves. */
export function queryUnknown(q: BoundQuery): boolean[] {
  if (q.kind === 'union') return q.fields.map(() => false);
  const targets = q.kind === 'select' ? q.select.targets : q.targets;
  return targets.map((t) => unknownLiterals.has(t.expr));
}

/** String literals have PostgreSQL's type `unknown` until context gives them one. */
const unknownLiterals = new WeakSet<Expr>();

/** Placeholders of `$n` whose type is still unknown (infer phase, ./context.ts): n - 1. */
const paramPlaceholders = new WeakMap<Expr, number>();

/**
 * `$n`: in the infer phase an unknown-typed placeholder (its type comes from the context, see
 * `cast`) unless the caller gave the type; in the execute phase a constant of the parameter's
 * type. 42P02 when there is no such parameter.
 */
function paramRef(n: AstFields): Expr {
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
function inferParam(e: Expr, type: PgType): void {
  const k = paramPlaceholders.get(e);
  const ctx = currentContext();
  if (k === undefined || ctx === null || ctx.values !== null) return;
  if (ctx.types[k] === null || ctx.types[k] === undefined) ctx.types[k] = engineType(type);
}

const AGGREGATES = new Set<string>([
  'count', 'sum', 'avg', 'min', 'max', 'bool_and', 'bool_or', 'every',
  'stddev', 'stddev_samp', 'stddev_pop', 'variance', 'var_samp', 'var_pop',
  'string_agg', 'array_agg', 'percentile_cont', 'percentile_disc',
]);

/** PostgreSQL 15's other built-in aggregates (docs 9.21): 0A000, whatever the call's syntax. */
const UNSUPPORTED_AGGREGATES = new Set<string>(
  ('bit_and bit_or bit_xor corr covar_pop covar_samp json_agg json_object_agg jsonb_agg jsonb_object_agg mode range_agg range_intersect_agg ' +
    'regr_avgx regr_avgy regr_count regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy xmlagg rank dense_rank percent_rank cume_dist').split(' '),
);

/** Names that are other aggregates' aliases (PostgreSQL 15 docs 9.21). */
const AGGREGATE_ALIAS: Readonly<Record<string, AggName>> = { every: 'bool_and', stddev: 'stddev_samp', variance: 'var_samp' };

const ARITH: Record<string, ArithOp> = { '+': '+', '-': '-', '*': '*', '/': '/', '%': '%' };
const CMP: Record<string, CmpOp> = { '=': '=', '<>': '<>', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

/** A single-table SELECT (INSERT … SELECT, the fast paths' tests); joins, subqueries in FROM and UNION are 0A000 here. */
export async function bindSelect(db: Database, stmt: AstNode): Promise<BoundSelect> {
  const q = await bindQuery(db, stmt);
  if (q.kind === 'union') throw notSupported('UNION here');
  if (q.kind === 'join-select') throw notSupported('joins and subqueries in FROM here');
  return q.select;
}

/**
 * Any SELECT: over one table (a BoundSelect), over joins and subqueries in FROM (a
 * BoundJoinSelect), or UNION [ALL] of SELECTs (a BoundSetOp).
 */
export async function bindQuery(db: Database, stmt: AstNode): Promise<BoundQuery> {
  recordBind();
  const kind = kindOf(stmt);
  if (kind !== 'SelectStmt') throw notSupported(statementName(kind));
  const s = fieldsOf(stmt);
  if (s.op !== undefined && s.op !== 'SETOP_NONE') return bindSetOp(db, s);
  if (s.valuesLists !== undefined) throw notSupported('VALUES');
  if (s.withClause !== undefined) throw notSupported('WITH');
  if (s.distinctClause !== undefined && (s.distinctClause as AstNode[]).some((d) => Object.keys(d).length > 0)) throw notSupported('SELECT DISTINCT ON');
  if (s.intoClause !== undefined) throw notSupported('SELECT INTO');
  if (s.windowClause !== undefined) throw notSupported('WINDOW');
  // FOR UPDATE / FOR SHARE lock nothing: the statement reads the transaction's pinned snapshot
  // and a conflicting write is detected when the writer commits (docs/WIRE.md "Transactions").
  if (s.lockingClause !== undefined) lockingAllowed(s);
  await resolveRegclasses(db, s);
  const from: AstNode[] = s.fromClause ?? [];
  const leaves: Leaf[] = [];
  let raw: RawFrom | null = null;
  if (from.length === 0) {
    leaves.push(Object.freeze({ alias: '', fields: [], source: Object.freeze({ kind: 'one-row' }) }));
    raw = { kind: 'leaf', leaf: 0 };
  }
  for (const item of from) {
    const r = await rawFrom(db, item, leaves);
    raw = raw === null ? r : { kind: 'join', type: 'cross', left: raw, right: r, on: null, using: null, natural: false };
  }
  if (s.lockingClause !== undefined) lockedRelsExist(s, leaves);
  const exists = await existsJoins(db, s, leaves, raw!);
  const s1 = exists?.s ?? s;
  const subQueries = await bindSubLinks(db, s1, leaves);
  const binder = new Binder(leaves, subQueries, whereConjunctLinks(s1));
  if (exists !== null) {
    const fromNode = binder.bindFrom(exists.raw);
    const core = binder.select(exists.s);
    return Object.freeze({ kind: 'join-select', leaves, columns: binder.slotColumns, from: fromNode, ...core });
  }
  if (raw!.kind === 'leaf' && leaves[0]!.source.kind === 'table') {
    const table = leaves[0]!.source.table;
    const core = binder.select(s);
    return { kind: 'select', select: Object.freeze({ table, columns: binder.readColumns, ...core }) };
  }
  const fromNode = binder.bindFrom(raw!);
  const core = binder.select(s);
  return Object.freeze({ kind: 'join-select', leaves, columns: binder.slotColumns, from: fromNode, ...core });
}

/**
 * UNION [ALL] (PostgreSQL 15 docs 7.4): each output column's type is the common type of the
 * two sides' (10.5; unknown literals take it, all-unknown is text), names come from the left.
 * ORDER BY may name output columns or positions only, as in PostgreSQL.
 */
async function bindSetOp(db: Database, s: AstFields): Promise<BoundSetOp> {
  if (s.op !== 'SETOP_UNION') throw notSupported(s.op === 'SETOP_INTERSECT' ? 'INTERSECT' : 'EXCEPT');
  if (s.withClause !== undefined) throw notSupported('WITH');
  if (s.lockingClause !== undefined) throw new SqlError('unsupported', SQLSTATE.feature_not_supported, `${lockingName(s)} is not allowed with UNION/INTERSECT/EXCEPT`);
  if (s.limitOption === 'LIMIT_OPTION_WITH_TIES') throw notSupported('FETCH FIRST … WITH TIES');
  const left = await bindQuery(db, { SelectStmt: s.larg as AstFields });
  const right = await bindQuery(db, { SelectStmt: s.rarg as AstFields });
  const lf = queryFields(left);
  const rf = queryFields(right);
  if (lf.length !== rf.length) throw new SqlError('invalid_input', SQLSTATE.syntax_error, 'each UNION query must have the same number of columns', positionOf(locationOf((s.rarg.targetList as AstNode[] | undefined)?.[0] ?? { x: {} })));
  const lu = queryUnknown(left);
  const ru = queryUnknown(right);
  const fields = lf.map((f, i) => {
    const typed = [...(lu[i] ? [] : [f.type]), ...(ru[i] ? [] : [rf[i]!.type])];
    const type = commonType(typed);
    if (type === null || (type.id === 'timestamptz' && typed.some((t) => t.id !== 'timestamptz'))) {
      if (type !== null) throw notSupported('UNION mixing timestamptz with other types');
      const rt = (s.rarg.targetList as AstNode[] | undefined)?.[i];
      throw datatypeMismatch(`UNION types ${pgDisplayName(f.type)} and ${pgDisplayName(rf[i]!.type)} cannot be matched`, rt === undefined ? undefined : locationOf(fieldsOf(rt).val));
    }
    return Object.freeze({ name: f.name, type });
  });
  const orderBy = ((s.sortClause ?? []) as AstNode[]).map((o) => {
    const b = fieldsOf(o);
    if (b.useOp !== undefined) throw notSupported('ORDER BY … USING');
    const desc = b.sortby_dir === 'SORTBY_DESC';
    const nullsFirst = b.sortby_nulls === 'SORTBY_NULLS_FIRST' ? true : b.sortby_nulls === 'SORTBY_NULLS_LAST' ? false : desc;
    const node = b.node as AstNode;
    let index = -1;
    if (kindOf(node) === 'A_Const' && fieldsOf(node).ival !== undefined) {
      const n = (fieldsOf(node).ival.ival as number | undefined) ?? 0;
      if (n < 1 || n > fields.length) throw new SqlError('invalid_input', SQLSTATE.invalid_column_reference, `ORDER BY position ${n} is not in select list`, positionOf(locationOf(node)));
      index = n - 1;
    } else if (kindOf(node) === 'ColumnRef' && fieldsOf(node).fields.length === 1 && kindOf(fieldsOf(node).fields[0]) === 'String') {
      const name = str(fieldsOf(node).fields[0]);
      const hits = fields.flatMap((f, i) => (f.name === name ? [i] : []));
      if (hits.length > 1) throw new SqlError('invalid_input', SQLSTATE.ambiguous_column, `ORDER BY "${name}" is ambiguous`, positionOf(locationOf(node)));
      if (hits.length === 0) throw undefinedColumn(name, locationOf(node));
      index = hits[0]!;
    } else throw notSupported('ORDER BY of a UNION on an expression (only result column names or positions)', locationOf(node));
    checkSortable(fields[index]!.type, locationOf(node));
    return Object.freeze({ index, desc, nullsFirst });
  });
  const b = new Binder([]);
  return Object.freeze({
    kind: 'union',
    all: s.all === true,
    left,
    right,
    fields,
    orderBy,
    limit: s.limitCount === undefined ? null : b.rowCount(s.limitCount, 'LIMIT'),
    offset: s.limitOffset === undefined ? 0 : (b.rowCount(s.limitOffset, 'OFFSET') ?? 0),
  });
}


function ambiguousColumn(name: string, location?: number): SqlError {
  return new SqlError('invalid_input', SQLSTATE.ambiguous_column, `column reference "${name}" is ambiguous`, positionOf(location));
}

/**
 * Finds the subqueries in the expressions of a SELECT (not those of its FROM subqueries or
 * UNION sides, which bind on their own; not those nested in another subquery) and binds each
 * as a query of its own: they are uncorrelated, so each has one result per execution
 * (PostgreSQL's InitPlans, ./ir.ts `InitPlan`), which the executor computes. A subquery that
 * names an outer column is correlated: 0A000.
 */
async function bindSubLinks(db: Database, s: AstFields, leaves: readonly Leaf[]): Promise<Map<AstFields, BoundQuery> | null> {
  const found: AstFields[] = [];
  const visit = (x: unknown, key: string): void => {
    if (x === null || typeof x !== 'object' || key === 'subquery' || key === 'larg' || key === 'rarg') return;
    if (Array.isArray(x)) return x.forEach((v) => visit(v, ''));
    const o = x as Record<string, unknown>;
    const sl = o['SubLink'] as AstFields | undefined;
    if (sl !== undefined) {
      found.push(sl);
      visit(sl.testexpr, '');
      return;
    }
    for (const [k, v] of Object.entries(o)) visit(v, k);
  };
  visit(s, '');
  if (found.length === 0) return null;
  const out = new Map<AstFields, BoundQuery>();
  for (const sl of found) {
    try {
      out.set(sl, await bindQuery(db, sl.subselect as AstNode));
    } catch (e) {
      if (isPaxdError(e) && isOuterReference(e, leaves)) throw notSupported('correlated subqueries', sl.location);
      throw e;
    }
  }
  return out;
}

/** The SubLinks that are whole conjuncts of the WHERE clause (where NULL counts as false). */
function whereConjunctLinks(s: AstFields): ReadonlySet<AstFields> {
  if (s.whereClause === undefined) return new Set();
  return new Set(astConjuncts(s.whereClause as AstNode).flatMap((c) => (kindOf(c) === 'SubLink' ? [fieldsOf(c)] : [])));
}

/** The top-level AND conjuncts of a condition's parse tree. */
function astConjuncts(where: AstNode): AstNode[] {
  return kindOf(where) === 'BoolExpr' && fieldsOf(where).boolop === 'AND_EXPR' ? [...(fieldsOf(where).args as AstNode[])] : [where];
}

function andOf(conj: AstNode[], location: unknown): AstNode | undefined {
  return conj.length === 0 ? undefined : conj.length === 1 ? conj[0] : { BoolExpr: { boolop: 'AND_EXPR', args: conj, location } };
}

/**
 * Correlated [NOT] EXISTS in a WHERE conjunct, correlated by equalities `inner = outer` only
 * (TPC-H Q4, Q22): a semi- (anti-) join with the subquery reduced to its other conditions,
 * outputting the inner side of each equality. Others stay for runSubLinks (uncorrelated ones
 * run once; other correlations are 0A000). Returns the new FROM tree and the SELECT without
 * those conjuncts, or null when there are none.
 */
async function existsJoins(db: Database, s: AstFields, leaves: Leaf[], raw: RawFrom): Promise<{ raw: RawFrom; s: AstFields } | null> {
  if (s.whereClause === undefined) return null;
  const rest: AstNode[] = [];
  let tree = raw;
  for (const c of astConjuncts(s.whereClause as AstNode)) {
    const negated = kindOf(c) === 'BoolExpr' && fieldsOf(c).boolop === 'NOT_EXPR';
    const node = negated ? (fieldsOf(c).args as AstNode[])[0]! : c;
    const sl = kindOf(node) === 'SubLink' && fieldsOf(node).subLinkType === 'EXISTS_SUBLINK' ? fieldsOf(node) : null;
    const sub = sl === null ? null : fieldsOf(sl.subselect as AstNode);
    const simple = sub !== null && (sub.op === undefined || sub.op === 'SETOP_NONE') && sub.fromClause !== undefined && sub.whereClause !== undefined;
    if (sl === null || sub === null || !simple || sub.groupClause !== undefined || sub.havingClause !== undefined || sub.limitCount !== undefined || sub.withClause !== undefined || sub.distinctClause !== undefined) {
      rest.push(c);
      continue;
    }
    const inner: Leaf[] = [];
    for (const item of sub.fromClause as AstNode[]) await rawFrom(db, item, inner);
    const classify = (ref: AstFields): 'inner' | 'outer' => {
      const parts = (ref.fields as AstNode[]).map((f) => (kindOf(f) === 'A_Star' ? '*' : str(f)));
      if (parts.length === 2) return inner.some((l) => l.alias === parts[0]) || !leaves.some((l) => l.alias === parts[0]) ? 'inner' : 'outer';
      return inner.some((l) => l.fields.some((f) => f.name === parts[0])) || !leaves.some((l) => l.fields.some((f) => f.name === parts[0])) ? 'inner' : 'outer';
    };
    const classes = (x: unknown, out = new Set<string>()): Set<string> => {
      if (x === null || typeof x !== 'object') return out;
      if (Array.isArray(x)) {
        for (const v of x) classes(v, out);
        return out;
      }
      const o = x as Record<string, unknown>;
      if (o['ColumnRef'] !== undefined) out.add(classify(o['ColumnRef'] as AstFields));
      else for (const v of Object.values(o)) classes(v, out);
      return out;
    };
    const keep: AstNode[] = [];
    const pairs: { inner: AstNode; outer: AstNode }[] = [];
    let ok = true;
    for (const w of astConjuncts(sub.whereClause as AstNode)) {
      if (!classes(w).has('outer')) {
        keep.push(w);
        continue;
      }
      const a = fieldsOf(w);
      const isEq = kindOf(w) === 'A_Expr' && a.kind === 'AEXPR_OP' && (a.name as AstNode[]).map(str).join('.') === '=';
      const only = (x: AstNode, cls: string) => {
        const cs = classes(x);
        return cs.size === 1 && cs.has(cls);
      };
      if (isEq && only(a.lexpr, 'inner') && only(a.rexpr, 'outer')) pairs.push({ inner: a.lexpr, outer: a.rexpr });
      else if (isEq && only(a.lexpr, 'outer') && only(a.rexpr, 'inner')) pairs.push({ inner: a.rexpr, outer: a.lexpr });
      else ok = false;
    }
    if (!ok || pairs.length === 0) {
      rest.push(c);
      continue;
    }
    const reduced: Record<string, unknown> = { ...sub, targetList: pairs.map((p) => ({ ResTarget: { val: p.inner, location: -1 } })) };
    const w = andOf(keep, fieldsOf(sub.whereClause as AstNode).location);
    if (w === undefined) delete reduced['whereClause'];
    else reduced['whereClause'] = w;
    const query = await bindQuery(db, { SelectStmt: reduced });
    const fields: Field[] = queryFields(query).map((f, i) => ({ name: f.name, type: f.type, notNull: false, fieldId: i }));
    leaves.push(Object.freeze({ alias: negated ? 'NOT_EXISTS_subquery' : 'EXISTS_subquery', hidden: true, fields, source: Object.freeze({ kind: 'subquery', query }) }));
    tree = { kind: 'join', type: negated ? 'anti' : 'semi', left: tree, right: { kind: 'leaf', leaf: leaves.length - 1 }, on: null, using: null, natural: false, location: sl.location as number, existsKeys: pairs.map((p) => p.outer) };
  }
  if (tree === raw) return null;
  const s2: Record<string, unknown> = { ...s };
  const w = andOf(rest, fieldsOf(s.whereClause as AstNode).location);
  if (w === undefined) delete s2['whereClause'];
  else s2['whereClause'] = w;
  return { raw: tree, s: s2 };
}

/** True when a name error inside a subquery names a column or table of the outer query. */
function isOuterReference(e: PaxdError, leaves: readonly Leaf[]): boolean {
  if (e.code !== SQLSTATE.undefined_column && e.code !== SQLSTATE.undefined_table) return false;
  const m = /^column "?([^".]+)"? does not exist$|^column ([^ .]+)\.([^ ]+) does not exist$|^missing FROM-clause entry for table "([^"]+)"$/.exec(e.message);
  if (m === null) return false;
  if (m[1] !== undefined) return leaves.some((l) => l.fields.some((f) => f.name === m[1]));
  if (m[2] !== undefined) return leaves.some((l) => l.alias === m[2]);
  return leaves.some((l) => l.alias === m[4]);
}

/** The FROM tree before its ON conditions are bound (they need every leaf). */
type RawFrom =
  | { kind: 'leaf'; leaf: number }
  | {
      kind: 'join';
      type: JoinType;
      left: RawFrom;
      right: RawFrom;
      on: AstNode | null;
      using: string[] | null;
      natural: boolean;
      location?: number;
      /** Correlated [NOT] EXISTS: the outer expressions equal to the right leaf's columns, in order. */
      existsKeys?: AstNode[];
    };

/** Where an output column of a FROM item comes from: a leaf's field, or a USING/NATURAL merge. */
type ColumnSource = { readonly kind: 'field'; readonly leaf: number; readonly k: number } | { readonly kind: 'merge'; readonly m: number };

/** A column JOIN … USING merges (PostgreSQL 15 docs 7.2.1.1): the left one, the right one (RIGHT JOIN) or COALESCE of both (FULL). */
interface Merge {
  readonly name: string;
  readonly left: ColumnSource;
  readonly right: ColumnSource;
  readonly type: JoinType;
}

const sourceKey = (c: ColumnSource) => (c.kind === 'field' ? `f${c.leaf}.${c.k}` : `m${c.m}`);

const JOIN_TYPES: Record<string, JoinType> = { JOIN_INNER: 'inner', JOIN_LEFT: 'left', JOIN_RIGHT: 'right', JOIN_FULL: 'full' };

async function rawFrom(db: Database, node: AstNode, leaves: Leaf[]): Promise<RawFrom> {
  const n = fieldsOf(node);
  switch (kindOf(node)) {
    case 'RangeVar': {
      if (n.catalogname !== undefined || (n.schemaname !== undefined && n.schemaname !== 'public')) throw notSupported('qualified names with schema or database', n.location);
      const table = await openTable(db, n.relname as string, n.location as number);
      return addLeaf(leaves, n.alias, table.name, table.fields, { kind: 'table', table }, n.location);
    }
    case 'RangeSubselect': {
      if (n.lateral === true) throw notSupported('LATERAL');
      if (n.alias === undefined) throw new SqlError('invalid_input', SQLSTATE.syntax_error, 'subquery in FROM must have an alias', positionOf(locationOf(n.subquery)));
      const query = await bindQuery(db, n.subquery);
      const fields: Field[] = queryFields(query).map((f, i) => ({ name: f.name, type: f.type, notNull: false, fieldId: i }));
      return addLeaf(leaves, n.alias, '', fields, { kind: 'subquery', query }, undefined);
    }
    case 'JoinExpr': {
      if (n.alias !== undefined || n.join_using_alias !== undefined) throw notSupported('an alias on a join');
      const type = JOIN_TYPES[n.jointype as string];
      if (type === undefined) throw notSupported(`join type ${String(n.jointype)}`);
      const left = await rawFrom(db, n.larg, leaves);
      const right = await rawFrom(db, n.rarg, leaves);
      const using = n.usingClause === undefined ? null : (n.usingClause as AstNode[]).map(str);
      const natural = n.isNatural === true;
      const keyed = n.quals !== undefined || using !== null || natural;
      const location = locationOf(n.larg);
      return { kind: 'join', type: type === 'inner' && !keyed ? 'cross' : type, left, right, on: (n.quals as AstNode | undefined) ?? null, using, natural, ...(location === undefined ? {} : { location }) };
    }
    default:
      throw notSupported(`${kindOf(node).replace(/^Range/, '')} in FROM`, n.location);
  }
}

/** A leaf under its alias (column aliases rename its first columns); 42712 when the name is taken. */
function addLeaf(leaves: Leaf[], alias: AstFields | undefined, name: string, fields: readonly Field[], source: Leaf['source'], location: number | undefined): RawFrom {
  const ref = (alias?.aliasname as string | undefined) ?? name;
  const colnames = ((alias?.colnames ?? []) as AstNode[]).map(str);
  if (colnames.length > fields.length)
    throw new SqlError('invalid_input', SQLSTATE.invalid_column_reference, `table "${ref}" has ${fields.length} columns available but ${colnames.length} columns specified`, positionOf(location));
  if (leaves.some((l) => l.alias === ref)) throw new SqlError('invalid_input', SQLSTATE.duplicate_alias, `table name "${ref}" specified more than once`, positionOf(location));
  leaves.push(Object.freeze({ alias: ref, fields: fields.map((f, i) => (i < colnames.length ? { ...f, name: colnames[i]! } : f)), source }));
  return { kind: 'leaf', leaf: leaves.length - 1 };
}

/**
 * A table-free expression (an item of INSERT's VALUES, a column DEFAULT): column references
 * fail with 42703, aggregates with 42803.
 */
export function bindValue(node: AstNode, clause: string): Expr {
  return new Binder([]).scalar(node, clause);
}

/** A condition over one table's columns (DELETE's WHERE); `columns` are the fields it reads, by slot. */
export function bindCondition(table: Table, node: AstNode, clause: string): { expr: Expr; columns: readonly Field[] } {
  const b = new Binder([{ alias: table.name, fields: table.fields, source: { kind: 'table', table } }]);
  const expr = b.conditionOf(node, clause);
  return { expr, columns: b.readColumns };
}

/** True for a string or NULL literal whose type is still PostgreSQL's `unknown`. */
export function isUnknownLiteral(e: Expr): boolean {
  return unknownLiterals.has(e);
}

export async function openTable(db: Database, name: string, location: number): Promise<Table> {
  try {
    return await db.table(name);
  } catch (e) {
    if (e instanceof PaxdError && e.code === SQLSTATE.undefined_table) throw undefinedTable(name, location);
    throw e;
  }
}

function statementName(kind: string): string {
  return kind.replace(/Stmt$/, '').replace(/([a-z])([A-Z])/g, '$1 $2').toUpperCase();
}

type Mode = { kind: 'scalar'; clause: string } | { kind: 'grouped'; keys: Expr[]; keyNodes: string[]; aggs: AggCall[]; aggKeys: string[] };

type SelectCore = Omit<BoundSelect, 'table' | 'columns'>;

class Binder {
  private readonly slots: SlotColumn[] = [];
  /** While binding a JOIN's ON: the leaves it may reference (PostgreSQL's scoping). */
  private visible: ReadonlySet<number> | null = null;
  /** The FROM tree (relational queries), its USING merges and the columns they hide. */
  private tree: RawFrom | null = null;
  private readonly merges: Merge[] = [];
  private readonly hidden = new Set<string>();
  private readonly expansion = new Map<RawFrom, { name: string; src: ColumnSource }[]>();

  constructor(
    private readonly leaves: readonly Leaf[],
    /** The query's uncorrelated subqueries in expressions, bound, by SubLink (see bindSubLinks). */
    private readonly subQueries: ReadonlyMap<AstFields, BoundQuery> | null = null,
    /** Those that are whole WHERE conjuncts. */
    private readonly conjunctLinks: ReadonlySet<AstFields> = new Set(),
  ) {}

  /** The InitPlans of the query being bound, in the order its expressions name them. */
  readonly initPlans: InitPlan[] = [];

  /**
   * A subquery in an expression, uncorrelated: an InitPlan, run at execution (./ir.ts
   * `InitPlan`). A scalar subquery must have one column (its row count is checked when it
   * runs: 21000), EXISTS is a boolean, `x IN (…)` / `x op ANY|ALL (…)` compares `x` with each
   * of its values, so the comparison is typed here, once, against a placeholder row value.
   */
  private subLink(n: AstFields, mode: Mode): Expr {
    const query = this.subQueries?.get(n);
    if (query === undefined) throw notSupported('subqueries in this clause', n.location);
    const fields = queryFields(query);
    const id = this.initPlans.length;
    const kind = n.subLinkType as string;
    if (kind === 'EXISTS_SUBLINK') {
      this.initPlans.push(Object.freeze({ kind: 'exists', id, query }));
      return E.subquery(id, BOOL);
    }
    if (kind === 'EXPR_SUBLINK') {
      if (fields.length !== 1) throw new SqlError('invalid_input', SQLSTATE.syntax_error, 'subquery must return only one column', positionOf(n.location));
      this.initPlans.push(Object.freeze({ kind: 'scalar', id, query }));
      return E.subquery(id, fields[0]!.type);
    }
    if (kind !== 'ANY_SUBLINK' && kind !== 'ALL_SUBLINK') throw notSupported(`${kind.replace(/_SUBLINK$/, '')} subqueries`, n.location);
    if (kindOf(n.testexpr as AstNode) === 'RowExpr') throw notSupported('row comparisons with subqueries', n.location);
    if (fields.length !== 1) throw new SqlError('invalid_input', SQLSTATE.syntax_error, fields.length > 1 ? 'subquery has too many columns' : 'subquery has too few columns', positionOf(n.location));
    const opName = n.operName === undefined ? '=' : (n.operName as AstNode[]).map(str).join('.');
    const op = CMP[opName];
    if (op === undefined) throw notSupported(`operator ${opName} with a subquery`, n.location);
    const x = this.expr(n.testexpr as AstNode, mode);
    // The comparison exists even when the subquery returns no row (42883 for incomparable types).
    const test = this.compare(op, x, E.element(fields[0]!.type), n.location);
    this.initPlans.push(Object.freeze({ kind: kind === 'ANY_SUBLINK' ? 'any' : 'all', id, query, op, test, conjunct: this.conjunctLinks.has(n) }));
    return E.subquery(id, BOOL);
  }

  /**
   * The elements of `x op ANY/ALL (array)`: an ARRAY[…] constructor, or an array literal
   * (`'{1,2}'::integer[]`, or untyped, taking the element type of `x`), each element a
   * constant of the element type. Null for a NULL array.
   */
  private arrayElements(node: AstNode, mode: Mode, x: Expr): Expr[] | null {
    const n = fieldsOf(node);
    switch (kindOf(node)) {
      case 'A_ArrayExpr': {
        return ((n.elements ?? []) as AstNode[]).map((a) => this.expr(a, mode));
      }
      case 'TypeCast': {
        if (n.typeName.arrayBounds === undefined) break;
        const elem = typeOf({ ...n.typeName, arrayBounds: undefined });
        const arg = this.expr(n.arg, mode);
        if (arg.kind !== 'const') break;
        if (arg.value === null) return null;
        if (!unknownLiterals.has(arg) && categoryOf(arg.type) !== 'string') break;
        return parseArrayText(String(arg.value)).map((t) => (t === null ? E.const(null, engineType(elem)) : E.const(fromText(elem, t), engineType(elem))));
      }
      case 'A_Const':
      case 'ParamRef': {
        // An untyped literal or parameter: array text of the element type of `x`.
        const arg = this.expr(node, mode);
        if (arg.kind !== 'const' || (!unknownLiterals.has(arg) && arg.type.id !== 'text' && arg.type.id !== 'array')) break;
        if (arg.value === null) return null;
        // A parameter bound as an array (psycopg's lists) is read with its own element type.
        const elem = arg.type.id === 'array' ? arg.type.element! : unknownLiterals.has(x) ? T.text : x.type;
        return parseArrayText(String(arg.value)).map((t) => (t === null ? E.const(null, engineType(elem)) : E.const(fromText(elem, t), engineType(elem))));
      }
      default:
        break;
    }
    throw notSupported('ANY/ALL over anything but an array constructor or literal', locationOf(node));
  }

  /**
   * `'{1,2}'::int4[]`: an array constant, its text read by the element type's input function
   * (the value is array_out's text, src/types/array.ts). Casts of computed values are 0A000.
   */
  private arrayCast(n: AstFields, mode: Mode): Expr {
    let elem: PgType;
    try {
      elem = typeOf({ ...n.typeName, arrayBounds: undefined });
    } catch (e) {
      if (e instanceof PaxdError && e.code === SQLSTATE.undefined_object) throw new SqlError('not_found', e.code, e.message.replace(/^type "(.*)" does not exist$/, 'type "$1[]" does not exist'), e.position);
      throw e;
    }
    const type = arrayOf(engineType(elem));
    const arg = this.expr(n.arg, mode);
    if (arg.type.id === 'array' && arg.type.element!.id === elem.id) return arg;
    if (arg.kind === 'const' && (unknownLiterals.has(arg) || categoryOf(arg.type) === 'string')) {
      if (arg.value === null) return E.const(null, type);
      return E.const(fromText(arrayOf(elem), String(arg.value)), type);
    }
    throw notSupported(`casts of ${unknownLiterals.has(arg) ? 'unknown' : pgDisplayName(arg.type)} values to ${pgDisplayName(type)}`, n.location);
  }

  /** `ARRAY[a, b, …]` of constants: one array constant of the elements' common type. */
  private arrayConstructor(n: AstFields, mode: Mode): Expr {
    const items = ((n.elements ?? []) as AstNode[]).map((a) => this.expr(a, mode));
    if (items.length === 0) throw new SqlError('invalid_input', SQLSTATE.indeterminate_datatype, 'cannot determine type of empty array', positionOf(n.location));
    const unified = this.unify(items.map((e) => (items.every((x) => unknownLiterals.has(x)) ? this.cast(e, T.text) : e)), 'ARRAY', n.location);
    const type = unified[0]!.type;
    if (type.id === 'array') throw notSupported('multidimensional arrays', n.location);
    if (unified.some((e) => e.kind !== 'const')) throw notSupported('ARRAY[…] of non-constant values', n.location);
    const texts = unified.map((e) => ((e as { value: Value }).value === null ? null : toText(type, (e as { value: Value }).value)));
    return E.const(formatArrayText(texts), arrayOf(type));
  }

  /** `(ARRAY[a, b, …])[i]`: CASE i WHEN 1 THEN a WHEN 2 THEN b … END (NULL out of range, as PostgreSQL). */
  private subscript(n: AstFields, mode: Mode): Expr {
    const ind = n.indirection as AstNode[];
    if (ind.length !== 1 || kindOf(ind[0]!) !== 'A_Indices' || fieldsOf(ind[0]!).is_slice === true) throw notSupported('array slices and field selection', locationOf(n.arg));
    const arg = n.arg as AstNode;
    let items: Expr[];
    if (kindOf(arg) === 'A_ArrayExpr') items = ((fieldsOf(arg).elements ?? []) as AstNode[]).map((a) => this.expr(a, mode));
    else if (kindOf(arg) === 'TypeCast' && fieldsOf(arg).typeName.arrayBounds !== undefined) items = this.arrayElements(arg, mode, E.const(null, T.text)) ?? [];
    else throw notSupported('subscripts of anything but an array constructor or literal', locationOf(arg));
    if (items.length === 0) throw notSupported('subscripts of an empty array');
    const unified = this.unify(items, 'ARRAY', locationOf(arg));
    const idx0 = this.expr(fieldsOf(ind[0]!).uidx as AstNode, mode);
    const idx = unknownLiterals.has(idx0) ? this.cast(idx0, T.int4) : idx0;
    if (!isInteger(idx.type)) throw datatypeMismatch(`array subscript must have type integer`, locationOf(fieldsOf(ind[0]!).uidx as AstNode));
    const type = unified[0]!.type;
    if (idx.kind === 'const') {
      const k = idx.value === null ? -1 : Number(idx.value);
      return k >= 1 && k <= unified.length ? unified[k - 1]! : E.const(null, type);
    }
    const whens = unified.map((result, i) => ({ cond: this.compare('=', idx, E.const(i + 1, T.int4), -1), result }));
    return E.case(whens, E.const(null, type), type);
  }

  /** `text ~ pattern` and its case-insensitive and negated forms; a constant pattern is checked now. */
  private regex(l0: Expr, p0: Expr, op: string, location: number): Expr {
    const fail = () => undefinedOperator(`${pgDisplayName(l0.type)} ${op} ${unknownLiterals.has(p0) ? 'unknown' : pgDisplayName(p0.type)}`, location);
    const l = this.text(l0, fail);
    const p = this.text(p0, fail);
    const ci = op.includes('*');
    if (p.kind === 'const' && p.value !== null) regexFor(p.value as string, ci);
    const m = E.func(ci ? 'texticregexeq' : 'textregexeq', [l, p], BOOL);
    return op.startsWith('!') ? E.not(m) : m;
  }

  /** ctid = / <> tid text: the other side is canonicalized (22P02 when it is not a tid). */
  private compareTid(op: CmpOp, l0: Expr, r0: Expr, location: number): Expr {
    if (op !== '=' && op !== '<>') throw notSupported(`operator ${op} on ctid`, location);
    const side = (e: Expr): Expr => {
      if (ctidExprs.has(e)) return e;
      inferParam(e, T.text);
      if (e.kind === 'const' && (unknownLiterals.has(e) || categoryOf(e.type) === 'string')) return E.const(e.value === null ? null : canonicalTid(String(e.value)), T.text);
      throw undefinedOperator(`tid ${op} ${pgDisplayName(e.type)}`, location);
    };
    return E.cmp(op, side(l0), side(r0));
  }

  /**
   * `(r.*)::text IS [NOT] NULL` (postgres_fdw's whole-row references): a row of a table not on
   * the nullable side of an outer join always exists, so the test is constant.
   */
  private wholeRowTest(n: AstFields, mode: Mode): Expr | null {
    let arg = n.arg as AstNode;
    if (kindOf(arg) === 'TypeCast') arg = fieldsOf(arg).arg as AstNode;
    else return null;
    if (kindOf(arg) !== 'ColumnRef') return null;
    const parts = fieldsOf(arg).fields as AstNode[];
    if (parts.length !== 2 || kindOf(parts[1]!) !== 'A_Star') return null;
    const leaf = this.leafNamed(str(parts[0]!), fieldsOf(arg).location as number);
    const negated = n.nulltesttype === 'IS_NOT_NULL';
    if (this.tree === null || !nullableLeaves(this.tree).has(leaf)) return E.const(negated, BOOL);
    // On the nullable side of an outer join the row is NULL exactly when it was null-extended,
    // which a NOT NULL column of the table shows.
    const k = this.leaves[leaf]!.fields.findIndex((f) => f.notNull);
    if (k < 0 || this.leaves[leaf]!.source.kind !== 'table') throw notSupported('whole-row references to the nullable side of an outer join', fieldsOf(arg).location as number);
    return E.isNull(this.columnExpr(leaf, k, mode), negated);
  }

  /** The ctid column of a table leaf (a pseudo field read by slot; see ./ctid.ts). */
  private ctidExpr(leaf: number, mode: Mode, location?: number): Expr {
    if (this.leaves.length !== 1 || this.leaves[leaf]!.source.kind !== 'table') throw notSupported('ctid in joins and subqueries', location);
    let i = this.slots.findIndex((c) => c.leaf === leaf && isCtidField(c.field));
    if (i < 0) {
      this.slots.push(Object.freeze({ leaf, field: CTID_FIELD }));
      i = this.slots.length - 1;
    }
    const e = E.column(i, T.text, 'ctid');
    ctidExprs.add(e);
    if (mode.kind === 'scalar') return e;
    const key = mode.keyNodes.indexOf(exprKey(e));
    if (key < 0) throw groupingError(this.leaves[leaf]!.alias, 'ctid', location);
    const k = E.column(key, T.text, 'ctid');
    ctidExprs.add(k);
    return k;
  }

  /** What ./bind-functions.ts borrows to bind date/time and math calls. */
  private get fn(): FnBinder {
    return { cast: (e, t, l) => this.cast(e, t, l), isUnknown: (e) => unknownLiterals.has(e), unify: (x, w, l) => this.unify(x, w, l) };
  }

  /** The stored fields the slots read (a single table's columns, by slot). */
  get readColumns(): readonly Field[] {
    return this.slots.map((c) => c.field);
  }

  get slotColumns(): readonly SlotColumn[] {
    return this.slots;
  }

  /** Binds a FROM tree (see fromNode) and keeps it for `*`. */
  bindFrom(raw: RawFrom): FromNode {
    this.tree = raw;
    return this.fromNode(raw);
  }

  /** The output columns of a FROM item, in PostgreSQL's `*` order (merged USING columns first). */
  private columnsOf(raw: RawFrom): { name: string; src: ColumnSource }[] {
    if (raw.kind === 'leaf') return this.leaves[raw.leaf]!.fields.map((f, k) => ({ name: f.name, src: { kind: 'field', leaf: raw.leaf, k } }));
    if (raw.type === 'semi' || raw.type === 'anti') return this.columnsOf(raw.left);
    return this.expansion.get(raw) ?? [...this.columnsOf(raw.left), ...this.columnsOf(raw.right)];
  }

  /** USING (a, b) / NATURAL: the merged columns and the equality of each pair. */
  private usingCondition(raw: Extract<RawFrom, { kind: 'join' }>): Expr | null {
    const lcols = this.columnsOf(raw.left);
    const rcols = this.columnsOf(raw.right);
    const names = raw.natural ? [...new Set(lcols.map((c) => c.name))].filter((n) => rcols.some((c) => c.name === n)) : raw.using!;
    const used = new Set<string>();
    const merged: { name: string; src: ColumnSource }[] = [];
    const conds: Expr[] = [];
    for (const name of names) {
      const side = (cols: { name: string; src: ColumnSource }[], which: string) => {
        const hits = cols.filter((c) => c.name === name);
        if (hits.length > 1) throw new SqlError('invalid_input', SQLSTATE.ambiguous_column, `common column name "${name}" appears more than once in ${which} table`, positionOf(raw.location));
        if (hits.length === 0) throw new SqlError('not_found', SQLSTATE.undefined_column, `column "${name}" specified in USING clause does not exist in ${which} table`, positionOf(raw.location));
        return hits[0]!.src;
      };
      const l = side(lcols, 'left');
      const r = side(rcols, 'right');
      used.add(sourceKey(l));
      used.add(sourceKey(r));
      this.hidden.add(sourceKey(l));
      this.hidden.add(sourceKey(r));
      this.merges.push({ name, left: l, right: r, type: raw.type });
      merged.push({ name, src: { kind: 'merge', m: this.merges.length - 1 } });
      conds.push(this.compare('=', this.sourceExpr(l), this.sourceExpr(r), raw.location ?? -1));
    }
    this.expansion.set(raw, [...merged, ...lcols.filter((c) => !used.has(sourceKey(c.src))), ...rcols.filter((c) => !used.has(sourceKey(c.src)))]);
    return conds.length === 0 ? null : E.and(conds);
  }

  /** A FROM column's expression in the pre-aggregation layout. */
  private sourceExpr(src: ColumnSource): Expr {
    if (src.kind === 'field') return this.columnExpr(src.leaf, src.k, { kind: 'scalar', clause: 'FROM' });
    const m = this.merges[src.m]!;
    // The merged column has the two columns' common type (PostgreSQL's buildMergedJoinVar).
    const args = this.unify([this.sourceExpr(m.left), this.sourceExpr(m.right)], 'JOIN/USING');
    if (m.type === 'right') return args[1]!;
    if (m.type !== 'full') return args[0]!;
    return E.coalesce(args, args[0]!.type);
  }

  /** A FROM column in `mode`: in a grouped query it must be (part of) a GROUP BY key. */
  private sourceIn(src: ColumnSource, name: string, mode: Mode, location?: number): Expr {
    if (src.kind === 'field') return this.columnExpr(src.leaf, src.k, mode, location);
    const e = this.sourceExpr(src);
    if (mode.kind === 'scalar') return e;
    const k = mode.keyNodes.indexOf(exprKey(e));
    if (k < 0) throw new SqlError('invalid_input', SQLSTATE.grouping_error, `column "${name}" must appear in the GROUP BY clause or be used in an aggregate function`, positionOf(location));
    return E.column(k, e.type, name);
  }

  /** Binds the ON conditions of a FROM tree, each seeing only the leaves below its join. */
  private fromNode(raw: RawFrom): FromNode {
    if (raw.kind === 'leaf') return Object.freeze({ kind: 'leaf', leaf: raw.leaf });
    const left = this.fromNode(raw.left);
    const right = this.fromNode(raw.right);
    if (raw.existsKeys !== undefined) {
      const saved = this.visible;
      this.visible = new Set(leavesOf(left));
      const leaf = (right as { leaf: number }).leaf;
      try {
        const conds = raw.existsKeys.map((k, i) => this.compare('=', this.expr(k, { kind: 'scalar', clause: 'WHERE' }), this.columnExpr(leaf, i, { kind: 'scalar', clause: 'WHERE' }), raw.location ?? -1));
        return Object.freeze({ kind: 'join', type: raw.type, left, right, on: E.and(conds) });
      } finally {
        this.visible = saved;
      }
    }
    if (raw.using !== null || raw.natural) {
      const on = this.usingCondition(raw);
      return Object.freeze({ kind: 'join', type: on === null && raw.type === 'inner' ? 'cross' : raw.type, left, right, on });
    }
    let on: Expr | null = null;
    if (raw.on !== null) {
      const saved = this.visible;
      this.visible = new Set([...leavesOf(left), ...leavesOf(right)]);
      try {
        on = this.condition(raw.on, { kind: 'scalar', clause: 'JOIN conditions' }, 'JOIN/ON');
      } finally {
        this.visible = saved;
      }
    }
    return Object.freeze({ kind: 'join', type: raw.type, left, right, on });
  }

  scalar(node: AstNode, clause: string): Expr {
    return this.expr(node, { kind: 'scalar', clause });
  }

  conditionOf(node: AstNode, clause: string): Expr {
    return this.condition(node, { kind: 'scalar', clause }, clause);
  }

  select(s: AstFields): SelectCore {
    const targetNodes: AstNode[] = s.targetList ?? [];
    const where = s.whereClause === undefined ? null : this.condition(s.whereClause, { kind: 'scalar', clause: 'WHERE' }, 'WHERE');
    const aggregating = s.groupClause !== undefined || s.havingClause !== undefined || targetNodes.some((t) => hasAggregate(t)) || (s.sortClause ?? []).some((o: AstNode) => hasAggregate(o));
    let mode: Mode = { kind: 'scalar', clause: 'SELECT' };
    let grouped: Extract<Mode, { kind: 'grouped' }> | null = null;
    if (aggregating) {
      grouped = { kind: 'grouped', keys: [], keyNodes: [], aggs: [], aggKeys: [] };
      for (const g of (s.groupClause ?? []) as AstNode[]) {
        const node = this.groupNode(g, targetNodes);
        const e = this.expr(node, { kind: 'scalar', clause: 'GROUP BY' });
        grouped.keys.push(e);
        grouped.keyNodes.push(exprKey(e));
      }
      mode = grouped;
    }
    const targets: Target[] = [];
    for (const t of targetNodes) {
      const rt = fieldsOf(t);
      const val: AstNode = rt.val;
      if (kindOf(val) === 'ColumnRef' && fieldsOf(val).fields.some((f: AstNode) => kindOf(f) === 'A_Star')) {
        const parts = (fieldsOf(val).fields as AstNode[]).map((f) => (kindOf(f) === 'A_Star' ? '*' : str(f)));
        const location = fieldsOf(val).location as number;
        if (parts.length > 2) throw notSupported('qualified names with schema or database', location);
        if (this.leaves.length === 0 || this.leaves[0]!.source.kind === 'one-row')
          throw new SqlError('invalid_input', SQLSTATE.syntax_error, 'SELECT * with no tables specified is not valid', positionOf(location));
        if (parts.length === 1) {
          const cols = this.tree === null ? this.leaves[0]!.fields.map((f, k) => ({ name: f.name, src: { kind: 'field', leaf: 0, k } as ColumnSource })) : this.columnsOf(this.tree);
          for (const c of cols) targets.push(target(c.name, this.sourceIn(c.src, c.name, mode, location)));
        } else {
          const i = this.leafNamed(parts[0]!, location);
          this.leaves[i]!.fields.forEach((f, k) => targets.push(target(f.name, this.columnExpr(i, k, mode, location))));
        }
        continue;
      }
      targets.push(target((rt.name as string | undefined) ?? outputName(val), resolveUnknown(this.expr(val, mode))));
    }
    const having = s.havingClause === undefined ? null : this.condition(s.havingClause, mode, 'HAVING');
    const orderBy: OrderItem[] = ((s.sortClause ?? []) as AstNode[]).map((o) => this.orderItem(fieldsOf(o), targets, mode));
    if (s.limitOption === 'LIMIT_OPTION_WITH_TIES') throw notSupported('FETCH FIRST … WITH TIES');
    const distinct = s.distinctClause !== undefined;
    if (distinct) {
      const keys = new Set(targets.map((t) => exprKey(t.expr)));
      if (orderBy.some((o) => !keys.has(exprKey(o.expr))))
        throw new SqlError('invalid_input', SQLSTATE.invalid_column_reference, 'for SELECT DISTINCT, ORDER BY expressions must appear in select list', positionOf(locationOf(s.sortClause[0])));
    }
    return Object.freeze({
      where,
      grouping: grouped === null ? null : { keys: grouped.keys, aggs: grouped.aggs },
      having,
      targets,
      orderBy,
      limit: s.limitCount === undefined ? null : this.count(s.limitCount, 'LIMIT'),
      offset: s.limitOffset === undefined ? 0 : (this.count(s.limitOffset, 'OFFSET') ?? 0),
      distinct,
      initPlans: Object.freeze([...this.initPlans]),
    });
  }

  /** GROUP BY 2 names the second target; a bare name is an input column (PostgreSQL prefers those). */
  private groupNode(g: AstNode, targets: AstNode[]): AstNode {
    if (kindOf(g) === 'A_Const' && fieldsOf(g).ival !== undefined) {
      const n = (fieldsOf(g).ival.ival as number | undefined) ?? 0;
      if (n < 1 || n > targets.length) throw new SqlError('invalid_input', SQLSTATE.invalid_column_reference, `GROUP BY position ${n} is not in select list`, positionOf(locationOf(g)));
      return fieldsOf(targets[n - 1]!).val;
    }
    if (kindOf(g) === 'GroupingSet') throw notSupported('GROUPING SETS, ROLLUP and CUBE');
    // A bare name no input column has may name an output column (SQL-92's rule, kept by PostgreSQL).
    if (kindOf(g) === 'ColumnRef' && fieldsOf(g).fields.length === 1 && kindOf(fieldsOf(g).fields[0]) === 'String') {
      const name = str(fieldsOf(g).fields[0]);
      if (!this.leaves.some((l) => l.fields.some((f) => f.name === name))) {
        const t = targets.find((x) => ((fieldsOf(x).name as string | undefined) ?? outputName(fieldsOf(x).val)) === name);
        if (t !== undefined) return fieldsOf(t).val;
      }
    }
    return g;
  }

  private orderItem(o: AstFields, targets: readonly Target[], mode: Mode): OrderItem {
    if (o.useOp !== undefined) throw notSupported('ORDER BY … USING');
    const desc = o.sortby_dir === 'SORTBY_DESC';
    const nullsFirst = o.sortby_nulls === 'SORTBY_NULLS_FIRST' ? true : o.sortby_nulls === 'SORTBY_NULLS_LAST' ? false : desc;
    const node: AstNode = o.node;
    let expr: Expr | null = null;
    if (kindOf(node) === 'A_Const' && fieldsOf(node).ival !== undefined) {
      const n = (fieldsOf(node).ival.ival as number | undefined) ?? 0;
      if (n < 1 || n > targets.length) throw new SqlError('invalid_input', SQLSTATE.invalid_column_reference, `ORDER BY position ${n} is not in select list`, positionOf(locationOf(node)));
      expr = targets[n - 1]!.expr;
    } else if (kindOf(node) === 'ColumnRef' && fieldsOf(node).fields.length === 1 && kindOf(fieldsOf(node).fields[0]) === 'String') {
      // ORDER BY name: an output column's name first, then an input column (PostgreSQL's rule for SQL-92 compatibility)
      const name = str(fieldsOf(node).fields[0]);
      const matches = targets.filter((t) => t.name === name);
      if (matches.length > 1 && new Set(matches.map((m) => exprKey(m.expr))).size > 1)
        throw new SqlError('invalid_input', SQLSTATE.ambiguous_column, `ORDER BY "${name}" is ambiguous`, positionOf(locationOf(node)));
      if (matches.length > 0) expr = matches[0]!.expr;
    }
    expr ??= resolveUnknown(this.expr(node, mode));
    checkSortable(expr.type, locationOf(node));
    return { expr, desc, nullsFirst };
  }

  /** LIMIT/OFFSET of a UNION. */
  rowCount(node: AstNode, clause: 'LIMIT' | 'OFFSET'): number | null {
    return this.count(node, clause);
  }

  private count(node: AstNode, clause: 'LIMIT' | 'OFFSET'): number | null {
    const e0 = this.expr(node, { kind: 'scalar', clause });
    const e = unknownLiterals.has(e0) ? this.cast(e0, T.int8) : e0;
    if (e.kind !== 'const') throw notSupported(`non-constant ${clause}`);
    if (e.value === null) return null;
    const v = Number(castValue(engineType(e.type), T.int8, e.value));
    if (v < 0) throw invalidRowCount(clause);
    return v;
  }

  private condition(node: AstNode, mode: Mode, clause: string): Expr {
    const e = this.coerce(this.expr(node, mode), BOOL, node);
    if (e.type.id !== 'bool') throw datatypeMismatch(`argument of ${clause} must be type boolean, not type ${pgDisplayName(e.type)}`, locationOf(node));
    return e;
  }

  /** The slot of a leaf's k-th field; slots are numbered in order of first reference. */
  private slotOf(leaf: number, k: number): number {
    const l = this.leaves[leaf]!;
    const field = l.source.kind === 'table' ? l.source.table.fields[k]! : l.fields[k]!;
    let i = this.slots.findIndex((c) => c.leaf === leaf && c.field.fieldId === field.fieldId);
    if (i < 0) {
      this.slots.push(Object.freeze({ leaf, field }));
      i = this.slots.length - 1;
    }
    return i;
  }

  private columnExpr(leaf: number, k: number, mode: Mode, location?: number): Expr {
    const f = this.leaves[leaf]!.fields[k]!;
    const e = E.column(this.slotOf(leaf, k), engineType(f.type), f.name);
    const declare = (x: Expr) => {
      if (x.type !== f.type) declaredTypes.set(x, f.type);
      return x;
    };
    if (mode.kind === 'scalar') return declare(e);
    const key = mode.keyNodes.indexOf(exprKey(e));
    if (key < 0) throw groupingError(this.leaves[leaf]!.alias, f.name, location);
    return declare(E.column(key, e.type, f.name));
  }

  private isVisible(leaf: number): boolean {
    return this.visible === null || this.visible.has(leaf);
  }

  /** The leaf a qualifier names; 42P01 as PostgreSQL words it when none does. */
  private leafNamed(name: string, location: number | undefined): number {
    const i = this.leaves.findIndex((l, k) => l.alias === name && this.isVisible(k));
    if (i >= 0) return i;
    if (this.leaves.some((l) => l.alias === name))
      throw new SqlError('not_found', SQLSTATE.undefined_table, `invalid reference to FROM-clause entry for table "${name}"`, positionOf(location));
    throw new SqlError('not_found', SQLSTATE.undefined_table, `missing FROM-clause entry for table "${name}"`, positionOf(location));
  }

  private expr(node: AstNode, mode: Mode): Expr {
    const kind = kindOf(node);
    const n = fieldsOf(node);
    // In a grouped query an expression equal to a GROUP BY key is that key.
    if (mode.kind === 'grouped' && mode.keys.length > 0 && kind !== 'ColumnRef' && kind !== 'A_Const' && !hasAggregate(node)) {
      const probe = safeBind(() => this.expr(node, { kind: 'scalar', clause: 'GROUP BY' }));
      if (probe !== null) {
        const k = mode.keyNodes.indexOf(exprKey(probe));
        if (k >= 0) return E.column(k, probe.type, outputName(node));
      }
    }
    switch (kind) {
      case 'ColumnRef':
        return this.columnRef(n, mode);
      case 'A_Const':
        return literal(n);
      case 'TypeCast': {
        const rc = regclassTables.get(n);
        if (rc !== undefined) {
          const e = E.const(rc.name, T.text);
          regclassExprs.set(e, rc);
          return e;
        }
        if (n.typeName.arrayBounds !== undefined) return this.arrayCast(n, mode);
        if (isIntervalType(n.typeName)) return bindIntervalCast(this.expr(n.arg, mode), n.typeName, n.location, this.fn);
        const type = typeOf(n.typeName);
        return this.cast(this.expr(n.arg, mode), type, n.location);
      }
      case 'A_Expr':
        return this.aExpr(n, mode);
      case 'BoolExpr': {
        const args = (n.args as AstNode[]).map((a) => this.boolArg(a, mode, n.boolop === 'AND_EXPR' ? 'AND' : n.boolop === 'OR_EXPR' ? 'OR' : 'NOT'));
        if (n.boolop === 'AND_EXPR') return E.and(args);
        if (n.boolop === 'OR_EXPR') return E.or(args);
        return E.not(args[0]!);
      }
      case 'NullTest': {
        const whole = this.wholeRowTest(n, mode);
        if (whole !== null) return whole;
        if (n.argisrow === true) throw notSupported('IS NULL on a row');
        return E.isNull(resolveUnknown(this.expr(n.arg, mode)), n.nulltesttype === 'IS_NOT_NULL');
      }
      case 'FuncCall':
        return this.funcCall(n, mode);
      case 'ParamRef':
        return paramRef(n);
      case 'SubLink':
        return this.subLink(n, mode);
      case 'CaseExpr':
        return this.caseExpr(n, mode);
      case 'CoalesceExpr': {
        const args = this.unify((n.args as AstNode[]).map((a) => this.expr(a, mode)), 'COALESCE', n.location);
        return E.coalesce(args, args[0]!.type);
      }
      case 'BooleanTest':
        throw notSupported('IS [NOT] TRUE/FALSE/UNKNOWN', n.location);
      case 'SQLValueFunction':
        return bindSqlValueFunction(n);
      case 'MinMaxExpr':
        return bindMinMax(n, (n.args as AstNode[]).map((a) => this.expr(a, mode)), this.fn);
      case 'A_Indirection':
        return this.subscript(n, mode);
      case 'RowExpr': {
        // ROW(a, b, …) as record_out's text; the engine has no record type (whole-row references).
        const args = ((n.args ?? []) as AstNode[]).map((a) => {
          const e = this.expr(a, mode);
          return unknownLiterals.has(e) ? this.cast(e, T.text) : e;
        });
        return E.func('record_out', args, T.text);
      }
      case 'A_ArrayExpr':
        return this.arrayConstructor(n, mode);
      default:
        throw notSupported(`${kind} expressions`, n.location);
    }
  }

  private boolArg(a: AstNode, mode: Mode, op: string): Expr {
    const e = this.coerce(this.expr(a, mode), BOOL, a);
    if (e.type.id !== 'bool') throw datatypeMismatch(`argument of ${op} must be type boolean, not type ${pgDisplayName(e.type)}`, locationOf(a));
    return e;
  }

  private columnRef(n: AstFields, mode: Mode): Expr {
    const parts = (n.fields as AstNode[]).map((f) => (kindOf(f) === 'A_Star' ? '*' : str(f)));
    if (parts.includes('*')) throw notSupported('* outside the select list', n.location);
    if (parts.length > 2) throw notSupported('qualified names with schema or database', n.location);
    if (parts.length === 2) {
      const leaf = this.leafNamed(parts[0]!, n.location);
      const ks = this.leaves[leaf]!.fields.flatMap((f, k) => (f.name === parts[1] ? [k] : []));
      if (ks.length === 0 && parts[1] === 'ctid' && this.leaves[leaf]!.source.kind === 'table') return this.ctidExpr(leaf, mode, n.location);
      if (ks.length === 0) throw sharedUndefinedColumn(parts[1]!, { qualifier: parts[0]!, position: positionOf(n.location) });
      if (ks.length > 1) throw ambiguousColumn(parts.join('.'), n.location);
      return this.columnExpr(leaf, ks[0]!, mode, n.location);
    }
    const name = parts[0]!;
    // Columns a USING merge hides are reached through the merge (one column, not two).
    const hits: ColumnSource[] = [];
    this.leaves.forEach((l, i) => {
      if (this.isVisible(i) && l.hidden !== true) l.fields.forEach((f, k) => f.name === name && !this.hidden.has(`f${i}.${k}`) && hits.push({ kind: 'field', leaf: i, k }));
    });
    this.merges.forEach((m, i) => m.name === name && !this.hidden.has(`m${i}`) && hits.push({ kind: 'merge', m: i }));
    if (hits.length === 0 && name === 'ctid') {
      const tables = this.leaves.flatMap((l, i) => (this.isVisible(i) && l.hidden !== true && l.source.kind === 'table' ? [i] : []));
      if (tables.length > 1) throw ambiguousColumn(name, n.location);
      if (tables.length === 1) return this.ctidExpr(tables[0]!, mode, n.location);
    }
    if (hits.length === 0) throw undefinedColumn(name, n.location);
    if (hits.length > 1) throw ambiguousColumn(name, n.location);
    return this.sourceIn(hits[0]!, name, mode, n.location);
  }

  private aExpr(n: AstFields, mode: Mode): Expr {
    const op = n.name === undefined ? '' : (n.name as AstNode[]).map(str).join('.');
    switch (n.kind as string) {
      case 'AEXPR_OP': {
        if (n.lexpr === undefined) {
          const arg = this.expr(n.rexpr, mode);
          if (op === '-') return this.negate(arg, n.location);
          if (op === '+') return arg;
          throw notSupported(`prefix operator ${op}`, n.location);
        }
        const l = this.expr(n.lexpr, mode);
        const r = this.expr(n.rexpr, mode);
        // Arrays have comparisons only; PostgreSQL's array operators (||, @>, &&, …) paxd lacks.
        if (CMP[op] === undefined && (l.type.id === 'array' || r.type.id === 'array')) throw notSupported(`operator ${op} on arrays`, n.location);
        if (ARITH[op] !== undefined) return this.arith(ARITH[op], l, r, n.location);
        if (CMP[op] !== undefined) return this.compare(CMP[op], l, r, n.location);
        if (op === '||') return this.textcat(l, r, n.location);
        if (op === '~~' || op === '!~~' || op === '~~*' || op === '!~~*') return this.like(l, n.rexpr, mode, op, n.location);
        if (op === '~' || op === '!~' || op === '~*' || op === '!~*') return this.regex(l, r, op, n.location);
        throw notSupported(`operator ${op}`, n.location);
      }
      case 'AEXPR_IN': {
        const l = this.expr(n.lexpr, mode);
        const list: AstNode[] = Array.isArray(n.rexpr) ? n.rexpr : kindOf(n.rexpr) === 'List' ? fieldsOf(n.rexpr).items : [];
        if (list.length === 0) throw notSupported('IN (subquery)', n.location);
        const items = list.map((x) => this.expr(x, mode));
        if (op === '=') return E.or(items.map((x) => this.compare('=', l, x, n.location)));
        return E.and(items.map((x) => this.compare('<>', l, x, n.location)));
      }
      case 'AEXPR_BETWEEN':
      case 'AEXPR_NOT_BETWEEN': {
        const x = this.expr(n.lexpr, mode);
        const [lo, hi] = (fieldsOf(n.rexpr).items as AstNode[]).map((b) => this.expr(b, mode)) as [Expr, Expr];
        if (n.kind === 'AEXPR_BETWEEN') return E.and([this.compare('>=', x, lo, n.location), this.compare('<=', x, hi, n.location)]);
        return E.or([this.compare('<', x, lo, n.location), this.compare('>', x, hi, n.location)]);
      }
      case 'AEXPR_LIKE':
      case 'AEXPR_ILIKE':
        return this.like(this.expr(n.lexpr, mode), n.rexpr, mode, op, n.location);
      case 'AEXPR_NULLIF': {
        // NULLIF(a, b) is CASE WHEN a = b THEN NULL ELSE a END, typed as a.
        const a = resolveUnknown(this.expr(n.lexpr, mode));
        const b = this.expr(n.rexpr, mode);
        const a0 = isUnknownText(a) ? this.cast(a, T.text) : a;
        return E.case([{ cond: this.compare('=', a0, b, n.location), result: E.const(null, a0.type) }], a0, a0.type);
      }
      case 'AEXPR_DISTINCT':
      case 'AEXPR_NOT_DISTINCT': {
        // a IS NOT DISTINCT FROM b: CASE WHEN a IS NULL THEN b IS NULL WHEN b IS NULL THEN false ELSE a = b END (never NULL).
        const l = this.expr(n.lexpr, mode);
        const r = this.expr(n.rexpr, mode);
        const eq = this.compare('=', l, r, n.location);
        const same = E.case(
          [
            { cond: E.isNull(l, false), result: E.isNull(r, false) },
            { cond: E.isNull(r, false), result: E.const(false, BOOL) },
          ],
          eq,
          BOOL,
        );
        return n.kind === 'AEXPR_NOT_DISTINCT' ? same : E.not(same);
      }
      case 'AEXPR_OP_ANY':
      case 'AEXPR_OP_ALL': {
        // x op ANY (array): the OR of the comparisons with the elements (AND for ALL): the
        // same three-valued answer as PostgreSQL's scalar-array operator; an IN list of constants
        // then goes into the scan's zone maps (./plan.ts).
        const cmpOp = CMP[op];
        if (cmpOp === undefined) throw notSupported(`operator ${op} with ANY/ALL`, n.location);
        const l = this.expr(n.lexpr, mode);
        const items = this.arrayElements(n.rexpr, mode, l);
        if (items === null) return E.const(null, BOOL);
        const any = n.kind === 'AEXPR_OP_ANY';
        if (items.length === 0) return E.const(!any, BOOL);
        const parts = items.map((x) => this.compare(cmpOp, l, x, n.location));
        return any ? E.or(parts) : E.and(parts);
      }
      case 'AEXPR_SIMILAR':
        throw notSupported('SIMILAR TO', n.location);
      default:
        throw notSupported(`${String(n.kind)} expressions`, n.location);
    }
  }

  private negate(arg: Expr, location: number): Expr {
    const a = unknownLiterals.has(arg) ? this.cast(arg, T.numeric, location) : arg;
    const iv = bindNegate(a);
    if (iv !== null) return iv;
    if (categoryOf(a.type) !== 'numeric') throw undefinedOperator(`- ${pgDisplayName(a.type)}`, location);
    if (a.kind === 'const') return E.const(a.value === null ? null : negateConst(a), a.type);
    return E.neg(a);
  }

  private arith(op: ArithOp, l0: Expr, r0: Expr, location: number): Expr {
    const temporal = bindDateTimeArith(op, l0, r0, location, this.fn);
    if (temporal !== null) return temporal;
    // An unknown literal takes the other side's type (both unknown: PostgreSQL cannot choose).
    const l = unknownLiterals.has(l0) && !unknownLiterals.has(r0) ? this.cast(l0, r0.type, location) : l0;
    const r = unknownLiterals.has(r0) && !unknownLiterals.has(l0) ? this.cast(r0, l.type, location) : r0;
    if (categoryOf(l.type) !== 'numeric' || categoryOf(r.type) !== 'numeric' || unknownLiterals.has(l))
      throw undefinedOperator(`${pgDisplayName(l.type)} ${op} ${pgDisplayName(r.type)}`, location);
    const type = numericCommon(l.type, r.type);
    if (op === '%' && isFloat(type)) throw undefinedOperator(`${pgDisplayName(type)} % ${pgDisplayName(type)}`, location);
    return E.arith(op, this.cast(l, type, location), this.cast(r, type, location), type);
  }

  private compare(op: CmpOp, l0: Expr, r0: Expr, location: number): Expr {
    if (ctidExprs.has(l0) || ctidExprs.has(r0)) return this.compareTid(op, l0, r0, location);
    const l = unknownLiterals.has(l0) && !unknownLiterals.has(r0) ? this.cast(l0, r0.type, location) : l0;
    const r = unknownLiterals.has(r0) && !unknownLiterals.has(l0) ? this.cast(r0, l.type, location) : r0;
    const type = unknownLiterals.has(l) && unknownLiterals.has(r) ? T.text : comparisonType(l.type, r.type);
    if (type === null) throw undefinedOperator(`${pgDisplayName(l.type)} ${op} ${pgDisplayName(r.type)}`, location);
    if (type.id === 'jsonb') {
      // jsonb's = and <> compare values (1.0 = 1 inside documents): text of the comparison keys.
      if (op !== '=' && op !== '<>') throw notSupported(`jsonb ${op} jsonb`, location);
      return E.cmp(op, E.func('jsonb_eqkey', [this.cast(l, type, location)], T.text), E.func('jsonb_eqkey', [this.cast(r, type, location)], T.text));
    }
    const lc = this.cast(l, type, location);
    const rc = this.cast(r, type, location);
    return dateComparison(op, lc, rc) ?? E.cmp(op, lc, rc);
  }

  /** A cast to `type`, folded when the argument is a constant (so scans can use it). */
  private cast(e: Expr, type: PgType, location?: number): Expr {
    inferParam(e, type);
    const to = engineType(type);
    // numeric(p,s): the engine computes in unconstrained numeric, then rounds and checks (apply_typmod).
    if (to !== type && type.id === 'numeric' && type.precision !== undefined) {
      const r = numericTypmod(this.cast(e, to, location), type.precision, type.scale ?? 0);
      declaredTypes.set(r, type);
      return r;
    }
    if (e.type.id === to.id && !unknownLiterals.has(e) && to.id !== 'varchar' && to.id !== 'bpchar') return e;
    if (!unknownLiterals.has(e)) checkCast(e.type, to, location);
    if (e.kind === 'const') {
      if (e.value === null) return E.const(null, to);
      if (unknownLiterals.has(e)) return E.const(fromText(type, e.value as string), engineTypeFor(type));
      return E.const(castValue(e.type, to, e.value), to);
    }
    return E.cast(e, to);
  }

  private coerce(e: Expr, type: PgType, _node: AstNode): Expr {
    return unknownLiterals.has(e) ? this.cast(e, type) : e;
  }

  private funcCall(n: AstFields, mode: Mode): Expr {
    const names = (n.funcname as AstNode[]).map(str);
    const name0 = names[names.length - 1]!.toLowerCase();
    // Built-ins live in pg_catalog (postgres_fdw qualifies some: pg_catalog.pg_relation_size).
    if (names.length > 2) throw notSupported('function names qualified with a database', n.location);
    if (names.length === 2 && names[0] !== 'pg_catalog') {
      if (names[0] === 'public') throw undefinedFunction(`${names.join('.')}(…)`, n.location);
      throw new SqlError('not_found', SQLSTATE.invalid_schema_name, `schema "${names[0]}" does not exist`, positionOf(n.location));
    }
    if (!AGGREGATES.has(name0) || n.over !== undefined) return this.scalarFunc(name0, n, mode);
    const name = AGGREGATE_ALIAS[name0] ?? (name0 as AggName);
    if (mode.kind === 'scalar') throw aggregateNotAllowed(mode.clause, n.location);
    if (n.over !== undefined) throw notSupported('window functions', n.location);
    const args = (n.args ?? []) as AstNode[];
    const ordered = name === 'percentile_cont' || name === 'percentile_disc';
    // Without WITHIN GROUP no percentile signature matches the direct arguments alone.
    if (ordered && n.agg_within_group !== true) {
      const types = args.map((a) => {
        const e = this.expr(a, { kind: 'scalar', clause: 'aggregate arguments' });
        return unknownLiterals.has(e) ? 'unknown' : pgDisplayName(e.type);
      });
      throw undefinedFunction(`${name0}(${types.join(', ')})`, n.location);
    }
    if (ordered !== (n.agg_within_group === true))
      throw new SqlError(
        'invalid_input',
        SQLSTATE.wrong_object_type,
        ordered ? `WITHIN GROUP is required for ordered-set aggregate ${name0}` : `${name0} is not an ordered-set aggregate, so it cannot have WITHIN GROUP`,
        positionOf(n.location),
      );
    const order = n.agg_order === undefined ? undefined : ((n.agg_order as AstNode[]).map((o) => this.aggOrderItem(fieldsOf(o))) as OrderItem[]);
    let call: AggCall;
    if (ordered) call = this.orderedSetAggregate(name, args, order!, n);
    else if (name === 'string_agg' || name === 'array_agg') call = this.collectingAggregate(name, args, order, n);
    else if (n.agg_star === true) {
      if (name !== 'count') throw new SqlError('invalid_input', SQLSTATE.syntax_error, `${name}(*) specified, but ${name} is not an aggregate function`, positionOf(n.location));
      call = { fn: 'count', arg: null, type: T.int8, distinct: false };
    } else {
      if (args.length !== 1) throw undefinedFunction(`${name}() with ${args.length} arguments`, n.location);
      if (hasAggregate(args[0]!)) throw new SqlError('invalid_input', SQLSTATE.grouping_error, 'aggregate function calls cannot be nested', positionOf(n.location));
      const bound = this.expr(args[0]!, { kind: 'scalar', clause: 'aggregate arguments' });
      const arg = isUnknownText(bound) ? this.cast(bound, T.text) : bound;
      call = { fn: name as AggName, arg, type: aggregateType(name as AggName, arg.type, n.location), distinct: n.agg_distinct === true };
    }
    if (n.agg_filter !== undefined) {
      // agg(x) FILTER (WHERE c) is agg(CASE WHEN c THEN x END): aggregates skip NULLs, and
      // count(*) counts the rows where c is true.
      const cond = this.condition(n.agg_filter, { kind: 'scalar', clause: 'FILTER' }, 'FILTER');
      const x = call.arg ?? E.const(1, T.int4);
      // array_agg keeps NULLs, so collecting aggregates drop the filtered rows themselves.
      call = COLLECTING_AGGREGATES.has(call.fn) ? { ...call, filter: cond } : { ...call, arg: E.case([{ cond, result: x }], E.const(null, x.type), x.type) };
    }
    const key = JSON.stringify([call.fn, call.distinct, call.arg === null ? null : exprKey(call.arg), call.order?.map((o) => [exprKey(o.expr), o.desc, o.nullsFirst]) ?? null, call.filter === undefined ? null : exprKey(call.filter), exprKey(E.const(call.param ?? null, T.text))]);
    let j = mode.aggKeys.indexOf(key);
    if (j < 0) {
      mode.aggs.push(call);
      mode.aggKeys.push(key);
      j = mode.aggs.length - 1;
    }
    return E.column(mode.keys.length + j, call.type, name0);
  }

  /** An ORDER BY item inside an aggregate call: over the scan's columns. */
  private aggOrderItem(o: AstFields): OrderItem {
    if (o.useOp !== undefined) throw notSupported('ORDER BY … USING');
    const desc = o.sortby_dir === 'SORTBY_DESC';
    const nullsFirst = o.sortby_nulls === 'SORTBY_NULLS_FIRST' ? true : o.sortby_nulls === 'SORTBY_NULLS_LAST' ? false : desc;
    const e = this.expr(o.node as AstNode, { kind: 'scalar', clause: 'aggregate arguments' });
    return { expr: unknownLiterals.has(e) ? this.cast(e, T.text) : e, desc, nullsFirst };
  }

  /** A constant aggregate argument (string_agg's delimiter, a fraction); 0A000 when it is not one. */
  private constArg(node: AstNode, type: PgType, what: string): Value {
    const e0 = this.expr(node, { kind: 'scalar', clause: 'aggregate arguments' });
    const e = unknownLiterals.has(e0) || categoryOf(e0.type) === categoryOf(type) ? this.cast(e0, type) : e0;
    if (e.type.id !== engineType(type).id) throw undefinedFunction(`${what}`, locationOf(node));
    if (e.kind !== 'const') throw notSupported(`a non-constant ${what}`, locationOf(node));
    return e.value;
  }

  /** string_agg(text, delimiter [ORDER BY …]) and array_agg(x [ORDER BY …]). */
  private collectingAggregate(name: 'string_agg' | 'array_agg', args: AstNode[], order: OrderItem[] | undefined, n: AstFields): AggCall {
    if (n.agg_star === true) throw new SqlError('invalid_input', SQLSTATE.syntax_error, `${name}(*) specified, but ${name} is not an aggregate function`, positionOf(n.location));
    if (args.length !== (name === 'string_agg' ? 2 : 1)) throw undefinedFunction(`${name} with ${args.length} arguments`, n.location);
    if (hasAggregate(args[0]!)) throw new SqlError('invalid_input', SQLSTATE.grouping_error, 'aggregate function calls cannot be nested', positionOf(n.location));
    const bound = this.expr(args[0]!, { kind: 'scalar', clause: 'aggregate arguments' });
    const distinct = n.agg_distinct === true;
    if (name === 'array_agg') {
      const arg = unknownLiterals.has(bound) ? this.cast(bound, T.text) : bound;
      if (distinct && order?.some((o) => exprKey(o.expr) !== exprKey(arg)))
        throw new SqlError('invalid_input', SQLSTATE.invalid_column_reference, 'in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list', positionOf(n.location));
      // x's type's array type (its value is array_out's text, src/types/array.ts).
      if (arg.type.id === 'array') throw notSupported('array_agg of arrays', n.location);
      return { fn: 'array_agg', arg, type: arrayOf(arg.type), distinct, ...(order === undefined ? {} : { order }) };
    }
    const sig = () => undefinedFunction(`string_agg(${unknownLiterals.has(bound) ? 'unknown' : pgDisplayName(bound.type)}, text)`, n.location);
    if (bound.type.id === 'bytea' && !unknownLiterals.has(bound)) throw notSupported('string_agg(bytea, bytea)', n.location);
    const arg = this.text(bound, sig);
    const param = this.constArg(args[1]!, T.text, 'string_agg delimiter');
    if (distinct && order?.some((o) => exprKey(o.expr) !== exprKey(arg)))
      throw new SqlError('invalid_input', SQLSTATE.invalid_column_reference, 'in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list', positionOf(n.location));
    return { fn: 'string_agg', arg, type: T.text, distinct, param, ...(order === undefined ? {} : { order }) };
  }

  /** percentile_cont / percentile_disc (fraction) WITHIN GROUP (ORDER BY x). */
  private orderedSetAggregate(name: AggName, args: AstNode[], order: OrderItem[], n: AstFields): AggCall {
    if (args.length !== 1 || order.length !== 1) throw undefinedFunction(`${name} with ${args.length} direct and ${order.length} ordered arguments`, n.location);
    if (kindOf(args[0]!) === 'A_ArrayExpr' || (kindOf(args[0]!) === 'TypeCast' && fieldsOf(args[0]!).typeName.arrayBounds !== undefined)) throw notSupported(`${name} of an array of fractions`, n.location);
    const param = this.constArg(args[0]!, T.float8, `${name} fraction`);
    const x = order[0]!;
    let arg = x.expr;
    if (name === 'percentile_cont') {
      if (arg.type.id === 'interval') throw notSupported('percentile_cont of interval', n.location);
      if (categoryOf(arg.type) !== 'numeric') throw undefinedFunction(`percentile_cont(double precision ORDER BY ${pgDisplayName(arg.type)})`, n.location);
      arg = this.cast(arg, T.float8);
    }
    return { fn: name, arg, type: name === 'percentile_cont' ? T.float8 : arg.type, distinct: false, param, order: [{ ...x, expr: arg }] };
  }

  /** A string operand: unknown literals become text, varchar and bpchar cast to text; else 42883 via `fail`. */
  private text(e: Expr, fail: () => SqlError): Expr {
    if (unknownLiterals.has(e)) return this.cast(e, T.text);
    if (categoryOf(e.type) !== 'string') throw fail();
    return e.type.id === 'text' ? e : this.cast(e, T.text);
  }

  /** An integer operand of a string function: int2/int4 (or an unknown literal) as int4. */
  private int4(e: Expr, fail: () => SqlError): Expr {
    if (unknownLiterals.has(e)) return this.cast(e, T.int4);
    if (e.type.id !== 'int2' && e.type.id !== 'int4') throw fail();
    return this.cast(e, T.int4);
  }

  /** Casts expressions to their common type (CASE branches, COALESCE arguments); 42804 when none. */
  private unify(exprs: Expr[], what: string, location?: number): Expr[] {
    const typed = exprs.filter((e) => !unknownLiterals.has(e)).map((e) => e.type);
    const type = commonType(typed);
    if (type === null) {
      const other = typed.find((t) => categoryOf(t) !== categoryOf(typed[0]!))!;
      throw datatypeMismatch(`${what} types ${pgDisplayName(typed[0]!)} and ${pgDisplayName(other)} cannot be matched`, location);
    }
    return exprs.map((e) => this.cast(e, type, location));
  }

  private caseExpr(n: AstFields, mode: Mode): Expr {
    const subject = n.arg === undefined ? null : this.expr(n.arg, mode);
    const whens = (n.args as AstNode[]).map((w) => {
      const cw = fieldsOf(w);
      let cond: Expr;
      if (subject !== null) cond = this.compare('=', subject, this.expr(cw.expr, mode), cw.location);
      else {
        cond = this.coerce(this.expr(cw.expr, mode), BOOL, cw.expr);
        if (cond.type.id !== 'bool') throw datatypeMismatch(`argument of CASE/WHEN must be type boolean, not type ${pgDisplayName(cond.type)}`, locationOf(cw.expr));
      }
      return { cond, result: this.expr(cw.result, mode) };
    });
    const otherwise = n.defresult === undefined ? null : this.expr(n.defresult, mode);
    const results = this.unify([...whens.map((w) => w.result), ...(otherwise === null ? [] : [otherwise])], 'CASE', n.location);
    const type = results[0]!.type;
    return E.case(
      whens.map((w, i) => ({ cond: w.cond, result: results[i]! })),
      otherwise === null ? E.const(null, type) : results[results.length - 1]!,
      type,
    );
  }

  /** [NOT] LIKE / ILIKE, with the escape of `… ESCAPE c` (like_escape) or the default backslash. */
  private like(l0: Expr, rnode: AstNode, mode: Mode, op: string, location: number): Expr {
    let escape = '\\';
    let pnode = rnode;
    if (kindOf(rnode) === 'FuncCall' && (fieldsOf(rnode).funcname as AstNode[]).map(str).includes('like_escape')) {
      const [p, esc] = fieldsOf(rnode).args as AstNode[];
      const e = this.expr(esc!, mode);
      if (e.kind !== 'const') throw notSupported('a non-constant ESCAPE', location);
      if (e.value === null) return E.const(null, BOOL);
      escape = String(e.value);
      checkEscape(escape);
      pnode = p!;
    }
    const p0 = this.expr(pnode, mode);
    const fail = () => undefinedOperator(`${pgDisplayName(l0.type)} ${op} ${unknownLiterals.has(p0) ? 'unknown' : pgDisplayName(p0.type)}`, location);
    const l = this.text(l0, fail);
    const p = this.text(p0, fail);
    return E.like(l, p, escape, op.startsWith('!'), op.includes('*'));
  }

  /** `a || b`: text concatenation; one side may be a non-string type, printed by its output function. */
  private textcat(l: Expr, r: Expr, location: number): Expr {
    const fail = () => undefinedOperator(`${pgDisplayName(l.type)} || ${pgDisplayName(r.type)}`, location);
    const ls = unknownLiterals.has(l) || categoryOf(l.type) === 'string';
    const rs = unknownLiterals.has(r) || categoryOf(r.type) === 'string';
    if (!ls && !rs) throw fail();
    // textanycat is `$1 || $2::text`: the other side takes its cast to text (booltext's `true`).
    const side = (e: Expr, s: boolean) => (s ? this.text(e, fail) : categoryOf(e.type) === 'other' ? e : this.cast(e, T.text, location));
    const a = side(l, ls);
    const b = side(r, rs);
    if (categoryOf(a.type) === 'other' || categoryOf(b.type) === 'other') throw notSupported(`|| with ${pgDisplayName(categoryOf(a.type) === 'other' ? a.type : b.type)}`, location);
    return E.func('textcat', [a, b], T.text);
  }

  /** Scalar functions over text (PostgreSQL 15 docs 9.4); others are 0A000. */
  private scalarFunc(name: string, n: AstFields, mode: Mode): Expr {
    if (n.over !== undefined) throw notSupported('window functions', n.location);
    const aggregateSyntax = n.agg_star === true || n.agg_distinct === true || n.agg_order !== undefined || n.agg_filter !== undefined || n.agg_within_group === true;
    if (aggregateSyntax && UNSUPPORTED_AGGREGATES.has(name)) throw notSupported(`aggregate ${name}()`, n.location);
    if (aggregateSyntax)
      throw new SqlError('invalid_input', SQLSTATE.syntax_error, `${name} is not an aggregate function`, positionOf(n.location));
    const args = ((n.args ?? []) as AstNode[]).map((a) => this.expr(a, mode));
    const sig = () => undefinedFunction(`${name}(${args.map((a) => (unknownLiterals.has(a) ? 'unknown' : pgDisplayName(a.type))).join(', ')})`, n.location);
    const arity = (lo: number, hi: number) => {
      if (args.length < lo || args.length > hi) throw sig();
    };
    switch (name) {
      case 'pg_relation_size': {
        // The bytes of the table's data files in the pinned snapshot (postgres_fdw's ANALYZE
        // divides by 8192 for relpages, docs postgres_fdw.md §i).
        arity(1, 2);
        const table = regclassExprs.get(args[0]!);
        if (table === undefined) throw notSupported('pg_relation_size of anything but a regclass literal', n.location);
        if (args.length === 2) {
          const fork = args[1]!;
          if (fork.kind !== 'const' || (fork.value !== 'main' && fork.value !== null)) return E.const(0n, T.int8);
        }
        let bytes = 0;
        for (const f of table.snapshot.files) bytes += f.size;
        return E.const(BigInt(bytes), T.int8);
      }
      case 'length':
      case 'char_length':
      case 'character_length':
        arity(1, 1);
        if (args[0]!.type.id === 'bpchar' && !unknownLiterals.has(args[0]!)) return E.func('length', [args[0]!], T.int4);
        return E.func('length', [this.text(args[0]!, sig)], T.int4);
      case 'lower':
      case 'upper':
        arity(1, 1);
        return E.func(name, [this.text(args[0]!, sig)], T.text);
      case 'substring':
      case 'substr': {
        arity(2, 3);
        if (unknownLiterals.has(args[1]!) || categoryOf(args[1]!.type) === 'string') throw notSupported('substring with a regular expression', n.location);
        return E.func('substring', [this.text(args[0]!, sig), ...args.slice(1).map((a) => this.int4(a, sig))], T.text);
      }
      case 'position':
      case 'strpos':
        arity(2, 2);
        return E.func('position', [this.text(args[0]!, sig), this.text(args[1]!, sig)], T.int4);
      case 'btrim':
      case 'ltrim':
      case 'rtrim':
        arity(1, 2);
        return E.func(name, args.map((a) => this.text(a, sig)), T.text);
      case 'repeat':
        arity(2, 2);
        return E.func('repeat', [this.text(args[0]!, sig), this.int4(args[1]!, sig)], T.text);
      case 'lpad':
      case 'rpad':
        arity(2, 3);
        return E.func(name, [this.text(args[0]!, sig), this.int4(args[1]!, sig), ...args.slice(2).map((a) => this.text(a, sig))], T.text);
      case 'concat':
        if (args.length === 0) throw sig();
        for (const a of args) if (categoryOf(a.type) === 'other' && !unknownLiterals.has(a)) throw notSupported(`concat of ${pgDisplayName(a.type)}`, n.location);
        return E.func('concat', args.map((a) => (unknownLiterals.has(a) ? this.cast(a, T.text) : a)), T.text);
      default: {
        const f = bindFunction(name, args, n.location, this.fn);
        if (f !== null) return f;
        throw unknownFunction(name, args, n.location, this.fn);
      }
    }
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
      return t;
    default:
      return unreachable(fn);
  }
}

function checkCast(from: PgType, to: PgType, location?: number): void {
  const cf = categoryOf(from);
  const ct = categoryOf(to);
  // Text converts to and from every type through the types' text I/O (PostgreSQL's I/O casts).
  if (cf === 'string' || ct === 'string') return;
  if (cf === ct && (cf !== 'other' || from.id === to.id)) return;
  // pg_cast has these, paxd does not evaluate them; every other pair has no cast (42846).
  if ((cf === 'bool' && to.id === 'int4') || (from.id === 'int4' && ct === 'bool')) return;
  const exists = from.id === 'jsonb' && (ct === 'numeric' || ct === 'bool');
  if (exists) throw notSupported(`cast from ${pgDisplayName(from)} to ${pgDisplayName(to)}`, location);
  throw new SqlError('invalid_input', SQLSTATE.cannot_coerce, `cannot cast type ${pgDisplayName(from)} to ${pgDisplayName(to)}`, positionOf(location));
}

function engineTypeFor(t: PgType): PgType {
  return engineType(t);
}

/** A string or NULL literal still of type unknown. */
function isUnknownText(e: Expr): boolean {
  return unknownLiterals.has(e);
}

/** An unknown literal left untyped at the top of an expression is text, as in PostgreSQL. */
function resolveUnknown(e: Expr): Expr {
  return e;
}

function negateConst(c: Extract<Expr, { kind: 'const' }>): Value {
  const v = c.value;
  if (typeof v === 'bigint') return -v;
  if (typeof v === 'number') return -v;
  if (typeof v === 'string') return v.startsWith('-') ? v.slice(1) : `-${v}`;
  return v;
}

function literal(n: AstFields): Expr {
  if (n.isnull === true) {
    const e = E.const(null, T.text);
    unknownLiterals.add(e);
    return e;
  }
  if (n.ival !== undefined) return E.const((n.ival.ival as number | undefined) ?? 0, T.int4);
  if (n.fval !== undefined) {
    // An integer too large for int4 is an int8 (if it fits) or a numeric, as in the scanner.
    const text = n.fval.fval as string;
    if (/^\d+$/.test(text)) {
      const b = BigInt(text);
      if (b <= 2n ** 63n - 1n) return E.const(b, T.int8);
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

/** The leaves on the nullable side of an outer join in a FROM tree. */
function nullableLeaves(raw: RawFrom, out = new Set<number>(), nullable = false): Set<number> {
  if (raw.kind === 'leaf') {
    if (nullable) out.add(raw.leaf);
    return out;
  }
  nullableLeaves(raw.left, out, nullable || raw.type === 'right' || raw.type === 'full');
  nullableLeaves(raw.right, out, nullable || raw.type === 'left' || raw.type === 'full');
  return out;
}

/** `FOR UPDATE`, `FOR NO KEY UPDATE`, `FOR SHARE` or `FOR KEY SHARE`: the first locking clause's strength. */
function lockingName(s: AstFields): string {
  const strength = fieldsOf((s.lockingClause as AstNode[])[0]!).strength as string;
  return { LCS_FORNOKEYUPDATE: 'FOR NO KEY UPDATE', LCS_FORSHARE: 'FOR SHARE', LCS_FORKEYSHARE: 'FOR KEY SHARE' }[strength] ?? 'FOR UPDATE';
}

/** PostgreSQL's checks of a locking clause (CheckSelectLocking): 0A000 with GROUP BY, DISTINCT, aggregates. */
function lockingAllowed(s: AstFields): void {
  const name = lockingName(s);
  const fail = (what: string) => new SqlError('unsupported', SQLSTATE.feature_not_supported, `${name} is not allowed with ${what}`);
  if (s.distinctClause !== undefined) throw fail('DISTINCT clause');
  if (s.groupClause !== undefined) throw fail('GROUP BY clause');
  if (s.havingClause !== undefined) throw fail('HAVING clause');
  if (((s.targetList ?? []) as AstNode[]).some((t) => hasAggregate(t))) throw fail('aggregate functions');
}

/** `FOR UPDATE OF r1, r2` (postgres_fdw's joins): each name must be a FROM item (42P01 otherwise). */
function lockedRelsExist(s: AstFields, leaves: readonly Leaf[]): void {
  for (const l of s.lockingClause as AstNode[])
    for (const r of (fieldsOf(l).lockedRels ?? []) as AstNode[]) {
      const name = fieldsOf(r).relname as string;
      if (!leaves.some((x) => x.alias === name && x.hidden !== true))
        throw new SqlError('not_found', SQLSTATE.undefined_table, `relation "${name}" in ${lockingName(s)} clause not found in FROM clause`, positionOf(fieldsOf(r).location as number));
    }
}

/** Tables named by `'name'::regclass` casts, resolved before binding (the binder has no catalog access). */
const regclassTables = new WeakMap<AstFields, Table>();

/** Expressions that stand for a regclass (the table's name, as text), by table. */
const regclassExprs = new WeakMap<Expr, Table>();

/** ctid columns (tid text), for the comparisons they allow. */
const ctidExprs = new WeakSet<Expr>();

function isRegclass(typeName: AstFields): boolean {
  const names = (typeName.names as AstNode[]).map(str);
  return names[names.length - 1] === 'regclass' && (names.length === 1 || names[0] === 'pg_catalog');
}

/** Finds `'…'::regclass` casts of string literals in a statement and opens their tables (42P01 if missing). */
async function resolveRegclasses(db: Database, s: AstFields): Promise<void> {
  const found: AstFields[] = [];
  const visit = (x: unknown): void => {
    if (x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) return x.forEach(visit);
    const o = x as Record<string, unknown>;
    const tc = o['TypeCast'] as AstFields | undefined;
    if (tc !== undefined && isRegclass(tc.typeName as AstFields)) found.push(tc);
    for (const v of Object.values(o)) visit(v);
  };
  visit(s);
  for (const tc of found) {
    const arg = tc.arg as AstNode;
    if (kindOf(arg) !== 'A_Const' || fieldsOf(arg).sval === undefined) throw notSupported('regclass casts of anything but a string literal', tc.location as number);
    const text = (fieldsOf(arg).sval.sval as string | undefined) ?? '';
    regclassTables.set(tc, await openTable(db, relationName(text, tc.location as number), tc.location as number));
  }
}

/** The table a regclass literal names: `t`, `public.t`, `"T"`; another schema is 42P01. */
function relationName(text: string, location: number): string {
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

/** PostgreSQL's name for an unnamed output column (FigureColname). */
function outputName(node: AstNode): string {
  const kind = kindOf(node);
  const n = fieldsOf(node);
  switch (kind) {
    case 'ColumnRef': {
      const last = (n.fields as AstNode[])[n.fields.length - 1]!;
      return kindOf(last) === 'A_Star' ? '?column?' : str(last);
    }
    case 'FuncCall':
      return str((n.funcname as AstNode[])[n.funcname.length - 1]!);
    case 'CaseExpr':
      return 'case';
    case 'CoalesceExpr':
      return 'coalesce';
    case 'MinMaxExpr':
      return n.op === 'IS_GREATEST' ? 'greatest' : 'least';
    case 'SQLValueFunction':
      // SVFOP_CURRENT_TIMESTAMP_N is current_timestamp, SVFOP_CURRENT_DATE current_date, …
      return String(n.op).replace(/^SVFOP_/, '').replace(/_N$/, '').toLowerCase();
    case 'A_Expr':
      return n.kind === 'AEXPR_NULLIF' ? 'nullif' : '?column?';
    case 'TypeCast': {
      const inner = outputName(n.arg);
      if (inner !== '?column?') return inner;
      const names = (n.typeName.names as AstNode[]).map(str);
      return names[names.length - 1]!;
    }
    default:
      return '?column?';
  }
}

function hasAggregate(node: AstNode): boolean {
  let found = false;
  const visit = (x: unknown): void => {
    if (found || x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) return x.forEach(visit);
    const o = x as Record<string, unknown>;
    const fc = o['FuncCall'] as AstFields | undefined;
    if (fc !== undefined) {
      const names = (fc.funcname as AstNode[]).map(str);
      if (AGGREGATES.has(names[names.length - 1]!.toLowerCase()) && fc.over === undefined) {
        found = true;
        return;
      }
    }
    if (o['SubLink'] !== undefined) return;
    for (const v of Object.values(o)) visit(v);
  };
  visit(node);
  return found;
}

function safeBind(f: () => Expr): Expr | null {
  try {
    return f();
  } catch (e) {
    if (e instanceof PaxdError) return null;
    throw e;
  }
}

/**
 * ORDER BY a jsonb value would need jsonb's own ordering (objects > arrays > booleans >
 * numbers > strings, numbers by value), not the normalized text's bytes: 0A000 rather than
 * another order than PostgreSQL's.
 */
function checkSortable(type: PgType, location: number | undefined): void {
  if (type.id === 'jsonb') throw notSupported('ORDER BY of jsonb', location);
}

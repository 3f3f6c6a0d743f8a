/**
 * Functions in FROM and LATERAL (PostgreSQL 15 docs 7.2.1.4 "Table Functions", 7.2.1.5
 * "LATERAL Subqueries"):
 *
 *   FROM generate_series(1, 3) [WITH ORDINALITY] [AS g(x [, n])]
 *   FROM ROWS FROM (generate_series(1, 2), unnest('{a,b,c}'::text[])) AS r(x, y)
 *   FROM unnest(a, b)                       (ROWS FROM (unnest(a), unnest(b)))
 *   FROM upper('a')                         (a scalar function: one row)
 *   FROM t, generate_series(1, t.n)         (a function may read earlier FROM items: LATERAL)
 *   FROM t, LATERAL (SELECT … WHERE x = t.a) s
 *
 * rawFrom binds each call once over the leaves to its left to learn the columns' types; the
 * Binder binds it again over the query's row layout when it binds the FROM tree (`leafArgs`),
 * and the expressions ride on the FROM node's leaf (../ir.ts FromNode `args`). A LATERAL
 * subquery binds with the leaves to its left as an outer scope (`lateralColumn`): each outer
 * column it names becomes a parameter numbered from LATERAL_PARAM_BASE, whose value the
 * dependent join (../exec/lateral-join.ts) puts in for each left row; the leaf's `args` are
 * those columns.
 */
import type { Database } from '../../table/index.js';
import { type Field, type PgType, SQLSTATE } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf } from '../parse.js';
import type { Expr } from '../expr.js';
import { SqlError, notSupported, positionOf } from '../errors.js';
import { type BoundQuery, type Leaf, queryFields } from '../ir.js';
import { entryOf, isLibraryFn, signaturesOf } from '../functions/registry.js';
import { recordColumnsArg } from '../functions/json-set-returning.js';
import { typeOf } from './catalog.js';
import type { RawFrom } from './scope.js';
import { Binder } from './select.js';
import { funcNameOf, isSelectSrfAlias } from './srf-placement.js';
import { bindCall, leafCalls, leafRefs, openLateralScope, outerScopes } from './lateral-scope.js';

/** ./query.ts's addLeaf: a leaf under its alias, column aliases applied. */
type AddLeaf = (leaves: Leaf[], alias: AstFields | undefined, name: string, fields: readonly Field[], source: Leaf['source'], location: number | undefined) => RawFrom;

/** Whether a bound call is a set-returning function's (else it is a scalar expression: one row). */
export function isSrfCall(e: Expr): e is Extract<Expr, { kind: 'func' }> {
  return e.kind === 'func' && isLibraryFn(e.fn) && entryOf(e.fn).sig.setReturning !== undefined;
}

/**
 * A RangeFunction: the leaf of its calls (several for ROWS FROM and multi-argument unnest).
 * `subQueries`: the subqueries of its arguments, bound (../bind/query.ts bindSubLinks).
 */
export function bindFunctionFrom(n: AstFields, leaves: Leaf[], addLeaf: AddLeaf, subQueries: ReadonlyMap<AstFields, BoundQuery> | null): RawFrom {
  const items = (n.functions as AstNode[]).map((f) => fieldsOf(f).items as AstNode[]);
  const hidden = isSelectSrfAlias((n.alias as AstFields | undefined)?.aliasname);
  // A column definition list: ROWS FROM's per call, else the FROM item's.
  const coldefs = items.map((it, i) => {
    const own = it[1] !== undefined && it[1] !== null && Object.keys(it[1]).length > 0 ? (fieldsOf(it[1]).items as AstNode[]) : undefined;
    return own ?? (i === 0 && n.is_rowsfrom !== true ? (n.coldeflist as AstNode[] | undefined) : undefined);
  });
  if (n.ordinality === true && coldefs.some((d) => d !== undefined))
    throw new SqlError('invalid_input', SQLSTATE.syntax_error, 'WITH ORDINALITY cannot be used with a column definition list', positionOf(n.location as number | undefined));
  let calls = items.map((it, i) => recordCall(it[0]!, coldefs[i], hidden, n.location as number | undefined));
  // unnest(a, b, …) outside ROWS FROM is ROWS FROM (unnest(a), unnest(b), …) (docs 9.19).
  if (n.is_rowsfrom !== true && calls.length === 1 && kindOf(calls[0]!) === 'FuncCall' && funcNameOf(calls[0]!) === 'unnest' && (fieldsOf(calls[0]!).args ?? []).length > 1) {
    const c = fieldsOf(calls[0]!);
    calls = (c.args as AstNode[]).map((a) => ({ FuncCall: { ...c, args: [a] } }));
  }
  const probe = new Binder(leaves, subQueries);
  const bound = calls.map((c) => bindCall((node) => probe.scalar(node, 'FROM'), c));
  const alias = n.alias as AstFields | undefined;
  const names = calls.map((c) => (kindOf(c) === 'FuncCall' ? funcNameOf(c) : '?column?'));
  // Each call's columns: its OUT columns, its column definition list, or one named by the alias or the function.
  const columns = bound.map((e, i) => {
    const out = callColumns(e, coldefs[i]);
    if (out !== null && out.length > 1 && hidden) throw notSupported(`${names[i]}() in the select list (it returns record)`, fieldsOf(calls[i]!).location as number);
    return out ?? [{ name: calls.length === 1 && alias !== undefined ? (alias.aliasname as string) : names[i]!, type: e.type }];
  });
  const fields: Field[] = columns.flat().map((c, i) => ({ name: c.name, type: c.type, notNull: false, fieldId: i }));
  if (n.ordinality === true) fields.push({ name: 'ordinality', type: { id: 'int8' }, notNull: false, fieldId: fields.length });
  const source: Leaf['source'] = Object.freeze({ kind: 'function', calls: Object.freeze(bound.map((e, i) => Object.freeze({ name: names[i]!, type: e.type }))), ordinality: n.ordinality === true });
  const raw = addLeaf(leaves, alias, names[0]!, fields, source, n.location);
  const at = (raw as { leaf: number }).leaf;
  if (hidden) leaves[at] = Object.freeze({ ...leaves[at]!, hidden: true });
  leafCalls.set(leaves[at]!, Object.freeze(calls));
  return raw;
}

/** The OUT columns of a call (jsonb_each: key, value) or its column definition list's; null for a one-column call. */
function callColumns(e: Expr, coldef: readonly AstNode[] | undefined): readonly { name: string; type: PgType }[] | null {
  if (coldef !== undefined) return coldef.map((d) => ({ name: fieldsOf(d).colname as string, type: typeOf(fieldsOf(d).typeName as AstFields) }));
  if (e.kind !== 'func' || !isLibraryFn(e.fn)) return null;
  return entryOf(e.fn).sig.columns ?? null;
}

/**
 * A call with its column definition list checked (PostgreSQL 15 parse_relation.c
 * addRangeTableEntryForFunction): a record function (jsonb_to_record) must have one, and gets it
 * as its trailing argument (../functions/json-set-returning.ts); any other function must not.
 */
function recordCall(call: AstNode, coldef: readonly AstNode[] | undefined, hidden: boolean, location: number | undefined): AstNode {
  const record = kindOf(call) === 'FuncCall' && (signaturesOf(funcNameOf(call))?.some((e) => e.sig.record === true) ?? false);
  // Another number of arguments: no such function (42883, as binding it says).
  if (record && (fieldsOf(call).args ?? []).length !== 1) return call;
  if (!record) {
    if (coldef !== undefined) throw new SqlError('invalid_input', SQLSTATE.syntax_error, 'a column definition list is only allowed for functions returning "record"', positionOf(location));
    return call;
  }
  if (hidden) throw new SqlError('unsupported', SQLSTATE.feature_not_supported, `could not determine row type for result of ${funcNameOf(call)}`, positionOf(fieldsOf(call).location as number));
  if (coldef === undefined) throw new SqlError('invalid_input', SQLSTATE.syntax_error, 'a column definition list is required for functions returning "record"', positionOf(location));
  const names = coldef.map((d) => fieldsOf(d).colname as string);
  const types = coldef.map((d) => typeOf(fieldsOf(d).typeName as AstFields));
  const f = fieldsOf(call);
  return { FuncCall: { ...f, args: [...((f.args ?? []) as AstNode[]), { A_Const: { sval: { sval: recordColumnsArg(names, types) }, location: -1 } }] } };
}

/** A LATERAL subquery in FROM: bound with the leaves to its left as its outer scope. */
export async function bindLateralSubquery(db: Database, n: AstFields, leaves: Leaf[], bindQuery: (db: Database, n: AstNode) => Promise<BoundQuery>, addLeaf: AddLeaf): Promise<RawFrom> {
  if (n.alias === undefined) throw new SqlError('invalid_input', SQLSTATE.syntax_error, 'subquery in FROM must have an alias', positionOf(fieldsOf(n.subquery).location as number | undefined));
  const scope = openLateralScope(leaves);
  let query: BoundQuery;
  try {
    query = await bindQuery(db, n.subquery as AstNode);
  } finally {
    outerScopes.pop();
  }
  const fields: Field[] = queryFields(query).map((f, i) => ({ name: f.name, type: f.type, notNull: false, fieldId: i }));
  const raw = addLeaf(leaves, n.alias as AstFields, '', fields, { kind: 'subquery', query }, undefined);
  if (scope.refs.length > 0) leafRefs.set(leaves[(raw as { leaf: number }).leaf]!, Object.freeze(scope.refs));
  return raw;
}


/**
 * Set-returning functions in an aggregating or windowed query (PostgreSQL 10+ evaluates the
 * ProjectSet above the Agg and the WindowAgg, below DISTINCT, ORDER BY and LIMIT; planner.c
 * grouping_planner). The query is split in two before it binds: the inner query is the
 * original one (FROM, WHERE, GROUP BY, HAVING, WINDOW) computing every piece the set-returning
 * calls need; the outer one runs the calls over its rows, then DISTINCT, ORDER BY and LIMIT:
 *
 *   SELECT g, generate_series(1, count(*)) FROM t GROUP BY g ORDER BY g
 *   → SELECT "?agg?".c1 AS g, generate_series(1, "?agg?".e1)
 *     FROM (SELECT g, NULL, count(*) FROM t GROUP BY g) "?agg?"(c1, c2, e1) ORDER BY g
 *
 * The outer query's calls are then ./select-srf.ts's to run. The inner query keeps the
 * original select list's positions and names (a NULL where a target holds a set-returning
 * call), so GROUP BY 1 and GROUP BY alias mean what they meant; its column alias list gives the
 * outer query names of its own. A piece is a maximal subexpression without set-returning calls
 * that reads the rows (a column, an aggregate, a window function, a subquery); constants stay in
 * the outer query, where an unknown literal keeps its type resolution by the call. GROUP BY's
 * own calls run below the aggregate first (srfBelowAggregate).
 */
import { SQLSTATE } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, str } from '../parse.js';
import { SqlError, notSupported, positionOf } from '../errors.js';
import { hasAggregate, outputName } from './ast.js';
import { AGGREGATES } from './catalog.js';
import { isJsonAggregate } from './json-aggregates.js';

/** The alias of the inner query. */
export const SRF_AGG_ALIAS = '?agg?';

const fnName = (fc: AstFields): string => {
  const names = fc.funcname as AstNode[];
  return str(names[names.length - 1]!).toLowerCase();
};

const isAggregateCall = (fc: AstFields): boolean => fc.over === undefined && (AGGREGATES.has(fnName(fc)) || isJsonAggregate(fnName(fc)));

/** Whether `node` calls a window function outside its subqueries. */
function hasWindow(node: unknown): boolean {
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some(hasWindow);
  const o = node as Record<string, unknown>;
  if (o['SubLink'] !== undefined) return false;
  const fc = o['FuncCall'] as AstFields | undefined;
  if (fc !== undefined && fc.over !== undefined) return true;
  return Object.values(o).some(hasWindow);
}

/** Whether `node` reads the rows: a column, an aggregate or window call, a subquery, GROUPING(). */
function readsRows(node: unknown): boolean {
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some(readsRows);
  const o = node as Record<string, unknown>;
  if (o['ColumnRef'] !== undefined || o['SubLink'] !== undefined || o['GroupingFunc'] !== undefined) return true;
  const fc = o['FuncCall'] as AstFields | undefined;
  if (fc !== undefined && (fc.over !== undefined || isAggregateCall(fc))) return true;
  return Object.values(o).some(readsRows);
}

/** Whether the query aggregates or calls window functions, so that its ProjectSet runs above them. */
export function aggregatesOrWindows(s: AstFields, clauses: readonly unknown[]): boolean {
  if (s.groupClause !== undefined || s.havingClause !== undefined || s.windowClause !== undefined) return true;
  return clauses.some((c) => hasAggregate(c as AstNode) || hasWindow(c));
}

const ref = (alias: string, col: string, location: unknown): AstNode => ({ ColumnRef: { fields: [{ String: { sval: alias } }, { String: { sval: col } }], location } });

const srfIn = (what: string, location: unknown): SqlError => {
  const e = new SqlError('unsupported', SQLSTATE.feature_not_supported, `${what} function calls cannot contain set-returning function calls`, positionOf(location as number | undefined));
  return e;
};

/** The alias of the ROWS FROM of GROUP BY's set-returning calls (hidden, as ./select-srf.ts's are). */
const SRF_BELOW_ALIAS = '?srf0?';

/** A node's text without its locations: two calls written alike are one grouping expression. */
const shapeOf = (x: unknown): string => JSON.stringify(x, (k, v) => (k === 'location' ? undefined : v));

/**
 * GROUP BY over set-returning calls (`SELECT generate_series(1, 3) AS g, count(*) FROM t GROUP
 * BY 1`): PostgreSQL runs that ProjectSet below the Agg, over the FROM rows. The calls of the
 * grouping expressions (written there, or in the target GROUP BY names by position or alias)
 * move into a LATERAL ROWS FROM of the query's FROM, and every call written alike in the select
 * list, ORDER BY and DISTINCT ON reads its column. Nested calls there, and a GROUP BY name that is
 * the alias of a target holding a call (it may be an input column instead), are 0A000.
 */
function srfBelowAggregate(s: AstFields, hasSrf: (x: unknown) => boolean, isSrfCall: (x: AstNode) => boolean): AstFields {
  const targets = (s.targetList ?? []) as AstNode[];
  const calls: AstNode[] = [];
  const shapes: string[] = [];
  const collect = (x: unknown): void => {
    if (!hasSrf(x)) return;
    if (Array.isArray(x)) return x.forEach(collect);
    const node = x as AstNode;
    if (Object.keys(node).length === 1 && kindOf(node) === 'FuncCall' && isSrfCall(node)) {
      if (hasSrf(fieldsOf(node).args)) throw notSupported('nested set-returning functions in GROUP BY', fieldsOf(node).location as number);
      const shape = shapeOf(node);
      if (!shapes.includes(shape)) {
        shapes.push(shape);
        calls.push(node);
      }
      return;
    }
    Object.values(Object.keys(node).length === 1 ? fieldsOf(node) : node).forEach(collect);
  };
  for (const g of (s.groupClause ?? []) as AstNode[]) {
    const f = fieldsOf(g);
    const byPosition = kindOf(g) === 'A_Const' && f.ival !== undefined ? targets[((f.ival as AstFields).ival as number) - 1] : undefined;
    const byName = kindOf(g) === 'ColumnRef' && (f.fields as AstNode[]).length === 1 ? targets.find((t) => fieldsOf(t).name === str((f.fields as AstNode[])[0]!)) : undefined;
    collect(g);
    if (byPosition !== undefined) collect(fieldsOf(byPosition).val);
    // A bare name is an input column first (PostgreSQL's findTargetlistEntrySQL92), which only binding knows.
    if (byName !== undefined && hasSrf(fieldsOf(byName).val)) throw notSupported('GROUP BY naming a set-returning target by its alias', f.location as number);
  }
  if (calls.length === 0) return s;
  const replace = (x: unknown): unknown => {
    if (x === null || typeof x !== 'object') return x;
    if (Array.isArray(x)) return x.map(replace);
    const k = shapes.indexOf(shapeOf(x));
    if (k >= 0) return ref(SRF_BELOW_ALIAS, `c${k + 1}`, fieldsOf(x as AstNode).location);
    return Object.fromEntries(Object.entries(x).map(([key, v]) => [key, replace(v)]));
  };
  const targetList = targets.map((t) => {
    const rt = fieldsOf(t);
    return { ResTarget: { ...rt, name: (rt.name as string | undefined) ?? outputName(rt.val as AstNode), val: replace(rt.val) } };
  });
  const rowsFrom: AstNode = {
    RangeFunction: {
      lateral: true,
      is_rowsfrom: true,
      functions: calls.map((c) => ({ List: { items: [c, {}] } })),
      alias: { aliasname: SRF_BELOW_ALIAS, colnames: calls.map((_c, i) => ({ String: { sval: `c${i + 1}` } })) },
    },
  };
  const out: Record<string, unknown> = { ...s, targetList, groupClause: replace(s.groupClause), fromClause: [...((s.fromClause ?? []) as AstNode[]), rowsFrom] };
  // HAVING keeps its calls, which fail there as in PostgreSQL.
  for (const key of ['sortClause', 'distinctClause']) if (s[key] !== undefined) out[key] = replace(s[key]);
  return out;
}

/**
 * `s` split into an inner aggregating query and an outer one that runs the set-returning calls
 * (`hasSrf` tells which nodes hold calls the ProjectSet runs; `location` is the first call's).
 */
export function srfAboveAggregate(s0: AstFields, hasSrf: (x: unknown) => boolean, firstSrfLocation: (x: unknown) => number | undefined, isSrfCall: (x: AstNode) => boolean): AstFields {
  const s = srfBelowAggregate(s0, hasSrf, isSrfCall);
  if (![s.targetList, s.sortClause, s.distinctClause].some(hasSrf)) return s;
  const targets = (s.targetList ?? []) as AstNode[];
  for (const t of targets) {
    const v = fieldsOf(t).val as AstNode;
    if (kindOf(v) === 'ColumnRef' && (fieldsOf(v).fields as AstNode[]).some((f) => kindOf(f) === 'A_Star'))
      throw notSupported('* beside set-returning functions in the select list of an aggregating query', fieldsOf(v).location as number);
  }
  const names = targets.map((t) => (fieldsOf(t).name as string | undefined) ?? outputName(fieldsOf(t).val as AstNode));
  const extras: AstNode[] = [];
  const push = (x: AstNode): AstNode => {
    extras.push({ ResTarget: { val: x, location: -1 } });
    return ref(SRF_AGG_ALIAS, `e${extras.length}`, fieldsOf(x).location ?? -1);
  };
  const lift = (x: unknown): unknown => {
    if (x === null || typeof x !== 'object') return x;
    if (Array.isArray(x)) return x.map(lift);
    if (!hasSrf(x)) return Object.keys(x).length === 1 && readsRows(x) ? push(x as AstNode) : x;
    const fc = (x as Record<string, unknown>)['FuncCall'] as AstFields | undefined;
    if (fc !== undefined && fc.over !== undefined) {
      if (hasSrf(fc.args) || hasSrf(fc.agg_filter)) throw srfIn('window', firstSrfLocation([fc.args, fc.agg_filter]));
      // PARTITION BY / ORDER BY over a call: PostgreSQL runs that ProjectSet below the WindowAgg; not built.
      throw notSupported('set-returning functions in a window definition', firstSrfLocation(fc.over));
    }
    if (fc !== undefined && isAggregateCall(fc)) throw srfIn('aggregate', firstSrfLocation(fc.args));
    // A node holding calls: its fields, lifted one by one.
    const [kind, fields] = Object.entries(x)[0]!;
    return { [kind]: Object.fromEntries(Object.entries(fields as AstFields).map(([k, v]) => [k, lift(v)])) };
  };
  // An ORDER BY / DISTINCT ON item naming an output column (by position or name) stays as it is.
  const keepsOutput = (n: AstNode): boolean => {
    const f = fieldsOf(n);
    if (kindOf(n) === 'A_Const' && f.ival !== undefined) return true;
    return kindOf(n) === 'ColumnRef' && (f.fields as AstNode[]).length === 1 && kindOf((f.fields as AstNode[])[0]!) === 'String' && names.includes(str((f.fields as AstNode[])[0]!));
  };
  const innerTargets: AstNode[] = targets.map((t) => {
    const rt = fieldsOf(t);
    return hasSrf(rt.val) ? { ResTarget: { ...rt, val: { A_Const: { isnull: true, location: rt.location } } } } : t;
  });
  const outerTargets: AstNode[] = targets.map((t, i) => {
    const rt = fieldsOf(t);
    const val = hasSrf(rt.val) ? lift(rt.val) : ref(SRF_AGG_ALIAS, `c${i + 1}`, rt.location);
    return { ResTarget: { name: names[i], val, location: rt.location } };
  });
  const sortClause = (s.sortClause as AstNode[] | undefined)?.map((sb) => {
    const f = fieldsOf(sb);
    return keepsOutput(f.node as AstNode) ? sb : { SortBy: { ...f, node: lift(f.node) } };
  });
  const distinctClause = (s.distinctClause as AstNode[] | undefined)?.map((d) => (Object.keys(d).length === 0 || keepsOutput(d) ? d : lift(d)));
  const inner: Record<string, unknown> = { ...s, targetList: [...innerTargets, ...extras] };
  for (const k of ['sortClause', 'distinctClause', 'limitCount', 'limitOffset', 'limitOption']) delete inner[k];
  const colnames = [...targets.map((_t, i) => `c${i + 1}`), ...extras.map((_e, i) => `e${i + 1}`)].map((sval) => ({ String: { sval } }));
  const outer: Record<string, unknown> = {
    targetList: outerTargets,
    fromClause: [{ RangeSubselect: { subquery: { SelectStmt: inner }, alias: { aliasname: SRF_AGG_ALIAS, colnames } } }],
    op: 'SETOP_NONE',
  };
  if (sortClause !== undefined) outer.sortClause = sortClause;
  if (distinctClause !== undefined) outer.distinctClause = distinctClause;
  for (const k of ['limitCount', 'limitOffset', 'limitOption']) if (s[k] !== undefined) outer[k] = s[k];
  return outer;
}

/**
 * Correlated subqueries that ./unnest.ts does not rewrite into joins, bound as dependent joins
 * (DuckDB's name; PostgreSQL runs them as a SubPlan with parameters): each such SubLink of a
 * SELECT's select list, WHERE, ORDER BY or HAVING moves into a LATERAL item of its own,
 *
 *   SELECT a.x, (SELECT b.y FROM b WHERE b.k = a.k) FROM a
 *     → SELECT a.x, c.v AS y FROM a, LATERAL (SELECT (SELECT b.y FROM b WHERE b.k = a.k) AS v) c
 *
 * where the SubLink is uncorrelated (its outer columns are the LATERAL item's parameters,
 * ./lateral-scope.ts), so it binds as an InitPlan with PostgreSQL's semantics for every shape
 * (scalar: NULL over no row, 21000 over two; EXISTS; IN / op ANY / op ALL with NULLs), and the
 * LATERAL item always has exactly one row. The dependent join (../exec/dependent-join.ts) runs
 * it once per distinct tuple of outer values. A SubLink nested in another binds the same way one
 * level down, and one naming a query two levels out reads that level's parameter.
 *
 * In a grouped query, the SubLinks of the select list, HAVING and ORDER BY see the groups, so
 * the query splits in two: the grouping below (its keys, aggregates and the grouped columns the
 * expressions read, as columns g0, g1, …) and, over it, the dependent joins, the HAVING
 * conjuncts that hold them, the select list, ORDER BY, DISTINCT and LIMIT:
 *
 *   SELECT g, count(*) FROM t a GROUP BY g HAVING count(*) > (SELECT … WHERE b.g = a.g)
 *     → SELECT q.g0 AS g, q.g1 AS count FROM (SELECT g AS g0, count(*) AS g1 FROM t a GROUP BY g) q,
 *         LATERAL (SELECT (SELECT … WHERE b.g = q.g0) AS v) c WHERE q.g1 > c.v
 *
 * `ARRAY(SELECT x …)`, correlated or not, is the scalar `(SELECT coalesce(array_agg(x), '{}')
 * FROM (SELECT x …) s)`: the rows in the subquery's order, an empty array over no row.
 * This works on the parse tree, before names are bound: nothing runs here.
 */
import type { Database } from '../../table/index.js';
import { SQLSTATE, isPaxdError } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, str } from '../parse.js';
import type { BoundQuery, Leaf } from '../ir.js';
import { positionOf, SqlError } from '../errors.js';
import { AGGREGATES } from './catalog.js';
import { andOf, astConjuncts, hasAggregate, outputName, subLinksIn } from './ast.js';
import type { RawFrom } from './scope.js';
import { bindLateralLeaf } from './lateral-scope.js';

/** ./query.ts's binders, passed in (this module sits below it). */
export interface CorrelatedBinders {
  rawFrom(db: Database, node: AstNode, leaves: Leaf[]): Promise<RawFrom>;
  bindQuery(db: Database, stmt: AstNode): Promise<BoundQuery>;
  isOuterReference(e: unknown, leaves: readonly Leaf[]): boolean;
}

const col = (alias: string, name: string): AstNode => ({ ColumnRef: { fields: [{ String: { sval: alias } }, { String: { sval: name } }], location: -1 } });
const target = (val: AstNode, name: string): AstNode => ({ ResTarget: { name, val, location: -1 } });
const bool = (v: boolean): AstNode => ({ A_Const: { boolval: { boolval: v }, location: -1 } });
const withoutLocations = (x: unknown): string => JSON.stringify(x, (k, v: unknown) => (k === 'location' ? undefined : v));

/**
 * `s` with every ARRAY(SELECT …) of its clauses as a scalar subquery over array_agg, and every
 * `x op ANY|ALL (array)` over an array that is no constructor or constant (a column of a
 * catalog relation: `oid = ANY (polroles)`) as a subquery over unnest (`anyOverArray`).
 */
export function arraySubLinks(s: AstFields): AstFields {
  let changed = false;
  const go = (x: unknown, key: string): unknown => {
    if (x === null || typeof x !== 'object' || key === 'fromClause' || key === 'withClause') return x;
    if (Array.isArray(x)) {
      const next = x.map((v) => go(v, ''));
      return next.some((v, i) => v !== x[i]) ? next : x;
    }
    const o = x as Record<string, unknown>;
    if (o['A_Const'] !== undefined) return x;
    const sl = o['SubLink'] as AstFields | undefined;
    if (sl !== undefined && sl.subLinkType === 'ARRAY_SUBLINK') {
      changed = true;
      return { SubLink: { subLinkType: 'EXPR_SUBLINK', subselect: arrayOf(sl), location: sl.location } };
    }
    const ax = o['A_Expr'] as AstFields | undefined;
    if (ax !== undefined && (ax.kind === 'AEXPR_OP_ANY' || ax.kind === 'AEXPR_OP_ALL') && !constantArray(ax.rexpr as AstNode)) {
      changed = true;
      return anyOverArray(ax, go(ax.lexpr, '') as AstNode, go(ax.rexpr, '') as AstNode);
    }
    if (o['ResTarget'] !== undefined) {
      const t = o['ResTarget'] as AstFields;
      const val = t.val as AstNode | undefined;
      if (val === undefined) return x;
      const next = go(val, '');
      return next === val ? x : { ResTarget: { ...t, name: t.name ?? outputName(val), val: next } };
    }
    if (sl !== undefined) return x;
    const out: Record<string, unknown> = {};
    let moved = false;
    for (const [k, v] of Object.entries(o)) {
      out[k] = go(v, k);
      if (out[k] !== v) moved = true;
    }
    return moved ? out : x;
  };
  const out = go(s, '') as AstFields;
  return changed ? out : s;
}

/** The arrays the binder takes element by element (./expressions.ts `arrayElements`). */
function constantArray(n: AstNode): boolean {
  const k = kindOf(n);
  if (k === 'A_ArrayExpr' || k === 'A_Const' || k === 'ParamRef') return true;
  return k === 'TypeCast' && fieldsOf(n).typeName.arrayBounds !== undefined && constantArray(fieldsOf(n).arg as AstNode);
}

/**
 * `x op ANY (arr)` (PostgreSQL 15 docs 9.24.3) as a subquery over the array's elements, three-
 * valued as PostgreSQL's: NULL for a NULL array; else true when a comparison is true, NULL when
 * none is but one is NULL, false otherwise (false over an empty array). ALL likewise with false
 * deciding. A correlated one runs as a dependent join, once per distinct (x, arr).
 */
function anyOverArray(ax: AstFields, x: AstNode, arr: AstNode): AstNode {
  const all = ax.kind === 'AEXPR_OP_ALL';
  const c = col('any', 'c');
  const cmp: AstNode = { A_Expr: { kind: 'AEXPR_OP', name: ax.name, lexpr: x, rexpr: col('elements', 'e'), location: ax.location } };
  const boolOr = (arg: AstNode): AstNode => ({ FuncCall: { funcname: [{ String: { sval: 'bool_or' } }], args: [arg], funcformat: 'COERCE_EXPLICIT_CALL', location: -1 } });
  const isNull: AstNode = { NullTest: { arg: c, nulltesttype: 'IS_NULL', location: -1 } };
  const decide: AstNode = all ? { BoolExpr: { boolop: 'NOT_EXPR', args: [c], location: -1 } } : c;
  const verdict: AstNode = {
    CaseExpr: {
      args: [
        { CaseWhen: { expr: boolOr(decide), result: bool(!all), location: -1 } },
        { CaseWhen: { expr: boolOr(isNull), result: { A_Const: { isnull: true, location: -1 } }, location: -1 } },
      ],
      defresult: bool(all),
      location: -1,
    },
  };
  const unnest: AstNode = { RangeFunction: { functions: [{ List: { items: [{ FuncCall: { funcname: [{ String: { sval: 'unnest' } }], args: [arr], funcformat: 'COERCE_EXPLICIT_CALL', location: -1 } }, {}] } }], alias: { aliasname: 'elements', colnames: [{ String: { sval: 'e' } }] } } };
  const inner: AstNode = { SelectStmt: { targetList: [target(cmp, 'c')], fromClause: [unnest], limitOption: 'LIMIT_OPTION_DEFAULT', op: 'SETOP_NONE' } };
  const sub: AstNode = { SelectStmt: { targetList: [target(verdict, 'v')], fromClause: [{ RangeSubselect: { subquery: inner, alias: { aliasname: 'any' } } }], limitOption: 'LIMIT_OPTION_DEFAULT', op: 'SETOP_NONE' } };
  const value: AstNode = { SubLink: { subLinkType: 'EXPR_SUBLINK', subselect: sub, location: ax.location } };
  return { CaseExpr: { args: [{ CaseWhen: { expr: { NullTest: { arg: arr, nulltesttype: 'IS_NULL', location: -1 } }, result: { A_Const: { isnull: true, location: -1 } }, location: -1 } }], defresult: value, location: -1 } };
}

/** ARRAY(SELECT x …) as SELECT coalesce(array_agg(x), '{}') FROM (SELECT x …) s; 42601 for a subquery of other than one column. */
function arrayOf(sl: AstFields): AstNode {
  const sub = fieldsOf(sl.subselect as AstNode);
  const first = sub.op === undefined || sub.op === 'SETOP_NONE' ? sub : fieldsOf({ SelectStmt: leftmost(sub) });
  const list = (first.targetList ?? []) as AstNode[];
  const star = list.some((t) => kindOf(fieldsOf(t).val as AstNode) === 'ColumnRef' && ((fieldsOf(fieldsOf(t).val as AstNode).fields as AstNode[]).some((f) => kindOf(f) === 'A_Star')));
  if (list.length !== 1 && !star) throw new SqlError('invalid_input', SQLSTATE.syntax_error, 'subquery must return only one column', positionOf(sl.location as number));
  const agg: AstNode = { FuncCall: { funcname: [{ String: { sval: 'array_agg' } }], args: [col('array', 'v')], funcformat: 'COERCE_EXPLICIT_CALL', location: -1 } };
  const empty: AstNode = { A_Const: { sval: { sval: '{}' }, location: -1 } };
  const from: AstNode = { RangeSubselect: { subquery: sl.subselect, alias: { aliasname: 'array', colnames: [{ String: { sval: 'v' } }] } } };
  return { SelectStmt: { targetList: [target({ CoalesceExpr: { args: [agg, empty], location: -1 } }, 'array')], fromClause: [from], limitOption: 'LIMIT_OPTION_DEFAULT', op: 'SETOP_NONE' } };
}

function leftmost(s: AstFields): AstFields {
  return s.op === undefined || s.op === 'SETOP_NONE' ? s : leftmost(fieldsOf({ SelectStmt: s.larg as AstFields }));
}


/** `x` with each node for which `f` gives a replacement replaced (copies along changed paths). */
function replaceIn<T>(x: T, f: (o: Record<string, unknown>) => AstNode | undefined): T {
  if (x === null || typeof x !== 'object') return x;
  if (Array.isArray(x)) {
    const next = x.map((v) => replaceIn(v, f));
    return (next.some((v, i) => v !== x[i]) ? next : x) as T;
  }
  const o = x as Record<string, unknown>;
  const r = f(o);
  if (r !== undefined) return r as T;
  if (o['A_Const'] !== undefined) return x;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    out[k] = replaceIn(v, f);
    if (out[k] !== v) changed = true;
  }
  return (changed ? out : x) as T;
}

export class Decorrelator {
  private n = 0;
  constructor(
    private readonly db: Database,
    private readonly leaves: Leaf[],
    private readonly b: CorrelatedBinders,
  ) {}

  /** Whether a SubLink's subquery names a column of this query (binding it alone fails on one). */
  private async correlated(sl: AstFields): Promise<boolean> {
    try {
      await this.b.bindQuery(this.db, sl.subselect as AstNode);
      return false;
    } catch (e) {
      if (isPaxdError(e) && this.b.isOuterReference(e, this.leaves)) return true;
      // Its own error is raised where it binds as an InitPlan, in PostgreSQL's order.
      return false;
    }
  }

  private async correlatedIn(x: unknown): Promise<AstFields[]> {
    const out: AstFields[] = [];
    for (const sl of subLinksIn(x)) if (await this.correlated(sl)) out.push(sl);
    return out;
  }

  /** `tree` cross-joined with a dependent join computing `sl`; the column that holds its value. */
  private async dependentJoin(sl: AstFields, tree: RawFrom): Promise<{ tree: RawFrom; value: AstNode }> {
    this.n++;
    const alias = `dependent ${this.n}`;
    const stmt: AstNode = { SelectStmt: { targetList: [target({ SubLink: sl }, 'v')], limitOption: 'LIMIT_OPTION_DEFAULT', op: 'SETOP_NONE' } };
    const leaf = await bindLateralLeaf(this.leaves, alias, stmt, (q) => this.b.bindQuery(this.db, q));
    return { tree: { kind: 'join', type: 'cross', left: tree, right: { kind: 'leaf', leaf }, on: null, using: null, natural: false }, value: col(alias, 'v') };
  }

  /** Every correlated SubLink of `x` replaced by its dependent join's column. */
  private async lift<T>(x: T, tree: { t: RawFrom }): Promise<T> {
    const links = await this.correlatedIn(x);
    if (links.length === 0) return x;
    const values = new Map<AstFields, AstNode>();
    for (const sl of links) {
      const d = await this.dependentJoin(sl, tree.t);
      tree.t = d.tree;
      values.set(sl, d.value);
    }
    return replaceIn(x, (o) => {
      const sl = o['SubLink'] as AstFields | undefined;
      return sl === undefined ? undefined : values.get(sl);
    });
  }

  /**
   * The SELECT `s` over `raw` with its remaining correlated SubLinks as dependent joins; for a
   * grouped query with such SubLinks above its grouping, the statement to bind instead (`restart`);
   * null when it has none.
   */
  async run(s: AstFields, raw: RawFrom): Promise<{ s: AstFields; raw: RawFrom } | { restart: AstNode } | null> {
    const grouped = s.groupClause !== undefined || s.havingClause !== undefined || ((s.targetList ?? []) as AstNode[]).some(hasAggregate);
    if (grouped && (await this.correlatedIn([s.targetList, s.havingClause, s.sortClause])).length > 0) {
      const restart = await this.split(s);
      return restart === null ? null : { restart };
    }
    // A correlated condition of an inner join's ON is one of WHERE (the same rows either way).
    const moved: AstNode[] = [];
    const quals = new Map<AstNode, AstNode | undefined>();
    raw = await this.innerOn(raw, moved, quals);
    const whereClause = moved.length === 0 ? s.whereClause : andOf([...(s.whereClause === undefined ? [] : [s.whereClause as AstNode]), ...moved], -1);
    const whereLinks = await this.correlatedIn(whereClause);
    const listLinks = grouped ? [] : await this.correlatedIn([s.targetList, s.sortClause]);
    if (whereLinks.length === 0 && listLinks.length === 0) return null;
    const tree = { t: raw };
    const out: Record<string, unknown> = { ...s, whereClause };
    if (quals.size > 0)
      out['fromClause'] = replaceIn(s.fromClause, (o) => {
        const j = o['JoinExpr'] as AstFields | undefined;
        if (j === undefined || !quals.has(j.quals as AstNode)) return undefined;
        const { quals: _q, ...rest } = j;
        const q = quals.get(j.quals as AstNode);
        return { JoinExpr: q === undefined ? rest : { ...rest, quals: q } };
      });
    if (whereLinks.length > 0) out['whereClause'] = await this.lift(whereClause, tree);
    if (listLinks.length > 0) {
      if (s.targetList !== undefined) out['targetList'] = named(s.targetList as AstNode[], await this.lift(s.targetList as AstNode[], tree));
      if (s.sortClause !== undefined) out['sortClause'] = await this.lift(s.sortClause, tree);
    }
    return { s: out, raw: tree.t };
  }

  /** `raw` with the correlated ON conjuncts of its inner joins moved to `moved` (`quals`: each changed ON, old to new). */
  private async innerOn(raw: RawFrom, moved: AstNode[], quals: Map<AstNode, AstNode | undefined>): Promise<RawFrom> {
    if (raw.kind !== 'join') return raw;
    const left = await this.innerOn(raw.left, moved, quals);
    const right = await this.innerOn(raw.right, moved, quals);
    if (raw.type !== 'inner' || raw.on === null) return left === raw.left && right === raw.right ? raw : { ...raw, left, right };
    const keep: AstNode[] = [];
    const take: AstNode[] = [];
    for (const c of astConjuncts(raw.on)) ((await this.correlatedIn(c)).length > 0 ? take : keep).push(c);
    if (take.length === 0) return left === raw.left && right === raw.right ? raw : { ...raw, left, right };
    moved.push(...take);
    const on = andOf(keep, -1) ?? bool(true);
    quals.set(raw.on, on);
    return { ...raw, left, right, on };
  }

  /**
   * A grouped query whose select list, HAVING or ORDER BY holds correlated SubLinks: the
   * grouping as a subquery in FROM, the rest over it (see the header).
   */
  private async split(s: AstFields): Promise<AstNode | null> {
    if (s.windowClause !== undefined || s.distinctClause !== undefined && (s.distinctClause as AstNode[]).some((d) => Object.keys(d as object).length > 0)) return null;
    const targets = (s.targetList ?? []) as AstNode[];
    if (targets.some((t) => kindOf(fieldsOf(t).val as AstNode) === 'ColumnRef' && (fieldsOf(fieldsOf(t).val as AstNode).fields as AstNode[]).some((f) => kindOf(f) === 'A_Star'))) return null;
    // GROUP BY 1 / GROUP BY name of a select-list item: the item's expression.
    const groupBy = ((s.groupClause ?? []) as AstNode[]).map((g) => {
      const gf = fieldsOf(g);
      if (kindOf(g) === 'A_Const' && gf.ival !== undefined) return (fieldsOf(targets[((gf.ival.ival as number | undefined) ?? 0) - 1] ?? { x: {} }).val as AstNode | undefined) ?? g;
      if (kindOf(g) === 'ColumnRef' && gf.fields.length === 1) {
        const t = targets.find((x) => fieldsOf(x).name === str(gf.fields[0]));
        if (t !== undefined) return fieldsOf(t).val as AstNode;
      }
      return g;
    });
    const keys = new Set(groupBy.map(withoutLocations));
    const inner: AstNode[] = [];
    const byText = new Map<string, AstNode>();
    const alias = `grouped ${++this.n}`;
    const lower = (x: AstNode): AstNode => {
      const text = withoutLocations(x);
      let ref = byText.get(text);
      if (ref === undefined) {
        ref = col(alias, `g${inner.length}`);
        inner.push(target(x, `g${inner.length}`));
        byText.set(text, ref);
      }
      return ref;
    };
    const isAggCall = (o: Record<string, unknown>): boolean => {
      const fc = o['FuncCall'] as AstFields | undefined;
      if (fc === undefined || fc.over !== undefined) return false;
      const names = (fc.funcname as AstNode[]).map(str);
      return AGGREGATES.has(names[names.length - 1]!.toLowerCase());
    };
    // Above the grouping, an expression reads group keys, aggregates and grouped columns from it.
    const above = (x: unknown, inLink: boolean): unknown =>
      replaceIn(x, (o) => {
        if (keys.has(withoutLocations(o)) || isAggCall(o) || o['ColumnRef'] !== undefined) {
          if (inLink && o['ColumnRef'] !== undefined && !this.outerRef(o['ColumnRef'] as AstFields)) return o as AstNode;
          return lower(o as AstNode);
        }
        const sl = o['SubLink'] as AstFields | undefined;
        if (sl === undefined) return undefined;
        // Inside a SubLink, only the references to this query's columns change.
        const sub = replaceIn(sl.subselect, (p) => (p['ColumnRef'] !== undefined && this.outerRef(p['ColumnRef'] as AstFields) ? lower(p as AstNode) : undefined));
        return { SubLink: { ...sl, subselect: sub, ...(sl.testexpr === undefined ? {} : { testexpr: above(sl.testexpr, false) }) } };
      });
    const havingAll = s.havingClause === undefined ? [] : astConjuncts(s.havingClause as AstNode);
    const havingCorr: AstNode[] = [];
    const havingOwn: AstNode[] = [];
    for (const c of havingAll) ((await this.correlatedIn(c)).length > 0 ? havingCorr : havingOwn).push(c);
    const outerTargets = targets.map((t) => {
      const tf = fieldsOf(t);
      return target(above(tf.val, false) as AstNode, (tf.name as string | undefined) ?? outputName(tf.val as AstNode));
    });
    const outerHaving = havingCorr.map((c) => above(c, false) as AstNode);
    // ORDER BY a select-list name or position stays as it is; an expression reads the grouping.
    const sort = ((s.sortClause ?? []) as AstNode[]).map((o) => {
      const node = fieldsOf(o).node as AstNode;
      const byName = kindOf(node) === 'ColumnRef' && (fieldsOf(node).fields as AstNode[]).length === 1 && targets.some((t) => fieldsOf(t).name === str((fieldsOf(node).fields as AstNode[])[0]!));
      if (byName || (kindOf(node) === 'A_Const' && fieldsOf(node).ival !== undefined)) return o;
      return { SortBy: { ...fieldsOf(o), node: above(node, false) } };
    });
    if (inner.length === 0) inner.push(target({ A_Const: { ival: { ival: 1 }, location: -1 } }, 'g0'));
    const lowerStmt: Record<string, unknown> = { ...s, targetList: inner };
    for (const k of ['sortClause', 'limitCount', 'limitOffset', 'distinctClause', 'limitOption', 'havingClause']) delete lowerStmt[k];
    if (s.groupClause !== undefined) lowerStmt['groupClause'] = groupBy;
    const h = andOf(havingOwn, -1);
    if (h !== undefined) lowerStmt['havingClause'] = h;
    // A grouped query with aggregates but no GROUP BY is one group, whatever HAVING keeps.
    lowerStmt['limitOption'] = 'LIMIT_OPTION_DEFAULT';
    const upper: Record<string, unknown> = { targetList: outerTargets, fromClause: [{ RangeSubselect: { subquery: { SelectStmt: lowerStmt }, alias: { aliasname: alias } } }], limitOption: s.limitOption ?? 'LIMIT_OPTION_DEFAULT', op: 'SETOP_NONE' };
    const w = andOf(outerHaving, -1);
    if (w !== undefined) upper['whereClause'] = w;
    if (s.sortClause !== undefined) upper['sortClause'] = sort;
    for (const k of ['limitCount', 'limitOffset', 'distinctClause']) if (s[k] !== undefined) upper[k] = s[k];
    return { SelectStmt: upper };
  }

  /** A column reference that names a column of this query's FROM (not of the subquery it sits in). */
  private outerRef(r: AstFields): boolean {
    const parts = (r.fields as AstNode[]).map((f) => (kindOf(f) === 'A_Star' ? '*' : str(f)));
    if (parts.length === 2) return this.leaves.some((l) => l.hidden !== true && l.alias === parts[0]);
    return false;
  }
}

/** A select list rewritten, each item keeping the name PostgreSQL gives the original. */
export function named(before: readonly AstNode[], after: readonly AstNode[]): AstNode[] {
  return after.map((t, i) => {
    if (t === before[i]) return t;
    const b = fieldsOf(before[i]!);
    return b.name !== undefined ? t : { ResTarget: { ...fieldsOf(t), name: outputName(b.val as AstNode) } };
  });
}

/**
 * Decorrelation (issue #19): a correlated subquery in a SELECT's WHERE or select list becomes a
 * join with a derived table over the subquery's own FROM, so that it runs once, not once per
 * outer row. This is the simplified end of Neumann and Kemper's unnesting ("Unnesting Arbitrary
 * Queries", BTW 2015) for the shapes where the dependent join's domain (the distinct outer
 * bindings) need not be computed: every correlation is either an equality `inner = outer` in a
 * WHERE conjunct of the subquery (the inner side groups or joins on it, and equal bindings
 * give equal results) or, for EXISTS / IN / ANY / ALL, a condition the join checks per pair.
 *
 *   WHERE [NOT] EXISTS (SELECT … FROM s WHERE s.k = o.k AND s.x <> o.x AND local)
 *     → o SEMI (ANTI) JOIN (SELECT s.k, s.x FROM s WHERE local) d ON d.k = o.k AND d.x <> o.x
 *   WHERE x IN (SELECT y FROM s WHERE s.k = o.k)              → SEMI JOIN … ON d.k = o.k AND x = d.y
 *   WHERE x NOT IN (…)                                        → ANTI JOIN … ON d.k = o.k AND coalesce(x = d.y, true)
 *     (a NULL on either side makes NOT IN unknown: such a pair removes the row, PostgreSQL 15 docs 9.23.3)
 *   WHERE x op ALL (…)                                        → ANTI JOIN … ON d.k = o.k AND NOT coalesce(x op d.y, false)
 *   (SELECT agg(…) FROM s WHERE s.k = o.k AND local), in WHERE or the select list
 *     → o LEFT JOIN (SELECT s.k, agg(…), true AS m FROM s WHERE local GROUP BY s.k) d ON d.k = o.k,
 *       the value d.agg where d matched, else the subquery over no row: the COUNT bug (count(*)
 *       over no row is 0, not NULL) is answered by `(SELECT agg(…) FROM s WHERE false)`, an InitPlan.
 *
 * Other correlated shapes (a correlation under an OR, in the subquery's select list, GROUP BY
 * or FROM, a scalar subquery without an aggregate, in HAVING or JOIN … ON, or one naming a
 * query two levels out) are left alone, and ./query.ts `bindSubLinks` fails them with 0A000.
 * This works on the parse tree, before names are bound, as a rewrite of the FROM tree and the
 * SELECT: nothing runs here.
 */
import type { Database } from '../../table/index.js';
import type { BoundQuery, Leaf } from '../ir.js';
import { type Field, isPaxdError } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, str } from '../parse.js';
import { queryFields } from '../ir.js';
import { SQLSTATE } from '../../types/index.js';
import { positionOf, SqlError } from '../errors.js';
import { andOf, astConjuncts, hasAggregate, subLinksIn } from './ast.js';
import type { RawFrom } from './scope.js';
import { named } from './correlated.js';

/** ./query.ts's binders, passed in (this module sits below it). */
export interface UnnestBinders {
  rawFrom(db: Database, node: AstNode, leaves: Leaf[]): Promise<RawFrom>;
  bindQuery(db: Database, stmt: AstNode): Promise<BoundQuery>;
  isOuterReference(e: unknown, leaves: readonly Leaf[]): boolean;
}

type Side = 'inner' | 'outer';

/** A correlated subquery's WHERE, split: conditions of its own, `inner = outer` pairs, and the rest. */
interface Split {
  readonly sub: AstFields;
  readonly local: AstNode[];
  readonly pairs: { inner: AstNode; outer: AstNode }[];
  readonly residual: AstNode[];
  /** The inner column references of `residual` (to be read from the derived table). */
  readonly innerRefs: AstFields[];
}

const col = (alias: string, name: string): AstNode => ({ ColumnRef: { fields: [{ String: { sval: alias } }, { String: { sval: name } }], location: -1 } });
const target = (val: AstNode, name: string): AstNode => ({ ResTarget: { name, val, location: -1 } });
const op = (name: string, l: AstNode, r: AstNode): AstNode => ({ A_Expr: { kind: 'AEXPR_OP', name: [{ String: { sval: name } }], lexpr: l, rexpr: r, location: -1 } });
const bool = (v: boolean): AstNode => ({ A_Const: { boolval: { boolval: v }, location: -1 } });
const not = (a: AstNode): AstNode => ({ BoolExpr: { boolop: 'NOT_EXPR', args: [a], location: -1 } });
const coalesce = (a: AstNode, v: boolean): AstNode => ({ CoalesceExpr: { args: [a, bool(v)], location: -1 } });

export class Unnester {
  private n = 0;
  constructor(
    private readonly db: Database,
    private readonly leaves: Leaf[],
    private readonly b: UnnestBinders,
  ) {}

  /** The SELECT `s` over `raw` with its correlated subqueries unnested, or null when it has none that can be. */
  async run(s: AstFields, raw: RawFrom): Promise<{ raw: RawFrom; s: AstFields } | null> {
    let tree = raw;
    const replace = new Map<AstFields, AstNode>();
    const rest: AstNode[] = [];
    const where = s.whereClause === undefined ? [] : astConjuncts(s.whereClause as AstNode);
    let changed = false;
    for (const c of where) {
      const j = await this.semiJoin(c, tree);
      if (j === null) rest.push(c);
      else {
        tree = j;
        changed = true;
      }
    }
    // Scalar subqueries with an aggregate, anywhere in WHERE and (when the query does not group) the select list.
    const grouped = s.groupClause !== undefined || s.havingClause !== undefined || ((s.targetList ?? []) as AstNode[]).some(hasAggregate);
    const scalars = [...rest, ...(grouped ? [] : ((s.targetList ?? []) as AstNode[]))].flatMap((x) => subLinksIn(x)).filter((sl) => sl.subLinkType === 'EXPR_SUBLINK' || sl.subLinkType === 'EXISTS_SUBLINK');
    for (const sl of scalars) {
      const r = await this.scalar(sl, tree, rest);
      if (r === null) continue;
      tree = r.tree;
      replace.set(sl, r.value);
      changed = true;
    }
    if (!changed) return null;
    const out: Record<string, unknown> = { ...s };
    const w = andOf(rest.map((c) => rewrite(c, replace)), fieldsOf(s.whereClause ?? { x: { location: -1 } }).location);
    if (w === undefined) delete out['whereClause'];
    else out['whereClause'] = w;
    if (s.targetList !== undefined) out['targetList'] = named(s.targetList as AstNode[], rewrite(s.targetList as AstNode[], replace));
    return { raw: tree, s: out };
  }

  /** A WHERE conjunct [NOT] EXISTS / IN / op ANY / op ALL over a correlated subquery, as a semi- or anti-join. */
  private async semiJoin(c: AstNode, tree: RawFrom): Promise<RawFrom | null> {
    const negated = kindOf(c) === 'BoolExpr' && fieldsOf(c).boolop === 'NOT_EXPR';
    const node = negated ? (fieldsOf(c).args as AstNode[])[0]! : c;
    if (kindOf(node) !== 'SubLink') return null;
    const sl = fieldsOf(node);
    const type = sl.subLinkType as string;
    if (type !== 'EXISTS_SUBLINK' && type !== 'ANY_SUBLINK' && type !== 'ALL_SUBLINK') return null;
    if (type !== 'EXISTS_SUBLINK' && (sl.testexpr === undefined || kindOf(sl.testexpr) === 'RowExpr')) return null;
    const split = await this.split(sl, true);
    if (split === null) return null;
    const targetList = ((split.sub.targetList ?? []) as AstNode[]);
    if (type !== 'EXISTS_SUBLINK' && targetList.length !== 1)
      throw new SqlError('invalid_input', SQLSTATE.syntax_error, targetList.length > 1 ? 'subquery has too many columns' : 'subquery has too few columns', positionOf(sl.location as number));
    // EXISTS (SELECT count(*) …) has one row whatever matches; an aggregate in IN's list is a scalar per binding.
    if (targetList.some(hasAggregate)) return null;
    // The derived table reads only what the join needs; the select list must still bind (42703 as PostgreSQL's).
    const named = targetList.filter((t) => !isStar(t));
    if (type === 'EXISTS_SUBLINK' && named.length > 0 && (await this.derivedLeaf(split, named, undefined, false)) === null) return null;
    const alias = this.alias();
    const targets: AstNode[] = [];
    const on: AstNode[] = [];
    split.pairs.forEach((p, i) => {
      targets.push(target(p.inner, `k${i}`));
      on.push(op('=', col(alias, `k${i}`), p.outer));
    });
    on.push(...this.residualOn(split, alias, targets));
    let join: 'semi' | 'anti' = negated ? 'anti' : 'semi';
    if (type !== 'EXISTS_SUBLINK') {
      targets.push(target(fieldsOf(targetList[0]!).val as AstNode, 'y'));
      const name = sl.operName === undefined ? '=' : (sl.operName as AstNode[]).map(str).join('.');
      const test = op(name, sl.testexpr as AstNode, col(alias, 'y'));
      // ANY: a pair where the test is true; NOT ANY: none true or unknown; ALL: none false or unknown; NOT ALL: one false.
      if (type === 'ANY_SUBLINK') on.push(negated ? coalesce(test, true) : test);
      else {
        on.push(negated ? not(coalesce(test, true)) : not(coalesce(test, false)));
        join = negated ? 'semi' : 'anti';
      }
    }
    const leaf = await this.derivedLeaf(split, targets, undefined);
    if (leaf === null) return null;
    return { kind: 'join', type: join, left: tree, right: { kind: 'leaf', leaf }, on: andOf(on, -1)!, using: null, natural: false, location: sl.location as number };
  }

  /**
   * A scalar subquery with an aggregate (or EXISTS as a value: `count(*) > 0`) as a LEFT JOIN
   * with the grouped subquery. Equality correlations are its group keys; other correlations
   * need the domain: the distinct outer values they read, joined into the subquery's FROM and
   * grouped by, so that each binding gets its own group.
   */
  private async scalar(sl: AstFields, tree: RawFrom, outerWhere: readonly AstNode[]): Promise<{ tree: RawFrom; value: AstNode } | null> {
    const exists = sl.subLinkType === 'EXISTS_SUBLINK';
    let split = await this.split(sl, true);
    if (split === null) return null;
    const targetList = (split.sub.targetList ?? []) as AstNode[];
    if (exists ? targetList.some(hasAggregate) : targetList.length !== 1 || !hasAggregate(targetList[0]!)) return null;
    const countStar: AstNode = { FuncCall: { funcname: [{ String: { sval: 'count' } }], agg_star: true, funcformat: 'COERCE_EXPLICIT_CALL', location: -1 } };
    const val = exists ? op('>', countStar, { A_Const: { ival: { ival: 0 }, location: -1 } }) : (fieldsOf(targetList[0]!).val as AstNode);
    const alias = this.alias();
    let keys = split.pairs.map((p) => p.inner);
    let on = split.pairs.map((p, i) => op('=', col(alias, `k${i}`), p.outer));
    if (split.residual.length > 0) {
      // The dependent join over the domain: every correlation, equalities too, is a condition
      // between the domain and the subquery's rows, and the groups are the domain's values.
      const domain = this.domain(split, outerWhere);
      if (domain === null) return null;
      keys = domain.refs.map((_r, j) => col(domain.alias, `d${j}`));
      on = domain.refs.map((r, j) => op('=', col(alias, `k${j}`), { ColumnRef: r }));
      const correlated = [...split.pairs.map((p) => op('=', p.inner, p.outer)), ...split.residual].map((c) => rewriteRefs(c, domain.map));
      split = { ...split, sub: { ...split.sub, fromClause: [domain.item, ...(split.sub.fromClause as AstNode[])] }, local: [...split.local, ...correlated], pairs: [], residual: [], innerRefs: [] };
    }
    const targets = keys.map((k, i) => target(k, `k${i}`));
    targets.push(target(val, 'v'), target(bool(true), 'm'));
    const leaf = await this.derivedLeaf(split, targets, keys);
    if (leaf === null) return null;
    const joined: RawFrom = { kind: 'join', type: 'left', left: tree, right: { kind: 'leaf', leaf }, on: andOf(on, -1)!, using: null, natural: false, location: sl.location as number };
    if (exists) return { tree: joined, value: { NullTest: { arg: col(alias, 'm'), nulltesttype: 'IS_NOT_NULL', location: -1 } } };
    // Over no row, an aggregate other than count is NULL, as the unmatched LEFT JOIN gives.
    const bare = kindOf(val) === 'FuncCall' && (fieldsOf(val).funcname as AstNode[]).map(str).pop()!.toLowerCase() !== 'count' && fieldsOf(val).agg_filter === undefined;
    if (bare) return { tree: joined, value: col(alias, 'v') };
    const empty: AstNode = { SubLink: { subLinkType: 'EXPR_SUBLINK', subselect: { SelectStmt: { ...fieldsOf(sl.subselect as AstNode), whereClause: bool(false) } }, location: -1 } };
    const value: AstNode = {
      CaseExpr: { args: [{ CaseWhen: { expr: { NullTest: { arg: col(alias, 'm'), nulltesttype: 'IS_NULL', location: -1 } }, result: empty, location: -1 } }], defresult: col(alias, 'v'), location: -1 },
    };
    return { tree: joined, value };
  }

  /**
   * The domain of a subquery's non-equality correlations: `SELECT DISTINCT o.x AS d0, … FROM
   * <o's table> o` as a FROM item, and each outer reference's replacement. Null unless every
   * outer reference is a column of one base table of this query and every correlated condition
   * is a comparison of arithmetic over columns and constants (strict: a NULL outer value
   * makes it unknown, so joining the domain by `=` loses no binding's rows).
   */
  private domain(split: Split, outerWhere: readonly AstNode[]): { item: AstNode; alias: string; refs: AstFields[]; map: Map<AstFields, AstNode> } | null {
    const strict = (x: AstNode): boolean => {
      const k = kindOf(x);
      if (k === 'ColumnRef' || k === 'A_Const') return true;
      const a = fieldsOf(x);
      return k === 'A_Expr' && a.kind === 'AEXPR_OP' && ['+', '-', '*', '/'].includes((a.name as AstNode[]).map(str).join('.')) && (a.lexpr === undefined || strict(a.lexpr)) && strict(a.rexpr);
    };
    for (const c of split.residual) {
      const a = fieldsOf(c);
      if (kindOf(c) !== 'A_Expr' || a.kind !== 'AEXPR_OP' || !['=', '<>', '<', '<=', '>', '>='].includes((a.name as AstNode[]).map(str).join('.')) || !strict(a.lexpr) || !strict(a.rexpr)) return null;
    }
    if (!split.pairs.every((p) => strict(p.outer))) return null;
    const inner = new Set(split.innerRefs);
    const refs: AstFields[] = [];
    const byText = new Map<string, number>();
    const map = new Map<AstFields, AstNode>();
    const alias = `domain ${this.n}`;
    const leafOf = (r: AstFields) => {
      const parts = (r.fields as AstNode[]).map(str);
      return this.leaves.findIndex((l) => l.hidden !== true && (parts.length === 2 ? l.alias === parts[0] : l.fields.some((f) => f.name === parts[0])));
    };
    let leaf = -1;
    const visit = (r: AstFields) => {
      if (inner.has(r)) return;
      const i = leafOf(r);
      leaf = leaf === -1 || leaf === i ? i : -2;
      const text = (r.fields as AstNode[]).map(str).join('.');
      if (!byText.has(text)) {
        byText.set(text, refs.length);
        refs.push(r);
      }
      map.set(r, col(alias, `d${byText.get(text)!}`));
    };
    for (const p of split.pairs) walk(p.outer, visit);
    for (const c of split.residual) walk(c, visit);
    const l = this.leaves[leaf];
    if (l === undefined || l.source.kind !== 'table') return null;
    const from: AstNode = { RangeVar: { relname: l.source.table.name, inh: true, relpersistence: 'p', alias: { aliasname: l.alias }, location: -1 } };
    // The magic set: only the outer rows this query's own WHERE keeps over that table can bind.
    const own = outerWhere.filter((c) => {
      if (subLinksIn(c).length > 0) return false;
      let only = true;
      walk(c, (r) => {
        if (leafOf(r) !== leaf) only = false;
      });
      return only;
    });
    const where = andOf(own, -1);
    const stmt = { SelectStmt: { targetList: refs.map((r, j) => target({ ColumnRef: r }, `d${j}`)), fromClause: [from], distinctClause: [{}], limitOption: 'LIMIT_OPTION_DEFAULT', op: 'SETOP_NONE', ...(where === undefined ? {} : { whereClause: where }) } };
    return { item: { RangeSubselect: { subquery: stmt, alias: { aliasname: alias } } }, alias, refs, map };
  }

  /** The residual conditions, their inner column references read from the derived table's extra columns. */
  private residualOn(split: Split, alias: string, targets: AstNode[]): AstNode[] {
    const names = new Map<AstFields, AstNode>();
    split.innerRefs.forEach((r, i) => {
      targets.push(target({ ColumnRef: r }, `r${i}`));
      names.set(r, col(alias, `r${i}`));
    });
    return split.residual.map((c) => rewriteRefs(c, names));
  }

  /** Binds the derived table `SELECT targets FROM <sub's FROM> WHERE <local> [GROUP BY keys]` as a hidden leaf. */
  private async derivedLeaf(split: Split, targets: AstNode[], groupBy: AstNode[] | undefined, keep = true): Promise<number | null> {
    const stmt: Record<string, unknown> = { ...split.sub, targetList: targets };
    const w = andOf(split.local, -1);
    if (w === undefined) delete stmt['whereClause'];
    else stmt['whereClause'] = w;
    if (groupBy !== undefined) stmt['groupClause'] = groupBy;
    let query: BoundQuery;
    try {
      query = await this.b.bindQuery(this.db, { SelectStmt: stmt });
    } catch (e) {
      // A subquery below it that names this level's columns, correlated two levels out: left
      // to ./correlated.ts, which binds it with this level's columns as parameters.
      if (isPaxdError(e) && this.b.isOuterReference(e, this.leaves)) return null;
      throw e;
    }
    if (!keep) return -1;
    const fields: Field[] = queryFields(query).map((f, i) => ({ name: f.name, type: f.type, notNull: false, fieldId: i }));
    this.leaves.push(Object.freeze({ alias: `${this.aliasName()}`, hidden: true, fields, source: Object.freeze({ kind: 'subquery', query }) }));
    return this.leaves.length - 1;
  }

  private alias(): string {
    this.n++;
    return this.aliasName();
  }

  private aliasName(): string {
    return `subquery ${this.n}`;
  }

  /**
   * The WHERE of a SubLink's subquery split by correlation, or null when the subquery has a
   * shape this module does not unnest (see the header) or no outer reference (an InitPlan).
   */
  private async split(sl: AstFields, allowResidual: boolean): Promise<Split | null> {
    const sub = fieldsOf(sl.subselect as AstNode);
    const simple = (sub.op === undefined || sub.op === 'SETOP_NONE') && sub.fromClause !== undefined && sub.whereClause !== undefined;
    if (!simple || sub.groupClause !== undefined || sub.havingClause !== undefined || sub.limitCount !== undefined || sub.limitOffset !== undefined) return null;
    if (sub.withClause !== undefined || sub.distinctClause !== undefined || sub.valuesLists !== undefined || sub.windowClause !== undefined) return null;
    const inner: Leaf[] = [];
    try {
      for (const item of sub.fromClause as AstNode[]) await this.b.rawFrom(this.db, item, inner);
    } catch {
      return null;
    }
    const classify = (ref: AstFields): Side => {
      const parts = (ref.fields as AstNode[]).map((f) => (kindOf(f) === 'A_Star' ? '*' : str(f)));
      if (parts.length === 2) return inner.some((l) => l.alias === parts[0]) || !this.leaves.some((l) => l.alias === parts[0] && l.hidden !== true) ? 'inner' : 'outer';
      return inner.some((l) => l.fields.some((f) => f.name === parts[0])) || !this.leaves.some((l) => l.hidden !== true && l.fields.some((f) => f.name === parts[0])) ? 'inner' : 'outer';
    };
    const refs = (x: unknown, out: { ref: AstFields; side: Side }[] = []) => {
      walk(x, (r) => out.push({ ref: r, side: classify(r) }));
      return out;
    };
    // An outer reference outside the WHERE (select list, FROM): not this module's.
    if (refs(sub.targetList).some((r) => r.side === 'outer') || refs(sub.fromClause).some((r) => r.side === 'outer')) return null;
    const local: AstNode[] = [];
    const pairs: { inner: AstNode; outer: AstNode }[] = [];
    const residual: AstNode[] = [];
    const innerRefs: AstFields[] = [];
    for (const w of astConjuncts(sub.whereClause as AstNode)) {
      const rs = refs(w);
      if (!rs.some((r) => r.side === 'outer')) {
        local.push(w);
        continue;
      }
      const a = fieldsOf(w);
      const only = (x: AstNode, side: Side) => {
        const xs = refs(x);
        return xs.length > 0 && xs.every((r) => r.side === side) && subLinksIn(x).length === 0;
      };
      const isEq = kindOf(w) === 'A_Expr' && a.kind === 'AEXPR_OP' && (a.name as AstNode[]).map(str).join('.') === '=';
      if (isEq && only(a.lexpr, 'inner') && only(a.rexpr, 'outer')) pairs.push({ inner: a.lexpr, outer: a.rexpr });
      else if (isEq && only(a.lexpr, 'outer') && only(a.rexpr, 'inner')) pairs.push({ inner: a.rexpr, outer: a.lexpr });
      else if (allowResidual && subLinksIn(w).length === 0) {
        residual.push(w);
        for (const r of rs) if (r.side === 'inner') innerRefs.push(r.ref);
      } else return null;
    }
    if (pairs.length === 0 && residual.length === 0) return null;
    return { sub, local, pairs, residual, innerRefs };
  }
}

const isStar = (t: AstNode): boolean => {
  const v = fieldsOf(t).val as AstNode;
  return kindOf(v) === 'ColumnRef' && (fieldsOf(v).fields as AstNode[]).some((f) => kindOf(f) === 'A_Star');
};

/** The column references in `x`, outside nested subqueries (those bind in their own scope). */
function walk(x: unknown, f: (ref: AstFields) => void): void {
  if (x === null || typeof x !== 'object') return;
  if (Array.isArray(x)) return x.forEach((v) => walk(v, f));
  const o = x as Record<string, unknown>;
  if (o['SubLink'] !== undefined) return walk((o['SubLink'] as AstFields).testexpr, f);
  if (o['ColumnRef'] !== undefined) return f(o['ColumnRef'] as AstFields);
  for (const v of Object.values(o)) walk(v, f);
}


/** `x` with each SubLink of `map` replaced (a copy along the paths that change). */
function rewrite<T>(x: T, map: ReadonlyMap<AstFields, AstNode>): T {
  if (map.size === 0 || x === null || typeof x !== 'object') return x;
  if (Array.isArray(x)) return x.map((v) => rewrite(v, map)) as T;
  const o = x as Record<string, unknown>;
  const sl = o['SubLink'] as AstFields | undefined;
  if (sl !== undefined && map.has(sl)) return map.get(sl) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) out[k] = rewrite(v, map);
  return out as T;
}

/** `x` with each ColumnRef of `map` replaced. */
function rewriteRefs(x: AstNode, map: ReadonlyMap<AstFields, AstNode>): AstNode {
  const go = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map(go);
    const o = v as Record<string, unknown>;
    const r = o['ColumnRef'] as AstFields | undefined;
    if (r !== undefined && map.has(r)) return map.get(r);
    const out: Record<string, unknown> = {};
    for (const [k, w] of Object.entries(o)) out[k] = go(w);
    return out;
  };
  return go(x) as AstNode;
}

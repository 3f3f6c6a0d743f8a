/**
 * Set-returning functions in the select list (PostgreSQL 10+'s ProjectSet, docs 9.25 and
 * xfunc.html "SQL Functions Returning Sets"): the calls of one select list run in lock-step,
 * row by row of the FROM result, and a shorter one is padded with NULLs until the longest
 * ends. That is exactly a LATERAL ROWS FROM over the calls, joined to each row, so the query is
 * rewritten to one before it binds:
 *
 *   SELECT id, generate_series(1, id) * 2 FROM t
 *   → SELECT id, "?srf?".c1 * 2 FROM t, LATERAL ROWS FROM (generate_series(1, id)) "?srf?"(c1)
 *
 * The output column keeps the name the call gave it (generate_series); the added FROM item is
 * hidden from `*`. Calls under CASE or COALESCE stay where they are and fail as in PostgreSQL
 * (./srf-placement.ts). Calls in ORDER BY and DISTINCT ON join the select list's (PostgreSQL
 * adds them to the target list as hidden entries); nested calls and aggregating queries below.
 */
import { type AstFields, type AstNode, fieldsOf, kindOf } from '../parse.js';
import { isSetReturning } from '../functions/registry.js';
import { outputName } from './ast.js';
import { funcNameOf, selectSrfAlias } from './srf-placement.js';
import { aggregatesOrWindows, srfAboveAggregate } from './srf-above-agg.js';

/** The nodes a set-returning call may sit under and still run in the ProjectSet. */
const OPAQUE = new Set(['CaseExpr', 'CoalesceExpr', 'SubLink', 'MinMaxExpr', 'NullIfExpr']);

const isSrfNode = (x: AstNode): boolean => kindOf(x) === 'FuncCall' && fieldsOf(x).over === undefined && isSetReturning(funcNameOf(x));

/** Whether `node` holds a set-returning call the ProjectSet would run (not under CASE and the like). */
function hasSrf(node: unknown): boolean {
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some(hasSrf);
  const o = node as Record<string, unknown>;
  const [kind] = Object.keys(o);
  if (kind !== undefined && OPAQUE.has(kind)) return false;
  if (kind === 'FuncCall' && isSrfNode(o as AstNode)) return true;
  return Object.values(o).some(hasSrf);
}

/** The first set-returning call's location in `node`, for errors. */
function firstSrfLocation(node: unknown): number | undefined {
  if (node === null || typeof node !== 'object') return undefined;
  if (Array.isArray(node)) {
    for (const x of node) {
      const l = firstSrfLocation(x);
      if (l !== undefined) return l;
    }
    return undefined;
  }
  const o = node as Record<string, unknown>;
  const [kind] = Object.keys(o);
  if (kind !== undefined && OPAQUE.has(kind)) return undefined;
  if (kind === 'FuncCall' && isSrfNode(o as AstNode)) return fieldsOf(o as AstNode).location as number;
  return firstSrfLocation(Object.values(o));
}

/** The clauses whose set-returning calls the ProjectSet runs: the select list, ORDER BY, DISTINCT ON. */
const srfClauses = (s: AstFields): unknown[] => [s.targetList ?? [], s.sortClause ?? [], s.distinctClause ?? []];

/**
 * `s` with its select list's (and ORDER BY's, DISTINCT ON's) set-returning calls moved into
 * LATERAL ROWS FROM items, or `s` when it has none. Nested calls run as PostgreSQL's stacked
 * ProjectSets do (optimizer/util/tlist.c split_pathtarget_at_srfs): the calls whose arguments
 * hold none run first, in lock-step, as "?srf?"; the calls over their results next, as
 * "?srf2?", one more LATERAL item per level:
 *
 *   SELECT generate_series(1, 2), generate_series(1, generate_series(1, 3))
 *   → … FROM ROWS FROM (generate_series(1, 2), generate_series(1, 3)) "?srf?"(c1, c2),
 *        LATERAL ROWS FROM (generate_series(1, "?srf?".c2)) "?srf2?"(c1)
 *
 * In an aggregating or windowed query the calls run above the aggregates (./srf-above-agg.ts).
 */
export function selectListSrfs(s0: AstFields): AstFields {
  if (!srfClauses(s0).some(hasSrf) && !hasSrf(s0.groupClause)) return s0;
  const s = aggregatesOrWindows(s0, srfClauses(s0)) ? srfAboveAggregate(s0, hasSrf, firstSrfLocation, isSrfNode) : s0;
  const names = ((s.targetList ?? []) as AstNode[]).map((t) => (fieldsOf(t).name as string | undefined) ?? outputName(fieldsOf(t).val as AstNode));
  let clauses = { targetList: s.targetList as AstNode[], sortClause: s.sortClause as AstNode[] | undefined, distinctClause: s.distinctClause as AstNode[] | undefined };
  const from = [...((s.fromClause ?? []) as AstNode[])];
  for (let level = 1; srfClauses(clauses).some(hasSrf); level++) {
    const alias = selectSrfAlias(level);
    const calls: AstNode[] = [];
    // The innermost calls: those whose arguments hold no call of their own.
    const move = (x: unknown): unknown => {
      if (x === null || typeof x !== 'object') return x;
      if (Array.isArray(x)) return x.map(move);
      const o = x as Record<string, unknown>;
      const [kind] = Object.keys(o);
      if (kind !== undefined && OPAQUE.has(kind)) return x;
      if (kind === 'FuncCall' && isSrfNode(o as AstNode) && !((fieldsOf(o as AstNode).args ?? []) as AstNode[]).some(hasSrf)) {
        const location = fieldsOf(o as AstNode).location;
        calls.push(o as AstNode);
        return { ColumnRef: { fields: [{ String: { sval: alias } }, { String: { sval: `c${calls.length}` } }], location } };
      }
      return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, move(v)]));
    };
    clauses = {
      targetList: clauses.targetList.map((t) => (hasSrf(fieldsOf(t).val) ? { ResTarget: { ...fieldsOf(t), val: move(fieldsOf(t).val) } } : t)),
      sortClause: clauses.sortClause?.map((sb) => ({ SortBy: { ...fieldsOf(sb), node: move(fieldsOf(sb).node) } })),
      distinctClause: clauses.distinctClause?.map((d) => move(d) as AstNode),
    };
    from.push({
      RangeFunction: {
        lateral: true,
        is_rowsfrom: true,
        functions: calls.map((c) => ({ List: { items: [c, {}] } })),
        alias: { aliasname: alias, colnames: calls.map((_c, i) => ({ String: { sval: `c${i + 1}` } })) },
      },
    });
  }
  const targetList = clauses.targetList.map((t, i) => ({ ResTarget: { ...fieldsOf(t), name: names[i] } }));
  const out: Record<string, unknown> = { ...s, targetList, fromClause: from };
  if (clauses.sortClause !== undefined) out.sortClause = clauses.sortClause;
  if (clauses.distinctClause !== undefined) out.distinctClause = clauses.distinctClause;
  return out;
}

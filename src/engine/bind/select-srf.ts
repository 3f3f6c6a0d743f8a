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
 * (./srf-placement.ts); SRFs in an aggregating or windowed query's select list, in ORDER BY,
 * and nested SRFs are 0A000 for now.
 */
import { SQLSTATE } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf } from '../parse.js';
import { SqlError, notSupported, positionOf } from '../errors.js';
import { isSetReturning } from '../functions/registry.js';
import { hasAggregate, outputName } from './ast.js';
import { SELECT_SRF_ALIAS, funcNameOf } from './srf-placement.js';

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

/** `s` with its select list's set-returning calls moved into a LATERAL ROWS FROM, or `s` when it has none. */
export function selectListSrfs(s: AstFields): AstFields {
  const targets = (s.targetList ?? []) as AstNode[];
  if (!targets.some(hasSrf)) return s;
  const first = targets.find(hasSrf)!;
  const location = fieldsOf(first).location as number | undefined;
  if (s.groupClause !== undefined || s.havingClause !== undefined || targets.some((t) => hasAggregate(t)) || s.windowClause !== undefined)
    throw notSupported('set-returning functions in the select list of an aggregating query', location);
  if (((s.sortClause ?? []) as AstNode[]).some(hasSrf)) throw notSupported('set-returning functions in ORDER BY', location);
  const calls: AstNode[] = [];
  const move = (x: unknown): unknown => {
    if (x === null || typeof x !== 'object') return x;
    if (Array.isArray(x)) return x.map(move);
    const o = x as Record<string, unknown>;
    const [kind] = Object.keys(o);
    if (kind !== undefined && OPAQUE.has(kind)) return x;
    if (kind === 'FuncCall' && isSrfNode(o as AstNode)) {
      const f = fieldsOf(o as AstNode);
      if (((f.args ?? []) as AstNode[]).some(hasSrf)) throw notSupported('nested set-returning functions', f.location as number);
      if (hasAggregate(o as AstNode)) throw new SqlError('invalid_input', SQLSTATE.grouping_error, 'aggregate function calls cannot contain set-returning function calls', positionOf(f.location as number));
      calls.push(o as AstNode);
      return { ColumnRef: { fields: [{ String: { sval: SELECT_SRF_ALIAS } }, { String: { sval: `c${calls.length}` } }], location: f.location } };
    }
    // An aggregate's or window function's argument: PostgreSQL's 42803 / 0A000 come from binding it there.
    if (kind === 'FuncCall' && (fieldsOf(o as AstNode).over !== undefined || hasAggregate(o as AstNode))) return x;
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, move(v)]));
  };
  const targetList = targets.map((t) => {
    const rt = fieldsOf(t);
    if (!hasSrf(rt.val)) return t;
    return { ResTarget: { ...rt, name: (rt.name as string | undefined) ?? outputName(rt.val as AstNode), val: move(rt.val) } };
  });
  const rowsFrom: AstNode = {
    RangeFunction: {
      lateral: true,
      is_rowsfrom: true,
      functions: calls.map((c) => ({ List: { items: [c, {}] } })),
      alias: { aliasname: SELECT_SRF_ALIAS, colnames: calls.map((_c, i) => ({ String: { sval: `c${i + 1}` } })) },
    },
  };
  return { ...s, targetList, fromClause: [...((s.fromClause ?? []) as AstNode[]), rowsFrom] };
}

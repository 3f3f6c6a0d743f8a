/**
 * Parse-tree helpers of the binder: WHERE conjuncts, output column names (PostgreSQL's
 * FigureColname), locking clauses, whether an expression holds an aggregate.
 */
import { isJsonAggregate } from './json-aggregates.js';
import { PaxdError, SQLSTATE } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, str } from '../parse.js';
import type { Expr } from '../expr.js';
import { positionOf, SqlError } from '../errors.js';
import type { Leaf } from '../ir.js';
import { AGGREGATES } from './catalog.js';

/** The top-level AND conjuncts of a condition's parse tree. */
export function astConjuncts(where: AstNode): AstNode[] {
  return kindOf(where) === 'BoolExpr' && fieldsOf(where).boolop === 'AND_EXPR' ? [...(fieldsOf(where).args as AstNode[])] : [where];
}

export function andOf(conj: AstNode[], location: unknown): AstNode | undefined {
  return conj.length === 0 ? undefined : conj.length === 1 ? conj[0] : { BoolExpr: { boolop: 'AND_EXPR', args: conj, location } };
}

export function statementName(kind: string): string {
  return kind.replace(/Stmt$/, '').replace(/([a-z])([A-Z])/g, '$1 $2').toUpperCase();
}

/** `FOR UPDATE`, `FOR NO KEY UPDATE`, `FOR SHARE` or `FOR KEY SHARE`: the first locking clause's strength. */
export function lockingName(s: AstFields): string {
  const strength = fieldsOf((s.lockingClause as AstNode[])[0]!).strength as string;
  return { LCS_FORNOKEYUPDATE: 'FOR NO KEY UPDATE', LCS_FORSHARE: 'FOR SHARE', LCS_FORKEYSHARE: 'FOR KEY SHARE' }[strength] ?? 'FOR UPDATE';
}

/** PostgreSQL's checks of a locking clause (CheckSelectLocking): 0A000 with GROUP BY, DISTINCT, aggregates. */
export function lockingAllowed(s: AstFields): void {
  const name = lockingName(s);
  const fail = (what: string) => new SqlError('unsupported', SQLSTATE.feature_not_supported, `${name} is not allowed with ${what}`);
  if (s.distinctClause !== undefined) throw fail('DISTINCT clause');
  if (s.groupClause !== undefined) throw fail('GROUP BY clause');
  if (s.havingClause !== undefined) throw fail('HAVING clause');
  if (((s.targetList ?? []) as AstNode[]).some((t) => hasAggregate(t))) throw fail('aggregate functions');
}

/** `FOR UPDATE OF r1, r2` (postgres_fdw's joins): each name must be a FROM item (42P01 otherwise). */
export function lockedRelsExist(s: AstFields, leaves: readonly Leaf[]): void {
  for (const l of s.lockingClause as AstNode[])
    for (const r of (fieldsOf(l).lockedRels ?? []) as AstNode[]) {
      const name = fieldsOf(r).relname as string;
      if (!leaves.some((x) => x.alias === name && x.hidden !== true))
        throw new SqlError('not_found', SQLSTATE.undefined_table, `relation "${name}" in ${lockingName(s)} clause not found in FROM clause`, positionOf(fieldsOf(r).location as number));
    }
}

/** PostgreSQL's name for an unnamed output column (FigureColname). */
export function outputName(node: AstNode): string {
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
    case 'SubLink': {
      // A scalar subquery is named as its own column (PostgreSQL's FigureColnameInternal).
      if (n.subLinkType === 'EXISTS_SUBLINK') return 'exists';
      if (n.subLinkType === 'ARRAY_SUBLINK') return 'array';
      if (n.subLinkType !== 'EXPR_SUBLINK') return '?column?';
      let sub = fieldsOf(n.subselect as AstNode);
      while (sub.op !== undefined && sub.op !== 'SETOP_NONE') sub = sub.larg as AstFields;
      const first = ((sub.targetList ?? []) as AstNode[])[0];
      if (first === undefined) return '?column?';
      return (fieldsOf(first).name as string | undefined) ?? outputName(fieldsOf(first).val as AstNode);
    }
    case 'GroupingFunc':
      return 'grouping';
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

export function hasAggregate(node: AstNode): boolean {
  let found = false;
  const visit = (x: unknown): void => {
    if (found || x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) return x.forEach(visit);
    const o = x as Record<string, unknown>;
    const fc = o['FuncCall'] as AstFields | undefined;
    if (fc !== undefined) {
      const names = (fc.funcname as AstNode[]).map(str);
      const name = names[names.length - 1]!.toLowerCase();
      if ((AGGREGATES.has(name) || isJsonAggregate(name)) && fc.over === undefined) {
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

export function safeBind(f: () => Expr): Expr | null {
  try {
    return f();
  } catch (e) {
    if (e instanceof PaxdError) return null;
    throw e;
  }
}

/**
 * The SubLinks in `x`, outside nested subqueries (a SubLink's own subquery is not entered; its
 * test expression is). Constants hold none: an A_Const, or a ConstList of them (parse.ts), is
 * skipped whole, since a 100,000-element IN list is 100,000 of them.
 */
export function subLinksIn(x: unknown, out: AstFields[] = []): AstFields[] {
  if (x === null || typeof x !== 'object') return out;
  if (Array.isArray(x)) {
    for (const v of x) subLinksIn(v, out);
    return out;
  }
  const o = x as Record<string, unknown>;
  if (o['A_Const'] !== undefined || o['PaxdConsts'] !== undefined) return out;
  if (o['SubLink'] !== undefined) {
    out.push(o['SubLink'] as AstFields);
    return subLinksIn((o['SubLink'] as AstFields).testexpr, out);
  }
  for (const v of Object.values(o)) subLinksIn(v, out);
  return out;
}

/**
 * WITH [RECURSIVE] (PostgreSQL 15 docs 7.8, src/backend/parser/parse_cte.c): the WITH queries of
 * a SELECT are bound in order, each seeing the ones before it (and those of enclosing queries),
 * then the SELECT itself, whose FROM items find them by name before tables (a CTE shadows a
 * table of its name).
 *
 * How a reference reads a CTE follows PostgreSQL 12+:
 *   inlined      referenced once and not MATERIALIZED (or NOT MATERIALIZED): the reference is
 *                the CTE's bound query as a subquery in FROM;
 *   materialized referenced more than once, MATERIALIZED, or recursive: a CTE Scan
 *                (../ir.ts `BoundCteScan`), run once per statement (../exec/cte-scan.ts).
 *
 * A recursive CTE is `non-recursive term UNION [ALL] recursive term`; the recursive term reads
 * the CTE's name as the work table (a WorkTable Scan) and must reference it exactly once, not
 * within a subquery in an expression, the nullable side of an outer join, INTERSECT ALL or EXCEPT
 * (42P19, parse_cte.c's checkWellFormedRecursion). Its columns have the non-recursive term's
 * types: a recursive term that would widen them is 42804.
 *
 * The names in scope travel with the binding through AsyncLocalStorage rather than through
 * every binder function's parameters: FROM subqueries, subqueries in expressions and the
 * semi-joins of EXISTS all bind through ./query.ts's `bindQuery` and see the same scope.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Database } from '../../table/index.js';
import { type Field, SQLSTATE, pgDisplayName } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, str } from '../parse.js';
import { commonType } from '../types.js';
import { notSupported, positionOf, SqlError } from '../errors.js';
import { type BoundQuery, type BoundWorkTable, type Leaf, type QueryField, queryFields } from '../ir.js';
import { queryUnknown } from './literals.js';

type BindQuery = (db: Database, stmt: AstNode) => Promise<BoundQuery>;

/** What a FROM item naming a CTE becomes: a leaf's name, fields and source. */
export interface CteLeaf {
  readonly name: string;
  readonly fields: readonly Field[];
  readonly source: Leaf['source'];
}

interface Scope {
  readonly parent: Scope | null;
  readonly entries: Map<string, CteLeaf>;
}

const scopes = new AsyncLocalStorage<Scope>();

/** Numbers the CTEs of every statement bound in this process (../exec/cte-scan.ts keys their rows by it). */
let nextId = 1;

/** Runs `f` where no CTE is in scope (the query of a view, ./view.ts, sees none of its user's). */
export function withoutCtes<T>(f: () => Promise<T>): Promise<T> {
  return scopes.exit(f);
}

/** The CTE an unqualified FROM name refers to (the innermost WITH that has it), or null. */
export function cteLeaf(n: AstFields): CteLeaf | null {
  if (n.schemaname !== undefined || n.catalogname !== undefined) return null;
  for (let s: Scope | null = scopes.getStore() ?? null; s !== null; s = s.parent) {
    const e = s.entries.get(n.relname as string);
    if (e !== undefined) return e;
  }
  return null;
}

/** A SELECT with a WITH clause: its CTEs bound, then the SELECT without it, in their scope. */
export async function bindWith(db: Database, s: AstFields, bindQuery: BindQuery): Promise<BoundQuery> {
  const w = s.withClause as AstFields;
  const recursive = w.recursive === true;
  const ctes = (w.ctes as AstNode[]).map(fieldsOf);
  const scope: Scope = { parent: scopes.getStore() ?? null, entries: new Map() };
  const seen = new Set<string>();
  for (const c of ctes) {
    const name = c.ctename as string;
    if (seen.has(name)) throw new SqlError('invalid_input', SQLSTATE.duplicate_alias, `WITH query name "${name}" specified more than once`, positionOf(c.location as number));
    seen.add(name);
  }
  for (const [i, c] of ctes.entries()) {
    const name = c.ctename as string;
    const body = c.ctequery as AstNode;
    if (kindOf(body) !== 'SelectStmt') throw notSupported(`data-modifying statements in WITH (${kindOf(body).replace(/Stmt$/, '').toUpperCase()})`, c.location as number);
    if (c.search_clause !== undefined) throw notSupported('SEARCH in WITH RECURSIVE', c.location as number);
    if (c.cycle_clause !== undefined) throw notSupported('CYCLE in WITH RECURSIVE', c.location as number);
    const selfRef = recursive && references(body, name) > 0;
    if (recursive) {
      const later = ctes.slice(i + 1).find((d) => references(body, d.ctename as string) > 0);
      if (later !== undefined) throw notSupported(`WITH RECURSIVE query "${name}" naming a later WITH query ("${later.ctename as string}")`, c.location as number);
    }
    const id = nextId++;
    const query = selfRef ? await bindRecursive(db, c, scope, bindQuery, id) : await scopes.run(scope, () => bindQuery(db, body));
    const fields = selfRef ? queryFields(query) : aliased(c, queryFields(query));
    const refs = references({ SelectStmt: s }, name) - references(body, name);
    const materialize = selfRef || c.ctematerialized === 'CTEMaterializeAlways' || (c.ctematerialized !== 'CTEMaterializeNever' && refs > 1);
    const source: Leaf['source'] = materialize
      ? Object.freeze({ kind: 'subquery', query: Object.freeze({ kind: 'cte-scan', cte: Object.freeze({ id, name, query, fields: Object.freeze(fields) }) }) })
      : Object.freeze({ kind: 'subquery', query });
    scope.entries.set(name, Object.freeze({ name, fields: leafFields(fields), source }));
  }
  const rest: Record<string, unknown> = { ...s };
  delete rest['withClause'];
  return scopes.run(scope, () => bindQuery(db, { SelectStmt: rest }));
}

/** A CTE's output columns under its column aliases (42P10 when there are more aliases than columns). */
function aliased(c: AstFields, fields: readonly QueryField[]): QueryField[] {
  const names = ((c.aliascolnames ?? []) as AstNode[]).map(str);
  if (names.length > fields.length)
    throw new SqlError('invalid_input', SQLSTATE.invalid_column_reference, `WITH query "${c.ctename as string}" has ${fields.length} columns available but ${names.length} columns specified`, positionOf(c.location as number));
  return fields.map((f, i) => Object.freeze({ ...f, name: names[i] ?? f.name }));
}

function leafFields(fields: readonly QueryField[]): Field[] {
  // The declared type (numeric(10,2)) keeps its typmod for the columns that read it.
  return fields.map((f, i) => ({ name: f.name, type: f.declared ?? f.type, notNull: false, fieldId: i }));
}

/**
 * WITH RECURSIVE's self-referencing CTE: the non-recursive term first (its columns are the
 * CTE's), then the recursive term with the CTE's name bound to the work table.
 */
async function bindRecursive(db: Database, c: AstFields, scope: Scope, bindQuery: BindQuery, id: number): Promise<BoundQuery> {
  const name = c.ctename as string;
  const q = fieldsOf(c.ctequery as AstNode);
  const at = positionOf(c.location as number);
  const invalid = (message: string, position = at) => new SqlError('invalid_input', SQLSTATE.invalid_recursion, message, position);
  if (q.op !== 'SETOP_UNION') throw invalid(`recursive query "${name}" does not have the form non-recursive-term UNION [ALL] recursive-term`);
  const larg = q.larg as AstFields;
  const rarg = q.rarg as AstFields;
  const leftRef = firstReference({ SelectStmt: larg }, name);
  if (leftRef !== null) throw invalid(`recursive reference to query "${name}" must not appear within its non-recursive term`, positionOf(leftRef));
  // parse_cte.c: the recursive union itself takes no ORDER BY, LIMIT, OFFSET or locking clause.
  if (q.sortClause !== undefined) throw notSupported('ORDER BY in a recursive query', c.location as number);
  if (q.limitOffset !== undefined) throw notSupported('OFFSET in a recursive query', c.location as number);
  if (q.limitCount !== undefined) throw notSupported('LIMIT in a recursive query', c.location as number);
  if (q.lockingClause !== undefined) throw notSupported('FOR UPDATE/SHARE in a recursive query', c.location as number);
  if (q.withClause !== undefined) throw notSupported('WITH on the UNION of a recursive query', c.location as number);
  checkRecursiveTerm(rarg, name, invalid);
  const left = await scopes.run(scope, () => bindQuery(db, { SelectStmt: larg }));
  const lf = queryFields(left);
  const fields = aliased(c, lf);
  const work: BoundWorkTable = Object.freeze({ kind: 'worktable', id, name, fields: Object.freeze(fields) });
  const inner: Scope = { parent: scope, entries: new Map([[name, Object.freeze({ name, fields: leafFields(fields), source: Object.freeze({ kind: 'subquery', query: work }) })]]) };
  const right = await scopes.run(inner, () => bindQuery(db, { SelectStmt: rarg }));
  if (right.kind === 'join-select' && right.grouping !== null && right.grouping.aggs.length > 0)
    throw invalid("aggregate functions are not allowed in a recursive query's recursive term");
  const rf = queryFields(right);
  if (rf.length !== lf.length) throw new SqlError('invalid_input', SQLSTATE.syntax_error, 'each UNION query must have the same number of columns', at);
  const ru = queryUnknown(right);
  lf.forEach((l, i) => {
    const r = rf[i]!;
    const overall = commonType(ru[i] ? [l.type] : [l.type, r.type]);
    if (overall === null) throw new SqlError('invalid_input', SQLSTATE.datatype_mismatch, `UNION types ${pgDisplayName(l.type)} and ${pgDisplayName(r.type)} cannot be matched`, at);
    // The union keeps a typmod (numeric(10,2), varchar(5)) only when both terms have it.
    const lName = pgDisplayName(l.declared ?? l.type);
    const rName = ru[i] ? lName : pgDisplayName(r.declared ?? r.type);
    const overallName = overall.id === l.type.id && rName === lName ? lName : pgDisplayName(overall);
    if (overallName !== lName)
      throw new SqlError('invalid_input', SQLSTATE.datatype_mismatch, `recursive query "${name}" column ${i + 1} has type ${lName} in non-recursive term but type ${overallName} overall`, at);
  });
  return Object.freeze({ kind: 'recursive-union', id, name, all: q.all === true, nonRecursive: left, recursive: right, fields: Object.freeze(fields) });
}

type Context = 'ok' | 'sublink' | 'outer join' | 'INTERSECT' | 'EXCEPT';

/** parse_cte.c's checkWellFormedRecursion over the recursive term: where its one self-reference may stand. */
function checkRecursiveTerm(rarg: AstFields, name: string, invalid: (m: string, p?: number) => SqlError): void {
  let count = 0;
  const walk = (x: unknown, ctx: Context): void => {
    if (x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) return x.forEach((v) => walk(v, ctx));
    const o = x as Record<string, unknown>;
    const rv = o['RangeVar'] as AstFields | undefined;
    if (rv !== undefined) {
      if (rv.relname !== name || rv.schemaname !== undefined) return;
      const at = positionOf(rv.location as number);
      if (ctx === 'sublink') throw invalid(`recursive reference to query "${name}" must not appear within a subquery`, at);
      if (ctx === 'outer join') throw invalid(`recursive reference to query "${name}" must not appear within an outer join`, at);
      if (ctx === 'INTERSECT' || ctx === 'EXCEPT') throw invalid(`recursive reference to query "${name}" must not appear within ${ctx}`, at);
      if (++count > 1) throw invalid(`recursive reference to query "${name}" must not appear more than once`, at);
      return;
    }
    const sl = o['SubLink'] as AstFields | undefined;
    if (sl !== undefined) {
      walk(sl.testexpr, ctx);
      walk(sl.subselect, 'sublink');
      return;
    }
    const j = o['JoinExpr'] as AstFields | undefined;
    if (j !== undefined) {
      const t = j.jointype as string;
      walk(j.larg, t === 'JOIN_RIGHT' || t === 'JOIN_FULL' ? 'outer join' : ctx);
      walk(j.rarg, t === 'JOIN_LEFT' || t === 'JOIN_FULL' ? 'outer join' : ctx);
      walk(j.quals, ctx);
      return;
    }
    const sel = (o['SelectStmt'] as AstFields | undefined) ?? (o['op'] !== undefined && o['larg'] !== undefined ? (o as AstFields) : undefined);
    if (sel !== undefined && (sel.op === 'SETOP_INTERSECT' || sel.op === 'SETOP_EXCEPT')) {
      const inter = sel.op === 'SETOP_INTERSECT';
      walk(sel.larg, sel.all === true ? (inter ? 'INTERSECT' : 'EXCEPT') : ctx);
      walk(sel.rarg, inter ? (sel.all === true ? 'INTERSECT' : ctx) : 'EXCEPT');
      return;
    }
    for (const v of Object.values(o)) walk(v, ctx);
  };
  walk(rarg, 'ok');
}

/** How many FROM items of `node` name `name` unqualified (a CTE's references, PostgreSQL's cterefcount). */
function references(node: unknown, name: string): number {
  let n = 0;
  const walk = (x: unknown): void => {
    if (x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) return x.forEach(walk);
    const o = x as Record<string, unknown>;
    const rv = o['RangeVar'] as AstFields | undefined;
    if (rv !== undefined && rv.relname === name && rv.schemaname === undefined) n++;
    for (const v of Object.values(o)) walk(v);
  };
  walk(node);
  return n;
}

/** The location of the first FROM item of `node` that names `name`, or null. */
function firstReference(node: unknown, name: string): number | null {
  let at: number | null = null;
  const walk = (x: unknown): void => {
    if (at !== null || x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) return x.forEach(walk);
    const o = x as Record<string, unknown>;
    const rv = o['RangeVar'] as AstFields | undefined;
    if (rv !== undefined && rv.relname === name && rv.schemaname === undefined) at = (rv.location as number | undefined) ?? -1;
    for (const v of Object.values(o)) walk(v);
  };
  walk(node);
  return at;
}

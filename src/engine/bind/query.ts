/**
 * Binding a query, recursively: FROM items (tables, subqueries in FROM, joins), the
 * subqueries of its expressions (bound as queries of their own, for InitPlans), correlated
 * subqueries unnested into joins (./unnest.ts), and UNION [ALL]. Nothing runs here.
 */
import type { Database } from '../../table/index.js';
import { type Field, type PaxdError, SQLSTATE, pgDisplayName, isPaxdError } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, locationOf, str } from '../parse.js';
import { commonType } from '../types.js';
import { datatypeMismatch, notSupported, positionOf, SqlError, undefinedColumn } from '../errors.js';
import { type BoundQuery, type BoundSelect, type BoundSetOp, type Leaf, queryFields } from '../ir.js';
import { recordBind } from '../counters.js';
import { openTable, checkSortable } from './catalog.js';
import { queryUnknown } from './literals.js';
import { astConjuncts, statementName, lockingName, lockingAllowed, lockedRelsExist } from './ast.js';
import { type RawFrom, JOIN_TYPES } from './scope.js';
import { Binder } from './select.js';
import { Unnester, type UnnestBinders } from './unnest.js';
import { Decorrelator, arraySubLinks } from './correlated.js';

const UNNEST_BINDERS: UnnestBinders = { rawFrom: (db, n, l) => rawFrom(db, n, l), bindQuery: (db, n) => bindQuery(db, n), isOuterReference: (e, l) => isPaxdError(e) && isOuterReference(e, l) };
import { bindWith, cteLeaf } from './cte.js';
import { bindValues, valuesAsSelect } from './values.js';
import { isViewTable, viewLeaf } from './view.js';
import { bindFunctionFrom, bindLateralSubquery } from './function-from.js';
import { selectListSrfs } from './select-srf.js';
import { prepareCatalog, systemLeaf, systemRelationOf } from '../catalog/index.js';

const addSystemLeaf = (leaves: Leaf[], alias: AstFields | undefined, l: ReturnType<typeof systemLeaf>, location: number | undefined) => addLeaf(leaves, alias, l.name, l.fields, l.source, location);

/** A single-table SELECT (INSERT … SELECT, the fast paths' tests); joins, subqueries in FROM and UNION are 0A000 here. */
export async function bindSelect(db: Database, stmt: AstNode): Promise<BoundSelect> {
  const q = await bindQuery(db, stmt);
  if (q.kind === 'union') throw notSupported('UNION here');
  if (q.kind === 'join-select') throw notSupported('joins and subqueries in FROM here');
  if (q.kind !== 'select') throw notSupported('WITH and VALUES here');
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
  const s = arraySubLinks(selectListSrfs(fieldsOf(stmt)));
  await prepareCatalog(db, s);
  if (s.withClause !== undefined) return bindWith(db, s, bindQuery);
  if (s.op !== undefined && s.op !== 'SETOP_NONE') return bindSetOp(db, s);
  if (s.valuesLists !== undefined) {
    const sorted = valuesAsSelect(s);
    return sorted === null ? bindValues(s) : bindQuery(db, { SelectStmt: sorted });
  }
  if (s.intoClause !== undefined) throw notSupported('SELECT INTO');
  // FOR UPDATE / FOR SHARE lock nothing: the statement reads the transaction's pinned snapshot
  // and a conflicting write is detected when the writer commits (docs/WIRE.md "Transactions").
  if (s.lockingClause !== undefined) lockingAllowed(s);
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
  const unnested = await new Unnester(db, leaves, UNNEST_BINDERS).run(s, raw!);
  // What unnest.ts leaves correlated becomes dependent joins (./correlated.ts).
  const dependent = await new Decorrelator(db, leaves, UNNEST_BINDERS).run(unnested?.s ?? s, unnested?.raw ?? raw!);
  if (dependent !== null && 'restart' in dependent) return bindQuery(db, dependent.restart);
  const exists = dependent ?? unnested;
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
 * UNION, INTERSECT and EXCEPT [ALL] (PostgreSQL 15 docs 7.4): each output column's type is the common type of the
 * two sides' (10.5; unknown literals take it, all-unknown is text), names come from the left.
 * ORDER BY may name output columns or positions only, as in PostgreSQL.
 */
export async function bindSetOp(db: Database, s: AstFields): Promise<BoundSetOp> {
  const opName = s.op === 'SETOP_INTERSECT' ? 'INTERSECT' : s.op === 'SETOP_EXCEPT' ? 'EXCEPT' : 'UNION';
  if (s.withClause !== undefined) throw notSupported('WITH');
  if (s.lockingClause !== undefined) throw new SqlError('unsupported', SQLSTATE.feature_not_supported, `${lockingName(s)} is not allowed with UNION/INTERSECT/EXCEPT`);
  if (s.limitOption === 'LIMIT_OPTION_WITH_TIES') throw notSupported('FETCH FIRST … WITH TIES');
  const left = await bindQuery(db, { SelectStmt: s.larg as AstFields });
  const right = await bindQuery(db, { SelectStmt: s.rarg as AstFields });
  const lf = queryFields(left);
  const rf = queryFields(right);
  if (lf.length !== rf.length) throw new SqlError('invalid_input', SQLSTATE.syntax_error, `each ${opName} query must have the same number of columns`, positionOf(locationOf((s.rarg.targetList as AstNode[] | undefined)?.[0] ?? { x: {} })));
  const lu = queryUnknown(left);
  const ru = queryUnknown(right);
  const fields = lf.map((f, i) => {
    const typed = [...(lu[i] ? [] : [f.type]), ...(ru[i] ? [] : [rf[i]!.type])];
    const type = commonType(typed, typed.length < 2);
    if (type === null || (type.id === 'timestamptz' && typed.some((t) => t.id !== 'timestamptz'))) {
      if (type !== null) throw notSupported(`${opName} mixing timestamptz with other types`);
      const rt = (s.rarg.targetList as AstNode[] | undefined)?.[i];
      throw datatypeMismatch(`${opName} types ${pgDisplayName(f.type)} and ${pgDisplayName(rf[i]!.type)} cannot be matched`, rt === undefined ? undefined : locationOf(fieldsOf(rt).val));
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
    ...(opName === 'UNION' ? {} : { setOp: opName === 'INTERSECT' ? ('intersect' as const) : ('except' as const) }),
  });
}

/**
 * Finds the subqueries in the expressions of a SELECT (not those of its FROM subqueries or
 * UNION sides, which bind on their own; not those nested in another subquery) and binds each
 * as a query of its own: they are uncorrelated, so each has one result per execution
 * (PostgreSQL's InitPlans, ./ir.ts `InitPlan`), which the executor computes. A subquery that
 * names an outer column is correlated; those ./unnest.ts did not turn into joins are 0A000.
 */
export async function bindSubLinks(db: Database, s: AstFields, leaves: readonly Leaf[]): Promise<Map<AstFields, BoundQuery> | null> {
  const found: AstFields[] = [];
  const visit = (x: unknown, key: string): void => {
    if (x === null || typeof x !== 'object' || key === 'subquery' || key === 'larg' || key === 'rarg') return;
    if (Array.isArray(x)) {
      for (const v of x) visit(v, '');
      return;
    }
    const o = x as Record<string, unknown>;
    // A constant holds no subquery (a 100,000-element IN list is 100,000 of them).
    if (o['A_Const'] !== undefined) return;
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
export function whereConjunctLinks(s: AstFields): ReadonlySet<AstFields> {
  if (s.whereClause === undefined) return new Set();
  return new Set(astConjuncts(s.whereClause as AstNode).flatMap((c) => (kindOf(c) === 'SubLink' ? [fieldsOf(c)] : [])));
}

/** True when a name error inside a subquery names a column or table of the outer query. */
export function isOuterReference(e: PaxdError, leaves: readonly Leaf[]): boolean {
  if (e.code !== SQLSTATE.undefined_column && e.code !== SQLSTATE.undefined_table) return false;
  const m = /^column "?([^".]+)"? does not exist$|^column ([^ .]+)\.([^ ]+) does not exist$|^missing FROM-clause entry for table "([^"]+)"$/.exec(e.message);
  if (m === null) return false;
  if (m[1] !== undefined) return leaves.some((l) => l.fields.some((f) => f.name === m[1]));
  if (m[2] !== undefined) return leaves.some((l) => l.alias === m[2]);
  return leaves.some((l) => l.alias === m[4]);
}

export async function rawFrom(db: Database, node: AstNode, leaves: Leaf[]): Promise<RawFrom> {
  const n = fieldsOf(node);
  switch (kindOf(node)) {
    case 'RangeVar': {
      const sys = systemRelationOf(n);
      if (sys !== null) return addSystemLeaf(leaves, n.alias, systemLeaf(sys), n.location);
      if (n.catalogname !== undefined || (n.schemaname !== undefined && n.schemaname !== 'public')) throw notSupported('qualified names with schema or database', n.location);
      const cte = cteLeaf(n);
      if (cte !== null) return addLeaf(leaves, n.alias, cte.name, cte.fields, cte.source, n.location);
      const table = await openTable(db, n.relname as string, n.location as number);
      if (isViewTable(table)) return viewLeaf(db, table, n, leaves, bindQuery, addLeaf);
      return addLeaf(leaves, n.alias, table.name, table.fields, { kind: 'table', table }, n.location);
    }
    case 'RangeSubselect': {
      if (n.lateral === true) return bindLateralSubquery(db, n, leaves, bindQuery, addLeaf);
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
    case 'RangeFunction':
      return bindFunctionFrom(n, leaves, addLeaf, await bindSubLinks(db, n, leaves));
    default:
      throw notSupported(`${kindOf(node).replace(/^Range/, '')} in FROM`, n.location);
  }
}

/** A leaf under its alias (column aliases rename its first columns); 42712 when the name is taken. */
export function addLeaf(leaves: Leaf[], alias: AstFields | undefined, name: string, fields: readonly Field[], source: Leaf['source'], location: number | undefined): RawFrom {
  const ref = (alias?.aliasname as string | undefined) ?? name;
  const colnames = ((alias?.colnames ?? []) as AstNode[]).map(str);
  if (colnames.length > fields.length)
    throw new SqlError('invalid_input', SQLSTATE.invalid_column_reference, `table "${ref}" has ${fields.length} columns available but ${colnames.length} columns specified`, positionOf(location));
  if (leaves.some((l) => l.alias === ref)) throw new SqlError('invalid_input', SQLSTATE.duplicate_alias, `table name "${ref}" specified more than once`, positionOf(location));
  leaves.push(Object.freeze({ alias: ref, fields: fields.map((f, i) => (i < colnames.length ? { ...f, name: colnames[i]! } : f)), source }));
  return { kind: 'leaf', leaf: leaves.length - 1 };
}

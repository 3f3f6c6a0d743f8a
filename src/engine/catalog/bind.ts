/**
 * Binding names of pg_catalog and information_schema: a FROM item that names a system relation
 * becomes a leaf over its rows (a VALUES list generated from the statement's catalog snapshot),
 * and a statement that names a system relation or calls a catalog function loads that snapshot
 * first (once per statement, before its SELECTs bind: prepareCatalog).
 *
 * Name resolution is PostgreSQL's with search_path `pg_catalog, public` (PostgreSQL 15 docs
 * 5.9.5): `pg_class` is pg_catalog's even when a table of that name exists; information_schema
 * is reached only qualified; a WITH query of the name hides pg_catalog's.
 */
import type { Database } from '../../table/index.js';
import type { Field } from '../../types/index.js';
import { type AstFields, str, walkAst } from '../parse.js';
import { E } from '../expr.js';
import type { BoundQuery, Leaf } from '../ir.js';
import { notSupported, undefinedTable } from '../errors.js';
import { cteLeaf } from '../bind/cte.js';
import { isRegclass, openRegclasses } from '../bind/catalog.js';
import { SYSTEM_RELATIONS } from './pg-catalog.js';
import './information-schema.js';
import { CATALOG_FUNCTIONS } from './functions.js';
import { currentCatalog, loadCatalog, setCurrentCatalog } from './snapshot.js';
import { currentContext } from '../context.js';
import { rowValues, type SystemRelation } from './relation.js';

/** The schemas paxd has. */
export const SCHEMAS = ['pg_catalog', 'public', 'information_schema'] as const;

/** The system relation a RangeVar names, or null (a table, a WITH query, or 0A000 for another schema). */
export function systemRelationOf(n: AstFields): SystemRelation | null {
  if (n.catalogname !== undefined && n.catalogname !== 'paxd') throw notSupported(`cross-database references ("${n.catalogname}")`, n.location);
  const schema = n.schemaname as string | undefined;
  const name = n.relname as string;
  if (schema === undefined) {
    if (cteLeaf(n) !== null) return null;
    return SYSTEM_RELATIONS.get(`pg_catalog.${name}`) ?? null;
  }
  if (schema === 'public') return null;
  if (schema !== 'pg_catalog' && schema !== 'information_schema') throw notSupported(`schema "${schema}" (paxd has ${SCHEMAS.join(', ')})`, n.location);
  const r = SYSTEM_RELATIONS.get(`${schema}.${name}`);
  if (r === undefined) throw undefinedTable(`${schema}.${name}`, n.location as number);
  return r;
}

/** A leaf's parts for a system relation: its fields and a VALUES query over its rows now. */
export function systemLeaf(r: SystemRelation): { name: string; fields: Field[]; source: Leaf['source'] } {
  const c = currentCatalog();
  if (c === null) throw new Error(`internal error: ${r.name} bound without the statement catalog`);
  const rows = r.rows(c).map((row) => Object.freeze(rowValues(r.columns, row).map((v, i) => E.const(v, r.columns[i]!.type))));
  const query: BoundQuery = Object.freeze({ kind: 'values', rows: Object.freeze(rows), fields: Object.freeze(r.columns.map((col) => Object.freeze({ name: col.name, type: col.type }))) });
  const fields = r.columns.map((col, i) => Object.freeze({ name: col.name, type: col.type, notNull: false, fieldId: i }));
  return { name: r.name, fields, source: Object.freeze({ kind: 'subquery', query }) };
}

/**
 * The parse-tree objects already prepared, by statement context: a statement's subqueries bind
 * after it in its context, and so do the SELECTs the binder derives from it (WITH's main query,
 * a SELECT with its set-returning functions or correlated subqueries rewritten), which share
 * their parts with the tree that was walked. A parse tree may be cached and bound again in
 * another statement: that one walks it again.
 */
const prepared = new WeakMap<object, WeakSet<object>>();

let walkHook: ((o: object) => void) | null = null;

/** A test hook: `hook` is called with every parse-tree object prepareCatalog's walks visit (null: none). */
export function onPrepareWalk(hook: ((o: object) => void) | null): void {
  walkHook = hook;
}

/**
 * What `s` (a SelectStmt's fields) needs before it binds, found in one walk of its tree: the
 * statement's catalog snapshot, loaded when it names a system relation, calls a catalog function
 * or casts to a reg* type; and the tables its `'t'::regclass` literals name, opened
 * (../bind/catalog.ts). Each object of the tree is visited once per statement context, however
 * deeply its SELECTs nest.
 */
export async function prepareCatalog(db: Database, s: AstFields): Promise<void> {
  const ctx = currentContext();
  let seen = ctx === null ? undefined : prepared.get(ctx);
  if (seen === undefined) {
    seen = new WeakSet<object>();
    if (ctx !== null) prepared.set(ctx, seen);
  }
  const done = seen;
  let catalog = false;
  const regclasses: AstFields[] = [];
  walkAst(s, (o) => {
    if (done.has(o)) return false;
    done.add(o);
    if (walkHook !== null) walkHook(o);
    const rv = o['RangeVar'] as AstFields | undefined;
    if (rv !== undefined) {
      const schema = rv.schemaname as string | undefined;
      if (schema === 'pg_catalog' || schema === 'information_schema' || (schema === undefined && SYSTEM_RELATIONS.has(`pg_catalog.${rv.relname as string}`))) catalog = true;
    }
    const fc = o['FuncCall'] as AstFields | undefined;
    if (fc !== undefined) {
      const names = (fc.funcname as unknown[]).map((f) => str(f as never));
      if (Object.hasOwn(CATALOG_FUNCTIONS, names[names.length - 1]!)) catalog = true;
    }
    const tc = o['TypeCast'] as AstFields | undefined;
    if (tc !== undefined) {
      const typeName = tc.typeName as AstFields;
      if (/^reg/.test(str((typeName.names as never[]).at(-1)!))) catalog = true;
      if (isRegclass(typeName)) regclasses.push(tc);
    }
    return true;
  });
  if (catalog) setCurrentCatalog(await loadCatalog(db));
  await openRegclasses(db, regclasses);
}

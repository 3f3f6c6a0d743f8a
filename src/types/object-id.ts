/**
 * The object identifier family as the binder and the layers that store columns see it
 * (PostgreSQL 15 docs 8.19): which type names a cast may give (`'t'::regclass`, `x::"char"`),
 * which of them are reg* aliases of oid, and which types a table column may have.
 *
 *   objectIdTypeNamed(['regclass'])   // { id: 'regclass' }
 *   objectIdTypeNamed(['char'])       // { id: 'char' }: the quoted "char" (char alone is bpchar)
 *   isRegType({ id: 'regtype' })      // true
 *   isStorable({ id: 'oid' })         // false: expressions and catalog columns only
 */
import type { PgType, TypeId } from './type.js';

export type RegTypeId = 'regclass' | 'regtype' | 'regproc' | 'regprocedure' | 'regnamespace' | 'regrole' | 'regoper';

const REG_TYPES: ReadonlySet<TypeId> = new Set<TypeId>(['regclass', 'regtype', 'regproc', 'regprocedure', 'regnamespace', 'regrole', 'regoper']);

const NAMED: ReadonlySet<string> = new Set(['oid', 'xid', 'name', 'int2vector', 'oidvector', ...REG_TYPES]);

/** The reg* alias types of oid, whose output is an object's name. */
export function isRegType(t: PgType): t is PgType & { readonly id: RegTypeId } {
  return REG_TYPES.has(t.id);
}

/** oid, xid and the reg* types: unsigned 32-bit values. */
export function isOidType(t: PgType): boolean {
  return t.id === 'oid' || t.id === 'xid' || REG_TYPES.has(t.id);
}

/**
 * The object identifier type a type name's parts name (pg_catalog. dropped by the caller), or
 * null: `["char"]` as libpg-query gives the quoted "char" (the keyword char is pg_catalog.bpchar).
 */
export function objectIdTypeNamed(names: readonly string[]): PgType | null {
  if (names.length !== 1) return null;
  const n = names[0]!;
  if (n === 'char') return { id: 'char' };
  return NAMED.has(n) ? { id: n as TypeId } : null;
}

/** The object identifier family's type ids: types of expressions and catalog columns only. */
export type ObjectIdTypeId = 'oid' | 'xid' | RegTypeId | 'name' | 'char' | 'int2vector' | 'oidvector';

/**
 * Whether `id` is of the object identifier family. A layer that stores columns checks it before
 * its switch over type ids (`if (isObjectIdTypeId(t.id)) return objectIdNotStorable(…)`), so
 * the switch is exhaustive over the storable ids without listing the family again.
 */
export function isObjectIdTypeId(id: TypeId): id is ObjectIdTypeId {
  return id === 'oid' || id === 'xid' || REG_TYPES.has(id) || id === 'name' || id === 'char' || id === 'int2vector' || id === 'oidvector';
}

/** Whether a table column may have the type: the object identifier family is computed only. */
export function isStorable(t: PgType): boolean {
  return !isObjectIdTypeId(t.id) && t.id !== 'interval' && t.id !== 'array';
}

export function objectIdNotStorable(where: string): never {
  throw new Error(`${where}: the object identifier types are computed in expressions and catalogs; no column stores one`);
}

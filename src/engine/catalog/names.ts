/**
 * Catalog names in expressions: COLLATE clauses, and regclass literals that name a system
 * relation.
 *
 * paxd compares and sorts text byte-wise (DESIGN.md "Semantics"): the collations "C", "POSIX"
 * and "default" (the database's, which is C: pg_database.datcollate) all mean that, so
 * `x COLLATE "C"` is `x`, as psql's `relname OPERATOR(pg_catalog.~) '^(t)$' COLLATE
 * pg_catalog.default` needs. Any other collation is 0A000; COLLATE on a type that has none is
 * PostgreSQL's 42804.
 *
 *   'pg_catalog.pg_class'::regclass   → 1259 (an oid, int8 here as every catalog oid column)
 */
import { type PgType, SQLSTATE } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, str } from '../parse.js';
import { E, type Expr, type LibraryFn } from '../expr.js';
import { categoryOf } from '../types.js';
import { notSupported, positionOf, SqlError } from '../errors.js';
import { SYSTEM_RELATIONS } from './pg-catalog.js';
import { tableOid } from './snapshot.js';

const BYTEWISE = new Set(['default', 'C', 'POSIX', 'ucs_basic']);

/** `arg COLLATE name`, with `arg` bound by the caller. */
export function bindCollate(n: AstFields, arg: Expr): Expr {
  const names = (n.collname as AstNode[]).map(str);
  const name = names[names.length - 1]!;
  if (names.length > 2 || (names.length === 2 && names[0] !== 'pg_catalog') || !BYTEWISE.has(name)) throw notSupported(`collation "${names.join('.')}" (paxd compares text byte-wise, as collation "C")`, n.location as number);
  if (categoryOf(arg.type) !== 'string' && !isUnknown(arg.type)) throw new SqlError('invalid_input', SQLSTATE.datatype_mismatch, `collations are not supported by type ${arg.type.id}`, positionOf(n.location as number));
  return arg;
}

const isUnknown = (t: PgType) => t.id === 'text';

/** The system relation a regclass literal's text names (`pg_class`, `pg_catalog.pg_class`, `information_schema.tables`), or null. */
export function systemRegclassOid(text: string): number | null {
  const parts = text.trim().split('.').map((p) => (p.startsWith('"') ? p.slice(1, -1) : p.toLowerCase()));
  const key = parts.length === 1 ? `pg_catalog.${parts[0]}` : parts.length === 2 ? `${parts[0]}.${parts[1]}` : null;
  if (key === null) return null;
  return SYSTEM_RELATIONS.get(key)?.oid ?? null;
}

/** A `'…'::regclass` cast of a string literal naming a system relation, as its oid; null for anything else. */
export function systemRegclass(tc: AstFields): Expr | null {
  const arg = tc.arg as AstNode;
  if (kindOf(arg) !== 'A_Const' || fieldsOf(arg).sval === undefined) return null;
  const oid = systemRegclassOid((fieldsOf(arg).sval.sval as string | undefined) ?? '');
  return oid === null ? null : E.const(BigInt(oid), Object.freeze({ id: 'int8' }) as PgType);
}

/** The object identifier types a cast may name, and the output function each prints with (../catalog/functions.ts). */
const REG_OUTPUT: Readonly<Record<string, string>> = { regclass: 'regclassout', regtype: 'regtypeout', regnamespace: 'regnamespaceout', regproc: 'regprocout', regrole: 'regroleout' };

/**
 * `x::regclass` (regtype, regnamespace, regproc, regrole) of an oid expression: the object's
 * name, as the type's output prints it (PostgreSQL 15 docs 8.19). paxd has no reg* types: the
 * value is that text, which is what clients read (`c.oid::regclass::text`). A string literal
 * cast to regclass is resolved before binding (../bind/catalog.ts); null here for it.
 */
export function bindRegCast(tc: AstFields, arg: () => Expr, cast: (e: Expr, t: PgType) => Expr): Expr | null {
  const names = ((tc.typeName as AstFields).names as AstNode[]).map(str);
  const name = names[names.length - 1]!;
  const plain = names.length === 1 || (names.length === 2 && names[0] === 'pg_catalog');
  // `'x'::regnamespace::text`: the reg* value printed, which is its name (paxd's reg* values are oids).
  if ((name === 'text' || name === 'varchar') && plain && kindOf(tc.arg as AstNode) === 'TypeCast') {
    const inner = fieldsOf(tc.arg as AstNode);
    const innerNames = ((inner.typeName as AstFields).names as AstNode[]).map(str);
    const innerOut = REG_OUTPUT[innerNames[innerNames.length - 1]!];
    if (innerOut !== undefined && (tc.typeName as AstFields).arrayBounds === undefined) {
      const e = arg();
      if (e.type.id === 'int8') return E.func(`${innerOut}(int8)` as LibraryFn, [e], TEXT);
      return cast(e, TEXT);
    }
  }
  // oid is int8 here, as every catalog oid column (./relation.ts).
  if (name === 'oid' && plain && (tc.typeName as AstFields).arrayBounds === undefined) return cast(arg(), INT8);
  const out = REG_OUTPUT[name];
  if (out === undefined || (names.length === 2 && names[0] !== 'pg_catalog') || names.length > 2 || (tc.typeName as AstFields).arrayBounds !== undefined) return null;
  // A string literal cast to regclass names a table, resolved before binding (../bind/catalog.ts).
  if (name === 'regclass' && kindOf(tc.arg as AstNode) === 'A_Const' && fieldsOf(tc.arg as AstNode).sval !== undefined) return null;
  const e = arg();
  // Text in: the object's oid, by name (its input function); an oid in: its name (the output function).
  if (categoryOf(e.type) === 'string') return E.func(`${out.replace(/out$/, 'in')}(text)` as LibraryFn, [e.type.id === 'text' ? e : cast(e, TEXT)], INT8);
  const oid = cast(e, INT8);
  if (oid.type.id !== 'int8') throw notSupported(`casts of ${oid.type.id} to ${name}`, tc.location as number);
  return E.func(`${out}(int8)` as LibraryFn, [oid], TEXT);
}

/**
 * An output column that is a name cast to a reg* type (`SELECT 't'::regclass`): PostgreSQL
 * prints the name, but paxd has no reg* types and the value here is the oid (`e` is int8), so
 * the column would print a number. 0A000 rather than that answer (at bind for a resolved
 * regclass literal, else when the value is computed, after the input function's own errors); `::text` and `::oid` of it
 * answer as PostgreSQL's do. An oid cast to a reg* type is its name already (text).
 */
export function checkRegOutput(val: AstNode, e: Expr): Expr {
  if (kindOf(val) !== 'TypeCast' || e.type.id !== 'int8') return e;
  const tc = fieldsOf(val);
  const names = ((tc.typeName as AstFields).names as AstNode[]).map(str);
  const name = names[names.length - 1]!;
  if (REG_OUTPUT[name] === undefined || (tc.typeName as AstFields).arrayBounds !== undefined) return e;
  // A regclass literal was resolved before binding (a missing table is 42P01 already).
  if (e.kind === 'const') throw notSupported(`a ${name} value as an output column (cast it to text or oid)`, tc.location as number);
  return E.func('paxd_reg_output(int8)' as LibraryFn, [e], INT8);
}

/** `'t'::regclass` of a paxd table: its oid (./snapshot.ts tableOid). */
export function regclassOid(name: string, incarnation: number): Expr {
  return E.const(BigInt(tableOid(name, incarnation)), INT8);
}

const TEXT = Object.freeze({ id: 'text' }) as PgType;
const INT8 = Object.freeze({ id: 'int8' }) as PgType;

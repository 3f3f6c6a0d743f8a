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
 *   'pg_catalog.pg_class'::regclass   → 1259, a regclass constant, which prints as pg_class (./reg-io.ts)
 */
import { type PgType, type RegTypeId, SQLSTATE, isRegType } from '../../types/index.js';
import type { QueryResult } from '../result.js';
import { regOut } from './reg-io.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, str } from '../parse.js';
import { E, type Expr } from '../expr.js';
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
  return oid === null ? null : E.const(BigInt(oid), REGCLASS);
}

/**
 * A result's reg* columns as their output functions print them (`SELECT 't'::regclass` shows
 * `t`): the values are oids until here, so that they compare, join and cast as oids; the names
 * need the statement's catalog, which only the engine has, so they are computed as the result
 * leaves it (the wire's RowDescription still says regclass).
 */
export function nameRegOutputs(r: QueryResult): QueryResult {
  const regs = r.fields.flatMap((f, i) => (isRegType(f.type) ? [[i, f.type.id as RegTypeId] as const] : []));
  if (regs.length === 0) return r;
  const rows = r.rows.map((row) => {
    const out = row.slice();
    for (const [i, id] of regs) if (out[i] !== null) out[i] = regOut(id, out[i]!);
    return out;
  });
  return { ...r, rows };
}

/** `'t'::regclass` of a paxd table: its oid (./snapshot.ts tableOid). */
export function regclassOid(name: string, incarnation: number): Expr {
  return E.const(BigInt(tableOid(name, incarnation)), REGCLASS);
}

const REGCLASS = Object.freeze({ id: 'regclass' }) as PgType;

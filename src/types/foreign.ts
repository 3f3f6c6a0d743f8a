/**
 * paxd column types as PostgreSQL declares them in a foreign table: the names
 * `format_type()` prints (DESIGN.md "Type mapping"), and the collation of string columns.
 *
 *   foreignType({ id: 'int4' })                                  // 'integer'
 *   foreignType({ id: 'numeric', precision: 12, scale: 2 })      // 'numeric(12,2)'
 *   foreignType({ id: 'varchar', length: 20 })                   // 'character varying(20)'
 *   foreignCollation({ id: 'text' })                             // 'C'
 *
 * paxd compares strings byte-wise (collation "C"). Declaring string columns COLLATE "C"
 * makes PostgreSQL's own comparisons and sorts of the foreign table mean the same, and
 * postgres_fdw still ships them: a collation that comes from a foreign column is "safe"
 * (foreign_expr_walker in PostgreSQL 15's contrib/postgres_fdw/deparse.c); only an explicit COLLATE
 * in a query is not.
 */
import { pgDisplayName, type Field, type PgType } from './type.js';
import { unreachable } from './errors.js';

/** PostgreSQL's name of a column type, as format_type(atttypid, atttypmod) prints it. */
export function foreignType(t: PgType): string {
  return pgDisplayName(t);
}

/** The collation a foreign column of this type gets: "C" for strings, none for the rest. */
export function foreignCollation(t: PgType): 'C' | null {
  switch (t.id) {
    case 'text':
    case 'varchar':
    case 'bpchar':
      return 'C';
    case 'name':
      return 'C';
    case 'int2':
    case 'int4':
    case 'int8':
    case 'float4':
    case 'float8':
    case 'bool':
    case 'bytea':
    case 'date':
    case 'timestamp':
    case 'timestamptz':
    case 'numeric':
    case 'uuid':
    case 'jsonb':
    case 'json':
    case 'oid':
    case 'xid':
    case 'regclass':
    case 'regtype':
    case 'regproc':
    case 'regprocedure':
    case 'regnamespace':
    case 'regrole':
    case 'regoper':
    case 'char':
    case 'int2vector':
    case 'oidvector':
    case 'interval':
    case 'array':
      return null;
    default:
      return unreachable(t.id);
  }
}

/** One column of a foreign table, as the mirror declares it and as it reads it back. */
export interface ForeignColumn {
  readonly name: string;
  /** format_type() spelling: `integer`, `numeric(12,2)`, `timestamp with time zone`. */
  readonly type: string;
  readonly notNull: boolean;
  /** Collation name, or null for the type's default (none for non-string types). */
  readonly collation: string | null;
}

/** A foreign table: its name (the same in paxd and in PostgreSQL) and columns in paxd's order. */
export interface ForeignTableSpec {
  readonly name: string;
  readonly columns: readonly ForeignColumn[];
}

export function foreignColumn(f: Field): ForeignColumn {
  return { name: f.name, type: foreignType(f.type), notNull: f.notNull, collation: foreignCollation(f.type) };
}

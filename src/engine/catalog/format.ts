/**
 * How the catalog describes a paxd column type: its pg_type OID and typmod, format_type()'s
 * text, typlen/typbyval/typalign/typstorage, and a column default as pg_get_expr() prints it.
 *
 *   formatType(1043, 14)        → 'character varying(10)'
 *   defaultExpr('x', text)      → "'x'::text"          defaultExpr('0', int4) → '0'
 */
import { type Field, type PgType, TYPE_SIZE, foreignType, typeOid, typmodOf } from '../../types/index.js';
import { builtinType } from './pg-type.js';

export interface ColumnTypeInfo {
  readonly oid: number;
  readonly typmod: number;
  readonly len: number;
  readonly byval: boolean;
  readonly align: string;
  readonly storage: string;
}

export function columnTypeInfo(t: PgType): ColumnTypeInfo {
  const oid = typeOid(t);
  const b = builtinType(oid);
  const len = TYPE_SIZE[t.id];
  return { oid, typmod: typmodOf(t), len, byval: b?.byval ?? (len > 0 && len <= 8), align: b?.align ?? 'i', storage: b?.storage ?? 'x' };
}

/** format_type(oid, typmod) (PostgreSQL 15 docs 9.26, table 9.69); NULL oid is NULL. */
export function formatType(oid: number, typmod: number | null): string | null {
  const b = builtinType(oid);
  if (b === undefined) return '???';
  const mod = typmod ?? -1;
  const element = b.category === 'A' && b.elem !== 0 ? builtinType(b.elem) : undefined;
  if (element !== undefined && b.name.startsWith('_')) {
    const inner = formatType(element.oid, mod);
    return `${inner}[]`;
  }
  switch (b.name) {
    case 'varchar':
      return mod >= 4 ? `character varying(${mod - 4})` : 'character varying';
    case 'bpchar':
      // Without a typmod argument bpchar is `character`; with typmod -1 it keeps its own name (format_type.c).
      return mod >= 4 ? `character(${mod - 4})` : typmod === null ? 'character' : 'bpchar';
    case 'numeric':
      return mod >= 4 ? `numeric(${((mod - 4) >> 16) & 0xffff},${(mod - 4) & 0xffff})` : 'numeric';
    case 'timestamp':
      return mod >= 0 ? `timestamp(${mod}) without time zone` : 'timestamp without time zone';
    case 'timestamptz':
      return mod >= 0 ? `timestamp(${mod}) with time zone` : 'timestamp with time zone';
    case 'time':
      return mod >= 0 ? `time(${mod}) without time zone` : 'time without time zone';
    case 'timetz':
      return mod >= 0 ? `time(${mod}) with time zone` : 'time with time zone';
    case 'bit':
      return mod >= 0 ? `bit(${mod})` : 'bit';
    case 'varbit':
      return mod >= 0 ? `bit varying(${mod})` : 'bit varying';
    case 'interval':
      return 'interval';
    case 'char':
      return '"char"';
    default:
      return SQL_NAMES[b.name] ?? quoteIdent(b.name);
  }
}

/** The types format_type prints by their SQL-standard names. */
const SQL_NAMES: Readonly<Record<string, string>> = {
  bool: 'boolean',
  int2: 'smallint',
  int4: 'integer',
  int8: 'bigint',
  float4: 'real',
  float8: 'double precision',
};

function quoteIdent(s: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(s) ? s : `"${s.replace(/"/g, '""')}"`;
}

/** A column's default as pg_get_expr(adbin, adrelid) prints it: numbers and booleans bare, the rest a cast literal. */
export function defaultExpr(f: Field): string | null {
  if (f.default === undefined) return null;
  const d = f.default;
  const id = f.type.id;
  if ((id === 'int2' || id === 'int4' || id === 'int8' || id === 'numeric' || id === 'float4' || id === 'float8') && /^\d+(\.\d+)?$/.test(d)) return d;
  if (id === 'bool') return d === 't' || d === 'true' ? 'true' : 'false';
  // The cast names the type without its typmod, as PostgreSQL deparses a coerced constant.
  const plain = f.type.id === 'varchar' || f.type.id === 'bpchar' || f.type.id === 'numeric' ? ({ id: f.type.id } as PgType) : f.type;
  return `'${d.replace(/'/g, "''")}'::${foreignType(plain)}`;
}

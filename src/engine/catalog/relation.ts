/**
 * A system relation: its columns (PostgreSQL 15's, ./columns-data.ts) in the types paxd computes
 * in, and its rows from a catalog snapshot (./snapshot.ts). Rows are objects by column name;
 * a column a generator leaves out takes its type's neutral value (0, false, '' for "char",
 * NULL for the rest), which is what PostgreSQL stores for the features paxd lacks.
 *
 * The columns have PostgreSQL's types (PostgreSQL 15 docs 8.19 "Object Identifier Types", 8.3
 * for "char" and name): oid, xid, regproc, name, "char", int2vector and oidvector are paxd's own
 * (src/types/text/oid.ts); information_schema's domains are their base types, as RowDescription
 * names them (sql_identifier is name, character_data and yes_or_no varchar). A regproc column's
 * rows give function names ('int4in', '-' for none), kept as oids that print them (./reg-io.ts).
 * Stand-ins remain for types paxd lacks: aclitem[] is text[], pg_node_tree text.
 */
import { type PgType, type Value, arrayOf, formatArrayText, internalError, isOidType, parseName, parseTypeName } from '../../types/index.js';
import { regprocOf } from './object-names.js';
import { T } from '../types.js';
import { SYSTEM_COLUMNS } from './columns-data.js';
import type { CatalogSnapshot } from './snapshot.js';

export interface SystemColumn {
  readonly name: string;
  /** PostgreSQL's type, as format_type() prints it. */
  readonly pgType: string;
  readonly type: PgType;
}

export type SystemRow = Readonly<Record<string, Value | readonly (string | null)[]>>;

export interface SystemRelation {
  readonly schema: 'pg_catalog' | 'information_schema';
  readonly name: string;
  readonly oid: number;
  readonly columns: readonly SystemColumn[];
  rows(c: CatalogSnapshot): readonly SystemRow[];
}

const INT8 = parseTypeName('int8');
const VARCHAR: PgType = Object.freeze({ id: 'varchar' });

function engineTypeOf(pg: string): PgType {
  if (pg.endsWith('[]')) return arrayOf(engineTypeOf(pg.slice(0, -2)));
  switch (pg) {
    case 'oid':
    case 'xid':
    case 'regproc':
    case 'name':
    case 'int2vector':
    case 'oidvector':
      return { id: pg };
    case '"char"':
      return T.char;
    case 'information_schema.sql_identifier':
      return T.name;
    case 'information_schema.character_data':
    case 'information_schema.yes_or_no':
      return VARCHAR;
    case 'text':
    case 'pg_node_tree':
    case 'aclitem':
    case 'anyarray':
    case 'inet':
      return T.text;
    case 'information_schema.cardinal_number':
    case 'integer':
      return parseTypeName('int4');
    case 'smallint':
      return parseTypeName('int2');
    case 'bigint':
      return INT8;
    case 'real':
      return parseTypeName('float4');
    case 'boolean':
      return T.bool;
    case 'bytea':
      return T.bytea;
    case 'timestamp with time zone':
    case 'information_schema.time_stamp':
      return T.timestamptz;
    default:
      throw internalError(`internal error: system column type ${pg} has no mapping`);
  }
}

export function columnsOf(relation: string): SystemColumn[] {
  const spec = SYSTEM_COLUMNS[relation];
  if (spec === undefined) throw internalError(`internal error: no columns for system relation ${relation}`);
  return spec.split(',').map((c) => {
    const i = c.indexOf(':');
    const pgType = c.slice(i + 1);
    return { name: c.slice(0, i), pgType, type: engineTypeOf(pgType) };
  });
}

/** The neutral value of a column a generator leaves out. */
function neutral(c: SystemColumn): Value {
  switch (c.pgType) {
    case 'oid':
    case 'xid':
    case 'regproc':
    case 'bigint':
      return 0n;
    case 'integer':
    case 'smallint':
    case 'real':
      return 0;
    case 'boolean':
      return false;
    case '"char"':
      return '';
    default:
      return null;
  }
}

/** A row's value in the engine's representation: int8 and oid as bigint, a regproc's name as its oid, arrays as their text. */
function engineValue(c: SystemColumn, v: Value | readonly (string | null)[] | undefined): Value {
  if (v === undefined) return neutral(c);
  if (v === null) return null;
  if (Array.isArray(v)) return formatArrayText(v as (string | null)[]);
  if (c.type.id === 'regproc' && typeof v === 'string') return regprocOf(v);
  if ((c.type.id === 'int8' || isOidType(c.type)) && typeof v === 'number') return BigInt(v);
  if (c.type.id === 'name' && typeof v === 'string') return parseName(v);
  if ((c.type.id === 'int4' || c.type.id === 'int2') && typeof v === 'bigint') return Number(v);
  return v as Value;
}

export function rowValues(columns: readonly SystemColumn[], row: SystemRow): Value[] {
  return columns.map((c) => engineValue(c, row[c.name]));
}

/** A relation of `schema` whose columns are those of ./columns-data.ts under `key`. */
export function systemRelation(schema: SystemRelation['schema'], name: string, oid: number, rows: (c: CatalogSnapshot) => readonly SystemRow[], key = name): SystemRelation {
  return Object.freeze({ schema, name, oid, columns: Object.freeze(columnsOf(key)), rows });
}

/**
 * The PostgreSQL types paxd stores, with their typmods, and how each lays out in memory.
 * DESIGN.md "Type mapping" is the source of truth for the Arrow side.
 *
 *   PostgreSQL          Arrow                      in-memory values (Column.values)
 *   int2                int16                      Int16Array
 *   int4                int32                      Int32Array
 *   int8                int64                      BigInt64Array
 *   float4              float32                    Float32Array
 *   float8              float64                    Float64Array
 *   bool                bool                       Uint8Array, bit-packed LSB first
 *   text/varchar/bpchar utf8                       offsets Int32Array + data Uint8Array
 *   bytea               binary                     offsets Int32Array + data Uint8Array
 *   date                date32 (days since 1970)   Int32Array
 *   timestamp           timestamp[us]              BigInt64Array (µs since 1970-01-01 00:00)
 *   timestamptz         timestamp[us, UTC]         BigInt64Array (µs since 1970-01-01 00:00 UTC)
 *   numeric(p,s) p<=38  decimal128(p,s)            Uint8Array, 16 bytes per value, LE two's complement
 *   numeric             utf8 (exact text)          offsets Int32Array + data Uint8Array
 *   uuid                fixed_size_binary(16)      Uint8Array, 16 bytes per value
 *   jsonb               utf8 (normalized text)     offsets Int32Array + data Uint8Array
 *   json                utf8 (text as written)     offsets Int32Array + data Uint8Array
 *   oid xid reg*       —                          BigInt64Array (unsigned 32-bit values; expressions and catalogs)
 *   name "char" int2vector oidvector  —            offsets Int32Array + data Uint8Array (their text)
 *   T[] (expressions)   —                          offsets Int32Array + data Uint8Array (array_out text, ./array.ts)
 */
import { unreachable } from './errors.js';

export type TypeId =
  | 'int2'
  | 'int4'
  | 'int8'
  | 'float4'
  | 'float8'
  | 'bool'
  | 'text'
  | 'varchar'
  | 'bpchar'
  | 'bytea'
  | 'date'
  | 'timestamp'
  | 'timestamptz'
  | 'numeric'
  | 'uuid'
  | 'jsonb'
  | 'json'
  /** The object identifier types (PostgreSQL 15 docs 8.19): unsigned 32-bit, in expressions and catalog columns (./text/oid.ts). */
  | 'oid'
  | 'xid'
  | 'regclass'
  | 'regtype'
  | 'regproc'
  | 'regprocedure'
  | 'regnamespace'
  | 'regrole'
  | 'regoper'
  /** Identifiers: text of at most 63 bytes, compared byte-wise (collation C). */
  | 'name'
  /** "char": one byte, its output text ('' for the zero byte, \ooo past 127). */
  | 'char'
  /** int2vector and oidvector: their text ('1 2'), the catalog's argument and key lists. */
  | 'int2vector'
  | 'oidvector'
  /** Computed in SQL expressions only (./interval.ts); no column has it, so TYPE_IDS omits it. */
  | 'interval'
  /** One-dimensional arrays of `element`, computed in expressions only (./array.ts); TYPE_IDS omits it. */
  | 'array';

export const TYPE_IDS: readonly TypeId[] = [
  'int2', 'int4', 'int8', 'float4', 'float8', 'bool', 'text', 'varchar', 'bpchar', 'bytea',
  'date', 'timestamp', 'timestamptz', 'numeric', 'uuid', 'jsonb', 'json',
];

/**
 * A column type. `length` is the typmod of varchar(n)/bpchar(n) in characters;
 * `precision`/`scale` the typmod of numeric(p,s). A numeric without a precision is
 * "unconstrained" and is stored as exact text.
 */
export interface PgType {
  readonly id: TypeId;
  readonly length?: number;
  readonly precision?: number;
  readonly scale?: number;
  /** The element type of an array (`id: 'array'`). */
  readonly element?: PgType;
}

/** How values of a type are laid out in memory and on disk. */
export type Physical =
  | 'i16'
  | 'i32'
  | 'i64'
  | 'f32'
  | 'f64'
  | 'bit' // bit-packed booleans
  | 'var' // int32 offsets + bytes
  | 'fixed16'; // 16 bytes per value (decimal128, uuid)

/** numeric(p,s) with p <= 38 is stored as decimal128; unconstrained numeric as text. */
export function isDecimal128(t: PgType): boolean {
  return t.id === 'numeric' && t.precision !== undefined;
}

/** Bytes per value for fixed-width physical types (bits for 'bit' are 1/8: returns 0). */
export function byteWidth(p: Physical): number {
  switch (p) {
    case 'i16':
      return 2;
    case 'i32':
    case 'f32':
      return 4;
    case 'i64':
    case 'f64':
      return 8;
    case 'fixed16':
      return 16;
    case 'bit':
    case 'var':
      return 0;
    default:
      return unreachable(p);
  }
}

/** The name PostgreSQL uses in messages ("integer", "bigint", "character varying(10)"). */
export function pgDisplayName(t: PgType): string {
  switch (t.id) {
    case 'int2':
      return 'smallint';
    case 'int4':
      return 'integer';
    case 'int8':
      return 'bigint';
    case 'float4':
      return 'real';
    case 'float8':
      return 'double precision';
    case 'bool':
      return 'boolean';
    case 'text':
      return 'text';
    case 'varchar':
      return t.length !== undefined ? `character varying(${t.length})` : 'character varying';
    case 'bpchar':
      return t.length !== undefined ? `character(${t.length})` : 'bpchar';
    case 'bytea':
      return 'bytea';
    case 'date':
      return 'date';
    case 'timestamp':
      return 'timestamp without time zone';
    case 'timestamptz':
      return 'timestamp with time zone';
    case 'numeric':
      return t.precision !== undefined ? `numeric(${t.precision},${t.scale ?? 0})` : 'numeric';
    case 'uuid':
      return 'uuid';
    case 'jsonb':
      return 'jsonb';
    case 'json':
      return 'json';
    case 'interval':
      return 'interval';
    case 'oid':
    case 'xid':
    case 'regclass':
    case 'regtype':
    case 'regproc':
    case 'regprocedure':
    case 'regnamespace':
    case 'regrole':
    case 'regoper':
    case 'name':
    case 'int2vector':
    case 'oidvector':
      return t.id;
    case 'char':
      return '"char"';
    case 'array':
      return `${pgDisplayName(t.element!)}[]`;
    default:
      return unreachable(t.id);
  }
}

/** Canonical short spelling, the one paxd stores and prints: int4, varchar(10), numeric(12,2). */
export function typeName(t: PgType): string {
  switch (t.id) {
    case 'varchar':
    case 'bpchar':
      return t.length !== undefined ? `${t.id}(${t.length})` : t.id;
    case 'numeric':
      return t.precision !== undefined ? `numeric(${t.precision},${t.scale ?? 0})` : 'numeric';
    case 'array':
      return `${typeName(t.element!)}[]`;
    case 'char':
      return '"char"';
    default:
      return t.id;
  }
}

/** A column of a table schema. `fieldId` is stable across ADD COLUMN. */
export interface Field {
  readonly name: string;
  readonly type: PgType;
  readonly notNull: boolean;
  readonly fieldId: number;
  /** Default value in PostgreSQL text form, or undefined for NULL. */
  readonly default?: string;
}

export interface Schema {
  readonly fields: readonly Field[];
}

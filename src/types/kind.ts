/**
 * How a hot loop sees a type: one small integer per in-memory representation of a PostgreSQL
 * type (./type.ts has the layouts), so that a loop over a batch branches on a number and every
 * layer derives its own per-type decision from the same closed set. Exhaustive `switch`es over
 * `Kind` (with `unreachable` in the default) make a new type a compile error wherever it lacks
 * a case, rather than a silent fallback.
 *
 *   kindOf({ id: 'numeric', precision: 10, scale: 2 })  // Kind.Decimal128
 *   PHYSICAL[Kind.Decimal128]                           // 'fixed16'
 *   byteWidth(PHYSICAL[Kind.Date])                      // 4
 */
import { unreachable } from './errors.js';
import type { PgType, Physical } from './type.js';

export const Kind = {
  Int2: 0,
  Int4: 1,
  Int8: 2,
  Float4: 3,
  Float8: 4,
  Bool: 5,
  Date: 6,
  Timestamp: 7,
  Timestamptz: 8,
  /** numeric(p,s): decimal128, the unscaled integer. */
  Decimal128: 9,
  /** Unconstrained numeric: its exact text. */
  NumericText: 10,
  Text: 11,
  Varchar: 12,
  Bpchar: 13,
  Bytea: 14,
  Uuid: 15,
  /** jsonb: its normalized text. */
  Jsonb: 16,
  /** Computed in expressions only (./interval.ts): months, days, microseconds. */
  Interval: 17,
  /** Computed in expressions only (./array.ts): the array_out text. */
  Array: 18,
  /** json: its text as written (validated on input). */
  Json: 19,
  /** oid, xid and the reg* types: unsigned 32-bit values as bigints (./text/oid.ts). */
  Oid: 20,
  /** name: text of at most 63 bytes. */
  Name: 21,
  /** "char": its output text. */
  Char: 22,
  /** int2vector, oidvector: their text. */
  Vector: 23,
} as const;
export type Kind = (typeof Kind)[keyof typeof Kind];

/** The memory layout of each kind (the one table; ./type.ts byteWidth gives bytes per value). */
export const PHYSICAL: Readonly<Record<Kind, Physical>> = Object.freeze({
  [Kind.Int2]: 'i16',
  [Kind.Int4]: 'i32',
  [Kind.Int8]: 'i64',
  [Kind.Float4]: 'f32',
  [Kind.Float8]: 'f64',
  [Kind.Bool]: 'bit',
  [Kind.Date]: 'i32',
  [Kind.Timestamp]: 'i64',
  [Kind.Timestamptz]: 'i64',
  [Kind.Decimal128]: 'fixed16',
  [Kind.NumericText]: 'var',
  [Kind.Text]: 'var',
  [Kind.Varchar]: 'var',
  [Kind.Bpchar]: 'var',
  [Kind.Bytea]: 'var',
  [Kind.Uuid]: 'fixed16',
  [Kind.Jsonb]: 'var',
  [Kind.Interval]: 'fixed16',
  [Kind.Array]: 'var',
  [Kind.Json]: 'var',
  [Kind.Oid]: 'i64',
  [Kind.Name]: 'var',
  [Kind.Char]: 'var',
  [Kind.Vector]: 'var',
});

export function kindOf(t: PgType): Kind {
  switch (t.id) {
    case 'int2':
      return Kind.Int2;
    case 'int4':
      return Kind.Int4;
    case 'int8':
      return Kind.Int8;
    case 'float4':
      return Kind.Float4;
    case 'float8':
      return Kind.Float8;
    case 'bool':
      return Kind.Bool;
    case 'date':
      return Kind.Date;
    case 'timestamp':
      return Kind.Timestamp;
    case 'timestamptz':
      return Kind.Timestamptz;
    case 'numeric':
      return t.precision !== undefined ? Kind.Decimal128 : Kind.NumericText;
    case 'text':
      return Kind.Text;
    case 'varchar':
      return Kind.Varchar;
    case 'bpchar':
      return Kind.Bpchar;
    case 'bytea':
      return Kind.Bytea;
    case 'uuid':
      return Kind.Uuid;
    case 'jsonb':
      return Kind.Jsonb;
    case 'json':
      return Kind.Json;
    case 'interval':
      return Kind.Interval;
    case 'array':
      return Kind.Array;
    case 'oid':
    case 'xid':
    case 'regclass':
    case 'regtype':
    case 'regproc':
    case 'regprocedure':
    case 'regnamespace':
    case 'regrole':
    case 'regoper':
      return Kind.Oid;
    case 'name':
      return Kind.Name;
    case 'char':
      return Kind.Char;
    case 'int2vector':
    case 'oidvector':
      return Kind.Vector;
    default:
      return unreachable(t.id);
  }
}

/** The layout of a type's values: the PHYSICAL of its kind. */
export function physicalOf(t: PgType): Physical {
  return PHYSICAL[kindOf(t)];
}

/**
 * PostgreSQL's type OIDs and typmods for paxd's types, as RowDescription and
 * ParameterDescription carry them (src/include/catalog/pg_type.dat; typmods as
 * varchar/numeric's typmodin compute them: VARHDRSZ (4) plus the declared size).
 *
 *   typeOid({ id: 'varchar', length: 10 })                  // 1043
 *   typmodOf({ id: 'varchar', length: 10 })                 // 14
 *   typmodOf({ id: 'numeric', precision: 12, scale: 2 })    // (12 << 16 | 2) + 4 = 786438
 *   typeOid(arrayOf({ id: 'int4' }))                        // 1007 (_int4)
 */
import { arrayOf } from './array.js';
import type { PgType, TypeId } from './type.js';

type ScalarId = Exclude<TypeId, 'array'>;

export const TYPE_OID: Readonly<Record<ScalarId, number>> = {
  int2: 21,
  int4: 23,
  int8: 20,
  float4: 700,
  float8: 701,
  bool: 16,
  text: 25,
  varchar: 1043,
  bpchar: 1042,
  bytea: 17,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
  numeric: 1700,
  uuid: 2950,
  jsonb: 3802,
  json: 114,
  interval: 1186,
  oid: 26,
  xid: 28,
  regclass: 2205,
  regtype: 2206,
  regproc: 24,
  regprocedure: 2202,
  regnamespace: 4089,
  regrole: 4096,
  regoper: 2203,
  name: 19,
  char: 18,
  int2vector: 22,
  oidvector: 30,
};

/** The OID of each element type's array type (pg_type.dat's `_int4` and so on: typarray). */
export const ARRAY_OID: Readonly<Record<ScalarId, number>> = {
  int2: 1005,
  int4: 1007,
  int8: 1016,
  float4: 1021,
  float8: 1022,
  bool: 1000,
  text: 1009,
  varchar: 1015,
  bpchar: 1014,
  bytea: 1001,
  date: 1182,
  timestamp: 1115,
  timestamptz: 1185,
  numeric: 1231,
  uuid: 2951,
  jsonb: 3807,
  json: 199,
  interval: 1187,
  oid: 1028,
  xid: 1011,
  regclass: 2210,
  regtype: 2211,
  regproc: 1008,
  regprocedure: 2207,
  regnamespace: 4090,
  regrole: 4097,
  regoper: 2208,
  name: 1003,
  char: 1002,
  int2vector: 1006,
  oidvector: 1013,
};

/** typlen of each type: bytes for fixed-width types, -1 for varlena. */
export const TYPE_SIZE: Readonly<Record<TypeId, number>> = {
  int2: 2,
  int4: 4,
  int8: 8,
  float4: 4,
  float8: 8,
  bool: 1,
  text: -1,
  varchar: -1,
  bpchar: -1,
  bytea: -1,
  date: 4,
  timestamp: 8,
  timestamptz: 8,
  numeric: -1,
  uuid: 16,
  jsonb: -1,
  json: -1,
  interval: 16,
  oid: 4,
  xid: 4,
  regclass: 4,
  regtype: 4,
  regproc: 4,
  regprocedure: 4,
  regnamespace: 4,
  regrole: 4,
  regoper: 4,
  name: 64,
  char: 1,
  int2vector: -1,
  oidvector: -1,
  array: -1,
};

/** PostgreSQL's VARHDRSZ, added to declared lengths in typmods. */
const VARHDRSZ = 4;

export function typeOid(t: PgType): number {
  if (t.id !== 'array') return TYPE_OID[t.id];
  const e = t.element!;
  if (e.id === 'array') throw new Error('typeOid: paxd has no arrays of arrays');
  return ARRAY_OID[e.id];
}

/** The typmod, -1 when the type has none (or it is unconstrained). */
export function typmodOf(t: PgType): number {
  switch (t.id) {
    case 'varchar':
    case 'bpchar':
      return t.length !== undefined ? t.length + VARHDRSZ : -1;
    case 'numeric':
      return t.precision !== undefined ? ((t.precision << 16) | (t.scale ?? 0)) + VARHDRSZ : -1;
    default:
      return -1;
  }
}

const BY_OID: ReadonlyMap<number, TypeId> = new Map(Object.entries(TYPE_OID).map(([id, oid]) => [oid, id as TypeId]));

const BY_ARRAY_OID: ReadonlyMap<number, TypeId> = new Map(Object.entries(ARRAY_OID).map(([id, oid]) => [oid, id as TypeId]));

/**
 * The type a Parse message names by OID (an array OID: the array of its element type, as
 * psycopg binds a list); null for 0 (infer) or an OID paxd has no type for.
 */
export function typeOfOid(oid: number): PgType | null {
  const id = BY_OID.get(oid);
  if (id !== undefined) return { id } as PgType;
  const element = BY_ARRAY_OID.get(oid);
  return element === undefined ? null : arrayOf({ id: element } as PgType);
}

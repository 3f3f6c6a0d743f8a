/**
 * PostgreSQL's type rules for the subset the engine supports (PostgreSQL 15 docs, chapter 10
 * "Type Conversion"): which implicit casts exist, the common type of two operands, and the
 * result types of operators and aggregates.
 *
 *   arithType(int4, int8)      // int8     (int48pl)
 *   arithType(int4, numeric)   // numeric  (int4 casts implicitly to numeric)
 *   arithType(float4, int4)    // float8   (no float4-int4 operator; float8 is preferred)
 *
 * Numeric categories rank int2 < int4 < int8 < numeric < float4 < float8; a mixed operation
 * casts both sides to the higher one, except that float4 mixed with anything but float4 is
 * float8. Text types (text, varchar, bpchar) compare as text unless both are bpchar.
 */
import { type PgType, type TypeId, isDecimal128, unreachable } from '../types/index.js';

export type Category = 'numeric' | 'string' | 'bool' | 'datetime' | 'timespan' | 'array' | 'oid' | 'other';

const NUMERIC_RANK: Partial<Record<TypeId, number>> = { int2: 1, int4: 2, int8: 3, numeric: 4, float4: 5, float8: 6 };

export const T = Object.freeze({
  int2: Object.freeze({ id: 'int2' }) as PgType,
  int4: Object.freeze({ id: 'int4' }) as PgType,
  int8: Object.freeze({ id: 'int8' }) as PgType,
  float4: Object.freeze({ id: 'float4' }) as PgType,
  float8: Object.freeze({ id: 'float8' }) as PgType,
  numeric: Object.freeze({ id: 'numeric' }) as PgType,
  text: Object.freeze({ id: 'text' }) as PgType,
  bool: Object.freeze({ id: 'bool' }) as PgType,
  date: Object.freeze({ id: 'date' }) as PgType,
  timestamp: Object.freeze({ id: 'timestamp' }) as PgType,
  timestamptz: Object.freeze({ id: 'timestamptz' }) as PgType,
  bpchar: Object.freeze({ id: 'bpchar' }) as PgType,
  bytea: Object.freeze({ id: 'bytea' }) as PgType,
  interval: Object.freeze({ id: 'interval' }) as PgType,
  oid: Object.freeze({ id: 'oid' }) as PgType,
  xid: Object.freeze({ id: 'xid' }) as PgType,
  name: Object.freeze({ id: 'name' }) as PgType,
  char: Object.freeze({ id: 'char' }) as PgType,
  regclass: Object.freeze({ id: 'regclass' }) as PgType,
  regtype: Object.freeze({ id: 'regtype' }) as PgType,
});

/** The type the engine computes in: numeric(p,s) is decimal128 on disk but exact text here. */
export function engineType(t: PgType): PgType {
  return isDecimal128(t) ? T.numeric : t;
}

export function categoryOf(t: PgType): Category {
  switch (t.id) {
    case 'int2':
    case 'int4':
    case 'int8':
    case 'float4':
    case 'float8':
    case 'numeric':
      return 'numeric';
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'name':
    case 'char':
      return 'string';
    case 'oid':
    case 'xid':
    case 'regclass':
    case 'regtype':
    case 'regproc':
    case 'regprocedure':
    case 'regnamespace':
    case 'regrole':
    case 'regoper':
      return 'oid';
    case 'int2vector':
    case 'oidvector':
      return 'other';
    case 'bool':
      return 'bool';
    case 'date':
    case 'timestamp':
    case 'timestamptz':
      return 'datetime';
    case 'interval':
      return 'timespan';
    case 'array':
      return 'array';
    case 'bytea':
    case 'uuid':
    case 'jsonb':
    case 'json':
      return 'other';
    default:
      return unreachable(t.id);
  }
}

/** The type two oid-family operands (or oid and an integer) compare in: xid stays xid, the rest oid. */
function oidCommon(a: PgType, b: PgType): PgType | null {
  if (a.id === 'xid' || b.id === 'xid') return a.id === b.id || isInteger(a) || isInteger(b) ? T.xid : null;
  return a.id === b.id ? a : T.oid;
}

export function isInteger(t: PgType): boolean {
  return t.id === 'int2' || t.id === 'int4' || t.id === 'int8';
}

export function isFloat(t: PgType): boolean {
  return t.id === 'float4' || t.id === 'float8';
}

/** The common type of two numeric operands (arithmetic and comparison), as above. */
export function numericCommon(a: PgType, b: PgType): PgType {
  if (a.id === b.id) return engineType(a);
  if (isFloat(a) || isFloat(b)) return T.float8;
  return NUMERIC_RANK[a.id]! >= NUMERIC_RANK[b.id]! ? engineType(a) : engineType(b);
}

/**
 * The common type of two operands compared with each other, or null when PostgreSQL has no
 * such operator (then 42883). date vs timestamp compares as timestamp.
 */
export function comparisonType(a: PgType, b: PgType): PgType | null {
  const ca = categoryOf(a);
  const cb = categoryOf(b);
  // oid against an integer: the integer casts implicitly to oid (oideq); two reg* types compare as oids.
  if ((ca === 'oid' && (cb === 'oid' || isInteger(b))) || (cb === 'oid' && isInteger(a))) return oidCommon(a, b);
  if (ca !== cb) return null;
  switch (ca) {
    case 'numeric':
      return numericCommon(a, b);
    case 'string':
      // Two "char"s compare as bytes (chareq, charlt); bpchar pairs as bpchar; the rest as text.
      return (a.id === 'bpchar' && b.id === 'bpchar') || (a.id === 'char' && b.id === 'char') ? a : T.text;
    case 'bool':
      return T.bool;
    case 'datetime':
      // Mixed with timestamptz, date and timestamp convert in the session time zone (UTC).
      if (a.id === b.id) return a;
      if (a.id === 'timestamptz' || b.id === 'timestamptz') return T.timestamptz;
      return T.timestamp;
    case 'timespan':
      return T.interval;
    case 'array':
      // array = array of one element type (array_eq); paxd casts no element type to another.
      return a.element!.id === b.element!.id ? a : null;
    case 'oid':
      return oidCommon(a, b);
    case 'other':
      return a.id === b.id ? a : null;
    default:
      return unreachable(ca);
  }
}

/**
 * The common type of CASE branches, COALESCE arguments and the like (select_common_type,
 * PostgreSQL 15 docs 10.5): all one type → that type; otherwise one category, and the type
 * every other casts to implicitly (the highest numeric rank; text among strings; timestamp
 * for date with timestamp). Null when the categories differ (then 42804). `types` holds the
 * typed inputs only; with none, the result is text. Strings cast implicitly to one another
 * both ways, so the first one's type wins (text, varchar or bpchar).
 *
 * The length (varchar(3)) stays only when every input has it, as select_common_typmod keeps a
 * typmod: `untyped` says some input was an unknown literal (whose typmod is -1), so that
 * `SELECT 'x'::varchar(3) UNION SELECT 'yyyy'` is varchar, not varchar(3).
 */
export function commonType(types: readonly PgType[], untyped = false): PgType | null {
  if (types.length === 0) return T.text;
  const first = engineType(types[0]!);
  if (types.every((t) => t.id === first.id && (t.length ?? -1) === (first.length ?? -1) && t.element?.id === first.element?.id)) return untyped && first.length !== undefined ? { id: first.id } : first;
  const cat = categoryOf(first);
  if (types.some((t) => categoryOf(t) !== cat)) return null;
  switch (cat) {
    case 'numeric':
      return types.map(engineType).reduce((a, b) => (NUMERIC_RANK[b.id]! > NUMERIC_RANK[a.id]! ? b : a));
    case 'string':
      return { id: first.id };
    case 'datetime':
      return types.some((t) => t.id === 'timestamptz') ? { id: 'timestamptz' } : T.timestamp;
    case 'bool':
      return T.bool;
    case 'timespan':
      return T.interval;
    case 'array':
      return null; // arrays of different element types (the same were returned above)
    case 'oid':
      return oidCommon(types[0]!, types[1]!);
    case 'other':
      return types.every((t) => t.id === first.id) ? first : null;
    default:
      return unreachable(cat);
  }
}

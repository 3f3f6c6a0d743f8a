/**
 * Statistics as stored in footers and snapshots (ColumnStatsJson), exact in both directions.
 *
 * Value encoding (min, max) per type:
 *   int2, int4, date          JSON number (int32 range, exact)
 *   int8, timestamp[tz]       decimal string of the int64: "-9223372036854775808"
 *   numeric(p,s)              decimal string of the unscaled decimal128 value: "-12345" (scale s)
 *   float4, float8            JSON number (shortest round-trip form); the strings "NaN",
 *                             "Infinity", "-Infinity" and "-0" for values JSON cannot hold
 *   bool                      JSON boolean
 *   text, varchar, bpchar     JSON string (bpchar without trailing spaces)
 *   numeric (unconstrained)   JSON string, the exact numeric text: "-1.50", "Infinity"
 *   bytea, uuid               lowercase hex string: "00ff10"
 *   jsonb                     no min/max
 *
 * sum: integer types and numeric(p,s) as a decimal string ("12", unscaled for numeric(p,s));
 * floats like float values; unconstrained numeric as exact text ("NaN" when any input was NaN).
 * `nans` is written for float4/float8/numeric only; minExact/maxExact only when false; absent
 * min/max means "none" (or, with the exactness flag false, "unbounded").
 */
import { type Value, type PgType, isDecimal128, Kind, kindOf, intervalNotStorable, arrayNotStorable, objectIdNotStorable, unreachable } from '../types/index.js';
import type { ColumnStatsJson, StatJson } from '../storage/index.js';
import type { ColumnStats } from './types.js';

/** How a statistic of each kind is written in JSON (a number, a string of digits, base64, …). */
type Encoding = 'int' | 'bigint' | 'float' | 'bool' | 'string' | 'bytes' | 'none';

function encodingOf(t: PgType): Encoding {
  const k = kindOf(t);
  switch (k) {
    case Kind.Int2:
    case Kind.Int4:
    case Kind.Date:
      return 'int';
    case Kind.Int8:
    case Kind.Timestamp:
    case Kind.Timestamptz:
    case Kind.Decimal128:
      return 'bigint';
    case Kind.Float4:
    case Kind.Float8:
      return 'float';
    case Kind.Bool:
      return 'bool';
    case Kind.Text:
    case Kind.Varchar:
    case Kind.Bpchar:
    case Kind.NumericText:
      return 'string';
    case Kind.Bytea:
    case Kind.Uuid:
      return 'bytes';
    case Kind.Jsonb:
    case Kind.Json:
      return 'none';
    case Kind.Interval:
      return intervalNotStorable('stats json');
    case Kind.Oid:
    case Kind.Name:
    case Kind.Char:
    case Kind.Vector:
      return objectIdNotStorable('stats json');
    case Kind.Array:
      return arrayNotStorable('stats json');
    default:
      return unreachable(k);
  }
}

function hasNans(t: PgType): boolean {
  return t.id === 'float4' || t.id === 'float8' || (t.id === 'numeric' && !isDecimal128(t));
}

export function statsToJson(type: PgType, s: ColumnStats): ColumnStatsJson {
  const k = encodingOf(type);
  const j: ColumnStatsJson = { rows: s.rows, nulls: s.nulls };
  if (hasNans(type)) j.nans = s.nans;
  if (s.min !== null) j.min = valueToJson(k, s.min);
  if (!s.minExact) j.minExact = false;
  if (s.max !== null) j.max = valueToJson(k, s.max);
  if (!s.maxExact) j.maxExact = false;
  if (s.sum !== null) j.sum = typeof s.sum === 'bigint' ? s.sum.toString() : typeof s.sum === 'number' ? floatToJson(s.sum) : s.sum;
  return j;
}

export function statsFromJson(type: PgType, j: ColumnStatsJson): ColumnStats {
  const k = encodingOf(type);
  let sum: ColumnStats['sum'] = null;
  if (j.sum !== undefined) {
    if (k === 'float') sum = floatFromJson(j.sum);
    else if (type.id === 'numeric' && !isDecimal128(type)) sum = String(j.sum);
    else sum = BigInt(j.sum as string);
  }
  return {
    rows: j.rows,
    nulls: j.nulls,
    nans: j.nans ?? 0,
    min: j.min === undefined ? null : valueFromJson(k, j.min),
    max: j.max === undefined ? null : valueFromJson(k, j.max),
    minExact: j.minExact !== false,
    maxExact: j.maxExact !== false,
    sum,
  };
}

function valueToJson(k: Encoding, v: Value): StatJson {
  switch (k) {
    case 'int':
    case 'bool':
    case 'string':
      return v as number | boolean | string;
    case 'bigint':
      return (v as bigint).toString();
    case 'float':
      return floatToJson(v as number);
    case 'bytes':
      return Buffer.from((v as Uint8Array).buffer, (v as Uint8Array).byteOffset, (v as Uint8Array).byteLength).toString('hex');
    case 'none':
      throw new Error('stats json: a value for a type without order');
  }
}

function valueFromJson(k: Encoding, j: StatJson): Value {
  switch (k) {
    case 'int':
    case 'bool':
    case 'string':
      return j;
    case 'bigint':
      return BigInt(j as string);
    case 'float':
      return floatFromJson(j);
    case 'bytes':
      return new Uint8Array(Buffer.from(j as string, 'hex'));
    case 'none':
      throw new Error('stats json: a value for a type without order');
  }
}

function floatToJson(x: number): StatJson {
  if (x !== x) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (Object.is(x, -0)) return '-0';
  return x;
}

function floatFromJson(j: StatJson): number {
  if (typeof j === 'number') return j;
  switch (j) {
    case 'NaN':
      return NaN;
    case 'Infinity':
      return Infinity;
    case '-Infinity':
      return -Infinity;
    case '-0':
      return -0;
    default:
      return Number(j);
  }
}

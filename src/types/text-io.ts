/**
 * PostgreSQL 15's text input and output for every type paxd stores, with PostgreSQL's error
 * messages and SQLSTATEs. The session settings this matches are DateStyle 'ISO, MDY',
 * TimeZone 'UTC', extra_float_digits 1 (shortest round-trip floats), a UTF8 database.
 *
 *   parseText({ id: 'numeric', precision: 10, scale: 2 }, ' 1.005 ')  // 101n  (1.01 unscaled)
 *   formatText({ id: 'float8' }, 1e21)                                 // '1e+21'
 *   parseText({ id: 'int4' }, '12x')  // throws 22P02 invalid input syntax for type integer: "12x"
 *
 * parseText is called once per CSV field, so the integer, float, numeric and date/time paths
 * scan the string by hand (no regex, no allocation on the happy path where avoidable).
 *
 * The dispatch is here, exhaustive over the type set; the bodies live with their family:
 *
 *   text/integers.ts   int2 int4 int8          text/floats.ts     float4 float8 (Ryu's output)
 *   text/bool.ts       bool                    text/character.ts  text varchar bpchar
 *   text/bytea.ts      bytea                   text/uuid.ts       uuid
 *   text/jsonb.ts      json jsonb              numeric.ts         numeric, numeric(p,s)
 *   datetime.ts        date timestamp[tz]      interval.ts        interval
 *   text/oid.ts        oid xid reg* name "char" int2vector oidvector
 *   array.ts           T[] (element by element, with the element type's input and output)
 *
 * Sources cited there are files of the PostgreSQL 15 tree: utils/adt/numutils.c (integers),
 * float.c, bool.c, numeric.c, varchar.c, varlena.c + encode.c (bytea), uuid.c, date.c,
 * timestamp.c, datetime.c, common/jsonapi.c + utils/adt/jsonb.c, common/d2s.c + f2s.c.
 */
import type { Value } from './column.js';
import { assert, unreachable, unsupported } from './errors.js';
import type { PgType } from './type.js';
import { type TimeZone, UTC } from './timezone.js';
import { formatInterval, parseIntervalValue } from './interval.js';
import { formatDecimal, parseDecimal, parseNumeric } from './numeric.js';
import { formatDate, formatTimestamp, parseDate, parseTimestamp } from './datetime.js';
import { parseInt8, parseSmallInt } from './text/integers.js';
import { formatInteger } from './text/out.js';
import { formatFloat4, formatFloat8, parseFloat4, parseFloat8 } from './text/floats.js';
import { formatBool, parseBool } from './text/bool.js';
import { checkText, parseBpchar, parseVarchar } from './text/character.js';
import { formatBytea, parseBytea } from './text/bytea.js';
import { formatUuid, parseUuid } from './text/uuid.js';
import { parseJson, parseJsonb } from './text/jsonb.js';
import { formatArrayText, parseArrayText } from './array.js';
import { formatOid, parseChar, parseName, parseOid, parseVector, parseXid } from './text/oid.js';

export { formatFloat4, formatFloat8 } from './text/floats.js';
export { formatDecimal, parseDecimal, parseNumeric } from './numeric.js';
export { date2j, j2date, formatDate, formatTimestamp, UNIX_EPOCH_JD } from './datetime.js';

/** Parses PostgreSQL text input for `type` into paxd's scalar representation (timestamptz without a zone: local time in `zone`). */
export function parseText(type: PgType, text: string, zone: TimeZone = UTC): Value {
  switch (type.id) {
    case 'int2':
      return parseSmallInt(text, 'smallint', -32768, 32767);
    case 'int4':
      return parseSmallInt(text, 'integer', -2147483648, 2147483647);
    case 'int8':
      return parseInt8(text);
    case 'float4':
      return parseFloat4(text);
    case 'float8':
      return parseFloat8(text);
    case 'bool':
      return parseBool(text);
    case 'text':
      return checkText(text);
    case 'varchar':
      return parseVarchar(type.length, text);
    case 'bpchar':
      return parseBpchar(type.length, text);
    case 'bytea':
      return parseBytea(text);
    case 'date':
      return parseDate(text);
    case 'timestamp':
      return parseTimestamp(text, false);
    case 'timestamptz':
      return parseTimestamp(text, true, zone);
    case 'numeric':
      return type.precision === undefined ? parseNumeric(text) : parseDecimal(text, type.precision, type.scale ?? 0);
    case 'uuid':
      return parseUuid(text);
    case 'jsonb':
      return parseJsonb(text);
    case 'json':
      return parseJson(text);
    case 'interval':
      return parseIntervalValue(text);
    case 'oid':
      return parseOid(text);
    case 'xid':
      return parseXid(text);
    case 'regclass':
    case 'regtype':
    case 'regproc':
    case 'regprocedure':
    case 'regnamespace':
    case 'regrole':
    case 'regoper':
      return parseRegDigits(type.id, text);
    case 'name':
      return parseName(text);
    case 'char':
      return parseChar(text);
    case 'int2vector':
      return parseVector('int2', text);
    case 'oidvector':
      return parseVector('oid', text);
    case 'array':
      return parseArray(type.element!, text, zone);
    default:
      return unreachable(type.id);
  }
}

/** Formats a (non-NULL) value of `type` as PostgreSQL's output function prints it. */
export function formatText(type: PgType, v: Value, zone: TimeZone = UTC): string {
  assert(v !== null, 'formatText called with NULL');
  switch (type.id) {
    case 'int2':
    case 'int4':
    case 'int8':
      return formatInteger(v as number | bigint);
    case 'float4':
      return formatFloat4(v as number);
    case 'float8':
      return formatFloat8(v as number);
    case 'bool':
      return formatBool(v as boolean);
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'jsonb':
    case 'json':
      return v as string;
    case 'bytea':
      return formatBytea(v as Uint8Array);
    case 'date':
      return formatDate(v as number);
    case 'timestamp':
      return formatTimestamp(v as bigint, false);
    case 'timestamptz':
      return formatTimestamp(v as bigint, true, zone);
    case 'numeric':
      return type.precision === undefined ? (v as string) : formatDecimal(v as bigint, type.scale ?? 0);
    case 'uuid':
      return formatUuid(v as Uint8Array);
    case 'interval':
      return formatInterval(v as Uint8Array);
    case 'array':
    case 'name':
    case 'char':
    case 'int2vector':
    case 'oidvector':
      return v as string;
    case 'oid':
    case 'xid':
      return formatOid(v as bigint);
    case 'regclass':
    case 'regtype':
    case 'regproc':
    case 'regprocedure':
    case 'regnamespace':
    case 'regrole':
    case 'regoper':
      // A reg* value is its oid; the engine prints names (src/engine/catalog/names.ts) and hands
      // a result column of them over as their text.
      return typeof v === 'string' ? v : formatOid(v as bigint);
    default:
      return unreachable(type.id);
  }
}

/**
 * A reg* type's input without the catalog: digits only (regclassin's numeric path, oidin's
 * rules). A name needs the catalog, which the engine resolves before this (src/engine/catalog/names.ts).
 */
function parseRegDigits(id: string, text: string): bigint {
  const t = text.trim();
  if (/^\d+$/.test(t)) return parseOid(t);
  throw unsupported(`${id} input by name outside a statement (the catalog resolves it)`);
}

/**
 * array_in: the canonical array_out text of an array literal, each element read by the element
 * type's input function (errors and all) and printed by its output function:
 * parseArray({ id: 'int4' }, '{ 1, 02,NULL}') is '{1,2,NULL}'. timestamptz elements are read
 * and printed in the session's zone, as the value prints.
 */
function parseArray(element: PgType, text: string, zone: TimeZone): string {
  return formatArrayText(parseArrayText(text).map((e) => (e === null ? null : formatText(element, parseText(element, e, zone), zone))));
}

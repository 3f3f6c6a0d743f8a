/**
 * Casts from json and jsonb to other types (PostgreSQL 15 pg_cast: json → jsonb, jsonb → json,
 * and jsonb_numeric/jsonb_int4/jsonb_bool/…, which take a top-level scalar of their own kind).
 * Casts to and from text go through the types' text I/O; these are the rest.
 *
 *   castJson(jsonb, int4, '12.5')   // '12.5' (the numeric, which the caller rounds to 13)
 *   castJson(jsonb, bool, '"t"')    // 22023 cannot cast jsonb string to type boolean
 */
import { PaxdError, SQLSTATE } from './errors.js';
import { type PgType, pgDisplayName } from './type.js';
import type { Value } from './column.js';
import { jsonTypeName } from './json-value.js';
import { parseJsonValue, parseJsonb } from './text/jsonb.js';

/** The value of `v` (json or jsonb) as `to`: jsonb text, json text, a numeric's text or a boolean. */
export function castJson(from: PgType, to: PgType, v: Value): Value {
  if (to.id === 'jsonb') return from.id === 'jsonb' ? v : parseJsonb(v as string);
  if (to.id === 'json') return v;
  const x = parseJsonValue(v as string);
  if (to.id === 'bool' && x.t === 'bool') return x.v;
  if (to.id !== 'bool' && x.t === 'number') return x.v;
  throw new PaxdError('invalid_input', SQLSTATE.invalid_parameter_value, `cannot cast jsonb ${jsonTypeName(x)} to type ${pgDisplayName(to)}`);
}

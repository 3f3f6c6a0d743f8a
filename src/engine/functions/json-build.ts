/**
 * SQL values to JSON (PostgreSQL 15 docs 9.16, table 9.45; utils/adt/json.c datum_to_json and
 * jsonb.c datum_to_jsonb): to_json, to_jsonb, json[b]_build_array, json[b]_build_object, and
 * the final steps of json[b]_agg and json[b]_object_agg, which ../bind/json.ts binds as
 * array_agg's array handed to these finals.
 *
 *   numbers          JSON numbers (NaN and ±Infinity as strings)     bool     true / false
 *   json, jsonb      themselves                                      arrays   JSON arrays
 *   date/timestamp   ISO 8601 strings ("2024-01-02T03:04:05+00:00")  others   their text output, a string
 *
 *   json_build_object('a', 1, 'b', ARRAY[1,2]) → {"a" : 1, "b" : [1,2]}
 *   jsonb_build_object('b', 1, 'a', 2) → {"a": 2, "b": 1}
 */
import { type JsonValue, type PgType, type Value, J, SQLSTATE, elementOf, jsonQuote, jsonText, jsonbText, normalizeJsonb, parseArrayText, parseJsonValue } from '../../types/index.js';
import { SqlError } from '../errors.js';
import { fromText, toText } from '../exec/kernels.js';
import { E, type LibraryFn } from '../expr.js';
import type { Family, Kernel, Signature } from './signature.js';

const JSONB: PgType = Object.freeze({ id: 'jsonb' });
const JSON_T: PgType = Object.freeze({ id: 'json' });

const sig = (params: readonly PgType[], result: PgType, kernel: Kernel, extra: Partial<Signature> = {}): Signature => Object.freeze({ params, result, kernel, ...extra });

/** A date/time's text output as JSON writes it (EncodeDateTime with USE_XSD_DATES): a T, offsets as ±hh:mm. */
function isoText(t: PgType, v: Value): string {
  const s = toText(t, v);
  if (s === 'infinity' || s === '-infinity') return s;
  if (t.id === 'date') return s;
  const x = s.replace(' ', 'T');
  if (t.id !== 'timestamptz') return x;
  const m = /([+-]\d\d)(:\d\d)?(:\d\d)?$/.exec(x);
  return m === null ? x : x.slice(0, m.index) + m[1] + (m[2] ?? ':00') + (m[3] ?? '');
}

function numberText(t: PgType, v: Value): string {
  const s = toText(t, v);
  return /^-?(NaN|Infinity)$/.test(s) ? jsonQuote(s) : s;
}

/**
 * datum_to_json: the JSON text of a non-NULL value of type `t`. `jsonb` prints containers as
 * jsonb does (", " between elements), json as json.c does ("," in arrays).
 */
export function valueToJson(t: PgType, v: Value, jsonb: boolean): string {
  switch (t.id) {
    case 'int2':
    case 'int4':
    case 'int8':
    case 'float4':
    case 'float8':
    case 'numeric':
      return numberText(t, v);
    case 'bool':
      return v ? 'true' : 'false';
    case 'json':
      return jsonb ? jsonbText(normalizeJsonb(parseJsonValue(v as string))) : (v as string);
    case 'jsonb':
      return v as string;
    case 'date':
    case 'timestamp':
    case 'timestamptz':
      return jsonQuote(isoText(t, v));
    case 'array': {
      const el = elementOf(t);
      const items = parseArrayText(v as string).map((x) => (x === null ? 'null' : valueToJson(el, fromText(el, x), jsonb)));
      return '[' + items.join(jsonb ? ', ' : ',') + ']';
    }
    default:
      return jsonQuote(toText(t, v));
  }
}

/** A value as a JSON value of the model (for jsonb results, normalized). */
function valueToNode(t: PgType, v: Value): JsonValue {
  return v === null ? J.null() : parseJsonValue(valueToJson(t, v, true));
}

/** An object key: a scalar's text (dates as in JSON), never NULL, never an array or json (22023). */
function keyText(t: PgType, v: Value, i: number, jsonb: boolean): string {
  if (v === null) {
    if (jsonb) throw new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, `argument ${i + 1}: key must not be null`);
    const e = new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, `argument ${i + 1} cannot be null`);
    throw Object.assign(e, { hint: 'Object keys should be text.' });
  }
  if (t.id === 'array' || t.id === 'json' || t.id === 'jsonb') throw new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, 'key value must be scalar, not array, composite, or json');
  if (t.id === 'date' || t.id === 'timestamp' || t.id === 'timestamptz') return isoText(t, v);
  return t.id === 'bool' ? String(v) : toText(t, v);
}

function evenArguments(name: string, n: number): void {
  if (n % 2 === 0) return;
  const e = new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, 'argument list must have even number of elements');
  throw Object.assign(e, { hint: `The arguments of ${name}() must consist of alternating keys and values.` });
}

const buildArray =
  (jsonb: boolean): Kernel =>
  (a, types) => {
    if (jsonb) return jsonbText(J.array(a.map((v, i) => valueToNode(types[i]!, v))));
    return '[' + a.map((v, i) => (v === null ? 'null' : valueToJson(types[i]!, v, false))).join(', ') + ']';
  };

const buildObject =
  (jsonb: boolean): Kernel =>
  (a, types) => {
    evenArguments(jsonb ? 'jsonb_build_object' : 'json_build_object', a.length);
    const keys: string[] = [];
    const vals: JsonValue[] = [];
    const parts: string[] = [];
    for (let i = 0; i < a.length; i += 2) {
      const k = keyText(types[i]!, a[i]!, i, jsonb);
      if (jsonb) {
        keys.push(k);
        vals.push(valueToNode(types[i + 1]!, a[i + 1]!));
      } else parts.push(`${jsonQuote(k)} : ${a[i + 1] === null ? 'null' : valueToJson(types[i + 1]!, a[i + 1]!, false)}`);
    }
    return jsonb ? jsonbText(normalizeJsonb(J.object(keys, vals))) : '{' + parts.join(', ') + '}';
  };

/** json_agg's final: the array_agg of the inputs (type `t[]`) as a JSON array; NULL inputs are null. */
const aggFinal =
  (jsonb: boolean): Kernel =>
  (a, types) => {
    const el = elementOf(types[0]!);
    const items = parseArrayText(a[0] as string).map((x) => (x === null ? 'null' : valueToJson(el, fromText(el, x), jsonb)));
    return jsonb ? jsonbText(parseJsonValue('[' + items.join(',') + ']')) : '[' + items.join(', ') + ']';
  };

/**
 * json_object_agg's final: array_agg of the pairs, each a json array [key, value] that
 * ../bind/json.ts builds with json_build_array (so the value keeps its JSON text).
 */
const objectAggFinal =
  (jsonb: boolean): Kernel =>
  (a) => {
    const keys: string[] = [];
    const vals: string[] = [];
    for (const pair of parseArrayText(a[0] as string)) {
      const p = parseJsonValue(pair!, 'json');
      if (p.t !== 'array' || p.v.length !== 2) throw new Error('internal error: json_object_agg pair');
      const k = p.v[0]!;
      if (k.t === 'null') throw new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, 'field name must not be null');
      keys.push(k.t === 'string' ? k.v : jsonText(k, pair!));
      vals.push(jsonText(p.v[1]!, pair!));
    }
    if (!jsonb) return '{ ' + keys.map((k, i) => `${jsonQuote(k)} : ${vals[i]}`).join(', ') + ' }';
    return jsonbText(normalizeJsonb(J.object(keys, vals.map((v) => parseJsonValue(v)))));
  };

/** One argument of any type (anyelement): an unknown literal has none (42804), as in PostgreSQL. */
function anyElement(key: LibraryFn, result: PgType): NonNullable<Signature['bind']> {
  return (args, unknown, fail) => {
    if (args.length !== 1) return fail();
    if (unknown[0] === true) throw new SqlError('invalid_input', SQLSTATE.datatype_mismatch, 'could not determine polymorphic type because input has type unknown');
    return E.func(key, [...args], result);
  };
}

export const JSON_BUILD_FUNCTIONS: Family = Object.freeze({
  to_json: [sig([], JSON_T, (a, t) => valueToJson(t[0]!, a[0]!, false), { variadic: 'any', bind: anyElement('to_json(variadic any)', JSON_T) })],
  to_jsonb: [sig([], JSONB, (a, t) => jsonbText(normalizeJsonb(parseJsonValue(valueToJson(t[0]!, a[0]!, true)))), { variadic: 'any', bind: anyElement('to_jsonb(variadic any)', JSONB) })],
  json_build_array: [sig([], JSON_T, buildArray(false), { strict: false }), sig([], JSON_T, buildArray(false), { variadic: 'any', strict: false })],
  jsonb_build_array: [sig([], JSONB, buildArray(true), { strict: false }), sig([], JSONB, buildArray(true), { variadic: 'any', strict: false })],
  json_build_object: [sig([], JSON_T, buildObject(false), { strict: false }), sig([], JSON_T, buildObject(false), { variadic: 'any', strict: false })],
  jsonb_build_object: [sig([], JSONB, buildObject(true), { strict: false }), sig([], JSONB, buildObject(true), { variadic: 'any', strict: false })],
  json_agg_final: [sig([{ id: 'array' }], JSON_T, aggFinal(false))],
  jsonb_agg_final: [sig([{ id: 'array' }], JSONB, aggFinal(true))],
  json_object_agg_final: [sig([{ id: 'array' }], JSON_T, objectAggFinal(false))],
  jsonb_object_agg_final: [sig([{ id: 'array' }], JSONB, objectAggFinal(true))],
});

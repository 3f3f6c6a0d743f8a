/**
 * The json and jsonb set-returning functions (PostgreSQL 15 docs 9.16, table 9.47), over the one
 * JSON model (../../types/json-value.ts), run where every set-returning function runs
 * (./set-returning.ts: FROM, LATERAL, the select list):
 *
 *   jsonb_array_elements('[1, "a"]')          → value jsonb: 1, "a"
 *   jsonb_array_elements_text('[1, "a"]')     → value text:  1, a
 *   jsonb_each('{"b": 1, "a": [2]}')          → (key, value): (a, [2]), (b, 1)   (jsonb's key order)
 *   json_each('{"b": 1, "b": 2}')             → (b, 1), (b, 2)                   (as written)
 *   jsonb_object_keys('{"b": 1, "a": 2}')     → a, b
 *   jsonb_to_record('{"a": 1, "b": "x"}') AS x(a int, b text)     → (1, x)
 *   jsonb_to_recordset('[{"a": 1}, {"a": 2}]') AS x(a int)         → 1, 2
 *
 * A record function's columns are its call's column definition list, which
 * ../bind/function-from.ts appends to the call as one more argument: RECORD_COLUMNS followed by
 * the columns' types as JSON. The bind hook refuses that argument from anyone else (42883, as
 * PostgreSQL has no such signature). jsonb_populate_record(set) and jsonb_path_query are 0A000
 * (../bind/json-aggregates.ts JSON_SET_RETURNING): paxd has no composite types and no jsonpath.
 */
import { type JsonValue, type PgType, type Value, SQLSTATE, jsonText, jsonbText, normalizeJsonb, parseJsonValue } from '../../types/index.js';
import { SqlError } from '../errors.js';
import { E, type Expr, type LibraryFn } from '../expr.js';
import { fromText } from '../exec/kernels.js';
import { T } from '../types.js';
import type { Family, SetKernel, Signature } from './signature.js';

/** The prefix of the trailing argument that carries a record function's column types. */
export const RECORD_COLUMNS = '\u0001paxd record columns:';

const JSONB: PgType = Object.freeze({ id: 'jsonb' });
const JSON_T: PgType = Object.freeze({ id: 'json' });

function invalid(message: string): SqlError {
  return new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, message);
}

const notScalar = (): Value => {
  throw invalid('set-valued function called in context that cannot accept a set');
};

type Flavor = 'json' | 'jsonb';

/** A document's tree and the text its json values are cut from. */
const tree = (v: Value, f: Flavor): JsonValue => (f === 'jsonb' ? parseJsonValue(v as string) : parseJsonValue(v as string, 'json'));

/** A member as its function returns it: jsonb (normalized), json (as written), or text (->>'s: strings unquoted, null as NULL). */
function out(v: JsonValue, f: Flavor, asText: boolean, source: string): Value {
  if (asText) {
    if (v.t === 'null') return null;
    if (v.t === 'string') return v.v;
  }
  return f === 'jsonb' ? jsonbText(v) : jsonText(v, source);
}

const scalarWord = (v: JsonValue): string => (v.t === 'array' ? 'an array' : v.t === 'object' ? 'an object' : 'a scalar');

/** json(b)_array_elements[_text]. */
const arrayElements =
  (f: Flavor, name: string, asText: boolean): SetKernel =>
    function* (a) {
      const doc = tree(a[0]!, f);
      if (doc.t !== 'array') {
        if (f === 'jsonb') throw invalid(`cannot extract elements from ${scalarWord(doc)}`);
        throw invalid(doc.t === 'object' ? `cannot call ${name} on a non-array` : `cannot call ${name} on a scalar`);
      }
      for (const x of doc.v) yield [out(x, f, asText, a[0] as string)];
    };

/** json(b)_each[_text]: (key, value) in the document's key order. */
const each =
  (f: Flavor, name: string, asText: boolean): SetKernel =>
    function* (a) {
      const doc = tree(a[0]!, f);
      if (doc.t !== 'object') {
        if (f === 'jsonb') throw invalid(`cannot call ${name} on a non-object`);
        throw invalid(doc.t === 'array' ? 'cannot deconstruct an array as an object' : 'cannot deconstruct a scalar');
      }
      for (let i = 0; i < doc.keys.length; i++) yield [doc.keys[i]!, out(doc.vals[i]!, f, asText, a[0] as string)];
    };

const objectKeys = (f: Flavor, name: string): SetKernel =>
  function* (a) {
    const doc = tree(a[0]!, f);
    if (doc.t !== 'object') throw invalid(`cannot call ${name} on ${scalarWord(doc)}`);
    yield* doc.keys;
  };

/**
 * One column's value from an object member (PostgreSQL's populate_scalar): absent or JSON null
 * is NULL; json and jsonb columns take the member itself; a string gives its text to the type's
 * input function, any other member its JSON text (so an int column fails on "true" with 22P02).
 */
function columnValue(v: JsonValue | undefined, type: PgType, f: Flavor, source: string): Value {
  if (v === undefined || v.t === 'null') return null;
  if (type.id === 'jsonb') return jsonbText(normalizeJsonb(v));
  if (type.id === 'json') return f === 'json' ? jsonText(v, source) : jsonbText(v);
  return fromText(type, v.t === 'string' ? v.v : f === 'jsonb' ? jsonbText(v) : jsonText(v, source));
}

/** A record of an object's members by column name (json: the last of duplicate keys). */
function record(doc: JsonValue & { t: 'object' }, names: readonly string[], types: readonly PgType[], f: Flavor, source: string): Value[] {
  return types.map((t, k) => {
    const i = doc.keys.lastIndexOf(names[k]!);
    return columnValue(i < 0 ? undefined : doc.vals[i], t, f, source);
  });
}

/** The trailing argument: names and types, as JSON after RECORD_COLUMNS. */
interface RecordColumns {
  readonly names: readonly string[];
  readonly types: readonly PgType[];
}

const columnsOf = (a: readonly Value[]): RecordColumns => JSON.parse((a[a.length - 1] as string).slice(RECORD_COLUMNS.length)) as RecordColumns;

const toRecord = (f: Flavor): SetKernel =>
  function* (a) {
    const c = columnsOf(a);
    // Not strict: a NULL document is one row of NULLs.
    if (a[0] === null) {
      yield c.types.map(() => null);
      return;
    }
    const doc = tree(a[0]!, f);
    if (doc.t !== 'object') throw invalid(`cannot call populate_composite on ${scalarWord(doc)}`);
    yield record(doc, c.names, c.types, f, a[0] as string);
  };

const toRecordset = (f: Flavor, name: string): SetKernel =>
  function* (a) {
    if (a[0] === null) return;
    const doc = tree(a[0]!, f);
    if (doc.t !== 'array') throw invalid(`cannot call ${name} on ${f === 'jsonb' ? 'a non-array' : doc.t === 'object' ? 'an object' : 'a scalar'}`);
    const c = columnsOf(a);
    for (const x of doc.v) {
      if (x.t !== 'object') throw invalid(`argument of ${name} must be an array of objects`);
      yield record(x, c.names, c.types, f, a[0] as string);
    }
  };

/** The trailing argument of a record call: its column definition list. */
export function recordColumnsArg(names: readonly string[], types: readonly PgType[]): string {
  return RECORD_COLUMNS + JSON.stringify({ names, types });
}

const set = (params: readonly PgType[], setReturning: SetKernel, columns: Signature['columns'], extra: Partial<Signature> = {}): Signature =>
  Object.freeze({ params, result: columns?.[0]?.type ?? T.text, kernel: notScalar, setReturning, ...(columns === undefined ? {} : { columns: Object.freeze(columns) }), ...extra });

/** A record function: (doc, columns), the second argument only as ../bind/function-from.ts makes it. */
function recordFn(name: string, doc: PgType, kernel: SetKernel): Signature {
  const key = `${name}(${doc.id},text)` as LibraryFn;
  return set([doc, T.text], kernel, undefined, {
    record: true,
    strict: false,
    bind: (args: readonly Expr[], _unknown: readonly boolean[], fail: () => never): Expr => {
      const c = args[1]!;
      if (c.kind !== 'const' || typeof c.value !== 'string' || !c.value.startsWith(RECORD_COLUMNS)) fail();
      return E.func(key, args, T.text);
    },
  });
}

const col = (name: string, type: PgType) => ({ name, type });

export const JSON_SET_RETURNING_FUNCTIONS: Family = Object.freeze({
  jsonb_array_elements: [set([JSONB], arrayElements('jsonb', 'jsonb_array_elements', false), [col('value', JSONB)])],
  jsonb_array_elements_text: [set([JSONB], arrayElements('jsonb', 'jsonb_array_elements_text', true), [col('value', T.text)])],
  json_array_elements: [set([JSON_T], arrayElements('json', 'json_array_elements', false), [col('value', JSON_T)])],
  json_array_elements_text: [set([JSON_T], arrayElements('json', 'json_array_elements_text', true), [col('value', T.text)])],
  jsonb_each: [set([JSONB], each('jsonb', 'jsonb_each', false), [col('key', T.text), col('value', JSONB)])],
  jsonb_each_text: [set([JSONB], each('jsonb', 'jsonb_each_text', true), [col('key', T.text), col('value', T.text)])],
  json_each: [set([JSON_T], each('json', 'json_each', false), [col('key', T.text), col('value', JSON_T)])],
  json_each_text: [set([JSON_T], each('json', 'json_each_text', true), [col('key', T.text), col('value', T.text)])],
  jsonb_object_keys: [set([JSONB], objectKeys('jsonb', 'jsonb_object_keys'), undefined)],
  json_object_keys: [set([JSON_T], objectKeys('json', 'json_object_keys'), undefined)],
  jsonb_to_record: [recordFn('jsonb_to_record', JSONB, toRecord('jsonb'))],
  json_to_record: [recordFn('json_to_record', JSON_T, toRecord('json'))],
  jsonb_to_recordset: [recordFn('jsonb_to_recordset', JSONB, toRecordset('jsonb', 'jsonb_to_recordset'))],
  json_to_recordset: [recordFn('json_to_recordset', JSON_T, toRecordset('json', 'json_to_recordset'))],
});

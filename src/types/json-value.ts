/**
 * The JSON value model that json and jsonb share (PostgreSQL 15 docs 8.14): what the one JSON
 * parser (./text/jsonb.ts) builds, what the json/jsonb operators and functions
 * (src/engine/functions/json*.ts) compute on, and the printers of both types.
 *
 *   jsonb  stores its normalized text: object keys sorted by (UTF-8 length, bytes), the last of
 *          duplicate keys kept, numbers as numeric_out prints them, ", " and ": " separators
 *          (utils/adt/jsonb.c JsonbToCStringWorker).
 *   json   stores the text as written (validated on input). A parsed node keeps its source span
 *          [start, end), so `->` on json returns the member's text exactly as written.
 *
 *   jsonbText(normalizeJsonb(parsed('{"b":1,"a":[1.0]}')))  // '{"a": [1.0], "b": 1}'
 */

/** A JSON value; `start`/`end` are its span in the parsed text (json keeps it; -1 when built). */
export type JsonValue = JsonNull | JsonBool | JsonNumber | JsonString | JsonArray | JsonObject;

interface Span {
  start: number;
  end: number;
}
export interface JsonNull extends Span {
  readonly t: 'null';
}
export interface JsonBool extends Span {
  readonly t: 'bool';
  readonly v: boolean;
}
/** A number: its numeric text (jsonb: numeric_out's; as written by the parser for json too). */
export interface JsonNumber extends Span {
  readonly t: 'number';
  readonly v: string;
}
export interface JsonString extends Span {
  readonly t: 'string';
  readonly v: string;
}
export interface JsonArray extends Span {
  readonly t: 'array';
  readonly v: JsonValue[];
}
/** An object: keys and values in parallel (json: as written, duplicates kept; jsonb: sorted, unique). */
export interface JsonObject extends Span {
  readonly t: 'object';
  readonly keys: string[];
  readonly vals: JsonValue[];
}

/** Factories for values built by functions (no source span). */
export const J = Object.freeze({
  null: (): JsonNull => ({ t: 'null', start: -1, end: -1 }),
  bool: (v: boolean): JsonBool => ({ t: 'bool', v, start: -1, end: -1 }),
  number: (v: string): JsonNumber => ({ t: 'number', v, start: -1, end: -1 }),
  string: (v: string): JsonString => ({ t: 'string', v, start: -1, end: -1 }),
  array: (v: JsonValue[]): JsonArray => ({ t: 'array', v, start: -1, end: -1 }),
  object: (keys: string[], vals: JsonValue[]): JsonObject => ({ t: 'object', keys, vals, start: -1, end: -1 }),
});

const utf8enc = new TextEncoder();

/** jsonb's key order (lengthCompareJsonbString): shorter UTF-8 first, then bytes. */
export function compareJsonbKeys(a: string, b: string): number {
  if (a === b) return 0;
  const x = utf8enc.encode(a);
  const y = utf8enc.encode(b);
  if (x.length !== y.length) return x.length - y.length;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

/** jsonb's form of a value: object keys sorted (./compareJsonbKeys), the last duplicate kept, recursively. */
export function normalizeJsonb(v: JsonValue): JsonValue {
  switch (v.t) {
    case 'array':
      return { ...v, v: v.v.map(normalizeJsonb) };
    case 'object': {
      const idx = v.keys.map((_, i) => i);
      idx.sort((a, b) => compareJsonbKeys(v.keys[a]!, v.keys[b]!) || a - b);
      const keys: string[] = [];
      const vals: JsonValue[] = [];
      for (let k = 0; k < idx.length; k++) {
        const i = idx[k]!;
        if (k + 1 < idx.length && v.keys[idx[k + 1]!] === v.keys[i]) continue;
        keys.push(v.keys[i]!);
        vals.push(normalizeJsonb(v.vals[i]!));
      }
      return { ...v, keys, vals };
    }
    default:
      return v;
  }
}

/** escape_json of json.c: \" \\ \b \f \n \r \t, other controls as \u00XX, the rest as is. */
export function jsonQuote(v: string): string {
  let out = '"';
  let run = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c >= 32 && c !== 34 && c !== 92) continue;
    out += v.slice(run, i);
    run = i + 1;
    switch (c) {
      case 34:
        out += '\\"';
        break;
      case 92:
        out += '\\\\';
        break;
      case 8:
        out += '\\b';
        break;
      case 12:
        out += '\\f';
        break;
      case 10:
        out += '\\n';
        break;
      case 13:
        out += '\\r';
        break;
      case 9:
        out += '\\t';
        break;
      default:
        out += '\\u' + c.toString(16).padStart(4, '0');
    }
  }
  return out + v.slice(run) + '"';
}

function scalarText(v: JsonNull | JsonBool | JsonNumber | JsonString): string {
  switch (v.t) {
    case 'null':
      return 'null';
    case 'bool':
      return v.v ? 'true' : 'false';
    case 'number':
      return v.v;
    case 'string':
      return jsonQuote(v.v);
  }
}

/** jsonb_out of a (normalized) value: `{"a": 1, "b": [true, null]}`. */
export function jsonbText(v: JsonValue): string {
  switch (v.t) {
    case 'array':
      return '[' + v.v.map(jsonbText).join(', ') + ']';
    case 'object': {
      const parts = new Array<string>(v.keys.length);
      for (let i = 0; i < v.keys.length; i++) parts[i] = jsonQuote(v.keys[i]!) + ': ' + jsonbText(v.vals[i]!);
      return '{' + parts.join(', ') + '}';
    }
    default:
      return scalarText(v);
  }
}

/** jsonb_pretty: four spaces per level, one member per line; an empty container's brackets on two lines too. */
export function jsonbPretty(v: JsonValue, indent = ''): string {
  const inner = indent + '    ';
  switch (v.t) {
    case 'array':
      if (v.v.length === 0) return '[\n' + indent + ']';
      return '[\n' + v.v.map((x) => inner + jsonbPretty(x, inner)).join(',\n') + '\n' + indent + ']';
    case 'object':
      if (v.keys.length === 0) return '{\n' + indent + '}';
      return '{\n' + v.keys.map((k, i) => inner + jsonQuote(k) + ': ' + jsonbPretty(v.vals[i]!, inner)).join(',\n') + '\n' + indent + '}';
    default:
      return scalarText(v);
  }
}

/**
 * The json text of a value: a parsed node's source span as written, a built one printed with
 * `sep` between members and `colon` between a key and its value (json_build_object's " : ").
 */
export function jsonText(v: JsonValue, source: string | null): string {
  if (source !== null && v.start >= 0) return source.slice(v.start, v.end);
  switch (v.t) {
    case 'array':
      return '[' + v.v.map((x) => jsonText(x, source)).join(', ') + ']';
    case 'object':
      return '{' + v.keys.map((k, i) => jsonQuote(k) + ' : ' + jsonText(v.vals[i]!, source)).join(', ') + '}';
    default:
      return scalarText(v);
  }
}

/** jsonb_typeof / json_typeof. */
export function jsonTypeName(v: JsonValue): string {
  switch (v.t) {
    case 'null':
      return 'null';
    case 'bool':
      return 'boolean';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    case 'array':
      return 'array';
    case 'object':
      return 'object';
  }
}

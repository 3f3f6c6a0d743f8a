/**
 * jsonb: common/jsonapi.c (the lexer and grammar, RFC 8259 strictly: no leading zeros, no
 * '+', no trailing '.', no NaN) and utils/adt/jsonb.c output. Numbers are numeric_in'd and
 * printed as numeric_out does (1.0 stays 1.0, 1e2 becomes 100); object keys are sorted by
 * (byte length, bytes) with the last duplicate winning; separators are ", " and ": ".
 *
 * Tokens are found by the JSON scanner (../json-scan.ts), the one NDJSON input uses too. The
 * parser builds ../json-value.ts's values, the one model of JSON that json and jsonb share;
 * json input runs the same grammar without the numeric and escape checks (json_in validates only).
 */
import { SQLSTATE, assert } from '../errors.js';
import { jsonNumberEnd, jsonScan, jsonSkipWs, jsonStringEnd } from '../json-scan.js';
import { checkNumericStorage, numericToString, scanNumeric } from '../numeric.js';
import { checkText } from './character.js';
import { type JsonValue, jsonbText, normalizeJsonb } from '../json-value.js';
import { err, hexVal, isAlpha, isDigit } from './scan.js';

class JsonFail {
  constructor(
    readonly code: string,
    readonly message: string,
    readonly detail: string,
  ) {}
}

function jsonSyntax(detail: string): JsonFail {
  return new JsonFail(SQLSTATE.invalid_text_representation, 'invalid input syntax for type json', detail);
}

class JsonParser {
  i = 0;
  /** Escapes de-escaped with PostgreSQL's checks (\u0000, lone surrogates): not so in json_in. */
  readonly strict: boolean;
  /** Numbers numeric_in'd and kept as numeric_out prints them (jsonb); else as written. */
  readonly numbers: boolean;

  constructor(
    readonly s: string,
    mode: JsonParseMode,
  ) {
    this.strict = mode !== 'validate';
    this.numbers = mode === 'jsonb';
  }

  ws(): void {
    this.i = jsonSkipWs(this.s, this.i, this.s.length);
  }

  /** The token starting at i, for messages: a run of alphanumerics or one character. */
  token(): string {
    const s = this.s;
    let j = this.i;
    while (j < s.length && (isAlpha(s.charCodeAt(j)) || isDigit(s.charCodeAt(j)) || s.charCodeAt(j) === 95 || s.charCodeAt(j) >= 128)) j++;
    return j === this.i ? s.slice(this.i, this.i + 1) : s.slice(this.i, j);
  }

  value(depth: number): JsonValue {
    this.ws();
    const s = this.s;
    if (this.i >= s.length) throw jsonSyntax('The input string ended unexpectedly.');
    const start = this.i;
    const c = s.charCodeAt(this.i);
    if (c === 123) return this.object(depth);
    if (c === 91) return this.array(depth);
    if (c === 34) return { t: 'string', v: this.string(), start, end: this.i };
    if (c === 45 || isDigit(c)) return { t: 'number', v: this.number(), start, end: this.i };
    // A punctuation token where a value belongs (parse_scalar's JSON_PARSE_VALUE).
    if (c === 93 || c === 125 || c === 44 || c === 58) throw jsonSyntax(`Expected JSON value, but found "${s[this.i]}".`);
    const tok = this.token();
    if (tok === 'true' || tok === 'false') {
      this.i += tok.length;
      return { t: 'bool', v: tok === 'true', start, end: this.i };
    }
    if (tok === 'null') {
      this.i += 4;
      return { t: 'null', start, end: this.i };
    }
    throw jsonSyntax(`Token "${tok}" is invalid.`);
  }

  object(depth: number): JsonValue {
    const s = this.s;
    const start = this.i++;
    const keys: string[] = [];
    const vals: JsonValue[] = [];
    this.ws();
    if (s.charCodeAt(this.i) === 125) {
      this.i++;
      return { t: 'object', keys, vals, start, end: this.i };
    }
    for (let first = true; ; first = false) {
      this.ws();
      if (s.charCodeAt(this.i) !== 34) throw this.expected(first ? 'string or "}"' : 'string');
      keys.push(this.string());
      this.ws();
      if (s.charCodeAt(this.i) !== 58) throw this.expected('":"');
      this.i++;
      vals.push(this.value(depth + 1));
      this.ws();
      const c = s.charCodeAt(this.i);
      this.i++;
      if (c === 125) break;
      if (c !== 44) {
        this.i--;
        throw this.expected('"," or "}"');
      }
    }
    return { t: 'object', keys, vals, start, end: this.i };
  }

  array(depth: number): JsonValue {
    const s = this.s;
    const start = this.i++;
    const out: JsonValue[] = [];
    this.ws();
    if (s.charCodeAt(this.i) === 93) {
      this.i++;
      return { t: 'array', v: out, start, end: this.i };
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.ws();
      const c = s.charCodeAt(this.i);
      this.i++;
      if (c === 93) break;
      if (c !== 44) {
        this.i--;
        throw this.expected('"," or "]"');
      }
    }
    return { t: 'array', v: out, start, end: this.i };
  }

  expected(what: string): JsonFail {
    if (this.i >= this.s.length) return jsonSyntax('The input string ended unexpectedly.');
    return jsonSyntax(`Expected ${what}, but found "${this.token()}".`);
  }

  /** A JSON string literal at i; returns the decoded string. */
  string(): string {
    const s = this.s;
    let i = this.i + 1;
    // The scanner finds the closing quote; a string without escapes is its slice. Otherwise
    // decode (the first error in input order is PostgreSQL's: a bad surrogate before a
    // control character, say).
    const close = jsonStringEnd(s, i, s.length);
    if (close >= 0 && !jsonScan.escaped) {
      this.i = close + 1;
      return s.slice(i, close);
    }
    let out = '';
    let runStart = i;
    for (;;) {
      if (i >= s.length) throw jsonSyntax('The input string ended unexpectedly.');
      const c = s.charCodeAt(i);
      if (c === 34) break;
      if (c < 32) throw jsonSyntax(`Character with value 0x${c.toString(16).padStart(2, '0')} must be escaped.`);
      if (c !== 92) {
        i++;
        continue;
      }
      out += s.slice(runStart, i);
      const e = s.charCodeAt(i + 1);
      switch (e) {
        case 34:
          out += '"';
          break;
        case 92:
          out += '\\';
          break;
        case 47:
          out += '/';
          break;
        case 98:
          out += '\b';
          break;
        case 102:
          out += '\f';
          break;
        case 110:
          out += '\n';
          break;
        case 114:
          out += '\r';
          break;
        case 116:
          out += '\t';
          break;
        case 117: {
          const u = this.hex4(i + 2);
          if (!this.strict) {
            out += s.slice(i, i + 6);
            i += 4;
            break;
          }
          if (u === 0) throw new JsonFail(SQLSTATE.untranslatable_character, 'unsupported Unicode escape sequence', '\\u0000 cannot be converted to text.');
          if (u >= 0xd800 && u <= 0xdbff) {
            if (s.charCodeAt(i + 6) !== 92 || s.charCodeAt(i + 7) !== 117) throw jsonSyntax('Unicode low surrogate must follow a high surrogate.');
            const lo = this.hex4(i + 8);
            if (!(lo >= 0xdc00 && lo <= 0xdfff)) throw jsonSyntax('Unicode low surrogate must follow a high surrogate.');
            out += String.fromCharCode(u, lo);
            i += 6;
          } else if (u >= 0xdc00 && u <= 0xdfff) {
            throw jsonSyntax('Unicode low surrogate must follow a high surrogate.');
          } else out += String.fromCharCode(u);
          i += 4;
          break;
        }
        default:
          throw jsonSyntax(`Escape sequence "\\${Number.isNaN(e) ? '' : String.fromCharCode(e)}" is invalid.`);
      }
      i += 2;
      runStart = i;
    }
    out += s.slice(runStart, i);
    this.i = i + 1;
    return out;
  }

  hex4(at: number): number {
    let v = 0;
    for (let k = 0; k < 4; k++) {
      const h = hexVal(this.s.charCodeAt(at + k));
      if (h < 0) throw jsonSyntax('"\\u" must be followed by four hexadecimal digits.');
      v = (v << 4) | h;
    }
    return v;
  }

  number(): string {
    const s = this.s;
    const start = this.i;
    const bad = () => {
      this.i = start;
      return jsonSyntax(`Token "${this.numberToken()}" is invalid.`);
    };
    const i = jsonNumberEnd(s, start, s.length);
    if (i < 0) throw bad();
    // The lexer reads a whole alphanumeric run: "01" or "1x" is one invalid token.
    const c = s.charCodeAt(i);
    if (isAlpha(c) || isDigit(c) || c === 95 || c >= 128) throw bad();
    this.i = i;
    if (!this.numbers) return s.slice(start, i);
    const p = scanNumeric(s.slice(start, i));
    assert(typeof p !== 'string', 'JSON number scanned as a numeric special');
    checkNumericStorage(p);
    return numericToString(p);
  }

  numberToken(): string {
    const s = this.s;
    let j = this.i;
    if (s.charCodeAt(j) === 45) j++;
    while (j < s.length) {
      const c = s.charCodeAt(j);
      if (isAlpha(c) || isDigit(c) || c === 95 || c === 46 || c === 43 || c === 45 || c >= 128) j++;
      else break;
    }
    return s.slice(this.i, Math.max(j, this.i + 1));
  }
}

/**
 * How a text is parsed: 'jsonb' (jsonb_in: numbers normalized, escapes checked), 'json' (a json
 * value read by an operator: escapes checked, numbers as written), 'validate' (json_in: the
 * grammar only).
 */
export type JsonParseMode = 'jsonb' | 'json' | 'validate';

/** Parses JSON text into a value (22P02 with PostgreSQL's DETAIL when it is not JSON). */
export function parseJsonValue(s: string, mode: JsonParseMode = 'jsonb'): JsonValue {
  checkText(s);
  const p = new JsonParser(s, mode);
  try {
    const v = p.value(0);
    p.ws();
    if (p.i < s.length) throw p.expected('end of input');
    return v;
  } catch (e) {
    if (e instanceof JsonFail) throw err(e.code, e.message, e.detail);
    throw e;
  }
}

/** jsonb_in: the normalized text (../json-value.ts). */
export function parseJsonb(s: string): string {
  return jsonbText(normalizeJsonb(parseJsonValue(s)));
}

/** json_in: the text as written, once it is JSON. */
export function parseJson(s: string): string {
  parseJsonValue(s, 'validate');
  return s;
}

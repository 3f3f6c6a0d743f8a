/**
 * jsonb: common/jsonapi.c (the lexer and grammar, RFC 8259 strictly: no leading zeros, no
 * '+', no trailing '.', no NaN) and utils/adt/jsonb.c output. Numbers are numeric_in'd and
 * printed as numeric_out does (1.0 stays 1.0, 1e2 becomes 100); object keys are sorted by
 * (byte length, bytes) with the last duplicate winning; separators are ", " and ": ".
 *
 * Tokens are found by the JSON scanner (../json-scan.ts), the one NDJSON input uses too.
 */
import { SQLSTATE, assert } from '../errors.js';
import { jsonNumberEnd, jsonScan, jsonSkipWs, jsonStringEnd } from '../json-scan.js';
import { checkNumericStorage, numericToString, scanNumeric } from '../numeric.js';
import { checkText } from './character.js';
import { err, hexVal, isAlpha, isDigit } from './scan.js';

const utf8enc = new TextEncoder();

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

type JsonNode = string | JsonNode[] | { keys: string[]; vals: JsonNode[] };

class JsonParser {
  i = 0;
  constructor(readonly s: string) {}

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

  value(depth: number): JsonNode {
    this.ws();
    const s = this.s;
    if (this.i >= s.length) throw jsonSyntax('The input string ended unexpectedly.');
    const c = s.charCodeAt(this.i);
    if (c === 123) return this.object(depth);
    if (c === 91) return this.array(depth);
    if (c === 34) return jsonbString(this.string());
    if (c === 45 || isDigit(c)) return this.number();
    const tok = this.token();
    if (tok === 'true' || tok === 'false' || tok === 'null') {
      this.i += tok.length;
      return tok;
    }
    throw jsonSyntax(`Token "${tok}" is invalid.`);
  }

  object(depth: number): JsonNode {
    const s = this.s;
    this.i++;
    const keys: string[] = [];
    const vals: JsonNode[] = [];
    this.ws();
    if (s.charCodeAt(this.i) === 125) {
      this.i++;
      return { keys, vals };
    }
    for (;;) {
      this.ws();
      if (s.charCodeAt(this.i) !== 34) throw this.expected('string');
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
    return { keys, vals };
  }

  array(depth: number): JsonNode {
    const s = this.s;
    this.i++;
    const out: JsonNode[] = [];
    this.ws();
    if (s.charCodeAt(this.i) === 93) {
      this.i++;
      return out;
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
    return out;
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

/** escape_json of json.c: \" \\ \b \f \n \r \t, other controls as \u00XX, the rest as is. */
export function jsonbString(v: string): string {
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

function utf8Compare(a: string, b: string): number {
  const x = utf8enc.encode(a);
  const y = utf8enc.encode(b);
  if (x.length !== y.length) return x.length - y.length;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

function jsonbOut(n: JsonNode): string {
  if (typeof n === 'string') return n;
  if (Array.isArray(n)) return '[' + n.map(jsonbOut).join(', ') + ']';
  // Sort key indexes by (UTF-8 length, bytes), stable; the last of equal keys wins.
  const idx = n.keys.map((_, i) => i);
  idx.sort((a, b) => utf8Compare(n.keys[a]!, n.keys[b]!) || a - b);
  const parts: string[] = [];
  for (let k = 0; k < idx.length; k++) {
    const i = idx[k]!;
    if (k + 1 < idx.length && n.keys[idx[k + 1]!] === n.keys[i]) continue;
    parts.push(jsonbString(n.keys[i]!) + ': ' + jsonbOut(n.vals[i]!));
  }
  return '{' + parts.join(', ') + '}';
}

export function parseJsonb(s: string): string {
  checkText(s);
  const p = new JsonParser(s);
  try {
    const v = p.value(0);
    p.ws();
    if (p.i < s.length) throw p.expected('end of input');
    return jsonbOut(v);
  } catch (e) {
    if (e instanceof JsonFail) throw err(e.code, e.message, e.detail);
    throw e;
  }
}

/**
 * One-dimensional arrays of paxd's scalar types, as the engine computes them (array_agg,
 * array literals) and the wire sends them. No column stores an array (parse-type refuses
 * `int4[]` in a table definition), so like interval this is an expression type only.
 *
 * The engine value of an array is its array_out text (PostgreSQL 15 docs 8.15.6 "Array Input
 * and Output Syntax"; utils/adt/arrayfuncs.c array_out), in the canonical form that the
 * element type's own output function gives, so that text output is the value itself and the
 * binary form (src/pgwire/codec/binary.ts, array_send) is derived from it element by element:
 *
 *   arrayOf({ id: 'int4' })                      // { id: 'array', element: { id: 'int4' } }
 *   parseArrayText('{1, "a b",NULL}')            // ['1', 'a b', null]
 *   formatArrayText(['1', 'a b', null, ''])      // '{1,"a b",NULL,""}'
 *
 * An element is double-quoted when it is empty, spells NULL (any case), or holds a brace, a
 * double quote, a comma, a backslash or white space (array_isspace: space \t \n \r \v \f);
 * inside quotes `"` and `\` are escaped with a backslash.
 */
import { PaxdError, SQLSTATE, featureNotSupported } from './errors.js';
import type { PgType } from './type.js';

/** The array type whose elements are of `element` (array_agg(x) is x's type's array). */
export function arrayOf(element: PgType): PgType {
  if (element.id === 'array') throw featureNotSupported('multidimensional arrays');
  return Object.freeze({ id: 'array', element });
}

/** The element type of an array type (an assertion: callers have checked `id === 'array'`). */
export function elementOf(t: PgType): PgType {
  if (t.element === undefined) throw new Error(`elementOf: ${t.id} is not an array type`);
  return t.element;
}

/** 22P02 as array_in words it, with its DETAIL. */
function malformed(text: string, detail: string): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.invalid_text_representation, `malformed array literal: "${text}"`, { detail });
}

/** array_isspace: the white space array_in skips and array_out quotes. */
function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\v' || c === '\f';
}

/** The elements of a one-dimensional array literal, as text (null for NULL); 22P02 when malformed. */
export function parseArrayText(text: string): (string | null)[] {
  let i = 0;
  const n = text.length;
  const skip = () => {
    while (i < n && isSpace(text[i])) i++;
  };
  skip();
  if (text[i] === '[') throw featureNotSupported('array literals with dimension decorations');
  if (text[i] !== '{') throw malformed(text, 'Array value must start with "{" or dimension information.');
  i++;
  const out: (string | null)[] = [];
  skip();
  if (text[i] === '}') {
    i++;
    skip();
    if (i !== n) throw malformed(text, 'Junk after closing right brace.');
    return out;
  }
  for (;;) {
    skip();
    if (text[i] === '{') throw featureNotSupported('multidimensional arrays');
    let v = '';
    let quoted = false;
    let escaped = false; // quoted or escaped: such an element is never NULL (ReadArrayStr's hasquoting)
    let any = false;
    if (text[i] === '"') {
      quoted = true;
      i++;
      while (i < n && text[i] !== '"') {
        if (text[i] === '\\') i++;
        if (i >= n) break;
        v += text[i++];
      }
      if (i >= n) throw malformed(text, 'Unexpected end of input.');
      i++;
      any = true;
    } else {
      // Unquoted: backslashes escape; trailing unescaped white space is dropped.
      let keep = 0;
      while (i < n && text[i] !== ',' && text[i] !== '}') {
        if (text[i] === '"' || text[i] === '{') throw malformed(text, `Unexpected "${text[i]}" character.`);
        if (text[i] === '\\') {
          i++;
          escaped = true;
          if (i >= n) throw malformed(text, 'Unexpected end of input.');
          v += text[i++];
          keep = v.length;
        } else {
          v += text[i++];
          if (!isSpace(v[v.length - 1])) keep = v.length;
        }
        any = true;
      }
      v = v.slice(0, keep);
    }
    skip();
    if (!any || (!quoted && v === '')) throw malformed(text, `Unexpected "${text[i] ?? ','}" character.`);
    out.push(!quoted && !escaped && v.toUpperCase() === 'NULL' ? null : v);
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (text[i] === '}') {
      i++;
      skip();
      if (i !== n) throw malformed(text, 'Junk after closing right brace.');
      return out;
    }
    throw malformed(text, 'Unexpected end of input.');
  }
}

/** Does array_out quote this element? */
function needsQuotes(e: string): boolean {
  if (e === '' || (e.length === 4 && e.toUpperCase() === 'NULL')) return true;
  for (let i = 0; i < e.length; i++) {
    const c = e[i];
    if (c === '{' || c === '}' || c === '"' || c === ',' || c === '\\' || isSpace(c)) return true;
  }
  return false;
}

/** array_out of one-dimensional elements already in their types' output text. */
export function formatArrayText(elements: readonly (string | null)[]): string {
  let s = '{';
  for (let i = 0; i < elements.length; i++) {
    if (i > 0) s += ',';
    const e = elements[i]!;
    if (e === null) s += 'NULL';
    else if (needsQuotes(e)) s += `"${e.replace(/["\\]/g, '\\$&')}"`;
    else s += e;
  }
  return `${s}}`;
}

/** For the storage layers' exhaustive switches: no column has an array type (parse-type rejects it). */
export function arrayNotStorable(where: string): never {
  throw new Error(`${where}: arrays are an expression type; no column stores one`);
}

/**
 * Array and record text (PostgreSQL 15 docs 8.15.6 "Array Input and Output Syntax", 8.16.6
 * "Composite Type Input and Output Syntax"). The engine has no array or record types: an
 * array constant (`'{1,2,3}'::integer[]`) is parsed into its elements at bind time, and
 * array_agg / ROW(…) produce PostgreSQL's output text.
 *
 *   parseArrayText('{1, "a b",NULL}')   // ['1', 'a b', null]
 *   formatArray(['1', 'a b', null])     // '{1,"a b",NULL}'
 *   formatRecord(['1', '', null, 'x,y']) // '(1,"",,"x,y")'
 */
import { SQLSTATE } from '../../types/index.js';
import { notSupported, SqlError } from '../errors.js';

/** 22P02 as array_in words it; `_why` is PostgreSQL's DETAIL, kept for the reader. */
function malformed(text: string, _why: string): SqlError {
  return new SqlError('invalid_input', SQLSTATE.invalid_text_representation, `malformed array literal: "${text}"`);
}

const SPACE = /[ \t\n\r\v\f]/;

/** The elements of a one-dimensional array literal, as text (null for NULL); 22P02 when malformed. */
export function parseArrayText(text: string): (string | null)[] {
  let i = 0;
  const n = text.length;
  const skip = () => {
    while (i < n && SPACE.test(text[i]!)) i++;
  };
  skip();
  if (text[i] === '[') throw notSupported('array literals with dimension decorations');
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
    if (text[i] === '{') throw notSupported('multidimensional arrays');
    let v = '';
    let quoted = false;
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
      // Unquoted: backslashes escape; trailing unescaped whitespace is dropped.
      let keep = 0;
      while (i < n && text[i] !== ',' && text[i] !== '}') {
        if (text[i] === '"' || text[i] === '{') throw malformed(text, 'Unexpected array element.');
        if (text[i] === '\\') {
          i++;
          if (i >= n) throw malformed(text, 'Unexpected end of input.');
          v += text[i++];
          keep = v.length;
        } else {
          v += text[i++];
          if (!SPACE.test(v[v.length - 1]!)) keep = v.length;
        }
        any = true;
      }
      v = v.slice(0, keep);
    }
    skip();
    if (!any || (!quoted && v === '')) throw malformed(text, 'Unexpected "," character.');
    out.push(!quoted && v.toUpperCase() === 'NULL' ? null : v);
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

/** array_out of one-dimensional elements already in their types' output text. */
export function formatArray(elements: readonly (string | null)[]): string {
  let s = '{';
  for (let i = 0; i < elements.length; i++) {
    if (i > 0) s += ',';
    const e = elements[i]!;
    if (e === null) s += 'NULL';
    else if (e === '' || e.toUpperCase() === 'NULL' || /[{}",\\ \t\n\r\v\f]/.test(e)) s += `"${e.replace(/["\\]/g, '\\$&')}"`;
    else s += e;
  }
  return `${s}}`;
}

/** record_out of fields already in their types' output text: `(1,"a b",,x)`. */
export function formatRecord(fields: readonly (string | null)[]): string {
  let s = '(';
  for (let i = 0; i < fields.length; i++) {
    if (i > 0) s += ',';
    const f = fields[i]!;
    if (f === null) continue;
    if (f === '' || /["\\(), \t\n\r\v\f]/.test(f)) s += `"${f.replace(/["\\]/g, '$&$&')}"`;
    else s += f;
  }
  return `${s})`;
}

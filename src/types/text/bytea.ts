/**
 * bytea: varlena.c byteain. "\x" then hex pairs (encode.c hex_decode: space, \t, \n, \r may
 * separate pairs, not split them; errors are 22023), else the escape format where "\\" is a
 * backslash, "\ooo" (first digit 0-3) an octal byte, any other character its UTF-8 bytes.
 */
import { type PaxdError, SQLSTATE } from '../errors.js';
import { err, hexVal } from './scan.js';

const utf8enc = new TextEncoder();

export function parseBytea(s: string): Uint8Array {
  if (s.charCodeAt(0) === 92 && s.charCodeAt(1) === 120) {
    const out = new Uint8Array((s.length - 2) >>> 1);
    let n = 0;
    for (let i = 2; i < s.length; ) {
      const c = s.charCodeAt(i);
      if (c === 32 || c === 10 || c === 9 || c === 13) {
        i++;
        continue;
      }
      const hi = hexVal(c);
      if (hi < 0) throw badHexDigit(s, i);
      if (i + 1 >= s.length) throw err(SQLSTATE.invalid_parameter_value, 'invalid hexadecimal data: odd number of digits');
      const lo = hexVal(s.charCodeAt(i + 1));
      if (lo < 0) throw badHexDigit(s, i + 1);
      out[n++] = (hi << 4) | lo;
      i += 2;
    }
    return out.slice(0, n);
  }
  const bytes = utf8enc.encode(s);
  const out = new Uint8Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    if (b !== 92) {
      out[n++] = b;
      i++;
    } else if (bytes[i + 1] === 92) {
      out[n++] = 92;
      i += 2;
    } else {
      const d1 = bytes[i + 1]! - 48;
      const d2 = bytes[i + 2]! - 48;
      const d3 = bytes[i + 3]! - 48;
      if (!(d1 >= 0 && d1 <= 3 && d2 >= 0 && d2 <= 7 && d3 >= 0 && d3 <= 7)) {
        throw err(SQLSTATE.invalid_text_representation, 'invalid input syntax for type bytea');
      }
      out[n++] = (d1 << 6) | (d2 << 3) | d3;
      i += 4;
    }
  }
  return out.slice(0, n);
}

function badHexDigit(s: string, i: number): PaxdError {
  const cp = String.fromCodePoint(s.codePointAt(i)!);
  return err(SQLSTATE.invalid_parameter_value, `invalid hexadecimal digit: "${cp}"`);
}

export const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function formatBytea(b: Uint8Array): string {
  let s = '\\x';
  for (let i = 0; i < b.length; i++) s += HEX[b[i]!]!;
  return s;
}

/**
 * bytea: varlena.c byteain. "\x" then hex pairs (encode.c hex_decode: space, \t, \n, \r may
 * separate pairs, not split them; errors are 22023), else the escape format where "\\" is a
 * backslash, "\ooo" (first digit 0-3) an octal byte, any other character its UTF-8 bytes.
 */
import { type PaxdError, SQLSTATE } from '../errors.js';
import { err, hexVal } from './scan.js';
import { HEX_DIGITS, latin1, scratch } from './out.js';

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

/** Bytes of byteaout's hex text of n bytes: "\\x" and two digits per byte. */
export function byteaTextLength(n: number): number {
  return 2 + 2 * n;
}

/** Writes byteaout's text (bytea_output 'hex') of data[from, to) at o; returns the end. */
export function writeByteaText(buf: Uint8Array, o: number, data: Uint8Array, from: number, to: number): number {
  buf[o++] = 92; // '\'
  buf[o++] = 120; // 'x'
  for (let k = from; k < to; k++) {
    const x = data[k]!;
    buf[o++] = HEX_DIGITS[2 * x]!;
    buf[o++] = HEX_DIGITS[2 * x + 1]!;
  }
  return o;
}

/** byteaout. */
export function formatBytea(b: Uint8Array): string {
  const n = byteaTextLength(b.length);
  const out = n <= scratch.length ? scratch : Buffer.allocUnsafe(n);
  return latin1(out, writeByteaText(out, 0, b, 0, b.length));
}

/**
 * uuid: uuid.c string_to_uuid. Optional braces; 32 hex digits in pairs; a hyphen may follow
 * any even-numbered pair (after bytes 2, 4, ..., 14); no whitespace.
 */
import { invalidInput } from '../errors.js';
import { hexVal } from './scan.js';
import { HEX_DIGITS, latin1, scratch } from './out.js';

export function parseUuid(s: string): Uint8Array {
  const out = new Uint8Array(16);
  let i = 0;
  const braces = s.charCodeAt(0) === 123;
  if (braces) i++;
  for (let k = 0; k < 16; k++) {
    const hi = hexVal(s.charCodeAt(i));
    const lo = hexVal(s.charCodeAt(i + 1));
    if (hi < 0 || lo < 0) throw invalidInput('uuid', s);
    out[k] = (hi << 4) | lo;
    i += 2;
    if (s.charCodeAt(i) === 45 && (k & 1) === 1 && k < 15) i++;
  }
  if (braces) {
    if (s.charCodeAt(i) !== 125) throw invalidInput('uuid', s);
    i++;
  }
  if (i !== s.length) throw invalidInput('uuid', s);
  return out;
}

/** Bytes of uuid_out's text: 8-4-4-4-12 lower-case hex digits. */
export const UUID_TEXT_LENGTH = 36;

/** Writes uuid_out's text of the 16 bytes at b[from] at o; returns the end. */
export function writeUuidText(buf: Uint8Array, o: number, b: Uint8Array, from: number): number {
  for (let k = 0; k < 16; k++) {
    if (k === 4 || k === 6 || k === 8 || k === 10) buf[o++] = 45; // '-'
    const x = b[from + k]!;
    buf[o++] = HEX_DIGITS[2 * x]!;
    buf[o++] = HEX_DIGITS[2 * x + 1]!;
  }
  return o;
}

/** uuid_out. */
export function formatUuid(b: Uint8Array): string {
  return latin1(scratch, writeUuidText(scratch, 0, b, 0));
}

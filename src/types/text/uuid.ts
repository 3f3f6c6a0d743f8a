/**
 * uuid: uuid.c string_to_uuid. Optional braces; 32 hex digits in pairs; a hyphen may follow
 * any even-numbered pair (after bytes 2, 4, ..., 14); no whitespace.
 */
import { invalidInput } from '../errors.js';
import { hexVal } from './scan.js';
import { HEX } from './bytea.js';

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

export function formatUuid(b: Uint8Array): string {
  let s = '';
  for (let k = 0; k < 16; k++) {
    if (k === 4 || k === 6 || k === 8 || k === 10) s += '-';
    s += HEX[b[k]!]!;
  }
  return s;
}

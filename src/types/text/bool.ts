/**
 * bool: bool.c parse_bool_with_len after trimming isspace on both ends. Accepted: any prefix
 * of true/false/yes/no (case-insensitive), on, of/off (at least two letters), 1, 0.
 */
import { invalidInput } from '../errors.js';
import { isSpace, skipSpace } from './scan.js';

export function parseBool(s: string): boolean {
  const a = skipSpace(s, 0);
  let b = s.length;
  while (b > a && isSpace(s.charCodeAt(b - 1))) b--;
  const len = b - a;
  if (len > 0) {
    const w = s.slice(a, b).toLowerCase();
    switch (w.charCodeAt(0)) {
      case 116: // t
        if ('true'.startsWith(w)) return true;
        break;
      case 102: // f
        if ('false'.startsWith(w)) return false;
        break;
      case 121: // y
        if ('yes'.startsWith(w)) return true;
        break;
      case 110: // n
        if ('no'.startsWith(w)) return false;
        break;
      case 111: // o: 'o' alone is ambiguous
        if (w === 'on') return true;
        if (w === 'of' || w === 'off') return false;
        break;
      case 49:
        if (len === 1) return true;
        break;
      case 48:
        if (len === 1) return false;
        break;
    }
  }
  throw invalidInput('boolean', s);
}

/** boolout: t / f. */
export function formatBool(v: boolean): string {
  return v ? 't' : 'f';
}

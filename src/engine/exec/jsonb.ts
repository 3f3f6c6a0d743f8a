import { jsonNumberEnd, jsonStringEnd } from '../../types/index.js';

/**
 * jsonb equality. paxd stores jsonb as PostgreSQL's normalized output text (../../types/text/jsonb.ts:
 * keys sorted by length then bytes, duplicates dropped, fixed separators, numbers as
 * numeric_out prints them). Two jsonb values are equal (jsonb `=`, compareJsonbContainers)
 * when they have the same structure, the same strings and numerically equal numbers, so the
 * normalized texts of equal values differ only in numbers that differ in trailing fractional
 * zeros (`1.0` and `1`, `2.50` and `2.5`). The key drops those zeros, so equal values have equal keys:
 *
 *   jsonbEqualityKey('{"a": 1.50, "b": [1.0, "1.0"]}')  // '{"a": 1.5, "b": [1, "1.0"]}'
 */
export function jsonbEqualityKey(text: string): string {
  let out = '';
  let run = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // a string: the scanner finds its closing quote (the text is valid jsonb output)
      const close = jsonStringEnd(text, i + 1, n);
      i = close < 0 ? n : close + 1;
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      const start = i;
      const stop = jsonNumberEnd(text, i, n);
      i = stop < 0 ? i + 1 : stop;
      let dot = start;
      while (dot < i && text.charCodeAt(dot) !== 46) dot++;
      if (dot === i) continue;
      let end = i;
      while (end > dot + 1 && text.charCodeAt(end - 1) === 48) end--;
      if (end === dot + 1) end = dot;
      let num = text.slice(start, end);
      if (num === '-0') num = '0';
      out += text.slice(run, start) + num;
      run = i;
    } else i++;
  }
  return run === 0 ? text : out + text.slice(run);
}

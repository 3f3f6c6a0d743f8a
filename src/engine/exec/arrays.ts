/**
 * Record text (PostgreSQL 15 docs 8.16.6 "Composite Type Input and Output Syntax"). The engine
 * has no record type: ROW(…) produces PostgreSQL's output text. Arrays are a type of their own,
 * with their text in src/types/array.ts (parseArrayText, formatArrayText).
 *
 *   formatRecord(['1', '', null, 'x,y']) // '(1,"",,"x,y")'
 */

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

/**
 * Quoting for the DDL the mirror sends to PostgreSQL: identifiers are quoted only when
 * PostgreSQL would need it (not all lower-case letters, digits, `_` and `$`, or a reserved
 * key word), as `quote_ident()` does; literals are standard-conforming strings.
 *
 *   ident('events')    // events
 *   ident('Events')    // "Events"
 *   ident('user')      // "user"
 *   literal("it's")    // 'it''s'
 */

/** PostgreSQL 15's reserved key words and the non-reserved ones that cannot be a column name (Appendix C). */
const RESERVED = new Set(
  (
    'all analyse analyze and any array as asc asymmetric authorization binary both case cast check collate collation column ' +
    'concurrently constraint create cross current_catalog current_date current_role current_schema current_time ' +
    'current_timestamp current_user default deferrable desc distinct do else end except false fetch for foreign freeze ' +
    'from full grant group having ilike in initially inner intersect into is isnull join lateral leading left like limit ' +
    'localtime localtimestamp natural not notnull null offset on only or order outer overlaps placing primary references ' +
    'returning right select session_user similar some symmetric system_user table tablesample then to trailing true union unique user ' +
    'using variadic verbose when where window with between bigint bit boolean char character coalesce dec decimal exists ' +
    'extract float greatest grouping inout int integer interval least national nchar none normalize nullif numeric out ' +
    'overlay position precision real row setof smallint substring time timestamp treat trim values varchar xmlattributes ' +
    'xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot xmlserialize xmltable'
  ).split(' '),
);

/** An identifier as PostgreSQL's quote_ident() prints it. */
export function ident(name: string): string {
  if (/^[a-z_][a-z0-9_$]*$/.test(name) && !RESERVED.has(name)) return name;
  return `"${name.replace(/"/g, '""')}"`;
}

/** `schema.name`, each part quoted as needed. */
export function qualified(schema: string, name: string): string {
  return `${ident(schema)}.${ident(name)}`;
}

/** A string literal (standard_conforming_strings on: backslashes are plain characters). */
export function literal(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

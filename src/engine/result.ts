/**
 * A query's result: column names and PostgreSQL types, and the rows as engine values
 * (numeric as exact text). `textRows` prints them as PostgreSQL's output functions do, the
 * form psql and the wire protocol's text format show:
 *
 *   const r = await query(db, 'SELECT count(*), avg(x) FROM t');
 *   textRows(r)   // [['3', '2.0000000000000000']]
 */
import { type PgType, type TimeZone, type Value, UTC, formatText } from '../types/index.js';

export interface ResultField {
  readonly name: string;
  readonly type: PgType;
  /** The type with the typmod PostgreSQL keeps (numeric(p,s)) where `type`, the engine's, lost it. */
  readonly declared?: PgType;
  /** The stored table column it reads, for RowDescription (./origin.ts); absent when computed. */
  readonly origin?: { readonly table: number; readonly column: number };
}

export interface QueryResult {
  /** The command tag's verb: 'SELECT'. */
  readonly command: string;
  /** The full command tag when it is not `command rows` (`INSERT 0 3`, `CREATE TABLE`). */
  readonly tag?: string;
  readonly fields: readonly ResultField[];
  readonly rows: readonly (readonly Value[])[];
}

/** Each row as PostgreSQL's text output (timestamptz in `zone`, the session's TimeZone), NULL as null. */
export function textRows(r: QueryResult, zone: TimeZone = UTC): (string | null)[][] {
  return r.rows.map((row) => row.map((v, i) => (v === null ? null : r.fields[i]!.type.id === 'numeric' && typeof v === 'string' ? v : formatText(r.fields[i]!.type, v, zone))));
}

/** PostgreSQL's command tag: `SELECT 3`, `INSERT 0 2`, `DELETE 1`, `CREATE TABLE`. */
export function commandTag(r: QueryResult): string {
  return r.tag ?? `${r.command} ${r.rows.length}`;
}

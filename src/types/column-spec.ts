/**
 * A column as a caller declares it: a type name (`'numeric(12,2)'`) or a parsed PgType, NOT
 * NULL and a default in PostgreSQL's text form. `Database.createTable` takes these; schema
 * inference (src/insert/infer.ts) produces them.
 */
import type { PgType } from './type.js';

export interface ColumnSpec {
  name: string;
  type: string | PgType;
  notNull?: boolean;
  default?: string;
}

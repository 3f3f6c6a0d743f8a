/**
 * CREATE TABLE name (column type [NOT NULL | NULL | DEFAULT constant], …)
 *   [WITH (layout = pax | ao_column, codec = lz4 | zstd | none)]
 *
 * Column types are PostgreSQL's names (src/types/parse-type.ts). A DEFAULT must be a constant
 * expression; it is stored as the column type's text. Constraints other than NOT NULL and
 * DEFAULT (PRIMARY KEY, UNIQUE, CHECK, REFERENCES), TEMPORARY, LIKE, INHERITS and PARTITION BY
 * fail with 0A000. IF NOT EXISTS on an existing table does nothing, as in PostgreSQL.
 */
import type { ColumnSpec, CreateTableOptions, Database } from '../../table/index.js';
import { PaxdError, SQLSTATE, type Field, type PgType, isStorable, pgDisplayName } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, str } from '../parse.js';
import { bindValue, isUnknownLiteral, typeOf } from '../bind.js';
import { notSupported, positionOf, SqlError } from '../errors.js';
import { evaluate } from '../exec/eval.js';
import { toText } from '../exec/kernels.js';
import type { QueryResult } from '../result.js';
import { assignExpr, checkAssignable } from './assign.js';

export async function createTable(db: Database, s: AstFields): Promise<QueryResult> {
  const rel = s.relation as AstFields;
  if (rel.relpersistence === 't') throw notSupported('temporary tables', rel.location);
  if (rel.relpersistence === 'u') throw notSupported('unlogged tables', rel.location);
  if (rel.schemaname !== undefined) throw notSupported('schema-qualified table names', rel.location);
  if (s.inhRelations !== undefined) throw notSupported('INHERITS');
  if (s.partspec !== undefined) throw notSupported('PARTITION BY');
  if (s.constraints !== undefined) throw notSupported('table constraints');
  const name = rel.relname as string;
  const columns = ((s.tableElts ?? []) as AstNode[]).map(columnSpec);
  const options = tableOptions((s.options ?? []) as AstNode[]);
  if (s.if_not_exists === true && (await tableExists(db, name))) return { command: 'CREATE TABLE', tag: 'CREATE TABLE', fields: [], rows: [] };
  if (columns.length === 0) throw notSupported('tables without columns', rel.location);
  await db.createTable(name, columns, options);
  return { command: 'CREATE TABLE', tag: 'CREATE TABLE', fields: [], rows: [] };
}

/** True when `name` is a table now (42P01 from opening it means no). */
export async function tableExists(db: Database, name: string): Promise<boolean> {
  try {
    await db.table(name);
    return true;
  } catch (e) {
    if (e instanceof PaxdError && e.code === SQLSTATE.undefined_table) return false;
    throw e;
  }
}

/** One ColumnDef of CREATE TABLE or ALTER TABLE … ADD COLUMN. */
export function columnSpec(node: AstNode): ColumnSpec {
  if (kindOf(node) !== 'ColumnDef') throw notSupported(kindOf(node) === 'Constraint' ? 'table constraints' : `${kindOf(node)} in CREATE TABLE`);
  const c = fieldsOf(node);
  if (c.collClause !== undefined) throw notSupported('COLLATE', c.location);
  const type = typeOf(c.typeName);
  // oid, name, "char", reg* …: expression and catalog types; paxd's columns do not store them.
  if (!isStorable(type)) throw notSupported(`columns of type ${pgDisplayName(type)}`, (c.typeName as { location?: number }).location);
  const spec: ColumnSpec = { name: c.colname as string, type };
  for (const k of (c.constraints ?? []) as AstNode[]) {
    const con = fieldsOf(k);
    switch (con.contype as string) {
      case 'CONSTR_NOTNULL':
        spec.notNull = true;
        break;
      case 'CONSTR_NULL':
        spec.notNull = false;
        break;
      case 'CONSTR_DEFAULT': {
        const d = defaultText(spec.name, type, con.raw_expr);
        if (d !== null) spec.default = d;
        break;
      }
      default:
        throw notSupported(`${CONSTRAINT_NAMES[con.contype as string] ?? String(con.contype)} constraints`, con.location);
    }
  }
  return spec;
}

/** A DEFAULT's value as the column type's text, or null for DEFAULT NULL. */
function defaultText(column: string, type: PgType, node: AstNode): string | null {
  const e = bindValue(node, 'DEFAULT expressions');
  if (e.kind !== 'const') throw notSupported('non-constant DEFAULT expressions');
  const field: Field = { name: column, type, notNull: false, fieldId: 0 };
  if (!isUnknownLiteral(e)) checkAssignable(e.type, field);
  let v;
  try {
    v = assignExpr(e, field, evaluate(e, { rows: 1, cols: [] })[0]!);
  } catch (err) {
    // PostgreSQL parses an untyped literal at CREATE time but runs casts (and the length
    // check of varchar(n)) at each INSERT; paxd stores a default as text, so it cannot keep
    // a default that fails only later.
    const deferred = !isUnknownLiteral(e) || (err as { code?: string }).code === SQLSTATE.string_data_right_truncation;
    if (deferred && err instanceof PaxdError) throw notSupported(`a DEFAULT whose value does not fit column "${column}" (PostgreSQL fails at INSERT: ${err.message})`);
    throw err;
  }
  return v === null ? null : toText(type, v);
}

const LAYOUTS = ['pax', 'ao_column'] as const;
/** PostgreSQL's own table storage parameters (reloptions.c): valid there, meaningless for paxd. */
const PG_HEAP_OPTIONS = /^(fillfactor|autovacuum_\w+|toast_tuple_target|parallel_workers|user_catalog_table|vacuum_index_cleanup|vacuum_truncate|log_autovacuum_min_duration)$/;
const CODECS = ['lz4', 'zstd', 'none'] as const;

/** WITH (layout = …, codec = …): paxd's storage parameters (DESIGN.md "Interfaces"). */
export function tableOptions(opts: AstNode[]): CreateTableOptions {
  const out: CreateTableOptions = {};
  for (const o of opts) {
    const d = fieldsOf(o);
    const name = (d.defname as string).toLowerCase();
    const value = d.arg === undefined ? '' : optionValue(d.arg).toLowerCase();
    if (name === 'layout' && (LAYOUTS as readonly string[]).includes(value)) out.layout = value as (typeof LAYOUTS)[number];
    else if (name === 'codec' && (CODECS as readonly string[]).includes(value)) out.codec = value as (typeof CODECS)[number];
    else if (name === 'layout' || name === 'codec')
      throw new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, `invalid value for parameter "${name}": "${value}" (use ${(name === 'layout' ? LAYOUTS : CODECS).join(', ')})`, positionOf(d.location));
    else if (PG_HEAP_OPTIONS.test(name)) throw notSupported(`storage parameter ${name}`, d.location);
    else throw new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, `unrecognized parameter "${name}"`, positionOf(d.location));
  }
  return out;
}

function optionValue(arg: AstNode): string {
  switch (kindOf(arg)) {
    case 'String':
      return str(arg);
    case 'TypeName':
      return ((fieldsOf(arg).names as AstNode[]).map(str)).join('.');
    case 'Integer':
      return String(fieldsOf(arg).ival ?? 0);
    default:
      return kindOf(arg);
  }
}

const CONSTRAINT_NAMES: Record<string, string> = {
  CONSTR_PRIMARY: 'PRIMARY KEY',
  CONSTR_UNIQUE: 'UNIQUE',
  CONSTR_CHECK: 'CHECK',
  CONSTR_FOREIGN: 'REFERENCES',
  CONSTR_EXCLUSION: 'EXCLUDE',
  CONSTR_GENERATED: 'GENERATED',
  CONSTR_IDENTITY: 'identity column',
};

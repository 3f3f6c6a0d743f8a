/**
 * The catalog functions clients call (PostgreSQL 15 docs 9.26 "System Information Functions"
 * and 9.27.7 "Database Object Management"), over the statement's catalog snapshot
 * (./snapshot.ts), which the binder loaded when the statement names any of them (./bind.ts):
 *
 *   pg_get_userbyid(10)              → 'postgres'        pg_encoding_to_char(6) → 'UTF8'
 *   format_type(1043, 14)            → 'character varying(10)'
 *   pg_size_pretty(123456789::int8)  → '118 MB'          pg_table_is_visible(c.oid) → true
 *
 * OIDs are int8 here, as the system relations' oid columns are (./relation.ts).
 */
import { type PgType, type Value, SQLSTATE } from '../../types/index.js';
import { SqlError, notSupported } from '../errors.js';
import { T } from '../types.js';
import type { Family, Kernel, Signature } from '../functions/signature.js';
import { type CatalogSnapshot, currentCatalog, roleName, tableByOid } from './snapshot.js';
import { formatType } from './format.js';
import { builtinType, builtinTypeNamed } from './pg-type.js';
import { INVISIBLE_RELATIONS } from './visibility.js';

const INT8: PgType = Object.freeze({ id: 'int8' });
const INT4: PgType = Object.freeze({ id: 'int4' });

const sig = (params: readonly PgType[], result: PgType, kernel: Kernel, extra: Partial<Signature> = {}): Signature => Object.freeze({ params, result, kernel, volatility: 'stable', ...extra });

function catalog(): CatalogSnapshot {
  const c = currentCatalog();
  if (c === null) throw new SqlError('internal', SQLSTATE.internal_error, 'internal error: a catalog function ran without the statement catalog');
  return c;
}

const oidOf = (v: Value) => Number(v as bigint);

/** pg_size_pretty (PostgreSQL 15's dbsize.c): bytes below 10 kB, then kB, MB, GB, TB, PB, each rounded half away from zero. */
export function sizePretty(bytes: bigint): string {
  const limit = 10n * 1024n;
  const limit2 = limit * 2n - 1n;
  const abs = (x: bigint) => (x < 0n ? -x : x);
  if (abs(bytes) < limit) return `${bytes} bytes`;
  const half = (x: bigint) => (x + (x < 0n ? -1n : 1n)) / 2n;
  let size = bytes >> 9n;
  for (const unit of ['kB', 'MB', 'GB', 'TB']) {
    if (abs(size) < limit2) return `${half(size)} ${unit}`;
    size >>= 10n;
  }
  return `${half(size)} PB`;
}

const tableBytes: Kernel = (a) => {
  const t = tableByOid(catalog(), oidOf(a[0]!));
  return t === undefined ? null : BigInt(t.bytes);
};

const ENCODINGS: Readonly<Record<number, string>> = { 0: 'SQL_ASCII', 6: 'UTF8' };

const visible: Kernel = (a) => !INVISIBLE_RELATIONS.has(oidOf(a[0]!));

const nothing: Kernel = () => null;

/** pg_description's rows (./pg-catalog.ts DESCRIPTIONS: PostgreSQL's comments on the schemas). */
export const SCHEMA_COMMENTS: { objoid: number; catalog: string; description: string }[] = [];

/** has_table_privilege and friends: answered from src/table/privileges.ts for paxd's tables; the system relations are readable by all. */
function privilege(user: string | null, table: Value, what: string): boolean {
  const c = catalog();
  const privs = what
    .split(',')
    .map((p) => p.trim().toUpperCase().replace(/ WITH GRANT OPTION$/, ''));
  for (const p of privs)
    if (!['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER'].includes(p))
      throw new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, `unrecognized privilege type: "${what}"`);
  const t = typeof table === 'bigint' ? tableByOid(c, Number(table)) : c.tables.find((x) => x.name === String(table).replace(/^public\./, ''));
  if (t === undefined) return typeof table === 'bigint' ? false : privs.every((p) => p === 'SELECT');
  if (user !== null && user !== c.user) return false;
  return privs.some((p) => c.privileges.has(t.name, p as never));
}

/** regclassout and friends: an object's name, or its OID as digits when there is none (PostgreSQL's output functions). */
function regName(kind: 'class' | 'type' | 'namespace' | 'proc' | 'role', v: Value): string {
  const oid = oidOf(v);
  const c = catalog();
  let name: string | null | undefined = null;
  switch (kind) {
    case 'class':
      name = tableByOid(c, oid)?.name ?? c.views.find((v) => v.oid === oid)?.name ?? systemRelationName(oid);
      break;
    case 'type':
      name = c.tables.find((t) => t.typeOid === oid)?.name ?? (builtinType(oid) === undefined ? null : formatType(oid, null));
      break;
    case 'namespace':
      name = NAMESPACE_NAMES[oid];
      break;
    case 'proc':
      name = FUNCTION_NAMES.get(oid);
      break;
    case 'role':
      name = roleName(c, oid);
      break;
  }
  return name ?? String(oid);
}

const NAMESPACE_NAMES: Readonly<Record<number, string>> = { 11: 'pg_catalog', 2200: 'public', 99: 'pg_toast', 13207: 'information_schema' };

/** System relations' names by OID, qualified when search_path does not reach them (./pg-catalog.ts registers them). */
export const SYSTEM_RELATION_NAMES = new Map<number, string>();
const systemRelationName = (oid: number) => SYSTEM_RELATION_NAMES.get(oid) ?? null;

/** Library functions' names by OID (./pg-proc.ts registers them). */
export const FUNCTION_NAMES = new Map<number, string>();

/** The parts of a possibly qualified, possibly quoted name: `pg_catalog."X"` → ['pg_catalog', 'X']. */
function nameParts(text: string): string[] {
  return (text.trim().match(/("([^"]|"")*"|[^."]+)/g) ?? []).map((p) => (p.startsWith('"') ? p.slice(1, -1).replace(/""/g, '"') : p.toLowerCase()));
}

/** The SQL names regtype's input takes beside typnames (PostgreSQL's parser: format_type's spellings). */
const TYPE_ALIASES: Readonly<Record<string, string>> = {
  integer: 'int4', int: 'int4', smallint: 'int2', bigint: 'int8', real: 'float4', 'double precision': 'float8', boolean: 'bool', 'character varying': 'varchar',
  character: 'bpchar', char: 'bpchar', decimal: 'numeric', 'timestamp without time zone': 'timestamp', 'timestamp with time zone': 'timestamptz', '"char"': 'char',
  'time without time zone': 'time', 'time with time zone': 'timetz',
};

/** regclassin and friends (the reg* types' input): an object's oid by name, digits as they are, else the object's "does not exist". */
function regOid(kind: 'class' | 'type' | 'namespace' | 'proc' | 'role', v: Value): bigint {
  const text = String(v).trim();
  if (/^\d+$/.test(text)) return BigInt(text);
  const c = catalog();
  const parts = nameParts(text);
  const last = parts[parts.length - 1] ?? '';
  const schema = parts.length > 1 ? parts[parts.length - 2] : undefined;
  let oid: number | undefined;
  switch (kind) {
    case 'class':
      oid = (schema === undefined || schema === 'public' ? c.tables.find((t) => t.name === last)?.oid : undefined) ?? [...SYSTEM_RELATION_NAMES].find(([, n]) => n === (schema === undefined || schema === 'pg_catalog' ? last : `${schema}.${last}`))?.[0];
      if (oid === undefined) throw new SqlError('not_found', SQLSTATE.undefined_table, `relation "${text}" does not exist`);
      break;
    case 'type': {
      const plain = text.toLowerCase().replace(/^pg_catalog\./, '').replace(/\s*\(.*\)$/, '');
      const array = plain.endsWith('[]');
      const base = array ? plain.slice(0, -2) : plain;
      const b = builtinTypeNamed(TYPE_ALIASES[base] ?? base);
      oid = array ? b?.array : (b?.oid ?? c.tables.find((t) => t.name === last)?.typeOid);
      if (oid === undefined || oid === 0) throw new SqlError('not_found', SQLSTATE.undefined_object, `type "${text}" does not exist`);
      break;
    }
    case 'namespace':
      oid = Object.entries(NAMESPACE_NAMES).find(([, n]) => n === last)?.[0] as number | undefined;
      if (oid === undefined) throw new SqlError('not_found', SQLSTATE.invalid_schema_name, `schema "${text}" does not exist`);
      oid = Number(oid);
      break;
    case 'proc': {
      const hits = [...FUNCTION_NAMES].filter(([, n]) => n === last);
      if (hits.length === 0) throw new SqlError('not_found', SQLSTATE.undefined_function, `function "${text}" does not exist`);
      if (hits.length > 1) throw new SqlError('invalid_input', SQLSTATE.ambiguous_function, `more than one function named "${text}"`);
      oid = hits[0]![0];
      break;
    }
    case 'role':
      oid = c.roles.find((r) => r.name === last)?.oid;
      if (oid === undefined) throw new SqlError('not_found', SQLSTATE.undefined_object, `role "${text}" does not exist`);
      break;
  }
  return BigInt(oid);
}

export const CATALOG_FUNCTIONS: Family = Object.freeze({
  // An output column of a name cast to a reg* type (./names.ts checkRegOutput): the input
  // function's errors first (42704, 42P01), as PostgreSQL's; then 0A000 instead of an oid where
  // PostgreSQL prints the name.
  paxd_reg_output: [sig([INT8], INT8, () => {
    throw notSupported('reg* values as output columns (cast them to text or oid)');
  })],
  regclassin: [sig([T.text], INT8, (a) => regOid('class', a[0]!))],
  regtypein: [sig([T.text], INT8, (a) => regOid('type', a[0]!))],
  regnamespacein: [sig([T.text], INT8, (a) => regOid('namespace', a[0]!))],
  regprocin: [sig([T.text], INT8, (a) => regOid('proc', a[0]!))],
  regrolein: [sig([T.text], INT8, (a) => regOid('role', a[0]!))],
  regclassout: [sig([INT8], T.text, (a) => regName('class', a[0]!))],
  regtypeout: [sig([INT8], T.text, (a) => regName('type', a[0]!))],
  regnamespaceout: [sig([INT8], T.text, (a) => regName('namespace', a[0]!))],
  regprocout: [sig([INT8], T.text, (a) => regName('proc', a[0]!))],
  regroleout: [sig([INT8], T.text, (a) => regName('role', a[0]!))],
  pg_get_userbyid: [sig([INT8], T.text, (a) => roleName(catalog(), oidOf(a[0]!)) ?? `unknown (OID=${a[0]})`)],
  pg_encoding_to_char: [sig([INT4], T.text, (a) => ENCODINGS[a[0] as number] ?? '', { volatility: 'immutable' })],
  pg_table_is_visible: [sig([INT8], T.bool, visible)],
  pg_type_is_visible: [sig([INT8], T.bool, (a) => builtinType(oidOf(a[0]!)) !== undefined || catalog().tables.some((t) => t.typeOid === oidOf(a[0]!)))],
  pg_function_is_visible: [sig([INT8], T.bool, () => true)],
  format_type: [sig([INT8, INT4], T.text, (a) => (a[0] === null || a[0] === undefined ? null : formatType(oidOf(a[0]), (a[1] ?? null) as number | null)), { strict: false, volatility: 'immutable' })],
  // adbin holds the expression's text (pg_attrdef, ./pg-catalog.ts): pg_get_expr prints it.
  pg_get_expr: [sig([T.text, INT8], T.text, (a) => a[0]!), sig([T.text, INT8, T.bool], T.text, (a) => a[0]!)],
  obj_description: [
    sig([INT8, T.text], T.text, (a) => SCHEMA_COMMENTS.find((d) => d.objoid === oidOf(a[0]!) && d.catalog === String(a[1]).replace(/^pg_catalog\./, ''))?.description ?? null),
    sig([INT8], T.text, (a) => SCHEMA_COMMENTS.find((d) => d.objoid === oidOf(a[0]!))?.description ?? null),
  ],
  col_description: [sig([INT8, INT4], T.text, nothing)],
  shobj_description: [sig([INT8, T.text], T.text, nothing)],
  pg_get_constraintdef: [sig([INT8], T.text, nothing), sig([INT8, T.bool], T.text, nothing)],
  pg_get_indexdef: [sig([INT8], T.text, nothing), sig([INT8, INT4, T.bool], T.text, nothing)],
  pg_get_viewdef: [
    sig([INT8], T.text, (a) => viewDefinition(oidOf(a[0]!))),
    sig([INT8, T.bool], T.text, (a) => viewDefinition(oidOf(a[0]!))),
    sig([T.text], T.text, (a) => catalog().views.find((v) => v.name === String(a[0]).replace(/^public\./, ''))?.definition ?? null),
  ],
  pg_table_size: [sig([INT8], INT8, tableBytes)],
  pg_total_relation_size: [sig([INT8], INT8, tableBytes)],
  pg_indexes_size: [sig([INT8], INT8, (a) => (tableByOid(catalog(), oidOf(a[0]!)) === undefined ? null : 0n))],
  pg_size_pretty: [sig([INT8], T.text, (a) => sizePretty(a[0] as bigint), { volatility: 'immutable' })],
  has_table_privilege: [
    sig([T.text, T.text], T.bool, (a) => privilege(null, a[0]!, a[1] as string)),
    sig([INT8, T.text], T.bool, (a) => privilege(null, a[0]!, a[1] as string)),
    sig([T.text, T.text, T.text], T.bool, (a) => privilege(a[0] as string, a[1]!, a[2] as string)),
    sig([T.text, INT8, T.text], T.bool, (a) => privilege(a[0] as string, a[1]!, a[2] as string)),
  ],
  has_schema_privilege: [
    sig([T.text, T.text], T.bool, (a) => schemaPrivilege(a[0] as string, a[1] as string)),
    sig([T.text, T.text, T.text], T.bool, (a) => schemaPrivilege(a[1] as string, a[2] as string)),
  ],
  has_database_privilege: [sig([T.text, T.text], T.bool, () => true), sig([T.text, T.text, T.text], T.bool, () => true)],
  pg_get_function_result: [sig([INT8], T.text, (a) => functionPart(oidOf(a[0]!), 'result'))],
  pg_get_function_arguments: [sig([INT8], T.text, (a) => functionPart(oidOf(a[0]!), 'arguments'))],
  pg_get_function_identity_arguments: [sig([INT8], T.text, (a) => functionPart(oidOf(a[0]!), 'arguments'))],
});

function schemaPrivilege(schema: string, what: string): boolean {
  const p = what.trim().toUpperCase();
  if (p !== 'USAGE' && p !== 'CREATE') throw new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, `unrecognized privilege type: "${what}"`);
  if (!['public', 'pg_catalog', 'information_schema', 'pg_toast'].includes(schema)) throw new SqlError('not_found', SQLSTATE.invalid_schema_name, `schema "${schema}" does not exist`);
  if (p === 'USAGE') return true;
  return schema === 'public' && catalog().privileges.superuser;
}

/** pg_get_viewdef: the view's SELECT as written (./views.ts); NULL for an OID that is no view, as PostgreSQL 15 answers. */
function viewDefinition(oid: number): string | null {
  return catalog().views.find((v) => v.oid === oid)?.definition ?? null;
}

/** The function signatures ./pg-proc.ts lists, by OID (set there: the library registers this family). */
export const FUNCTION_PARTS = new Map<number, { result: string; arguments: string }>();

function functionPart(oid: number, part: 'result' | 'arguments'): string | null {
  return FUNCTION_PARTS.get(oid)?.[part] ?? null;
}



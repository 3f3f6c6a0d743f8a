/**
 * The catalog functions clients call (PostgreSQL 15 docs 9.26 "System Information Functions"
 * and 9.27.7 "Database Object Management"), over the statement's catalog snapshot
 * (./snapshot.ts), which the binder loaded when the statement names any of them (./bind.ts):
 *
 *   pg_get_userbyid(10)              → 'postgres'        pg_encoding_to_char(6) → 'UTF8'
 *   format_type(1043, 14)            → 'character varying(10)'
 *   pg_size_pretty(123456789::int8)  → '118 MB'          pg_table_is_visible(c.oid) → true
 *
 * OIDs are oid here (bigints in [0, 2^32)), as the system relations' oid columns are (./relation.ts).
 */
import { type PgType, type Value, SQLSTATE } from '../../types/index.js';
import { SqlError } from '../errors.js';
import { T } from '../types.js';
import type { Family, Kernel, Signature } from '../functions/signature.js';
import { type CatalogSnapshot, currentCatalog, roleName, tableByOid } from './snapshot.js';
import { formatType } from './format.js';
import { builtinType } from './pg-type.js';
import { toReg } from './reg-io.js';
import { FUNCTION_PARTS } from './object-names.js';
import { INVISIBLE_RELATIONS } from './visibility.js';
import { DESCRIBE_FUNCTIONS } from './describe-functions.js';

const INT8: PgType = Object.freeze({ id: 'int8' });
const INT4: PgType = Object.freeze({ id: 'int4' });
/** The object identifiers the catalog functions take, as PostgreSQL declares them (pg_proc.dat). */
const OID: PgType = Object.freeze({ id: 'oid' });
const REGCLASS: PgType = Object.freeze({ id: 'regclass' });
const REGTYPE: PgType = Object.freeze({ id: 'regtype' });
const REGNAMESPACE: PgType = Object.freeze({ id: 'regnamespace' });
const REGROLE: PgType = Object.freeze({ id: 'regrole' });
const REGPROC: PgType = Object.freeze({ id: 'regproc' });
const NAME: PgType = Object.freeze({ id: 'name' });

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

export { FUNCTION_NAMES, FUNCTION_PARTS, SYSTEM_RELATION_NAMES } from './object-names.js';

export const CATALOG_FUNCTIONS: Family = Object.freeze({
  ...DESCRIBE_FUNCTIONS,
  to_regclass: [sig([T.text], REGCLASS, (a) => toReg('regclass', a[0]!))],
  to_regtype: [sig([T.text], REGTYPE, (a) => toReg('regtype', a[0]!))],
  to_regnamespace: [sig([T.text], REGNAMESPACE, (a) => toReg('regnamespace', a[0]!))],
  to_regrole: [sig([T.text], REGROLE, (a) => toReg('regrole', a[0]!))],
  to_regproc: [sig([T.text], REGPROC, (a) => toReg('regproc', a[0]!))],
  pg_get_userbyid: [sig([OID], NAME, (a) => roleName(catalog(), oidOf(a[0]!)) ?? `unknown (OID=${a[0]})`)],
  pg_encoding_to_char: [sig([INT4], NAME, (a) => ENCODINGS[a[0] as number] ?? '', { volatility: 'immutable' })],
  pg_table_is_visible: [sig([OID], T.bool, visible)],
  pg_type_is_visible: [sig([OID], T.bool, (a) => builtinType(oidOf(a[0]!)) !== undefined || catalog().tables.some((t) => t.typeOid === oidOf(a[0]!)))],
  pg_function_is_visible: [sig([OID], T.bool, () => true)],
  format_type: [sig([OID, INT4], T.text, (a) => (a[0] === null || a[0] === undefined ? null : formatType(oidOf(a[0]), (a[1] ?? null) as number | null)), { strict: false, volatility: 'immutable' })],
  // adbin holds the expression's text (pg_attrdef, ./pg-catalog.ts): pg_get_expr prints it.
  pg_get_expr: [sig([T.text, OID], T.text, (a) => a[0]!), sig([T.text, OID, T.bool], T.text, (a) => a[0]!)],
  obj_description: [
    sig([OID, NAME], T.text, (a) => SCHEMA_COMMENTS.find((d) => d.objoid === oidOf(a[0]!) && d.catalog === String(a[1]).replace(/^pg_catalog\./, ''))?.description ?? null),
    sig([OID], T.text, (a) => SCHEMA_COMMENTS.find((d) => d.objoid === oidOf(a[0]!))?.description ?? null),
  ],
  col_description: [sig([OID, INT4], T.text, nothing)],
  shobj_description: [sig([OID, NAME], T.text, nothing)],
  pg_get_constraintdef: [sig([OID], T.text, nothing), sig([OID, T.bool], T.text, nothing)],
  pg_get_indexdef: [sig([OID], T.text, nothing), sig([OID, INT4, T.bool], T.text, nothing)],
  pg_get_viewdef: [
    sig([OID], T.text, (a) => viewDefinition(oidOf(a[0]!))),
    sig([OID, T.bool], T.text, (a) => viewDefinition(oidOf(a[0]!))),
    sig([T.text], T.text, (a) => catalog().views.find((v) => v.name === String(a[0]).replace(/^public\./, ''))?.definition ?? null),
  ],
  pg_table_size: [sig([REGCLASS], INT8, tableBytes)],
  pg_total_relation_size: [sig([REGCLASS], INT8, tableBytes)],
  pg_indexes_size: [sig([REGCLASS], INT8, (a) => (tableByOid(catalog(), oidOf(a[0]!)) === undefined ? null : 0n))],
  pg_size_pretty: [sig([INT8], T.text, (a) => sizePretty(a[0] as bigint), { volatility: 'immutable' })],
  has_table_privilege: [
    sig([T.text, T.text], T.bool, (a) => privilege(null, a[0]!, a[1] as string)),
    sig([OID, T.text], T.bool, (a) => privilege(null, a[0]!, a[1] as string)),
    sig([T.text, T.text, T.text], T.bool, (a) => privilege(a[0] as string, a[1]!, a[2] as string)),
    sig([NAME, OID, T.text], T.bool, (a) => privilege(a[0] as string, a[1]!, a[2] as string)),
  ],
  has_schema_privilege: [
    sig([T.text, T.text], T.bool, (a) => schemaPrivilege(a[0] as string, a[1] as string)),
    sig([T.text, T.text, T.text], T.bool, (a) => schemaPrivilege(a[1] as string, a[2] as string)),
  ],
  has_database_privilege: [sig([T.text, T.text], T.bool, () => true), sig([T.text, T.text, T.text], T.bool, () => true)],
  pg_get_function_result: [sig([OID], T.text, (a) => functionPart(oidOf(a[0]!), 'result'))],
  pg_get_function_arguments: [sig([OID], T.text, (a) => functionPart(oidOf(a[0]!), 'arguments'))],
  pg_get_function_identity_arguments: [sig([OID], T.text, (a) => functionPart(oidOf(a[0]!), 'arguments'))],
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

function functionPart(oid: number, part: 'result' | 'arguments'): string | null {
  return FUNCTION_PARTS.get(oid)?.[part] ?? null;
}



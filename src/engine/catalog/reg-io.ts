/**
 * The reg* types' input and output functions over the statement's catalog (PostgreSQL 15
 * utils/adt/regproc.c; docs 8.19): a name in, its object's oid; an oid out, its object's name,
 * quoted as an identifier where needed and schema-qualified where search_path
 * (`pg_catalog, public`) does not reach it; `-` for 0; the digits for an oid that names nothing.
 *
 *   regOut('regclass', 1259n)              → 'pg_class'
 *   regOut('regclass', <oid of "T T">)     → '"T T"'
 *   regOut('regclass', 13xxx)              → 'information_schema.tables'
 *   regOut('regtype', 1043n)               → 'character varying'
 *   regIn('regclass', 'nope')              → 42P01 relation "nope" does not exist
 *
 * The values are oids (src/types/text/oid.ts); src/engine/exec/kernels.ts casts through these,
 * and ./names.ts prints a result column of a reg* type with regOut.
 */
import { type RegTypeId, type Value, SQLSTATE, parseOid } from '../../types/index.js';
import { SqlError, notSupported } from '../errors.js';
import { quoteIdent } from '../functions/strings.js';
import { type CatalogSnapshot, currentCatalog, roleName, tableByOid } from './snapshot.js';
import { formatType } from './format.js';
import { builtinType, builtinTypeNamed } from './pg-type.js';
import { FUNCTION_NAMES, FUNCTION_PARTS, NAMESPACE_NAMES, SUPPORT_PROCS, SYSTEM_RELATION_NAMES } from './object-names.js';
import { registerRegIo } from '../exec/kernels.js';

function catalog(): CatalogSnapshot | null {
  return currentCatalog();
}

/** regXout: the object's name, '-' for 0, the oid's digits when nothing has it. */
export function regOut(type: RegTypeId, v: Value): string {
  const oid = Number(v as bigint);
  if (oid === 0) return '-';
  return regName(type, oid) ?? String(oid);
}

function regName(type: RegTypeId, oid: number): string | null {
  const c = catalog();
  switch (type) {
    case 'regclass': {
      const t = c === null ? undefined : (tableByOid(c, oid) ?? c.views.find((x) => x.oid === oid));
      if (t !== undefined) return quoteIdent(t.name);
      const sys = SYSTEM_RELATION_NAMES.get(oid);
      return sys === undefined ? null : sys.split('.').map(quoteIdent).join('.');
    }
    case 'regtype': {
      if (builtinType(oid) !== undefined) return formatType(oid, null);
      const t = c?.tables.find((x) => x.typeOid === oid);
      return t === undefined ? null : quoteIdent(t.name);
    }
    case 'regproc': {
      const name = FUNCTION_NAMES.get(oid) ?? SUPPORT_PROCS.get(oid);
      if (name === undefined) return null;
      // regprocout qualifies a name that several functions share.
      const unique = [...FUNCTION_NAMES.values()].filter((n) => n === name).length <= 1;
      return unique ? quoteIdent(name) : `pg_catalog.${quoteIdent(name)}`;
    }
    case 'regprocedure': {
      const name = FUNCTION_NAMES.get(oid) ?? SUPPORT_PROCS.get(oid);
      if (name === undefined) return null;
      return `${quoteIdent(name)}(${FUNCTION_PARTS.get(oid)?.arguments ?? ''})`;
    }
    case 'regnamespace': {
      const n = NAMESPACE_NAMES[oid];
      return n === undefined ? null : quoteIdent(n);
    }
    case 'regrole': {
      const n = c === null ? null : roleName(c, oid);
      return n === null ? null : quoteIdent(n);
    }
    case 'regoper':
      return null;
  }
}

registerRegIo({ in: regIn, out: regOut });

/** The parts of a possibly qualified, possibly quoted name: `pg_catalog."X"` → ['pg_catalog', 'X']. */
export function nameParts(text: string): string[] {
  return (text.trim().match(/("([^"]|"")*"|[^."]+)/g) ?? []).map((p) => (p.startsWith('"') ? p.slice(1, -1).replace(/""/g, '"') : p.trim().toLowerCase()));
}

/** The SQL names regtype's input takes beside typnames (PostgreSQL's parser: format_type's spellings). */
const TYPE_ALIASES: Readonly<Record<string, string>> = {
  integer: 'int4', int: 'int4', smallint: 'int2', bigint: 'int8', real: 'float4', 'double precision': 'float8', boolean: 'bool', 'character varying': 'varchar',
  character: 'bpchar', char: 'bpchar', decimal: 'numeric', 'timestamp without time zone': 'timestamp', 'timestamp with time zone': 'timestamptz', '"char"': 'char',
  'time without time zone': 'time', 'time with time zone': 'timetz',
};

/** regXin: the oid a name has; digits are an oid as they are, `-` is 0; else the object's "does not exist". */
export function regIn(type: RegTypeId, v: Value): bigint {
  const found = regLookup(type, String(v));
  if (found !== null) return found;
  throw notFound(type, String(v));
}

/** to_regclass and friends: the oid, or NULL where the input function fails for a missing object. */
export function toReg(type: RegTypeId, v: Value): bigint | null {
  return regLookup(type, String(v));
}

function regLookup(type: RegTypeId, raw: string): bigint | null {
  const text = raw.trim();
  if (text === '-') return 0n;
  if (/^\d+$/.test(text)) return parseOid(text, 'oid');
  const c = catalog();
  const parts = nameParts(text);
  const last = parts[parts.length - 1] ?? '';
  const schema = parts.length > 1 ? parts[parts.length - 2] : undefined;
  if (parts.length > 3 || (parts.length === 3 && parts[0] !== (c?.database ?? 'paxd'))) throw improperName(type, text);
  let oid: number | undefined;
  switch (type) {
    case 'regclass':
      oid = schema === undefined || schema === 'public' ? (c?.tables.find((t) => t.name === last)?.oid ?? c?.views.find((t) => t.name === last)?.oid) : undefined;
      oid ??= [...SYSTEM_RELATION_NAMES].find(([, n]) => n === (schema === undefined || schema === 'pg_catalog' ? last : `${schema}.${last}`))?.[0];
      break;
    case 'regtype': {
      const plain = text.toLowerCase().replace(/^pg_catalog\./, '').replace(/\s*\(.*\)$/, '');
      const array = plain.endsWith('[]');
      const base = array ? plain.slice(0, -2) : plain;
      const b = builtinTypeNamed(TYPE_ALIASES[base] ?? base);
      oid = array ? b?.array : (b?.oid ?? c?.tables.find((t) => t.name === last)?.typeOid);
      if (oid === 0) oid = undefined;
      break;
    }
    case 'regnamespace':
      if (parts.length > 1) throw improperName(type, text);
      oid = Number(Object.entries(NAMESPACE_NAMES).find(([, n]) => n === last)?.[0] ?? Number.NaN);
      if (Number.isNaN(oid)) oid = undefined;
      break;
    case 'regrole':
      if (parts.length > 1) throw improperName(type, text);
      oid = c?.roles.find((r) => r.name === last)?.oid;
      break;
    case 'regproc': {
      if (schema !== undefined && schema !== 'pg_catalog') return null;
      const hits = [...FUNCTION_NAMES].filter(([, n]) => n === last);
      if (hits.length > 1) throw new SqlError('invalid_input', SQLSTATE.ambiguous_function, `more than one function named "${text}"`);
      oid = hits[0]?.[0] ?? [...SUPPORT_PROCS].find(([, n]) => n === last)?.[0];
      break;
    }
    case 'regprocedure':
    case 'regoper':
      throw notSupported(`${type} input by name`);
  }
  return oid === undefined ? null : BigInt(oid);
}

function notFound(type: RegTypeId, text: string): SqlError {
  switch (type) {
    case 'regclass':
      return new SqlError('not_found', SQLSTATE.undefined_table, `relation "${text}" does not exist`);
    case 'regtype':
      return new SqlError('not_found', SQLSTATE.undefined_object, `type "${text}" does not exist`);
    case 'regnamespace':
      return new SqlError('not_found', SQLSTATE.invalid_schema_name, `schema "${text}" does not exist`);
    case 'regrole':
      return new SqlError('not_found', SQLSTATE.undefined_object, `role "${text}" does not exist`);
    default:
      return new SqlError('not_found', SQLSTATE.undefined_function, `function "${text}" does not exist`);
  }
}

/** A name with too many dots (stringToQualifiedNameList, then the lookup's check). */
function improperName(type: RegTypeId, text: string): SqlError {
  if (type === 'regnamespace' || type === 'regrole') return new SqlError('invalid_input', SQLSTATE.invalid_name, 'invalid name syntax');
  return new SqlError('invalid_input', SQLSTATE.syntax_error, `improper qualified name (too many dotted names): ${text}`);
}

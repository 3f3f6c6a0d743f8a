/**
 * GRANT and REVOKE (https://www.postgresql.org/docs/15/sql-grant.html), the part paxd has:
 *
 *   GRANT { SELECT | INSERT | UPDATE | DELETE | TRUNCATE | REFERENCES | TRIGGER } [, …] | ALL [PRIVILEGES]
 *     ON { [TABLE] name [, …] | ALL TABLES IN SCHEMA public } TO { role | PUBLIC | CURRENT_USER } [, …]
 *   GRANT { CREATE | USAGE | ALL } ON SCHEMA public TO …
 *   GRANT pg_read_all_data TO role                       (a read-only role)
 *   REVOKE … FROM …                                      (the same forms)
 *
 * One commit of the roles log each (src/table/roles.ts). Checked in PostgreSQL's order: the
 * tables (42P01), the grantees (42704), the privilege names (0LP01), then the right to grant
 * (owner or superuser; 42501 `permission denied for table t` for a user without any privilege
 * on it; a user with some, but no grant option, grants nothing, as PostgreSQL, which warns).
 * ALL TABLES IN SCHEMA means the tables there now, as in PostgreSQL. Column lists, WITH GRANT
 * OPTION, GRANTED BY and membership of roles other than pg_read_all_data fail with 0A000.
 */
import {
  type Database,
  type Privileges,
  type RoleCatalog,
  type RolesJson,
  type TablePrivilege,
  PUBLIC_GRANTEE,
  TABLE_PRIVILEGES,
  roleCatalogOf,
  roleCommandDenied,
} from '../../table/index.js';
import { listTables } from '../../storage/index.js';
import { PaxdError, SQLSTATE } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, str } from '../parse.js';
import { notSupported, SqlError, undefinedTable } from '../errors.js';
import type { QueryResult } from '../result.js';
import { tableExists } from './create-table.js';
import { targetName } from './target.js';
import { roleOfSpec, undefinedRole, editableRole } from './role.js';

/** The role PostgreSQL 15 has for reading every table (https://www.postgresql.org/docs/15/predefined-roles.html). */
export const READ_ALL_DATA = 'pg_read_all_data';

export async function grant(db: Database, who: Privileges, s: AstFields): Promise<QueryResult> {
  const isGrant = s.is_grant === true;
  if (s.grant_option === true) throw notSupported(isGrant ? 'WITH GRANT OPTION' : 'REVOKE GRANT OPTION FOR');
  if (s.grantor !== undefined) throw notSupported('GRANTED BY');
  const catalog = roleCatalogOf(db.store);
  const state = await catalog.current();
  const onSchema = s.objtype === 'OBJECT_SCHEMA';
  if (s.objtype !== 'OBJECT_TABLE' && !onSchema)
    throw notSupported(
      `${isGrant ? 'GRANT' : 'REVOKE'} on ${String(s.objtype)
        .replace(/^OBJECT_/, '')
        .toLowerCase()
        .replace(/_/g, ' ')}s`,
    );
  const objects = (s.objects ?? []) as AstNode[];
  let tables: string[] = [];
  if (onSchema || s.targtype === 'ACL_TARGET_ALL_IN_SCHEMA') {
    for (const o of objects) if (str(o) !== 'public') throw undefinedSchema(str(o));
    if (!onSchema) tables = await listTables(db.store);
  } else if (s.targtype === 'ACL_TARGET_OBJECT') {
    for (const o of objects) {
      const rel = fieldsOf(o);
      const name = targetName(rel);
      if (!(await tableExists(db, name))) throw undefinedTable(name, rel.location as number);
      if (!tables.includes(name)) tables.push(name);
    }
  } else throw notSupported('ALTER DEFAULT PRIVILEGES');
  const grantees = ((s.grantees ?? []) as AstNode[]).map((g) => grantee(catalog, state, who, g));
  const privileges = privilegeList(s.privileges as AstNode[] | undefined, onSchema);
  const tag = isGrant ? 'GRANT' : 'REVOKE';
  if (!who.superuser) {
    if (onSchema) return { command: tag, tag, fields: [], rows: [] }; // public is pg_database_owner's: nothing granted
    for (const t of tables)
      if (!who.owns(t) && !who.hasAny(t)) throw new PaxdError('privilege', SQLSTATE.insufficient_privilege, `permission denied for table ${t}`);
    tables = tables.filter((t) => who.owns(t));
  }
  await catalog.commit((draft) => {
    if (onSchema) {
      if (!privileges.includes('CREATE')) return;
      for (const g of grantees) {
        const has = draft.schemaCreate.includes(g);
        if (isGrant && !has) draft.schemaCreate.push(g);
        if (!isGrant && has) draft.schemaCreate = draft.schemaCreate.filter((x) => x !== g);
      }
      return;
    }
    for (const t of tables) {
      const acl = (draft.tables[t] ??= { owner: null, grants: {} });
      for (const g of grantees) {
        const had = new Set(acl.grants[g] ?? []);
        for (const p of privileges as TablePrivilege[]) isGrant ? had.add(p) : had.delete(p);
        const now = TABLE_PRIVILEGES.filter((p) => had.has(p));
        if (now.length > 0) acl.grants[g] = now;
        else delete acl.grants[g];
      }
    }
  });
  return { command: tag, tag, fields: [], rows: [] };
}

/** GRANT/REVOKE pg_read_all_data TO/FROM role: the read-only role. */
export async function grantRole(db: Database, who: Privileges, s: AstFields): Promise<QueryResult> {
  const isGrant = s.is_grant === true;
  if (s.admin_opt === true || (s.opt !== undefined && (s.opt as AstNode[]).length > 0)) throw notSupported('WITH ADMIN OPTION');
  if (s.grantor !== undefined) throw notSupported('GRANTED BY');
  const catalog = roleCatalogOf(db.store);
  const state = await catalog.current();
  const granted = ((s.granted_roles ?? []) as AstNode[]).map((r) => fieldsOf(r).priv_name as string);
  for (const name of granted) {
    if (name === READ_ALL_DATA) continue;
    if (catalog.role(state, name) === null) throw undefinedRole(name);
    throw notSupported(`membership of role "${name}" (paxd grants only ${READ_ALL_DATA})`);
  }
  const grantees = ((s.grantee_roles ?? []) as AstNode[]).map((g) => grantee(catalog, state, who, g));
  if (!who.superuser) throw roleCommandDenied(`must have admin option on role "${READ_ALL_DATA}"`);
  if (grantees.includes(PUBLIC_GRANTEE)) throw notSupported(`granting ${READ_ALL_DATA} to PUBLIC`);
  await catalog.commit((draft) => {
    for (const g of grantees) editableRole(catalog, draft, g).readAllData = isGrant;
  });
  const tag = isGrant ? 'GRANT ROLE' : 'REVOKE ROLE';
  return { command: tag, tag, fields: [], rows: [] };
}

/** A grantee: a role that exists (42704), PUBLIC, or CURRENT_USER. */
function grantee(catalog: RoleCatalog, state: RolesJson, who: Privileges, node: AstNode): string {
  const spec = fieldsOf(node);
  if (spec.roletype === 'ROLESPEC_PUBLIC') return PUBLIC_GRANTEE;
  const name = roleOfSpec(spec, who);
  if (catalog.role(state, name) === null) throw undefinedRole(name);
  return name;
}

/** The privileges named (all of the object's kind when none is), in PostgreSQL's words. */
function privilegeList(nodes: AstNode[] | undefined, onSchema: boolean): string[] {
  const all: readonly string[] = onSchema ? ['USAGE', 'CREATE'] : TABLE_PRIVILEGES;
  if (nodes === undefined) return [...all];
  const out: string[] = [];
  for (const n of nodes) {
    const p = fieldsOf(n);
    if (p.cols !== undefined) throw notSupported('column privileges');
    const name = String(p.priv_name).toUpperCase();
    if (!all.includes(name))
      throw new SqlError('invalid_input', SQLSTATE.invalid_grant_operation, `invalid privilege type ${name} for ${onSchema ? 'schema' : 'relation'}`);
    out.push(name);
  }
  return out;
}

function undefinedSchema(name: string): PaxdError {
  return new PaxdError('not_found', SQLSTATE.invalid_schema_name, `schema "${name}" does not exist`);
}

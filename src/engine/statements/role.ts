/**
 * CREATE ROLE / CREATE USER, ALTER ROLE / ALTER USER and DROP ROLE / DROP USER
 * (https://www.postgresql.org/docs/15/sql-createrole.html), the attributes paxd has:
 *
 *   CREATE ROLE name [[WITH] { LOGIN | NOLOGIN | SUPERUSER | NOSUPERUSER | PASSWORD 'pw' | PASSWORD NULL } …]
 *   ALTER ROLE { name | CURRENT_USER } [[WITH] the same …]
 *   DROP ROLE [IF EXISTS] name [, …]
 *   REASSIGN OWNED BY name [, …] TO name;  DROP OWNED BY name [, …]
 *
 * CREATE USER is CREATE ROLE with LOGIN. A password is stored as a SCRAM-SHA-256 verifier
 * (src/table/verifier.ts), or as given when it already is one (SCRAM or md5), as PostgreSQL
 * does; an empty password clears it. One commit of the roles log each (src/table/roles.ts);
 * the wire server and the HTTP API take the change at once (src/daemon/daemon.ts).
 *
 * Only a superuser creates, drops and alters roles (paxd has no CREATEROLE); any role may change
 * its own password. The errors are PostgreSQL's: 42501 `permission denied to create role`,
 * 42710 `role "r" already exists`, 42704 `role "r" does not exist`, 42939 for reserved names,
 * 2BP01 for a role that still owns tables or holds privileges, 55006 for the current user.
 * Roles from the users file are roles too; ALTER ROLE of one stores it in the log, where it wins
 * over the file from then on; dropping one fails with 0A000 (remove it from the file).
 */
import {
  type Database,
  type Privileges,
  type RoleCatalog,
  type RoleJson,
  type RolesJson,
  dependentsOf,
  isMd5Verifier,
  parseScramVerifier,
  roleCatalogOf,
  roleCommandDenied,
  scramVerifier,
} from '../../table/index.js';
import { PaxdError, SQLSTATE } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, str } from '../parse.js';
import { notSupported, SqlError } from '../errors.js';
import type { QueryResult } from '../result.js';
import { tableExists } from './create-table.js';

export async function createRole(db: Database, who: Privileges, s: AstFields): Promise<QueryResult> {
  if (!who.superuser) throw roleCommandDenied('permission denied to create role');
  const name = s.role as string;
  checkReserved(name);
  const o = roleOptions((s.options ?? []) as AstNode[]);
  const catalog = roleCatalogOf(db.store);
  await catalog.commit((draft) => {
    if (catalog.role(draft, name) !== null) throw new PaxdError('exists', SQLSTATE.duplicate_object, `role "${name}" already exists`);
    draft.roles[name] = {
      superuser: o.superuser ?? false,
      login: o.login ?? s.stmt_type === 'ROLESTMT_USER',
      password: o.password ?? null,
      readAllData: false,
    };
  });
  return { command: 'CREATE ROLE', tag: 'CREATE ROLE', fields: [], rows: [] };
}

export async function alterRole(db: Database, who: Privileges, s: AstFields): Promise<QueryResult> {
  const catalog = roleCatalogOf(db.store);
  const name = roleOfSpec(s.role as AstFields, who);
  const target = catalog.role(await catalog.current(), name);
  if (target === null) throw undefinedRole(name);
  const o = roleOptions((s.options ?? []) as AstNode[]);
  if (!who.superuser) {
    // PostgreSQL's AlterRole: superuser roles and the attribute itself need a superuser; otherwise a role may change only its own password.
    if (target.superuser || o.superuser !== undefined) throw roleCommandDenied('must be superuser to alter superuser roles or change superuser attribute');
    if (name !== who.user || o.login !== undefined) throw roleCommandDenied('permission denied');
  }
  await catalog.commit((draft) => {
    const r = editableRole(catalog, draft, name);
    if (o.superuser !== undefined) r.superuser = o.superuser;
    if (o.login !== undefined) r.login = o.login;
    if (o.password !== undefined) r.password = o.password;
  });
  return { command: 'ALTER ROLE', tag: 'ALTER ROLE', fields: [], rows: [] };
}

export async function dropRole(db: Database, who: Privileges, s: AstFields): Promise<QueryResult> {
  if (!who.superuser) throw roleCommandDenied('permission denied to drop role');
  const catalog = roleCatalogOf(db.store);
  const state = await catalog.current();
  const names: string[] = [];
  for (const node of (s.roles ?? []) as AstNode[]) {
    const spec = fieldsOf(node);
    if (spec.roletype !== 'ROLESPEC_CSTRING')
      throw new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, 'cannot use special role specifier in DROP ROLE');
    const name = spec.rolename as string;
    const role = catalog.role(state, name);
    if (role === null) {
      if (s.missing_ok === true) continue;
      throw undefinedRole(name);
    }
    if (name === who.user) throw new PaxdError('invalid_input', SQLSTATE.object_in_use, 'current user cannot be dropped');
    if (catalog.isConfigured(name)) throw notSupported(`dropping role "${name}", which the users file defines (remove it there)`);
    const deps: string[] = [];
    for (const d of dependentsOf(state, name)) {
      const table = /table (.+)$/.exec(d)?.[1];
      if (table === undefined || (await tableExists(db, table))) deps.push(d);
    }
    if (deps.length > 0)
      throw new PaxdError('invalid_input', SQLSTATE.dependent_objects_still_exist, `role "${name}" cannot be dropped because some objects depend on it`, {
        detail: deps.join('\n'),
      });
    names.push(name);
  }
  if (names.length > 0)
    await catalog.commit((draft) => {
      for (const name of names) {
        delete draft.roles[name];
        // What it held on tables dropped since goes with it.
        draft.schemaCreate = draft.schemaCreate.filter((g) => g !== name);
        for (const acl of Object.values(draft.tables)) delete acl.grants[name];
        for (const [t, acl] of Object.entries(draft.tables)) if (acl.owner === name) delete draft.tables[t];
      }
    });
  return { command: 'DROP ROLE', tag: 'DROP ROLE', fields: [], rows: [] };
}

/** REASSIGN OWNED BY old [, …] TO new: the tables they own become new's. */
export async function reassignOwned(db: Database, who: Privileges, s: AstFields): Promise<QueryResult> {
  const catalog = roleCatalogOf(db.store);
  const state = await catalog.current();
  const from = ((s.roles ?? []) as AstNode[]).map((n) => existingRole(catalog, state, roleOfSpec(fieldsOf(n), who)));
  const to = existingRole(catalog, state, roleOfSpec(s.newrole as AstFields, who));
  // PostgreSQL asks for the privileges of every role named: a plain role has only its own.
  if (!who.superuser && !(to === who.user && from.every((n) => n === who.user))) throw roleCommandDenied('permission denied to reassign objects');
  await catalog.commit((draft) => {
    for (const acl of Object.values(draft.tables)) if (acl.owner !== null && from.includes(acl.owner)) acl.owner = to;
  });
  return { command: 'REASSIGN OWNED', tag: 'REASSIGN OWNED', fields: [], rows: [] };
}

/** DROP OWNED BY r [, …]: the tables they own are dropped and (by a superuser) their privileges revoked, so that DROP ROLE succeeds. */
export async function dropOwned(db: Database, who: Privileges, s: AstFields): Promise<QueryResult> {
  const catalog = roleCatalogOf(db.store);
  const state = await catalog.current();
  const names = ((s.roles ?? []) as AstNode[]).map((n) => existingRole(catalog, state, roleOfSpec(fieldsOf(n), who)));
  if (!who.superuser && !names.every((n) => n === who.user)) throw roleCommandDenied('permission denied to drop objects');
  for (const [table, acl] of Object.entries(state.tables)) {
    if (acl.owner === null || !names.includes(acl.owner) || !(await tableExists(db, table))) continue;
    await db.dropTable(table);
  }
  await catalog.commit((draft) => {
    for (const [t, acl] of Object.entries(draft.tables)) if (acl.owner !== null && names.includes(acl.owner)) delete draft.tables[t];
    // A REVOKE by the one running it (PostgreSQL's RemoveRoleFromObjectACL): a superuser revokes
    // what the roles were granted; a role dropping its own objects revokes only what it granted,
    // which were privileges on its own tables, gone with them.
    if (!who.superuser) return;
    draft.schemaCreate = draft.schemaCreate.filter((g) => !names.includes(g));
    for (const acl of Object.values(draft.tables)) for (const n of names) delete acl.grants[n];
  });
  return { command: 'DROP OWNED', tag: 'DROP OWNED', fields: [], rows: [] };
}

function existingRole(catalog: RoleCatalog, state: RolesJson, name: string): string {
  if (catalog.role(state, name) === null) throw undefinedRole(name);
  return name;
}

/** The name a RoleSpec stands for (CURRENT_USER, SESSION_USER and CURRENT_ROLE: the session's user). */
export function roleOfSpec(spec: AstFields, who: Privileges): string {
  switch (spec.roletype) {
    case 'ROLESPEC_CSTRING':
      return spec.rolename as string;
    case 'ROLESPEC_CURRENT_USER':
    case 'ROLESPEC_SESSION_USER':
    case 'ROLESPEC_CURRENT_ROLE':
      if (who.user === null) throw notSupported('CURRENT_USER outside a session');
      return who.user;
    default:
      throw new SqlError('invalid_input', SQLSTATE.reserved_name, 'role name "public" is reserved');
  }
}

/** `role "r" does not exist` (42704). */
export function undefinedRole(name: string): PaxdError {
  return new PaxdError('not_found', SQLSTATE.undefined_object, `role "${name}" does not exist`);
}

/** The stored entry of `name` in `draft`, copied from the configuration first when only it defines the role. */
export function editableRole(catalog: RoleCatalog, draft: RolesJson, name: string): RoleJson {
  const r = catalog.role(draft, name);
  if (r === null) throw undefinedRole(name);
  if (!Object.hasOwn(draft.roles, name)) draft.roles[name] = { superuser: r.superuser, login: r.login, password: r.password, readAllData: r.readAllData };
  return draft.roles[name]!;
}

/** PostgreSQL's reserved role names (user.c CreateRole, check_rolespec_name). */
function checkReserved(name: string): void {
  if (name === 'public' || name === 'none') throw new SqlError('invalid_input', SQLSTATE.reserved_name, `role name "${name}" is reserved`);
  if (name.startsWith('pg_'))
    throw new PaxdError('invalid_input', SQLSTATE.reserved_name, `role name "${name}" is reserved`, { detail: 'Role names starting with "pg_" are reserved.' });
}

interface RoleOptions {
  superuser?: boolean;
  login?: boolean;
  /** A verifier, or null to clear the password. */
  password?: string | null;
}

/** Attributes a role has in PostgreSQL that paxd does not: accepted when they say the default. */
const DEFAULT_OFF = new Map([
  ['createdb', 'CREATEDB'],
  ['createrole', 'CREATEROLE'],
  ['isreplication', 'REPLICATION'],
  ['bypassrls', 'BYPASSRLS'],
]);

/** libpg-query's DefElem names of the role options paxd lacks, as CREATE ROLE spells them. */
const OPTION_NAMES = new Map([
  ['validUntil', 'VALID UNTIL'],
  ['connectionlimit', 'CONNECTION LIMIT'],
  ['addroleto', 'IN ROLE'],
  ['rolemembers', 'ROLE'],
  ['adminmembers', 'ADMIN'],
  ['sysid', 'SYSID'],
]);

function roleOptions(nodes: AstNode[]): RoleOptions {
  const o: RoleOptions = {};
  for (const n of nodes) {
    const d = fieldsOf(n);
    const name = d.defname as string;
    const arg = d.arg as AstNode | undefined;
    const flag = arg !== undefined && kindOf(arg) === 'Boolean' ? fieldsOf(arg).boolval === true : undefined;
    if (name === 'superuser') o.superuser = flag === true;
    else if (name === 'canlogin') o.login = flag === true;
    else if (name === 'password') o.password = arg === undefined ? null : verifierOf(str(arg));
    else if (name === 'inherit') {
      if (flag !== true) throw notSupported('NOINHERIT');
    } else if (DEFAULT_OFF.has(name)) {
      if (flag === true) throw notSupported(`role attribute ${DEFAULT_OFF.get(name)!}`);
    } else throw notSupported(`role option ${OPTION_NAMES.get(name) ?? name.toUpperCase()}`);
  }
  return o;
}

/** What PASSWORD 'text' stores: a verifier given as such, else the password's SCRAM verifier; '' clears it. */
function verifierOf(text: string): string | null {
  if (text === '') return null;
  if (parseScramVerifier(text) !== null || isMd5Verifier(text)) return text;
  return scramVerifier(text);
}

/**
 * Who may do what (https://www.postgresql.org/docs/15/ddl-priv.html), as of the roles catalog
 * (./roles.ts). Every front door asks here before it reads or writes a table: the engine's
 * statements (src/engine/access.ts), COPY FROM STDIN (src/pgwire), the HTTP ingest route
 * (src/daemon/http.ts).
 *
 *   const who = await privilegesOf(db.store, 'reader');
 *   who.requireTable('events', 'INSERT');   // 42501 permission denied for table events
 *
 * The rules, PostgreSQL's for the part paxd has:
 * - A superuser may do everything. So may the daemon itself, the embedded library and the CLI
 *   (no user: `undefined`), and, under `--auth trust` (loopback only, asked for), a user name
 *   that is no role: trust lets anyone in as anyone, as pg_hba's trust does for any existing role.
 * - A table's owner (the role that created it; tables made by a superuser, the CLI or the
 *   inbox belong to the bootstrap superuser) has every privilege on it, and alone (with
 *   superusers) may DROP, ALTER and GRANT/REVOKE on it.
 * - Otherwise a privilege is granted to the role or to PUBLIC (GRANT), or, for SELECT, by
 *   membership of pg_read_all_data (a read-only role: `"read_only": true` in the users file).
 * - CREATE TABLE needs CREATE on schema public, which PostgreSQL 15 grants to nobody by default.
 */
import { PaxdError, SQLSTATE } from '../types/index.js';
import type { ObjectStore } from '../storage/index.js';
import { type Role, type RolesJson, type TablePrivilege, holds, roleCatalogOf } from './roles.js';

/** PUBLIC as a grantee in the roles log. */
export const PUBLIC_GRANTEE = 'public';

/** What one user may do, as of one state of the roles log. */
export class Privileges {
  constructor(
    /** The session's user; null for the daemon, the library and the CLI. */
    readonly user: string | null,
    /** Its role, or null (no user, or a trust login of a name that is no role). */
    readonly role: Role | null,
    readonly state: RolesJson,
  ) {}

  get superuser(): boolean {
    return this.role === null || this.role.superuser;
  }

  /** Whether the user owns `table` (superusers count as owners of everything, as in pg_class_ownercheck). */
  owns(table: string): boolean {
    if (this.superuser) return true;
    const acl = Object.hasOwn(this.state.tables, table) ? this.state.tables[table]! : undefined;
    return acl !== undefined && acl.owner === this.user;
  }

  has(table: string, p: TablePrivilege): boolean {
    if (this.owns(table)) return true;
    if (p === 'SELECT' && this.role!.readAllData) return true;
    const acl = Object.hasOwn(this.state.tables, table) ? this.state.tables[table]! : undefined;
    if (acl === undefined) return false;
    return holds(acl.grants[this.user!], p) || holds(acl.grants[PUBLIC_GRANTEE], p);
  }

  /** Whether the user holds any privilege at all on `table` (GRANT by a non-owner: PostgreSQL's restrict_and_check_grant). */
  hasAny(table: string): boolean {
    if (this.owns(table)) return true;
    if (this.role!.readAllData) return true;
    const acl = Object.hasOwn(this.state.tables, table) ? this.state.tables[table]! : undefined;
    return acl !== undefined && ((acl.grants[this.user!] ?? []).length > 0 || (acl.grants[PUBLIC_GRANTEE] ?? []).length > 0);
  }

  requireTable(table: string, p: TablePrivilege): void {
    if (!this.has(table, p)) throw permissionDenied('table', table);
  }

  requireOwner(table: string): void {
    if (!this.owns(table)) throw mustBeOwner(table);
  }

  /** CREATE on schema public (CREATE TABLE). */
  requireCreate(): void {
    if (this.superuser) return;
    if (this.state.schemaCreate.includes(this.user!) || this.state.schemaCreate.includes(PUBLIC_GRANTEE)) return;
    throw permissionDenied('schema', 'public');
  }
}

const NO_ROLES: RolesJson = Object.freeze({
  format: 1,
  id: 0,
  parent: 0,
  createdAt: new Date(0).toISOString(),
  roles: {},
  tables: {},
  schemaCreate: [],
}) as RolesJson;

/** What `user` may do now (undefined: the daemon itself, the library, the CLI: everything). */
export async function privilegesOf(store: ObjectStore, user: string | undefined): Promise<Privileges> {
  // The daemon, the library and the CLI may do everything: no read of the roles at all.
  if (user === undefined) return new Privileges(null, null, NO_ROLES);
  const catalog = roleCatalogOf(store);
  const state = await catalog.current();
  return new Privileges(user, catalog.role(state, user), state);
}

/** PostgreSQL's aclcheck_error for ACLCHECK_NO_PRIV: `permission denied for table t`, `permission denied for schema public`. */
export function permissionDenied(kind: 'table' | 'schema', name: string): PaxdError {
  return new PaxdError('privilege', SQLSTATE.insufficient_privilege, `permission denied for ${kind} ${name}`);
}

/** PostgreSQL's aclcheck_error for ACLCHECK_NOT_OWNER. */
export function mustBeOwner(table: string): PaxdError {
  return new PaxdError('privilege', SQLSTATE.insufficient_privilege, `must be owner of table ${table}`);
}

/** 42501 with PostgreSQL's words for a role command (`permission denied to create role`). */
export function roleCommandDenied(message: string): PaxdError {
  return new PaxdError('privilege', SQLSTATE.insufficient_privilege, message);
}

/**
 * COPY to or from a server file or program: what PostgreSQL answers a user who is neither
 * superuser nor in pg_read_server_files / pg_write_server_files / pg_execute_server_program
 * (copy.c DoCopy). paxd answers it to everyone, superusers included, over the wire and HTTP
 * alike: no client reaches the daemon's files (issue #18, "Paths stay inside the store").
 */
export function serverFileCopyRefused(direction: 'from' | 'to', program: boolean): PaxdError {
  const message = program
    ? 'must be superuser or have privileges of the pg_execute_server_program role to COPY to or from an external program'
    : direction === 'from'
      ? 'must be superuser or have privileges of the pg_read_server_files role to COPY from a file'
      : 'must be superuser or have privileges of the pg_write_server_files role to COPY to a file';
  return new PaxdError('privilege', SQLSTATE.insufficient_privilege, message, {
    hint: "Anyone can COPY to stdout or from stdin. psql's \\copy command also works for anyone.",
  });
}

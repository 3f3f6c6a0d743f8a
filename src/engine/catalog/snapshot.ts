/**
 * What the system relations and catalog functions read: the store's catalog as one statement
 * sees it (its tables with their columns, sizes and owners, the roles, the session's user),
 * loaded once when the statement binds (./bind.ts) and kept as the statement's catalog.
 *
 * OIDs are derived, not stored (docs/FORMAT.md "OIDs"): a table's is a hash of its name and
 * incarnation (the id of the snapshot that created it), so it is the same across restarts and
 * daemons, and a table created again after DROP TABLE gets another one, as in PostgreSQL.
 * Column numbers (attnum) are positions in the table's schema, from 1.
 */
import type { Database, Privileges, Role } from '../../table/index.js';
import { privilegesOf, roleCatalogOf } from '../../table/index.js';
import type { Field } from '../../types/index.js';
import { currentContext } from '../context.js';

/** PostgreSQL 15's fixed OIDs (pg_namespace.dat, pg_authid.dat, pg_tablespace.dat, pg_am.dat). */
export const OID = Object.freeze({
  pgCatalog: 11,
  public: 2200,
  pgToast: 99,
  informationSchema: 13207,
  bootstrapRole: 10,
  pgDatabaseOwner: 6171,
  heap: 2,
  btree: 403,
  pgDefault: 1663,
  pgGlobal: 1664,
  database: 5,
  pgClass: 1259,
  pgProc: 1255,
  pgType: 1247,
  pgNamespace: 2615,
  pgDatabase: 1262,
  pgAuthid: 1260,
  pgExtension: 3079,
  pgConstraint: 2606,
  defaultCollation: 100,
  cCollation: 950,
});

/** PostgreSQL 15's predefined roles (docs 22.5), which pg_roles lists and own what they own there (pg_database_owner: schema public). */
const PREDEFINED_ROLES: readonly (readonly [string, number])[] = [
  ['pg_database_owner', 6171], ['pg_read_all_data', 6181], ['pg_write_all_data', 6182], ['pg_monitor', 3373], ['pg_read_all_settings', 3374],
  ['pg_read_all_stats', 3375], ['pg_stat_scan_tables', 3377], ['pg_read_server_files', 4569], ['pg_write_server_files', 4570],
  ['pg_execute_server_program', 4571], ['pg_signal_backend', 4200], ['pg_checkpoint', 4544],
];

/** The first OID a user object gets (PostgreSQL's FirstNormalObjectId). */
export const FIRST_NORMAL_OID = 16384;

export interface CatalogTable {
  readonly name: string;
  readonly oid: number;
  /** The oid of its row type (pg_class.reltype), which PostgreSQL gives every table. */
  readonly typeOid: number;
  readonly fields: readonly Field[];
  readonly rows: number;
  readonly bytes: number;
  readonly layout: string;
  /** The owning role's name. */
  readonly owner: string;
}

/** A view of the catalog (./views.ts). */
export interface CatalogView {
  readonly name: string;
  readonly oid: number;
  readonly owner: string;
  readonly columns: readonly string[];
  /** Its columns with their types (pg_attribute rows, as PostgreSQL has for a view). */
  readonly fields: readonly Field[];
  /** The SELECT, as pg_get_viewdef prints it. */
  readonly definition: string;
}

export interface CatalogRole {
  readonly name: string;
  readonly oid: number;
  readonly superuser: boolean;
  readonly login: boolean;
}

export interface CatalogSnapshot {
  readonly tables: readonly CatalogTable[];
  /** The views (src/table/views.ts: catalog entries with a definition and no files). */
  readonly views: readonly CatalogView[];
  readonly roles: readonly CatalogRole[];
  /** The session's user (the bootstrap superuser embedded). */
  readonly user: string;
  readonly privileges: Privileges;
  readonly database: string;
  /** The bootstrap superuser's name (owner of pg_catalog, of tables paxd itself made). */
  readonly bootstrap: string;
  /** Roles granted CREATE on schema public ('public': PUBLIC). */
  readonly schemaCreate: readonly string[];
}

/** 32-bit FNV-1a of a string's UTF-16 code units. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** An OID in [16384, 2^31) from a key: positive as int4 and oid alike, beyond every built-in OID. */
export function derivedOid(key: string): number {
  return FIRST_NORMAL_OID + (fnv1a(key) % (0x80000000 - FIRST_NORMAL_OID));
}

export function tableOid(name: string, incarnation: number): number {
  return derivedOid(`table:${name}:${incarnation}`);
}

/** The bootstrap superuser's name: `postgres` when it is a role, else the first superuser, else the user. */
function bootstrapName(roles: readonly Role[], user: string | undefined): string {
  if (roles.some((r) => r.name === 'postgres')) return 'postgres';
  return roles.find((r) => r.superuser)?.name ?? user ?? 'postgres';
}

export async function loadCatalog(db: Database): Promise<CatalogSnapshot> {
  const user = currentContext()?.user;
  const roleCatalog = roleCatalogOf(db.store);
  const state = await roleCatalog.current();
  const stored = roleCatalog.roles(state);
  const boot = bootstrapName(stored, user);
  const roles: CatalogRole[] = stored.map((r) => ({ name: r.name, oid: r.name === boot ? OID.bootstrapRole : derivedOid(`role:${r.name}`), superuser: r.superuser, login: r.login }));
  if (!roles.some((r) => r.name === boot)) roles.unshift({ name: boot, oid: OID.bootstrapRole, superuser: true, login: true });
  for (const [name, oid] of PREDEFINED_ROLES) roles.push({ name, oid, superuser: false, login: false });
  const tables: CatalogTable[] = [];
  const views: CatalogView[] = [];
  for (const info of await db.tables()) {
    let t;
    try {
      t = await db.table(info.name);
    } catch {
      continue; // dropped since the listing
    }
    const s = t.snapshot;
    const oid = tableOid(info.name, s.incarnation ?? 1);
    const owner = Object.hasOwn(state.tables, info.name) ? state.tables[info.name]!.owner : null;
    if (s.view !== undefined) {
      views.push({ name: info.name, oid, owner: owner ?? boot, columns: t.fields.map((f) => f.name), fields: t.fields, definition: s.view.query });
      continue;
    }
    tables.push({ name: info.name, oid, typeOid: derivedOid(`rowtype:${info.name}:${s.incarnation ?? 1}`), fields: t.fields, rows: info.rows, bytes: info.bytes, layout: info.layout, owner: owner ?? boot });
  }
  return Object.freeze({ tables, views, roles, user: user ?? boot, privileges: await privilegesOf(db.store, user), database: 'paxd', bootstrap: boot, schemaCreate: [...state.schemaCreate] });
}

/**
 * The catalog the statement running now bound with, for the catalog functions, whose kernels
 * are synchronous: the binder leaves it here (./bind.ts), by wire session (a session runs one
 * statement at a time, and binds before it executes), or for the process when embedded.
 */
const bySession = new WeakMap<object, CatalogSnapshot>();
let embedded: CatalogSnapshot | null = null;

export function setCurrentCatalog(c: CatalogSnapshot): void {
  const s = currentContext()?.session;
  if (s === undefined) embedded = c;
  else bySession.set(s, c);
}

export function currentCatalog(): CatalogSnapshot | null {
  const s = currentContext()?.session;
  return s === undefined ? embedded : (bySession.get(s) ?? null);
}

export function roleName(c: CatalogSnapshot, oid: number): string | null {
  return c.roles.find((r) => r.oid === oid)?.name ?? null;
}

export function roleOid(c: CatalogSnapshot, name: string): number {
  return c.roles.find((r) => r.name === name)?.oid ?? derivedOid(`role:${name}`);
}

export function tableByOid(c: CatalogSnapshot, oid: number): CatalogTable | undefined {
  return c.tables.find((t) => t.oid === oid);
}

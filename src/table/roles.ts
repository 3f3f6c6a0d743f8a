/**
 * The store's roles and their rights (issue #18, "Roles may have read-only or per-table rights"),
 * as much of PostgreSQL's pg_authid and relacl as paxd needs: a role has a name, LOGIN, SUPERUSER,
 * a password verifier (./verifier.ts, pg_authid.rolpassword's format) and membership of
 * pg_read_all_data; a table has an owner and, per grantee (`public` for PUBLIC), the privileges
 * granted on it; the schema `public` has the grantees of CREATE on it.
 *
 * It lives in the store, as a log of its own beside the root log (docs/FORMAT.md "The roles
 * log"): state S is `_paxd/roles/<S, 20 digits>.roles`, created exclusively by putIfAbsent and
 * never changed, framed as ../storage/frame.ts draws it (magic "PXRL") around the UTF-8 JSON of
 * RolesJson. Each file holds the whole state (a few roles and grants: no checkpoints needed); a
 * GRANT is one commit. Of two writers, the loser reloads and applies its change again.
 *
 *   { "format": 1, "id": 3, "parent": 2, "createdAt": "…",
 *     "roles":  { "reader": { "superuser": false, "login": true, "password": "SCRAM-SHA-256$4096:…", "readAllData": false } },
 *     "tables": { "events": { "owner": null, "grants": { "reader": ["SELECT"] } } },
 *     "schemaCreate": [] }
 *
 * Roles also come from configuration (the users file, the config's `users`, the generated
 * `paxd` user): `configure()` gives them; a role created or altered in SQL is stored here and
 * wins over the configured one of the same name.
 */
import {
  type ObjectStore,
  ROLES_DIR,
  decodeRoles,
  encodeRoles,
  listRolesIds,
  rolesPath,
  type RolesJson,
  type RoleJson,
  type TablePrivilege,
} from './roles-file.js';
import { PaxdError, SQLSTATE } from '../types/index.js';

export { TABLE_PRIVILEGES, type RolesJson, type RoleJson, type TableAclJson, type TablePrivilege } from './roles-file.js';
export { ROLES_DIR };

/** A role the configuration defines (users file, config `users`, the generated superuser). */
export interface ConfiguredRole {
  /** The verifier, as `paxd passwd` prints it (null: none, under trust). */
  readonly password: string | null;
  readonly superuser: boolean;
  /** Read-only: SELECT on every table, nothing else (PostgreSQL's pg_read_all_data). */
  readonly readAllData: boolean;
}

/** A role as a check sees it: stored or configured. */
export interface Role extends RoleJson {
  readonly name: string;
  /** 'sql' when the roles log holds it (CREATE/ALTER ROLE), 'config' when only the configuration does. */
  readonly source: 'sql' | 'config';
}

/** The state before the first commit. */
function emptyState(): RolesJson {
  return { format: 1, id: 0, parent: 0, createdAt: new Date(0).toISOString(), roles: {}, tables: {}, schemaCreate: [] };
}

const MAX_COMMIT_ATTEMPTS = 50;
/** How stale another daemon's change of the roles may be here (ms). */
export const REFRESH_MS = 1000;

/** The roles of one store; one per ObjectStore (rolesOf). */
export class RoleCatalog {
  private state: RolesJson = emptyState();
  private loaded: Promise<void> | null = null;
  private checkedAt = 0;
  private configured = new Map<string, ConfiguredRole>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly store: ObjectStore) {}

  /** Sets the roles the configuration defines (replacing those set before). */
  configure(roles: Readonly<Record<string, ConfiguredRole>>): void {
    this.configured = new Map(Object.entries(roles));
    this.changed();
  }

  /** Calls `f` after every change this process sees (a commit, a newer state read, configure). */
  onChange(f: () => void): () => void {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }

  /**
   * The newest committed state: this process's own commits at once; another writer's (another
   * daemon on the same store) within REFRESH_MS, by one stat() of the next state's name at most
   * that often (a HEAD on S3: not one per statement), and a read only when there is one.
   */
  async current(): Promise<RolesJson> {
    if (this.loaded === null) {
      this.loaded = this.loadNewest();
      this.checkedAt = performance.now();
    }
    await this.loaded;
    const now = performance.now();
    if (now - this.checkedAt >= REFRESH_MS) {
      this.checkedAt = now;
      if ((await this.store.stat(rolesPath(this.state.id + 1))) !== null) await this.loadNewest();
    }
    return this.state;
  }

  private async loadNewest(): Promise<void> {
    const ids = await listRolesIds(this.store);
    const newest = ids.length === 0 ? 0 : ids[ids.length - 1]!;
    if (newest <= this.state.id) return;
    const path = rolesPath(newest);
    this.state = decodeRoles(await this.store.read(path), path, newest);
    this.changed();
  }

  /**
   * Commits `change` applied to a copy of the newest state; `change` may throw (the statement's
   * error: nothing is written). Returns the state committed.
   */
  async commit(change: (draft: RolesJson) => void): Promise<RolesJson> {
    await this.current();
    await this.loadNewest();
    for (let attempt = 0; attempt < MAX_COMMIT_ATTEMPTS; attempt++) {
      const base = this.state;
      const draft = structuredClone(base);
      change(draft);
      draft.id = base.id + 1;
      draft.parent = base.id;
      draft.createdAt = new Date().toISOString();
      if (await this.store.putIfAbsent(rolesPath(draft.id), encodeRoles(draft))) {
        this.state = draft;
        this.changed();
        return draft;
      }
      // Lost the race: another writer committed draft.id; read it and apply the change again.
      await this.loadNewest();
    }
    throw new PaxdError(
      'conflict',
      SQLSTATE.serialization_failure,
      `could not commit a change of the roles in ${this.store.uri} after ${MAX_COMMIT_ATTEMPTS} attempts: other writers kept committing`,
    );
  }

  /** The role `name` as of `state` (stored first, then configured), or null. */
  role(state: RolesJson, name: string): Role | null {
    const stored = Object.hasOwn(state.roles, name) ? state.roles[name]! : undefined;
    if (stored !== undefined) return { name, source: 'sql', ...stored };
    const c = this.configured.get(name);
    if (c === undefined) return null;
    return { name, source: 'config', superuser: c.superuser, login: true, password: c.password, readAllData: c.readAllData };
  }

  /** Whether the configuration (users file, config `users`, the generated user) defines `name`. */
  isConfigured(name: string): boolean {
    return this.configured.has(name);
  }

  /** Every role of `state`, stored and configured, by name. */
  roles(state: RolesJson): Role[] {
    const names = new Set([...this.configured.keys(), ...Object.keys(state.roles)]);
    return [...names].sort().map((n) => this.role(state, n)!);
  }

  /** User name → verifier of every role that may log in with a password (the wire server's and HTTP API's users). */
  loginVerifiers(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const r of this.roles(this.state)) if (r.login && r.password !== null) out[r.name] = r.password;
    return out;
  }

  /** The state last read, without checking for a newer one (for listeners). */
  get last(): RolesJson {
    return this.state;
  }

  private changed(): void {
    for (const f of this.listeners) f();
  }
}

const CATALOGS = new WeakMap<ObjectStore, RoleCatalog>();

/** The role catalog of `store` (one per store object, shared by every view of a Database over it). */
export function roleCatalogOf(store: ObjectStore): RoleCatalog {
  let c = CATALOGS.get(store);
  if (c === undefined) {
    c = new RoleCatalog(store);
    CATALOGS.set(store, c);
  }
  return c;
}

/** Every grantee of a table privilege or of CREATE on the schema, for DROP ROLE's dependency check. */
export function dependentsOf(state: RolesJson, role: string): string[] {
  const out: string[] = [];
  if (state.schemaCreate.includes(role)) out.push('privileges for schema public');
  for (const [table, acl] of Object.entries(state.tables).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (acl.owner === role) out.push(`owner of table ${table}`);
    if ((acl.grants[role] ?? []).length > 0) out.push(`privileges for table ${table}`);
  }
  return out;
}

/** Whether `privileges` holds `p`. */
export function holds(privileges: readonly TablePrivilege[] | undefined, p: TablePrivilege): boolean {
  return privileges?.includes(p) === true;
}

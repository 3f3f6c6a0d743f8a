/**
 * The roles log's files (./roles.ts): state S is `_paxd/roles/<S, 20 digits>.roles`, framed as
 * ../storage/frame.ts draws it, magic "PXRL", around the UTF-8 JSON of RolesJson:
 *
 *   offset size  field
 *        0    4  magic "PXRL"
 *        4    4  format version, u32 LE (1)
 *        8    4  payload length, u32 LE
 *       12    4  payload crc32
 *       16    4  header crc32
 *       20    …  payload: RolesJson as UTF-8 JSON
 */
import { type FrameKind, type ObjectStore, decodeFrame, encodeFrame, FRAME_HEADER_BYTES } from '../storage/index.js';
import { corruption } from '../types/index.js';

export type { ObjectStore };

/** PostgreSQL's table privileges (https://www.postgresql.org/docs/15/ddl-priv.html), in its order (arwdDxt). */
export const TABLE_PRIVILEGES = ['INSERT', 'SELECT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER'] as const;
export type TablePrivilege = (typeof TABLE_PRIVILEGES)[number];

export interface RoleJson {
  superuser: boolean;
  login: boolean;
  /** A SCRAM-SHA-256 or md5 verifier (./verifier.ts); null: no password login. */
  password: string | null;
  /** Member of pg_read_all_data: SELECT on every table. */
  readAllData: boolean;
}

export interface TableAclJson {
  /** The role that created the table; null: the bootstrap superuser (tables made by paxd itself, the CLI, the inbox). */
  owner: string | null;
  /** Grantee ('public' for PUBLIC) → privileges granted, in TABLE_PRIVILEGES order. */
  grants: Record<string, TablePrivilege[]>;
}

export interface RolesJson {
  format: 1;
  id: number;
  /** The state this one was built on (id − 1; 0 for the first). */
  parent: number;
  createdAt: string;
  roles: Record<string, RoleJson>;
  tables: Record<string, TableAclJson>;
  /** Grantees of CREATE on schema public. */
  schemaCreate: string[];
}

export const ROLES_DIR = '_paxd/roles';
const ROLES_NAME = /^(\d{20})\.roles$/;
const ROLES_FRAME: FrameKind = { noun: 'roles', magic: new Uint8Array([0x50, 0x58, 0x52, 0x4c]) }; // "PXRL"

/** `_paxd/roles/00000000000000000003.roles` */
export function rolesPath(id: number): string {
  return `${ROLES_DIR}/${String(id).padStart(20, '0')}.roles`;
}

/** The ids of the roles log's states, ascending. */
export async function listRolesIds(store: ObjectStore): Promise<number[]> {
  const out: number[] = [];
  for (const o of await store.list(`${ROLES_DIR}/`)) {
    const m = ROLES_NAME.exec(o.path.slice(ROLES_DIR.length + 1));
    if (m !== null) out.push(Number(m[1]));
  }
  return out.sort((a, b) => a - b);
}

export function encodeRoles(r: RolesJson): Uint8Array {
  return encodeFrame(ROLES_FRAME, r);
}

/** The state in `bytes` (the whole file at `path`, which names state `id`); corruption (XX001) for anything else. */
export function decodeRoles(bytes: Uint8Array, path: string, id: number): RolesJson {
  const v = decodeFrame(ROLES_FRAME, bytes, path) as Partial<RolesJson> | null;
  const bad = (why: string) => corruption(path, FRAME_HEADER_BYTES, `roles ${path}: ${why}`);
  if (v === null || typeof v !== 'object' || v.format !== 1) throw bad('expected {"format": 1, …}');
  if (v.id !== id) throw bad(`holds state ${String(v.id)}, expected ${id}`);
  if (typeof v.roles !== 'object' || v.roles === null || typeof v.tables !== 'object' || v.tables === null || !Array.isArray(v.schemaCreate))
    throw bad('expected "roles" and "tables" objects and a "schemaCreate" array');
  return v as RolesJson;
}

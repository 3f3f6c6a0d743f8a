/**
 * What PostgreSQL already has: the postgres_fdw extension, the foreign server and its
 * options, the user mapping, and every relation of the target schema (the foreign tables
 * of our server with their columns and options; anything else only by name, to refuse a
 * clash). Read from the system catalogs in one transaction.
 */
import type { ForeignColumn } from '../types/index.js';
import type { MirrorOptions } from './options.js';

/** The part of a `pg` client the mirror uses. */
export interface SqlClient {
  query(text: string, values?: readonly unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
}

export interface ExistingServer {
  readonly wrapper: string;
  readonly options: ReadonlyMap<string, string>;
}

export interface ExistingTable {
  readonly name: string;
  /** pg_class.relkind: 'f' for a foreign table. */
  readonly relkind: string;
  /** The foreign server of a foreign table, else null. */
  readonly server: string | null;
  readonly options: ReadonlyMap<string, string>;
  readonly columns: readonly ForeignColumn[];
}

export interface ExistingState {
  readonly extension: boolean;
  readonly schema: boolean;
  readonly server: ExistingServer | null;
  /** The mapping's options; null when there is none. Options the role may not see read as absent. */
  readonly mapping: ReadonlyMap<string, string> | null;
  readonly tables: ReadonlyMap<string, ExistingTable>;
}

/** An `{k=v,…}` options array (srvoptions, umoptions, ftoptions) as a map. */
function optionMap(a: unknown): Map<string, string> {
  const m = new Map<string, string>();
  for (const o of (a as string[] | null) ?? []) {
    const i = o.indexOf('=');
    m.set(o.slice(0, i), o.slice(i + 1));
  }
  return m;
}

export async function readExisting(c: SqlClient, o: MirrorOptions): Promise<ExistingState> {
  const ext = await c.query(`SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'postgres_fdw'`);
  const nsp = await c.query(`SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1`, [o.schema]);
  const srv = await c.query(
    `SELECT w.fdwname, s.srvoptions FROM pg_catalog.pg_foreign_server s JOIN pg_catalog.pg_foreign_data_wrapper w ON w.oid = s.srvfdw WHERE s.srvname = $1`,
    [o.server],
  );
  const server = srv.rows.length === 0 ? null : { wrapper: String(srv.rows[0]!.fdwname), options: optionMap(srv.rows[0]!.srvoptions) };
  let mapping: Map<string, string> | null = null;
  if (server !== null) {
    const role = o.forRole.toUpperCase() === 'PUBLIC' ? 'PUBLIC' : o.forRole.toUpperCase() === 'CURRENT_USER' ? null : o.forRole;
    const um = await c.query(
      role === 'PUBLIC'
        ? `SELECT umoptions FROM pg_catalog.pg_user_mappings WHERE srvname = $1 AND umuser = 0`
        : `SELECT umoptions FROM pg_catalog.pg_user_mappings WHERE srvname = $1 AND umuser = (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = ${role === null ? 'current_user' : '$2'})`,
      role === null || role === 'PUBLIC' ? [o.server] : [o.server, role],
    );
    if (um.rows.length > 0) mapping = optionMap(um.rows[0]!.umoptions);
  }
  const tables = new Map<string, ExistingTable>();
  if (nsp.rows.length > 0) {
    const rels = await c.query(
      `SELECT c.oid, c.relname, c.relkind::text AS relkind, s.srvname, ft.ftoptions
         FROM pg_catalog.pg_class c
         JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN pg_catalog.pg_foreign_table ft ON ft.ftrelid = c.oid
         LEFT JOIN pg_catalog.pg_foreign_server s ON s.oid = ft.ftserver
        WHERE n.nspname = $1`,
      [o.schema],
    );
    const cols = await c.query(
      `SELECT c.relname, a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull,
              CASE WHEN a.attcollation = 0 THEN NULL ELSE coll.collname END AS collname
         FROM pg_catalog.pg_attribute a
         JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
         JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
         JOIN pg_catalog.pg_foreign_table ft ON ft.ftrelid = c.oid
         JOIN pg_catalog.pg_foreign_server s ON s.oid = ft.ftserver
         LEFT JOIN pg_catalog.pg_collation coll ON coll.oid = a.attcollation
        WHERE n.nspname = $1 AND s.srvname = $2 AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY c.relname, a.attnum`,
      [o.schema, o.server],
    );
    const byTable = new Map<string, ForeignColumn[]>();
    for (const r of cols.rows) {
      const list = byTable.get(String(r.relname)) ?? [];
      list.push({ name: String(r.attname), type: String(r.type), notNull: r.attnotnull === true, collation: r.collname === null ? null : String(r.collname) });
      byTable.set(String(r.relname), list);
    }
    for (const r of rels.rows) {
      const name = String(r.relname);
      tables.set(name, {
        name,
        relkind: String(r.relkind),
        server: r.srvname === null ? null : String(r.srvname),
        options: optionMap(r.ftoptions),
        columns: byTable.get(name) ?? [],
      });
    }
  }
  return { extension: ext.rows.length > 0, schema: nsp.rows.length > 0, server, mapping, tables };
}

/** The state of a PostgreSQL that has nothing yet: what --dry-run plans against without --pg. */
export const NOTHING: ExistingState = { extension: false, schema: false, server: null, mapping: null, tables: new Map() };

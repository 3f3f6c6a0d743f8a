/**
 * The relations of schema pg_catalog paxd generates (PostgreSQL 15 docs chapter 53 "System
 * Catalogs" and 54 "System Views"), from a catalog snapshot (./snapshot.ts). A relation that
 * describes a feature paxd lacks (policies, publications, triggers, sequences, inheritance,
 * extensions, comments) is empty, which is the truth; catalogs paxd cannot answer truly
 * (pg_cast, pg_operator, pg_depend) are not here, so naming them is 42P01.
 */
import { derivedOid, OID, type CatalogSnapshot, type CatalogTable, roleOid } from './snapshot.js';
import { type SystemRelation, type SystemRow, systemRelation } from './relation.js';
import { columnTypeInfo, defaultExpr } from './format.js';
import { pgTypeRows } from './pg-type.js';
import { pgProcRows, PROC_DESCRIPTIONS } from './pg-proc.js';
import { settingRows } from './settings.js';
import { listViews } from './views.js';
import { currentContext } from '../context.js';
import { SCHEMA_COMMENTS, SYSTEM_RELATION_NAMES } from './functions.js';

/** The table access methods of paxd's two layouts, beside PostgreSQL's own (pg_am.dat). */
export const LAYOUT_AM: Readonly<Record<string, { readonly oid: number; readonly name: string }>> = {
  pax: { oid: derivedOid('am:pax'), name: 'pax' },
  ao_column: { oid: derivedOid('am:ao_column'), name: 'ao_column' },
};

/** The schemas, with PostgreSQL 15's ACLs: public's owner is pg_database_owner, PUBLIC may use it, CREATE as granted (paxd's roles log). */
function namespaceRows(c: CatalogSnapshot): SystemRow[] {
  const boot = c.bootstrap;
  const system = [`${boot}=UC/${boot}`, `=U/${boot}`];
  const owner = 'pg_database_owner';
  const pub = c.schemaCreate.includes('public') ? [`${owner}=UC/${owner}`, `=UC/${owner}`] : [`${owner}=UC/${owner}`, `=U/${owner}`];
  for (const g of c.schemaCreate) if (g !== 'public') pub.push(`${g}=C/${owner}`);
  return [
    { oid: OID.pgToast, nspname: 'pg_toast', nspowner: OID.bootstrapRole, nspacl: null },
    { oid: OID.pgCatalog, nspname: 'pg_catalog', nspowner: OID.bootstrapRole, nspacl: system },
    { oid: OID.public, nspname: 'public', nspowner: OID.pgDatabaseOwner, nspacl: pub },
    { oid: OID.informationSchema, nspname: 'information_schema', nspowner: OID.bootstrapRole, nspacl: system },
  ];
}

/** PostgreSQL 15's comments on the schemas (pg_namespace.dat), the only objects paxd has comments on. */
export const DESCRIPTIONS: readonly { readonly objoid: number; readonly classoid: number; readonly catalog: string; readonly description: string }[] = [
  { objoid: OID.pgToast, classoid: OID.pgNamespace, catalog: 'pg_namespace', description: 'reserved schema for TOAST tables' },
  { objoid: OID.pgCatalog, classoid: OID.pgNamespace, catalog: 'pg_namespace', description: 'system catalog schema' },
  { objoid: OID.public, classoid: OID.pgNamespace, catalog: 'pg_namespace', description: 'standard public schema' },
];

const amOf = (t: CatalogTable) => LAYOUT_AM[t.layout]?.oid ?? OID.heap;

function pgClassRows(c: CatalogSnapshot): SystemRow[] {
  const rows: SystemRow[] = c.tables.map((t) => ({
    oid: t.oid, relname: t.name, relnamespace: OID.public, reltype: t.typeOid, reloftype: 0, relowner: roleOid(c, t.owner), relam: amOf(t), relfilenode: t.oid,
    reltablespace: 0, relpages: Math.ceil(t.bytes / 8192), reltuples: t.rows, relallvisible: 0, reltoastrelid: 0, relhasindex: false, relisshared: false,
    relpersistence: 'p', relkind: 'r', relnatts: t.fields.length, relchecks: 0, relispopulated: true, relreplident: 'd', relispartition: false,
  }));
  for (const v of listViews(c))
    rows.push({ oid: v.oid, relname: v.name, relnamespace: OID.public, relowner: roleOid(c, v.owner), relpersistence: 'p', relkind: 'v', relnatts: v.columns.length, relispopulated: true, relreplident: 'n' });
  for (const r of SYSTEM_RELATIONS.values()) {
    const view = VIEWS.has(r.name) || r.schema === 'information_schema';
    rows.push({
      oid: r.oid, relname: r.name, relnamespace: r.schema === 'pg_catalog' ? OID.pgCatalog : OID.informationSchema, relowner: OID.bootstrapRole, relam: view ? 0 : OID.heap,
      relpersistence: 'p', relkind: view ? 'v' : 'r', relnatts: r.columns.length, relispopulated: true, relreplident: view ? 'n' : 'n',
    });
  }
  return rows;
}

/** pg_catalog's views (the rest are catalogs, relkind 'r'). */
const VIEWS = new Set(['pg_roles', 'pg_user', 'pg_settings', 'pg_stat_activity', 'pg_stat_user_tables', 'pg_tables', 'pg_views', 'pg_matviews']);

function pgAttributeRows(c: CatalogSnapshot): SystemRow[] {
  const rows: SystemRow[] = [];
  // A view's columns are in pg_attribute too (pgjdbc's getColumns and ResultSetMetaData read them).
  for (const t of [...c.tables, ...listViews(c)])
    t.fields.forEach((f, i) => {
      const ti = columnTypeInfo(f.type);
      const text = f.type.id === 'text' || f.type.id === 'varchar' || f.type.id === 'bpchar';
      rows.push({
        attrelid: t.oid, attname: f.name, atttypid: ti.oid, attstattarget: -1, attlen: ti.len, attnum: i + 1, attndims: f.type.id === 'array' ? 1 : 0, attcacheoff: -1,
        atttypmod: ti.typmod, attbyval: ti.byval, attalign: ti.align, attstorage: ti.storage, attcompression: '', attnotnull: f.notNull, atthasdef: f.default !== undefined,
        atthasmissing: false, attidentity: '', attgenerated: '', attisdropped: false, attislocal: true, attinhcount: 0,
        // paxd compares strings byte-wise: collation "C" (DESIGN.md "Semantics"), as the mirror declares them.
        attcollation: text ? OID.cCollation : 0,
      });
    });
  return rows;
}

function pgAttrdefRows(c: CatalogSnapshot): SystemRow[] {
  const rows: SystemRow[] = [];
  for (const t of c.tables)
    t.fields.forEach((f, i) => {
      const d = defaultExpr(f);
      if (d !== null) rows.push({ oid: derivedOid(`attrdef:${t.oid}:${i + 1}`), adrelid: t.oid, adnum: i + 1, adbin: d });
    });
  return rows;
}

function roleRows(c: CatalogSnapshot, secretsAs: string | null): SystemRow[] {
  return c.roles.map((r) => ({
    oid: r.oid, rolname: r.name, rolsuper: r.superuser, rolinherit: true, rolcreaterole: r.superuser, rolcreatedb: r.superuser, rolcanlogin: r.login,
    rolreplication: r.superuser, rolconnlimit: -1, rolpassword: secretsAs, rolvaliduntil: null, rolbypassrls: r.superuser, rolconfig: null,
  }));
}

function pgUserRows(c: CatalogSnapshot): SystemRow[] {
  return c.roles
    .filter((r) => r.login)
    .map((r) => ({ usename: r.name, usesysid: r.oid, usecreatedb: r.superuser, usesuper: r.superuser, userepl: r.superuser, usebypassrls: r.superuser, passwd: '********', valuntil: null, useconfig: null }));
}

function pgDatabaseRows(c: CatalogSnapshot): SystemRow[] {
  return [{
    oid: OID.database, datname: c.database, datdba: OID.bootstrapRole, encoding: 6, datlocprovider: 'c', datistemplate: false, datallowconn: true, datconnlimit: -1,
    datfrozenxid: 0, datminmxid: 1, dattablespace: OID.pgDefault, datcollate: 'C', datctype: 'C', daticulocale: null, datcollversion: null, datacl: null,
  }];
}

function pgAmRows(): SystemRow[] {
  const pg: [number, string, string, string][] = [
    [OID.heap, 'heap', 'heap_tableam_handler', 't'], [OID.btree, 'btree', 'bthandler', 'i'], [405, 'hash', 'hashhandler', 'i'], [783, 'gist', 'gisthandler', 'i'],
    [2742, 'gin', 'ginhandler', 'i'], [4000, 'spgist', 'spghandler', 'i'], [3580, 'brin', 'brinhandler', 'i'],
  ];
  return [...pg.map(([oid, amname, amhandler, amtype]) => ({ oid, amname, amhandler, amtype })), ...Object.values(LAYOUT_AM).map((a) => ({ oid: a.oid, amname: a.name, amhandler: '-', amtype: 't' }))];
}

function pgCollationRows(): SystemRow[] {
  const base = { collnamespace: OID.pgCatalog, collowner: OID.bootstrapRole, collisdeterministic: true, collencoding: -1, colliculocale: null, collversion: null };
  return [
    { ...base, oid: OID.defaultCollation, collname: 'default', collprovider: 'd', collcollate: null, collctype: null },
    { ...base, oid: OID.cCollation, collname: 'C', collprovider: 'c', collcollate: 'C', collctype: 'C' },
    { ...base, oid: 951, collname: 'POSIX', collprovider: 'c', collcollate: 'POSIX', collctype: 'POSIX' },
  ];
}

function pgTablesRows(c: CatalogSnapshot): SystemRow[] {
  return c.tables.map((t) => ({ schemaname: 'public', tablename: t.name, tableowner: t.owner, tablespace: null, hasindexes: false, hasrules: false, hastriggers: false, rowsecurity: false }));
}

function pgViewsRows(c: CatalogSnapshot): SystemRow[] {
  return listViews(c).map((v) => ({ schemaname: 'public', viewname: v.name, viewowner: v.owner, definition: v.definition }));
}

function statUserTablesRows(c: CatalogSnapshot): SystemRow[] {
  return c.tables.map((t) => ({ relid: t.oid, schemaname: 'public', relname: t.name, n_live_tup: BigInt(t.rows), n_dead_tup: 0n }));
}

/** This session's row: the sessions' registry is the wire server's, which the engine does not see (docs/ARCHITECTURE.md). */
function statActivityRows(c: CatalogSnapshot): SystemRow[] {
  const s = currentContext()?.session;
  if (s === undefined) return [];
  const setting = (n: string) => {
    try {
      return s.setting(n);
    } catch {
      return null;
    }
  };
  return [{ datid: OID.database, datname: c.database, pid: s.backendPid, usesysid: roleOid(c, c.user), usename: c.user, application_name: setting('application_name') ?? '', state: 'active', backend_type: 'client backend' }];
}

function pgTablespaceRows(): SystemRow[] {
  return [
    { oid: OID.pgDefault, spcname: 'pg_default', spcowner: OID.bootstrapRole },
    { oid: OID.pgGlobal, spcname: 'pg_global', spcowner: OID.bootstrapRole },
  ];
}

function pgLanguageRows(): SystemRow[] {
  return [
    { oid: 12, lanname: 'internal', lanowner: OID.bootstrapRole, lanispl: false, lanpltrusted: false, lanplcallfoid: 0, laninline: 0, lanvalidator: 2246 },
    { oid: 13, lanname: 'c', lanowner: OID.bootstrapRole, lanispl: false, lanpltrusted: false, lanplcallfoid: 0, laninline: 0, lanvalidator: 2247 },
    { oid: 14, lanname: 'sql', lanowner: OID.bootstrapRole, lanispl: false, lanpltrusted: true, lanplcallfoid: 0, laninline: 0, lanvalidator: 2248 },
  ];
}

const none = (): SystemRow[] => [];

/** pg_catalog's OIDs of catalogs (pg_class.dat) and views (system_views.sql gives them at initdb: derived here). */
const CATALOG_OIDS: Readonly<Record<string, number>> = { pg_class: OID.pgClass, pg_type: OID.pgType, pg_proc: OID.pgProc, pg_attribute: 1249, pg_namespace: OID.pgNamespace, pg_database: OID.pgDatabase, pg_authid: OID.pgAuthid, pg_extension: OID.pgExtension, pg_constraint: OID.pgConstraint };

const rel = (name: string, rows: (c: CatalogSnapshot) => readonly SystemRow[]) => systemRelation('pg_catalog', name, CATALOG_OIDS[name] ?? derivedOid(`relation:pg_catalog.${name}`), rows);

const PG_CATALOG: readonly SystemRelation[] = [
  rel('pg_namespace', namespaceRows),
  rel('pg_class', pgClassRows),
  rel('pg_attribute', pgAttributeRows),
  rel('pg_type', pgTypeRows),
  rel('pg_attrdef', pgAttrdefRows),
  rel('pg_constraint', none),
  rel('pg_index', none),
  rel('pg_database', pgDatabaseRows),
  rel('pg_roles', (c) => roleRows(c, '********')),
  rel('pg_user', pgUserRows),
  // pg_authid without its secrets: rolpassword is NULL for every role.
  rel('pg_authid', (c) => roleRows(c, null)),
  rel('pg_auth_members', none),
  rel('pg_am', pgAmRows),
  rel('pg_collation', pgCollationRows),
  rel('pg_description', () => [
    ...DESCRIPTIONS.map((d) => ({ objoid: d.objoid, classoid: d.classoid, objsubid: 0, description: d.description })),
    ...PROC_DESCRIPTIONS.map((d) => ({ objoid: d.objoid, classoid: OID.pgProc, objsubid: 0, description: d.description })),
  ]),
  rel('pg_shdescription', none),
  rel('pg_proc', pgProcRows),
  rel('pg_settings', settingRows),
  rel('pg_extension', none),
  rel('pg_inherits', none),
  rel('pg_tablespace', pgTablespaceRows),
  rel('pg_language', pgLanguageRows),
  rel('pg_stat_activity', statActivityRows),
  rel('pg_stat_user_tables', statUserTablesRows),
  rel('pg_tables', pgTablesRows),
  rel('pg_views', pgViewsRows),
  rel('pg_matviews', none),
  rel('pg_policy', none),
  rel('pg_statistic_ext', none),
  rel('pg_publication', none),
  rel('pg_publication_namespace', none),
  rel('pg_publication_rel', none),
  rel('pg_sequence', none),
  rel('pg_trigger', none),
  rel('pg_rewrite', none),
  rel('pg_foreign_table', none),
  rel('pg_partitioned_table', none),
  rel('pg_enum', none),
  rel('pg_event_trigger', none),
];

/** Every system relation by `schema.name` (./information-schema.ts adds its own). */
export const SYSTEM_RELATIONS = new Map<string, SystemRelation>();

export function addSystemRelations(rs: readonly SystemRelation[]): void {
  for (const r of rs) {
    SYSTEM_RELATIONS.set(`${r.schema}.${r.name}`, r);
    SYSTEM_RELATION_NAMES.set(r.oid, r.schema === 'pg_catalog' ? r.name : `${r.schema}.${r.name}`);
  }
}
addSystemRelations(PG_CATALOG);
SCHEMA_COMMENTS.push(...DESCRIPTIONS);

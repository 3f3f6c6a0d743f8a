/**
 * src/table: the one layer that uses both src/scan and src/insert. A Database is a store of
 * tables; a Table is pinned to one snapshot and reads (scan, top-N, aggregates), writes
 * (sinks, ingest, write sets), deletes, compacts, checks and reports on it.
 *
 *   database.ts     Database (open a store, create/list/drop tables and views) and Table
 *   views.ts        listViews, dependentViews: the views of the catalog (CREATE VIEW)
 *   view-errors.ts  writes into a view: 0A000
 *   write-set.ts    a transaction's writes to one table: inserts, deletes, savepoints
 *   delete.ts       table.delete(where): delete vectors through the commit loop
 *   compact.ts      table.compact(): files with deletes and small files rewritten
 *   check.ts        paxd check: every checksum and segment EOF verified
 *   copy-from.ts    openCopyFrom: COPY FROM STDIN's load (byte chunks in text or CSV → the
 *                   CSV reader → one sink, committed once)
 *   ingest.ts       ingestFiles: input files → one commit, with rejects and accounting; a
 *                   second entry point, imported from its file: it loads the input readers
 *                   (src/insert/readers.ts) and apache-arrow
 *   stats-report.ts paxd stats: statistics from the snapshot alone
 *   roles.ts        the store's roles and grants: a log of its own (_paxd/roles, roles-file.ts)
 *   privileges.ts   who may do what (42501): what every front door asks
 *   verifier.ts     SCRAM-SHA-256 and md5 password verifiers, pg_authid's format
 */
export { Database, Table, DEFAULT_DATA, DEFAULT_OPTIONS, columnAdder, storeUri } from './database.js';
export type { ColumnSpec, CreateTableOptions, TableInfo } from './database.js';
/** What Table.sink() returns (src/insert/sink.ts). */
export type { TableSink } from '../insert/index.js';
export { WriteSet, commitWriteSets, serializationFailure, type TableDdl, type GroupRef, type WriteMark } from './write-set.js';
export { deleteRows, type DeleteResult } from './delete.js';
export { compactTable, type CompactOptions, type CompactResult } from './compact.js';
export { checkTable, type CheckResult, type CheckProblem } from './check.js';
export { openCopyFrom, type CopyFrom, type CopyFromOptions } from './copy-from.js';
/** The bad row a COPY load's placeError places (src/insert/csv/options.ts). */
export type { CsvRowError } from '../insert/index.js';
export { tableStats, type StatsReport, type ColumnReport, type GroupReport, type FileReport } from './stats-report.js';
export { SCRAM_ITERATIONS, SCRAM_MECHANISM, SCRAM_SALT_BYTES, isMd5Verifier, md5Verifier, parseScramVerifier, scramStoredKey, scramVerifier, type ScramSecret } from './verifier.js';
export { RoleCatalog, roleCatalogOf, dependentsOf, TABLE_PRIVILEGES, ROLES_DIR, type ConfiguredRole, type Role, type RoleJson, type RolesJson, type TableAclJson, type TablePrivilege } from './roles.js';
export { Privileges, privilegesOf, permissionDenied, mustBeOwner, roleCommandDenied, serverFileCopyRefused, PUBLIC_GRANTEE } from './privileges.js';
export { listViews, dependentViews, type ViewInfo } from './views.js';
export { storedTable, viewNotWritable } from './view-errors.js';

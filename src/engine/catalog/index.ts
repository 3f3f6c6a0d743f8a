/**
 * pg_catalog and information_schema (issue #21): system relations generated from the store's
 * catalog at the statement's snapshot, and the catalog functions. The binder reaches them
 * through ./bind.ts; docs/ARCHITECTURE.md "Catalogs" describes the folder.
 */
export { prepareCatalog, systemLeaf, systemRelationOf, SCHEMAS } from './bind.js';
export { CATALOG_FUNCTIONS, sizePretty } from './functions.js';
export { tableOid, derivedOid, OID } from './snapshot.js';
export { listViews, type CatalogView } from './views.js';
export { bindCollate, nameRegOutputs, regclassOid, systemRegclass, systemRegclassOid } from './names.js';

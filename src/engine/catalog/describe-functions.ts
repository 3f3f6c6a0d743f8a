/**
 * The catalog functions that psql's describe commands (`\d t`, `\d+ t`; PostgreSQL 15's
 * src/bin/psql/describe.c) and SQLAlchemy's inspector call beyond ./functions.ts's, over objects
 * paxd has none of (extended statistics, publications, sequences): they answer as PostgreSQL
 * does where no such object exists, so the queries bind and list nothing.
 *
 *   pg_get_statisticsobjdef_columns(oid)  → NULL (paxd has no extended statistics)
 *   pg_relation_is_publishable('t'::regclass) → true for a table
 *   pg_get_serial_sequence('t', 'id')      → NULL (paxd has no sequences)
 */
import { type PgType, SQLSTATE } from '../../types/index.js';
import { SqlError } from '../errors.js';
import { type CatalogSnapshot, currentCatalog, tableByOid } from './snapshot.js';
import type { Family, Kernel, Signature } from '../functions/signature.js';

const OID: PgType = Object.freeze({ id: 'oid' });
const TEXT: PgType = Object.freeze({ id: 'text' });
const BOOL: PgType = Object.freeze({ id: 'bool' });

function catalogNow(): CatalogSnapshot {
  const c = currentCatalog();
  if (c === null) throw new SqlError('internal', SQLSTATE.internal_error, 'internal error: a catalog function ran without the statement catalog');
  return c;
}

const sig = (params: readonly PgType[], result: PgType, kernel: Kernel): Signature => Object.freeze({ params, result, kernel, volatility: 'stable' });
const nothing: Kernel = () => null;

export const DESCRIBE_FUNCTIONS: Family = Object.freeze({
  pg_get_statisticsobjdef_columns: [sig([OID], TEXT, nothing)],
  // paxd has no sequences (SQLAlchemy's get_columns asks for a column's identity sequence).
  pg_get_serial_sequence: [sig([TEXT, TEXT], TEXT, nothing)],
  // A paxd table could be published (an ordinary user table); no publication exists to list it.
  pg_relation_is_publishable: [sig([OID], BOOL, (a) => tableByOid(catalogNow(), Number(a[0])) !== undefined)],
});

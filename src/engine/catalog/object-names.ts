/**
 * Names of catalog objects by oid, which the catalog's generators register as they build their
 * rows and the reg* output functions read (./reg-io.ts): a leaf module, so that both import it.
 */

/** System relations' names by OID, qualified when search_path does not reach them (./pg-catalog.ts registers them). */
export const SYSTEM_RELATION_NAMES = new Map<number, string>();

/** Library functions' names by OID (./pg-proc.ts registers them). */
export const FUNCTION_NAMES = new Map<number, string>();

/** The function signatures ./pg-proc.ts lists, by OID (set there: the library registers this family). */
export const FUNCTION_PARTS = new Map<number, { result: string; arguments: string }>();

/** PostgreSQL 15's schemas by oid (pg_namespace.dat; information_schema's as initdb makes it). */
export const NAMESPACE_NAMES: Readonly<Record<number, string>> = { 11: 'pg_catalog', 2200: 'public', 99: 'pg_toast', 13207: 'information_schema' };

/**
 * Functions the catalog names by regproc (pg_type.typinput's int4in, …) that paxd's library does
 * not have: an oid of their own each, so that their regproc values print their names.
 */
export const SUPPORT_PROCS = new Map<number, string>();
const SUPPORT_OIDS = new Map<string, number>();

/** The regproc value of a function named in a catalog row: 0 for `-`, else the function's oid. */
export function regprocOf(name: string): bigint {
  if (name === '-' || name === '') return 0n;
  for (const [oid, n] of FUNCTION_NAMES) if (n === name) return BigInt(oid);
  let oid = SUPPORT_OIDS.get(name);
  if (oid === undefined) {
    // Below FirstGenbkiObjectId (10000), where PostgreSQL's built-in functions are, past its types.
    oid = 8000 + SUPPORT_OIDS.size;
    SUPPORT_OIDS.set(name, oid);
    SUPPORT_PROCS.set(oid, name);
  }
  return BigInt(oid);
}

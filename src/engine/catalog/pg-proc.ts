/**
 * pg_proc: one row per signature of the engine's function library (../functions/registry.ts),
 * in schema pg_catalog, with PostgreSQL's argument and result type OIDs. The binder's own
 * functions (aggregates, COALESCE-like forms) are not library signatures and are not listed.
 */
import { type PgType, typeOid } from '../../types/index.js';
import { libraryEntries } from '../functions/registry.js';
import { derivedOid, OID } from './snapshot.js';
import type { SystemRow } from './relation.js';
import { FUNCTION_NAMES, FUNCTION_PARTS, SCHEMA_COMMENTS } from './functions.js';
import { formatType } from './format.js';
import { PG_PROCS } from './pg-proc-data.js';

/** pg_type OIDs of the pseudo-types a signature may name: anyarray, "any". */
const ANYARRAY_OID = 2277;
const ANY_OID = 2276;

export function signatureTypeOid(t: PgType): number {
  if (t.id === 'array' && t.element === undefined) return ANYARRAY_OID;
  return typeOid(t);
}

const VOLATILITY = { immutable: 'i', stable: 's', volatile: 'v' } as const;

/** The OID of a library signature: derived from its key, `split_part(text,text,int4)`. */
export function procOid(key: string): number {
  return derivedOid(`proc:${key}`);
}

/** PostgreSQL's pg_proc rows (./pg-proc-data.ts) by `proname(argtype oids)`: `split_part(25 25 23)`. */
const PG_PROC = new Map(
  PG_PROCS.trim()
    .split('\n')
    .map((line) => {
      const [oid, name, args, ...comment] = line.split('|');
      return [`${name}(${args})`, { oid: Number(oid), description: comment.join('|') }] as const;
    }),
);

/** The comments on the library's functions, pg_description rows of class pg_proc (PostgreSQL's, where the signature is PostgreSQL's). */
export const PROC_DESCRIPTIONS: { objoid: number; catalog: string; description: string }[] = [];

export function pgProcRows(): readonly SystemRow[] {
  return ROWS;
}

/** The rows, computed once: the library does not change while the process runs. */
const ROWS: readonly SystemRow[] = Object.freeze(
  libraryEntries().map((e) => {
    const args = e.sig.params.map(signatureTypeOid);
    const variadic = e.sig.variadic === undefined ? 0 : e.sig.variadic === 'any' ? ANY_OID : signatureTypeOid(e.sig.variadic);
    if (variadic !== 0) args.push(variadic === ANY_OID ? ANY_OID : typeOid({ id: 'array', element: e.sig.variadic as PgType }));
    const pg = PG_PROC.get(`${e.name}(${args.join(' ')})`);
    const oid = pg?.oid ?? procOid(e.key);
    if (pg !== undefined && pg.description !== '') PROC_DESCRIPTIONS.push({ objoid: oid, catalog: 'pg_proc', description: pg.description });
    FUNCTION_NAMES.set(oid, e.name);
    FUNCTION_PARTS.set(oid, { result: formatType(signatureTypeOid(e.sig.result), -1) ?? '', arguments: args.map((a) => formatType(a, -1)).join(', ') });
    return {
      oid, proname: e.name, pronamespace: OID.pgCatalog, proowner: OID.bootstrapRole, prolang: 12, procost: 1, prorows: 0, provariadic: variadic,
      prosupport: '-', prokind: 'f', prosecdef: false, proleakproof: false, proisstrict: e.sig.strict ?? true, proretset: false,
      provolatile: VOLATILITY[e.sig.volatility ?? 'immutable'], proparallel: 's', pronargs: args.length, pronargdefaults: 0, prorettype: signatureTypeOid(e.sig.result),
      proargtypes: args.join(' '), prosrc: e.name,
    };
  }),
) as readonly SystemRow[];
SCHEMA_COMMENTS.push(...PROC_DESCRIPTIONS);

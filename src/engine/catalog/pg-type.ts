/**
 * pg_type: PostgreSQL 15's built-in types (./pg-type-data.ts) and a row type per paxd table
 * (typtype 'c', as PostgreSQL gives every table).
 */
import { BUILTIN_TYPES } from './pg-type-data.js';
import { type CatalogSnapshot, OID } from './snapshot.js';
import type { SystemRow } from './relation.js';

export interface BuiltinType {
  readonly oid: number;
  readonly name: string;
  readonly len: number;
  readonly byval: boolean;
  readonly type: string;
  readonly category: string;
  readonly preferred: boolean;
  readonly delim: string;
  readonly subscript: string;
  readonly elem: number;
  readonly array: number;
  readonly input: string;
  readonly output: string;
  readonly receive: string;
  readonly send: string;
  readonly modin: string;
  readonly modout: string;
  readonly analyze: string;
  readonly align: string;
  readonly storage: string;
  readonly collation: number;
}

const TYPES: readonly BuiltinType[] = BUILTIN_TYPES.trim()
  .split('\n')
  .map((line) => {
    const f = line.split('|');
    return Object.freeze({
      oid: Number(f[0]), name: f[1]!, len: Number(f[2]), byval: f[3] === 't', type: f[4]!, category: f[5]!, preferred: f[6] === 't', delim: f[7]!,
      subscript: f[8]!, elem: Number(f[9]), array: Number(f[10]), input: f[11]!, output: f[12]!, receive: f[13]!, send: f[14]!, modin: f[15]!, modout: f[16]!,
      analyze: f[17]!, align: f[18]!, storage: f[19]!, collation: Number(f[20]),
    });
  });

const BY_OID = new Map(TYPES.map((t) => [t.oid, t]));
const BY_NAME = new Map(TYPES.map((t) => [t.name, t]));

export function builtinType(oid: number): BuiltinType | undefined {
  return BY_OID.get(oid);
}

export function builtinTypeNamed(name: string): BuiltinType | undefined {
  return BY_NAME.get(name);
}

/** The regproc columns name their functions; the catalog keeps names, `-` for none (./relation.ts). */
const proc = (name: string) => name;

export function pgTypeRows(c: CatalogSnapshot): SystemRow[] {
  const rows: SystemRow[] = TYPES.map((t) => ({
    oid: t.oid, typname: t.name, typnamespace: OID.pgCatalog, typowner: OID.bootstrapRole, typlen: t.len, typbyval: t.byval, typtype: t.type, typcategory: t.category,
    typispreferred: t.preferred, typisdefined: true, typdelim: t.delim, typrelid: 0, typsubscript: proc(t.subscript), typelem: t.elem, typarray: t.array,
    typinput: proc(t.input), typoutput: proc(t.output), typreceive: proc(t.receive), typsend: proc(t.send), typmodin: proc(t.modin), typmodout: proc(t.modout),
    typanalyze: proc(t.analyze), typalign: t.align, typstorage: t.storage, typnotnull: false, typbasetype: 0, typtypmod: -1, typndims: 0, typcollation: t.collation,
  }));
  for (const t of c.tables)
    rows.push({
      oid: t.typeOid, typname: t.name, typnamespace: OID.public, typowner: OID.bootstrapRole, typlen: -1, typbyval: false, typtype: 'c', typcategory: 'C', typispreferred: false,
      typisdefined: true, typdelim: ',', typrelid: t.oid, typsubscript: '-', typelem: 0, typarray: 0, typinput: 'record_in', typoutput: 'record_out', typreceive: 'record_recv',
      typsend: 'record_send', typmodin: '-', typmodout: '-', typanalyze: '-', typalign: 'd', typstorage: 'x', typnotnull: false, typbasetype: 0, typtypmod: -1, typndims: 0, typcollation: 0,
    });
  return rows;
}

/**
 * UPDATE … FROM and DELETE … USING (postgres_fdw ships
 * `DELETE FROM public.t r1 USING public.c r2 WHERE ((r1.id = r2.id)) AND ((r2.region = 'west'))`).
 *
 * The join runs as the engine's query
 *   SELECT r1.<every column>, <SET values…>, <RETURNING items…> FROM <target> r1, <FROM/USING items> WHERE …
 * over the transaction's view, and its rows are matched back to the target's rows by their
 * values: the WHERE can only see a target row through its column values, so rows with equal
 * values join alike, and matching by value changes exactly the rows PostgreSQL changes (each
 * once, however many rows it joins; an UPDATE takes the first joined row's values, as
 * PostgreSQL takes an unspecified one).
 */
import type { Database } from '../../table/index.js';
import type { Field, PgType, Value } from '../../types/index.js';
import type { AstFields, AstNode } from '../parse.js';
import { type BoundQuery, bindQuery, queryFields, queryUnknown } from '../bind.js';
import { toText } from '../exec/kernels.js';
import { run } from '../exec/run.js';
import { planQuery } from '../plan.js';
import type { ResultField } from '../result.js';
import { engineType } from '../types.js';

export interface JoinedRows {
  /** Per target row key (rowKey): the SET values and RETURNING values of its first joined row. */
  readonly rows: Map<string, { readonly set: readonly Value[]; readonly returning: readonly Value[] }>;
  /** Types and unknown-ness of the SET values (for assignment). */
  readonly setTypes: readonly PgType[];
  readonly setUnknown: readonly boolean[];
  readonly returning: readonly ResultField[];
}

/** The key of a target row from its engine values, in field order. */
export function rowKey(fields: readonly Field[], values: readonly Value[]): string {
  return values.map((v, i) => (v === null ? '\u0000N' : `\u0001${toText(engineType(fields[i]!.type), v)}`)).join('\u0002');
}

function columnRef(qualifier: string, name: string): AstNode {
  return { ResTarget: { val: { ColumnRef: { fields: [{ String: { sval: qualifier } }, { String: { sval: name } }], location: -1 } }, location: -1 } };
}

/** The join query, bound (in the infer phase: Describe); RETURNING's fields are the last ones. */
export async function bindJoined(
  db: Database,
  rel: AstFields,
  fields: readonly Field[],
  from: readonly AstNode[],
  where: AstNode | undefined,
  setValues: readonly AstNode[],
  returning: readonly AstNode[],
): Promise<BoundQuery> {
  const qualifier = (rel.alias?.aliasname as string | undefined) ?? (rel.relname as string);
  const targetList: AstNode[] = [
    ...fields.map((f) => columnRef(qualifier, f.name)),
    ...setValues.map((val) => ({ ResTarget: { val, location: -1 } })),
    ...returning,
  ];
  const stmt: AstNode = {
    SelectStmt: {
      targetList,
      fromClause: [{ RangeVar: rel }, ...from],
      ...(where !== undefined ? { whereClause: where } : {}),
      limitOption: 'LIMIT_OPTION_DEFAULT',
      op: 'SETOP_NONE',
    },
  };
  return bindQuery(db, stmt);
}

export async function joinedRows(
  db: Database,
  rel: AstFields,
  fields: readonly Field[],
  from: readonly AstNode[],
  where: AstNode | undefined,
  setValues: readonly AstNode[],
  returning: readonly AstNode[],
): Promise<JoinedRows> {
  const q = await bindJoined(db, rel, fields, from, where, setValues, returning);
  const types = queryFields(q);
  const unknown = queryUnknown(q);
  const n = fields.length;
  const k = setValues.length;
  const r = await run(planQuery(q));
  const rows = new Map<string, { set: Value[]; returning: Value[] }>();
  for (const row of r.rows) {
    const key = rowKey(fields, row.slice(0, n));
    if (!rows.has(key)) rows.set(key, { set: row.slice(n, n + k), returning: row.slice(n + k) });
  }
  return {
    rows,
    setTypes: types.slice(n, n + k).map((t) => t.type),
    setUnknown: unknown.slice(n, n + k),
    returning: types.slice(n + k),
  };
}

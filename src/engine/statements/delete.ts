/**
 * DELETE FROM name [WHERE condition]: delete vectors in one new snapshot (Table.delete, which
 * skips row groups by their statistics). The WHERE must be pushable into the scan (comparisons
 * of bare columns with constants, IS [NOT] NULL, AND/OR/NOT of those; see ../plan.ts); other
 * conditions fail with 0A000 until the engine can hand the scan layer an evaluated selection.
 * Without WHERE every row is deleted. The command tag is `DELETE n`.
 */
import type { Database } from '../../database.js';
import { P, type Predicate } from '../../scan/index.js';
import type { AstFields } from '../parse.js';
import { bindCondition, openTable } from '../bind.js';
import { notSupported } from '../errors.js';
import { conjuncts } from '../expr.js';
import { toPredicate } from '../plan.js';
import type { QueryResult } from '../result.js';

export async function deleteFrom(db: Database, s: AstFields): Promise<QueryResult> {
  if (s.usingClause !== undefined) throw notSupported('DELETE … USING');
  if (s.returningList !== undefined) throw notSupported('RETURNING');
  if (s.withClause !== undefined) throw notSupported('WITH');
  const rel = s.relation as AstFields;
  if (rel.alias !== undefined) throw notSupported('DELETE with a table alias', rel.location);
  const table = await openTable(db, rel.relname as string, rel.location as number);
  let where: Predicate;
  if (s.whereClause === undefined) {
    // Every row: a column IS NULL OR IS NOT NULL is true for each.
    const c = table.fields[0]!.name;
    where = P.or(P.isNull(c), P.isNotNull(c));
  } else {
    const { expr, columns } = bindCondition(table, s.whereClause, 'WHERE');
    const parts = conjuncts(expr).map((c) => toPredicate(c, columns));
    if (parts.some((p) => p === null)) throw notSupported('DELETE with a WHERE condition that cannot be pushed into the scan');
    where = P.and(...(parts as Predicate[]));
  }
  const r = await table.delete(where);
  return { command: 'DELETE', tag: `DELETE ${r.deleted}`, fields: [], rows: [] };
}

/**
 * The table column a result column comes from, as PostgreSQL's RowDescription names it (its
 * "table OID" and "column attribute number" fields, PostgreSQL 15 docs 55.7, filled from the
 * target list's resorigtbl/resorigcol): a plain column reference of a stored table, seen through
 * subqueries in FROM and views, which the binder expands to subqueries. Anything computed, an
 * aggregate's or a window's output, a set operation's column, a CTE's and a system relation's
 * column have none (0 and 0 on the wire). pgjdbc's ResultSetMetaData (getTableName,
 * getSchemaName, isNullable, isAutoIncrement) looks the pair up in pg_attribute.
 *
 *   SELECT a.id, a.id + 1 FROM t a   →  [{ table: <t's pg_class oid>, column: 1 }, null]
 */
import type { Field } from '../types/index.js';
import type { Table } from '../table/index.js';
import type { BoundQuery, SelectClauses } from './ir.js';
import type { ResultField } from './result.js';
import { isCtidField } from './ctid.js';
import { tableOid } from './catalog/index.js';

export interface ColumnOrigin {
  /** pg_class.oid of the table (./catalog/snapshot.ts tableOid). */
  readonly table: number;
  /** pg_attribute.attnum: the column's 1-based position in the table. */
  readonly column: number;
}

function tableColumn(table: Table, field: Field): ColumnOrigin | null {
  if (isCtidField(field)) return null;
  const i = table.fields.findIndex((f) => f.fieldId === field.fieldId);
  if (i < 0) return null;
  return { table: relationOid(table), column: i + 1 };
}

/** pg_class.oid of a table or view (./catalog/snapshot.ts). */
function relationOid(t: Table): number {
  return tableOid(t.name, t.snapshot.incarnation ?? 1);
}

/**
 * The FROM row's slot a target's column reads, or null: after aggregation targets read the
 * group keys and then the aggregates, and a window's results come after the row it reads.
 */
function rowSlot(q: SelectClauses, slot: number): number | null {
  if (q.windows !== undefined && slot >= q.windows.base) return null;
  if (q.grouping === null) return slot;
  const key = q.grouping.keys[slot];
  return key?.kind === 'column' ? key.slot : null;
}

/** One origin (or null) per output column of `q`. */
export function fieldOrigins(q: BoundQuery): (ColumnOrigin | null)[] {
  switch (q.kind) {
    case 'select': {
      const s = q.select;
      return s.targets.map((t) => {
        const slot = t.expr.kind === 'column' ? rowSlot(s, t.expr.slot) : null;
        const field = slot === null ? undefined : s.columns[slot];
        return field === undefined ? null : tableColumn(s.table, field);
      });
    }
    case 'join-select':
      return q.targets.map((t) => {
        const at = t.expr.kind === 'column' ? rowSlot(q, t.expr.slot) : null;
        const slot = at === null ? undefined : q.columns[at];
        if (slot === undefined) return null;
        const leaf = q.leaves[slot.leaf]!;
        if (leaf.source.kind === 'table') return tableColumn(leaf.source.table, slot.field);
        if (leaf.source.kind !== 'subquery') return null;
        const i = leaf.fields.indexOf(slot.field);
        // PostgreSQL marks origins before the rewriter expands views: a view's column is the view's.
        if (leaf.source.view !== undefined) return i < 0 ? null : { table: relationOid(leaf.source.view), column: i + 1 };
        return i < 0 ? null : (fieldOrigins(leaf.source.query)[i] ?? null);
      });
    default:
      return [];
  }
}

/** `fields` (the query's, ./ir.ts queryFields) with the origins of `q`'s columns. */
export function withOrigins(q: BoundQuery, fields: readonly ResultField[]): ResultField[] {
  const origins = fieldOrigins(q);
  return fields.map((f, i) => {
    const o = origins[i];
    return o === null || o === undefined ? f : { ...f, origin: o };
  });
}

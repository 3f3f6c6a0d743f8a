/**
 * Runs a plan (../plan.ts) to a result. Rows leave operators as column batches until the
 * final projection; ORDER BY keys that are not output columns ride along as hidden columns
 * and are cut after the sort.
 */
import type { PgType, Value } from '../../types/index.js';
import { formatDecimal } from '../../types/index.js';
import type { Plan } from '../plan.js';
import type { BoundSelect } from '../bind.js';
import type { Expr } from '../expr.js';
import type { QueryResult } from '../result.js';
import type { RowBatch } from './batch.js';
import { filter } from './filter.js';
import { project } from './project.js';
import { HashAggregate } from './hash-aggregate.js';
import { sortRows, type SortKey } from './sort.js';
import { limitRows } from './limit.js';
import { materialize } from './scan.js';

export async function run(p: Plan): Promise<QueryResult> {
  const q = p.query;
  switch (p.kind) {
    case 'stats-aggregate': {
      const r = await q.table.aggregate(p.specs, p.where);
      const cols = r.values.map((v, j) => [engineValue(v, q.grouping!.aggs[j]!.type.id, r.types[j]!)]);
      return finish(q, [{ rows: 1, cols }], true);
    }
    case 'top-n': {
      const r = await q.table.topN({
        orderBy: p.orderBy,
        limit: q.limit!,
        offset: q.offset,
        columns: q.columns.map((f) => f.name),
        ...(p.where !== undefined ? { where: p.where } : {}),
      });
      const b = materialize(r.batch, q.columns);
      return finish(q, [b], false);
    }
    case 'pipeline': {
      const names = q.columns.length > 0 ? q.columns.map((f) => f.name) : [q.table.fields[0]!.name];
      const fields = q.columns.length > 0 ? q.columns : [q.table.fields[0]!];
      const scan = q.table.scan({ columns: names, ...(p.where !== undefined ? { where: p.where } : {}) });
      const agg = q.grouping === null ? null : new HashAggregate(q.grouping.keys, q.grouping.aggs);
      const batches: RowBatch[] = [];
      await scan.begin();
      try {
        for (let sb = await scan.next(); sb !== null; sb = await scan.next()) {
          let b = materialize(sb, fields);
          if (p.residual !== null) b = filter(b, p.residual);
          if (b.rows === 0) continue;
          if (agg !== null) agg.add(b);
          else batches.push(b);
        }
      } finally {
        await scan.end();
      }
      if (agg !== null) {
        let g = agg.finish();
        if (q.having !== null) g = filter(g, q.having);
        return finish(q, [g], true);
      }
      return finish(q, batches, true);
    }
    default: {
      const never: never = p;
      throw new Error(`run: unknown plan ${JSON.stringify(never)}`);
    }
  }
}

/** Projection, then (when `order`) sort and LIMIT/OFFSET. */
function finish(q: BoundSelect, batches: RowBatch[], order: boolean): QueryResult {
  const hidden: Expr[] = order ? q.orderBy.map((o) => o.expr) : [];
  const exprs = [...q.targets.map((t) => t.expr), ...hidden];
  let rows: Value[][] = [];
  for (const b of batches) {
    const out = project(b, exprs);
    for (let i = 0; i < out.rows; i++) rows.push(out.cols.map((c) => c[i]!));
  }
  if (order) {
    if (hidden.length > 0) {
      const keys: SortKey[] = q.orderBy.map((o, k) => ({ index: q.targets.length + k, type: o.expr.type, desc: o.desc, nullsFirst: o.nullsFirst }));
      sortRows(rows, keys);
    }
    rows = limitRows(rows, q.limit, q.offset);
    if (hidden.length > 0) rows = rows.map((r) => r.slice(0, q.targets.length));
  }
  return { command: 'SELECT', fields: q.targets.map((t) => ({ name: t.name, type: t.expr.type })), rows };
}

/** Table.aggregate gives min/max of numeric(p,s) as unscaled bigints; the engine wants text. */
function engineValue(v: Value, engineTypeId: string, stored: PgType): Value {
  if (v !== null && engineTypeId === 'numeric' && typeof v === 'bigint') return formatDecimal(v, stored.scale ?? 0);
  return v;
}

/**
 * DELETE FROM name [[AS] alias] [USING …] [WHERE condition] [RETURNING …] (docs/WIRE.md "Transactions"): the matching
 * rows' positions go to the write set's deletes (src/table/write-set.ts), committed as delete
 * vectors in one new snapshot — at the end of the statement, or at COMMIT in a transaction
 * block. Any WHERE the engine evaluates works (./positions.ts: pushable conjuncts skip groups
 * by statistics, the rest is evaluated over the batches), and so does postgres_fdw's
 * `WHERE ctid = $1`. Without WHERE every row is deleted. The tag is `DELETE n`; RETURNING
 * evaluates over the deleted rows. USING joins go through ./join-write.ts; WITH is 0A000.
 */
import type { Database } from '../../table/index.js';
import type { PgType, Value } from '../../types/index.js';
import type { AstFields, AstNode } from '../parse.js';
import { openTable, queryFields } from '../bind.js';
import { notSupported } from '../errors.js';
import type { QueryResult, ResultField } from '../result.js';
import { matchingRows, toEngine } from './positions.js';
import { bindJoined, joinedRows, rowKey } from './join-write.js';
import { scanDatabase, targetName, withWriteSet } from './target.js';
import { bindOverTarget, evalCtid, inferCtidParam, returningRows, splitCtid } from './where.js';

export async function deleteFrom(db: Database, s: AstFields): Promise<QueryResult> {
  if (s.withClause !== undefined) throw notSupported('WITH');
  const using = (s.usingClause ?? []) as AstNode[];
  const rel = s.relation as AstFields;
  const returning = (s.returningList ?? []) as AstNode[];
  const { ctid, rest } = splitCtid(s.whereClause as AstNode | undefined);
  const out: Value[][] = [];
  let fields: readonly ResultField[] = [];
  const count = await withWriteSet(db, rel, 'delete', async (ws) => {
    out.length = 0;
    if (ctid === null) await ws.flush(); // buffered rows are the table's rows too
    if (using.length > 0) {
      const joined = await joinedRows(db, rel, ws.fields, using, s.whereClause as AstNode | undefined, [], returning);
      fields = joined.returning;
      const all = await bindOverTarget(scanDatabase(db, ws), rel, [], [], undefined);
      let n = 0;
      await matchingRows(db, ws, all.select, null, (m) => {
        const engine = ws.fields.map((f, j) => toEngine(f, m.raw[j]!));
        for (let i = 0; i < m.positions.length; i++) {
          const hit = joined.rows.get(rowKey(ws.fields, engine.map((c) => c[i]!)));
          if (hit === undefined) continue;
          ws.deleteRow(m.key, m.positions[i]!);
          n++;
          if (returning.length > 0) out.push([...hit.returning]);
        }
      }, true);
      return n;
    }
    const w = await bindOverTarget(scanDatabase(db, ws), rel, [], returning, rest);
    fields = w.fields;
    const row = ctid === null ? null : evalCtid(ctid);
    if (ctid !== null && row === null) return 0;
    let n = 0;
    await matchingRows(db, ws, w.select, row, (m) => {
      for (const p of m.positions) ws.deleteRow(m.key, p);
      n += m.positions.length;
      if (returning.length > 0) returningRows(w, 0, m.batch, out);
    });
    return n;
  });
  return { command: 'DELETE', tag: `DELETE ${count}`, fields: returning.length > 0 ? fields : [], rows: out };
}

/** Describe (the infer phase): `ctid = $n` is text, the rest as the binder infers; RETURNING's fields or null. */
export async function describeDelete(db: Database, s: AstFields, types: (PgType | null)[]): Promise<ResultField[] | null> {
  const rel = s.relation as AstFields;
  const table = await openTable(db, targetName(rel), rel.location as number);
  const { ctid, rest } = splitCtid(s.whereClause as AstNode | undefined);
  if (ctid !== null) inferCtidParam(ctid, types);
  const returning = (s.returningList ?? []) as AstNode[];
  if (s.usingClause !== undefined) {
    const q = await bindJoined(db, rel, table.fields, s.usingClause as AstNode[], s.whereClause as AstNode | undefined, [], returning);
    return returning.length > 0 ? queryFields(q).slice(table.fields.length) : null;
  }
  const w = await bindOverTarget(db, rel, [], returning, rest);
  return returning.length > 0 ? [...w.fields] : null;
}

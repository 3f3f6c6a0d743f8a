/**
 * TRUNCATE [TABLE] [ONLY] name [, …] [RESTART IDENTITY | CONTINUE IDENTITY] [CASCADE | RESTRICT]
 * (postgres_fdw sends `TRUNCATE public.t CONTINUE IDENTITY RESTRICT`).
 *
 * Each table gets one new snapshot without rows: every group leaves it, and its files become
 * garbage for `paxd vacuum` (src/table/write-set.ts truncate). In a transaction block that
 * happens at COMMIT, and the transaction's later statements see the table empty (then its own
 * later inserts). paxd has no sequences and no foreign keys, so the IDENTITY and CASCADE
 * options change nothing. Every table is looked up before any is truncated (42P01 leaves all
 * as they were). The tag is `TRUNCATE TABLE`.
 */
import type { Database } from '../../table/index.js';
import { type AstFields, type AstNode, fieldsOf } from '../parse.js';
import { openTable } from '../bind.js';
import type { QueryResult } from '../result.js';
import { targetName, withWriteSet } from './target.js';
import { notATable } from './view.js';

export async function truncate(db: Database, s: AstFields): Promise<QueryResult> {
  const rels = ((s.relations ?? []) as AstNode[]).map(fieldsOf);
  for (const rel of rels) if ((await openTable(db, targetName(rel), rel.location as number)).snapshot.view !== undefined) throw notATable(targetName(rel));
  const done = new Set<string>();
  for (const rel of rels) {
    const name = targetName(rel);
    if (done.has(name)) continue; // TRUNCATE t, t truncates t once, as PostgreSQL
    done.add(name);
    await withWriteSet(db, rel, 'truncate', (ws) => ws.truncate());
  }
  return { command: 'TRUNCATE TABLE', tag: 'TRUNCATE TABLE', fields: [], rows: [] };
}

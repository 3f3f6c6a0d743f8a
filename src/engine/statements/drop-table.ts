/**
 * DROP TABLE: the storage layer has no drop yet (src/database.ts has no Database.drop, and no
 * snapshot is ever committed with operation 'drop'), so the statement fails with 0A000 after
 * checking its names, rather than pretending.
 */
import type { Database } from '../../database.js';
import { PaxdError, SQLSTATE } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, str } from '../parse.js';
import { notSupported, undefinedTable } from '../errors.js';
import type { QueryResult } from '../result.js';

export async function dropTable(db: Database, s: AstFields): Promise<QueryResult> {
  if (s.removeType !== 'OBJECT_TABLE') throw notSupported(`DROP ${String(s.removeType).replace(/^OBJECT_/, '')}`);
  let found = 0;
  for (const o of (s.objects ?? []) as AstNode[]) {
    const names = (fieldsOf(o).items as AstNode[]).map(str);
    const name = names[names.length - 1]!;
    try {
      await db.table(name);
      found++;
    } catch (e) {
      if (e instanceof PaxdError && e.code === SQLSTATE.undefined_table) {
        if (s.missing_ok === true) continue;
        throw undefinedTable(name);
      }
      throw e;
    }
  }
  // DROP TABLE IF EXISTS of tables that all do not exist is a no-op, as in PostgreSQL.
  if (found === 0) return { command: 'DROP TABLE', tag: 'DROP TABLE', fields: [], rows: [] };
  throw notSupported('DROP TABLE (the storage layer has no drop yet)');
}

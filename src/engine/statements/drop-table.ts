/**
 * DROP TABLE [IF EXISTS] name [, …] [CASCADE | RESTRICT] — PostgreSQL's
 * (https://www.postgresql.org/docs/15/sql-droptable.html). Each table is dropped by one
 * tombstone commit (src/storage/drop.ts): from then on its name is 42P01 until created again,
 * and readers that pinned an older snapshot keep reading it.
 *
 * Every name is checked before anything is dropped, so a missing name without IF EXISTS
 * (42P01, `table "x" does not exist`) drops nothing, as in PostgreSQL. Beyond that the
 * statement is atomic per table, not across its list: a concurrent DROP of one of the names
 * can still make a later one fail after earlier ones are gone. Views may read a table: they
 * make DROP TABLE fail with 2BP01 unless CASCADE, which drops them first (./view.ts checkDrop);
 * a view named here is 42809.
 * IF EXISTS on a missing table skips it without a NOTICE (PostgreSQL sends one).
 */
import type { Database } from '../../table/index.js';
import { PaxdError, SQLSTATE } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, str } from '../parse.js';
import { notSupported, SqlError } from '../errors.js';
import { tableExists } from './create-table.js';
import type { QueryResult } from '../result.js';
import { checkDrop, dropOne } from './view.js';

export async function dropTable(db: Database, s: AstFields): Promise<QueryResult> {
  if (s.removeType !== 'OBJECT_TABLE') throw notSupported(`DROP ${String(s.removeType).replace(/^OBJECT_/, '')}`);
  if (s.concurrent === true) throw notSupported('DROP TABLE CONCURRENTLY');
  const names: string[] = [];
  for (const o of (s.objects ?? []) as AstNode[]) {
    const parts = (fieldsOf(o).items as AstNode[]).map(str);
    const name = parts[parts.length - 1]!;
    if (!names.includes(name)) names.push(name);
  }
  const present: string[] = [];
  for (const name of names) {
    if (await tableExists(db, name)) present.push(name);
    else if (s.missing_ok !== true) throw tableDoesNotExist(name);
  }
  for (const name of await checkDrop(db, present, 'table', s.behavior === 'DROP_CASCADE')) await dropOne(db, name);
  for (const name of present) {
    try {
      await db.dropTable(name);
    } catch (e) {
      // Dropped by someone else since the check: IF EXISTS still means "make it be gone".
      if (!(e instanceof PaxdError && e.code === SQLSTATE.undefined_table)) throw e;
      if (s.missing_ok !== true) throw tableDoesNotExist(name);
    }
  }
  return { command: 'DROP TABLE', tag: 'DROP TABLE', fields: [], rows: [] };
}

/** PostgreSQL's DROP TABLE wording (dropcmds.c), not the `relation "x"` of other statements. */
function tableDoesNotExist(name: string): SqlError {
  return new SqlError('not_found', SQLSTATE.undefined_table, `table "${name}" does not exist`);
}

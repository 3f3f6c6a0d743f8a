/**
 * The table a write statement changes (docs/WIRE.md "Transactions"), and where its changes go: the transaction
 * block's write set of the table (src/pgwire/session/transaction.ts; committed at COMMIT), or, for a
 * statement on its own, a write set of its own that the statement commits as one snapshot.
 * An autocommit statement that loses to a concurrent commit deleting one of its rows (40001
 * at commit) is run again from scratch on the latest snapshot, as PostgreSQL's READ COMMITTED
 * re-reads a row updated concurrently; nothing was returned to the client yet.
 *
 * The statement binds its expressions over `bindDb`, where the target table is the write
 * set's scan snapshot (pinned files plus staged ones, unchanged metadata: a superset of the
 * live rows, filtered by the write set's own deletes, see ./positions.ts). So a statement of a
 * transaction never has to materialize the staged snapshot only to learn the columns.
 */
import { WriteSet, serializationFailure, Table, type Database } from '../../table/index.js';
import { PaxdError, SQLSTATE } from '../../types/index.js';
import type { AstFields } from '../parse.js';
import { openTable } from '../bind.js';
import { notSupported, undefinedTable } from '../errors.js';

/** Autocommit statements retry this often after losing a race with a conflicting commit. */
const AUTOCOMMIT_ATTEMPTS = 10;

/** The table named by a statement's RangeVar (`t` or `public.t`). */
export function targetName(rel: AstFields): string {
  if (rel.catalogname !== undefined || (rel.schemaname !== undefined && rel.schemaname !== 'public')) throw notSupported('qualified names with schema or database', rel.location);
  return rel.relname as string;
}

/** The transaction's write set of `name`, or null outside a transaction block. */
export async function transactionWrites(db: Database, name: string, location?: number): Promise<WriteSet | null> {
  try {
    return await db.writeSet(name);
  } catch (e) {
    if (e instanceof PaxdError && e.code === SQLSTATE.undefined_table) throw undefinedTable(name, location);
    throw e;
  }
}

/** `db` with `ws`'s table pinned to its scan snapshot (no flush: call ws.flush() first to see buffered rows). */
export function scanDatabase(db: Database, ws: WriteSet): Database {
  const view = Object.create(db) as Database;
  const table = new Table(ws.store, ws.table, ws.scanSnapshot());
  Object.defineProperty(view, 'table', { value: (name: string) => (name === ws.table ? Promise.resolve(table) : db.table(name)) });
  return view;
}

/** Runs `work` on the write set of the statement's table; commits it when the statement is on its own. */
export async function withWriteSet<T>(db: Database, rel: AstFields, command: string, work: (ws: WriteSet) => Promise<T>): Promise<T> {
  const name = targetName(rel);
  const tx = await transactionWrites(db, name, rel.location as number);
  if (tx !== null) return work(tx);
  for (let attempt = 1; ; attempt++) {
    const table = await openTable(db, name, rel.location as number);
    const ws = new WriteSet(db.store, name, table.snapshot);
    ws.command = command;
    try {
      const r = await work(ws);
      db.checkInterrupts(); // a cancelled statement commits nothing
      await ws.commit();
      return r;
    } catch (e) {
      await ws.abort();
      if (e instanceof PaxdError && e.message === serializationFailure().message && attempt < AUTOCOMMIT_ATTEMPTS) continue;
      throw e;
    }
  }
}

/**
 * A transaction block's state: its savepoints and its pinned snapshots. paxd gives every
 * isolation level snapshot isolation: the first time a transaction reads a table, that
 * table's latest committed snapshot is pinned, and every later statement of the transaction
 * reads the same one (DESIGN.md: "Readers pin a snapshot for the whole statement or
 * transaction"). Writes are refused inside a block (./errors.ts writeInTransactionBlock), so
 * ROLLBACK and ROLLBACK TO have nothing to undo but cursors and the failed state.
 *
 *   const tx = new Transaction(db);
 *   await query(tx.db, 'SELECT count(*) FROM t');   // pins t
 *   await query(tx.db, 'SELECT max(x) FROM t');     // same snapshot of t, whatever was committed since
 */
import type { Database, Table } from '../database.js';
import { unknownSavepoint } from './errors.js';

export class Transaction {
  /** The database as statements of this transaction see it: `table(name)` returns the pinned table. */
  readonly db: Database;
  private readonly pinned = new Map<string, Promise<Table>>();
  private readonly savepoints: string[] = [];

  constructor(base: Database) {
    const pinned = this.pinned;
    const view = Object.create(base) as Database;
    Object.defineProperty(view, 'table', {
      value: (name: string): Promise<Table> => {
        let t = pinned.get(name);
        if (t === undefined) {
          t = base.table(name);
          pinned.set(name, t);
          // A table that does not exist (yet) is looked up again next time.
          t.catch(() => pinned.delete(name));
        }
        return t;
      },
    });
    this.db = view;
  }

  /** Savepoints open now. */
  get depth(): number {
    return this.savepoints.length;
  }

  /** SAVEPOINT name (a name may be reused; the newest one wins, as in PostgreSQL). */
  savepoint(name: string): void {
    this.savepoints.push(name);
  }

  /** RELEASE [SAVEPOINT] name: that savepoint and every later one. */
  release(name: string): void {
    const i = this.savepoints.lastIndexOf(name);
    if (i < 0) throw unknownSavepoint(name);
    this.savepoints.length = i;
  }

  /** ROLLBACK TO [SAVEPOINT] name: later savepoints go, this one stays; returns the depth left. */
  rollbackTo(name: string): number {
    const i = this.savepoints.lastIndexOf(name);
    if (i < 0) throw unknownSavepoint(name);
    this.savepoints.length = i + 1;
    return i + 1;
  }
}

/**
 * The database as a session's statements see it: `table(name)` asks `current()` (the
 * transaction's pinned view, or the store) at the moment the engine opens the table, so a
 * statement prepared once reads what each execution should; and every table scan checks
 * `signal()` before each batch, so a cancelled statement (CancelRequest, statement_timeout,
 * shutdown) stops reading at the next batch boundary with the signal's reason (57014),
 * whichever engine operator drives the scan. No hook in the engine is needed: its scans all
 * begin at `db.table(name).scan()`.
 */
export function sessionDatabase(base: Database, current: () => Database, signal: () => AbortSignal | null): Database {
  const view = Object.create(base) as Database;
  Object.defineProperty(view, 'table', {
    value: async (name: string): Promise<Table> => {
      signal()?.throwIfAborted();
      const table = await current().table(name);
      const t = Object.create(table) as Table;
      Object.defineProperty(t, 'scan', {
        value: (...args: Parameters<Table['scan']>) => {
          const scan = table.scan(...args);
          const next = scan.next.bind(scan);
          Object.defineProperty(scan, 'next', {
            configurable: true,
            value: () => {
              signal()?.throwIfAborted();
              return next();
            },
          });
          return scan;
        },
      });
      return t;
    },
  });
  return view;
}

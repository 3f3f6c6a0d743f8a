/**
 * A transaction block's state: its savepoints, its pinned snapshots and its writes. paxd
 * gives every isolation level snapshot isolation: the first time a transaction reads a table,
 * that table's latest committed snapshot is pinned, and every later statement of the
 * transaction reads the same one (DESIGN.md: "Readers pin a snapshot for the whole statement
 * or transaction").
 *
 * Writes (docs/WIRE.md "Transactions") go to one write set per table (src/table/write-set.ts), based on the
 * pinned snapshot: INSERT rows are buffered in memory, DELETE (and the delete half of UPDATE)
 * records row positions. Statements of the transaction read its staged snapshot (its own
 * inserts and deletes applied); nobody else sees anything until COMMIT, which commits one
 * new snapshot per written table, all of them named by one new root of the store
 * (docs/FORMAT.md "The store root log"): all or nothing (40001 when a concurrent commit
 * deleted or rewrote a row this one deleted: REPEATABLE READ's rule, and then no table
 * changed). ROLLBACK drops the write sets; a savepoint keeps each write set's mark, and
 * ROLLBACK TO returns to it. Every table the transaction reads is pinned as the same root
 * names it (`Database.pinned()`), so it never sees one table's part of another commit
 * without the rest.
 *
 *   const tx = new Transaction(db);
 *   await query(tx.db, 'SELECT count(*) FROM t');   // pins t
 *   await query(tx.db, "INSERT INTO t VALUES (1)");  // buffered
 *   await query(tx.db, 'SELECT count(*) FROM t');   // the same snapshot plus the row inserted
 *   await tx.commit();                              // one new snapshot of t
 */
import { WriteSet, type WriteMark, Table, type Database, commitWriteSets } from '../../table/index.js';
import type { TableSink } from '../../table/index.js';
import { type Batch, type Value, getValue } from '../../types/index.js';
import { unknownSavepoint } from '../codec/errors.js';

/** A write set's state before its first write. */
const EMPTY_MARK: WriteMark = Object.freeze({ seq: 0, staged: 0, buffered: 0, log: 0 });

export class Transaction {
  /** The database as statements of this transaction see it: `table(name)` returns the pinned table. */
  readonly db: Database;
  private readonly pinned = new Map<string, Promise<Table>>();
  private readonly writes = new Map<string, Promise<WriteSet>>();
  private readonly savepoints: { name: string; at: number; marks: Map<string, WriteMark> }[] = [];
  /** Counts SAVEPOINTs and DECLAREs, so ROLLBACK TO knows which cursors came after its savepoint. */
  private clock = 0;

  private readonly store: Database['store'];

  constructor(base: Database) {
    this.store = base.store;
    const pinned = this.pinned;
    const writes = this.writes;
    // Every table at the same instant: the store's root when the transaction first reads.
    const at = base.pinned();
    const pin = (name: string): Promise<Table> => {
      let t = pinned.get(name);
      if (t === undefined) {
        t = at.table(name);
        pinned.set(name, t);
        // A table that does not exist (yet) is looked up again next time.
        t.catch(() => pinned.delete(name));
      }
      return t;
    };
    const view = Object.create(base) as Database;
    Object.defineProperty(view, 'table', {
      value: async (name: string): Promise<Table> => {
        const w = writes.get(name);
        if (w !== undefined) {
          const ws = await w;
          if (ws.dirty) return new Table(base.store, name, await ws.view());
        }
        return pin(name);
      },
    });
    Object.defineProperty(view, 'writeSet', {
      value: (name: string): Promise<WriteSet> => {
        let w = writes.get(name);
        if (w === undefined) {
          w = pin(name).then((t) => new WriteSet(base.store, name, t.snapshot));
          writes.set(name, w);
          w.catch(() => writes.delete(name));
        }
        return w;
      },
    });
    this.db = view;
  }

  /** Savepoints open now. */
  get depth(): number {
    return this.savepoints.length;
  }

  /** A moment of the transaction, later than every SAVEPOINT so far (a cursor's DECLARE). */
  tick(): number {
    return ++this.clock;
  }

  /** SAVEPOINT name (a name may be reused; the newest one wins, as in PostgreSQL). */
  async savepoint(name: string): Promise<void> {
    const marks = new Map<string, WriteMark>();
    for (const [table, w] of this.writes) marks.set(table, (await w).mark());
    this.savepoints.push({ name, at: this.tick(), marks });
  }

  /** RELEASE [SAVEPOINT] name: that savepoint and every later one. */
  release(name: string): void {
    const i = this.find(name);
    this.savepoints.length = i;
  }

  /**
   * ROLLBACK TO [SAVEPOINT] name: writes since it are undone, later savepoints go, this one
   * stays. Returns the savepoint's moment (`tick()`): whatever was declared after it, in it or
   * in a savepoint since released into it, is rolled back with it.
   */
  async rollbackTo(name: string): Promise<number> {
    const i = this.find(name);
    const sp = this.savepoints[i]!;
    this.savepoints.length = i + 1;
    for (const [table, w] of this.writes) await (await w).rollbackTo(sp.marks.get(table) ?? EMPTY_MARK);
    return sp.at;
  }

  private find(name: string): number {
    for (let i = this.savepoints.length - 1; i >= 0; i--) if (this.savepoints[i]!.name === name) return i;
    throw unknownSavepoint(name);
  }

  /** COMMIT: every written table's writes in one root of the store, all or nothing (src/table/write-set.ts commitWriteSets). */
  async commit(): Promise<void> {
    const sets = await this.sets();
    this.writes.clear();
    try {
      await commitWriteSets(this.store, sets);
    } catch (e) {
      for (const ws of sets) await ws.abort().catch(() => undefined);
      throw e;
    }
  }

  /** ROLLBACK (and a connection lost in a transaction block): staged files are removed. */
  async abort(): Promise<void> {
    const sets = await this.sets();
    this.writes.clear();
    for (const ws of sets) await ws.abort().catch(() => undefined);
  }

  private async sets(): Promise<WriteSet[]> {
    const out: WriteSet[] = [];
    for (const w of this.writes.values()) {
      const ws = await w.catch(() => null);
      if (ws !== null) out.push(ws);
    }
    return out;
  }
}

/**
 * The table a COPY FROM inside a transaction block loads (./copy.ts CopyLoad): its `sink()`
 * writes into the transaction's write set; the sink's commit keeps the rows in the
 * transaction, its abort (a bad row, CopyFail) undoes what the COPY wrote.
 */
export function writeSetTable(ws: WriteSet): Table {
  const table = new Table(ws.store, ws.table, ws.scanSnapshot());
  Object.defineProperty(table, 'sink', {
    value: () => {
      const mark = ws.mark();
      let rows = 0;
      const sink = {
        async write(batch: Batch): Promise<void> {
          const n = batch.selection === null ? batch.length : batch.selection.length;
          const cols = batch.columns.map((c): Value[] => {
            const out = new Array<Value>(n);
            for (let i = 0; i < n; i++) out[i] = getValue(c, batch.selection === null ? i : batch.selection[i]!);
            return out;
          });
          await ws.insert(cols);
          rows += n;
        },
        async commit() {
          return { snapshot: ws.base, rows, files: 0, groups: 0, bytes: 0 };
        },
        abort: () => ws.rollbackTo(mark),
      };
      return sink as unknown as TableSink;
    },
  });
  return table;
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
  Object.defineProperty(view, 'writeSet', { value: (name: string) => current().writeSet(name) });
  Object.defineProperty(view, 'checkInterrupts', { value: () => signal()?.throwIfAborted() });
  return view;
}

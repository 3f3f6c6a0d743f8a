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
import { WriteSet, type WriteMark, Table, type Database, commitWriteSets, columnAdder, type ColumnSpec, type CreateTableOptions, type TableDdl } from '../../table/index.js';
import { incarnationOf, type SnapshotJson } from '../../storage/index.js';
import type { TableSink } from '../../table/index.js';
import { type Batch, type Value, getValue, featureNotSupported as notSupported, PaxdError, SQLSTATE, tableExists, tableNotFound } from '../../types/index.js';
import { unknownSavepoint } from '../codec/errors.js';

/** A write set's state before its first write. */
const EMPTY_MARK: WriteMark = Object.freeze({ seq: 0, staged: 0, buffered: 0, log: 0 });

export class Transaction {
  /** The database as statements of this transaction see it: `table(name)` returns the pinned table. */
  readonly db: Database;
  private readonly pinned = new Map<string, Promise<Table>>();
  private readonly writes = new Map<string, Promise<WriteSet>>();
  private readonly savepoints: { name: string; at: number; marks: Map<string, WriteMark>; ddl: Map<string, TableDdl> }[] = [];
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
    const ddl = (): Map<string, TableDdl> => this.ddl;
    // A table as this transaction sees it; its ALTER TABLE … ADD COLUMN is the transaction's.
    const txTable = (table: Table): Table => {
      const t = Object.create(table) as Table;
      Object.defineProperty(t, 'addColumn', { value: (spec: ColumnSpec) => this.addColumn(table.name, table.snapshot, spec) });
      return t;
    };
    const view = Object.create(base) as Database;
    Object.defineProperty(view, 'table', {
      value: async (name: string): Promise<Table> => {
        const d = ddl().get(name);
        if (d?.kind === 'drop') throw tableNotFound(name);
        const w = writes.get(name);
        if (w !== undefined) {
          const ws = await w;
          if (ws.dirty) return txTable(new Table(base.store, name, await ws.view()));
        }
        if (d !== undefined) return txTable(new Table(base.store, name, d.snapshot));
        return txTable(await pin(name));
      },
    });
    Object.defineProperty(view, 'writeSet', {
      value: (name: string): Promise<WriteSet> => {
        const d = ddl().get(name);
        if (d?.kind === 'drop') return Promise.reject(tableNotFound(name));
        let w = writes.get(name);
        if (w === undefined) {
          w = d !== undefined ? Promise.resolve(new WriteSet(base.store, name, d.snapshot)) : pin(name).then((t) => new WriteSet(base.store, name, t.snapshot));
          writes.set(name, w);
          w.catch(() => writes.delete(name));
        }
        return w;
      },
    });
    // CREATE TABLE: the table's first snapshot, committed at COMMIT with the rest (42P07 then if
    // another session created it first); until then only this transaction sees it.
    Object.defineProperty(view, 'createTable', {
      value: async (name: string, columns: readonly ColumnSpec[], options: CreateTableOptions = {}): Promise<Table> => {
        const d = ddl().get(name);
        if (d?.kind === 'drop') throw notSupported(`CREATE TABLE "${name}" after DROP TABLE of the same name in one transaction block`);
        if (d !== undefined || (await exists(name))) throw tableExists(name);
        const snapshot = base.prepareTable(name, columns, options).snapshot;
        ddl().set(name, { kind: 'create', snapshot });
        writes.delete(name);
        return new Table(base.store, name, snapshot);
      },
    });
    // DROP TABLE: a tombstone at COMMIT; until then the name is 42P01 to this transaction only.
    Object.defineProperty(view, 'dropTable', {
      value: async (name: string): Promise<SnapshotJson> => {
        const d = ddl().get(name);
        if (d?.kind === 'drop') throw tableNotFound(name);
        if (d?.kind === 'create') {
          ddl().delete(name);
          return d.snapshot;
        }
        const t = await pin(name);
        ddl().set(name, { kind: 'drop', incarnation: incarnationOf(t.snapshot) });
        return t.snapshot;
      },
    });
    const exists = async (name: string): Promise<boolean> => {
      try {
        await pin(name);
        return true;
      } catch (e) {
        if (e instanceof PaxdError && e.code === SQLSTATE.undefined_table) return false;
        throw e;
      }
    };
    this.db = view;
  }

  /** Tables this transaction created, dropped or altered (committed with its writes). */
  private ddl = new Map<string, TableDdl>();

  /** ALTER TABLE … ADD COLUMN inside the transaction: a change of the table's snapshot, applied again to the base COMMIT finds. */
  private async addColumn(name: string, current: SnapshotJson, spec: ColumnSpec): Promise<SnapshotJson> {
    const w = this.writes.get(name);
    if (w !== undefined && (await w).dirty) throw notSupported(`ALTER TABLE "${name}" after writing to it in the same transaction block`);
    const add = columnAdder(name, spec);
    const snapshot = add(current);
    const d = this.ddl.get(name);
    if (d?.kind === 'create') this.ddl.set(name, { kind: 'create', snapshot });
    else if (d?.kind === 'alter') this.ddl.set(name, { kind: 'alter', incarnation: d.incarnation, snapshot, alter: (base) => add(d.alter(base)) });
    else this.ddl.set(name, { kind: 'alter', incarnation: incarnationOf(current), snapshot, alter: add });
    this.writes.delete(name);
    return snapshot;
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
    this.savepoints.push({ name, at: this.tick(), marks, ddl: new Map(this.ddl) });
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
    this.ddl = new Map(sp.ddl);
    return sp.at;
  }

  /** The position of the newest savepoint `name` among those open (0: the first); 3B001 when there is none. */
  savepointIndex(name: string): number {
    return this.find(name);
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
      await commitWriteSets(this.store, sets, {}, this.ddl);
    } catch (e) {
      for (const ws of sets) await ws.abort().catch(() => undefined);
      throw e;
    }
  }

  /** ROLLBACK (and a connection lost in a transaction block): staged files are removed. */
  async abort(): Promise<void> {
    const sets = await this.sets();
    this.writes.clear();
    this.ddl.clear();
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
  // DDL goes where writes go: in a transaction block, to the transaction.
  Object.defineProperty(view, 'createTable', { value: (...args: Parameters<Database['createTable']>) => current().createTable(...args) });
  Object.defineProperty(view, 'dropTable', { value: (name: string) => current().dropTable(name) });
  Object.defineProperty(view, 'checkInterrupts', { value: () => signal()?.throwIfAborted() });
  return view;
}

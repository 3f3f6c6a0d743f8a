/**
 * The library's front door: a Database is a store (a local folder or, later, s3://…) holding
 * tables; a Table is pinned to one snapshot until `refresh()`.
 *
 *   const db = await Database.open('./paxd-data');
 *   const t = await db.createTable('events', [{ name: 'id', type: 'int8', notNull: true }]);
 *   const sink = t.sink(); await sink.write(batch); await sink.commit();
 *   for (const r = t.scan({ columns: ['id'] }); ;) { … }
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { type Field, PaxdError, SQLSTATE, usage, parseTypeName, typeName, type ColumnSpec, parseText } from '../types/index.js';
import { type ObjectStore, DEFAULT_DATA, openStore, sweepTempArea, tempAreaOf, commit as commitSnapshot, createTable as createTableSnapshot, currentRoot, incarnationOf, latestSnapshot, listTables, newestSnapshotInfo, type RootJson, snapshotInRoot, dropTable as dropTableSnapshot, type SnapshotJson, type TableOptionsJson, type ViewJson, fieldsOf, fieldToJson, fileCounts, vacuum as vacuumTable, type VacuumOptions } from '../storage/index.js';
import { TableSink, type SinkOptions } from '../insert/index.js';
import { TableScan, type ScanOptions, type Predicate, topN as topNRows, type TopNOptions, type TopNResult, aggregate as aggregateRows, type AggSpec, type AggregateOptions, type AggregateResult } from '../scan/index.js';
import { checkTable, type CheckResult } from './check.js';
import { deleteRows, type DeleteResult } from './delete.js';
import { compactTable, type CompactOptions, type CompactResult } from './compact.js';
import type { WriteSet } from './write-set.js';
import { viewNotWritable } from './view-errors.js';

export { DEFAULT_DATA };
export type { ColumnSpec };

export const DEFAULT_OPTIONS: TableOptionsJson = {
  codec: 'lz4',
  rowGroupRows: 131072,
  rowGroupBytes: 64 * 1024 * 1024,
  zoneRows: 16384,
};

export interface CreateTableOptions extends Partial<TableOptionsJson> {
  layout?: 'pax' | 'ao_column';
  /** Makes the relation a view (CREATE VIEW, ./views.ts): the columns are its result columns; it holds no rows. */
  view?: ViewJson;
}

export interface TableInfo {
  name: string;
  rows: number;
  bytes: number;
  layout: string;
  /** 'view' for a view (CREATE VIEW, ./views.ts), whose rows, bytes, files and groups are 0. */
  kind: 'table' | 'view';
  snapshot: number;
  files: number;
  groups: number;
}

/** The root a `Database.pinned()` view is reading at, for the `table()` calls it makes. */
const PINNED_ROOT = new AsyncLocalStorage<{ uri: string; root: Promise<RootJson | null> }>();

const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

const STORE_URIS = new WeakMap<ObjectStore, string>();

/** The URI a store was opened from by Database.open (worker threads open the same store by it), if any. */
export function storeUri(store: ObjectStore): string | null {
  return STORE_URIS.get(store) ?? null;
}

export class Database {
  /**
   * The local folder where statements spill (src/storage/temp-area.ts): `<root>/_tmp` for a
   * local store, `temp_directory` (Database.open's `tempDirectory`) or the OS's for others.
   */
  readonly tempDirectory: string;

  private constructor(
    readonly store: ObjectStore,
    tempDirectory?: string,
  ) {
    this.tempDirectory = tempAreaOf(store.uri, tempDirectory);
  }

  /** Opens the store at `uri` (a local folder; `./paxd-data` by default) or wraps an ObjectStore. */
  /**
   * Opens the store at `uri`, or uses the given store. `options.uri` says by what URI worker
   * threads may open a given store's data themselves (parallel scans): only for a store that
   * watches another without changing what it returns (the daemon's metrics wrapper; reads of
   * the workers are then not counted by it). A store without one runs every scan on this thread.
   */
  static async open(uri: string | ObjectStore = process.env.PAXD_DATA ?? DEFAULT_DATA, options: { uri?: string; tempDirectory?: string } = {}): Promise<Database> {
    let store: ObjectStore;
    if (typeof uri !== 'string') {
      if (options.uri !== undefined) STORE_URIS.set(uri, options.uri);
      store = uri;
    } else {
      store = await openStore(uri);
      STORE_URIS.set(store, uri);
    }
    const db = new Database(store, options.tempDirectory);
    // Spill folders of processes killed mid-statement (a kill -9, a crash) go at the next open.
    await sweepTempArea(db.tempDirectory);
    return db;
  }

  /** The tables and views that exist (dropped ones are not listed), sorted by name; `kind` says which. */
  async tables(): Promise<TableInfo[]> {
    const out: TableInfo[] = [];
    const at = this.pinned();
    for (const name of await listTables(this.store)) {
      let s: SnapshotJson;
      try {
        s = (await at.table(name)).snapshot;
      } catch (e) {
        // Dropped (or vacuumed away) between the listing and the read.
        if (e instanceof PaxdError && e.code === SQLSTATE.undefined_table) continue;
        throw e;
      }
      out.push(tableInfo(s));
    }
    return out;
  }

  /**
   * Names of dropped tables whose folders still hold a tombstone (src/storage/drop.ts):
   * `paxd vacuum NAME` removes their data once no reader can need it.
   */
  async droppedTables(): Promise<string[]> {
    const live = new Set(await listTables(this.store));
    return (await listTables(this.store, { dropped: true })).filter((n) => !live.has(n));
  }

  /**
   * DROP TABLE: commits a tombstone snapshot (src/storage/drop.ts). From then on the name is
   * 42P01 to every reader and writer until created again; readers that pinned an older
   * snapshot keep reading it, and `paxd vacuum` removes the data after its grace period.
   * 42P01 when the table does not exist.
   */
  async dropTable(name: string): Promise<SnapshotJson> {
    return dropTableSnapshot(this.store, name);
  }

  async createTable(name: string, columns: readonly ColumnSpec[], options: CreateTableOptions = {}): Promise<Table> {
    const created = await createTableSnapshot(this.store, this.prepareTable(name, columns, options).snapshot);
    return new Table(this.store, name, created);
  }

  /**
   * A table that does not exist yet: its first sink's commit creates it together with the
   * rows written (one snapshot), so a failed load leaves no table behind (`ingest --create`).
   * Fails at that commit with 42P07 if the table was created meanwhile.
   */
  prepareTable(name: string, columns: readonly ColumnSpec[], options: CreateTableOptions = {}): Table {
    if (!TABLE_NAME.test(name)) throw new PaxdError('usage', SQLSTATE.invalid_name, `invalid table name "${name}": use letters, digits and _ (up to 63), not starting with a digit`);
    if (columns.length === 0) throw usage(`table "${name}" needs at least one column`);
    const layout = options.layout ?? 'pax';
    if (layout !== 'pax' && layout !== 'ao_column') throw usage(`unknown layout "${String(layout)}": use pax or ao_column`);
    const opts = validateOptions({ ...DEFAULT_OPTIONS, ...stripUndefined(options) });
    const seen = new Set<string>();
    const fields: Field[] = columns.map((c, i) => {
      if (seen.has(c.name)) throw new PaxdError('exists', SQLSTATE.duplicate_column, `column "${c.name}" specified more than once`);
      seen.add(c.name);
      // A type given as a value (a view's or CREATE TABLE AS's column) must be one a snapshot can name: 0A000 otherwise.
      const type = parseTypeName(typeof c.type === 'string' ? c.type : typeName(c.type));
      if (c.default !== undefined) parseText(type, c.default); // reject a bad default now
      return { name: c.name, type, notNull: c.notNull ?? false, fieldId: i + 1, ...(c.default !== undefined ? { default: c.default } : {}) };
    });
    const snapshot: SnapshotJson = {
      format: 1,
      table: name,
      id: 1,
      parent: 0,
      createdAt: new Date().toISOString(),
      operation: 'create',
      layout,
      options: { codec: opts.codec, rowGroupRows: opts.rowGroupRows, rowGroupBytes: opts.rowGroupBytes, zoneRows: opts.zoneRows },
      fields: fields.map(fieldToJson),
      nextFieldId: fields.length + 1,
      files: [],
      ...(layout === 'ao_column' ? { ao: { segments: [] } } : {}),
      ...(options.view !== undefined ? { view: options.view } : {}),
    };
    return new Table(this.store, name, snapshot, true);
  }

  /**
   * CREATE OR REPLACE VIEW of an existing view: one commit whose snapshot holds the new
   * columns and definition (./views.ts checks that the old columns stay as they were).
   * 42P01 when the view was dropped meanwhile.
   */
  async replaceView(name: string, columns: readonly ColumnSpec[], view: ViewJson, incarnation: number): Promise<SnapshotJson> {
    const next = this.prepareTable(name, columns, { view }).snapshot;
    return commitSnapshot(this.store, name, (base) => ({ ...base, operation: 'replace_view', fields: next.fields, nextFieldId: next.nextFieldId, view, summary: { command: 'replace_view' } }), { incarnation });
  }

  /** Opens a table at its latest committed snapshot (or at the root a `pinned()` view holds). */
  async table(name: string): Promise<Table> {
    const pin = PINNED_ROOT.getStore();
    const root = pin !== undefined && pin.uri === this.store.uri ? await pin.root : await currentRoot(this.store);
    return new Table(this.store, name, (await snapshotInRoot(this.store, root, name)).snapshot);
  }

  /**
   * This database seen at one instant: the first `table()` pins the store's newest root
   * (src/storage/root.ts), and every table opened through the view is read as that root
   * names it, so a statement or transaction never sees one table's part of a commit without
   * another's. (A store without a root log is read table by table, as format v1 was.) The
   * view calls this database's own `table()` — a wrapper's too — with the root held in an
   * AsyncLocalStorage, so views over views keep pinning.
   */
  pinned(): Database {
    const uri = this.store.uri;
    const store = this.store;
    const open = (name: string): Promise<Table> => this.table(name);
    let root: Promise<RootJson | null> | null = null;
    const view = Object.create(this) as Database;
    Object.defineProperty(view, 'table', {
      value: (name: string): Promise<Table> => {
        root ??= currentRoot(store);
        const pin = { uri, root };
        return PINNED_ROOT.run(pin, () => open(name));
      },
    });
    return view;
  }

  /**
   * The writes to `name` of the transaction block this view of the database belongs to
   * (src/pgwire/session/transaction.ts overrides this); null outside a transaction block, where a
   * statement commits its own writes (src/engine/statements/target.ts).
   */
  async writeSet(name: string): Promise<WriteSet | null> {
    void name;
    return null;
  }

  /**
   * Throws when the running statement was cancelled (the wire server's sessions override
   * this: CancelRequest, statement_timeout, shutdown); statements that loop over batches
   * outside a Table's scan, and before they commit, call it.
   */
  checkInterrupts(): void {}

  /** `paxd vacuum NAME`; a dropped table is vacuumed too (its data goes, its tombstone stays). */
  async vacuum(name: string, options: VacuumOptions): Promise<Awaited<ReturnType<typeof vacuumTable>>> {
    await newestSnapshotInfo(this.store, name); // fails cleanly for a missing table
    return vacuumTable(this.store, name, options);
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}

export class Table {
  constructor(
    readonly store: ObjectStore,
    readonly name: string,
    private pinned: SnapshotJson,
    /** True for a prepared table (Database.prepareTable) whose first commit creates it. */
    private uncreated = false,
  ) {}

  get snapshot(): SnapshotJson {
    return this.pinned;
  }

  get fields(): readonly Field[] {
    return fieldsOf(this.pinned);
  }

  /** Rows visible in the pinned snapshot (deleted rows excluded). */
  get rows(): number {
    let n = 0;
    for (const f of this.pinned.files) for (const g of f.groups) n += g.live;
    return n;
  }

  /** Re-pins the latest committed snapshot. */
  async refresh(): Promise<void> {
    this.pinned = await latestSnapshot(this.store, this.name);
  }

  scan(options: ScanOptions = {}): TableScan {
    return new TableScan(this.store, this.name, this.pinned, options);
  }

  /** A sink appending to this table; columns of written batches are in field order. */
  sink(options: SinkOptions = {}): TableSink {
    if (this.pinned.view !== undefined) throw viewNotWritable(this.name);
    // The incarnation: a sink whose table is dropped and created again before it commits fails with 42P01.
    const o: SinkOptions = { layout: this.pinned.layout, ...(this.uncreated ? {} : { incarnation: incarnationOf(this.pinned) }), ...options };
    return new TableSink(this.store, this.name, this.fields, this.pinned.options, this.uncreated ? { ...o, create: this.pinned } : o);
  }

  /**
   * ALTER TABLE … ADD COLUMN: metadata only, in one new snapshot (both layouts). The column
   * gets a new field id; rows written before read it as its default (NULL when it has none),
   * with exact synthetic statistics (src/scan/unit-stats.ts). Re-pins the table.
   *
   *   await t.addColumn({ name: 'region', type: 'text', default: 'eu' });
   */
  async addColumn(spec: ColumnSpec): Promise<SnapshotJson> {
    if (this.uncreated) throw usage(`table "${this.name}" is not created yet`);
    const add = columnAdder(this.name, spec);
    const snapshot = await commitSnapshot(this.store, this.name, add, { incarnation: incarnationOf(this.pinned) });
    this.pinned = snapshot;
    return snapshot;
  }

  /**
   * ORDER BY … LIMIT n [OFFSET m] over the pinned snapshot, skipping groups that cannot make
   * the answer (src/scan/topn.ts). Ties are broken by storage position.
   *
   *   const r = await t.topN({ orderBy: [{ column: 'ts', desc: true }], limit: 10 });
   */
  topN(options: TopNOptions): Promise<TopNResult> {
    return topNRows(this.store, this.name, this.pinned, options);
  }

  /**
   * count(*), count(col), min, max, sum, avg over the pinned snapshot, answered from
   * statistics where they can be (src/scan/aggregate.ts).
   *
   *   const r = await t.aggregate([{ fn: 'count_star' }, { fn: 'max', column: 'ts' }]);
   *   r.values  // [1000000n, 1700000000000000n]
   */
  aggregate(aggs: readonly AggSpec[], where?: Predicate, options?: AggregateOptions): Promise<AggregateResult> {
    return aggregateRows(this.store, this.name, this.pinned, aggs, where, options);
  }

  /**
   * DELETE FROM table WHERE `where`: one new snapshot with delete vectors (src/table/delete.ts),
   * evaluated on the latest snapshot (re-evaluated on a lost commit race). Re-pins the table
   * to the snapshot committed.
   */
  async delete(where: Predicate): Promise<DeleteResult> {
    const r = await deleteRows(this.store, this.name, where);
    this.pinned = r.snapshot;
    return r;
  }

  /**
   * Rewrites files with deleted rows (and merges small files) into new files without them
   * (src/table/compact.ts). Re-pins the table to the snapshot committed.
   */
  async compact(options?: CompactOptions): Promise<CompactResult> {
    const r = await compactTable(this.store, this.name, options);
    this.pinned = r.snapshot;
    return r;
  }

  /** Reads every byte of every data file of the pinned snapshot and verifies every checksum. */
  check(): Promise<CheckResult> {
    return checkTable(this.store, this.name, this.pinned);
  }

  info(): TableInfo {
    return tableInfo(this.pinned);
  }
}

/**
 * ALTER TABLE … ADD COLUMN as a function of the base snapshot (Table.addColumn, and a
 * transaction's ALTER, which applies it to the base its COMMIT finds): 42701 when the column
 * exists, 23502 for NOT NULL without a default over rows. The spec's type and default are
 * checked at once.
 */
export function columnAdder(table: string, spec: ColumnSpec): (base: SnapshotJson) => SnapshotJson {
  const type = typeof spec.type === 'string' ? parseTypeName(spec.type) : spec.type;
  if (spec.default !== undefined) parseText(type, spec.default); // reject a bad default now
  return (base) => {
    if (base.view !== undefined)
      throw new PaxdError('invalid_input', SQLSTATE.wrong_object_type, `ALTER action ADD COLUMN cannot be performed on relation "${table}"`, { detail: 'This operation is not supported for views.' });
    if (base.fields.some((f) => f.name === spec.name))
      throw new PaxdError('exists', SQLSTATE.duplicate_column, `column "${spec.name}" of relation "${table}" already exists`, { columnName: spec.name });
    const rows = base.files.reduce((n, f) => n + f.groups.reduce((m, g) => m + g.live, 0), 0);
    if ((spec.notNull ?? false) && spec.default === undefined && rows > 0)
      throw new PaxdError('constraint', SQLSTATE.not_null_violation, `column "${spec.name}" of relation "${table}" contains null values`, { columnName: spec.name });
    const field: Field = { name: spec.name, type, notNull: spec.notNull ?? false, fieldId: base.nextFieldId, ...(spec.default !== undefined ? { default: spec.default } : {}) };
    return { ...base, operation: 'add_column', fields: [...base.fields, fieldToJson(field)], nextFieldId: base.nextFieldId + 1, summary: { command: 'add_column', column: spec.name } };
  };
}

function tableInfo(s: SnapshotJson): TableInfo {
  let rows = 0;
  let bytes = 0;
  let groups = 0;
  for (const f of s.files) {
    bytes += f.size;
    const c = fileCounts(f);
    groups += c.groups;
    rows += c.live;
  }
  return { name: s.table, rows, bytes, layout: s.layout, kind: s.view !== undefined ? 'view' : 'table', snapshot: s.id, files: s.files.length, groups };
}

function validateOptions(o: TableOptionsJson): TableOptionsJson {
  if (o.codec !== 'lz4' && o.codec !== 'zstd' && o.codec !== 'none') throw usage(`unknown codec "${String(o.codec)}": use lz4, zstd or none`);
  const int = (name: string, v: number, min: number, max: number) => {
    if (!Number.isInteger(v) || v < min || v > max) throw usage(`${name} must be an integer between ${min} and ${max}, got ${v}`);
  };
  int('rowGroupRows', o.rowGroupRows, 8, 1 << 24);
  int('rowGroupBytes', o.rowGroupBytes, 1 << 16, 2 ** 31);
  int('zoneRows', o.zoneRows, 1024, 1 << 20);
  if (o.zoneRows % 1024 !== 0) throw usage(`zoneRows must be a multiple of 1024, got ${o.zoneRows}`);
  return o;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

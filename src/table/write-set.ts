/**
 * A transaction's writes to one table (docs/WIRE.md "Transactions"): rows inserted and row positions deleted,
 * invisible to everyone else until `commit()` turns them into one new snapshot, and undone by
 * `abort()` or, back to a `mark()`, by `rollbackTo(mark)`.
 *
 *   const ws = new WriteSet(store, 't', pinned);       // pinned: the transaction's snapshot of t
 *   await ws.insert([[1, 2], ['a', 'b']]);             // columns in field order, storage values
 *   ws.deleteRow(ws.locate(0)!.key, 7);                // (unit 0, row 7) of the pinned snapshot
 *   const view = await ws.view();                      // what the transaction's reads see
 *   await ws.commit();                                 // one snapshot: appends + delete vectors
 *
 * Inserts are buffered in memory (no file, no fsync per row: postgres_fdw sends one INSERT
 * per row) and written as a PAX data file only when a row group's worth is buffered, when a
 * read of the transaction needs them (`view()`, `flush()`), or at commit. Such a staged file
 * is durable but referenced by no committed snapshot, so to any other reader it is garbage
 * that `paxd vacuum` may remove once older than its grace period (one hour by default): a
 * transaction must commit within that period. On abort the staged files are removed.
 *
 * Deletes are positions in groups, a group named by its file path and index (its identity
 * across snapshots: files are immutable and their names never reused). The transaction's
 * reads see its staged snapshot: the pinned snapshot's files, then the staged files, with
 * the transaction's deletes applied to the groups (statistics recomputed as a committed
 * delete does, so aggregates answered from statistics stay exact). Storage ranks of groups
 * never move (staged files only ever come after the pinned ones), so a ctid read inside the
 * transaction names the same row for the rest of it.
 *
 * Commit applies the deletes to the latest snapshot's same groups. A row that a concurrent
 * commit deleted, or a group that a compaction rewrote, fails the commit with 40001 (could not
 * serialize access due to concurrent update: REPEATABLE READ's first-updater-wins); appends
 * by others commute. A savepoint is a mark (staged files, buffered rows, delete log length):
 * rolling back to it forgets later deletes, truncates the buffer and deletes the staged rows
 * inserted since (whole staged files are dropped).
 */
import { type Field, type Value, PaxdError, SQLSTATE, columnOf, notNullViolation } from '../types/index.js';
import { type ObjectStore, type DataFileJson, type GroupJson, type SnapshotJson, commitTables, incarnationOf, type CommitOptions, type TableWrite, tombstoneWrite, fieldsOf, newFileName } from '../storage/index.js';
import { PaxFileWriter } from '../pax/index.js';
import { loadDeleted } from '../scan/index.js';
import { GroupRows, withDeletes } from './delete.js';
import { viewNotWritable } from './view-errors.js';

/** One group of the staged file list: where a storage rank points. */
export interface GroupRef {
  readonly file: DataFileJson;
  readonly group: number;
  /** `path#group`: the group's identity across snapshots. */
  readonly key: string;
}

/** A savepoint's state of a write set. */
export interface WriteMark {
  readonly seq: number;
  readonly staged: number;
  readonly buffered: number;
  readonly log: number;
}

export function serializationFailure(): PaxdError {
  return new PaxdError('conflict', SQLSTATE.serialization_failure, 'could not serialize access due to concurrent update');
}

export class WriteSet {
  readonly fields: readonly Field[];
  private buffer: Value[][];
  private buffered = 0;
  private bufferedBytes = 0;
  private readonly staged: DataFileJson[] = [];
  private readonly deletes = new Map<string, Set<number>>();
  private readonly log: { key: string; pos: number }[] = [];
  private version = 0;
  private cached: { version: number; snapshot: SnapshotJson } | null = null;
  /** Group metadata with deletes applied, by group key and positions. */
  private readonly metas = new Map<string, GroupJson>();
  /** TRUNCATEs of this transaction, in order: the base and the staged files before `staged` are gone. */
  private readonly truncations: { seq: number; staged: number }[] = [];
  /** Counts changes, so a mark knows which truncations came after it. */
  private seq = 0;
  /** What the snapshot summary says the commit did. */
  command: string | null = null;

  constructor(
    readonly store: ObjectStore,
    readonly table: string,
    readonly base: SnapshotJson,
  ) {
    if (base.view !== undefined) throw viewNotWritable(table);
    this.fields = fieldsOf(base);
    this.buffer = this.fields.map(() => []);
  }

  /** True when the set holds anything to commit. */
  get dirty(): boolean {
    return this.buffered > 0 || this.staged.length > 0 || this.log.length > 0 || this.truncations.length > 0;
  }

  /**
   * Buffers rows (one array per field, storage values); 23502 when a NOT NULL column gets a
   * NULL, as PostgreSQL's message. Writes a staged file once a row group's worth is buffered.
   */
  async insert(cols: readonly Value[][]): Promise<void> {
    const n = cols[0]?.length ?? 0;
    this.fields.forEach((f, j) => {
      if (f.notNull && cols[j]!.includes(null))
        throw notNullViolation(f.name, this.table);
    });
    this.fields.forEach((_, j) => {
      const out = this.buffer[j]!;
      for (const v of cols[j]!) {
        out.push(v);
        this.bufferedBytes += typeof v === 'string' ? v.length + 16 : v instanceof Uint8Array ? v.byteLength + 16 : 8;
      }
    });
    this.buffered += n;
    this.version++;
    this.seq++;
    // A full row group by rows, or by the table's byte budget (DESIGN.md: writers bound their memory).
    if (this.buffered >= this.base.options.rowGroupRows || this.bufferedBytes >= this.base.options.rowGroupBytes) await this.flush();
  }

  /** Writes the buffered rows to a staged data file (durable, referenced by no snapshot yet). */
  async flush(): Promise<void> {
    if (this.buffered === 0) return;
    const path = `data/${newFileName()}.pax`;
    const w = await PaxFileWriter.create(this.store, `${this.table}/${path}`, this.fields, { codec: this.base.options.codec, zoneRows: this.base.options.zoneRows });
    try {
      const per = this.base.options.rowGroupRows;
      for (let start = 0; start < this.buffered; start += per) {
        const end = Math.min(this.buffered, start + per);
        await w.writeGroup(this.fields.map((f, j) => columnOf(f.type, this.buffer[j]!.slice(start, end))));
      }
      this.staged.push(await w.finish(path));
      this.stagedGen++;
      this.seq++;
    } catch (e) {
      await w.abort().catch(() => undefined);
      throw e;
    }
    this.buffer = this.fields.map(() => []);
    this.buffered = 0;
    this.bufferedBytes = 0;
    this.version++;
  }

  /** The files of the staged list, pinned ones first: storage ranks count groups over these. */
  files(): DataFileJson[] {
    const t = this.truncations[this.truncations.length - 1];
    if (t !== undefined) return this.staged.slice(t.staged);
    return this.staged.length === 0 ? this.base.files : [...this.base.files, ...this.staged];
  }

  /** The snapshot to scan for rows to change: unchanged group metadata (a superset of the live rows; see isDeleted). */
  scanSnapshot(): SnapshotJson {
    const files = this.files();
    if (files === this.base.files) return this.base;
    // One object per staged list, so what is cached per snapshot (its parsed fields) is reused.
    if (this.scanned?.gen !== this.stagedGen) this.scanned = { gen: this.stagedGen, snapshot: { ...this.base, files } };
    return this.scanned.snapshot;
  }
  private scanned: { gen: number; snapshot: SnapshotJson } | null = null;
  /** Changes of the staged file list (flush, truncate, rollback, abort). */
  private stagedGen = 0;

  /** The group at storage rank `unit`, or null. */
  locate(unit: number): GroupRef | null {
    let rank = 0;
    for (const file of this.files()) {
      if (unit < rank + file.groups.length) return { file, group: unit - rank, key: `${file.path}#${unit - rank}` };
      rank += file.groups.length;
    }
    return null;
  }

  /** True when the transaction deleted the row. */
  isDeleted(key: string, pos: number): boolean {
    return this.deletes.get(key)?.has(pos) ?? false;
  }

  /** Deletes a live row of group `key` (GroupRef.key) of the staged list; false when this transaction deleted it already. */
  deleteRow(key: string, pos: number): boolean {
    return this.addDelete(key, pos);
  }

  private addDelete(key: string, pos: number): boolean {
    let s = this.deletes.get(key);
    if (s === undefined) this.deletes.set(key, (s = new Set()));
    if (s.has(pos)) return false;
    s.add(pos);
    this.log.push({ key, pos });
    this.version++;
    this.seq++;
    return true;
  }

  /**
   * TRUNCATE: every row is gone, the base's and this transaction's so far. At commit the
   * snapshot keeps only the files staged after it (rows committed by others meanwhile go
   * too, as PostgreSQL's TRUNCATE, which waits for them, removes them).
   */
  async truncate(): Promise<void> {
    await this.flush();
    this.truncations.push({ seq: ++this.seq, staged: this.staged.length });
    this.stagedGen++;
    this.version++;
  }

  mark(): WriteMark {
    return { seq: this.seq, staged: this.staged.length, buffered: this.buffered, log: this.log.length };
  }

  /** ROLLBACK TO SAVEPOINT: back to the state of `m`. */
  async rollbackTo(m: WriteMark): Promise<void> {
    this.stagedGen++;
    while (this.truncations.length > 0 && this.truncations[this.truncations.length - 1]!.seq > m.seq) this.truncations.pop();
    while (this.log.length > m.log) {
      const { key, pos } = this.log.pop()!;
      const s = this.deletes.get(key)!;
      s.delete(pos);
      if (s.size === 0) this.deletes.delete(key);
    }
    if (this.staged.length === m.staged) {
      for (const col of this.buffer) col.length = m.buffered;
      this.bufferedBytes = this.buffered === 0 ? 0 : Math.round((this.bufferedBytes * m.buffered) / this.buffered);
      this.buffered = m.buffered;
    } else {
      // The rows buffered at the mark went into staged file m.staged with the later ones.
      this.buffer = this.fields.map(() => []);
      this.buffered = 0;
      this.bufferedBytes = 0;
      const keep = m.buffered > 0 ? m.staged + 1 : m.staged;
      const dropped = this.staged.splice(keep);
      this.stagedGen++;
      for (const f of dropped) await this.store.delete(`${this.table}/${f.path}`).catch(() => undefined);
      if (m.buffered > 0) {
        const file = this.staged[m.staged]!;
        let first = 0;
        for (let g = 0; g < file.groups.length; g++) {
          const rows = file.groups[g]!.rows;
          for (let p = Math.max(0, m.buffered - first); p < rows; p++) this.addDelete(`${file.path}#${g}`, p);
          first += rows;
        }
      }
    }
    this.version++;
  }

  /** The snapshot the transaction's reads see: staged files and deletes applied (flushes the buffer). */
  async view(): Promise<SnapshotJson> {
    if (!this.dirty) return this.base;
    await this.flush();
    if (this.cached?.version === this.version) return this.cached.snapshot;
    const fields = this.fields;
    const files: DataFileJson[] = [];
    for (const file of this.files()) files.push(await this.withOwnDeletes(file, file, fields));
    const snapshot: SnapshotJson = { ...this.base, files };
    this.cached = { version: this.version, snapshot };
    return snapshot;
  }

  /** `file` (as found in some base) with this transaction's deletes of `mine` (same path) applied. */
  private async withOwnDeletes(file: DataFileJson, mine: DataFileJson, fields: readonly Field[], check = false): Promise<DataFileJson> {
    let groups: GroupJson[] | null = null;
    for (let g = 0; g < mine.groups.length; g++) {
      const set = this.deletes.get(`${mine.path}#${g}`);
      if (set === undefined || set.size === 0) continue;
      const meta = file.groups[g]!;
      const positions = [...set].sort((a, b) => a - b);
      if (check) {
        const dead = await loadDeleted(this.store, this.table, meta);
        if (dead !== null && positions.some((p) => binaryHas(dead, p))) throw serializationFailure();
      }
      const key = `${mine.path}#${g}#${meta.rows - meta.live}#${meta.deletesPath ?? ''}#${fields.length}#${positions.join(',')}`;
      let out = this.metas.get(key);
      if (out === undefined) {
        const rows = await GroupRows.open(this.store, this.table, fields, file, g);
        out = await withDeletes(this.store, this.table, fields, rows, positions);
        this.metas.set(key, out);
      }
      groups ??= file.groups.slice();
      groups[g] = out;
    }
    if (groups === null) return file;
    // A group whose rows are all deleted leaves the snapshot's file entry only when the whole file goes.
    return { ...file, groups };
  }

  /**
   * One new snapshot with the inserts and deletes, rebased on the latest snapshot (40001 when
   * a row this transaction deleted was deleted or rewritten meanwhile). Null when there was
   * nothing to commit. After a failure, call abort().
   */
  async commit(opts: CommitOptions = {}): Promise<SnapshotJson | null> {
    return (await commitWriteSets(this.store, [this], opts))[0] ?? null;
  }

  /**
   * This write set as one table's part of a commit (storage commitTables), its buffers written
   * first; null when there is nothing to commit.
   */
  async tableWrite(): Promise<TableWrite | null> {
    await this.flush();
    if (!this.dirty) return null;
    // The pinned snapshot's incarnation: a table dropped and created again meanwhile is 42P01.
    return { table: this.table, kind: 'write', build: this.builder(), incarnation: incarnationOf(this.base) };
  }

  /** After a commit whose outcome is unknown: the staged files stay for vacuum (abort() then removes nothing). */
  keepStaged(): void {
    this.staged.length = 0;
  }

  /** The commit loop's build function: this transaction's writes rebased on `latest`. */
  private builder(): (latest: SnapshotJson) => Promise<SnapshotJson> {
    const pinned = new Map(this.base.files.map((f) => [f.path, f]));
    const touched = new Set<string>();
    for (const [key, s] of this.deletes) if (s.size > 0) touched.add(key.slice(0, key.lastIndexOf('#')));
    const truncation = this.truncations[this.truncations.length - 1];
    const hasDeletes = truncation !== undefined || [...touched].some((p) => pinned.has(p));
    const build = async (latest: SnapshotJson): Promise<SnapshotJson> => {
      const fields = fieldsOf(latest);
      const files: DataFileJson[] = [];
      const seen = new Set<string>();
      for (const file of truncation === undefined ? latest.files : []) {
        const mine = pinned.get(file.path);
        if (mine === undefined || !touched.has(file.path)) {
          files.push(file);
          continue;
        }
        seen.add(file.path);
        const out = await this.withOwnDeletes(file, mine, fields, true);
        if (!emptied(out)) files.push(out);
      }
      if (truncation === undefined) for (const p of touched) if (pinned.has(p) && !seen.has(p)) throw serializationFailure();
      for (const file of this.staged.slice(truncation?.staged ?? 0)) {
        const out = touched.has(file.path) ? await this.withOwnDeletes(file, file, fields) : file;
        if (!emptied(out)) files.push(out);
      }
      await this.checkStaged(files);
      const command = this.command ?? (hasDeletes ? 'delete' : 'append');
      return { ...latest, operation: hasDeletes ? 'delete' : 'append', files, summary: { command } };
    };
    return build;
  }

  /**
   * The objects this transaction wrote must still exist when a snapshot is to reference
   * them: a transaction that outlived vacuum's grace period (one hour by default) may have
   * lost them, and then it must fail rather than commit a snapshot that names missing files.
   */
  private async checkStaged(files: readonly DataFileJson[]): Promise<void> {
    const mine = new Set(this.staged.map((f) => f.path));
    const ours = new Set<string>();
    for (const m of this.metas.values()) if (m.deletesPath !== undefined) ours.add(m.deletesPath);
    for (const f of files) {
      const paths = [...(mine.has(f.path) ? [f.path] : []), ...f.groups.flatMap((g) => (g.deletesPath !== undefined && ours.has(g.deletesPath) ? [g.deletesPath] : []))];
      for (const p of paths)
        if ((await this.store.stat(`${this.table}/${p}`)) === null)
          throw new PaxdError('conflict', SQLSTATE.serialization_failure, `could not serialize access: ${this.table}/${p}, written by this transaction, is gone (removed by vacuum after the transaction outlived its grace period)`);
    }
  }

  /** Drops everything: staged files are removed (or left for vacuum when that fails). */
  async abort(): Promise<void> {
    this.buffer = this.fields.map(() => []);
    this.buffered = 0;
    this.bufferedBytes = 0;
    const files = this.staged.splice(0);
    this.stagedGen++;
    this.deletes.clear();
    this.log.length = 0;
    this.truncations.length = 0;
    this.stagedGen++;
    this.version++;
    for (const f of files) await this.store.delete(`${this.table}/${f.path}`).catch(() => undefined);
  }
}

/** A PAX file whose every row is deleted: it leaves the snapshot (TRUNCATE, or an update's staged rows all undone). */
function emptied(file: DataFileJson): boolean {
  return file.layout === undefined && file.groups.length > 0 && file.groups.every((g) => g.live === 0);
}

function binaryHas(sorted: Uint32Array, p: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v === p) return true;
    if (v < p) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * A transaction's DDL on one table, committed with its writes (src/pgwire/session/transaction.ts):
 * a table it created (its first snapshot, the write set's rows on top), one it dropped, or
 * one it altered (`alter` is applied to the base the COMMIT finds, the rows on top).
 */
export type TableDdl =
  | { kind: 'create'; snapshot: SnapshotJson }
  | { kind: 'drop'; incarnation: number }
  | { kind: 'alter'; incarnation: number; snapshot: SnapshotJson; alter: (base: SnapshotJson) => SnapshotJson };

/**
 * COMMIT of a transaction: the DDL and the writes of every table in one root of the store
 * (storage commitTables), all or nothing. Returns the snapshots committed (tables with nothing
 * to commit left out). A conflict (40001) means nothing was written; after any other failure
 * the outcome may be unknown (a root written whose durability could not be confirmed): the
 * staged files are then left for vacuum, which removes them only if no snapshot references
 * them. After a failure, abort() every set.
 */
export async function commitWriteSets(store: ObjectStore, sets: readonly WriteSet[], opts: CommitOptions = {}, ddl: ReadonlyMap<string, TableDdl> = new Map()): Promise<SnapshotJson[]> {
  const byTable = new Map(sets.map((ws) => [ws.table, ws]));
  const writes: TableWrite[] = [];
  for (const ws of sets) {
    if (ddl.has(ws.table)) continue;
    const w = await ws.tableWrite();
    if (w !== null) writes.push(w);
  }
  for (const [table, d] of ddl) {
    const w = d.kind === 'drop' ? null : ((await byTable.get(table)?.tableWrite()) ?? null);
    switch (d.kind) {
      case 'create':
        writes.push({ table, kind: 'create', build: async () => (w === null ? d.snapshot : { ...(await w.build(d.snapshot)), operation: 'create' }) });
        break;
      case 'drop':
        writes.push(tombstoneWrite(store, table, d.incarnation));
        break;
      case 'alter':
        writes.push({ table, kind: 'write', incarnation: d.incarnation, build: async (base) => (w === null ? d.alter(base) : w.build(d.alter(base))) });
        break;
      default: {
        const never: never = d;
        throw new Error(`internal error: DDL ${JSON.stringify(never)}`);
      }
    }
  }
  if (writes.length === 0) return [];
  try {
    return await commitTables(store, writes, opts);
  } catch (e) {
    if (!(e instanceof PaxdError && e.kind === 'conflict')) for (const ws of sets) ws.keepStaged();
    throw e;
  }
}

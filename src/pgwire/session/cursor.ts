/**
 * SQL cursors (DECLARE … CURSOR, FETCH, MOVE, CLOSE; https://www.postgresql.org/docs/15/sql-fetch.html).
 * Positions follow PostgreSQL: 0 is before the first row, n + 1 after the last. Two kinds:
 *
 *   Cursor        rows computed at DECLARE over the transaction's pinned snapshot: it may
 *                 scroll, and a WITH HOLD cursor survives its transaction unchanged.
 *   StreamCursor  a plain scan (src/engine/stream.ts) that is neither SCROLL nor WITH HOLD,
 *                 as postgres_fdw declares them: it keeps the open scan over the snapshot
 *                 pinned at DECLARE and reads batches only as FETCH asks for rows, encoding
 *                 them straight into DataRows (./row-encoder.ts). Like PostgreSQL's cursor
 *                 over a sequential scan (which gets CURSOR_OPT_SCROLL implicitly because the
 *                 plan can run backward), one without NO SCROLL may still go back: the first
 *                 such move reads the result again from the same snapshot and becomes a
 *                 Cursor at the same position.
 *
 *   const c = new Cursor('c1', fields, rows, { scroll: null, hold: false, declaredAt: 0, inTransaction: false });
 *   c.fetch('forward', 2)    // rows 1 and 2; c.position === 2
 *   c.fetch('backward', 1)   // row 1
 */
import { PaxdError, unreachable, SQLSTATE } from '../../types/index.js';
import type { ResultField, ScanCursorPlan } from '../../engine/index.js';
import type { BatchReader } from '../../scan/index.js';
import type { Batch, Value } from '../../types/index.js';
import { FETCH_ALL, type FetchDirection } from './statements.js';
import { RowEncoder, type Segment } from '../codec/row-encoder.js';

export interface CursorOptions {
  /** SCROLL (true), NO SCROLL (false) or neither (null: paxd's cursors can scroll). */
  readonly scroll: boolean | null;
  readonly hold: boolean;
  /** The transaction's moment of the DECLARE (Transaction.tick): ROLLBACK TO a savepoint made before it closes the cursor. */
  readonly declaredAt: number;
  /** Declared inside a transaction block (a ROLLBACK closes it, even WITH HOLD). */
  readonly inTransaction: boolean;
}

export class Cursor {
  constructor(
    readonly name: string,
    readonly fields: readonly ResultField[],
    private readonly rows: readonly (readonly Value[])[],
    readonly options: CursorOptions,
    /** DECLARE … BINARY: FETCH returns every column in binary format. */
    readonly binary = false,
    /** Where the cursor starts (a StreamCursor turned into a Cursor keeps its position). */
    private pos = 0,
  ) {}

  get position(): number {
    return this.pos;
  }

  /** The rows FETCH returns (MOVE counts them), moving the position as PostgreSQL does. */
  fetch(direction: FetchDirection, count: number): (readonly Value[])[] {
    const n = this.rows.length;
    const all = count >= FETCH_ALL;
    switch (direction) {
      case 'forward': {
        if (count < 0) return this.fetch('backward', -count);
        if (count === 0) return this.current();
        const out = this.rows.slice(this.pos, all ? n : Math.min(n, this.pos + count));
        this.pos = all || this.pos + count > n ? n + 1 : this.pos + count;
        return out;
      }
      case 'backward': {
        if (count < 0) return this.fetch('forward', -count);
        if (count === 0) return this.current();
        this.checkScroll();
        const from = Math.min(this.pos, n + 1) - 1; // the row before the current position
        const to = all ? 1 : Math.max(1, from - count + 1);
        const out: (readonly Value[])[] = [];
        for (let p = from; p >= to; p--) out.push(this.rows[p - 1]!);
        this.pos = all || this.pos - count < 1 ? 0 : this.pos - count;
        return out;
      }
      case 'absolute': {
        const target = count >= 0 ? count : n + 1 + count;
        if (target < this.pos) this.checkScroll();
        this.pos = Math.max(0, Math.min(n + 1, target));
        return this.current();
      }
      case 'relative': {
        if (count < 0) this.checkScroll();
        this.pos = Math.max(0, Math.min(n + 1, this.pos + count));
        return this.current();
      }
      default:
        return unreachable(direction);
    }
  }

  private current(): (readonly Value[])[] {
    return this.pos >= 1 && this.pos <= this.rows.length ? [this.rows[this.pos - 1]!] : [];
  }

  private checkScroll(): void {
    if (this.options.scroll === false) throw scanForwardOnly();
  }
}

/** 55000, as PostgreSQL's PortalRunSelect says it (the hint in DETAIL, as paxd has always sent it). */
function scanForwardOnly(): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.object_not_in_prerequisite_state, 'cursor can only scan forward', {
    detail: 'Declare it with SCROLL option to enable backward scan.',
  });
}

/** Rows a FETCH chunk holds at most: one Buffer per chunk, several chunks for larger FETCHes. */
const CHUNK_ROWS = 16384;

/**
 * A cursor over an open scan (see the file comment). FETCH FORWARD n / MOVE FORWARD n read on
 * from where the previous one stopped, keeping the rest of a batch for the next; anything else
 * (backward, absolute, relative, FETCH 0) first turns it into a Cursor.
 */
export class StreamCursor {
  readonly binary = false;
  /** Its RowDescription, built by the session once (every FETCH repeats it). */
  description: Buffer | null = null;
  private reader: BatchReader | null;
  private batch: Batch | null = null;
  /** The next selected row of `batch`, and its selected rows. */
  private at = 0;
  private count = 0;
  private pos = 0;
  /** The scan returned its last batch; then, a read came up short (position n + 1). */
  private ended = false;
  private pastEnd = false;
  /** Set once the cursor went back (or was asked for anything but forward reads). */
  private materialized: Cursor | null = null;
  private encoder: RowEncoder | null = null;
  /** The read in progress: close() waits for it before it ends the scan. */
  private busy: Promise<unknown> | null = null;
  private closed = false;

  private constructor(
    readonly name: string,
    private readonly plan: ScanCursorPlan,
    reader: BatchReader,
    readonly options: CursorOptions,
  ) {
    this.reader = reader;
  }

  /** Opens the plan's scan (nothing is read before the first FETCH). */
  static async open(name: string, plan: ScanCursorPlan, options: CursorOptions): Promise<StreamCursor> {
    const reader = plan.open();
    await reader.begin();
    return new StreamCursor(name, plan, reader, options);
  }

  get fields(): readonly ResultField[] {
    return this.plan.fields;
  }

  get position(): number {
    return this.materialized?.position ?? this.pos;
  }

  /** True while FETCH FORWARD n can be answered from the scan (then use `forward`). */
  get streaming(): boolean {
    return this.materialized === null;
  }

  /**
   * FETCH FORWARD `count` (FETCH_ALL for ALL; count > 0) as DataRows in text format: `emit`
   * gets each chunk (one Buffer of up to CHUNK_ROWS rows) and `check` runs after every read
   * (it throws to stop, e.g. once the statement was cancelled). Returns the rows fetched.
   */
  async forward(count: number, emit: (chunk: Buffer) => Promise<void>, check: () => void, alloc?: (size: number) => Buffer): Promise<number> {
    this.encoder ??= new RowEncoder(this.plan.sources.map((s, i) => ({ source: s, type: s < 0 ? this.plan.fields[i]!.type : this.plan.columns[s]!.type })), this.plan.timeZone);
    const encoder = this.encoder;
    return this.exclusive(async () => {
      let total = 0;
      for (;;) {
        const want = Math.min(count - total, CHUNK_ROWS);
        // Most FETCHes of a small fetch_size are answered from the batch at hand: no await.
        const buffered = this.take(want);
        const segments = buffered ?? (await this.pull(want, check));
        const n = RowEncoder.rows(segments);
        if (n > 0) await emit(encoder.encode(segments, alloc));
        check();
        total += n;
        if (n < want || total >= count) return total;
      }
    });
  }

  /** FETCH / MOVE in any direction as rows (the extended protocol's FETCH, MOVE, scrolling). */
  async fetch(direction: FetchDirection, count: number, move: boolean, check: () => void): Promise<(readonly Value[])[] | number> {
    if (this.materialized === null && isForward(direction, count)) {
      return this.exclusive(async () => {
        let n = 0;
        const rows: Value[][] = [];
        while (n < count) {
          const segments = await this.pull(Math.min(count - n, CHUNK_ROWS), check);
          const got = RowEncoder.rows(segments);
          if (!move) for (const s of segments) for (const row of this.plan.rows(s.batch, s.from, s.to)) rows.push(row);
          n += got;
          if (got === 0) break;
        }
        return move ? n : rows;
      });
    }
    if (this.materialized === null) {
      if (this.options.scroll === false && goesBack(direction, count, this.pos)) throw scanForwardOnly();
      await this.exclusive(() => this.materialize(check));
    }
    const rows = this.materialized!.fetch(direction, count);
    return move ? rows.length : rows;
  }

  /** Ends the scan (CLOSE, the end of the transaction, the connection closing). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.busy?.catch(() => undefined);
    await this.endScan();
  }

  private async endScan(): Promise<void> {
    const r = this.reader;
    this.reader = null;
    this.batch = null;
    if (r !== null) await r.end();
  }

  private async exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) throw new Error(`cursor "${this.name}" is closed`);
    const p = work();
    this.busy = p;
    try {
      return await p;
    } finally {
      if (this.busy === p) this.busy = null;
    }
  }

  /** The next `want` rows when the current batch holds them all (else null), advancing the position. */
  private take(want: number): Segment[] | null {
    if (this.batch === null || this.count - this.at < want) return null;
    const seg: Segment = { batch: this.batch, from: this.at, to: this.at + want };
    this.at += want;
    this.pos += want;
    return [seg];
  }

  /** Up to `want` next rows as segments of batches, advancing the position. */
  private async pull(want: number, check: () => void): Promise<Segment[]> {
    const out: Segment[] = [];
    let n = 0;
    while (n < want && !this.ended) {
      if (this.batch === null || this.at >= this.count) {
        const b = await this.reader!.next();
        check();
        if (b === null) {
          this.ended = true;
          this.batch = null;
          await this.endScan();
          break;
        }
        this.batch = b;
        this.at = 0;
        this.count = b.selection === null ? b.length : b.selection.length;
        continue;
      }
      const take = Math.min(want - n, this.count - this.at);
      out.push({ batch: this.batch, from: this.at, to: this.at + take });
      this.at += take;
      n += take;
    }
    // A read that comes up short leaves the cursor after the last row: position n + 1.
    if (this.ended && n < want) {
      if (!this.pastEnd) this.pos += n + 1;
      this.pastEnd = true;
    } else this.pos += n;
    return out;
  }

  /** Reads the whole result again from the same snapshot and continues as a Cursor at the same position. */
  private async materialize(check: () => void): Promise<void> {
    const reader = this.plan.open();
    const rows: Value[][] = [];
    await reader.begin();
    try {
      for (let b = await reader.next(); b !== null; b = await reader.next()) {
        check();
        for (const row of this.plan.rows(b, 0, b.selection === null ? b.length : b.selection.length)) rows.push(row);
      }
    } finally {
      await reader.end();
    }
    const pos = Math.min(this.pos, rows.length + 1);
    await this.endScan();
    this.materialized = new Cursor(this.name, this.plan.fields, rows, this.options, false, pos);
  }
}

/** FETCH/MOVE FORWARD n with n > 0 (NEXT, FORWARD n, FORWARD ALL, plain n, ALL). */
function isForward(direction: FetchDirection, count: number): boolean {
  return direction === 'forward' && count > 0;
}

/** The moves a NO SCROLL cursor refuses (as Cursor's checkScroll), known before reading the rest of the result. */
function goesBack(direction: FetchDirection, count: number, pos: number): boolean {
  switch (direction) {
    case 'forward':
      return count < 0;
    case 'backward':
      return count > 0;
    case 'absolute':
      return count >= 0 && count < pos;
    case 'relative':
      return count < 0;
    default:
      return unreachable(direction);
  }
}

/** A session's open cursors by name: what transaction ends and ROLLBACK TO close (PostgreSQL's portal cleanup). */
export class CursorSet {
  private readonly byName = new Map<string, Cursor | StreamCursor>();

  get(name: string): Cursor | StreamCursor | undefined {
    return this.byName.get(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  add(c: Cursor | StreamCursor): void {
    this.byName.set(c.name, c);
  }

  /** Forgets a cursor; a streaming one ends its scan (in the background: nothing waits for it). */
  drop(name: string): boolean {
    const c = this.byName.get(name);
    if (c === undefined) return false;
    this.byName.delete(name);
    if (c instanceof StreamCursor) void c.close().catch(() => undefined);
    return true;
  }

  /** CLOSE ALL, DISCARD ALL, the connection's end. */
  dropAll(): void {
    for (const name of [...this.byName.keys()]) this.drop(name);
  }

  /** COMMIT keeps WITH HOLD cursors; ROLLBACK also closes those declared in the transaction. */
  endTransaction(committed: boolean): void {
    for (const [name, c] of this.byName) if (!c.options.hold || (!committed && c.options.inTransaction)) this.drop(name);
  }

  /** ROLLBACK TO a savepoint of moment `at`: cursors declared after it go with it. */
  rollbackTo(at: number): void {
    for (const [name, c] of this.byName) if (c.options.inTransaction && c.options.declaredAt > at) this.drop(name);
  }
}

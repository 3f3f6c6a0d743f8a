/**
 * SQL cursors (DECLARE … CURSOR, FETCH, MOVE, CLOSE; https://www.postgresql.org/docs/15/sql-fetch.html).
 * A cursor's rows are computed at DECLARE over the transaction's pinned snapshot, so every
 * cursor may scroll and a WITH HOLD cursor survives its transaction unchanged. Positions
 * follow PostgreSQL: 0 is before the first row, n + 1 after the last.
 *
 *   const c = new Cursor('c1', fields, rows, { scroll: null, hold: false, depth: 0 });
 *   c.fetch('forward', 2)    // rows 1 and 2; c.position === 2
 *   c.fetch('backward', 1)   // row 1
 */
import { PaxdError } from '../types/index.js';
import type { ResultField } from '../engine/index.js';
import type { Value } from '../types/index.js';
import { WIRE_SQLSTATE } from './errors.js';
import { FETCH_ALL, type FetchDirection } from './statements.js';

export interface CursorOptions {
  /** SCROLL (true), NO SCROLL (false) or neither (null: paxd's cursors can scroll). */
  readonly scroll: boolean | null;
  readonly hold: boolean;
  /** Savepoints open when the cursor was declared (ROLLBACK TO closes cursors declared later). */
  readonly depth: number;
  /** Declared inside a transaction block (a ROLLBACK closes it, even WITH HOLD). */
  readonly inTransaction: boolean;
}

export class Cursor {
  private pos = 0;

  constructor(
    readonly name: string,
    readonly fields: readonly ResultField[],
    private readonly rows: readonly (readonly Value[])[],
    readonly options: CursorOptions,
    /** DECLARE … BINARY: FETCH returns every column in binary format. */
    readonly binary = false,
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
      default: {
        const never: never = direction;
        throw new Error(`unknown fetch direction ${String(never)}`);
      }
    }
  }

  private current(): (readonly Value[])[] {
    return this.pos >= 1 && this.pos <= this.rows.length ? [this.rows[this.pos - 1]!] : [];
  }

  private checkScroll(): void {
    if (this.options.scroll === false)
      throw new PaxdError('invalid_input', WIRE_SQLSTATE.object_not_in_prerequisite_state, 'cursor can only scan forward', {
        detail: 'Declare it with SCROLL option to enable backward scan.',
      });
  }
}

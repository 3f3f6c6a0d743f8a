/**
 * The batch an input reader (./csv/reader.ts, ./ndjson.ts) fills by index: one column buffer
 * per table column, each sized for a whole batch. `finish()` hands out the rows written so far
 * as a Batch (views of the buffers, no copy) and starts the next batch with fresh buffers,
 * sizing each var-width column's data by what it used in the last one.
 *
 *   const b = new BatchBuilder(fields, (c) => c + 1, 65536);
 *   b.cols[0]!.writeValue(b.length, 42); b.length++;
 *   const batch = b.finish();   // { length: 1, columns: [...], selection: null }
 */
import type { Batch, Column, Field } from '../types/index.js';
import { ColumnBuffer } from './csv/columns.js';

export class BatchBuilder {
  cols: ColumnBuffer[] = [];
  /** Rows written so far. */
  length = 0;
  private readonly dataHints: number[];

  constructor(
    private readonly fields: readonly Field[],
    /** 1-based input position of each table column, 0 when the input lacks it. */
    private readonly inputPos: (column: number) => number,
    private readonly rows: number,
  ) {
    this.dataHints = fields.map(() => 16 * rows);
    this.reset();
  }

  private reset(): void {
    this.cols = this.fields.map((f, c) => new ColumnBuffer(f, c, this.inputPos(c), this.rows, this.dataHints[c]!));
    this.length = 0;
  }

  finish(): Batch {
    const n = this.length;
    const columns: Column[] = this.cols.map((col, c) => {
      if (col.phys === 'var') this.dataHints[c] = Math.ceil(col.dataLen * 1.1) + 64;
      return col.finishAt(n);
    });
    this.reset();
    return { length: n, columns, selection: null };
  }
}

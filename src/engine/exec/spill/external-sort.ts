/**
 * External merge sort (PostgreSQL's tuplesort.c, "external sort"): rows come in batches and are
 * kept while their estimated size stays under work_mem; past it the rows kept are sorted and
 * written out as one sorted run file (./run-file.ts), and the buffer starts again. At the end,
 * with no run written, the rows are sorted in memory (../sort.ts); otherwise the last rows
 * become a run too and the runs are merged, SPILL_MERGE_FANIN at a time (one chunk of each run
 * in memory), into runs of runs until one merge gives the output. Stable: a run holds earlier
 * rows than the runs after it, and ties go to the earlier run.
 */
import type { Value } from '../../../types/index.js';
import { chargeMemory, tick, yieldIfDue, yieldNow } from '../../context.js';
import { compareRows, mergeSort, type SortKey } from '../sort.js';
import { type RunReader, RunWriter } from './run-file.js';

/** Runs merged at once: each holds one chunk (256 kB) in memory while merging. */
export const SPILL_MERGE_FANIN = 64;

/** Estimated bytes a row keeps in memory: the array and its values (strings by length). */
export function rowBytes(row: readonly Value[]): number {
  let n = 32 + 8 * row.length;
  for (const v of row)
    if (typeof v === 'string') n += 24 + v.length;
    else if (typeof v === 'bigint') n += 24;
    else if (v instanceof Uint8Array) n += 64 + v.byteLength;
  return n;
}

export class ExternalSort {
  private rows: Value[][] = [];
  private bytes = 0;
  private readonly runs: RunReader[] = [];
  private width = -1;

  constructor(
    private readonly keys: readonly SortKey[],
    private readonly workMem: number,
  ) {}

  /** Whether rows went to disk. */
  get spilled(): boolean {
    return this.runs.length > 0;
  }

  async add(row: Value[]): Promise<void> {
    if (this.width < 0) this.width = row.length;
    this.rows.push(row);
    const b = rowBytes(row);
    this.bytes += b;
    chargeMemory(b, 'TupleSort main');
    if (this.bytes > this.workMem && this.rows.length > 1) await this.spill();
  }

  /** Sorts the rows kept into a run file and lets them go. */
  private async spill(): Promise<void> {
    const rows = this.rows;
    this.rows = [];
    await mergeSort(rows, (a, b) => compareRows(this.keys, a, b));
    const w = await RunWriter.create('sort', this.width);
    for (let i = 0; i < rows.length; i++) {
      const flushed = w.write(rows[i]!);
      if (flushed !== undefined) await flushed;
      else if ((i & 4095) === 0 && tick()) await yieldNow();
    }
    this.runs.push(await w.finish());
    chargeMemory(-this.bytes, 'TupleSort main');
    this.bytes = 0;
  }

  /** All rows in order, appended to `out` (the caller's result: it is kept anyway). */
  async sorted(out: Value[][]): Promise<void> {
    if (this.runs.length === 0) {
      const rows = this.rows;
      this.rows = [];
      await mergeSort(rows, (a, b) => compareRows(this.keys, a, b));
      for (let i = 0; i < rows.length; i++) out.push(rows[i]!);
      chargeMemory(-this.bytes, 'TupleSort main');
      this.bytes = 0;
      return;
    }
    if (this.rows.length > 0) await this.spill();
    let runs = this.runs.splice(0);
    try {
      while (runs.length > SPILL_MERGE_FANIN) {
        const next: RunReader[] = [];
        for (let i = 0; i < runs.length; i += SPILL_MERGE_FANIN) {
          const w = await RunWriter.create('sort', this.width);
          await this.merge(runs.slice(i, i + SPILL_MERGE_FANIN), async (r) => {
            const flushed = w.write(r);
            if (flushed !== undefined) await flushed;
          });
          next.push(await w.finish());
        }
        runs = next;
      }
      await this.merge(runs, (r) => {
        out.push(r);
      });
    } finally {
      for (const r of runs) await r.close();
    }
  }

  /** Merges `runs` into `emit`, in order; ties go to the earlier run. */
  private async merge(runs: readonly RunReader[], emit: (row: Value[]) => Promise<void> | void): Promise<void> {
    const chunks: (Value[][] | null)[] = [];
    const pos: number[] = [];
    for (const r of runs) {
      chunks.push(await r.next());
      pos.push(0);
    }
    // A binary min-heap of run numbers by their head rows (ties: the earlier run).
    const less = (x: number, y: number) => {
      const c = compareRows(this.keys, chunks[x]![pos[x]!]!, chunks[y]![pos[y]!]!);
      return c < 0 || (c === 0 && x < y);
    };
    const heap: number[] = [];
    for (let k = 0; k < runs.length; k++) if (chunks[k] !== null) heap.push(k);
    for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(heap, i, less);
    let n = 0;
    while (heap.length > 0) {
      const k = heap[0]!;
      const flushed = emit(chunks[k]![pos[k]!]!);
      if (flushed !== undefined) await flushed;
      if (++pos[k]! >= chunks[k]!.length) {
        chunks[k] = await runs[k]!.next();
        pos[k] = 0;
      }
      if (chunks[k] === null) {
        heap[0] = heap[heap.length - 1]!;
        heap.pop();
      }
      if (heap.length > 0) siftDown(heap, 0, less);
      if ((++n & 4095) === 0) await yieldIfDue();
    }
  }
}

function siftDown(h: number[], i: number, less: (x: number, y: number) => boolean): void {
  const n = h.length;
  const x = h[i]!;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= n) break;
    const r = l + 1;
    const c = r < n && less(h[r]!, h[l]!) ? r : l;
    if (!less(h[c]!, x)) break;
    h[i] = h[c]!;
    i = c;
  }
  h[i] = x;
}

/**
 * The partition files of a spilling hash aggregate (../hash-aggregate.ts): SPILL_FANOUT run
 * files, a row's chosen by the hash of its group key with a seed per recursion level, so that a
 * partition that spills again splits its keys differently (PostgreSQL's hash_agg_spill: a
 * different slice of the hash bits per level). A file is created for the first row sent to it.
 */
import type { Value } from '../../../types/index.js';
import { type RunReader, RunWriter } from './run-file.js';

/** Partitions per spill: a partition is read back one at a time, so each holds ~1/32 of the rest. */
export const SPILL_FANOUT = 32;

export class SpillPartitions {
  private readonly writers: (RunWriter | null)[] = new Array<RunWriter | null>(SPILL_FANOUT).fill(null);
  private readonly seed: number;

  constructor(
    private readonly width: number,
    level: number,
  ) {
    this.seed = (0x9e3779b9 * (level + 1)) >>> 0;
  }

  /** Writes rows `idx` of `cols` (evaluated input columns), whose group keys are `keys`. */
  async write(cols: readonly Value[][], idx: readonly number[], keys: readonly string[]): Promise<void> {
    const row = new Array<Value>(this.width);
    for (let n = 0; n < idx.length; n++) {
      const i = idx[n]!;
      const p = hashString(keys[n]!, this.seed) % SPILL_FANOUT;
      const w = this.writers[p] ?? (this.writers[p] = await RunWriter.create('hashagg', this.width));
      for (let k = 0; k < this.width; k++) row[k] = cols[k]![i]!;
      const flushed = w.write(row);
      if (flushed !== undefined) await flushed;
    }
  }

  /** Closes the files; the partitions that received rows, to be read back one by one. */
  async finish(): Promise<RunReader[]> {
    const out: RunReader[] = [];
    for (const w of this.writers) if (w !== null) out.push(await w.finish());
    return out;
  }
}

/** FNV-1a over UTF-16 units, mixed with `seed` (murmur3's finalizer), unsigned 32 bits. */
export function hashString(s: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

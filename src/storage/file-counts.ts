/**
 * A data file's group count, live rows and empty groups, without building its groups.
 *
 * count(*) without a predicate needs nothing else (issue #20: a cold open and count(*) at
 * 100,000 groups in under 300 ms). A checkpoint (./checkpoint.ts) decodes a file's groups only
 * when something first reads `file.groups`; it registers each file's counts here, computed
 * from its typed `live` column, so count(*) on a freshly opened table builds no object per
 * group. A file entry is never changed once in a state (a commit that changes a group makes a
 * new entry, ./delta.ts), so counts are kept per entry; entries not from a checkpoint are
 * counted from their groups once.
 */
import type { DataFileJson } from './snapshot-types.js';

export interface FileCounts {
  /** Row groups in the file (or ao_column stripe). */
  readonly groups: number;
  /** Live rows: rows minus deleted, summed over the groups. */
  readonly live: number;
  /** Groups with no live row. */
  readonly empty: number;
}

const COUNTS = new WeakMap<DataFileJson, FileCounts>();

export function fileCounts(file: DataFileJson): FileCounts {
  let c = COUNTS.get(file);
  if (c === undefined) {
    let live = 0;
    let empty = 0;
    for (const g of file.groups) {
      if (g.live === 0) empty++;
      else live += g.live;
    }
    c = { groups: file.groups.length, live, empty };
    COUNTS.set(file, c);
  }
  return c;
}

/** What a decoder that knows the counts without the groups tells fileCounts. */
export function rememberFileCounts(file: DataFileJson, counts: FileCounts): void {
  COUNTS.set(file, counts);
}

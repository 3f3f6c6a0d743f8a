/**
 * The hash join as the executor runs it (../rel.ts): in memory (./hash-join.ts) while the build
 * side fits in the work memory, a grace hash join past it (PostgreSQL's multi-batch hash join,
 * src/backend/executor/nodeHash.c, in its simplest form):
 *
 *   1. build   rows go to the in-memory table until it needs more than the work memory; then
 *              the rows so far and every later build row go to one of SPILL_FANOUT partition
 *              files (../spill/run-file.ts, in the statement's temporary folder), chosen by
 *              the hash of the row's keys (./key-hash.ts) mixed with a seed per level.
 *   2. probe   each probe row goes to the partition file its keys hash to. A row that cannot
 *              match (a NULL key, or a partition without build rows) is dropped when the join
 *              keeps no unmatched probe rows, else it goes to partition 0, where the
 *              in-memory join pads it (outer) or keeps it (anti) as it would have.
 *   3. join    partition by partition: its build file into a fresh in-memory table, its probe
 *              file through it, then its unmatched build rows (RIGHT/FULL by execution side).
 *              A partition whose build side still does not fit spills again one level down,
 *              its rows split by other hash bits; past MAX_LEVEL (all rows one key) the
 *              statement fails with 53200, as it does for a join without keys (a nested loop).
 *
 * Equal keys hash alike on both sides, so every matching pair meets in one partition; each
 * probe row is in exactly one partition, so semi- and anti-joins stay exact. Build rows with a
 * NULL key go to partition 0 when the join keeps unmatched build rows (they never match).
 * The files go when read, and with the statement's folder in any case (../spill/temp-files.ts).
 */
import type { Value } from '../../../types/index.js';
import type { RowBatch } from '../batch.js';
import { type RunReader, RunWriter } from '../spill/run-file.js';
import { SPILL_FANOUT } from '../spill/aggregate-partitions.js';
import { HashJoin, type HashJoinSpec } from './hash-join.js';
import { hasNullKey, mix } from './key-hash.js';

/** Levels of repartitioning before a build side that does not split counts as too big. */
const MAX_LEVEL = 4;

const EMPTY: Value[] = [];

/** What the executor learns of a join's build side (EXPLAIN ANALYZE). */
export interface JoinBuildInfo {
  rows: number;
  /** Partition files written (0: the join ran in memory). */
  partitions: number;
}

/**
 * The output batches of the join of `build` and `probe` under `spec`; `info` receives the
 * build side's rows once they are in (the probe side is not read when no row can come out).
 */
export async function* hashJoin(
  spec: HashJoinSpec,
  build: AsyncIterable<RowBatch>,
  probe: AsyncIterable<RowBatch>,
  info?: JoinBuildInfo,
  level = 0,
): AsyncGenerator<RowBatch> {
  const hj = new HashJoin(spec);
  let parts: Partitions | null = null;
  let rows = 0;
  for await (const b of build) {
    rows += b.rows;
    if (parts !== null) {
      await parts.add(hj, b, 'build');
      continue;
    }
    hj.addBuild(b);
    if (!hj.exceeded) continue;
    if (spec.buildKeys.length === 0 || level >= MAX_LEVEL) throw hj.tooBig();
    parts = new Partitions(spec, level);
    await parts.spillTable(hj);
  }
  if (info !== undefined) info.rows += level === 0 ? rows : 0;
  const keepProbe = spec.preserveProbe || spec.anti === true;
  if (parts === null) {
    await hj.finishBuild();
    // An inner join with an empty build side has no output: the probe side is not read.
    if (hj.buildRows === 0 && !keepProbe) return;
    for await (const pb of probe) yield* hj.probe(pb);
    yield* hj.unmatched();
    return;
  }
  const built = await parts.finish('build');
  if (info !== undefined) info.partitions += built.filter((r) => r !== null).length;
  parts.built = built.map((r) => r !== null);
  for await (const pb of probe) await parts.add(hj, pb, 'probe');
  const probed = await parts.finish('probe');
  for (let p = 0; p < SPILL_FANOUT; p++) {
    const b = built[p] ?? null;
    const q = probed[p] ?? null;
    if (q === null && (b === null || !spec.preserveBuild)) {
      await b?.close();
      continue;
    }
    yield* hashJoin(spec, batches(b, spec.buildSlots, spec.width), batches(q, spec.probeSlots, spec.width), info, level + 1);
  }
}

/** The rows of a partition file as wide batches (none for a missing file). */
async function* batches(r: RunReader | null, slots: readonly number[], width: number): AsyncGenerator<RowBatch> {
  if (r === null) return;
  try {
    for (let rows = await r.next(); rows !== null; rows = await r.next()) {
      const cols: Value[][] = new Array<Value[]>(width).fill(EMPTY);
      for (let k = 0; k < slots.length; k++) {
        const col = new Array<Value>(rows.length);
        for (let i = 0; i < rows.length; i++) col[i] = rows[i]![k]!;
        cols[slots[k]!] = col;
      }
      yield { rows: rows.length, cols };
    }
  } finally {
    await r.close();
  }
}

/** The SPILL_FANOUT partition files of each side of one level. */
class Partitions {
  private readonly seed: number;
  private writers: (RunWriter | null)[] = new Array<RunWriter | null>(SPILL_FANOUT).fill(null);
  /** After the build side: the partitions that have build rows. */
  built: boolean[] = [];

  constructor(
    private readonly spec: HashJoinSpec,
    level: number,
  ) {
    this.seed = Math.imul(0x9e3779b9, level + 1);
  }

  /** Moves the in-memory table's rows to the build partitions and empties it. */
  async spillTable(hj: HashJoin): Promise<void> {
    for (const b of hj.drain()) await this.add(hj, b, 'build');
  }

  /** Sends the rows of a build or probe batch to their partitions (see the header). */
  async add(hj: HashJoin, b: RowBatch, side: 'build' | 'probe'): Promise<void> {
    if (b.rows === 0) return;
    const s = this.spec;
    const slots = side === 'build' ? s.buildSlots : s.probeSlots;
    const keepUnmatched = side === 'build' ? s.preserveBuild : s.preserveProbe || s.anti === true;
    const { keys, hashes } = hj.keysOf(b, side);
    const row = new Array<Value>(slots.length);
    for (let i = 0; i < b.rows; i++) {
      let p = hasNullKey(keys, i) ? -1 : (mix(hashes[i]! ^ this.seed) >>> 0) % SPILL_FANOUT;
      if (p >= 0 && side === 'probe' && !this.built[p]) p = -1;
      if (p < 0) {
        if (!keepUnmatched) continue;
        p = 0;
      }
      for (let k = 0; k < slots.length; k++) row[k] = b.cols[slots[k]!]![i]!;
      const w = this.writers[p] ?? (this.writers[p] = await RunWriter.create('hashjoin', slots.length));
      const flushed = w.write(row);
      if (flushed !== undefined) await flushed;
    }
  }

  /** Closes one side's files: per partition its reader, or null when no row went there. */
  async finish(_side: 'build' | 'probe'): Promise<(RunReader | null)[]> {
    const out: (RunReader | null)[] = [];
    for (const w of this.writers) out.push(w === null ? null : await w.finish());
    this.writers = new Array<RunWriter | null>(SPILL_FANOUT).fill(null);
    return out;
  }
}

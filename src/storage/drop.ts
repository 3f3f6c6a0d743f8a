/**
 * DROP TABLE in the storage layer: a commit like any other, through the commit loop
 * (./catalog.ts), of a *tombstone* — snapshot N+1 with operation 'drop', no files, no
 * ingested window (docs/FORMAT.md "Dropping and re-creating").
 *
 * - Atomic: the tombstone is one exclusive create. A writer that commits first is dropped
 *   with the table; one that loses the race reloads, finds the tombstone and fails with
 *   42P01, as does every later reader and writer of the name.
 * - Readers that pinned an older snapshot keep reading it: nothing is deleted here. The data
 *   files go when `paxd vacuum` runs on the dropped table after its grace period.
 * - Names are never reused: the tombstone keeps its number, a re-create commits above it
 *   (catalog.ts `createTable`), and the segment numbers of an ao_column table stay reserved
 *   (below).
 *
 *   const tomb = await dropTable(store, 'events');   // tomb.operation === 'drop'
 *   await latestSnapshot(store, 'events');           // throws 42P01
 */
import { parseClaimPath, CLAIMS_DIR, tryClaim } from './claim.js';
import { checkTableName, commitTables, type CommitOptions, type TableWrite } from './catalog.js';
import type { SnapshotJson } from './snapshot-types.js';
import type { ObjectStore } from './store.js';

/** Commits the tombstone of `table` and returns it; 42P01 when the table does not exist. */
export async function dropTable(store: ObjectStore, table: string, opts: CommitOptions = {}): Promise<SnapshotJson> {
  checkTableName(table);
  const [tomb] = await commitTables(store, [tombstoneWrite(store, table, opts.incarnation)], opts);
  return tomb!;
}

/**
 * The drop of `table` as one table's part of a commit (catalog.ts commitTables): a
 * transaction's DROP TABLE commits with its other changes, in the same root.
 */
export function tombstoneWrite(store: ObjectStore, table: string, incarnation?: number): TableWrite {
  let reserved = 0;
  const build = async (base: SnapshotJson): Promise<SnapshotJson> => {
    if (base.layout === 'ao_column' && reserved <= highestSegno(base)) reserved = await reserveSegno(store, table, base);
    const tomb: SnapshotJson = { ...base, operation: 'drop', files: [], summary: { command: 'drop' } };
    delete tomb.ingested;
    if (base.layout === 'ao_column') tomb.ao = { segments: [] };
    else delete tomb.ao;
    return tomb;
  };
  return incarnation === undefined ? { table, kind: 'drop', build } : { table, kind: 'drop', build, incarnation };
}

function highestSegno(s: SnapshotJson): number {
  let n = 0;
  for (const seg of s.ao?.segments ?? []) n = Math.max(n, seg.segno);
  return n;
}

/**
 * An ao_column table's segment files are named by set number (`ao/<fieldId>/<segno>.seg`),
 * and an appender numbers a new set one above every number in the snapshot or claimed
 * (src/aocolumn/appender.ts). A re-created table's snapshot has no sets, so without this it
 * would start again at 1 — over the dropped table's files, which readers that pinned it (and
 * vacuum's grace period) still keep. So the drop claims the next free number and never
 * releases it: the claim stays as a floor (vacuum removes only claims their set's generation
 * has passed, and no snapshot ever has this set), and every later set is numbered above it.
 */
async function reserveSegno(store: ObjectStore, table: string, base: SnapshotJson): Promise<number> {
  let segno = highestSegno(base);
  for (const o of await store.list(`${table}/${CLAIMS_DIR}/`)) segno = Math.max(segno, parseClaimPath(o.path)?.segno ?? 0);
  for (;;) {
    segno++;
    if ((await tryClaim(store, table, segno, 0)) !== null) return segno;
  }
}

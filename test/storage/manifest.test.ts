/**
 * Checkpoints in parts (src/storage/manifest.ts, docs/FORMAT.md "Table metadata v2"): a
 * checkpoint names the unchanged manifests of the one before it again and writes only the files
 * added since; small manifests merge in tiers, so over many checkpoints each file entry is
 * rewritten a bounded number of times and the number of manifests an open reads stays small.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commit, createTable, latestSnapshot } from '../../src/storage/catalog.js';
import { LocalStore } from '../../src/storage/local.js';
import { decodeManifestList, MANIFEST_FANOUT, MANIFEST_MAX_GROUPS, type ManifestUse, planManifests } from '../../src/storage/manifest.js';
import type { DataFileJson } from '../../src/storage/snapshot-types.js';
import { checkpointPath } from '../../src/storage/table-state.js';
import { vacuum } from '../../src/storage/vacuum.js';
import { tempDir } from '../support/tmp.js';
import { dataFile, sampleSnapshot } from './helpers.js';

const HOUR = 3_600_000;

async function manifestsOfCheckpoint(store: LocalStore, id: number): Promise<string[]> {
  return decodeManifestList(await store.read(checkpointPath('t', id)), checkpointPath('t', id), 't', id).manifests.map((m) => m.path);
}

test('a checkpoint names the manifests of the one before it again when their files are unchanged, and rewrites one whose file a delete changed', async () => {
  const store = new LocalStore(tempDir());
  await createTable(store, sampleSnapshot('t'));
  await commit(store, 't', (b) => ({ ...b, operation: 'append', files: [...b.files, dataFile('data/a.pax')] }));
  await vacuum(store, 't', { graceMs: HOUR }); // checkpoint 2
  const two = await manifestsOfCheckpoint(store, 2);
  assert.is(two.length, 1);
  await commit(store, 't', (b) => ({ ...b, operation: 'append', files: [...b.files, dataFile('data/b.pax')] }));
  await vacuum(store, 't', { graceMs: HOUR }); // checkpoint 3: a's manifest again, b's new
  const three = await manifestsOfCheckpoint(store, 3);
  assert.is(three.length, 2);
  assert.is(three[0], two[0], "file a's manifest is named again, not rewritten");
  assert.is.not(three[1], two[0]);
  // A delete in a: its manifest is rewritten; b's is named again.
  await commit(store, 't', (b) => ({ ...b, operation: 'delete', files: b.files.map((f) => (f.path === 'data/a.pax' ? { ...f, groups: [{ ...f.groups[0]!, live: 9, deleted: [3] }] } : f)) }));
  await vacuum(store, 't', { graceMs: HOUR });
  const four = await manifestsOfCheckpoint(store, 4);
  assert.is(four.length, 2);
  assert.ok(!two.includes(four[0]!) && !three.includes(four[0]!), "the changed file's manifest is new");
  assert.is(four[1], three[1]);
  // A new process reads the same state from it.
  const other = new LocalStore(store.root);
  const s = await latestSnapshot(other, 't');
  assert.equal(s.files.map((f) => [f.path, f.groups[0]!.live, f.groups[0]!.deleted ?? []]), [['data/a.pax', 9, [3]], ['data/b.pax', 10, []]]);
  await other.close();
  await store.close();
});

test('tiers: checkpoints of 10,000 one-file appends, 64 at a time, rewrite each entry a bounded number of times and keep few manifests', () => {
  let files: DataFileJson[] = [];
  let prev: ManifestUse[] = [];
  let written = 0;
  let most = 0;
  let refs = 0;
  for (let n = 0; n < 10_000; n++) {
    files = [...files, dataFile(`data/${n}.pax`)];
    if ((n + 1) % 64 !== 0) continue;
    const plan = planManifests(files, prev);
    // The plan keeps every file once, in order.
    assert.equal(plan.flatMap((m) => m.files), files);
    prev = plan.map((m) => {
      if (m.ref !== null) return { ref: m.ref, files: m.files };
      written += m.files.length;
      return { ref: { path: `m${refs++}`, files: m.files.length, groups: m.files.length, bytes: 0, crc: 0 }, files: m.files };
    });
    most = Math.max(most, prev.length);
  }
  // Each entry is written once new and once per tier it is merged up: log4(4096) = 6 tiers.
  const tiers = Math.ceil(Math.log(MANIFEST_MAX_GROUPS) / Math.log(MANIFEST_FANOUT));
  assert.ok(written <= files.length * (tiers + 1), `${written} entries written for ${files.length} files`);
  // At most FANOUT - 1 per class below the cap, plus the full ones.
  assert.ok(most <= (MANIFEST_FANOUT - 1) * (tiers + 1) + Math.ceil(files.length / (MANIFEST_MAX_GROUPS / MANIFEST_FANOUT)), `${most} manifests`);
  assert.ok(written < files.length * 4, `about ${(written / files.length).toFixed(1)} writes per entry`);
});

test.run();

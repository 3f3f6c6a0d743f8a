/**
 * Table metadata v2 (docs/FORMAT.md "Table metadata v2"): deltas, checkpoints and the hint.
 *
 * - A chain of commits reads back, in a fresh process, as the states the commits returned; a
 *   warm process reads one new delta per commit; checkpoints round-trip exactly.
 * - The sweep: the newest delta and the checkpoint's two kinds of file (its manifest list and
 *   a manifest) are cut at every length and have a bit flipped at every byte. A damaged delta is XX001 naming it (never the previous state: that
 *   would bring back rows deleted since). A damaged checkpoint is never trusted: the state is
 *   built from the deltas below it, exactly the same, or, when vacuum has removed those, XX001.
 *   None gives a wrong answer.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commit, createTable, latestSnapshot, latestSnapshotInfo } from '../../src/storage/catalog.js';
import { decodeCheckpoint, encodeCheckpoint } from '../../src/storage/checkpoint.js';
import { encodeFrameBytes } from '../../src/storage/frame.js';
import { LocalStore } from '../../src/storage/local.js';
import { snapshotPath, snapshotShapeProblem } from '../../src/storage/snapshot.js';
import type { SnapshotJson } from '../../src/storage/snapshot-types.js';
import { checkpointPath, HINT_FRAME, hintPath, loadState, verifyState, writeCheckpoint } from '../../src/storage/table-state.js';
import { decodeManifestList } from '../../src/storage/manifest.js';
import { writeHint } from '../../src/storage/hint.js';
import { vacuum } from '../../src/storage/vacuum.js';
import { ForwardingStore } from '../../src/storage/forwarding.js';
import { PaxdError } from '../../src/types/errors.js';
import { tempDir } from '../support/tmp.js';
import { dataFile, rejection, sampleSnapshot } from './helpers.js';

const HOUR = 3_600_000;

/** Counts whole-object reads, by path. */
class ReadCounter extends ForwardingStore {
  reads: string[] = [];
  override read(path: string, offset?: number, length?: number): Promise<Uint8Array> {
    this.reads.push(path);
    return this.inner.read(path, offset, length);
  }
}

/** A table with statistics of every StatJson kind, deletes, ingested identities and an ao-like block directory. */
async function build(root: string): Promise<SnapshotJson[]> {
  const store = new LocalStore(root);
  const states: SnapshotJson[] = [];
  states.push(await createTable(store, { ...sampleSnapshot('t'), ingested: [{ name: 'a.csv', size: 1, hash: 'sha256:aa' }] }));
  states.push(await commit(store, 't', (b) => ({ ...b, operation: 'append', files: [...b.files, dataFile('data/1.pax')] })));
  states.push(
    await commit(store, 't', (b) => ({
      ...b,
      operation: 'append',
      files: [
        ...b.files,
        {
          ...dataFile('data/2.pax'),
          groups: [
            {
              rows: 4,
              live: 3,
              deleted: [2],
              columns: {
                '1': { rows: 3, nulls: 1, nans: 0, min: -0.5, max: 'Infinity', minExact: false, sum: 1.25 },
                '7': { rows: 3, nulls: 0, min: true, max: false, maxExact: true },
              },
            },
            { rows: 9, live: 9, deletesPath: 'deletes/x.dv', columns: {}, blocks: { '1': { seg: 2, offset: 2 ** 40, length: 77 } } },
          ],
        },
      ],
      ingested: [...(b.ingested ?? []), { name: 'b.csv', size: 2, hash: 'sha256:bb' }],
    })),
  );
  // Checkpoint 3 (vacuum gives the newest state one; the long grace keeps every file).
  await vacuum(store, 't', { graceMs: HOUR });
  states.push(
    await commit(store, 't', (b) => ({
      ...b,
      operation: 'delete',
      files: b.files.map((f) => (f.path === 'data/1.pax' ? { ...f, groups: [{ ...f.groups[0]!, live: 9, deleted: [0] }] } : f)),
    })),
  );
  await store.close();
  return states;
}

test('a chain of deltas reads back exactly, cold and warm; a warm process reads one small file per commit', async () => {
  const root = tempDir();
  const states = await build(root);
  const fresh = new LocalStore(root);
  for (const s of states) assert.equal((await loadState(fresh, 't', s.id)).snapshot, s, `state ${s.id}`);
  await fresh.close();

  const counted = new ReadCounter(new LocalStore(root));
  assert.equal(await latestSnapshot(counted, 't'), states[3]);
  // Delta 4 names checkpoint 3 as its base: the hint, the checkpoint (its manifest list and
  // one manifest) and delta 4 (and the root log), no other delta.
  const snaps = counted.reads.filter((p) => p.startsWith('t/'));
  assert.equal(snaps.sort(), [checkpointPath('t', 3), manifestsOf(root, 3)[0]!, snapshotPath('t', 4), hintPath('t')].sort());
  const writer = new LocalStore(root);
  const next = await commit(writer, 't', (b) => ({ ...b, operation: 'append', files: [...b.files, dataFile('data/5.pax')] }));
  counted.reads = [];
  assert.equal(await latestSnapshot(counted, 't'), next);
  assert.equal(
    counted.reads.filter((p) => p.startsWith('t/')),
    [snapshotPath('t', 5)],
  );
  await writer.close();
  await counted.close();
});

test('paxd check (verifyState) finds a checkpoint that holds another state than its deltas build', async () => {
  const root = tempDir();
  const states = await build(root);
  const store = new LocalStore(root);
  await verifyState(store, 't', 4);
  // A well-framed checkpoint of 4 holding state 3's files, named by the hint.
  await store.putIfAbsent(checkpointPath('t', 4), encodeCheckpoint({ ...states[3]!, files: states[2]!.files }));
  await writeHint(store, hintPath('t'), HINT_FRAME, 4);
  const e = await rejection(verifyState(store, 't', 4));
  assert.is(e.code, 'XX001');
  assert.is(e.file, checkpointPath('t', 4));
  await store.close();
});

test('checkpoints round-trip every kind of statistic, and a payload that is short or malformed under a valid crc is XX001', () => {
  const s: SnapshotJson = {
    ...sampleSnapshot('t'),
    files: [
      dataFile('data/1.pax'),
      {
        ...dataFile('data/2.pax'),
        groups: [
          {
            rows: 3,
            live: 2,
            deleted: [1],
            columns: { '1': { rows: 2, nulls: 0, nans: 1, min: '-0', max: 'NaN', maxExact: false, sum: '12345678901234567890' } },
            blocks: {},
          },
        ],
      },
    ],
  };
  const bytes = encodeCheckpoint(s);
  assert.equal(decodeCheckpoint(bytes, 'c', snapshotShapeProblem), s);
  const payload = bytes.subarray(20);
  for (let n = 0; n < payload.byteLength; n++) {
    let e: unknown = null;
    try {
      decodeCheckpoint(encodeFrameBytes({ noun: 'checkpoint', magic: bytes.subarray(0, 4) }, payload.subarray(0, n)), 'c', snapshotShapeProblem);
    } catch (x) {
      e = x;
    }
    assert.ok(e instanceof PaxdError && e.code === 'XX001', `payload cut at ${n}: ${String(e)}`);
  }
});

/** Every damaged copy of `file`: cut at each length, and one bit flipped at each byte. */
function* damaged(bytes: Uint8Array): Generator<{ what: string; bytes: Uint8Array }> {
  for (let n = 0; n < bytes.byteLength; n++) yield { what: `cut at ${n}`, bytes: bytes.subarray(0, n) };
  for (let i = 0; i < bytes.byteLength; i++) {
    const b = bytes.slice();
    b[i]! ^= 1 << (i % 8);
    yield { what: `bit ${i % 8} of byte ${i} flipped`, bytes: b };
  }
}

test('sweep: a damaged newest delta is XX001 naming it at every cut and bit flip, never the previous state', async () => {
  const root = tempDir();
  await build(root);
  const file = join(root, 't', '_snapshots', '00000000000000000004.snap');
  const good = new Uint8Array(readFileSync(file));
  let n = 0;
  for (const d of damaged(good)) {
    writeFileSync(file, d.bytes);
    const other = new LocalStore(root);
    const e = await rejection(latestSnapshotInfo(other, 't'));
    await other.close();
    assert.is(e.code, 'XX001', d.what);
    assert.is(e.file, snapshotPath('t', 4), d.what);
    n++;
  }
  assert.is(n, 2 * good.byteLength);
  writeFileSync(file, good);
});

/** Store paths of the manifests checkpoint `id` of table t wrote. */
function manifestsOf(root: string, id: number): string[] {
  const prefix = String(id).padStart(20, '0');
  return readdirSync(join(root, 't', '_snapshots'))
    .filter((n) => n.startsWith(`${prefix}-`) && n.endsWith('.mf'))
    .map((n) => `t/_snapshots/${n}`);
}

for (const part of ['manifest list', 'manifest'] as const)
  test(`sweep: a damaged checkpoint (its ${part}) falls back to the deltas below it (the same state) or, once they are vacuumed, is XX001`, async () => {
    const root = tempDir();
    const states = await build(root);
    const want = states[3]!;
    const manifests = manifestsOf(root, 3);
    assert.is(manifests.length, 1, 'checkpoint 3 wrote one manifest');
    const file = part === 'manifest' ? join(root, manifests[0]!) : join(root, 't', '_snapshots', '00000000000000000003.ckpt');
    const good = new Uint8Array(readFileSync(file));
    for (const d of damaged(good)) {
      writeFileSync(file, d.bytes);
      const other = new LocalStore(root);
      assert.equal(await latestSnapshot(other, 't'), want, d.what);
      await other.close();
    }
    // The deltas below the checkpoint removed, as vacuum removes them: now nothing else holds state 3.
    writeFileSync(file, good);
    const store = new LocalStore(root);
    for (const id of [1, 2, 3]) await store.delete(snapshotPath('t', id));
    assert.equal(await latestSnapshot(new LocalStore(root), 't'), want, 'the sound checkpoint alone is enough');
    for (const d of damaged(good)) {
      writeFileSync(file, d.bytes);
      const other = new LocalStore(root);
      let got: SnapshotJson | PaxdError;
      try {
        got = await latestSnapshot(other, 't');
      } catch (e) {
        got = e as PaxdError;
      }
      await other.close();
      // A bit flip the crc cannot see does not exist here (crc32 catches every single-bit error), so never a state.
      assert.ok(got instanceof PaxdError && got.code === 'XX001', `${d.what}: ${got instanceof PaxdError ? got.message : 'a state'}`);
    }
    await store.close();
  });

test('a checkpoint whose manifest is gone (a vacuum raced its writer) falls back to an older sound checkpoint further down, not XX001', async () => {
  const root = tempDir();
  const v = new LocalStore(root);
  await createTable(v, sampleSnapshot('t'));
  await commit(v, 't', (b) => ({ ...b, operation: 'append', files: [...b.files, dataFile('data/a.pax')] }));
  await vacuum(v, 't', { graceMs: HOUR }); // checkpoint 2
  await commit(v, 't', (b) => ({ ...b, operation: 'append', files: [...b.files, dataFile('data/b.pax')] }));
  // A writer that read state 3 from checkpoint 2 and delta 3 …
  const w = new LocalStore(root);
  assert.is((await loadState(w, 't', 3)).chain.base, 2);
  // … then a vacuum: checkpoint 3, and everything below it goes.
  await vacuum(v, 't', { graceMs: 0 });
  assert.ok(!existsSync(join(root, 't', '_snapshots', '00000000000000000002.snap')));
  // The writer commits on its state (base 2 in its delta) and checkpoints it; that checkpoint
  // then loses a manifest (as when the vacuum removed one it named).
  const four = await commit(w, 't', (b) => ({ ...b, operation: 'append', files: [...b.files, dataFile('data/c.pax')] }));
  await writeCheckpoint(w, await loadState(w, 't', 4));
  const named = decodeManifestList(readFileSync(join(root, checkpointPath('t', 4))), checkpointPath('t', 4), 't', 4).manifests.map((m) => m.path);
  const ownNew = named.filter((p) => p.startsWith('t/_snapshots/00000000000000000004-'));
  assert.ok(ownNew.length > 0);
  for (const p of ownNew) await v.delete(p);
  const other = new LocalStore(root);
  assert.equal(await latestSnapshot(other, 't'), four);
  await other.close();
  await w.close();
  await v.close();
});

test.run();

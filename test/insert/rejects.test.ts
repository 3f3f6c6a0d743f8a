/**
 * The rejects file keeps every rejected row, or the load fails (the trust issue: with a nearly
 * full disk, `paxd ingest --on-error skip --rejects F` exited 0 reporting 3,000 rejected rows
 * while F held 55 lines, the last cut mid-record).
 *
 * - A disk that fills up at any write or fsync of an ingest (store and rejects file on the
 *   same FaultFs, every write cut short too): either the load fails with 53100 and commits
 *   nothing, or rows read = loaded + rejected = complete lines in the rejects file.
 * - A real ENOSPC from the kernel: the rejects file is /dev/full.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/table/database.js';
import { ingestFiles } from '../../src/table/ingest.js';
import { FaultFs, type FaultCategory } from '../../src/storage/faulty.js';
import { LocalStore } from '../../src/storage/local.js';
import { PaxdError } from '../../src/types/errors.js';
import { parseColumns } from '../../src/types/parse-type.js';
import { runCli } from '../support/spawn.js';
import { tempDir } from '../support/tmp.js';

const BAD_EVERY = 4; // 3 of 4 rows rejected

/** `id,v` rows; three of every four have a bad v. */
function csvFile(dir: string, rows: number): { path: string; bad: number } {
  const lines: string[] = [];
  let bad = 0;
  for (let i = 0; i < rows; i++) {
    const ok = i % BAD_EVERY === 0;
    if (!ok) bad++;
    lines.push(`${i},${ok ? i : `${i}x-not-a-number-padding-${'p'.repeat(i % 50)}`}`);
  }
  const path = join(dir, 'in.csv');
  writeFileSync(path, lines.join('\n') + '\n');
  return { path, bad };
}

/** Every line complete NDJSON naming a line of the input; returns how many. */
function rejectLines(path: string): number {
  const text = readFileSync(path, 'utf8');
  if (text === '') return 0;
  assert.ok(text.endsWith('\n'), 'the rejects file ends mid-record');
  const lines = text.slice(0, -1).split('\n');
  for (const l of lines) {
    const j = JSON.parse(l) as { line: number; code: string };
    assert.is(j.code, '22P02', l);
  }
  return lines.length;
}

test('a disk filling up at any write or fsync of an ingest: rejects complete, or 53100 and nothing committed', async () => {
  const dir = tempDir();
  const rows = 600;
  const { path, bad } = csvFile(dir, rows);
  const data = join(dir, 'data');
  const setup = await Database.open(data);
  await setup.createTable('t', parseColumns('id int8 not null, v int8'));
  await setup.close();
  const rejects = join(dir, 'rejects.ndjson');
  for (const category of ['write', 'fsync', 'any'] as (FaultCategory | 'any')[]) {
    let failed = 0;
    for (let n = 1; ; n++) {
      // The disk stays full from the Nth operation on; every write before it is cut short.
      const fs = new FaultFs().shortWrites(2000).failNth(category, n, true, 'ENOSPC');
      const db = await Database.open(new LocalStore(data, { fs, writeBufferBytes: 1 << 14 }));
      try {
        const t = await db.table('t');
        const before = t.snapshot.id;
        try {
          const r = await ingestFiles(t, [path], { onError: 'skip', rejects, fs });
          assert.is(fs.injected, 0, `${category} #${n}: the load succeeded although a write failed`);
          assert.is(r.rowsRead, rows);
          assert.is(r.rowsRejected, bad);
          assert.is(r.rowsRead, r.rowsLoaded + r.rowsRejected);
          assert.is(rejectLines(rejects), r.rowsRejected, `${category}: lines in the rejects file`);
          // Back to the state before, for the next category.
          fs.disarm();
          await t.refresh();
          await t.delete({ kind: 'not', arg: { kind: 'isNull', column: 'id' } });
          break;
        } catch (e) {
          if (!(e instanceof PaxdError)) throw new Error(`${category} #${n}: ${(e as Error).stack}`);
          assert.is(e.code, '53100', `${category} #${n}: ${e.message}`);
          assert.match(e.message, 'No space left on device');
          failed++;
          const after = await Database.open(data);
          assert.is((await after.table('t')).snapshot.id, before, `${category} #${n}: a failed load committed`);
          await after.close();
        }
      } finally {
        await db.close();
      }
      assert.ok(n < 200, `${category}: still failing after ${n} faults`);
    }
    assert.ok(failed > (category === 'fsync' ? 1 : 10), `${category}: only ${failed} faults`);
  }
});

test('a real ENOSPC: rejects to /dev/full fail the load with 53100, in the library and the CLI', async () => {
  const dir = tempDir();
  const { path } = csvFile(dir, 4000);
  const data = join(dir, 'data');
  const db = await Database.open(data);
  const t = await db.createTable('t', parseColumns('id int8 not null, v int8'));
  const e = await ingestFiles(t, [path], { onError: 'skip', rejects: '/dev/full' }).then(
    () => null,
    (x: unknown) => x,
  );
  assert.instance(e, PaxdError);
  assert.is((e as PaxdError).code, '53100');
  assert.is((e as PaxdError).message, 'could not write to file "/dev/full": No space left on device');
  await t.refresh();
  assert.is(t.rows, 0);
  await db.close();

  const r = await runCli(['ingest', 't', path, '--data', data, '--on-error', 'skip', '--rejects', '/dev/full']);
  assert.is(r.code, 1, r.stderr);
  assert.is(r.stderr, 'paxd: ERROR:  53100: could not write to file "/dev/full": No space left on device\n');
  // /dev/null keeps nothing and needs no fsync: the load goes through.
  const ok = await runCli(['ingest', 't', path, '--data', data, '--on-error', 'skip', '--rejects', '/dev/null']);
  assert.is(ok.code, 0, ok.stderr);
  assert.match(ok.stderr, '3,000 of 4,000 rows rejected');
});

test.run();

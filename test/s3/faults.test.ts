/**
 * Fault injection (README.md "Tables in S3"): 20% of the requests to s3rver fail through the
 * fault proxy (500, 503, dropped connections, lost answers, bodies cut short, slow answers
 * past the attempt timeout). Ingests either commit whole or fail with nothing visible; scans
 * return the right rows or a clear io error (58030) naming the object.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/table/database.js';
import { ingestFiles } from '../../src/table/ingest.js';
import { OUTCOME_UNKNOWN, S3Store } from '../../src/storage/s3.js';
import type { RetryPolicy } from '../../src/storage/s3-retry.js';
import { getValue } from '../../src/types/builder.js';
import { PaxdError } from '../../src/types/errors.js';
import { readAll } from '../support/columns.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { testSeed } from '../support/random.js';
import { startS3, type S3Server } from '../support/s3.js';
import { tempDir } from '../support/tmp.js';

const ROWS = 2000;
const PATIENT: Partial<RetryPolicy> = { maxAttempts: 6, baseDelayMs: 2, maxDelayMs: 20, attemptTimeoutMs: 300 };
const IMPATIENT: Partial<RetryPolicy> = { maxAttempts: 2, baseDelayMs: 2, maxDelayMs: 20, attemptTimeoutMs: 300 };

let s3: S3Server;
let proxy: FaultProxy;
test.before(async () => {
  s3 = await startS3();
  proxy = await startFaultProxy(s3.endpoint, { rate: 0.2, seed: testSeed(), slowMs: 400 });
});
test.after(async () => {
  await proxy.close();
  await s3.close();
});

function faulty(prefix: string, retry: Partial<RetryPolicy>): S3Store {
  return new S3Store({ bucket: s3.bucket, prefix, clientConfig: { endpoint: proxy.endpoint }, retry, cacheBytes: 0 });
}

function batchCsv(batch: number): string {
  const lines = ['batch,seq,payload'];
  for (let i = 0; i < ROWS; i++) lines.push(`${batch},${i},${i % 9 === 0 ? '' : `payload ${batch}/${i}`}`);
  const path = join(tempDir(), `batch-${batch}.csv`);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

/** batch -> rows present; throws if a batch is partial or its seqs are not 0..ROWS-1. */
async function batchesPresent(db: Database, table: string): Promise<Set<number>> {
  const t = await db.table(table);
  const [b, s] = await readAll(t.scan({ columns: ['batch', 'seq'] }));
  const count = new Map<number, number>();
  const sum = new Map<number, number>();
  for (let i = 0; i < b!.length; i++) {
    const k = getValue(b!, i) as number;
    count.set(k, (count.get(k) ?? 0) + 1);
    sum.set(k, (sum.get(k) ?? 0) + (getValue(s!, i) as number));
  }
  for (const [k, n] of count) {
    assert.is(n, ROWS, `batch ${k}: ${n} rows, expected ${ROWS}`);
    assert.is(sum.get(k), (ROWS * (ROWS - 1)) / 2, `batch ${k}: seqs are not 0..${ROWS - 1}`);
  }
  return new Set(count.keys());
}

test('with 20% of requests failing, every ingest commits whole or fails with nothing visible', async () => {
  const clean = await Database.open(new S3Store({ bucket: s3.bucket, prefix: 'ingest' }));
  await clean.createTable('t', [
    { name: 'batch', type: 'int4', notNull: true },
    { name: 'seq', type: 'int4', notNull: true },
    { name: 'payload', type: 'text' },
  ]);
  const faults0 = proxy.counts.faults;
  const committed = new Set<number>();
  const failed = new Set<number>();
  const unknown = new Set<number>();
  const errors: string[] = [];
  for (let i = 0; i < 16; i++) {
    const db = await Database.open(faulty('ingest', i % 2 === 0 ? PATIENT : IMPATIENT));
    try {
      const t = await db.table('t');
      const r = await ingestFiles(t, [batchCsv(i)], { csv: { header: true } });
      assert.is(r.rowsLoaded, ROWS);
      committed.add(i);
    } catch (e) {
      assert.instance(e, PaxdError, `ingest ${i}: ${String(e)}`);
      const pe = e as PaxdError;
      assert.ok(pe.kind === 'io' || pe.kind === 'conflict', `ingest ${i}: kind ${pe.kind}: ${pe.message}`);
      assert.ok(pe.code === '58030' || pe.code === '40001', pe.code);
      failed.add(i);
      if (pe.detail === OUTCOME_UNKNOWN) unknown.add(i);
      errors.push(pe.message);
    } finally {
      await db.close();
    }
  }
  const present = await batchesPresent(clean, 't');
  for (const i of committed) assert.ok(present.has(i), `acknowledged ingest ${i} is missing`);
  for (const i of failed) assert.ok(!present.has(i) || unknown.has(i), `failed ingest ${i} is visible: ${errors.join(' | ')}`);
  assert.ok(committed.size >= 8, `${committed.size} of 16 ingests committed`);
  assert.ok(proxy.counts.faults - faults0 >= 20, `${proxy.counts.faults - faults0} faults injected`);
  assert.equal((await (await clean.table('t')).check()).problems, []);
  await clean.close();
});

test('scans through the faulty proxy return the right rows or a clear io error', async () => {
  const clean = await Database.open(new S3Store({ bucket: s3.bucket, prefix: 'scan' }));
  const t0 = await clean.createTable('t', [
    { name: 'batch', type: 'int4', notNull: true },
    { name: 'seq', type: 'int4', notNull: true },
    { name: 'payload', type: 'text' },
  ], { rowGroupRows: 1024, zoneRows: 1024 });
  for (let i = 0; i < 4; i++) await ingestFiles(t0, [batchCsv(i)], { csv: { header: true } });
  const expected = await batchesPresent(clean, 't');
  assert.equal([...expected].sort(), [0, 1, 2, 3]);

  let ok = 0;
  let failed = 0;
  for (let round = 0; round < 12; round++) {
    const patient = round % 3 !== 2;
    const db = await Database.open(faulty('scan', patient ? PATIENT : IMPATIENT));
    try {
      assert.equal(await batchesPresent(db, 't'), expected);
      ok++;
    } catch (e) {
      assert.instance(e, PaxdError, String(e));
      const pe = e as PaxdError;
      assert.is(pe.kind, 'io', pe.message);
      assert.is(pe.code, '58030');
      assert.ok(pe.file !== undefined && pe.message.includes(pe.file), pe.message);
      assert.not.ok(patient, `a patient reader failed: ${pe.message}`);
      failed++;
    } finally {
      await db.close();
    }
  }
  assert.ok(ok >= 8, `${ok} of 12 scans succeeded (${failed} failed)`);
  await clean.close();
});

test.run();

/**
 * The inbox on a full disk (the trust issue): a full disk is the store's fault, never the
 * file's. At every write of a load (data file, snapshot, rejects, the per-file rejects and
 * their folder fsyncs) the disk fills up and stays full: the file stays in the inbox (never
 * `.failed/`, never `.done/` without its rejects), no temporary file is left, and once space
 * returns the file loads with every rejected row in `.failed/<name>.rejects.ndjson`.
 *
 * The Inbox runs in process over a LocalStore whose filesystem is a FaultFs; the inbox's own
 * writes go through the same FaultFs (InboxOptions.fs), so one counter covers every write.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/table/database.js';
import { Inbox } from '../../src/daemon/inbox.js';
import { DaemonMetrics } from '../../src/daemon/metrics.js';
import { createLogger } from '../../src/daemon/index.js';
import { FaultFs, type FaultCategory } from '../../src/storage/faulty.js';
import { LocalStore } from '../../src/storage/local.js';
import { parseColumns } from '../../src/types/parse-type.js';
import { tempDir } from '../support/tmp.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Every file under `dir`, recursively, as paths relative to it. */
function walk(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]));
}

const GOOD = 300;
const BAD = 200;

/** `id,v` lines: GOOD good rows and BAD rows whose v is not a number, interleaved. */
function csv(): string {
  const lines = ['id,v'];
  for (let i = 0; i < GOOD + BAD; i++) lines.push(i % 5 < 3 ? `${i},${i}` : `${i},bad-${i}-${'x'.repeat(i % 40)}`);
  return lines.join('\n') + '\n';
}

interface Run {
  writes: number;
  injected: number;
}

/** One load of a.csv with the disk full from the Nth operation of `category` on (n = 0: never). */
async function run(category: FaultCategory | 'any', n: number): Promise<Run> {
  const root = tempDir();
  const data = join(root, 'data');
  const inbox = join(root, 'in');
  const setup = await Database.open(data);
  await setup.createTable('t', parseColumns('id int8 not null, v int8'));
  await setup.close();
  mkdirSync(join(inbox, 't'), { recursive: true });

  const fs = new FaultFs().shortWrites(1000);
  const logs: string[] = [];
  const db = await Database.open(new LocalStore(data, { fs, writeBufferBytes: 1 << 12 }));
  const ib = new Inbox(
    db,
    { dir: inbox, create: false, stableMs: 20, batchFiles: 16, batchBytes: 1 << 26, queueLimit: 100, onError: 'skip', csvHeader: true, retryMs: 20, fs },
    createLogger(process.env.DEBUG_INBOX ? 'info' : 'silent', { write: (l: string) => void logs.push(l) }),
    new DaemonMetrics(),
  );
  await ib.start();
  const dir = join(inbox, 't');
  const where = `${category} #${n}`;
  try {
    if (n > 0) fs.failNth(category, n, true, 'ENOSPC');
    writeFileSync(join(root, 'a.csv'), csv());
    renameSync(join(root, 'a.csv'), join(dir, 'a.csv'));
    if (n > 0) {
      // Full: wait for the fault and at least one retry that fails again.
      await until(() => fs.injected >= 2 || existsSync(join(dir, '.done', 'a.csv')), `${where}: the fault`);
      if (fs.injected > 0) {
        assert.ok(existsSync(join(dir, 'a.csv')), `${where}: a.csv left the inbox while the disk was full: ${walk(dir).join(' ')}`);
        assert.not.ok(existsSync(join(dir, '.failed', 'a.csv')), `${where}: a good file was blamed for a full disk`);
        assert.is((await db.table('t')).rows, 0, `${where}: rows committed while the load failed`);
        fs.disarm(); // space returns
      }
    }
    await until(() => existsSync(join(dir, '.done', 'a.csv')), `${where}: a.csv loaded once space returned`);
    await ib.stop();
    const t = await db.table('t');
    assert.is(t.rows, GOOD, `${where}: rows`);
    const rejects = readFileSync(join(dir, '.failed', 'a.csv.rejects.ndjson'), 'utf8');
    assert.ok(rejects.endsWith('\n'), `${where}: rejects cut mid-record`);
    const lines = rejects.slice(0, -1).split('\n').map((l) => JSON.parse(l) as { file: string; code: string });
    assert.is(lines.length, BAD, `${where}: rejected rows kept`);
    assert.ok(lines.every((l) => l.file === 'a.csv' && l.code === '22P02'), where);
    assert.equal(walk(dir).sort(), ['.done/a.csv', '.failed/a.csv.rejects.ndjson'], `${where}: files left in the inbox`);
    assert.equal(
      walk(data).filter((p) => p.includes('.tmp')),
      [],
      `${where}: temporary files left in the store`,
    );
    return { writes: fs.total, injected: fs.injected };
  } catch (e) {
    if (process.env.DEBUG_INBOX) console.log(logs.join('').slice(-6000), walk(root));
    throw e;
  } finally {
    await ib.stop();
    await db.close();
  }
}

test('a full disk at any write, fsync or folder fsync of an inbox load: the file waits, then loads with its rejects', async () => {
  const clean = await run('any', 0);
  assert.ok(clean.writes > 10, `only ${clean.writes} operations`);
  let faults = 0;
  for (const category of ['write', 'fsync', 'dirsync'] as const) {
    for (let n = 1; ; n++) {
      const r = await run(category, n);
      if (r.injected === 0) break;
      faults++;
      assert.ok(n < 100, `${category}: still failing after ${n} faults`);
    }
  }
  assert.ok(faults >= 10, `only ${faults} faults injected`);
});

test.run();

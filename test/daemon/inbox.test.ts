/**
 * The inbox in process, over real files (docs/DAEMON.md): temporary names left alone, tables
 * created from a first file, skip mode's rejects, a missing table, a file dropped twice,
 * batching of many small files into few commits, and backpressure with a tiny queue.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/table/database.js';
import { parseColumns } from '../../src/types/parse-type.js';
import { Daemon, createLogger, defaultConfig, type DaemonConfig, type FailedFileJson } from '../../src/daemon/index.js';
import { tempDir } from '../support/tmp.js';

const silent = createLogger('silent', { write: () => undefined });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function start(over: Partial<DaemonConfig> = {}, tables: string[] = ['t']): Promise<{ d: Daemon; inbox: string; data: string }> {
  const root = tempDir();
  const data = join(root, 'data');
  const inbox = join(root, 'in');
  const db = await Database.open(data);
  for (const t of tables) {
    await db.createTable(t, parseColumns('id int8 not null, v int8'));
    mkdirSync(join(inbox, t), { recursive: true });
  }
  await db.close();
  const config: DaemonConfig = {
    ...defaultConfig(),
    store: data,
    inbox,
    listen: 'off',
    http: 'off',
    inbox_stable_ms: 50,
    compact_interval_ms: 0,
    vacuum_interval_ms: 0,
    ...over,
  };
  return { d: await Daemon.start(config, { log: silent, out: () => undefined }), inbox, data };
}

async function until(cond: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const ls = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => !f.startsWith('.')).sort() : []);

function drop(dir: string, name: string, text: string): void {
  writeFileSync(join(dir, `.${name}.tmp`), text);
  renameSync(join(dir, `.${name}.tmp`), join(dir, name));
}

test('temporary names are left alone; a file dropped twice is loaded once', async () => {
  const { d, inbox } = await start();
  try {
    const dir = join(inbox, 't');
    for (const n of ['.hidden.csv', 'x.csv.tmp', 'x.csv.part', 'x.csv~', 'notes.md']) writeFileSync(join(dir, n), 'id,v\n1,1\n');
    drop(dir, 'a.csv', 'id,v\n1,10\n2,20\n');
    await until(() => ls(join(dir, '.done')).length === 1, 'a.csv');
    drop(dir, 'a.csv', 'id,v\n1,10\n2,20\n'); // the same file again
    await until(() => ls(join(dir, '.done')).length === 2, 'the second a.csv');
    assert.equal(ls(join(dir, '.done')), ['a.csv', 'a.csv.1']);
    const t = await d.db.table('t');
    assert.is(t.rows, 2, 'loaded once');
    assert.equal(t.snapshot.ingested?.map((f) => f.name), ['a.csv']);
    assert.match(t.snapshot.ingested![0]!.hash, /^sha256:[0-9a-f]{64}$/);
    assert.equal(readdirSync(dir).sort(), ['.done', '.hidden.csv', 'notes.md', 'x.csv.part', 'x.csv.tmp', 'x.csv~']);
    const m = await d.metrics.render();
    assert.match(m, 'paxd_inbox_files_duplicate_total{table="t"} 1');
  } finally {
    await d.stop();
  }
});

test('a missing table fails its files with 42P01; with inbox_create the first file creates it', async () => {
  let { d, inbox } = await start({}, []);
  try {
    mkdirSync(join(inbox, 'newt'), { recursive: true });
    drop(join(inbox, 'newt'), 'a.ndjson', '{"id":1,"name":"x"}\n');
    await until(() => ls(join(inbox, 'newt', '.failed')).length === 2, 'a.ndjson to fail');
    const err = JSON.parse(readFileSync(join(inbox, 'newt', '.failed', 'a.ndjson.error.json'), 'utf8')) as FailedFileJson;
    assert.is(err.sqlstate, '42P01');
  } finally {
    await d.stop();
  }
  ({ d, inbox } = await start({ inbox_create: true }, []));
  try {
    mkdirSync(join(inbox, 'made'), { recursive: true });
    drop(join(inbox, 'made'), 'a.ndjson', '{"id":1,"name":"x"}\n{"id":2,"name":"y"}\n');
    drop(join(inbox, 'made'), 'b.ndjson', '{"id":3,"name":"z"}\n');
    await until(() => ls(join(inbox, 'made', '.done')).length === 2, 'both files');
    const t = await d.db.table('made');
    assert.equal(t.fields.map((f) => f.name), ['id', 'name']);
    assert.is(t.rows, 3);
  } finally {
    await d.stop();
  }
});

test('on_error = skip: good rows committed, rejects beside the file in .failed', async () => {
  const { d, inbox } = await start({ on_error: 'skip' });
  try {
    const dir = join(inbox, 't');
    drop(dir, 'a.csv', 'id,v\n1,10\n2,zz\n3,30\n');
    await until(() => ls(join(dir, '.done')).length === 1, 'a.csv');
    assert.is((await d.db.table('t')).rows, 2);
    const rejects = readFileSync(join(dir, '.failed', 'a.csv.rejects.ndjson'), 'utf8').trim().split('\n');
    assert.is(rejects.length, 1);
    const r = JSON.parse(rejects[0]!) as { file: string; line: number; code: string };
    assert.equal([r.file, r.line, r.code], ['a.csv', 3, '22P02']);
  } finally {
    await d.stop();
  }
});

test('many small files: few commits; a tiny queue holds them back without losing any', async () => {
  const { d, inbox } = await start({ inbox_queue: 4, inbox_batch_files: 16 }, ['t', 'u']);
  try {
    const n = 120;
    for (let i = 0; i < n; i++) drop(join(inbox, i % 2 === 0 ? 't' : 'u'), `f${i}.csv`, `id,v\n${i},${i}\n`);
    await until(() => ls(join(inbox, 't', '.done')).length + ls(join(inbox, 'u', '.done')).length === n, 'every file', 60_000);
    let rows = 0;
    let commits = 0;
    for (const name of ['t', 'u']) {
      const t = await d.db.table(name);
      rows += t.rows;
      commits += t.snapshot.id - 1;
    }
    assert.is(rows, n);
    assert.ok(commits < n, `${commits} commits for ${n} files`);
  } finally {
    await d.stop();
  }
});

test.run();

/**
 * Shutdown as PostgreSQL has it (docs/DAEMON.md): a SIGTERM that arrives while the
 * daemon loads an inbox file and runs a statement lets both finish — the file is committed
 * and moved to .done, the statement answers — and the process exits 0. SIGINT cancels the
 * load and exits 0; a second signal ends the process at once; either way what it was loading
 * is loaded exactly once by the next start.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readdirSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { Database } from '../../src/table/database.js';
import { parseColumns } from '../../src/types/parse-type.js';
import { ingestFiles } from '../../src/table/ingest.js';
import { spawnTs } from '../support/spawn.js';
import { tempDir } from '../support/tmp.js';
import { Rng, testSeed } from '../support/random.js';
import { INBOX_COLUMNS, makeInboxFile } from './files.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function daemon(data: string, inbox: string): { child: ChildProcess; out: () => string; exited: Promise<number | null> } {
  const child = spawnTs('test/support/cli.ts', ['serve', '--data', data, '--inbox', inbox, '--listen', 'off', '--http', '127.0.0.1:0', '--auth', 'trust'], { PAXD_INBOX_STABLE_MS: '50' });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  return { child, out: () => out, exited };
}

async function waitFor(cond: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

async function setup(rows: number): Promise<{ data: string; inbox: string; big: ReturnType<typeof makeInboxFile>; preloaded: number }> {
  const rng = new Rng(testSeed());
  const root = tempDir();
  const data = join(root, 'data');
  const inbox = join(root, 'in');
  mkdirSync(join(inbox, 't'), { recursive: true });
  const db = await Database.open(data);
  const t = await db.createTable('t', parseColumns(INBOX_COLUMNS));
  const pre = makeInboxFile(rng, 1, { rows: 100_000, format: 'csv', bad: false });
  const prePath = join(root, pre.name);
  writeFileSync(prePath, pre.bytes);
  await ingestFiles(t, [prePath], { csv: { header: true } });
  await db.close();
  return { data, inbox, big: makeInboxFile(rng, 2, { rows, format: 'csv', bad: false }), preloaded: pre.rows };
}

test('SIGTERM during a load and a statement: both finish, exit 0', async () => {
  const { data, inbox, big, preloaded } = await setup(300_000);
  const d = daemon(data, inbox);
  try {
    await waitFor(() => d.out().includes('"inbox: watching"'), 60_000, 'the daemon to start');
    const port = Number(/http on 127\.0\.0\.1:(\d+)/.exec(d.out())![1]);
    const tmp = join(inbox, 't', `.${big.name}.tmp`);
    writeFileSync(tmp, big.bytes);
    renameSync(tmp, join(inbox, 't', big.name));
    await waitFor(() => d.out().includes('inbox: loading'), 30_000, 'the load to begin');
    const answer = fetch(`http://127.0.0.1:${port}/v1/sql`, {
      method: 'POST',
      headers: { Accept: 'application/json' },
      body: 'SELECT name, count(*), sum(v) FROM t GROUP BY name ORDER BY 2 DESC, 1 LIMIT 3',
    });
    await sleep(150);
    d.child.kill('SIGTERM');
    const r = await answer;
    assert.is(r.status, 200);
    const body = (await r.json()) as { rows: string[][] };
    assert.is(body.rows.length, 3);
    assert.is(await d.exited, 0, d.out());
    assert.ok(d.out().includes('inbox: loaded 1 file(s)'), 'the load finished');
  } finally {
    d.child.kill('SIGKILL');
  }
  assert.equal(readdirSync(join(inbox, 't', '.done')), [big.name]);
  const db = await Database.open(data);
  const t = await db.table('t');
  assert.is(t.rows, preloaded + big.rows);
  await db.close();
});

test('a second signal exits at once; the next start loads the file exactly once', async () => {
  const { data, inbox, big, preloaded } = await setup(300_000);
  let d = daemon(data, inbox);
  try {
    await waitFor(() => d.out().includes('"inbox: watching"'), 60_000, 'the daemon to start');
    writeFileSync(join(inbox, 't', big.name), big.bytes);
    await waitFor(() => d.out().includes('inbox: loading'), 30_000, 'the load to begin');
    d.child.kill('SIGTERM');
    await sleep(20);
    d.child.kill('SIGTERM');
    const code = await d.exited;
    // Exited at once (1), unless the load had already finished and it stopped cleanly (0).
    assert.ok(code === 1 || (code === 0 && d.out().includes('inbox: loaded')), `exit ${code}: ${d.out()}`);
  } finally {
    d.child.kill('SIGKILL');
  }
  d = daemon(data, inbox);
  try {
    await waitFor(() => existsSync(join(inbox, 't', '.done', big.name)), 60_000, 'the file to be loaded');
    d.child.kill('SIGTERM');
    assert.is(await d.exited, 0);
  } finally {
    d.child.kill('SIGKILL');
  }
  const db = await Database.open(data);
  assert.is((await db.table('t')).rows, preloaded + big.rows);
  await db.close();
});

test('SIGINT during a load cancels it and exits 0; the next start loads the file exactly once', async () => {
  const { data, inbox, big, preloaded } = await setup(300_000);
  let d = daemon(data, inbox);
  try {
    await waitFor(() => d.out().includes('"inbox: watching"'), 60_000, 'the daemon to start');
    writeFileSync(join(inbox, 't', big.name), big.bytes);
    await waitFor(() => d.out().includes('inbox: loading'), 30_000, 'the load to begin');
    d.child.kill('SIGINT');
    assert.is(await d.exited, 0, d.out());
    assert.match(d.out(), 'SIGINT: stopping (fast shutdown)');
    if (!d.out().includes('inbox: loaded')) assert.ok(existsSync(join(inbox, 't', big.name)), 'a cancelled load leaves its file in the inbox');
  } finally {
    d.child.kill('SIGKILL');
  }
  d = daemon(data, inbox);
  try {
    await waitFor(() => existsSync(join(inbox, 't', '.done', big.name)), 60_000, 'the file to be loaded');
    d.child.kill('SIGTERM');
    assert.is(await d.exited, 0);
  } finally {
    d.child.kill('SIGKILL');
  }
  const db = await Database.open(data);
  assert.is((await db.table('t')).rows, preloaded + big.rows);
  await db.close();
});

test.run();

/**
 * The inbox's exactly-once promise under SIGKILL (docs/DAEMON.md).
 *
 * 300 files of random sizes and formats (about one in ten bad) are dropped into the inbox of
 * two tables while `paxd serve` (the CLI, a child process) is killed with SIGKILL at random
 * moments 30 times and restarted: early in its start, after it is up, and right after it has
 * committed a load (so that kills land between a commit and the moves that follow it). Then
 * one last daemon drains the inbox and is stopped with SIGTERM. In the end every good file's
 * rows are in its table exactly once (row count, sum and distinct ids match the files), every
 * good file is in `.done/`, every bad file in `.failed/` with its `.error.json`, and nothing
 * is left in the inbox.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { Database } from '../../src/table/database.js';
import { parseColumns } from '../../src/types/parse-type.js';
import { getValue } from '../../src/types/builder.js';
import { spawnTs } from '../support/spawn.js';
import { tempDir } from '../support/tmp.js';
import { readAll } from '../support/columns.js';
import { Rng, testSeed } from '../support/random.js';
import { INBOX_COLUMNS, INBOX_FORMATS, makeInboxFile, type InboxFile } from './files.js';

const FILES = 300;
const KILLS = 30;
const TABLES = ['a', 'b'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The daemon as a child process, its stdout collected. */
function startDaemon(data: string, inbox: string): { child: ChildProcess; out: () => string; exited: Promise<number | null> } {
  const child = spawnTs('test/support/cli.ts', ['serve', '--data', data, '--inbox', inbox, '--listen', 'off', '--http', 'off', '--auth', 'trust'], {
    PAXD_INBOX_STABLE_MS: '100',
    PAXD_INBOX_BATCH_FILES: '16',
    PAXD_COMPACT_INTERVAL_MS: '700',
    PAXD_COMPACT_SMALL_FILES: '8',
    PAXD_VACUUM_INTERVAL_MS: '1500',
    PAXD_VACUUM_GRACE_MS: '10s',
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  return { child, out: () => out, exited };
}

/** Names in a folder, dotfiles (temporary files) left out. */
function list(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((f) => !f.startsWith('.')) : [];
}

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

test(`${FILES} files, SIGKILL ${KILLS} times: every good file loaded exactly once, every bad one in .failed`, async () => {
  const started = Date.now();
  const rng = new Rng(testSeed());
  const root = tempDir();
  const data = join(root, 'data');
  const inbox = join(root, 'in');
  const db = await Database.open(data);
  for (const t of TABLES) {
    await db.createTable(t, parseColumns(INBOX_COLUMNS), { rowGroupRows: 4096, zoneRows: 1024 });
    mkdirSync(join(inbox, t), { recursive: true });
  }
  await db.close();

  const files: { table: string; file: InboxFile }[] = [];
  for (let i = 0; i < FILES; i++) {
    const r = rng.next();
    const rows = r < 0.7 ? rng.int(1, 100) : r < 0.95 ? rng.int(100, 2000) : rng.int(2000, 10000);
    const format = INBOX_FORMATS[rng.int(0, INBOX_FORMATS.length - 1)]!;
    files.push({ table: TABLES[rng.int(0, TABLES.length - 1)]!, file: makeInboxFile(rng, i, { rows, format, bad: rng.next() < 0.1 }) });
  }

  // The dropper: files appear over the first part of the kill loop, mostly renamed in.
  let dropped = 0;
  const dropper = (async () => {
    for (const { table, file } of files) {
      const to = join(inbox, table, file.name);
      if (rng.next() < 0.8) {
        const tmp = join(inbox, table, `.${file.name}.tmp`);
        writeFileSync(tmp, file.bytes);
        renameSync(tmp, to);
      } else writeFileSync(to, file.bytes);
      dropped++;
      await sleep(rng.int(0, 120));
    }
  })();

  let readyMs = 3000;
  const modes = { early: 0, ready: 0, loaded: 0 };
  const live = new Set<ChildProcess>();
  try {
    for (let k = 0; k < KILLS; k++) {
      const spawned = Date.now();
      const d = startDaemon(data, inbox);
      live.add(d.child);
      // Kill moments: anywhere in its start (reconciling included), soon after it is up, or
      // right after a commit (the kill lands in the moves that follow it, or in the next load).
      const mode = k % 5 < 2 ? 'early' : k % 5 < 4 ? 'loaded' : 'ready';
      if (mode === 'early') await sleep(rng.int(0, readyMs));
      else {
        const ok = await waitFor(() => d.out().includes('"inbox: watching"'), 30_000);
        assert.ok(ok, `daemon did not start: ${d.out()}`);
        readyMs = Date.now() - spawned;
        if (mode === 'ready') await sleep(rng.int(0, 400));
        else {
          const upTo = d.out().length;
          await waitFor(() => d.out().indexOf('inbox: loaded', upTo) >= 0, 1000);
          await sleep(rng.int(0, 40));
        }
      }
      modes[mode]++;
      d.child.kill('SIGKILL');
      await d.exited;
      live.delete(d.child);
      assert.not.match(d.out(), /internal error|"level":"(error|fatal)"/, `daemon ${k} logged an error: ${d.out()}`);
    }
  } finally {
    for (const c of live) c.kill('SIGKILL');
  }
  const killPhase = Date.now() - started;
  await dropper;
  assert.is(dropped, FILES);

  // The last daemon drains the inbox, then stops cleanly.
  const d = startDaemon(data, inbox);
  const accounted = () => {
    let n = 0;
    for (const t of TABLES) {
      n += list(join(inbox, t, '.done')).length;
      const failed = list(join(inbox, t, '.failed'));
      n += failed.filter((f) => !f.endsWith('.error.json')).length;
    }
    return n;
  };
  try {
    const drained = await waitFor(() => accounted() === FILES, 240_000);
    assert.ok(drained, `only ${accounted()} of ${FILES} files accounted for: ${d.out().slice(-3000)}`);
  } finally {
    d.child.kill('SIGTERM');
  }
  assert.is(await d.exited, 0, d.out().slice(-3000));

  // Every file where it belongs, nothing left behind.
  for (const t of TABLES) {
    const left = readdirSync(join(inbox, t)).filter((f) => !f.startsWith('.'));
    assert.equal(left, [], `files left in the inbox of ${t}`);
    const done = new Set(list(join(inbox, t, '.done')));
    const failedDir = join(inbox, t, '.failed');
    const failed = new Set(list(failedDir));
    for (const { table, file } of files.filter((f) => f.table === t)) {
      if (file.bad) {
        assert.ok(failed.has(file.name), `bad file ${table}/${file.name} is not in .failed`);
        const err = JSON.parse(readFileSync(join(failedDir, `${file.name}.error.json`), 'utf8')) as { file: string; sqlstate: string; reason: string };
        assert.is(err.file, file.name);
        assert.ok(['22P02', '22P04'].includes(err.sqlstate), `${file.name}: ${err.sqlstate} ${err.reason}`);
        assert.not.ok(done.has(file.name), `bad file ${file.name} in .done`);
      } else {
        assert.ok(done.has(file.name), `good file ${table}/${file.name} is not in .done (failed: ${failed.has(file.name) ? readFileSync(join(failedDir, `${file.name}.error.json`), 'utf8') : 'no'})`);
      }
    }
    assert.is(done.size + [...failed].filter((f) => !f.endsWith('.error.json')).length, files.filter((f) => f.table === t).length, `${t}: .done and .failed hold other names`);
  }

  // Every good file's rows exactly once.
  const db2 = await Database.open(data);
  for (const t of TABLES) {
    const good = files.filter((f) => f.table === t && !f.file.bad);
    const rows = good.reduce((n, f) => n + f.file.rows, 0);
    const sum = good.reduce((n, f) => n + f.file.sum, 0n);
    const table = await db2.table(t);
    const [ids, vs] = await readAll(table.scan({ columns: ['id', 'v'] }));
    assert.is(ids!.length, rows, `${t}: ${ids!.length} rows, expected ${rows}`);
    const seen = new Set<bigint>();
    let s = 0n;
    for (let i = 0; i < ids!.length; i++) {
      seen.add(getValue(ids!, i) as bigint);
      s += getValue(vs!, i) as bigint;
    }
    assert.is(seen.size, rows, `${t}: duplicated rows`);
    assert.is(s, sum, `${t}: sum of v`);
  }
  await db2.close();
  process.stdout.write(
    ` [${KILLS} kills (${modes.early} early, ${modes.ready} after start, ${modes.loaded} after a commit) in ${(killPhase / 1000).toFixed(0)} s, ${((Date.now() - started) / 1000).toFixed(0)} s in all] `,
  );
});

test.run();

/**
 * Paths stay inside the store (issue #18): the inbox never follows a symbolic link. A link in
 * a table's folder (to a file anywhere the daemon may read) goes to `.failed/` with its reason,
 * unread; a table folder that is a link is not watched. Files beside them load as usual.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/table/database.js';
import { parseColumns } from '../../src/types/parse-type.js';
import { Daemon, createLogger, defaultConfig, type FailedFileJson } from '../../src/daemon/index.js';
import { tempDir } from '../support/tmp.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(cond: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const ls = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : []);

test('a symbolic link in the inbox is moved to .failed/ unread; a linked table folder is not watched', async () => {
  const root = tempDir();
  const data = join(root, 'data');
  const inbox = join(root, 'in');
  const outside = join(root, 'secret');
  mkdirSync(outside);
  // Rows the table would take: were the link followed, they would be loaded.
  writeFileSync(join(outside, 'rows.csv'), 'id,v\n666,666\n');
  const db = await Database.open(data);
  for (const t of ['t', 'u']) await db.createTable(t, parseColumns('id int8 not null, v int8'));
  await db.close();
  mkdirSync(join(inbox, 't'), { recursive: true });
  symlinkSync(join(outside, 'rows.csv'), join(inbox, 't', 'linked.csv')); // there before the start (the first scan)
  symlinkSync(outside, join(inbox, 'u')); // a table folder that is a link
  const lines: Record<string, unknown>[] = [];
  const log = createLogger('warn', { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) });
  const d = await Daemon.start(
    { ...defaultConfig(), store: data, inbox, listen: 'off', http: 'off', inbox_stable_ms: 50, compact_interval_ms: 0, vacuum_interval_ms: 0 },
    { log, out: () => undefined },
  );
  try {
    const dir = join(inbox, 't');
    writeFileSync(join(dir, '.good.tmp'), 'id,v\n1,10\n');
    renameSync(join(dir, '.good.tmp'), join(dir, 'good.csv'));
    symlinkSync('/etc/passwd', join(dir, 'later.csv')); // one arriving while it runs
    // The .error.json is written before its file moves (src/daemon/inbox.ts): wait for both.
    const failed = ['later.csv', 'later.csv.error.json', 'linked.csv', 'linked.csv.error.json'];
    await until(() => failed.every((f) => ls(join(dir, '.failed')).includes(f)) && ls(join(dir, '.done')).length === 1, 'the links failed, good.csv done');
    for (const name of ['linked.csv', 'later.csv']) {
      const info = JSON.parse(readFileSync(join(dir, '.failed', `${name}.error.json`), 'utf8')) as FailedFileJson;
      assert.is(info.sqlstate, '42501', name);
      assert.match(info.reason, `"${name}" is a symbolic link`);
      assert.ok(lstatSync(join(dir, '.failed', name)).isSymbolicLink(), `${name}: the link itself moved, not its target`);
    }
    assert.ok(lines.some((l) => l.msg === 'inbox: file failed, moved to .failed' && String(l.reason).includes('symbolic link')), 'logged with its reason');
    await sleep(300);
    assert.is((await d.db.table('t')).rows, 1, 'only good.csv');
    assert.is((await d.db.table('u')).rows, 0, 'the linked table folder is not read');
    assert.equal(ls(outside), ['rows.csv'], 'nothing moved out of the linked folder');
  } finally {
    await d.stop();
  }
});

test.run();

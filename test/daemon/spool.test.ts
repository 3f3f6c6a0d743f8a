/**
 * HTTP bodies are spooled under the store's own temporary area (`<store>/.paxd-tmp/spool/`),
 * never in the system's temp folder, and what a daemon killed mid-body (SIGKILL) left there is
 * removed by the next daemon's start.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request, Agent } from 'node:http';
import { Database } from '../../src/table/database.js';
import { parseColumns } from '../../src/types/parse-type.js';
import { tempDir } from '../support/tmp.js';
import { serveCli, stopCli, type Served } from './serve.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Files under a folder, recursively. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** Starts a large chunked load, waits until its body is being spooled, then SIGKILLs the daemon. */
async function killMidBody(s: Served, spool: string): Promise<void> {
  const agent = new Agent({ keepAlive: true });
  const req = request({ host: '127.0.0.1', port: s.port, method: 'POST', path: '/v1/tables/t/rows?header=false', headers: { 'Content-Type': 'text/csv', 'Transfer-Encoding': 'chunked' }, agent });
  req.on('error', () => undefined); // the daemon dies under it
  const chunk = Buffer.from('1,"some text",2\n'.repeat(65536)); // 1 MiB
  for (let i = 0; i < 8; i++) req.write(chunk);
  // The body is being spooled: its file grows in the store's temp area.
  const deadline = Date.now() + 20_000;
  while (filesUnder(spool).length === 0 && Date.now() < deadline) await sleep(20);
  const left = filesUnder(spool);
  assert.is(left.length, 1, `spooled body under ${spool}`);
  s.child.kill('SIGKILL');
  await s.exited;
  req.destroy();
  agent.destroy();
  assert.equal(filesUnder(spool), left, 'a SIGKILL leaves the body behind');
}

test('SIGKILL mid-body leaves the spooled body in the store temp area only; the next start removes it', async () => {
  const data = tempDir();
  const db = await Database.open(data);
  await db.createTable('t', parseColumns('id int8, name text, v int8'));
  await db.close();
  const spool = join(data, '.paxd-tmp', 'spool');
  const systemBefore = new Set(readdirSync(tmpdir()).filter((n) => n.startsWith('paxd-http-')));

  const s = await serveCli(data);
  try {
    await killMidBody(s, spool);
  } finally {
    if (s.child.exitCode === null && s.child.signalCode === null) await stopCli(s);
  }
  assert.equal(readdirSync(tmpdir()).filter((n) => n.startsWith('paxd-http-') && !systemBefore.has(n)), [], 'nothing in the system temp folder');

  const again = await serveCli(data);
  try {
    assert.equal(filesUnder(spool), [], 'swept at start');
    assert.match(again.out(), /removed 1 request bodies left by a daemon that died/);
    // And a body that is loaded leaves nothing either.
    const r = await fetch(`${again.base}/v1/tables/t/rows?header=false`, { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: '1,a,2\n' });
    assert.is(r.status, 200);
    assert.equal(filesUnder(spool), []);
  } finally {
    await stopCli(again);
  }
  const db2 = await Database.open(data);
  assert.equal(await db2.tables().then((ts) => ts.map((t) => t.name)), ['t'], 'the temp area is no table');
  await db2.close();
});

test.run();

/**
 * The CLI end to end (README.md "Usage"): create, ingest of Arrow IPC, stats (--json shape and values
 * against the data), check, tables, vacuum; --help everywhere; one-line errors with non-zero
 * exit codes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tableToIPC, Table as ArrowTable, vectorFromArray, Int32, Utf8, Float64 } from 'apache-arrow';
import { spawn, spawnSync } from 'node:child_process';
import { runCli, ROOT } from '../support/spawn.js';
import { tempDir } from '../support/tmp.js';

const dir = tempDir();
const data = ['--data', dir];

function arrowFile(name: string, ids: number[], names: (string | null)[], xs: (number | null)[]): string {
  const t = new ArrowTable({
    id: vectorFromArray(ids, new Int32()),
    name: vectorFromArray(names, new Utf8()),
    x: vectorFromArray(xs, new Float64()),
  });
  const p = join(dir, name);
  writeFileSync(p, tableToIPC(t, 'file'));
  return p;
}

test('every command has --help', async () => {
  for (const cmd of ['create', 'ingest', 'export', 'sql', 'serve', 'stats', 'check', 'tables', 'vacuum', 'compact']) {
    const r = await runCli([cmd, '--help']);
    assert.is(r.code, 0, `${cmd} --help: ${r.stderr}`);
    assert.match(r.stdout, `Usage: paxd ${cmd}`);
    assert.match(r.stdout, '--data');
  }
  const r = await runCli(['--help']);
  assert.is(r.code, 0);
  for (const cmd of ['create', 'ingest', 'export', 'sql', 'serve', 'stats', 'check', 'tables', 'vacuum', 'compact']) assert.match(r.stdout, cmd);
});

test('create, ingest Arrow IPC, stats, check, tables', async () => {
  let r = await runCli(['create', 'people', '--columns', 'id int4 not null, name text, x float8', ...data]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, 'created table people');
  const f1 = arrowFile('a.arrow', [1, 2, 3], ['ann', null, 'bob'], [1.5, -0, null]);
  const f2 = arrowFile('b.arrow', [10, -7], ['zoë', ''], [Infinity, 2.25]);
  r = await runCli(['ingest', 'people', f1, f2, '--verbose', ...data]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /ingested 5 rows into people/);

  r = await runCli(['stats', 'people', '--json', ...data]);
  assert.is(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.is(s.table, 'people');
  assert.is(s.rows, 5);
  assert.is(s.deleted_rows, 0);
  assert.type(s.bytes, 'number');
  assert.equal(s.columns.id, { type: 'int4', nulls: 0, min: '-7', max: '10', sum: '9' });
  assert.equal(s.columns.name, { type: 'text', nulls: 1, min: '', max: 'zoë', sum: null });
  assert.equal(s.columns.x, { type: 'float8', nulls: 1, min: '-0', max: 'Infinity', sum: 'Infinity' });
  assert.is(s.groups.length, 1);

  r = await runCli(['stats', 'people', ...data]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /5 rows/);

  r = await runCli(['check', 'people', ...data]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, 'table people ok');

  r = await runCli(['tables', '--json', ...data]);
  assert.is(r.code, 0, r.stderr);
  const list = JSON.parse(r.stdout);
  assert.is(list.length, 1);
  assert.is(list[0].name, 'people');
  assert.is(list[0].rows, 5);
  assert.is(list[0].layout, 'pax');

  // a second ingest makes a second small file; compact merges them, the rows stay
  r = await runCli(['ingest', 'people', f1, ...data]);
  assert.is(r.code, 0, r.stderr);
  r = await runCli(['compact', 'people', ...data]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /compacted people: snapshot \d+, 2 file\(s\) rewritten into 1/);
  const after = JSON.parse((await runCli(['tables', '--json', ...data])).stdout);
  assert.is(after[0].rows, 8);
  assert.is(after[0].files, 1);

  // sql: embedded queries, in every output format; errors in psql's verbose form
  r = await runCli(['sql', 'select count(*), min(id), max(name) from people where x is not null', '--format', 'json', ...data]);
  assert.is(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout), { count: '6', min: '-7', max: 'zoë' });
  r = await runCli(['sql', '--format', 'csv', ...data], { stdin: new TextEncoder().encode('select id, name from people where id < 2 order by id desc limit 3') });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, 'id,name\n1,ann\n1,ann\n-7,""\n');
  r = await runCli(['sql', 'select id / 0 from people', ...data]);
  assert.is(r.code, 1);
  assert.is(r.stderr.trim(), 'paxd: ERROR:  22012: division by zero');

  // export: one Parquet file per data file, the summary adds up
  const outDir = join(dir, 'parquet');
  r = await runCli(['export', 'people', '--to', outDir, '--codec', 'snappy', '--verbose', ...data]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /exported 8 rows of people to .* 1 file\(s\), 1 row group\(s\)/);
  assert.equal(readdirSync(outDir).filter((f) => f.endsWith('.parquet')).length, 1);
  r = await runCli(['export', 'people', '--to', outDir, '--where', 'id >', ...data]);
  assert.is(r.code, 1);
  assert.match(r.stderr, '42601');

  r = await runCli(['vacuum', 'people', '--grace', '0', ...data]);
  assert.is(r.code, 0, r.stderr);
  r = await runCli(['check', 'people', ...data]);
  assert.is(r.code, 0, r.stderr);
});

test('serve: psql queries the store over the wire with the generated password; SIGTERM stops the server cleanly', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/support/cli.ts'), 'serve', '--listen', '127.0.0.1:0', ...data], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  try {
    const port = await new Promise<number>((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`no listening line: ${stdout} ${stderr}`)), 20_000);
      child.stdout.on('data', (d) => {
        stdout += d;
        const m = /listening on 127\.0\.0\.1:(\d+)/.exec(stdout);
        if (m) {
          clearTimeout(timer);
          res(Number(m[1]));
        }
      });
    });
    // No users configured: the "paxd" user's password was generated into the store's folder.
    const file = join(dir, '.paxd-password');
    assert.match(stdout, `created user "paxd" with a generated password, in ${file}`);
    const psql = (password: string | null) =>
      spawnSync('psql', ['-X', '-w', '-v', 'ON_ERROR_STOP=1', '-At', '-h', '127.0.0.1', '-p', String(port), '-U', 'paxd', '-d', 'paxd', '-c', 'select count(*), max(id) from people'], {
        encoding: 'utf8',
        env: { ...process.env, PGPASSWORD: password ?? '', PGPASSFILE: '/dev/null' },
      });
    assert.match(psql(null).stderr, /fe_sendauth: no password supplied|password authentication failed/);
    const r = psql(readFileSync(file, 'utf8').trim());
    assert.is(r.status, 0, r.stderr);
    assert.is(r.stdout.trim(), '8|10');
  } finally {
    child.kill('SIGTERM');
  }
  assert.is(await exited, 0, stderr);
  assert.match(stdout, 'SIGTERM: stopping');
});

test('errors: one line, SQLSTATE, non-zero exit, nothing committed', async () => {
  let r = await runCli(['stats', 'nosuch', ...data]);
  assert.is(r.code, 1);
  assert.is(r.stderr.trim(), 'paxd: ERROR:  42P01: relation "nosuch" does not exist');

  r = await runCli(['create', 'people', '--columns', 'id int4', ...data]);
  assert.is(r.code, 1);
  assert.match(r.stderr, '42P07');

  r = await runCli(['create', 'bad', '--columns', 'id integr', ...data]);
  assert.is(r.code, 1);
  assert.match(r.stderr, 'type "integr" does not exist');

  // a NULL into a NOT NULL column fails the whole ingest
  const before = JSON.parse((await runCli(['stats', 'people', '--json', ...data])).stdout).rows;
  const bad = arrowFile('bad.arrow', [1, 2], ['x', 'y'], [1, 2]);
  const badNull = join(dir, 'badnull.arrow');
  writeFileSync(badNull, tableToIPC(new ArrowTable({ id: vectorFromArray([5, null], new Int32()) }), 'file'));
  r = await runCli(['ingest', 'people', bad, join(dir, 'missing.arrow'), ...data]);
  assert.is(r.code, 1, 'a missing file fails the ingest');
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  r = await runCli(['ingest', 'people', bad, badNull, ...data]);
  assert.is(r.code, 1);
  assert.is(r.stderr.trim(), 'paxd: ERROR:  23502: null value in column "id" of relation "people" violates not-null constraint');
  const after = JSON.parse((await runCli(['stats', 'people', '--json', ...data])).stdout).rows;
  assert.is(after, before, 'nothing committed');

  r = await runCli(['ingest', 'people', join(dir, 'x.csv'), ...data]);
  assert.is(r.code, 1);
  r = await runCli(['bogus']);
  assert.is(r.code, 2);
});

test.run();

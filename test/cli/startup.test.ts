/**
 * What a command loads (issue: start-up is paid once per layer a command needs): `paxd --help`
 * loads commander and the command table only; `paxd sql` loads the engine and storage but not
 * the daemon, the wire server, the mirror, Parquet, S3 or apache-arrow. Checked with an import
 * trace (./import-trace.mjs), never with a clock. And errors that are bugs print one line.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { errorLine } from '../../src/cli/main.js';
import { formatCount } from '../../src/cli/output.js';
import { PaxdError } from '../../src/types/errors.js';
import { ROOT } from '../support/spawn.js';
import { tempDir } from '../support/tmp.js';

/** Packages that cost tens of milliseconds or more to load. */
const HEAVY = ['apache-arrow', '@aws-sdk', '@smithy', 'libpg-query', 'parquet-wasm', 'pino', 'prom-client', 'pg', 'chokidar', 'lz4-napi', 'zstd-napi'];

/** The src modules and packages `paxd ARGS` loads, with its exit status. */
function loads(args: string[]): { status: number | null; src: string[]; packages: string[]; stderr: string } {
  const trace = join(tempDir(), 'trace');
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--import', './test/cli/import-trace.mjs', 'test/support/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, PAXD_IMPORT_TRACE: trace },
    encoding: 'utf8',
  });
  const lines = readFileSync(trace, 'utf8').split('\n').filter((l) => l !== '');
  const paths = lines.map((l) => (l.startsWith('file://') ? new URL(l).pathname : l.replace(/^cjs:/, '')));
  const src = [...new Set(paths.filter((p) => p.startsWith(join(ROOT, 'src/'))).map((p) => relative(join(ROOT, 'src'), p)))].sort();
  const packages = [...new Set(paths.map((p) => /\/node_modules\/((@[^/]+\/)?[^/]+)\//.exec(p)?.[1]).filter((p): p is string => p !== undefined))].sort();
  return { status: r.status, src, packages, stderr: r.stderr };
}

const heavyIn = (packages: string[]) => packages.filter((p) => HEAVY.some((h) => p === h || p.startsWith(`${h}/`)));

test('paxd --help loads the command table and commander, no layer and no heavy package', () => {
  const r = loads(['--help']);
  assert.is(r.status, 0, r.stderr);
  assert.equal(r.src, ['cli/main.ts', 'types/errors.ts']);
  assert.equal(heavyIn(r.packages), []);
  assert.ok(r.packages.includes('commander'), 'the trace sees packages');
});

test('paxd sql "select 1" loads the engine and storage, not the daemon, wire server, mirror, export, S3 or apache-arrow', () => {
  const r = loads(['sql', '--data', tempDir(), 'select 1']);
  assert.is(r.status, 0, r.stderr);
  assert.ok(r.src.includes('engine/index.ts') && r.src.includes('storage/open.ts'), 'the trace sees the layers the command uses');
  const layers = [...new Set(r.src.map((p) => p.split('/')[0]!))];
  for (const absent of ['daemon', 'pgwire', 'mirror', 'export']) assert.not.ok(layers.includes(absent), `loads ${absent}: ${r.src.filter((p) => p.startsWith(absent)).join(', ')}`);
  assert.not.ok(r.src.includes('storage/s3.ts'), 'loads the S3 store');
  assert.not.ok(r.src.includes('types/arrow.ts'), 'loads the Arrow mapping');
  assert.equal(heavyIn(r.packages), ['libpg-query']);
});

test('paxd ingest of a CSV file (with --create) loads no apache-arrow, Parquet, S3, engine or daemon', () => {
  const dir = tempDir();
  const csv = join(dir, 't.csv');
  writeFileSync(csv, 'id,name\n1,a\n2,b\n');
  const r = loads(['ingest', 't', csv, '--create', '--header', '--data', join(dir, 'store')]);
  assert.is(r.status, 0, r.stderr);
  assert.ok(r.src.includes('insert/csv/tokenizer.ts') && r.src.includes('table/ingest.ts'), 'the trace sees the layers the command uses');
  const layers = [...new Set(r.src.map((p) => p.split('/')[0]!))];
  for (const absent of ['engine', 'daemon', 'pgwire', 'mirror', 'export']) assert.not.ok(layers.includes(absent), `loads ${absent}: ${r.src.filter((p) => p.startsWith(absent)).join(', ')}`);
  for (const absent of ['insert/arrow-input.ts', 'insert/parquet-input.ts', 'insert/infer-arrow.ts', 'types/arrow.ts', 'storage/s3.ts']) assert.not.ok(r.src.includes(absent), `loads ${absent}`);
  // lz4-napi is the table's codec: the one heavy package a load needs.
  assert.equal(heavyIn(r.packages), ['lz4-napi']);
});

test('an internal error is one line; PAXD_DEBUG=1 adds the stack', () => {
  const bug = new TypeError("Cannot read properties of undefined (reading 'x')");
  const saved = process.env.PAXD_DEBUG;
  try {
    delete process.env.PAXD_DEBUG;
    const line = errorLine(bug);
    assert.is(line, "paxd: internal error: Cannot read properties of undefined (reading 'x') (PAXD_DEBUG=1 shows where)\n");
    process.env.PAXD_DEBUG = '1';
    assert.match(errorLine(bug), /^paxd: internal error: TypeError: Cannot read properties of undefined \(reading 'x'\)\n\s+at /);
  } finally {
    if (saved === undefined) delete process.env.PAXD_DEBUG;
    else process.env.PAXD_DEBUG = saved;
  }
  const e = new PaxdError('invalid_input', '22023', 'invalid value for parameter "work_mem": "lots"\nsecond line', { hint: 'A hint.' });
  assert.is(errorLine(e), 'paxd: ERROR:  22023: invalid value for parameter "work_mem": "lots" second line  HINT:  A hint.\n');
});

test('formatCount groups digits as en-US does, without loading ICU', () => {
  for (const n of [0, 7, 999, 1000, 65536, 999_999, 1_000_000, 1_234_567_890, -1, -1000, -987_654_321, 2 ** 53 - 1]) assert.is(formatCount(n), n.toLocaleString('en-US'), String(n));
});

test.run();

/**
 * The export bench (README.md "Export to Parquet"): lineitem (scale factor 1 by default) stored in paxd, exported
 * as Parquet by exportTable (the library behind `paxd export`) and, in the same run, by
 * DuckDB's `COPY lineitem TO 'f.parquet' (FORMAT parquet, COMPRESSION c)` of the same rows,
 * for zstd and snappy. DuckDB's table is loaded from paxd's zstd export (so it holds exactly
 * the same values and types), in memory, before its COPY is timed. Prints seconds, MB/s and
 * output size; MB/s is the Arrow-layout size of the data (the same figure for both systems)
 * per second. paxd's export runs in one thread; DuckDB is shown with 1 and 2 threads.
 * Results also go to bench/results/export-sf<N>-<time>.json.
 *
 *   npm run bench -- export [--sf N] [--codecs zstd,snappy]
 *   npm run bench -- export --rss [--rows 10000000]   peak RSS of exporting a 10M-row table,
 *       in a child process (process.resourceUsage().maxRSS), against the same child exporting
 *       about a tenth of the rows (--where on l_orderkey) and a child that only opens the table
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Database } from '../src/table/database.js';
import { exportTable, parseWhere, type ExportCodec } from '../src/export/index.js';
import { openDuckDb } from '../test/support/duckdb.js';
import { generateLineitem, LINEITEM_COLUMNS } from './lineitem.js';

interface Row {
  system: string;
  codec: string;
  seconds: number;
  mbPerSecond: number;
  outputBytes: number;
  files: number;
  rowGroups: number;
}

function arg(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function loadLineitem(dir: string, sf: number, rows?: number): Promise<{ rows: number; seconds: number }> {
  const db = await Database.open(dir);
  const t = await db.createTable('lineitem', LINEITEM_COLUMNS);
  const t0 = performance.now();
  const sink = t.sink();
  let n = 0;
  for (const b of generateLineitem(sf)) {
    await sink.write(b);
    n += b.length;
    if (rows !== undefined && n >= rows) break;
  }
  await sink.commit();
  await db.close();
  return { rows: n, seconds: (performance.now() - t0) / 1000 };
}

function dirBytes(dir: string): number {
  return readdirSync(dir).reduce((a, f) => a + statSync(join(dir, f)).size, 0);
}

export async function run(args: string[]): Promise<void> {
  if (args.includes('--rss')) return rss(args);
  const sf = Number(arg(args, '--sf') ?? 1);
  const codecs = (arg(args, '--codecs') ?? 'zstd,snappy').split(',') as ExportCodec[];
  const work = mkdtempSync(join(tmpdir(), 'paxd-export-bench-'));
  try {
    process.stdout.write(`export bench: lineitem SF ${sf}, node ${process.version}\n`);
    const loaded = await loadLineitem(join(work, 'store'), sf);
    process.stdout.write(`loaded ${loaded.rows.toLocaleString('en-US')} rows into paxd in ${loaded.seconds.toFixed(1)} s\n\n`);
    const db = await Database.open(join(work, 'store'));
    const table = await db.table('lineitem');
    const results: Row[] = [];
    let dataBytes = 0;
    const print = (r: Row) =>
      process.stdout.write(
        `${r.system.padEnd(22)} ${r.codec.padEnd(7)} ${r.seconds.toFixed(2).padStart(8)} ${r.mbPerSecond.toFixed(0).padStart(7)} ${(r.outputBytes / 1e6).toFixed(1).padStart(9)} ${String(r.files).padStart(6)} ${String(r.rowGroups).padStart(7)}\n`,
      );
    process.stdout.write(`${'system'.padEnd(22)} ${'codec'.padEnd(7)} ${'seconds'.padStart(8)} ${'MB/s'.padStart(7)} ${'output MB'.padStart(9)} ${'files'.padStart(6)} ${'groups'.padStart(7)}\n`);
    for (const codec of codecs) {
      const out = join(work, `paxd-${codec}`);
      const s = await exportTable(table, { to: out, codec });
      dataBytes = s.dataBytes;
      const r: Row = { system: 'paxd export', codec, seconds: s.seconds, mbPerSecond: s.mbPerSecond, outputBytes: s.bytes, files: s.files.length, rowGroups: s.rowGroups };
      results.push(r);
      print(r);
    }
    await db.close();

    const duck = await openDuckDb({});
    try {
      const source = join(work, `paxd-${codecs[0]}`);
      await duck.run(`CREATE TABLE lineitem AS SELECT * FROM read_parquet('${source}/*.parquet')`);
      const [[count]] = (await duck.rows('SELECT count(*) FROM lineitem')) as [[bigint]];
      if (Number(count) !== loaded.rows) throw new Error(`DuckDB loaded ${count} rows, paxd exported ${loaded.rows}`);
      for (const threads of [1, 2]) {
        await duck.setThreads(threads);
        for (const codec of codecs) {
          const out = join(work, `duckdb-${codec}-${threads}`);
          mkdirSync(out);
          const file = join(out, 'lineitem.parquet');
          const t0 = performance.now();
          await duck.run(`COPY lineitem TO '${file}' (FORMAT parquet, COMPRESSION ${codec})`);
          const seconds = (performance.now() - t0) / 1000;
          const rg = await duck.rows(`SELECT count(DISTINCT row_group_id) FROM parquet_metadata('${file}')`);
          const r: Row = { system: `DuckDB COPY, ${threads} thread${threads > 1 ? 's' : ''}`, codec, seconds, mbPerSecond: dataBytes / 1e6 / seconds, outputBytes: dirBytes(out), files: 1, rowGroups: Number(rg[0]![0]) };
          results.push(r);
          print(r);
          rmSync(out, { recursive: true, force: true });
        }
      }
    } finally {
      duck.close();
    }
    process.stdout.write(`\nMB/s: ${(dataBytes / 1e6).toFixed(0)} MB of Arrow-layout column data / seconds.\n`);
    const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(join(resultsDir, `export-sf${sf}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ sf, rows: loaded.rows, dataBytes, node: process.version, results }, null, 2));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// ---- peak RSS, in a child process ----

interface ChildResult {
  rows: number;
  rowGroups: number;
  seconds: number;
  outputBytes: number;
  maxRssBytes: number;
}

async function rss(args: string[]): Promise<void> {
  const rows = Number(arg(args, '--rows') ?? 10_000_000);
  const work = mkdtempSync(join(tmpdir(), 'paxd-export-rss-'));
  try {
    const store = join(work, 'store');
    // SF 1 is ~6M rows: generate enough orders for `rows`, stop at `rows`.
    const loaded = await loadLineitem(store, Math.ceil(rows / 6_000_000) + 0.1, rows);
    process.stdout.write(`export RSS: lineitem table of ${loaded.rows.toLocaleString('en-US')} rows (loaded in ${loaded.seconds.toFixed(1)} s)\n`);
    const cases: [string, string][] = [
      ['open only (baseline)', 'none'],
      [`about a tenth (l_orderkey <= ${Math.round(rows / 16)})`, `l_orderkey <= ${Math.round(rows / 16)}`],
      ['all rows', ''],
    ];
    for (const [label, where] of cases) {
      const r = await child(store, join(work, 'out'), where);
      rmSync(join(work, 'out'), { recursive: true, force: true });
      process.stdout.write(
        `${label.padEnd(36)} ${r.rows.toLocaleString('en-US').padStart(11)} rows  ${String(r.rowGroups).padStart(4)} row groups  ${r.seconds.toFixed(1).padStart(6)} s  peak RSS ${(r.maxRssBytes / 1e6).toFixed(0).padStart(5)} MB\n`,
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function child(store: string, out: string, where: string): Promise<ChildResult> {
  const self = fileURLToPath(import.meta.url);
  const cwd = fileURLToPath(new URL('..', import.meta.url));
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', self, '--child', store, out, where], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    p.stdout.setEncoding('utf8').on('data', (s: string) => (text += s));
    p.on('error', reject);
    p.on('close', (code) => {
      if (code !== 0) return reject(new Error(`export child exited with ${code}`));
      resolve(JSON.parse(text.trim().split('\n').pop()!) as ChildResult);
    });
  });
}

async function childMain(store: string, out: string, where: string): Promise<void> {
  const db = await Database.open(store);
  const table = await db.table('lineitem');
  let r: ChildResult = { rows: 0, rowGroups: 0, seconds: 0, outputBytes: 0, maxRssBytes: 0 };
  if (where !== 'none') {
    const s = await exportTable(table, { to: out, codec: 'zstd', ...(where !== '' ? { where: parseWhere(where) } : {}) });
    r = { rows: s.rows, rowGroups: s.rowGroups, seconds: s.seconds, outputBytes: s.bytes, maxRssBytes: 0 };
  }
  await db.close();
  r.maxRssBytes = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(JSON.stringify(r) + '\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1] && process.argv[2] === '--child') {
  const [store, out, where] = process.argv.slice(3);
  await childMain(store!, out!, where ?? '');
}

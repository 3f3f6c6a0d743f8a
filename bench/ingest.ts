/**
 * The ingest bench (README.md "Usage"): one lineitem CSV file (scale factor 1 by default, cached under
 * bench/data/) loaded, in ONE run, by
 *
 *   paxd        ingestFiles (the library behind `paxd ingest`) into a fresh table in a temp store
 *   PostgreSQL  server-side `COPY lineitem FROM '/file' (FORMAT csv)` into an empty table of the
 *               same types, in a throwaway PostgreSQL 15 cluster (test/support/pg.ts), twice:
 *               with pg.ts's settings (fsync off) and with peers-measured.md's (fsync on,
 *               shared_buffers 4GB, work_mem 256MB, 2 parallel workers; max_wal_size 4GB)
 *   DuckDB      `CREATE TABLE … AS SELECT * FROM read_csv(…, columns={…})` + CHECKPOINT into a
 *               database file, with 1 and with 2 threads
 *
 * and the same rows as an Arrow IPC stream file loaded by ingestFiles (format 'arrow'). Prints
 * seconds and rows/s for each and the ratios paxd / PostgreSQL and paxd / DuckDB; the targets
 * are paxd CSV ≥ 1.5× PostgreSQL COPY and Arrow IPC ≥ 3M rows/s. The page cache is warmed by
 * reading each input once first, so no system pays the cold read. Results also go to
 * bench/results/ingest-sf<N>-<time>.json.
 *
 *   npm run bench -- ingest [--sf N] [--runs N] [--only paxd,pg,duckdb,arrow]
 *   npm run bench -- ingest --rss [--sf 6.7] [--keep]   peak RSS of a ~5 GB CSV ingest (child process)
 *   node --cpu-prof --import tsx bench/run.ts ingest --only paxd   (profile paxd's CSV ingest)
 *
 * Why server-side COPY FROM a file rather than psql's \copy: it is the fastest path PostgreSQL
 * has (the backend reads the file itself; \copy adds psql reading it and sending it through
 * COPY FROM STDIN over a socket), so it is the stronger baseline, and it is what
 * peers-measured.md quotes. The postgres OS user must be able to read the file: when it cannot
 * (the bench data lives under a root-only folder), the file is hard-linked (or copied) into a
 * world-readable temporary folder first.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, copyFileSync, existsSync, linkSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Database } from '../src/table/database.js';
import { ingestFiles } from '../src/table/ingest.js';
import type { Format } from '../src/insert/formats.js';
import { startPostgres, type Postgres } from '../test/support/pg.js';
import { openDuckDb } from '../test/support/duckdb.js';
import { LINEITEM_COLUMNS } from './lineitem.js';
import { ensureLineitemCsv, removeLineitemCsv } from './lineitem-csv.js';
import { ensureLineitemArrow } from './lineitem-arrow.js';
import { measureIngestRss } from './rss.js';
import { saveResults } from './support.js';

const PAXD_VS_PG_TARGET = 1.5;
const ARROW_TARGET_ROWS_PER_S = 3_000_000;
const RSS_LIMIT_BYTES = 1e9;
const RSS_DEFAULT_SF = 6.7; // ≈ 5 GB of CSV

type System = 'paxd' | 'pg' | 'duckdb' | 'arrow';
const SYSTEMS: readonly System[] = ['paxd', 'pg', 'duckdb', 'arrow'];

interface Measurement {
  name: string;
  inputBytes: number;
  seconds: number[];
  rows: number;
}

const out = (s: string) => process.stdout.write(s + '\n');
const log = (s: string) => process.stderr.write(s + '\n');

export async function run(args: string[]): Promise<void> {
  const flag = (name: string) => args.includes(name);
  const value = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const sfArg = value('--sf');
  const sf = sfArg !== undefined ? Number(sfArg) : flag('--rss') ? RSS_DEFAULT_SF : 1;
  if (!(sf > 0)) throw new RangeError(`--sf must be a positive number, got ${sfArg}`);
  if (flag('--rss')) return runRss(sf, flag('--keep'));
  const runs = Number(value('--runs') ?? 1);
  const only = (value('--only')?.split(',') ?? SYSTEMS) as System[];
  for (const s of only) if (!SYSTEMS.includes(s)) throw new RangeError(`--only: unknown system ${s} (expected ${SYSTEMS.join(',')})`);

  out(`ingest bench: lineitem SF ${sf}, ${runs} run(s) each, node ${process.version}`);
  const csv = await ensureLineitemCsv(sf, { log });
  out(`CSV: ${csv.path}, ${fmt(csv.rows)} rows, ${(csv.bytes / 1e6).toFixed(0)} MB${csv.generated ? ` (generated in ${csv.seconds.toFixed(1)} s)` : ' (cached)'}`);
  const results: Measurement[] = [];
  let arrowPath = '';
  const measure = async (name: string, once: () => Promise<number>) => {
    const m: Measurement = { name, inputBytes: csv.bytes, seconds: [], rows: 0 };
    for (let r = 0; r < runs; r++) {
      warm(csvOrArrow(name, csv.path, arrowPath));
      const t0 = performance.now();
      const rows = await once();
      m.seconds.push((performance.now() - t0) / 1000);
      if (rows !== csv.rows) throw new Error(`${name}: loaded ${rows} rows, the file has ${csv.rows}`);
      m.rows = rows;
      log(`  ${name}: ${m.seconds.at(-1)!.toFixed(2)} s`);
    }
    results.push(m);
  };

  if (only.includes('paxd')) await measure('paxd ingest CSV', () => paxdIngest(csv.path, 'csv'));
  if (only.includes('pg')) await measurePostgres(csv.path, measure);
  if (only.includes('duckdb')) {
    for (const threads of [1, 2]) await measure(`DuckDB read_csv, ${threads} thread${threads > 1 ? 's' : ''}`, () => duckdbLoad(csv.path, threads));
  }
  if (only.includes('arrow')) {
    const arrow = await ensureLineitemArrow(sf, { log });
    arrowPath = arrow.path;
    out(`Arrow IPC: ${arrow.path}, ${(arrow.bytes / 1e6).toFixed(0)} MB${arrow.generated ? ` (generated in ${arrow.seconds.toFixed(1)} s)` : ' (cached)'}`);
    await measure('paxd ingest Arrow IPC', () => paxdIngest(arrow.path, 'arrow'));
    results.at(-1)!.inputBytes = arrow.bytes;
  }

  out('');
  out(`${'system'.padEnd(40)} ${'seconds'.padStart(8)} ${'rows/s'.padStart(12)} ${'MB/s'.padStart(7)}`);
  for (const m of results) {
    const s = median(m.seconds);
    out(`${m.name.padEnd(40)} ${s.toFixed(2).padStart(8)} ${fmt(m.rows / s).padStart(12)} ${(m.inputBytes / 1e6 / s).toFixed(0).padStart(7)}`);
  }
  out('');
  const rate = (prefix: string) => {
    const m = results.find((r) => r.name.startsWith(prefix));
    return m === undefined ? null : m.rows / median(m.seconds);
  };
  const paxd = rate('paxd ingest CSV');
  if (paxd !== null) {
    for (const m of results) {
      if (m.name.startsWith('paxd')) continue;
      const ratio = paxd / (m.rows / median(m.seconds));
      const target = m.name.startsWith('PostgreSQL') ? ` (target ≥ ${PAXD_VS_PG_TARGET}: ${ratio >= PAXD_VS_PG_TARGET ? 'met' : `missed, ${((ratio / PAXD_VS_PG_TARGET) * 100).toFixed(0)}% of it`})` : '';
      out(`paxd CSV / ${m.name}: ${ratio.toFixed(2)}×${target}`);
    }
  }
  const arrow = rate('paxd ingest Arrow');
  if (arrow !== null) out(`Arrow IPC ingest: ${fmt(arrow)} rows/s (target ≥ ${fmt(ARROW_TARGET_ROWS_PER_S)}: ${arrow >= ARROW_TARGET_ROWS_PER_S ? 'met' : `missed, ${((arrow / ARROW_TARGET_ROWS_PER_S) * 100).toFixed(0)}% of it`})`);
  saveResults(`ingest-sf${sf}`, { sf, csvBytes: csv.bytes, rows: csv.rows, node: process.version, results: results.map((m) => ({ ...m, rowsPerSecond: m.rows / median(m.seconds) })) });
}

/** The input a measurement reads, for warming the page cache. */
function csvOrArrow(name: string, csvPath: string, arrowPath: string): string {
  return name.includes('Arrow') ? arrowPath : csvPath;
}

/** Reads a file once so that it sits in the page cache. */
function warm(path: string): void {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(8 << 20);
    while (readSync(fd, buf, 0, buf.length, null) > 0);
  } finally {
    closeSync(fd);
  }
}

async function paxdIngest(path: string, format: Format): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'paxd-ingest-bench-'));
  try {
    const db = await Database.open(dir);
    const table = await db.createTable('lineitem', LINEITEM_COLUMNS);
    const r = await ingestFiles(table, [path], { format });
    await db.close();
    return r.rowsLoaded;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- PostgreSQL -------------------------------------------------------------------------

const PG_DDL = `CREATE TABLE lineitem (${LINEITEM_COLUMNS.map((c) => `${c.name} ${String(c.type)}${c.notNull ? ' NOT NULL' : ''}`).join(', ')})`;

/** peers-measured.md's settings (fsync on …), plus a max_wal_size that avoids checkpoints mid-COPY. */
const PG_PEERS_SETTINGS = ['shared_buffers=4GB', 'work_mem=256MB', 'max_parallel_workers_per_gather=2', 'max_wal_size=4GB', 'fsync=on', 'synchronous_commit=on', 'full_page_writes=on'];

async function measurePostgres(csvPath: string, measure: (name: string, once: () => Promise<number>) => Promise<void>): Promise<void> {
  const pg = await startPostgres();
  const readable = pgReadable(csvPath);
  try {
    const version = (await pg.query('SHOW server_version')).split(' ')[0]!;
    const copy = async () => {
      await pg.query(`DROP TABLE IF EXISTS lineitem; ${PG_DDL}; CHECKPOINT`);
      await pg.query(`COPY lineitem FROM '${readable.path.replace(/'/g, "''")}' (FORMAT csv)`);
      const n = Number(await pg.query('SELECT count(*) FROM lineitem'));
      return n;
    };
    await measure(`PostgreSQL ${version} COPY (fsync off)`, copy);
    restartPostgres(pg, PG_PEERS_SETTINGS);
    const settings = await pg.query(`SELECT string_agg(name || '=' || current_setting(name), ' ' ORDER BY name) FROM pg_settings WHERE name IN ('shared_buffers','fsync','work_mem','max_wal_size','synchronous_commit','full_page_writes')`);
    log(`  PostgreSQL restarted with ${settings}`);
    await measure(`PostgreSQL ${version} COPY (fsync on)`, copy);
    await pg.query('DROP TABLE lineitem');
  } finally {
    await pg.stop();
    readable.cleanup();
  }
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** A path to `file` that the postgres OS user can read: the file itself, or a link/copy in a readable folder. */
function pgReadable(file: string): { path: string; cleanup(): void } {
  if (!isRoot || spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-r', file]).status === 0) return { path: file, cleanup() {} };
  const dir = mkdtempSync(join(tmpdir(), 'paxd-pg-input-'));
  chmodSync(dir, 0o755);
  const path = join(dir, 'lineitem.csv');
  try {
    linkSync(file, path);
  } catch {
    copyFileSync(file, path);
  }
  chmodSync(path, 0o644);
  if (spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-r', path]).status !== 0) throw new Error(`the postgres OS user cannot read ${path}`);
  return { path, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Restarts the cluster with extra settings. pg.ts has no restart, so this uses its layout
 * (the data directory is <socketDir>/data, the log <socketDir>/log) and repeats its options:
 * `pg_ctl restart -o` replaces every option of the previous start.
 */
function restartPostgres(pg: Postgres, settings: readonly string[]): void {
  const bin = pgBinDir();
  const data = join(pg.socketDir, 'data');
  if (!existsSync(join(data, 'PG_VERSION'))) throw new Error(`restartPostgres: no cluster at ${data} (has test/support/pg.ts changed its layout?)`);
  const opts = [`-p ${pg.port}`, `-k ${pg.socketDir}`, '-c listen_addresses=127.0.0.1', '-c timezone=UTC', `-c datestyle='iso, mdy'`, ...settings.map((s) => `-c ${s}`)].join(' ');
  const argv = [join(bin, 'pg_ctl'), '-D', data, '-l', join(pg.socketDir, 'log'), '-o', opts, '-m', 'fast', '-w', '-t', '120', 'restart'];
  const r = isRoot ? spawnSync('runuser', ['-u', 'postgres', '--', ...argv], { encoding: 'utf8' }) : spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`pg_ctl restart failed (exit ${r.status}): ${r.stderr || r.stdout}`);
}

function pgBinDir(): string {
  const candidates = [process.env['PG_BINDIR'], spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' }).stdout?.trim(), '/usr/lib/postgresql/15/bin'];
  for (const dir of candidates) if (dir && existsSync(join(dir, 'pg_ctl'))) return dir;
  throw new Error('PostgreSQL binaries not found (set PG_BINDIR)');
}

// ---- DuckDB -----------------------------------------------------------------------------

function duckdbType(pgType: string): string {
  const t = pgType.toLowerCase();
  if (t === 'int8') return 'BIGINT';
  if (t === 'int4') return 'INTEGER';
  if (t === 'date') return 'DATE';
  if (t.startsWith('numeric')) return t.replace('numeric', 'DECIMAL');
  if (t.startsWith('bpchar') || t.startsWith('varchar') || t === 'text') return 'VARCHAR';
  throw new Error(`duckdbType: no mapping for ${pgType}`);
}

async function duckdbLoad(csvPath: string, threads: number): Promise<number> {
  const db = await openDuckDb({ file: true, threads });
  try {
    const columns = LINEITEM_COLUMNS.map((c) => `'${c.name}': '${duckdbType(String(c.type))}'`).join(', ');
    await db.run(
      `CREATE TABLE lineitem AS SELECT * FROM read_csv('${csvPath.replace(/'/g, "''")}', columns = {${columns}}, header = false, delim = ',', quote = '"', escape = '"', auto_detect = false); CHECKPOINT`,
    );
    const [[n]] = (await db.rows('SELECT count(*) FROM lineitem')) as [[bigint]];
    return Number(n);
  } finally {
    db.close();
  }
}

// ---- peak RSS ---------------------------------------------------------------------------

async function runRss(sf: number, keep: boolean): Promise<void> {
  const df = spawnSync('df', ['-h', fileURLToPath(new URL('.', import.meta.url)), tmpdir()], { encoding: 'utf8' }).stdout;
  out(`ingest RSS bench: lineitem SF ${sf} CSV, paxd ingest in a child process, node ${process.version}`);
  out(df.trim());
  const csv = await ensureLineitemCsv(sf, { log });
  out(`CSV: ${csv.path}, ${fmt(csv.rows)} rows, ${(csv.bytes / 1e9).toFixed(2)} GB${csv.generated ? ` (generated in ${csv.seconds.toFixed(1)} s)` : ' (cached)'}`);
  try {
    const r = await measureIngestRss(csv.path, 'csv', (line) => log(`  ${line}`));
    if (r.rows !== csv.rows) throw new Error(`loaded ${r.rows} rows, the file has ${csv.rows}`);
    out(`paxd ingest: ${fmt(r.rows)} rows in ${r.seconds.toFixed(1)} s = ${fmt(r.rowsPerSecond)} rows/s (${(csv.bytes / 1e6 / r.seconds).toFixed(0)} MB/s), store ${(r.storeBytes / 1e9).toFixed(2)} GB`);
    out(`peak RSS: ${(r.maxRssBytes / 1e6).toFixed(0)} MB (limit ${(RSS_LIMIT_BYTES / 1e6).toFixed(0)} MB: ${r.maxRssBytes < RSS_LIMIT_BYTES ? 'met' : 'MISSED'})`);
    saveResults(`ingest-rss-sf${sf}`, { sf, csvBytes: csv.bytes, node: process.version, ...r });
  } finally {
    if (!keep) {
      removeLineitemCsv(sf);
      log(`removed ${csv.path} (--keep keeps it)`);
    }
  }
}

// ---- helpers ----------------------------------------------------------------------------


function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

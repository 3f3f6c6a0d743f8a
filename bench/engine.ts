/**
 * The engine bench (docs/ARCHITECTURE.md "The SQL engine"): TPC-H Q1 and Q6 and ClickBench-style queries on
 * lineitem (bench/lineitem.ts, scale factor 1 by default), in ONE run, on
 *
 *   paxd        `query(db, sql)` (src/engine), embedded, over a PAX table of lineitem
 *   DuckDB      the same SQL, with 1 and with 2 threads, over a DuckDB database file
 *   PostgreSQL  15, a throwaway cluster (test/support/pg.ts), serial
 *               (max_parallel_workers_per_gather = 0) and parallel (= 2), through one
 *               node-postgres connection; work_mem 256MB, after VACUUM ANALYZE
 *
 * Each query runs once to warm up, then --runs times (3 by default); the table shows the
 * median in milliseconds, the ratios PostgreSQL serial ÷ paxd (target ≥ 10×; ≥ 1,000× for
 * queries statistics can answer, marked "stats") and paxd ÷ DuckDB 2 threads (target ≤ 2×),
 * and whether paxd's answer equals DuckDB's (same rows, in order under ORDER BY; numbers to
 * 1e-9 relative, bpchar padding ignored). A query paxd cannot run yet prints its error and the
 * bench goes on. Results also go to bench/results/engine-sf<N>-<time>.json.
 *
 * Inputs are cached under bench/data/ (gitignored) per scale factor: the lineitem CSV
 * (bench/lineitem-csv.ts, which PostgreSQL and DuckDB load), the paxd store
 * (paxd-lineitem-sf<N>/, written from the same generator through the sink) and the DuckDB file
 * (lineitem-sf<N>.duckdb). PostgreSQL loads the CSV with server-side COPY on every run.
 *
 *   npm run bench -- engine [--sf N] [--runs N] [--only q1,q6,c01,…] [--skip-pg]
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pgdriver from 'pg';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { Database } from '../src/table/database.js';
import { query, textRows } from '../src/engine/index.js';
import { startPostgres, type Postgres } from '../test/support/pg.js';
import { isOrdered } from '../test/engine/compare.js';
import { generateLineitem, LINEITEM_COLUMNS } from './lineitem.js';
import { BENCH_DATA_DIR, ensureLineitemCsv } from './lineitem-csv.js';
import { saveResults } from './support.js';

/** Bumped when the cached paxd store or DuckDB file for a given SF must be rebuilt. */
const CACHE_VERSION = 1;
const PG_SERIAL_TARGET = 10;
const STATS_TARGET = 1000;
const DUCKDB_TARGET = 2;

interface BenchQuery {
  id: string;
  /** Answerable from statistics alone (no data file read): the ≥ 1,000× target. */
  stats?: boolean;
  sql: string;
}

export const QUERIES: readonly BenchQuery[] = [
  {
    id: 'q1',
    sql: `SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price,
  sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price, sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
  avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc, count(*) AS count_order
FROM lineitem WHERE l_shipdate <= date '1998-12-01' - interval '90' day
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus`,
  },
  {
    id: 'q6',
    sql: `SELECT sum(l_extendedprice * l_discount) AS revenue FROM lineitem
WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1994-01-01' + interval '1' year
  AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24`,
  },
  { id: 'c01', stats: true, sql: 'SELECT count(*) FROM lineitem' },
  { id: 'c02', stats: true, sql: 'SELECT min(l_shipdate), max(l_shipdate) FROM lineitem' },
  { id: 'c03', stats: true, sql: 'SELECT sum(l_quantity) FROM lineitem' },
  { id: 'c04', stats: true, sql: 'SELECT count(*), sum(l_extendedprice), min(l_orderkey), max(l_orderkey), avg(l_quantity) FROM lineitem' },
  { id: 'c05', sql: 'SELECT l_shipdate FROM lineitem ORDER BY l_shipdate DESC LIMIT 10' },
  { id: 'c06', sql: 'SELECT l_orderkey, l_linenumber, l_shipdate FROM lineitem ORDER BY l_shipdate DESC, l_orderkey, l_linenumber LIMIT 10' },
  { id: 'c07', sql: 'SELECT l_returnflag, l_linestatus, count(*) FROM lineitem GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus' },
  { id: 'c08', sql: 'SELECT l_shipmode, count(*) AS c, sum(l_extendedprice) FROM lineitem GROUP BY l_shipmode ORDER BY c DESC, l_shipmode' },
  { id: 'c09', sql: `SELECT count(*) FROM lineitem WHERE l_shipdate >= date '1995-01-01' AND l_shipdate < date '1995-02-01'` },
  { id: 'c10', sql: 'SELECT count(*), sum(l_quantity) FROM lineitem WHERE l_discount > 0.05 AND l_quantity < 10' },
  { id: 'c11', sql: 'SELECT count(DISTINCT l_partkey) FROM lineitem' },
  { id: 'c12', sql: `SELECT count(*) FROM lineitem WHERE l_comment LIKE '%furiously%'` },
  { id: 'c13', sql: `SELECT l_shipmode, count(*) AS c FROM lineitem WHERE l_comment LIKE '%pinto beans%' GROUP BY l_shipmode ORDER BY c DESC, l_shipmode` },
  { id: 'c14', sql: 'SELECT l_orderkey, sum(l_extendedprice) AS total FROM lineitem GROUP BY l_orderkey ORDER BY total DESC, l_orderkey LIMIT 10' },
  { id: 'c15', sql: 'SELECT l_suppkey, count(*) AS c FROM lineitem GROUP BY l_suppkey ORDER BY c DESC, l_suppkey LIMIT 10' },
  { id: 'c16', sql: `SELECT sum(CASE WHEN l_returnflag = 'R' THEN l_extendedprice ELSE 0 END), count(*) FROM lineitem WHERE l_shipmode IN ('AIR', 'MAIL')` },
  { id: 'c17', sql: 'SELECT l_shipinstruct, avg(l_discount), min(l_tax), max(l_tax), count(*) FROM lineitem GROUP BY l_shipinstruct ORDER BY l_shipinstruct' },
  { id: 'c18', sql: 'SELECT count(*), sum(l_quantity) FROM lineitem WHERE l_orderkey BETWEEN 1000000 AND 1100000' },
  { id: 'c19', sql: 'SELECT l_linenumber, count(DISTINCT l_suppkey) FROM lineitem GROUP BY l_linenumber ORDER BY l_linenumber' },
  { id: 'c20', sql: `SELECT l_orderkey, l_linenumber, l_extendedprice FROM lineitem WHERE l_shipmode = 'RAIL' ORDER BY l_extendedprice DESC, l_orderkey, l_linenumber LIMIT 10` },
  { id: 'c21', sql: 'SELECT l_tax, l_discount, count(*) AS c FROM lineitem GROUP BY l_tax, l_discount ORDER BY c DESC, l_tax, l_discount LIMIT 10' },
];

type SystemId = 'paxd' | 'duckdb1' | 'duckdb2' | 'pgSerial' | 'pgParallel';
const SYSTEM_LABELS: Record<SystemId, string> = { paxd: 'paxd', duckdb1: 'DuckDB 1t', duckdb2: 'DuckDB 2t', pgSerial: 'PG serial', pgParallel: 'PG par.' };

type Outcome = { ok: true; ms: number[]; rows: string[][] } | { ok: false; error: string };

const out = (s: string) => process.stdout.write(s + '\n');
const log = (s: string) => process.stderr.write(s + '\n');

export async function run(args: string[]): Promise<void> {
  const value = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const sf = Number(value('--sf') ?? 1);
  if (!(sf > 0)) throw new RangeError(`--sf must be a positive number, got ${value('--sf')}`);
  const runs = Number(value('--runs') ?? 3);
  if (!Number.isInteger(runs) || runs < 1) throw new RangeError(`--runs must be a positive integer, got ${value('--runs')}`);
  const only = value('--only')?.split(',');
  for (const id of only ?? []) if (!QUERIES.some((q) => q.id === id)) throw new RangeError(`--only: unknown query ${id} (expected ${QUERIES.map((q) => q.id).join(',')})`);
  const queries = QUERIES.filter((q) => only === undefined || only.includes(q.id));
  const skipPg = args.includes('--skip-pg');

  out(`engine bench: lineitem SF ${sf}, ${queries.length} queries, warm-up + median of ${runs}, node ${process.version}`);
  const csv = await ensureLineitemCsv(sf, { log });
  out(`CSV: ${csv.path}, ${fmt(csv.rows)} rows${csv.generated ? ` (generated in ${csv.seconds.toFixed(1)} s)` : ' (cached)'}`);

  const results = new Map<string, Partial<Record<SystemId, Outcome>>>(queries.map((q) => [q.id, {}]));
  const timeAll = async (system: SystemId, exec: (sql: string) => Promise<string[][]>) => {
    for (const q of queries) {
      const r = await timed(exec, q.sql, runs);
      results.get(q.id)![system] = r;
      log(`  ${SYSTEM_LABELS[system]} ${q.id}: ${r.ok ? `${median(r.ms).toFixed(2)} ms` : r.error}`);
    }
  };

  // paxd
  const paxdDir = await ensurePaxdStore(sf, csv.rows);
  const db = await Database.open(paxdDir);
  try {
    await timeAll('paxd', async (sql) => textRows(await query(db, sql)).map((r) => r.map((v) => v ?? 'NULL')));
  } finally {
    await db.close();
  }

  // DuckDB
  const duck = await openDuckDbFile(sf, csv.path);
  try {
    for (const threads of [1, 2] as const) {
      await duck.run(`SET threads = ${threads}`);
      await timeAll(threads === 1 ? 'duckdb1' : 'duckdb2', async (sql) => (await duck.runAndReadAll(sql)).getRowsJson().map((r) => r.map((v) => (v === null ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v)))));
    }
  } finally {
    duck.closeSync();
  }

  // PostgreSQL
  let pgVersion = '';
  if (!skipPg) {
    const pg = await startPostgres();
    const readable = pgReadable(csv.path);
    const client = new pgdriver.Client({ host: pg.socketDir, port: pg.port, user: 'postgres', database: 'postgres', types: { getTypeParser: () => (v: string) => v } });
    try {
      pgVersion = (await pg.query('SHOW server_version')).split(' ')[0]!;
      const t0 = performance.now();
      await loadPostgres(pg, readable.path);
      log(`  PostgreSQL ${pgVersion}: loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      await client.connect();
      await client.query(`SET work_mem = '256MB'`);
      const exec = async (sql: string) => (await client.query({ text: sql, rowMode: 'array' })).rows.map((r) => (r as (string | null)[]).map((v) => v ?? 'NULL'));
      await client.query('SET max_parallel_workers_per_gather = 0');
      await timeAll('pgSerial', exec);
      await client.query('SET max_parallel_workers_per_gather = 2');
      await timeAll('pgParallel', exec);
    } finally {
      await client.end().catch(() => undefined);
      await pg.stop();
      readable.cleanup();
    }
  }

  printTable(queries, results, skipPg, pgVersion);
  saveResults(`engine-sf${sf}`, {
    sf,
    runs,
    rows: csv.rows,
    node: process.version,
    postgres: pgVersion,
    queries: queries.map((q) => ({
      id: q.id,
      sql: q.sql,
      stats: q.stats ?? false,
      ...Object.fromEntries(Object.entries(results.get(q.id)!).map(([s, r]) => [s, r.ok ? { medianMs: median(r.ms), ms: r.ms } : { error: r.error }])),
    })),
  });
}

/** One warm-up run, then `runs` timed runs; a failure (any run) is the outcome. */
async function timed(exec: (sql: string) => Promise<string[][]>, sql: string, runs: number): Promise<Outcome> {
  try {
    let rows = await exec(sql);
    const ms: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      rows = await exec(sql);
      ms.push(performance.now() - t0);
    }
    return { ok: true, ms, rows };
  } catch (e) {
    const err = e as { code?: unknown; message?: unknown };
    return { ok: false, error: `${typeof err.code === 'string' ? `${err.code} ` : ''}${String(err.message ?? e).split('\n')[0]}` };
  }
}

function printTable(queries: readonly BenchQuery[], results: Map<string, Partial<Record<SystemId, Outcome>>>, skipPg: boolean, pgVersion: string): void {
  const systems: SystemId[] = skipPg ? ['paxd', 'duckdb1', 'duckdb2'] : ['paxd', 'duckdb1', 'duckdb2', 'pgSerial', 'pgParallel'];
  const cell = (r: Outcome | undefined) => (r === undefined ? '-' : r.ok ? fmtMs(median(r.ms)) : 'error');
  out('');
  out(`median ms${pgVersion ? ` (PostgreSQL ${pgVersion})` : ''}; PG÷paxd: PostgreSQL serial time over paxd's (target ≥ ${PG_SERIAL_TARGET}×, stats ≥ ${STATS_TARGET}×); paxd÷Duck: paxd over DuckDB 2 threads (target ≤ ${DUCKDB_TARGET}×)`);
  const head = ['query', ...systems.map((s) => SYSTEM_LABELS[s]), ...(skipPg ? [] : ['PG÷paxd']), 'paxd÷Duck', 'answer'];
  const widths = [6, ...systems.map(() => 10), ...(skipPg ? [] : [10]), 10, 0];
  out(head.map((h, i) => (i === 0 ? h.padEnd(widths[i]!) : h.padStart(widths[i]!))).join(' '));
  const errors: string[] = [];
  const missed: string[] = [];
  let mismatches = 0;
  for (const q of queries) {
    const r = results.get(q.id)!;
    const paxd = r.paxd;
    const cols = [`${q.id}${q.stats ? '*' : ''}`.padEnd(6), ...systems.map((s) => cell(r[s]).padStart(10))];
    const ratio = (other: Outcome | undefined, inverse: boolean) => {
      if (paxd === undefined || !paxd.ok || other === undefined || !other.ok) return null;
      const a = median(paxd.ms);
      const b = median(other.ms);
      return inverse ? b / a : a / b;
    };
    const vsPg = ratio(r.pgSerial, true);
    const vsDuck = ratio(r.duckdb2, false);
    if (!skipPg) cols.push((vsPg === null ? '-' : `${fmtRatio(vsPg)}×`).padStart(10));
    cols.push((vsDuck === null ? '-' : `${fmtRatio(vsDuck)}×`).padStart(10));
    let answer = '-';
    if (paxd !== undefined && !paxd.ok) {
      answer = 'paxd error';
      errors.push(`${q.id}: ${paxd.error}`);
    } else if (paxd !== undefined && r.duckdb2 !== undefined) {
      if (!r.duckdb2.ok) answer = `DuckDB error: ${r.duckdb2.error}`;
      else {
        const diff = sameAnswer(isOrdered(q.sql), r.duckdb2.rows, paxd.rows);
        answer = diff === null ? 'same' : `MISMATCH ${diff}`;
        if (diff !== null) mismatches++;
      }
    }
    cols.push(answer);
    out(cols.join(' '));
    const pgTarget = q.stats ? STATS_TARGET : PG_SERIAL_TARGET;
    if (vsPg !== null && vsPg < pgTarget) missed.push(`${q.id}: ${fmtRatio(vsPg)}× PostgreSQL serial (target ${pgTarget}×)`);
    if (vsDuck !== null && vsDuck > DUCKDB_TARGET) missed.push(`${q.id}: ${fmtRatio(vsDuck)}× DuckDB 2 threads (target ≤ ${DUCKDB_TARGET}×)`);
  }
  out('(* answerable from statistics)');
  out('');
  out(`answers: ${queries.length - errors.length - mismatches} of ${queries.length} equal DuckDB's${mismatches ? `, ${mismatches} MISMATCH` : ''}${errors.length ? `, ${errors.length} not run by paxd` : ''}`);
  for (const e of errors) out(`  paxd error ${e}`);
  if (missed.length > 0) {
    out(`targets missed (${missed.length}):`);
    for (const m of missed) out(`  ${m}`);
  } else if (errors.length === 0) out('targets: all met');
  if (mismatches > 0) process.exitCode = 1;
}

/** null when the rows agree: same count, same order under ORDER BY (else as multisets), values equal. */
export function sameAnswer(ordered: boolean, expected: string[][], actual: string[][]): string | null {
  if (expected.length !== actual.length) return `${actual.length} rows, DuckDB ${expected.length}`;
  const norm = (rows: string[][]) => {
    const n = rows.map((r) => r.map((v) => v.trimEnd()));
    return ordered ? n : n.sort((a, b) => cmpRow(a, b));
  };
  const a = norm(expected);
  const b = norm(actual);
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.length !== y.length || x.some((v, j) => !sameValue(v, y[j]!))) return `row ${i}: paxd ${JSON.stringify(y)}, DuckDB ${JSON.stringify(x)}`;
  }
  return null;
}

/** Rows ordered by their values, numbers numerically, so that 1.5 and 1.50 sort alike. */
function cmpRow(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = Number(a[i]);
    const y = Number(b[i]);
    const c = a[i] !== '' && b[i] !== '' && Number.isFinite(x) && Number.isFinite(y) ? x - y : a[i]! < b[i]! ? -1 : a[i]! > b[i]! ? 1 : 0;
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

function sameValue(a: string, b: string): boolean {
  if (a === b) return true;
  const x = Number(a);
  const y = Number(b);
  if (a === '' || b === '' || !Number.isFinite(x) || !Number.isFinite(y)) return false;
  return Math.abs(x - y) <= 1e-9 * Math.max(Math.abs(x), Math.abs(y));
}

// ---- paxd ------------------------------------------------------------------------------

/** bench/data/paxd-lineitem-sf<N>/: a store with lineitem, built from the generator unless cached. */
async function ensurePaxdStore(sf: number, expectRows: number): Promise<string> {
  const dir = join(BENCH_DATA_DIR, `paxd-lineitem-sf${sf}`);
  const marker = join(dir, 'bench-complete.json');
  if (existsSync(marker)) {
    try {
      const m = JSON.parse(readFileSync(marker, 'utf8')) as { version: number; rows: number };
      if (m.version === CACHE_VERSION && m.rows === expectRows) {
        out(`paxd: ${dir} (cached)`);
        return dir;
      }
    } catch {
      // unreadable marker: rebuild
    }
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  const db = await Database.open(dir);
  try {
    const table = await db.createTable('lineitem', LINEITEM_COLUMNS);
    const sink = table.sink();
    let rows = 0;
    for (const b of generateLineitem(sf)) {
      await sink.write(b);
      rows += b.length;
    }
    await sink.commit();
    if (rows !== expectRows) throw new Error(`paxd lineitem: generated ${rows} rows, the CSV has ${expectRows}`);
  } finally {
    await db.close();
  }
  writeFileSync(marker, JSON.stringify({ version: CACHE_VERSION, sf, rows: expectRows }) + '\n');
  out(`paxd: ${dir} (loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  return dir;
}

// ---- DuckDB -----------------------------------------------------------------------------

interface DuckFile {
  run(sql: string): Promise<void>;
  runAndReadAll: DuckDBConnection['runAndReadAll'];
  closeSync(): void;
}

/** bench/data/lineitem-sf<N>.duckdb, loaded from the CSV unless cached. */
async function openDuckDbFile(sf: number, csvPath: string): Promise<DuckFile> {
  const path = join(BENCH_DATA_DIR, `lineitem-sf${sf}.duckdb`);
  const marker = `${path}.json`;
  let fresh = true;
  try {
    fresh = !(existsSync(path) && (JSON.parse(readFileSync(marker, 'utf8')) as { version: number }).version === CACHE_VERSION);
  } catch {
    fresh = true;
  }
  if (fresh) {
    const tmp = `${path}.tmp-${process.pid}`;
    rmSync(tmp, { force: true });
    const t0 = performance.now();
    const instance = await DuckDBInstance.create(tmp);
    const conn = await instance.connect();
    try {
      const columns = LINEITEM_COLUMNS.map((c) => `'${c.name}': '${duckdbType(String(c.type))}'`).join(', ');
      await conn.run(`CREATE TABLE lineitem AS SELECT * FROM read_csv('${csvPath.replace(/'/g, "''")}', columns = {${columns}}, header = false, delim = ',', quote = '"', escape = '"', auto_detect = false); CHECKPOINT`);
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
    rmSync(`${tmp}.wal`, { force: true });
    renameSync(tmp, path);
    writeFileSync(marker, JSON.stringify({ version: CACHE_VERSION, sf }) + '\n');
    out(`DuckDB: ${path} (loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  } else out(`DuckDB: ${path} (cached)`);
  const instance = await DuckDBInstance.create(path);
  const conn = await instance.connect();
  return {
    run: async (sql) => {
      await conn.run(sql);
    },
    runAndReadAll: (sql) => conn.runAndReadAll(sql),
    closeSync: () => {
      conn.closeSync();
      instance.closeSync();
    },
  };
}

export function duckdbType(pgType: string): string {
  const t = pgType.toLowerCase();
  if (t === 'int8') return 'BIGINT';
  if (t === 'int4') return 'INTEGER';
  if (t === 'int2') return 'SMALLINT';
  if (t === 'timestamp') return 'TIMESTAMP';
  if (t === 'date') return 'DATE';
  if (t.startsWith('numeric')) return t.replace('numeric', 'DECIMAL');
  if (t.startsWith('bpchar') || t.startsWith('varchar') || t === 'text') return 'VARCHAR';
  throw new Error(`duckdbType: no mapping for ${pgType}`);
}

// ---- PostgreSQL -------------------------------------------------------------------------

async function loadPostgres(pg: Postgres, csvPath: string): Promise<void> {
  const ddl = LINEITEM_COLUMNS.map((c) => `${c.name} ${String(c.type)}${c.notNull ? ' NOT NULL' : ''}`).join(', ');
  await pg.query(`DROP TABLE IF EXISTS lineitem; CREATE TABLE lineitem (${ddl})`);
  await pg.query(`COPY lineitem FROM '${csvPath.replace(/'/g, "''")}' (FORMAT csv)`);
  await pg.query('VACUUM (ANALYZE) lineitem');
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** A path to `file` the postgres OS user can read (server-side COPY): the file, or a link/copy. */
export function pgReadable(file: string): { path: string; cleanup(): void } {
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
  return { path, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

// ---- helpers ----------------------------------------------------------------------------


function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

function fmtMs(ms: number): string {
  return ms < 10 ? ms.toFixed(2) : ms < 1000 ? ms.toFixed(1) : fmt(ms);
}

function fmtRatio(x: number): string {
  return x >= 100 ? fmt(x) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

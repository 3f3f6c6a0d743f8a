/**
 * The TPC-H bench (issue #19, milestone 2): the 22 queries of fixtures/sql-tpch/tpch.sql (qgen's
 * default substitution parameters) over the 8 tables of test/support/tpch.ts at --sf N (0.1 by
 * default), in ONE run, on
 *
 *   paxd        `query(db, sql)` (src/engine), embedded, over PAX tables
 *   PostgreSQL  15, a throwaway cluster (test/support/pg.ts), serial
 *               (max_parallel_workers_per_gather = 0) and parallel (= 2); work_mem 256MB, after
 *               VACUUM ANALYZE, no indexes (as paxd has none); statement_timeout --pg-timeout s (300)
 *   DuckDB      the same SQL, 2 threads, in memory, loaded from the same CSVs
 *
 * Each query runs once to warm up, then --runs times (1 by default); the table shows the median
 * in milliseconds (and paxd's process CPU time, all threads), PostgreSQL serial ÷ paxd and paxd ÷ DuckDB, whether paxd's answer equals
 * PostgreSQL's (the differential suite's comparison: same rows, in order under ORDER BY, numbers
 * to 1e-9 relative, bpchar padding ignored), and at the end the queries paxd loses against
 * PostgreSQL serial and by how much (#19 Done-when 1: none at SF 1).
 *
 * Inputs are cached under bench/data/ (gitignored) per scale factor: the CSVs
 * (tpch-sf<N>/<table>.csv, which PostgreSQL and DuckDB load) and the paxd store
 * (paxd-tpch-sf<N>/), both written from the same generator.
 *
 *   npm run bench -- tpch [--sf N] [--runs N] [--only q1,q6,…] [--skip-pg] [--skip-duckdb] [--pg-timeout S]
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pgdriver from 'pg';
import { Database } from '../src/table/database.js';
import { query, textRows } from '../src/engine/index.js';
import { startPostgres } from '../test/support/pg.js';
import { openDuckDb } from '../test/support/duckdb.js';
import { pgColumns, tpchTables, type TpchTable } from '../test/support/tpch.js';
import { isOrdered } from '../test/engine/compare.js';
import { BENCH_DATA_DIR, writeBatchesCsv } from './lineitem-csv.js';
import { duckdbType, pgReadable, sameAnswer } from './engine.js';
import { saveResults } from './support.js';

/** Bumped when the cached CSVs or paxd store for a given SF must be rebuilt. */
const CACHE_VERSION = 1;
const QUERY_FILE = fileURLToPath(new URL('../fixtures/sql-tpch/tpch.sql', import.meta.url));

type SystemId = 'paxd' | 'pgSerial' | 'pgParallel' | 'duckdb';
const LABELS: Record<SystemId, string> = { paxd: 'paxd', pgSerial: 'PG serial', pgParallel: 'PG par.', duckdb: 'DuckDB 2t' };
/** `cpu`: CPU ms of the whole process (all threads: user + system) per run, for the in-process paxd. */
export type Outcome = { ok: true; ms: number[]; cpu: number[]; rows: string[][] } | { ok: false; error: string };

const out = (s: string) => process.stdout.write(s + '\n');
const log = (s: string) => process.stderr.write(s + '\n');

/** The `-- Qn` statements of the fixture file, in order (a statement marked `-- paxd:` is not one). */
export function tpchQueries(): { id: string; sql: string }[] {
  const found: { id: string; sql: string }[] = [];
  let id: string | null = null;
  let buf: string[] = [];
  for (const line of readFileSync(QUERY_FILE, 'utf8').split('\n')) {
    const m = /^-- Q(\d+)$/.exec(line);
    if (m !== null) {
      id = `q${m[1]}`;
      buf = [];
      continue;
    }
    if (line.startsWith('--') || id === null) continue;
    buf.push(line);
    if (line.trimEnd().endsWith(';')) {
      found.push({ id, sql: buf.join('\n').replace(/;\s*$/, '') });
      id = null;
    }
  }
  return found;
}

export async function run(args: string[]): Promise<void> {
  const value = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const sf = Number(value('--sf') ?? 0.1);
  if (!(sf > 0)) throw new RangeError(`--sf must be a positive number, got ${value('--sf')}`);
  const runs = Number(value('--runs') ?? 1);
  if (!Number.isInteger(runs) || runs < 1) throw new RangeError(`--runs must be a positive integer, got ${value('--runs')}`);
  const pgTimeout = Number(value('--pg-timeout') ?? 300);
  const all = tpchQueries();
  const only = value('--only')?.split(',');
  for (const id of only ?? [])
    if (!all.some((q) => q.id === id)) throw new RangeError(`--only: unknown query ${id} (expected ${all.map((q) => q.id).join(',')})`);
  const queries = all.filter((q) => only === undefined || only.includes(q.id));
  const skipPg = args.includes('--skip-pg');
  const skipDuck = args.includes('--skip-duckdb');

  out(`tpch bench: SF ${sf}, ${queries.length} queries, warm-up + median of ${runs}, node ${process.version}`);
  const tables = tpchTables(sf);
  const csvDir = ensureCsvs(sf, tables);
  const results = new Map<string, Partial<Record<SystemId, Outcome>>>(queries.map((q) => [q.id, {}]));
  const timeAll = async (system: SystemId, exec: (sql: string) => Promise<string[][]>) => {
    for (const q of queries) {
      const r = await timed(exec, q.sql, runs);
      results.get(q.id)![system] = r;
      log(`  ${LABELS[system]} ${q.id}: ${r.ok ? `${median(r.ms).toFixed(1)} ms${system === 'paxd' ? `, ${median(r.cpu).toFixed(0)} ms CPU` : ''}` : r.error}`);
    }
  };

  const db = await Database.open(await ensurePaxdStore(sf, tables));
  try {
    await timeAll('paxd', async (sql) => textRows(await query(db, sql)).map((r) => r.map((v) => v ?? 'NULL')));
  } finally {
    await db.close();
  }

  let pgVersion = '';
  if (!skipPg) {
    const pg = await startPostgres();
    const client = new pgdriver.Client({
      host: pg.socketDir,
      port: pg.port,
      user: 'postgres',
      database: 'postgres',
      types: { getTypeParser: () => (v: string) => v },
    });
    const readable: { cleanup(): void }[] = [];
    try {
      pgVersion = (await pg.query('SHOW server_version')).split(' ')[0]!;
      const t0 = performance.now();
      for (const t of tables) {
        const file = pgReadable(join(csvDir, `${t.name}.csv`));
        readable.push(file);
        await pg.query(
          `CREATE TABLE ${t.name} (${pgColumns(t)}); COPY ${t.name} FROM '${file.path.replace(/'/g, "''")}' (FORMAT csv); VACUUM (ANALYZE) ${t.name};`,
        );
      }
      log(`  PostgreSQL ${pgVersion}: loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      await client.connect();
      await client.query(`SET work_mem = '256MB'`);
      await client.query(`SET statement_timeout = '${pgTimeout}s'`);
      const exec = async (sql: string) =>
        (await client.query({ text: sql, rowMode: 'array' })).rows.map((r) => (r as (string | null)[]).map((v) => v ?? 'NULL'));
      await client.query('SET max_parallel_workers_per_gather = 0');
      await timeAll('pgSerial', exec);
      await client.query('SET max_parallel_workers_per_gather = 2');
      await timeAll('pgParallel', exec);
    } finally {
      await client.end().catch(() => undefined);
      await pg.stop();
      for (const r of readable) r.cleanup();
    }
  }

  if (!skipDuck) {
    const duck = await openDuckDb({ threads: 2 });
    try {
      for (const t of tables) {
        const columns = t.columns.map((c) => `'${c.name}': '${duckdbType(String(c.type))}'`).join(', ');
        const path = join(csvDir, `${t.name}.csv`).replace(/'/g, "''");
        await duck.run(
          `CREATE TABLE ${t.name} AS SELECT * FROM read_csv('${path}', columns = {${columns}}, header = false, delim = ',', quote = '"', escape = '"', auto_detect = false)`,
        );
      }
      await timeAll('duckdb', async (sql) =>
        (await duck.connection.runAndReadAll(sql))
          .getRowsJson()
          .map((r) => r.map((v) => (v === null ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v)))),
      );
    } finally {
      duck.close();
    }
  }

  printTable(queries, results, skipPg, skipDuck);
  saveResults(`tpch-sf${sf}`, {
    sf,
    runs,
    node: process.version,
    postgres: pgVersion,
    queries: queries.map((q) => ({
      id: q.id,
      ...Object.fromEntries(Object.entries(results.get(q.id)!).map(([s, r]) => [s, r.ok ? { medianMs: median(r.ms), ms: r.ms } : { error: r.error }])),
    })),
  });
}

/** One warm-up run, then `runs` timed runs; a failure (any run) is the outcome. */
export async function timed(exec: (sql: string) => Promise<string[][]>, sql: string, runs: number): Promise<Outcome> {
  try {
    let rows = await exec(sql);
    const ms: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      rows = await exec(sql);
      const c = process.cpuUsage(c0);
      ms.push(performance.now() - t0);
      cpu.push((c.user + c.system) / 1000);
    }
    return { ok: true, ms, cpu, rows };
  } catch (e) {
    const err = e as { code?: unknown; message?: unknown };
    return { ok: false, error: `${typeof err.code === 'string' ? `${err.code} ` : ''}${String(err.message ?? e).split('\n')[0]}` };
  }
}

function printTable(
  queries: readonly { id: string; sql: string }[],
  results: Map<string, Partial<Record<SystemId, Outcome>>>,
  skipPg: boolean,
  skipDuck: boolean,
): void {
  const systems: SystemId[] = ['paxd', ...(skipPg ? [] : (['pgSerial', 'pgParallel'] as const)), ...(skipDuck ? [] : (['duckdb'] as const))];
  const cell = (r: Outcome | undefined) => (r === undefined ? '-' : r.ok ? fmtMs(median(r.ms)) : 'error');
  out('');
  out(
    "median ms; paxd CPU: its process's CPU ms (all threads); PG÷paxd: PostgreSQL serial time over paxd's (> 1: paxd is faster); paxd÷Duck: paxd over DuckDB 2 threads",
  );
  const head = ['query', ...systems.map((s) => LABELS[s]), 'paxd CPU', 'PG÷paxd', 'paxd÷Duck', 'answer (vs PostgreSQL)'];
  out(head.map((h, i) => (i === 0 ? h.padEnd(6) : i === head.length - 1 ? h : h.padStart(10))).join(' '));
  const losses: string[] = [];
  const problems: string[] = [];
  let same = 0;
  for (const q of queries) {
    const r = results.get(q.id)!;
    const paxd = r.paxd;
    const ratio = (other: Outcome | undefined, inverse: boolean) => {
      if (paxd === undefined || !paxd.ok || other === undefined || !other.ok) return null;
      return inverse ? median(other.ms) / median(paxd.ms) : median(paxd.ms) / median(other.ms);
    };
    const vsPg = ratio(r.pgSerial, true);
    const vsDuck = ratio(r.duckdb, false);
    let answer = '-';
    if (paxd !== undefined && !paxd.ok) {
      answer = 'paxd error';
      problems.push(`${q.id}: paxd ${paxd.error}`);
    } else if (paxd !== undefined && r.pgSerial !== undefined) {
      // The parallel run's answer where the serial one did not finish.
      const pgRef = r.pgSerial.ok || r.pgParallel === undefined ? r.pgSerial : r.pgParallel;
      if (!pgRef.ok) answer = `PostgreSQL error (${pgRef.error})`;
      else {
        const diff = sameAnswer(isOrdered(q.sql), pgRef.rows, paxd.rows);
        answer = diff === null ? 'same' : `MISMATCH ${diff.replace(/DuckDB/g, 'PostgreSQL')}`;
        if (diff === null) same++;
        else problems.push(`${q.id}: ${answer}`);
      }
    }
    if (paxd?.ok === true && r.pgSerial?.ok === false) losses.push(`${q.id}: PostgreSQL serial did not finish (${r.pgSerial.error})`);
    if (vsPg !== null && vsPg < 1)
      losses.push(
        `${q.id}: paxd ${(1 / vsPg).toFixed(2)}× slower than PostgreSQL serial (${fmtMs(median((paxd as { ms: number[] }).ms))} vs ${fmtMs(median((r.pgSerial as { ms: number[] }).ms))} ms)`,
      );
    const cols = [
      q.id.padEnd(6),
      ...systems.map((s) => cell(r[s]).padStart(10)),
      (paxd?.ok === true ? fmtMs(median(paxd.cpu)) : '-').padStart(10),
      (vsPg === null ? '-' : `${fmtRatio(vsPg)}×`).padStart(10),
      (vsDuck === null ? '-' : `${fmtRatio(vsDuck)}×`).padStart(10),
      answer,
    ];
    out(cols.join(' '));
  }
  out('');
  if (!skipPg) out(`answers: ${same} of ${queries.length} equal PostgreSQL's`);
  for (const p of problems) out(`  ${p}`);
  if (!skipPg) {
    out(losses.filter((l) => l.includes('slower')).length === 0 ? 'paxd loses no query against PostgreSQL serial' : 'paxd loses against PostgreSQL serial:');
    for (const l of losses) out(`  ${l}`);
  }
  if (problems.some((p) => p.includes('MISMATCH'))) process.exitCode = 1;
}

// ---- inputs -----------------------------------------------------------------------------

/** bench/data/tpch-sf<N>/<table>.csv, generated unless cached. */
function ensureCsvs(sf: number, tables: readonly TpchTable[]): string {
  const dir = join(BENCH_DATA_DIR, `tpch-sf${sf}`);
  const marker = join(dir, 'bench-complete.json');
  if (readMarker(marker)) {
    out(`CSV: ${dir} (cached)`);
    return dir;
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  for (const t of tables) writeBatchesCsv(t.batches(), join(dir, `${t.name}.csv`));
  writeFileSync(marker, JSON.stringify({ version: CACHE_VERSION, sf }) + '\n');
  out(`CSV: ${dir} (generated in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  return dir;
}

/** bench/data/paxd-tpch-sf<N>/: a store with the 8 tables, built from the generator unless cached. */
async function ensurePaxdStore(sf: number, tables: readonly TpchTable[]): Promise<string> {
  const dir = join(BENCH_DATA_DIR, `paxd-tpch-sf${sf}`);
  const marker = join(dir, 'bench-complete.json');
  if (readMarker(marker)) {
    out(`paxd: ${dir} (cached)`);
    return dir;
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  const db = await Database.open(dir);
  try {
    for (const t of tables) {
      const table = await db.createTable(t.name, t.columns);
      const sink = table.sink();
      for (const b of t.batches()) await sink.write(b);
      await sink.commit();
    }
  } finally {
    await db.close();
  }
  writeFileSync(marker, JSON.stringify({ version: CACHE_VERSION, sf }) + '\n');
  out(`paxd: ${dir} (loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  return dir;
}

function readMarker(path: string): boolean {
  if (!existsSync(path)) return false;
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { version: number }).version === CACHE_VERSION;
  } catch {
    return false;
  }
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

export function fmtMs(ms: number): string {
  return ms < 10 ? ms.toFixed(2) : ms < 1000 ? ms.toFixed(1) : Math.round(ms).toLocaleString('en-US');
}

export function fmtRatio(x: number): string {
  return x >= 100 ? Math.round(x).toLocaleString('en-US') : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

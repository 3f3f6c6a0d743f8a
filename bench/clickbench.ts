/**
 * The ClickBench bench (issue #19 Done-when 2): ClickBench's 43 queries (fixtures/clickbench/
 * queries.sql, the benchmark's postgresql/queries.sql) over the generated hits table of
 * test/support/hits.ts (create.sql's 105 columns) at --rows N (1,000,000 by default), in ONE run:
 *
 *   paxd        `query(db, sql)` (src/engine), embedded, over a PAX table loaded by the batch API
 *   PostgreSQL  15, a throwaway cluster (test/support/pg.ts), serial
 *               (max_parallel_workers_per_gather = 0); work_mem 256MB, after VACUUM ANALYZE, no
 *               indexes (as paxd has none); statement_timeout --pg-timeout s (300)
 *   DuckDB      the same SQL, 2 threads, in memory, loaded from the same CSV
 *
 * Each query runs once to warm up, then --runs times (1 by default); the table shows the median
 * in milliseconds, PostgreSQL serial ÷ paxd and paxd ÷ DuckDB, and whether paxd's answer is one
 * PostgreSQL could give (test/engine/limit-ties.ts: ties under LIMIT accepted), then the queries
 * paxd loses against PostgreSQL serial. Load times are printed when the inputs are built.
 *
 * Inputs are cached under bench/data/ (gitignored): the CSV (clickbench-<rows>/hits.csv, which
 * PostgreSQL and DuckDB load) and the paxd store (paxd-clickbench-<rows>/), from the same generator.
 *
 *   npm run bench -- clickbench [--rows N] [--runs N] [--only q1,q29,…] [--skip-pg] [--skip-duckdb] [--pg-timeout S]
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import pgdriver from 'pg';
import { Database } from '../src/table/database.js';
import { query, textRows } from '../src/engine/index.js';
import { startPostgres } from '../test/support/pg.js';
import { openDuckDb } from '../test/support/duckdb.js';
import { clickbenchQueries, hitsTable, type HitsTable } from '../test/support/hits.js';
import { pgColumns } from '../test/support/tpch.js';
import { openPgSession, sameRows } from '../test/engine/compare.js';
import { checkTies, tiePlan } from '../test/engine/limit-ties.js';
import { BENCH_DATA_DIR, CsvWriter } from './lineitem-csv.js';
import { duckdbType, pgReadable } from './engine.js';
import { fmtMs, fmtRatio, median, timed, type Outcome } from './tpch.js';
import { saveResults } from './support.js';

/** Bumped when the cached CSV or paxd store must be rebuilt (the generator changed). */
const CACHE_VERSION = 1;

type SystemId = 'paxd' | 'pgSerial' | 'duckdb';
const LABELS: Record<SystemId, string> = { paxd: 'paxd', pgSerial: 'PG serial', duckdb: 'DuckDB 2t' };

const out = (s: string) => process.stdout.write(s + '\n');
const log = (s: string) => process.stderr.write(s + '\n');

export async function run(args: string[]): Promise<void> {
  const value = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const rows = Number(value('--rows') ?? 1_000_000);
  if (!Number.isInteger(rows) || rows < 1) throw new RangeError(`--rows must be a positive integer, got ${value('--rows')}`);
  const runs = Number(value('--runs') ?? 1);
  if (!Number.isInteger(runs) || runs < 1) throw new RangeError(`--runs must be a positive integer, got ${value('--runs')}`);
  const pgTimeout = Number(value('--pg-timeout') ?? 300);
  const all = clickbenchQueries().map((q) => ({ id: `q${q.n}`, sql: q.sql }));
  const only = value('--only')?.split(',');
  for (const id of only ?? []) if (!all.some((q) => q.id === id)) throw new RangeError(`--only: unknown query ${id} (expected q1..q43)`);
  const queries = all.filter((q) => only === undefined || only.includes(q.id));
  const skipPg = args.includes('--skip-pg');
  const skipDuck = args.includes('--skip-duckdb');

  out(`clickbench bench: hits of ${rows.toLocaleString('en-US')} rows, ${queries.length} queries, warm-up + median of ${runs}, node ${process.version}`);
  const hits = hitsTable(rows);
  const { csv, store } = await ensureInputs(hits);
  const results = new Map<string, Partial<Record<SystemId, Outcome>>>(queries.map((q) => [q.id, {}]));
  const timeAll = async (system: SystemId, exec: (sql: string) => Promise<string[][]>) => {
    for (const q of queries) {
      const r = await timed(exec, q.sql, runs);
      results.get(q.id)![system] = r;
      log(`  ${LABELS[system]} ${q.id}: ${r.ok ? `${median(r.ms).toFixed(1)} ms` : r.error}`);
    }
  };

  const db = await Database.open(store);
  try {
    await timeAll('paxd', async (sql) => textRows(await query(db, sql)).map((r) => r.map((v) => v ?? 'NULL')));
  } finally {
    await db.close();
  }

  const answers = new Map<string, string>();
  let pgVersion = '';
  if (!skipPg) {
    const pg = await startPostgres();
    const client = new pgdriver.Client({ host: pg.socketDir, port: pg.port, user: 'postgres', database: 'postgres', types: { getTypeParser: () => (v: string) => v } });
    const readable = pgReadable(csv);
    try {
      pgVersion = (await pg.query('SHOW server_version')).split(' ')[0]!;
      const t0 = performance.now();
      await pg.query(`CREATE TABLE hits (${pgColumns(hits)}); COPY hits FROM '${readable.path.replace(/'/g, "''")}' (FORMAT csv)`);
      const t1 = performance.now();
      await pg.query('VACUUM (ANALYZE) hits');
      log(`  PostgreSQL ${pgVersion}: COPY in ${((t1 - t0) / 1000).toFixed(1)} s, VACUUM ANALYZE ${((performance.now() - t1) / 1000).toFixed(1)} s`);
      out(`PostgreSQL: COPY ${((t1 - t0) / 1000).toFixed(1)} s + VACUUM ANALYZE ${((performance.now() - t1) / 1000).toFixed(1)} s`);
      await client.connect();
      await client.query(`SET work_mem = '256MB'`);
      await client.query(`SET statement_timeout = '${pgTimeout}s'`);
      await client.query('SET max_parallel_workers_per_gather = 0');
      await timeAll('pgSerial', async (sql) =>
        (await client.query({ text: sql, rowMode: 'array' })).rows.map((r) => (r as (string | null)[]).map((v) => v ?? 'NULL')),
      );
      // paxd's answers against PostgreSQL's whole ordered results (ties under LIMIT accepted).
      const session = await openPgSession(pg);
      try {
        for (const q of queries) {
          const paxd = results.get(q.id)!.paxd!;
          const theirs = results.get(q.id)!.pgSerial!;
          if (!paxd.ok) answers.set(q.id, 'paxd error');
          else if (!theirs.ok) answers.set(q.id, `PostgreSQL error (${theirs.error})`);
          else {
            const plan = tiePlan(q.sql);
            const diff = plan === null ? sameRows(false, theirs.rows, paxd.rows) : await checkTies(plan, paxd.rows, session);
            answers.set(q.id, diff === null ? `same (${theirs.rows.length} rows)` : `MISMATCH ${diff}`);
          }
        }
      } finally {
        await session.close();
      }
    } finally {
      await client.end().catch(() => undefined);
      await pg.stop();
      readable.cleanup();
    }
  }

  if (!skipDuck) {
    const duck = await openDuckDb({ threads: 2 });
    try {
      const columns = hits.columns.map((c) => `'${c.name}': '${duckdbType(String(c.type))}'`).join(', ');
      const t0 = performance.now();
      await duck.run(
        `CREATE TABLE hits AS SELECT * FROM read_csv('${csv.replace(/'/g, "''")}', columns = {${columns}}, header = false, delim = ',', quote = '"', escape = '"', auto_detect = false)`,
      );
      out(`DuckDB: loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      await timeAll('duckdb', async (sql) =>
        (await duck.connection.runAndReadAll(sql)).getRowsJson().map((r) => r.map((v) => (v === null ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v)))),
      );
    } finally {
      duck.close();
    }
  }

  printTable(queries, results, answers, skipPg, skipDuck);
  saveResults(`clickbench-${rows}`, {
    rows,
    runs,
    node: process.version,
    postgres: pgVersion,
    queries: queries.map((q) => ({
      id: q.id,
      answer: answers.get(q.id),
      ...Object.fromEntries(Object.entries(results.get(q.id)!).map(([s, r]) => [s, r.ok ? { medianMs: median(r.ms), ms: r.ms } : { error: r.error }])),
    })),
  });
}

function printTable(
  queries: readonly { id: string }[],
  results: Map<string, Partial<Record<SystemId, Outcome>>>,
  answers: Map<string, string>,
  skipPg: boolean,
  skipDuck: boolean,
): void {
  const systems: SystemId[] = ['paxd', ...(skipPg ? [] : (['pgSerial'] as const)), ...(skipDuck ? [] : (['duckdb'] as const))];
  const cell = (r: Outcome | undefined) => (r === undefined ? '-' : r.ok ? fmtMs(median(r.ms)) : 'error');
  out('');
  out("median ms; PG÷paxd: PostgreSQL serial's time over paxd's (> 1: paxd is faster); paxd÷Duck: paxd over DuckDB 2 threads");
  const head = ['query', ...systems.map((s) => LABELS[s]), 'PG÷paxd', 'paxd÷Duck', 'answer (vs PostgreSQL)'];
  out(head.map((h, i) => (i === 0 ? h.padEnd(6) : i === head.length - 1 ? h : h.padStart(10))).join(' '));
  const losses: string[] = [];
  const ratios: number[] = [];
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
    if (vsPg !== null) ratios.push(vsPg);
    const answer = answers.get(q.id) ?? (paxd?.ok === false ? `paxd error: ${paxd.error}` : '-');
    if (answer.startsWith('same')) same++;
    if (vsPg !== null && vsPg < 1) losses.push(`${q.id}: ${(1 / vsPg).toFixed(2)}× slower (${fmtMs(median((paxd as { ms: number[] }).ms))} vs ${fmtMs(median((r.pgSerial as { ms: number[] }).ms))} ms)`);
    out(
      [
        q.id.padEnd(6),
        ...systems.map((s) => cell(r[s]).padStart(10)),
        (vsPg === null ? '-' : `${fmtRatio(vsPg)}×`).padStart(10),
        (vsDuck === null ? '-' : `${fmtRatio(vsDuck)}×`).padStart(10),
        answer,
      ].join(' '),
    );
  }
  out('');
  if (!skipPg) {
    const geo = ratios.length === 0 ? NaN : Math.exp(ratios.reduce((s, x) => s + Math.log(x), 0) / ratios.length);
    out(`answers: ${same} of ${queries.length} are ones PostgreSQL could give; geometric mean of PG serial ÷ paxd: ${geo.toFixed(2)}`);
    out(losses.length === 0 ? 'paxd loses no query against PostgreSQL serial' : `paxd loses ${losses.length} against PostgreSQL serial:`);
    for (const l of losses) out(`  ${l}`);
  }
  for (const q of queries) {
    const a = answers.get(q.id);
    const paxd = results.get(q.id)!.paxd;
    if (paxd?.ok === false) out(`  ${q.id}: paxd ${paxd.error}`);
    if (a?.startsWith('MISMATCH')) {
      out(`  ${q.id}: ${a}`);
      process.exitCode = 1;
    }
  }
}

// ---- inputs -----------------------------------------------------------------------------

/**
 * bench/data/clickbench-<rows>/hits.csv and bench/data/paxd-clickbench-<rows>/ (hits loaded by
 * the batch API), built in one pass over the generator unless both are cached; prints the time
 * paxd's sink took (write + commit) apart from generating the rows and writing the CSV.
 */
async function ensureInputs(hits: HitsTable): Promise<{ csv: string; store: string }> {
  const csvDir = join(BENCH_DATA_DIR, `clickbench-${hits.rows}`);
  const csv = join(csvDir, 'hits.csv');
  const store = join(BENCH_DATA_DIR, `paxd-clickbench-${hits.rows}`);
  const markers = [join(csvDir, 'bench-complete.json'), join(store, 'bench-complete.json')];
  if (markers.every(readMarker)) {
    out(`inputs: ${csv}, ${store} (cached)`);
    return { csv, store };
  }
  for (const d of [csvDir, store]) {
    rmSync(d, { recursive: true, force: true });
    mkdirSync(d, { recursive: true });
  }
  const fd = openSync(csv, 'w');
  const db = await Database.open(store);
  let generating = 0;
  let writingCsv = 0;
  let loading = 0;
  try {
    const w = new CsvWriter((buf, len) => {
      let off = 0;
      while (off < len) off += writeSync(fd, buf, off, len - off);
    });
    const table = await db.createTable('hits', hits.columns);
    const sink = table.sink();
    const it = hits.batches();
    for (;;) {
      const t0 = performance.now();
      const next = it.next();
      const t1 = performance.now();
      generating += t1 - t0;
      if (next.done === true) break;
      w.writeBatch(next.value);
      const t2 = performance.now();
      writingCsv += t2 - t1;
      await sink.write(next.value);
      loading += performance.now() - t2;
    }
    w.flush();
    const t3 = performance.now();
    await sink.commit();
    loading += performance.now() - t3;
    out(
      `inputs: generated ${hits.rows.toLocaleString('en-US')} rows in ${(generating / 1000).toFixed(1)} s; CSV ${(w.bytes / 1e6).toFixed(0)} MB written in ${(writingCsv / 1000).toFixed(1)} s; paxd batch-API load (write + commit) ${(loading / 1000).toFixed(1)} s`,
    );
  } finally {
    closeSync(fd);
    await db.close();
  }
  for (const m of markers) writeFileSync(m, JSON.stringify({ version: CACHE_VERSION, rows: hits.rows }) + '\n');
  return { csv, store };
}

function readMarker(path: string): boolean {
  if (!existsSync(path)) return false;
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { version: number }).version === CACHE_VERSION;
  } catch {
    return false;
  }
}

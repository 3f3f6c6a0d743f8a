/**
 * The postgres_fdw bench (docs/MIRROR.md): a table shaped like the pgsql-hackers
 * cursor test, `t1(a int, b int, c text, d timestamp)` with `a = 10 + i % 30`, held three
 * ways in one PostgreSQL 15 and queried from the same database:
 *
 *   paxd      paxd's table, declared there by `paxd mirror` (postgres_fdw → paxd serve)
 *   heap      a heap table in that database (PostgreSQL's defaults, parallel workers included)
 *   pg_fdw    postgres_fdw to a heap table in another database of the same cluster
 *
 * Queries (best of --runs after one warm-up):
 *   filter    SELECT a, b, c FROM t1 WHERE a > 1000          (no row matches)
 *   count     SELECT count(*) FROM t1
 *   group     SELECT a, count(*), sum(b) FROM t1 GROUP BY a
 *   top-n     SELECT * FROM t1 ORDER BY d DESC LIMIT 10
 *   fetch     SELECT * through the foreign tables, fetch_size 100 and 10000: rows/s of
 *             `SELECT count(s) FROM t1 s WHERE b <= N AND random() >= 0` (the whole-row
 *             count and the volatile filter keep the aggregate local, so every column of N
 *             rows crosses the wire; N = --fetch-rows, 1M by default)
 *
 * Targets (the issue): paxd ≥ 100× faster than heap for filter, count and group; ≥ 10× for
 * top-n; fetch throughput ≥ pg_fdw's. Prints a table of times and ratios, writes
 * bench/results/fdw-<time>.json.
 *
 * paxd runs as a child process (`paxd serve`, trust on loopback), PostgreSQL is a throwaway
 * cluster (test/support/pg.ts); both share this machine's cores with the bench.
 *
 *   npm run bench -- fdw [--rows 5000000] [--fetch-rows 1000000] [--runs 3] [--explain] [--no-remote-estimate]
 *   (env FDW_ROWS for --rows)
 *
 * --no-remote-estimate sets use_remote_estimate 'false' on both foreign servers (the mirror's
 * default is 'true'): planning then sends no EXPLAIN to the remote.
 * --explain prints EXPLAIN (ANALYZE, VERBOSE) of each query through both foreign tables
 * (planning time there includes postgres_fdw's remote EXPLAINs).
 */
import { createHash } from 'node:crypto';
import { chmodSync, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Database } from '../src/table/database.js';
import { ingestFiles } from '../src/table/ingest.js';
import { runMirror, mirrorOptions } from '../src/mirror/index.js';
import { startPostgres, type Postgres } from '../test/support/pg.js';
import { saveResults, startPaxd, type PaxdChild } from './support.js';

const out = (s: string) => process.stdout.write(s + '\n');
const log = (s: string) => process.stderr.write(s + '\n');

const LOCAL_DB = 'fdw_bench';
const REMOTE_DB = 'fdw_remote';
const DDL = 'CREATE TABLE t1 (a int4, b int4, c text, d timestamp)';

interface Query {
  readonly name: string;
  readonly sql: string;
  /** paxd must be this many times faster than the heap table. */
  readonly target: number;
}

const QUERIES: readonly Query[] = [
  { name: 'filter a > 1000', sql: 'SELECT a, b, c FROM t1 WHERE a > 1000', target: 100 },
  { name: 'count(*)', sql: 'SELECT count(*) FROM t1', target: 100 },
  { name: 'GROUP BY a', sql: 'SELECT a, count(*), sum(b) FROM t1 GROUP BY a', target: 100 },
  { name: 'ORDER BY d DESC LIMIT 10', sql: 'SELECT * FROM t1 ORDER BY d DESC LIMIT 10', target: 10 },
];

const SYSTEMS = ['paxd', 'heap', 'pg_fdw'] as const;
type System = (typeof SYSTEMS)[number];
/** The schema each system's t1 is in, in the local database. */
const SCHEMA: Record<System, string> = { paxd: 'paxd', heap: 'public', pg_fdw: 'pgfdw' };

export async function run(args: string[]): Promise<void> {
  const value = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const positive = (name: string, given: string | undefined, dflt: number): number => {
    const n = given === undefined ? dflt : Number(given);
    if (!Number.isInteger(n) || n <= 0) throw new RangeError(`${name} must be a positive integer, got ${given}`);
    return n;
  };
  const rows = positive('--rows', value('--rows') ?? process.env.FDW_ROWS, 5_000_000);
  const fetchRows = Math.min(rows, positive('--fetch-rows', value('--fetch-rows'), 1_000_000));
  const runs = positive('--runs', value('--runs'), 3);
  const explain = args.includes('--explain');
  const remoteEstimate = !args.includes('--no-remote-estimate');

  out(`fdw bench: t1(a int, b int, c text, d timestamp), ${fmt(rows)} rows, a = 10 + i % 30; SELECT * throughput over ${fmt(fetchRows)} rows; best of ${runs}; node ${process.version}`);
  out(`note: paxd (a child process), PostgreSQL and this process share the machine's ${cpus().length} cores; use_remote_estimate ${remoteEstimate} on both foreign servers`);

  const dir = mkdtempSync(join(tmpdir(), 'paxd-fdw-bench-'));
  chmodSync(dir, 0o755); // PostgreSQL's COPY (the postgres OS user) reads the CSV from here
  let paxd: PaxdChild | null = null;
  let postgres: Postgres | null = null;
  const clients: pg.Client[] = [];
  try {
    const csv = join(dir, 't1.csv');
    log(`writing ${fmt(rows)} rows of CSV…`);
    await writeCsv(csv, rows);
    chmodSync(csv, 0o644);

    log('paxd: ingest…');
    const data = join(dir, 'paxd');
    const db = await Database.open(data);
    try {
      const t = db.prepareTable('t1', [
        { name: 'a', type: 'int4' },
        { name: 'b', type: 'int4' },
        { name: 'c', type: 'text' },
        { name: 'd', type: 'timestamp' },
      ]);
      await ingestFiles(t, [csv], { format: 'csv' });
    } finally {
      await db.close();
    }
    paxd = await startPaxd(data);

    log('PostgreSQL: load the heap tables…');
    postgres = await startPostgres();
    await postgres.query(`CREATE DATABASE ${LOCAL_DB}; CREATE DATABASE ${REMOTE_DB}`);
    const connect = async (database: string) => {
      const c = new pg.Client({ host: postgres!.host, port: postgres!.port, user: 'postgres', database });
      await c.connect();
      clients.push(c);
      return c;
    };
    const remote = await connect(REMOTE_DB);
    await remote.query(`${DDL}; COPY t1 FROM '${csv}' (FORMAT csv)`);
    await remote.query('VACUUM (ANALYZE) t1');
    const local = await connect(LOCAL_DB);
    await local.query(`${DDL}; COPY t1 FROM '${csv}' (FORMAT csv)`);
    await local.query('VACUUM (ANALYZE) t1');
    rmSync(csv);
    // The loads left gigabytes of dirty buffers and WAL: flush them now, so that the
    // checkpointer does not compete with the measurements (this machine has few cores).
    await local.query('CHECKPOINT');

    log('paxd mirror, and postgres_fdw to the other database…');
    const url = `postgres://postgres@${postgres.host}:${postgres.port}/${LOCAL_DB}`;
    const pdb = await Database.open(data);
    try {
      await runMirror(pdb, mirrorOptions({ pg: url, schema: SCHEMA.paxd, server: 'paxd', port: paxd.port, password: 'unused', fetchSize: 10_000, useRemoteEstimate: remoteEstimate }));
    } finally {
      await pdb.close();
    }
    await local.query(`
      CREATE SERVER pg_remote FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '${postgres.host}', port '${postgres.port}', dbname '${REMOTE_DB}', fetch_size '10000', use_remote_estimate '${remoteEstimate}');
      CREATE USER MAPPING FOR CURRENT_USER SERVER pg_remote OPTIONS (user 'postgres', password 'unused');
      CREATE SCHEMA ${SCHEMA.pg_fdw};
      IMPORT FOREIGN SCHEMA public LIMIT TO (t1) FROM SERVER pg_remote INTO ${SCHEMA.pg_fdw};`);

    const c = local;
    const time = async (sql: string): Promise<number> => {
      const started = performance.now();
      await c.query(sql);
      return performance.now() - started;
    };
    const best = async (sql: string): Promise<number> => {
      await time(sql); // warm-up: caches, connections to the remotes, plans
      let b = Infinity;
      for (let i = 0; i < runs; i++) b = Math.min(b, await time(sql));
      return b;
    };

    const results: Record<string, Record<System, number>> = {};
    for (const q of QUERIES) {
      const r = {} as Record<System, number>;
      for (const s of SYSTEMS) {
        log(`${q.name}: ${s}…`);
        await c.query(`SET search_path = ${SCHEMA[s]}`);
        r[s] = await best(q.sql);
        if (explain && s !== 'heap') {
          const plan = await c.query(`EXPLAIN (ANALYZE, VERBOSE) ${q.sql}`);
          log(plan.rows.map((row: Record<string, string>) => `    ${row['QUERY PLAN']}`).join('\n'));
        }
      }
      results[q.name] = r;
    }
    await c.query('SET search_path = public');

    const fetch: Record<string, Record<'paxd' | 'pg_fdw', number>> = {};
    for (const size of [100, 10_000]) {
      await c.query(`ALTER SERVER paxd OPTIONS (SET fetch_size '${size}'); ALTER SERVER pg_remote OPTIONS (SET fetch_size '${size}')`);
      const r = {} as Record<'paxd' | 'pg_fdw', number>;
      for (const s of ['paxd', 'pg_fdw'] as const) {
        log(`SELECT * with fetch_size ${size}: ${s}…`);
        const ms = await best(`SELECT count(s) FROM ${SCHEMA[s]}.t1 s WHERE b <= ${fetchRows} AND random() >= 0`);
        r[s] = fetchRows / (ms / 1000);
      }
      fetch[`fetch_size ${size}`] = r;
    }

    out('');
    out(`| query | paxd ms | heap ms | pg_fdw ms | heap ÷ paxd | pg_fdw ÷ paxd | target | met |`);
    out(`|---|---:|---:|---:|---:|---:|---:|---|`);
    for (const q of QUERIES) {
      const r = results[q.name]!;
      const ratio = r.heap / r.paxd;
      out(`| ${q.name} | ${ms(r.paxd)} | ${ms(r.heap)} | ${ms(r.pg_fdw)} | ${ratio.toFixed(1)}× | ${(r.pg_fdw / r.paxd).toFixed(1)}× | ≥ ${q.target}× | ${ratio >= q.target ? 'yes' : 'no'} |`);
    }
    out('');
    out(`| SELECT * (${fmt(fetchRows)} rows, 4 columns) | paxd rows/s | pg_fdw rows/s | paxd ÷ pg_fdw | target | met |`);
    out(`|---|---:|---:|---:|---:|---|`);
    for (const [name, r] of Object.entries(fetch))
      out(`| ${name} | ${fmt(r.paxd)} | ${fmt(r.pg_fdw)} | ${(r.paxd / r.pg_fdw).toFixed(2)}× | ≥ 1× | ${r.paxd >= r.pg_fdw ? 'yes' : 'no'} |`);
    saveResults('fdw', { rows, fetchRows, runs, remoteEstimate, cores: cpus().length, node: process.version, results, fetch });
  } finally {
    for (const c of clients) await c.end().catch(() => undefined);
    if (paxd !== null) await paxd.stop();
    if (postgres !== null) await postgres.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * t1's rows as CSV: a = 10 + i % 30, b = i, c = md5(i) (the cursor test's shape), d one
 * second apart from 2020-01-01 (so ORDER BY d DESC LIMIT 10 wants the last rows written).
 */
async function writeCsv(file: string, rows: number): Promise<void> {
  const w = createWriteStream(file);
  const base = Date.UTC(2020, 0, 1);
  const parts: string[] = [];
  for (let i = 1; i <= rows; i++) {
    const d = new Date(base + i * 1000).toISOString();
    parts.push(`${10 + (i % 30)},${i},${createHash('md5').update(String(i)).digest('hex')},${d.slice(0, 10)} ${d.slice(11, 19)}\n`);
    if (parts.length === 10_000 || i === rows) {
      if (!w.write(parts.join(''))) await new Promise<void>((r) => w.once('drain', () => r()));
      parts.length = 0;
    }
  }
  await new Promise<void>((resolve, reject) => w.end((e?: Error | null) => (e ? reject(e) : resolve())));
}



function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function ms(x: number): string {
  return x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : fmt(x);
}

/**
 * `npm run bench -- NAME [options]`: runs one benchmark and prints its figures.
 *   storage   write and full-read throughput and compression ratios of lineitem (SF 1 by default)
 *   scan      pruning, running bounds and aggregates from statistics on 100M generated rows (--rows N)
 *   ingest    lineitem CSV loaded by paxd, PostgreSQL COPY and DuckDB read_csv, and Arrow IPC by
 *             paxd (SF 1; --sf N, --runs N, --only paxd,pg,duckdb,arrow); --rss: peak RSS of a
 *             ~5 GB CSV ingest (SF 6.7, the file deleted afterwards unless --keep)
 *   export    lineitem (SF 1; --sf N) exported to Parquet by paxd and by DuckDB's COPY … (FORMAT
 *             parquet), zstd and snappy; --rss: peak RSS of exporting a 10M-row table (--rows N)
 *   ao        a 200-column table in ao_column and PAX: what reading 2 columns touches (objects,
 *             bytes) and costs (--rows N, --appends N)
 *   s3        a projected scan of lineitem (SF 0.1; --sf N) from the local store and from s3rver:
 *             rows/s, decoded MB/s, bytes and GETs fetched (--runs N)
 *   engine    TPC-H Q1, Q6 and ClickBench-style queries on lineitem (SF 1; --sf N) in paxd, DuckDB
 *             (1 and 2 threads) and PostgreSQL (serial and parallel): median ms, ratios, and a check
 *             that paxd answers as DuckDB does (--runs N, --only q1,q6,c01,…, --skip-pg)
 *   wire      COPY FROM STDIN against paxd ingest: the same lineitem CSV (SF 0.1; --sf N) through
 *             `paxd ingest` and through COPY … FROM STDIN (FORMAT csv) into paxd serve, in the same
 *             run: rows/s of each and their ratio, target COPY ≥ 0.8× ingest (--runs N, --chunk BYTES
 *             per CopyData); then paxd serve and PostgreSQL through node-postgres: --clients N (64)
 *             running mixed queries and COPY for --seconds S (60): queries/s, COPY rows/s, p50/p99
 *             ms, errors, every acknowledged row present; and SELECT * of --rows N (1M) rows in text
 *             and binary: rows/s (--skip-pg). --only copy or --only load runs one part.
 *   copy      the first part of wire alone (wire --only copy)
 *   fdw       paxd's table through postgres_fdw (paxd mirror) against a heap table and postgres_fdw to
 *             PostgreSQL: a filter, count(*), GROUP BY, top-10 and SELECT * throughput at fetch_size 100
 *             and 10000 on t1(a, b, c, d) of --rows N (5M; env FDW_ROWS), ratios against the targets
 *   pgbench   pgbench's built-in tpcb-like script on paxd serve and PostgreSQL in the same run: tps,
 *             retries, and the four balances checked on both (--clients 8, --threads 2, --seconds 60,
 *             --scale 1, --skip-pg)
 *   metadata  table metadata (issue #20): bytes of a 1-row commit, cold open + count(*) in a new process,
 *             warm count(*), S3 requests to find the newest state, for 1,000 to 100,000 row groups
 *             (--groups), local and s3rver (--store local|s3); ao_column bytes per append over
 *             --appends N (10,000) appends and its cold open (--only pax|ao)
 *   tpch      the 22 TPC-H queries (fixtures/sql-tpch/tpch.sql) on the 8 tables at SF 0.1 (--sf N) in paxd,
 *             PostgreSQL (serial and parallel) and DuckDB (2 threads): median ms, ratios, paxd's answers
 *             checked against PostgreSQL's, and the queries paxd loses (--runs N, --only q1,…, --skip-pg,
 *             --skip-duckdb, --pg-timeout S)
 *   startup   paxd --help, paxd sql "select 1" and paxd ingest of a 10,000-row CSV as whole processes:
 *             median wall and CPU (user + system) ms of --runs N (5), after npm run build (--no-build)
 *   clickbench  ClickBench's 43 queries (fixtures/clickbench/queries.sql) on the generated 105-column
 *             hits table (test/support/hits.ts) of --rows N (1M) in paxd, PostgreSQL serial and DuckDB
 *             (2 threads): median ms, ratios, paxd's answers checked against PostgreSQL's with ties
 *             under LIMIT accepted (--runs N, --only q1,…, --skip-pg, --skip-duckdb, --pg-timeout S)
 *   inbox     the daemon's inbox: files/s and rows/s for 10,000 small files (--small N, --small-rows N)
 *             and for large ones (--large N, --large-rows N), file count after compaction
 *   hostile   a second session's select 1 (and /health) while 100,000-constant IN / VALUES / ARRAY
 *             statements run (--runs N) and while --uploads N (8) chunked CSV uploads of --mb M (20)
 *             load (issue #18; --only lists|uploads)
 */
const benches: Record<string, () => Promise<{ run(args: string[]): Promise<void> }>> = {
  storage: () => import('./storage.js'),
  scan: () => import('./scan.js'),
  ingest: () => import('./ingest.js'),
  export: () => import('./export.js'),
  ao: () => import('./ao.js'),
  s3: () => import('./s3.js'),
  engine: () => import('./engine.js'),
  inbox: () => import('./inbox.js'),
  wire: () => import('./wire.js'),
  copy: () => import('./copy.js'),
  fdw: () => import('./fdw.js'),
  pgbench: () => import('./pgbench.js'),
  metadata: () => import('./metadata.js'),
  tpch: () => import('./tpch.js'),
  startup: () => import('./startup.js'),
  clickbench: () => import('./clickbench.js'),
  hostile: () => import('./hostile.js'),
};

const [name, ...args] = process.argv.slice(2);
if (name === undefined || !(name in benches)) {
  process.stderr.write(`usage: npm run bench -- ${Object.keys(benches).join('|')} [options]\n`);
  process.exit(2);
}
const mod = await benches[name]!();
await mod.run(args);

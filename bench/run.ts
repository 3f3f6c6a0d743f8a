/**
 * `npm run bench -- NAME [options]`: runs one benchmark and prints its figures.
 *   storage   write and full-read throughput and compression ratios of lineitem (SF 1 by default)
 *   scan      pruning, running bounds and aggregates from statistics on 100M generated rows (--rows N)
 *   ingest    lineitem CSV loaded by paxd, PostgreSQL COPY and DuckDB read_csv, and Arrow IPC by
 *             paxd (SF 1; --sf N, --runs N, --only paxd,pg,duckdb,arrow); --rss: peak RSS of a
 *             ~5 GB CSV ingest (SF 6.7, the file deleted afterwards unless --keep)
 */
const benches: Record<string, () => Promise<{ run(args: string[]): Promise<void> }>> = {
  storage: () => import('./storage.js'),
  scan: () => import('./scan.js'),
  ingest: () => import('./ingest.js'),
};

const [name, ...args] = process.argv.slice(2);
if (name === undefined || !(name in benches)) {
  process.stderr.write(`usage: npm run bench -- ${Object.keys(benches).join('|')} [options]\n`);
  process.exit(2);
}
const mod = await benches[name]!();
await mod.run(args);

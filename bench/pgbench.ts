/**
 * pgbench's built-in TPC-B-like script (issue #17) against `paxd serve` and PostgreSQL 15 in the
 * same run: the same four tables at the same scale, loaded by psql's \copy
 * (test/support/pgbench.ts), then `pgbench -n -c C -j J -T S --max-tries 0` on each. Prints tps,
 * committed/retried/failed transactions and the ratio, and checks on both servers that the four
 * balances agree and history holds one row per committed transaction; a disagreement exits 1.
 *
 * PostgreSQL runs at its default READ COMMITTED, where a second updater of the branch row waits
 * for the first and re-reads it; paxd's transactions are snapshot isolation (REPEATABLE READ's
 * first-updater-wins), so the same contention is a 40001 that pgbench retries.
 *
 *   npm run bench -- pgbench [--clients 8] [--threads 2] [--seconds 60] [--scale 1] [--skip-pg]
 */
import { cpus, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startPostgres } from '../test/support/pg.js';
import { balances, consistent, loadTpcb, psql, runTpcb, type Conn, type TpcbRun } from '../test/support/pgbench.js';
import { saveResults, startPaxd } from './support.js';

function out(line: string): void {
  process.stdout.write(line + '\n');
}

async function measure(name: string, c: Conn, scale: number, o: { clients: number; threads: number; seconds: number }): Promise<TpcbRun> {
  const t0 = performance.now();
  await loadTpcb(c, scale);
  process.stderr.write(`  ${name}: loaded scale ${scale} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  const r = await runTpcb(c, o);
  const bad = consistent(await balances(c), r);
  out(`${name.padEnd(12)} ${r.tps.toFixed(1).padStart(9)} ${String(r.processed).padStart(10)} ${String(r.retried).padStart(8)} ${String(r.failed).padStart(7)}  ${bad ?? 'consistent'}`);
  if (bad !== null) process.exitCode = 1;
  return r;
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      clients: { type: 'string', default: '8' },
      threads: { type: 'string', default: '2' },
      seconds: { type: 'string', default: '60' },
      scale: { type: 'string', default: '1' },
      'skip-pg': { type: 'boolean', default: false },
    },
  });
  const o = { clients: Number(values.clients), threads: Number(values.threads), seconds: Number(values.seconds) };
  const scale = Number(values.scale);
  out(`pgbench bench: tpcb-like, scale ${scale}, -c ${o.clients} -j ${o.threads} -T ${o.seconds}, --max-tries 0; node ${process.version}, ${cpus().length} cores shared by clients and servers`);
  out(`${'server'.padEnd(12)} ${'tps'.padStart(9)} ${'committed'.padStart(10)} ${'retried'.padStart(8)} ${'failed'.padStart(7)}  balances`);

  const dir = mkdtempSync(join(tmpdir(), 'paxd-pgbench-'));
  const paxd = await startPaxd(dir);
  let p: TpcbRun;
  try {
    p = await measure('paxd', { host: '127.0.0.1', port: paxd.port, user: 'paxd', database: 'paxd' }, scale, o);
  } finally {
    await paxd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  let q: TpcbRun | null = null;
  if (!values['skip-pg']) {
    const pg = await startPostgres();
    try {
      const c: Conn = { host: pg.host, port: pg.port, user: 'postgres', database: 'postgres' };
      await psql(c, 'DROP TABLE IF EXISTS pgbench_history, pgbench_tellers, pgbench_accounts, pgbench_branches');
      q = await measure('PostgreSQL', c, scale, o);
    } finally {
      await pg.stop();
    }
    out(`paxd / PostgreSQL tps: ${(p.tps / q.tps).toFixed(3)}×`);
  }
  saveResults('pgbench', { scale, ...o, node: process.version, cores: cpus().length, paxd: { ...p, output: undefined }, postgres: q === null ? null : { ...q, output: undefined } });
}

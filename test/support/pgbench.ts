/**
 * pgbench's built-in TPC-B-like script against a server (paxd or PostgreSQL), for the
 * consistency test (test/pgwire/pgbench.test.ts) and the bench (bench/pgbench.ts).
 *
 *   await loadTpcb(conn, 1);                         // the four tables, filled by psql's \copy
 *   const r = await runTpcb(conn, { clients: 8, threads: 2, seconds: 10 });
 *   const b = await balances(conn);                  // sums of the four tables, history count
 *   consistent(b, r)                                 // null, or what disagrees
 *
 * The tables are pgbench -i's (same columns and types), created with plain CREATE TABLE and
 * filled with psql's `\copy … FROM` (CSV written here, the rows pgbench -i would write: every
 * balance 0, `scale` branches, 10 tellers and 100,000 accounts per branch). pgbench runs with
 * `-n` (no VACUUM, which paxd does not take as SQL) and unlimited retries of serialization
 * failures (`--max-tries 0`), so every transaction either commits or is counted as failed.
 *
 * The invariant: every committed transaction added the same delta to one account, one teller,
 * one branch and one history row, so the four sums agree and history holds one row per
 * committed transaction. A COMMIT that failed but left part of itself behind breaks it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where a server is: psql and pgbench connect with -h/-p/-U/-d. */
export interface Conn {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly database: string;
  /** Extra environment, e.g. PGPASSWORD. */
  readonly env?: NodeJS.ProcessEnv;
}

export interface TpcbRun {
  /** "number of transactions actually processed". */
  readonly processed: number;
  /** "number of failed transactions". */
  readonly failed: number;
  /** "number of transactions retried" (0 when pgbench printed none). */
  readonly retried: number;
  readonly tps: number;
  readonly output: string;
}

export interface Balances {
  readonly accounts: bigint;
  readonly tellers: bigint;
  readonly branches: bigint;
  readonly history: bigint;
  readonly historyRows: number;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PGCLIENTENCODING: 'UTF8', ...env } });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (out += d.toString()));
    p.once('error', reject);
    p.once('exit', (code) => resolve({ code, out }));
  });
}

function connArgs(c: Conn): string[] {
  return ['-h', c.host, '-p', String(c.port), '-U', c.user, '-d', c.database];
}

/** psql with ON_ERROR_STOP; `-c` per command; resolves stdout (unaligned, tuples only) or throws. */
export async function psql(c: Conn, ...commands: string[]): Promise<string> {
  const args = ['-X', '-A', '-t', '-q', '-v', 'ON_ERROR_STOP=1', ...connArgs(c)];
  for (const cmd of commands) args.push('-c', cmd);
  const r = await run('psql', args, c.env);
  if (r.code !== 0) throw new Error(`psql ${commands.join(' ; ')} failed (exit ${r.code}):\n${r.out}`);
  return r.out;
}

/** pgbench -i's four tables at `scale`, created and loaded by \copy. */
export async function loadTpcb(c: Conn, scale: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'paxd-tpcb-'));
  try {
    const lines = (n: number, row: (i: number) => string) => Array.from({ length: n }, (_, i) => row(i + 1)).join('\n') + '\n';
    writeFileSync(join(dir, 'branches.csv'), lines(scale, (i) => `${i},0,`));
    writeFileSync(join(dir, 'tellers.csv'), lines(10 * scale, (i) => `${i},${Math.floor((i - 1) / 10) + 1},0,`));
    writeFileSync(join(dir, 'accounts.csv'), lines(100_000 * scale, (i) => `${i},${Math.floor((i - 1) / 100_000) + 1},0,`));
    await psql(
      c,
      'CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22))',
      'CREATE TABLE pgbench_tellers (tid int NOT NULL, bid int, tbalance int, filler char(84))',
      'CREATE TABLE pgbench_accounts (aid int NOT NULL, bid int, abalance int, filler char(84))',
      'CREATE TABLE pgbench_branches (bid int NOT NULL, bbalance int, filler char(88))',
      `\\copy pgbench_branches FROM '${join(dir, 'branches.csv')}' (FORMAT csv)`,
      `\\copy pgbench_tellers FROM '${join(dir, 'tellers.csv')}' (FORMAT csv)`,
      `\\copy pgbench_accounts FROM '${join(dir, 'accounts.csv')}' (FORMAT csv)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function figure(out: string, re: RegExp): number | null {
  const m = re.exec(out);
  return m === null ? null : Number(m[1]);
}

/** pgbench's built-in tpcb-like script: -n, unlimited retries of 40001, for `seconds`. */
export async function runTpcb(c: Conn, o: { clients: number; threads: number; seconds: number }): Promise<TpcbRun> {
  const r = await run('pgbench', ['-n', '-c', String(o.clients), '-j', String(o.threads), '-T', String(o.seconds), '--max-tries', '0', ...connArgs(c)], c.env);
  const processed = figure(r.out, /number of transactions actually processed: (\d+)/);
  const tps = figure(r.out, /tps = ([\d.]+)/);
  if (processed === null || tps === null) throw new Error(`pgbench did not finish (exit ${r.code}):\n${r.out}`);
  return {
    processed,
    failed: figure(r.out, /number of failed transactions: (\d+)/) ?? 0,
    retried: figure(r.out, /number of transactions retried: (\d+)/) ?? 0,
    tps,
    output: r.out,
  };
}

export async function balances(c: Conn): Promise<Balances> {
  const out = await psql(
    c,
    'SELECT (SELECT coalesce(sum(abalance), 0) FROM pgbench_accounts), (SELECT coalesce(sum(tbalance), 0) FROM pgbench_tellers), ' +
      '(SELECT coalesce(sum(bbalance), 0) FROM pgbench_branches), (SELECT coalesce(sum(delta), 0) FROM pgbench_history), (SELECT count(*) FROM pgbench_history)',
  );
  const [a, t, b, h, n] = out.trim().split('|');
  return { accounts: BigInt(a!), tellers: BigInt(t!), branches: BigInt(b!), history: BigInt(h!), historyRows: Number(n) };
}

/** Null when the four sums agree and history holds one row per committed transaction; else what disagrees. */
export function consistent(b: Balances, r: TpcbRun): string | null {
  const sums = `accounts ${b.accounts}, tellers ${b.tellers}, branches ${b.branches}, history ${b.history}`;
  if (b.accounts !== b.history || b.tellers !== b.history || b.branches !== b.history) return `balances disagree: ${sums}`;
  if (b.historyRows !== r.processed) return `history holds ${b.historyRows} rows, pgbench committed ${r.processed} transactions (${sums})`;
  return null;
}

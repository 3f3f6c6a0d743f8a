/**
 * A throwaway PostgreSQL 15 cluster for tests that compare paxd with the real thing.
 *
 *   const pg = await startPostgres();        // one cluster per test process, started once
 *   await pg.query("SELECT '1e3'::numeric"); // '1000'
 *
 * The cluster lives in a fresh temporary folder, listens on 127.0.0.1 and on a unix socket
 * in that folder, runs with fsync=off, TimeZone=UTC, DateStyle='ISO, MDY', UTF8/C locale, and
 * is stopped (pg_ctl stop -m immediate) and deleted when the process exits. When the test
 * process is root, every PostgreSQL binary runs as the `postgres` OS user (initdb refuses
 * root). Missing binaries are an error, never a skip: CI installs PostgreSQL 15.
 *
 * `query` runs psql (-X -A -t -q) and resolves with its stdout without the final newline;
 * a failing statement rejects with a PgQueryError carrying the SQLSTATE.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Postgres {
  readonly host: string;
  readonly port: number;
  /** The unix socket directory (psql -h). */
  readonly socketDir: string;
  query(sql: string): Promise<string>;
  stop(): Promise<void>;
}

export class PgQueryError extends Error {
  readonly sqlstate: string;
  constructor(sqlstate: string, message: string) {
    super(message);
    this.name = 'PgQueryError';
    this.sqlstate = sqlstate;
  }
}

function findBinDir(): string {
  const candidates: string[] = [];
  const env = process.env['PG_BINDIR'];
  if (env) candidates.push(env);
  const cfg = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (cfg.status === 0) candidates.push(cfg.stdout.trim());
  candidates.push('/usr/lib/postgresql/15/bin');
  for (const dir of candidates) if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  throw new Error(`PostgreSQL binaries not found (looked in ${candidates.join(', ')}; set PG_BINDIR): install postgresql-15`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** argv run as the postgres OS user when we are root. */
function asPg(argv: string[]): [string, string[]] {
  return isRoot ? ['runuser', ['-u', 'postgres', '--', ...argv]] : [argv[0]!, argv.slice(1)];
}

function runSync(argv: string[]): void {
  const [cmd, args] = asPg(argv);
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed (exit ${r.status}): ${r.stderr || r.stdout || String(r.error)}`);
}

let shared: Promise<Postgres> | null = null;

/** The process-wide cluster, started on first call. */
export function startPostgres(): Promise<Postgres> {
  shared ??= start();
  return shared;
}

async function start(): Promise<Postgres> {
  const bin = findBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'paxd-pg-'));
  const data = join(dir, 'data');
  if (isRoot) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error('running as root but there is no `postgres` OS user to run PostgreSQL as');
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  let stopped = false;
  const stopSync = () => {
    if (stopped) return;
    stopped = true;
    const [cmd, args] = asPg([join(bin, 'pg_ctl'), '-D', data, 'stop', '-m', 'immediate', '-w']);
    spawnSync(cmd, args, { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stopSync);
  try {
    runSync([join(bin, 'initdb'), '-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    const port = await freePort();
    const opts = [
      `-p ${port}`,
      `-k ${dir}`,
      `-c listen_addresses=127.0.0.1`,
      `-c fsync=off`,
      `-c synchronous_commit=off`,
      `-c full_page_writes=off`,
      `-c timezone=UTC`,
      `-c datestyle='iso, mdy'`,
    ].join(' ');
    runSync([join(bin, 'pg_ctl'), '-D', data, '-l', join(dir, 'log'), '-o', opts, '-w', '-t', '60', 'start']);
    const psql = join(bin, 'psql');
    const query = (sql: string) => runPsql(psql, dir, port, sql);
    return {
      host: '127.0.0.1',
      port,
      socketDir: dir,
      query,
      stop: async () => {
        stopSync();
        process.removeListener('exit', stopSync);
        shared = null;
      },
    };
  } catch (e) {
    stopSync();
    throw e;
  }
}

function runPsql(psql: string, dir: string, port: number, sql: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const [cmd, args] = asPg([psql, '-X', '-A', '-t', '-q', '-v', 'ON_ERROR_STOP=1', '-v', 'VERBOSITY=verbose', '-h', dir, '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-f', '-']);
    const p = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, PGCLIENTENCODING: 'UTF8' } });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    p.stdout.on('data', (b: Buffer) => out.push(b));
    p.stderr.on('data', (b: Buffer) => err.push(b));
    p.on('error', reject);
    p.on('close', (code) => {
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (code === 0) return resolve(stdout.endsWith('\n') ? stdout.slice(0, -1) : stdout);
      // VERBOSITY verbose: "psql:<stdin>:1: ERROR:  22P02: invalid input syntax ..."
      const m = /ERROR:\s+([0-9A-Z]{5}):\s*(.*)/.exec(stderr);
      reject(m ? new PgQueryError(m[1]!, m[2]!) : new Error(`psql exited with ${code}: ${stderr}`));
    });
    p.stdin.end('\\set VERBOSITY verbose\n' + sql + (sql.trimEnd().endsWith(';') ? '\n' : ';\n'));
  });
}

/**
 * `paxd serve` as a child process under a memory limit, for the hostile-input suites: the CLI
 * from source on `node --max-old-space-size=MB`, the wire server on a free port, trust on
 * loopback, HTTP off unless asked for.
 *
 *   const d = await serveLimited(dir, { heapMb: 1024 });   // d.wirePort, d.pid
 *   await d.stop();
 */
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ROOT } from '../support/spawn.js';

export interface Limited {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly wirePort: number;
  readonly httpPort: number | null;
  readonly out: () => string;
  readonly exited: Promise<number | null>;
  stop(): Promise<void>;
}

export async function serveLimited(data: string, o: { heapMb: number; http?: boolean; args?: string[]; env?: NodeJS.ProcessEnv; nodeArgs?: string[] }): Promise<Limited> {
  const args = ['--max-old-space-size=' + o.heapMb, ...(o.nodeArgs ?? []), '--import', 'tsx', resolve(ROOT, 'test/support/cli.ts'), 'serve', '--data', data, '--listen', '127.0.0.1:0', '--http', o.http === true ? '127.0.0.1:0' : 'off', ...(o.args ?? ['--auth', 'trust'])];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, PAXD_COMPACT_INTERVAL_MS: '0', PAXD_VACUUM_INTERVAL_MS: '0', ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((res) => child.on('exit', (code, signal) => res(code ?? (signal === null ? null : -1))));
  await new Promise<void>((res, rej) => {
    const check = () => {
      const wire = /paxd: listening on \S+:(\d+) /.test(out);
      const http = o.http !== true || /paxd: http on \S+:(\d+)\n/.test(out);
      if (wire && http) res();
    };
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      check();
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    void exited.then((code) => rej(new Error(`paxd serve exited with ${code} before listening:\n${out}`)));
  });
  const wirePort = Number(/paxd: listening on \S+:(\d+) /.exec(out)![1]);
  const h = /paxd: http on \S+:(\d+)\n/.exec(out);
  return {
    child,
    pid: child.pid!,
    wirePort,
    httpPort: h === null ? null : Number(h[1]),
    out: () => out,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The resident set of a process, in bytes (VmRSS of /proc/PID/status); 0 once it is gone. */
export function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? 0 : Number(m[1]) * 1024;
  } catch {
    return 0;
  }
}

/** p50, p99 and max of `xs` (ms). */
export function percentiles(xs: readonly number[]): { n: number; p50: number; p99: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
  return { n: s.length, p50: at(0.5), p99: at(0.99), max: s[s.length - 1] ?? 0 };
}

/** A node-postgres client of the daemon (user paxd, database paxd) or of PostgreSQL (user postgres), over TCP on loopback. */
export async function connect(port: number, user: string): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port, user, database: user === 'postgres' ? 'postgres' : 'paxd' });
  await c.connect();
  c.on('error', () => {});
  return c;
}

/** Runs `sql`; its SQLSTATE ('' when it answered, with its rows as JSON) and how long it took. */
export async function outcome(c: pg.Client, sql: string): Promise<{ code: string; ms: number; message: string; rows?: string }> {
  const t0 = performance.now();
  try {
    const r = await c.query({ text: sql, rowMode: 'array' });
    return { code: '', ms: performance.now() - t0, message: '', rows: JSON.stringify(r.rows) };
  } catch (e) {
    const x = e as { code?: string; message?: string };
    return { code: x.code ?? 'none', ms: performance.now() - t0, message: (x.message ?? '').slice(0, 120) };
  }
}

/**
 * `paxd serve` as a child process (the CLI from source) for the daemon's HTTP tests: started on
 * a free HTTP port, its output collected.
 *
 *   const s = await serveCli(dir, ['--users', usersFile]);   // s.base === 'http://127.0.0.1:PORT'
 *   await stopCli(s);                                         // SIGTERM, then waits for the exit
 */
import type { ChildProcess } from 'node:child_process';
import { spawnTs } from '../support/spawn.js';

export interface Served {
  child: ChildProcess;
  base: string;
  port: number;
  /** The wire server's port, when it listens (`--listen 127.0.0.1:0` among the arguments). */
  wirePort: number | null;
  out: () => string;
  exited: Promise<number | null>;
}

/**
 * `paxd serve` on a free HTTP port, the wire server off unless `args` say; resolves once it says
 * where HTTP is. With no users and no method in `args` or `env`, `--auth trust` (on loopback):
 * a test that wants the daemon's default (the generated password) passes `{ trust: false }`.
 */
export async function serveCli(data: string, args: string[] = [], env: NodeJS.ProcessEnv = {}, o: { trust?: boolean } = {}): Promise<Served> {
  const says = args.some((a) => a === '--users' || a === '--auth' || a === '--config') || env.PAXD_USERS !== undefined || env.PAXD_AUTH_METHOD !== undefined;
  const trust = (o.trust ?? true) && !says ? ['--auth', 'trust'] : [];
  const child = spawnTs('test/support/cli.ts', ['serve', '--data', data, '--listen', 'off', '--http', '127.0.0.1:0', ...trust, ...args], {
    PAXD_COMPACT_INTERVAL_MS: '0',
    PAXD_VACUUM_INTERVAL_MS: '0',
    ...env,
  });
  let out = '';
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /paxd: http on \S+:(\d+)\n/.exec(out);
      if (m !== null) resolve(Number(m[1]));
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    void exited.then((code) => reject(new Error(`paxd serve exited with ${code} before listening:\n${out}`)));
  });
  const wire = /paxd: listening on \S+:(\d+) /.exec(out);
  return { child, base: `http://127.0.0.1:${port}`, port, wirePort: wire === null ? null : Number(wire[1]), out: () => out, exited };
}

export async function stopCli(s: Served): Promise<void> {
  if (s.child.exitCode === null) s.child.kill('SIGTERM');
  await s.exited;
}

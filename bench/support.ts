/**
 * What several benches share: saving a run's figures, and `paxd serve` as a child process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Writes `data` to bench/results/<name>-<time>.json and says where on stderr. */
export function saveResults(name: string, data: unknown): void {
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(data, null, 2) + '\n');
  process.stderr.write(`results: ${file}\n`);
}

export interface PaxdChild {
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * `paxd serve` from source on 127.0.0.1:<free port>, trust, no HTTP API; resolves once listening.
 * PAXD_BENCH_SERVE_NODE_ARGS adds node options to the server only, to profile its side:
 * `PAXD_BENCH_SERVE_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' npm run bench -- copy`.
 */
export async function startPaxd(dir: string): Promise<PaxdChild> {
  const cli = fileURLToPath(new URL('../test/support/cli.ts', import.meta.url));
  const child: ChildProcess = spawn(
    process.execPath,
    [...(process.env.PAXD_BENCH_SERVE_NODE_ARGS ?? '').split(' ').filter((a) => a !== ''), '--import', 'tsx', cli, 'serve', '--data', dir, '--listen', '127.0.0.1:0', '--auth', 'trust', '--http', 'off', '--log-level', 'warn'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let text = '';
    const onData = (b: Buffer) => {
      text += b.toString('utf8');
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(text);
      if (m !== null) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`paxd serve exited with ${code} before listening: ${text}`)));
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  return {
    port,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      process.removeListener('exit', killOnExit);
    },
  };
}

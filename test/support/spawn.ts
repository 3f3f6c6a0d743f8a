/** Spawning paxd's own TypeScript entry points as child processes (through tsx). */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

export function spawnTs(script: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs the paxd CLI from source; resolves with exit code, stdout and stderr. */
export function runCli(args: string[], opts: { env?: NodeJS.ProcessEnv; stdin?: Uint8Array } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'test/support/cli.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...opts.env },
      stdio: [opts.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('error', rej);
    child.on('close', (code) => res({ code: code ?? -1, stdout, stderr }));
    if (opts.stdin) child.stdin!.end(opts.stdin);
  });
}

/**
 * Child processes that must start many times (crash tests kill one per round) start in
 * ~0.1 s as one bundled ES module instead of ~1 s through tsx's per-file transpiling. The
 * bundle lands in node_modules/.cache (so that the packages it leaves external resolve from
 * the project) and is rebuilt per test process. esbuild comes with tsx.
 */
import { buildSync } from 'esbuild';
import { mkdirSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT } from './spawn.js';

const built = new Map<string, string>();

/** Path of `script` (relative to the project root) bundled into one .mjs file. */
export function bundled(script: string): string {
  let out = built.get(script);
  if (out === undefined) {
    const dir = resolve(ROOT, 'node_modules/.cache/paxd-test');
    mkdirSync(dir, { recursive: true });
    out = resolve(dir, `${basename(script, '.ts')}-${process.pid}.mjs`);
    buildSync({ entryPoints: [resolve(ROOT, script)], bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', outfile: out, logLevel: 'error' });
    built.set(script, out);
  }
  return out;
}

/** Spawns a bundled script with plain node. Encoder and parser threads are off: the bundle has no worker entry. */
export function spawnBundled(script: string, args: string[]): ChildProcess {
  return spawn(process.execPath, [bundled(script), ...args], {
    cwd: ROOT,
    env: { ...process.env, PAXD_ENCODE_THREADS: '0', PAXD_PARSE_THREADS: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

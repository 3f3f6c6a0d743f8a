/**
 * `npm run bench -- startup [--runs 5] [--no-build]`: paxd's start-up as whole processes
 * (issue #16's targets: `paxd --help` under 100 ms, `paxd sql "select 1"` under 200 ms,
 * `paxd ingest` of a 10,000-row CSV under 300 ms, each the median of 5), beside `node -e ''`.
 * Runs `npm run build` first (bin/paxd.js runs the CLI bundle it makes) unless --no-build.
 *
 * Prints, per command, the median wall time and the median CPU time (user + system, from the
 * child's rusage through bash's `times`). On a machine shared with other work the wall time
 * moves with the load (which the output prints) and the CPU time much less: compare CPU
 * figures, and ratios to `node -e ''`, across runs. NODE_EXTRA_CA_CERTS is unset for the
 * children (Node loads the certificates at start: about 80 ms).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { saveResults } from './support.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const out = (s: string) => process.stdout.write(s + '\n');

interface Figure {
  readonly command: string;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly target: number | null;
}

/** Wall and CPU ms of one run of `argv` (bash's `times`: the children's user and system time). */
function timeOnce(argv: readonly string[], env: NodeJS.ProcessEnv): { wall: number; cpu: number } {
  const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const t = performance.now();
  const r = spawnSync('bash', ['-c', `${quoted} >/dev/null 2>&1; times`], { cwd: ROOT, env, encoding: 'utf8' });
  const wall = performance.now() - t;
  // `times` prints the shell's own times, then its children's: `0m0.052s 0m0.012s`.
  const line = r.stdout.trim().split('\n')[1] ?? '';
  const secs = [...line.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  if (secs.length !== 2) throw new Error(`bench startup: cannot read the CPU times of ${quoted}: ${JSON.stringify(r.stdout)}`);
  return { wall, cpu: (secs[0]! + secs[1]!) * 1000 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(args: string[]): Promise<void> {
  const i = args.indexOf('--runs');
  const runs = i >= 0 ? Math.floor(Number(args[i + 1])) : 5;
  if (!(runs > 0)) throw new RangeError('--runs must be a positive number');
  if (!args.includes('--no-build')) {
    const b = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    if (b.status !== 0) throw new Error('bench startup: npm run build failed');
  }
  const dir = mkdtempSync(join(tmpdir(), 'paxd-startup-'));
  try {
    const csv = join(dir, 't.csv');
    const lines = ['id,name,v,d'];
    for (let r = 0; r < 10_000; r++) lines.push(`${r},name${r},${((r * 7919) % 100_000) / 100},2024-01-${String(1 + (r % 28)).padStart(2, '0')}`);
    writeFileSync(csv, `${lines.join('\n')}\n`);
    const env = { ...process.env };
    delete env.NODE_EXTRA_CA_CERTS;
    out(`startup bench: median of ${runs}; node ${process.version}, ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} at start`);
    const paxd = ['node', join(ROOT, 'bin/paxd.js')];
    const cases: { command: string; target: number | null; argv: (k: number) => string[]; env?: (k: number) => NodeJS.ProcessEnv }[] = [
      { command: "node -e ''", target: null, argv: () => ['node', '-e', ''] },
      { command: 'paxd --help', target: 100, argv: () => [...paxd, '--help'] },
      { command: 'paxd sql "select 1"', target: 200, argv: () => [...paxd, 'sql', 'select 1'], env: () => ({ ...env, PAXD_DATA: join(dir, 'sql') }) },
      { command: 'paxd ingest (10,000-row CSV, --create)', target: 300, argv: () => [...paxd, 'ingest', 't', csv, '--create', '--header'], env: (k) => ({ ...env, PAXD_DATA: join(dir, `ingest-${k}`) }) },
    ];
    const figures: Figure[] = [];
    for (const c of cases) {
      const walls: number[] = [];
      const cpu: number[] = [];
      for (let k = 0; k < runs; k++) {
        const r = timeOnce(c.argv(k), c.env?.(k) ?? env);
        walls.push(r.wall);
        cpu.push(r.cpu);
      }
      const f = { command: c.command, wallMs: median(walls), cpuMs: median(cpu), target: c.target };
      figures.push(f);
      const verdict = c.target === null ? '' : `  target < ${c.target} ms: ${f.wallMs < c.target ? 'met' : 'missed'} (wall)`;
      out(`${c.command.padEnd(40)} wall ${f.wallMs.toFixed(0).padStart(5)} ms   cpu ${f.cpuMs.toFixed(0).padStart(5)} ms${verdict}`);
    }
    out(`load average ${loadavg()[0]!.toFixed(1)} at the end`);
    saveResults('startup', { runs, loadavg: loadavg(), figures });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

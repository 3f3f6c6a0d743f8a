/**
 * The test entry point (`npm test`). Runs every `test/**\/*.test.ts` with uvu and ends with
 * the line CI reads: `N passed, N failed`. Exits non-zero on any failure, on a skipped test
 * (a skipped test left in is a defect) and when no test ran.
 *
 *   npm test                  every test file
 *   npm test -- storage pax   only files whose path contains one of the words
 *
 * Each file runs in a process of its own (this script with `--one FILE`): a file's threads,
 * WebAssembly instances and PostgreSQL cluster end with it, so a long run does not grow one
 * process until fork() fails (`spawn ENOMEM` seen on 2-core CI machines once a single process
 * had run ~100 files), and no file sees another's state.
 *
 * Files run PAXD_TEST_JOBS at a time (default: one per core), each file's output printed
 * whole when it ends. A file that times what it tests (a cancel that must land within a bound,
 * a probe's p99 while another session works) runs alone, after the others, so that no other
 * file's load is in its figures: see `runsAlone`.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

type Runner = () => Promise<[string | true, number, number, number]>;
const g = globalThis as unknown as { UVU_DEFER: number; UVU_INDEX: number; UVU_QUEUE: unknown[][] };

function findTests(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...findTests(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const root = resolve(import.meta.dirname);
const args = process.argv.slice(2);

if (args[0] === '--one') await runOne(args[1]!);
else await runAll(args);

/**
 * Whether `file` must run with no other test file beside it: it reads a clock to measure
 * (performance.now, hrtime, an elapsed `Date.now() - t`), drives the hostile daemon harness
 * (which times every probe), or says `test-runs-alone` in a comment.
 */
function runsAlone(file: string): boolean {
  const text = readFileSync(file, 'utf8');
  return /performance\.now|hrtime|Date\.now\(\) - |hostile\/daemon|'\.\/daemon\.js'|test-runs-alone/.test(text);
}

/** Every matching file, each in a child process; the summary line CI reads. */
async function runAll(filters: string[]): Promise<void> {
  const files = findTests(root).filter((f) => filters.length === 0 || filters.some((w) => relative(root, f).includes(w)));
  const jobs = Math.max(1, Number(process.env.PAXD_TEST_JOBS ?? availableParallelism()) || 1);
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const started = Date.now();
  const count = (r: { passed: number; failed: number; skipped: number }) => {
    passed += r.passed;
    failed += r.failed;
    skipped += r.skipped;
  };
  const alone = files.filter(runsAlone);
  const shared = files.filter((f) => !alone.includes(f));
  let next = 0;
  const worker = async () => {
    while (next < shared.length) count(await runChild(shared[next++]!, jobs > 1));
  };
  await Promise.all(Array.from({ length: Math.min(jobs, shared.length) }, worker));
  for (const file of alone) count(await runChild(file, false));
  process.stdout.write(`\n${files.length} files (${alone.length} of them alone), ${jobs} at a time, ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  if (skipped > 0) process.stdout.write(`${skipped} skipped: skipped tests are not allowed\n`);
  if (passed + failed === 0) process.stdout.write('no test ran\n');
  process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  process.exitCode = failed > 0 || skipped > 0 || passed === 0 ? 1 : 0;
}

/**
 * One file in a child process; a child that dies or says nothing counts as one failure. Its
 * output (stdout and stderr, in the order they came) is passed through as it comes, or, when
 * `held` (other files run beside it), kept and printed whole when it ends.
 */
function runChild(file: string, held: boolean): Promise<{ passed: number; failed: number; skipped: number }> {
  return new Promise((resolvePromise) => {
    const began = Date.now();
    const child = spawn(process.execPath, [...process.execArgv, import.meta.filename, '--one', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const kept: Buffer[] = [];
    const out = (to: NodeJS.WriteStream) => (d: Buffer) => (held ? kept.push(d) : to.write(d));
    child.stdout.on('data', (d: Buffer) => {
      out(process.stdout)(d);
      tail = (tail + d.toString('utf8')).slice(-4096);
    });
    child.stderr.on('data', out(process.stderr));
    let ended = false;
    const done = (why: string | null) => {
      if (ended) return;
      ended = true;
      if (held) process.stdout.write(Buffer.concat(kept));
      process.stdout.write(`(${relative(root, file)}: ${((Date.now() - began) / 1000).toFixed(1)} s)\n`);
      const m = /RESULT (\d+) (\d+) (\d+)\n/.exec(tail);
      if (m !== null && why === null) resolvePromise({ passed: Number(m[1]), failed: Number(m[2]), skipped: Number(m[3]) });
      else {
        process.stdout.write(`\n   FAIL  ${relative(root, file)}: ${why ?? 'the test process ended without its result'}\n`);
        resolvePromise({ passed: m === null ? 0 : Number(m[1]), failed: (m === null ? 0 : Number(m[2])) + 1, skipped: m === null ? 0 : Number(m[3]) });
      }
    };
    child.once('error', (e) => done(`could not start the test process: ${e.message}`));
    // Exit 1 is a crash (an uncaught error): then the RESULT line is missing and that is the failure.
    // Its output is read to the end (or for 0.5 s more, when a process it left behind holds the pipe).
    child.once('exit', (code, signal) => {
      const end = () =>
        done(signal !== null ? `the test process was killed by ${signal}` : code === 0 || code === 1 ? null : `the test process exited with ${code}`);
      if (child.stdout.readableEnded) return end();
      const t = setTimeout(end, 500);
      child.stdout.once('end', () => {
        clearTimeout(t);
        end();
      });
    });
  });
}

/** The tests of one file, in this process; ends with `RESULT passed failed skipped` for runAll. */
async function runOne(file: string): Promise<void> {
  g.UVU_DEFER = 1;
  g.UVU_QUEUE = [];
  await import('uvu');
  g.UVU_INDEX = 0;
  g.UVU_QUEUE.push([relative(root, file)]);
  await import(pathToFileURL(file).href);
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const group of g.UVU_QUEUE) {
    const name = group.shift() as string;
    process.stdout.write(`${name}\n`);
    for (const run of group as Runner[]) {
      const [errs, ran, skip, total] = await run();
      passed += ran;
      failed += total - ran;
      skipped += skip;
      if (errs !== true) process.stdout.write(`\n${errs}\n`);
    }
  }
  // Leftover handles (a server a failed test did not close) must not keep the file running.
  process.stdout.write(`RESULT ${passed} ${failed} ${skipped}\n`, () => process.exit(0));
}

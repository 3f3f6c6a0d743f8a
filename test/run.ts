/**
 * The test entry point (`npm test`). Runs every `test/**\/*.test.ts` with uvu and ends with
 * the line CI reads: `N passed, N failed`. Exits non-zero on any failure, on a skipped test
 * (a skipped test left in is a defect) and when no test ran.
 *
 *   npm test                  every test file
 *   npm test -- storage pax   only files whose path contains one of the words
 *
 * Each file runs in a process of its own (this script with `--one FILE`), one after another:
 * a file's threads, WebAssembly instances and PostgreSQL cluster end with it, so a long run
 * does not grow one process until fork() fails (`spawn ENOMEM` seen on 2-core CI machines
 * once a single process had run ~100 files), and no file sees another's state.
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
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

/** Every matching file, each in a child process; the summary line CI reads. */
async function runAll(filters: string[]): Promise<void> {
  const files = findTests(root).filter((f) => filters.length === 0 || filters.some((w) => relative(root, f).includes(w)));
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const started = Date.now();
  for (const file of files) {
    const r = await runChild(file);
    passed += r.passed;
    failed += r.failed;
    skipped += r.skipped;
  }
  process.stdout.write(`\n${files.length} files, ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  if (skipped > 0) process.stdout.write(`${skipped} skipped: skipped tests are not allowed\n`);
  if (passed + failed === 0) process.stdout.write('no test ran\n');
  process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  process.exitCode = failed > 0 || skipped > 0 || passed === 0 ? 1 : 0;
}

/** One file in a child process, its output passed through; a child that dies or says nothing counts as one failure. */
function runChild(file: string): Promise<{ passed: number; failed: number; skipped: number }> {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [...process.execArgv, import.meta.filename, '--one', file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let tail = '';
    child.stdout.on('data', (d: Buffer) => {
      process.stdout.write(d);
      tail = (tail + d.toString('utf8')).slice(-4096);
    });
    const done = (why: string | null) => {
      const m = /RESULT (\d+) (\d+) (\d+)\n/.exec(tail);
      if (m !== null && why === null) resolvePromise({ passed: Number(m[1]), failed: Number(m[2]), skipped: Number(m[3]) });
      else {
        process.stdout.write(`\n   FAIL  ${relative(root, file)}: ${why ?? 'the test process ended without its result'}\n`);
        resolvePromise({ passed: m === null ? 0 : Number(m[1]), failed: (m === null ? 0 : Number(m[2])) + 1, skipped: m === null ? 0 : Number(m[3]) });
      }
    };
    child.once('error', (e) => done(`could not start the test process: ${e.message}`));
    // Exit 1 is a crash (an uncaught error): then the RESULT line is missing and that is the failure.
    child.once('exit', (code, signal) => done(signal !== null ? `the test process was killed by ${signal}` : code === 0 || code === 1 ? null : `the test process exited with ${code}`));
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

/**
 * The test entry point (`npm test`). Runs every `test/**\/*.test.ts` with uvu and ends with
 * the line CI reads: `N passed, N failed`. Exits non-zero on any failure, on a skipped test
 * (a skipped test left in is a defect) and when no test ran.
 *
 *   npm test                  every test file
 *   npm test -- storage pax   only files whose path contains one of the words
 */
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
const filters = process.argv.slice(2);
const files = findTests(root).filter((f) => filters.length === 0 || filters.some((w) => relative(root, f).includes(w)));

g.UVU_DEFER = 1;
g.UVU_QUEUE = [];
await import('uvu');
let idx = 0;
for (const file of files) {
  g.UVU_INDEX = idx++;
  g.UVU_QUEUE.push([relative(root, file)]);
  await import(pathToFileURL(file).href);
}

let passed = 0;
let failed = 0;
let skipped = 0;
const started = Date.now();
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
process.stdout.write(`\n${files.length} files, ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
if (skipped > 0) process.stdout.write(`${skipped} skipped: skipped tests are not allowed\n`);
if (passed + failed === 0) process.stdout.write('no test ran\n');
process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exitCode = failed > 0 || skipped > 0 || passed === 0 ? 1 : 0;

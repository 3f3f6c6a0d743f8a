/**
 * Memory (README.md "Guarantees"): a 1,000-column table ingests within the same byte budget
 * as a 10-column table. Both children ingest the same number of bytes (128 MiB of int8) with
 * a row cap so high that the sink's row-group byte budget (64 MiB by default, across all
 * columns) is what cuts the groups of both: their peak RSS must be alike.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnTs } from '../support/spawn.js';
import { tempDir } from '../support/tmp.js';

function run(cols: number, rows: number): Promise<{ maxRssMB: number; rows: number; groups: number }> {
  return new Promise((res, rej) => {
    const child = spawnTs('test/support/wide-ingest.ts', [tempDir(), String(cols), String(rows)]);
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    child.on('exit', (code) => (code === 0 ? res(JSON.parse(out)) : rej(new Error(`exit ${code}: ${err}`))));
  });
}

test('1,000 columns ingest with the same memory budget as 10 columns', async () => {
  const narrow = await run(10, 1_638_400);
  const wide = await run(1000, 16_384);
  process.stdout.write(` [peak RSS: 10 columns ${narrow.maxRssMB} MB (${narrow.groups} groups), 1,000 columns ${wide.maxRssMB} MB (${wide.groups} groups)] `);
  assert.is(narrow.rows, 1_638_400);
  assert.is(wide.rows, 16_384);
  assert.ok(wide.groups > 1 && narrow.groups > 1, 'the byte budget should cut both tables into several groups');
  assert.ok(wide.maxRssMB < narrow.maxRssMB * 1.25 + 32, `1,000 columns peaked at ${wide.maxRssMB} MB, 10 columns at ${narrow.maxRssMB} MB`);
  assert.ok(wide.maxRssMB < 600, `1,000 columns peaked at ${wide.maxRssMB} MB`);
});

test.run();

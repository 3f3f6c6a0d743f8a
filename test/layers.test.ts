/**
 * The layer check (`npm run layers`, .dependency-cruiser.cjs): the real tree passes it, and the
 * real configuration run over a fake tree (fixtures/layers/) reports exactly its bad imports —
 * a deep import, an upward import, a cycle, scan and insert used together above src/table,
 * pgwire importing mirror, and an import of the library API from inside src/ — naming both files of each.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const CONFIG = resolve(ROOT, '.dependency-cruiser.cjs');
const FIXTURE = resolve(ROOT, 'fixtures/layers');
const BIN = resolve(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

function cruise(cwd: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, 'src', '--config', CONFIG, ...args], { cwd, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Violation {
  readonly from: string;
  readonly to: string;
  readonly rule: { readonly name: string };
  readonly cycle?: readonly { readonly name: string }[];
}

test('the fake tree: exactly its six bad imports, each named with both files', () => {
  const json = cruise(FIXTURE, ['--output-type', 'json']);
  assert.is(json.status, 0, json.stderr); // the json reporter does not set the exit code; the text run below does
  const violations = (JSON.parse(json.stdout) as { summary: { violations: Violation[] } }).summary.violations;
  const found = violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
  assert.equal(found, [
    'deep-import: src/storage/put.ts → src/types/row.ts',
    'front-doors-apart: src/pgwire/catalog.ts → src/mirror/index.ts',
    'layer-order: src/scan/reader.ts → src/table/index.ts',
    'library-api: src/cli/main.ts → src/index.ts',
    'no-cycle: src/pax/a.ts → src/pax/b.ts',
    'scan-and-insert-meet-in-table: src/engine/plan.ts → src/insert/index.ts',
  ]);
  const cycle = violations.find((v) => v.rule.name === 'no-cycle')!;
  assert.equal(cycle.cycle!.map((c) => c.name), ['src/pax/b.ts', 'src/pax/a.ts']);

  const text = cruise(FIXTURE, []);
  assert.is(text.status, 6);
  assert.ok(text.stdout.includes('error deep-import: src/storage/put.ts → src/types/row.ts'), text.stdout);
  assert.ok(text.stdout.includes('error layer-order: src/scan/reader.ts → src/table/index.ts'), text.stdout);
  assert.ok(text.stdout.includes('error scan-and-insert-meet-in-table: src/engine/plan.ts → src/insert/index.ts'), text.stdout);
  assert.ok(text.stdout.includes('error front-doors-apart: src/pgwire/catalog.ts → src/mirror/index.ts'), text.stdout);
  assert.ok(text.stdout.includes('error library-api: src/cli/main.ts → src/index.ts'), text.stdout);
  assert.ok(/error no-cycle: src\/pax\/a\.ts → \s+src\/pax\/b\.ts →\s+src\/pax\/a\.ts/.test(text.stdout), text.stdout);
});

test('the real tree passes npm run layers; the only known violations are cycles', () => {
  const script = (JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.layers!;
  const args = script.split(' ');
  assert.equal(args.slice(0, 4), ['depcruise', 'src', '--config', '.dependency-cruiser.cjs']);
  const r = cruise(ROOT, args.slice(4));
  assert.is(r.status, 0, r.stdout + r.stderr);
  const known = JSON.parse(readFileSync(resolve(ROOT, '.dependency-cruiser-known-violations.json'), 'utf8')) as Violation[];
  // None are left today (the engine's and pgwire/session's cycles are gone); any that come back may only be cycles.
  assert.equal(known.filter((v) => v.rule.name !== 'no-cycle'), []);
});

test.run();

/**
 * Corruption (README.md "Guarantees"): 1,000+ random single-byte flips and truncations of
 * data files and snapshots. Each read either fails with a corruption error (XX001) naming the
 * damaged file and an offset, or — only where the damage cannot matter to it — returns exactly
 * the committed content. Never a wrong answer, a crash or a hang. Then a torn-write sweep:
 * the newest snapshot truncated at every byte offset opens at the previous snapshot.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { join, basename } from 'node:path';
import { Database } from '../../src/database.js';
import { PaxdError } from '../../src/types/errors.js';
import type { Column } from '../../src/types/column.js';
import { Rng, randomColumn, testSeed } from '../support/random.js';
import { tempDir } from '../support/tmp.js';
import { assertColumnEqual, readAll } from '../support/columns.js';

const COLUMNS = [
  { name: 'id', type: 'int8', notNull: true },
  { name: 'name', type: 'text' },
  { name: 'x', type: 'float8' },
  { name: 'price', type: 'numeric(12,2)' },
  { name: 'flag', type: 'bool' },
  { name: 'day', type: 'date' },
] as const;

interface Fixture {
  dir: string;
  /** Content after each commit, by snapshot id. */
  content: Map<number, Column[]>;
  newest: number;
}

async function fixture(rng: Rng, codec: 'lz4' | 'zstd' | 'none'): Promise<Fixture> {
  const dir = tempDir();
  const db = await Database.open(dir);
  const t = await db.createTable('c', COLUMNS.map((c) => ({ ...c })), { codec, rowGroupRows: 2048, zoneRows: 1024 });
  const content = new Map<number, Column[]>();
  content.set(t.snapshot.id, await readAll(t.scan()));
  for (let commit = 0; commit < 3; commit++) {
    const n = 2500 + commit * 700;
    const sink = t.sink();
    await sink.write({ length: n, columns: t.fields.map((f) => randomColumn(f.type, n, rng, f.notNull ? 0 : 0.1)), selection: null });
    const r = await sink.commit();
    await t.refresh();
    content.set(r.snapshot.id, await readAll(t.scan()));
  }
  const newest = t.snapshot.id;
  await db.close();
  return { dir, content, newest };
}

async function readTable(dir: string): Promise<{ id: number; columns: Column[] }> {
  const db = await Database.open(dir);
  try {
    const t = await db.table('c');
    return { id: t.snapshot.id, columns: await readAll(t.scan()) };
  } finally {
    await db.close();
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, rej) => (timer = setTimeout(() => rej(new Error(`${what}: hung for ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}

function sameContent(got: Column[], want: Column[], what: string): void {
  got.forEach((c, i) => assertColumnEqual(c, want[i]!, `${what}: column ${COLUMNS[i]!.name}`));
}

for (const codec of ['lz4', 'zstd', 'none'] as const) {
  test(`random flips and truncations of data files and snapshots (${codec})`, async () => {
    const rng = new Rng(testSeed() + codec.length);
    const fx = await fixture(rng, codec);
    const snapDir = join(fx.dir, 'c', '_snapshots');
    const dataDir = join(fx.dir, 'c', 'data');
    const snaps = readdirSync(snapDir).filter((f) => f.endsWith('.snap')).map((f) => join(snapDir, f)).sort();
    const datas = readdirSync(dataDir).map((f) => join(dataDir, f));
    const newestSnap = snaps[snaps.length - 1]!;
    let errors = 0;
    let harmless = 0;
    const iterations = 400;
    for (let i = 0; i < iterations; i++) {
      const r = rng.next();
      const file = r < 0.7 ? rng.pick(datas) : r < 0.9 ? newestSnap : rng.pick(snaps);
      const original = readFileSync(file);
      const damaged = Buffer.from(original);
      let what: string;
      let out: Buffer;
      if (rng.chance(0.75)) {
        const at = rng.int(0, original.length - 1);
        damaged[at] = damaged[at]! ^ rng.int(1, 255);
        out = damaged;
        what = `flip at ${at} of ${basename(file)}`;
      } else {
        const len = rng.int(0, original.length - 1);
        out = damaged.subarray(0, len);
        what = `truncation to ${len} of ${basename(file)}`;
      }
      writeFileSync(file, out);
      try {
        const got = await withTimeout(readTable(fx.dir), 10_000, what);
        // No error: allowed only where the damage cannot reach this read.
        const truncatedNewest = file === newestSnap && out.length < original.length;
        if (file !== newestSnap && snaps.includes(file)) sameContent(got.columns, fx.content.get(fx.newest)!, what);
        else if (truncatedNewest) {
          assert.is(got.id, fx.newest - 1, `${what}: a torn newest snapshot opens at the previous one`);
          sameContent(got.columns, fx.content.get(fx.newest - 1)!, what);
        } else assert.unreachable(`${what}: read returned rows instead of failing`);
        harmless++;
      } catch (e) {
        if (!(e instanceof PaxdError)) throw new Error(`${what}: not a PaxdError: ${(e as Error).stack}`);
        assert.is(e.kind, 'corruption', `${what}: ${e.message}`);
        assert.is(e.code, 'XX001', `${what}: ${e.message}`);
        assert.ok(e.file?.endsWith(basename(file)), `${what}: error names ${e.file}: ${e.message}`);
        assert.type(e.offset, 'number', `${what}: error has an offset: ${e.message}`);
        errors++;
      } finally {
        writeFileSync(file, original);
      }
    }
    assert.is(errors + harmless, iterations);
    assert.ok(errors > iterations / 2, `only ${errors} of ${iterations} damages were errors`);
    // restored: reads cleanly again
    sameContent((await readTable(fx.dir)).columns, fx.content.get(fx.newest)!, 'restored');
  });
}

test('torn-write sweep: the newest snapshot truncated at every offset opens at the previous snapshot', async () => {
  const fx = await fixture(new Rng(testSeed()), 'lz4');
  const snapDir = join(fx.dir, 'c', '_snapshots');
  const newestSnap = join(snapDir, readdirSync(snapDir).filter((f) => f.endsWith('.snap')).sort().pop()!);
  const original = readFileSync(newestSnap);
  const previous = fx.content.get(fx.newest - 1)!;
  try {
    for (let len = 0; len < original.length; len++) {
      writeFileSync(newestSnap, original.subarray(0, len));
      const got = await readTable(fx.dir);
      assert.is(got.id, fx.newest - 1, `truncated to ${len}`);
      if (len % 97 === 0) sameContent(got.columns, previous, `truncated to ${len}`);
    }
  } finally {
    writeFileSync(newestSnap, original);
  }
  assert.is((await readTable(fx.dir)).id, fx.newest);
});

test.run();

/**
 * Corruption (README.md "Guarantees"): 1,000+ random single-byte flips and truncations of
 * data files and snapshots. Each read either fails with a corruption error (XX001) naming the
 * damaged file and an offset, or — only where the damage cannot matter to it — returns exactly
 * the committed content. Never a wrong answer, a crash or a hang. Then a sweep over every
 * byte of the newest snapshot.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { join, basename } from 'node:path';
import { Database } from '../../src/table/database.js';
import { PaxdError } from '../../src/types/errors.js';
import type { Column } from '../../src/types/column.js';
import { Rng, randomColumn, testSeed } from '../support/random.js';
import { tempDir } from '../support/tmp.js';
import { assertColumnEqual, readAll } from '../support/columns.js';
import { columnOf } from '../../src/types/builder.js';
import { parseTypeName } from '../../src/types/parse-type.js';
import { P } from '../../src/scan/predicate.js';
import { query } from '../../src/engine/index.js';
import { buildProgram } from '../../src/cli/main.js';

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
        if (file !== newestSnap && snaps.includes(file)) sameContent(got.columns, fx.content.get(fx.newest)!, what);
        else assert.unreachable(`${what}: read returned rows instead of failing`);
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

/**
 * The newest snapshot damaged at every byte: truncated to each length, and each byte with one
 * bit flipped. Snapshots are fsynced before link(), so no crash leaves a short one: every
 * damage is corruption (XX001 naming the file and an offset), never a fallback to the snapshot
 * before it (that would bring deleted rows back). Opening, `paxd check`, an INSERT through a
 * table pinned before the damage, and vacuum all fail; nothing is committed on top and vacuum
 * deletes nothing.
 */
test('the newest snapshot truncated or bit-flipped at every byte: XX001 everywhere, nothing committed, nothing vacuumed', async () => {
  const dir = tempDir();
  const db = await Database.open(dir);
  const t = await db.createTable('c', [{ name: 'id', type: 'int8', notNull: true }], { rowGroupRows: 64, zoneRows: 1024 });
  const ids = (xs: number[]) => ({ length: xs.length, columns: [columnOf(parseTypeName('int8'), xs.map(BigInt))], selection: null });
  const s1 = t.sink();
  await s1.write(ids([1, 2, 3]));
  await s1.commit();
  await t.refresh();
  await t.delete(P.eq('id', 2n)); // the newest snapshot deletes a row: a fallback would bring it back
  await t.refresh();
  const pinned = await db.table('c');
  const snapDir = join(dir, 'c', '_snapshots');
  const listing = () => readdirSync(snapDir).sort().join(' ');
  const before = listing();
  const newestSnap = join(snapDir, readdirSync(snapDir).filter((f) => f.endsWith('.snap')).sort().pop()!);
  const original = readFileSync(newestSnap);
  const rng = new Rng(testSeed());

  async function mustFail(what: string, run: () => Promise<unknown>): Promise<void> {
    let e: unknown;
    try {
      await run();
    } catch (x) {
      e = x;
    }
    if (!(e instanceof PaxdError)) throw new Error(`${what}: expected XX001, got ${e === undefined ? 'success' : (e as Error).stack}`);
    assert.is(e.code, 'XX001', `${what}: ${e.message}`);
    assert.ok(e.file?.endsWith(basename(newestSnap)), `${what}: names ${e.file}: ${e.message}`);
    assert.type(e.offset, 'number', `${what}: ${e.message}`);
  }

  async function everyDoor(damage: string, bytes: Uint8Array, cli: boolean): Promise<void> {
    writeFileSync(newestSnap, bytes);
    const other = await Database.open(dir);
    try {
      await mustFail(`${damage}: open`, () => other.table('c'));
      await mustFail(`${damage}: SELECT`, () => query(other, 'SELECT count(*) FROM c'));
      await mustFail(`${damage}: vacuum`, () => other.vacuum('c', { graceMs: 0, retainSnapshots: 1 }));
    } finally {
      await other.close();
    }
    await mustFail(`${damage}: INSERT`, async () => {
      const s = pinned.sink();
      await s.write(ids([4]));
      await s.commit();
    });
    if (cli) {
      const argv = ['check', 'c', '--data', dir];
      await mustFail(`${damage}: paxd check`, async () => (await buildProgram(argv, () => undefined)).parseAsync(argv, { from: 'user' }));
    }
    assert.is(listing(), before, `${damage}: the snapshots folder changed`);
  }

  try {
    for (let len = 0; len < original.length; len++) await everyDoor(`truncated to ${len}`, original.subarray(0, len), len % 64 === 0);
    for (let at = 0; at < original.length; at++) {
      const flipped = Buffer.from(original);
      flipped[at] = flipped[at]! ^ (1 << rng.int(0, 7));
      await everyDoor(`bit flipped at ${at}`, flipped, at % 64 === 0);
    }
  } finally {
    writeFileSync(newestSnap, original);
  }
  const again = await db.table('c');
  assertColumnEqual((await readAll(again.scan()))[0]!, columnOf(parseTypeName('int8'), [1n, 3n]), 'restored');
  await db.close();
});

test.run();

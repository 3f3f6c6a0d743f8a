/**
 * The storage conformance suite (docs/FORMAT.md "ao_column segments"), run against both layouts: round
 * trips of every type with NULLs over several appends, statistics equal to brute force (per
 * group, as the snapshot holds them, and `paxd stats`), aggregates from statistics equal to a
 * full scan, ADD COLUMN, delete + compact keeping the content, and corruption (random flips
 * and truncations of the data files — PAX files, ao_column segments — fail with XX001 naming
 * the file and an offset, never a wrong answer). Crash and concurrency: ./crash.test.ts
 * (ao_column) and test/table/crash.test.ts (PAX).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Database } from '../../src/table/database.js';
import { P } from '../../src/scan/index.js';
import { PaxdError } from '../../src/types/errors.js';
import { concatRanges } from '../../src/types/concat.js';
import type { Column } from '../../src/types/column.js';
import { TYPE_IDS, type PgType } from '../../src/types/type.js';
import { statsFromJson, mergeStats, type ColumnStats } from '../../src/stats/index.js';
import { tableStats } from '../../src/table/stats-report.js';
import { formatText } from '../../src/types/text-io.js';
import { fieldsOf } from '../../src/storage/schema.js';
import { getValue } from '../../src/types/builder.js';
import { Rng, randomColumn, testSeed } from '../support/random.js';
import { tempDir } from '../support/tmp.js';
import { assertColumnEqual, readAll } from '../support/columns.js';
import { bruteStats, assertStatsEqual } from '../stats/brute.js';

const LAYOUTS = ['pax', 'ao_column'] as const;
const ZONE = 1024;

function everyType(): PgType[] {
  const types: PgType[] = TYPE_IDS.map((id) => (id === 'varchar' ? { id, length: 20 } : id === 'bpchar' ? { id, length: 3 } : { id }));
  types.push({ id: 'numeric', precision: 38, scale: 4 });
  return types;
}

function concat(types: PgType[], parts: Column[][]): Column[] {
  return types.map((t, i) => concatRanges(t, parts.map((p) => ({ column: p[i]!, start: 0, length: p[i]!.length }))));
}

function merged(t: PgType, c: Column, start: number, end: number): ColumnStats {
  let s: ColumnStats | null = null;
  for (let z = start; z < end; z += ZONE) {
    const b = bruteStats(c, z, Math.min(end, z + ZONE));
    s = s === null ? b : mergeStats(t, s, b);
  }
  return s ?? bruteStats(c, start, end);
}

/** Every row as text, sorted. */
function rowKeys(types: PgType[], cols: Column[]): string[] {
  const out: string[] = [];
  for (let r = 0; r < (cols[0]?.length ?? 0); r++) {
    out.push(cols.map((c, i) => {
      const v = getValue(c, r);
      return v === null ? '\\N' : formatText(types[i]!, v);
    }).join('|'));
  }
  return out.sort();
}

for (const layout of LAYOUTS) {
  test(`${layout}: every type with NULLs round trips over appends; statistics equal brute force`, async () => {
    const rng = new Rng(testSeed() + layout.length);
    const types = everyType();
    const db = await Database.open(tempDir());
    const t = await db.createTable('r', types.map((type, i) => ({ name: `c${i + 1}`, type, notNull: i === 0 })), { layout, rowGroupRows: 2048, zoneRows: ZONE });
    const parts: Column[][] = [];
    for (const n of [1, 0, 2500, 7, 3000]) {
      const cols = t.fields.map((f) => randomColumn(f.type, n, rng, f.notNull ? 0 : 0.15));
      const sink = t.sink();
      // in two batches, so that sink boundaries fall inside blocks
      const cut = n >> 1;
      for (const [s, len] of [[0, cut], [cut, n - cut]] as const)
        if (len > 0) await sink.write({ length: len, columns: cols.map((c, i) => concatRanges(types[i]!, [{ column: c, start: s, length: len }])), selection: null });
      await sink.commit();
      parts.push(cols);
    }
    await t.refresh();
    assert.is(t.snapshot.layout, layout);
    const want = concat(types, parts);
    const got = await readAll(t.scan());
    got.forEach((c, i) => assertColumnEqual(c, want[i]!, `${layout} c${i + 1}`));
    // two columns only, in another order
    const two = await readAll(t.scan({ columns: ['c3', 'c1'] }));
    assertColumnEqual(two[0]!, want[2]!, 'projection c3');
    assertColumnEqual(two[1]!, want[0]!, 'projection c1');

    // group statistics (snapshot) and the stats report, against brute force
    const fields = fieldsOf(t.snapshot);
    let at = 0;
    for (const file of t.snapshot.files) {
      for (const g of file.groups) {
        if (layout === 'ao_column') assert.ok(g.rows <= ZONE, `ao block of ${g.rows} rows`);
        for (const [i, f] of fields.entries()) {
          const gs = statsFromJson(f.type, g.columns[String(f.fieldId)]!);
          assertStatsEqual(f.type, gs, merged(f.type, want[i]!, at, at + g.rows), `${layout} group at ${at} ${f.name}`);
        }
        at += g.rows;
      }
    }
    assert.is(at, want[0]!.length);
    const report = tableStats(t);
    assert.is(report.rows, at);
    for (const [i, f] of fields.entries()) {
      const b = bruteStats(want[i]!, 0, at);
      const r = report.columns[f.name]!;
      assert.is(r.nulls, b.nulls, `${f.name} nulls`);
      assert.is(r.min, b.min === null ? null : formatText(f.type, b.min), `${f.name} min`);
      assert.is(r.max, b.max === null ? null : formatText(f.type, b.max), `${f.name} max`);
    }

    // aggregates from statistics equal a full scan
    const int8 = fields.find((f) => f.type.id === 'int8')!.name;
    const aggs = [{ fn: 'count_star' as const }, { fn: 'sum' as const, column: int8 }, { fn: 'min' as const, column: 'c1' }, { fn: 'max' as const, column: int8 }];
    const fast = await t.aggregate(aggs);
    const slow = await t.aggregate(aggs, undefined, { useStats: false });
    assert.equal(fast.values, slow.values);
    assert.ok(fast.stats.groupsAnsweredFromStats > 0);

    // ADD COLUMN: metadata only; old rows read the default, new rows their value
    const before = t.snapshot.files.length;
    await t.addColumn({ name: 'added', type: 'int4', default: '7' });
    assert.is(t.snapshot.files.length, before);
    const sink = t.sink();
    const n = 10;
    await sink.write({ length: n, columns: t.fields.map((f) => (f.name === 'added' ? randomColumn(f.type, n, rng, 0) : randomColumn(f.type, n, rng, 0))), selection: null });
    await sink.commit();
    await t.refresh();
    const [added] = await readAll(t.scan({ columns: ['added'] }));
    assert.is(added!.length, at + n);
    assert.is(getValue(added!, 0), 7);
    assert.is(getValue(added!, at - 1), 7);
    const s1 = await t.aggregate([{ fn: 'sum', column: 'added' }, { fn: 'count', column: 'added' }]);
    const s2 = await t.aggregate([{ fn: 'sum', column: 'added' }, { fn: 'count', column: 'added' }], undefined, { useStats: false });
    assert.equal(s1.values, s2.values);

    // delete, then compact: the same live rows, and check passes
    const del = await t.delete(P.eq('c1', getValue(want[0]!, 5)));
    assert.ok(del.deleted >= 1);
    const live = await readAll(t.scan());
    await t.compact();
    // compaction may move rows (merged files take the first one's place): same rows, as a multiset
    assert.equal(rowKeys(t.fields.map((f) => f.type), await readAll(t.scan())), rowKeys(t.fields.map((f) => f.type), live), 'same rows after compact');
    assert.is((await t.check()).problems.length, 0);
    await db.close();
  });

  test(`${layout}: random flips and truncations of data files fail with XX001 naming file and offset`, async () => {
    const rng = new Rng(testSeed() + 7 * layout.length);
    const dir = tempDir();
    const db = await Database.open(dir);
    const t = await db.createTable('c', [
      { name: 'id', type: 'int8', notNull: true },
      { name: 'name', type: 'text' },
      { name: 'x', type: 'float8' },
      { name: 'price', type: 'numeric(12,2)' },
    ], { layout, rowGroupRows: 2048, zoneRows: ZONE });
    for (const n of [2500, 3200]) {
      const sink = t.sink();
      await sink.write({ length: n, columns: t.fields.map((f) => randomColumn(f.type, n, rng, f.notNull ? 0 : 0.1)), selection: null });
      await sink.commit();
    }
    await t.refresh();
    const content = await readAll(t.scan());
    await db.close();
    const tableDir = join(dir, 'c');
    const files: string[] = [];
    const walk = (d: string) => {
      for (const name of readdirSync(d)) {
        const p = join(d, name);
        if (statSync(p).isDirectory()) walk(p);
        else files.push(p);
      }
    };
    walk(join(tableDir, layout === 'pax' ? 'data' : 'ao'));
    const data = files.filter((f) => f.endsWith('.pax') || f.endsWith('.seg'));
    assert.ok(data.length >= (layout === 'pax' ? 2 : 4), `${data.length} data files`);
    const read = async () => {
      const d = await Database.open(dir);
      try {
        return await readAll((await d.table('c')).scan());
      } finally {
        await d.close();
      }
    };
    const iterations = 150;
    for (let i = 0; i < iterations; i++) {
      const file = rng.pick(data);
      const original = readFileSync(file);
      const damaged = Buffer.from(original);
      let what: string;
      let out: Buffer;
      if (rng.chance(0.75)) {
        const at = rng.int(0, original.length - 1);
        damaged[at] = damaged[at]! ^ rng.int(1, 255);
        out = damaged;
        what = `flip at ${at} of ${relative(dir, file)}`;
      } else {
        const len = rng.int(0, original.length - 1);
        out = damaged.subarray(0, len);
        what = `truncation to ${len} of ${relative(dir, file)}`;
      }
      writeFileSync(file, out);
      try {
        await read();
        assert.unreachable(`${what}: read returned rows instead of failing`);
      } catch (e) {
        if (!(e instanceof PaxdError)) throw new Error(`${what}: not a PaxdError: ${(e as Error).stack}`);
        assert.is(e.code, 'XX001', `${what}: ${e.message}`);
        assert.ok(e.file !== undefined && join(dir, e.file) === file, `${what}: error names ${e.file}: ${e.message}`);
        assert.type(e.offset, 'number', `${what}: error has an offset: ${e.message}`);
      } finally {
        writeFileSync(file, original);
      }
    }
    (await read()).forEach((c, i) => assertColumnEqual(c, content[i]!, `restored column ${i}`));
  });
}

test('ao_column: bytes past a segment\'s committed EOF are never read; the next append truncates them', async () => {
  const dir = tempDir();
  const db = await Database.open(dir);
  const t = await db.createTable('g', [{ name: 'id', type: 'int8' }], { layout: 'ao_column' });
  const sink = t.sink();
  await sink.write({ length: 100, columns: [randomColumn({ id: 'int8' }, 100, new Rng(1), 0)], selection: null });
  await sink.commit();
  await t.refresh();
  const seg = join(dir, 'g', 'ao', '1', '1.seg');
  const eof = t.snapshot.ao!.segments[0]!.eof['1']!;
  assert.is(statSync(seg).size, eof);
  writeFileSync(seg, Buffer.concat([readFileSync(seg), Buffer.alloc(5000, 0xab)])); // a crashed append's garbage
  assert.is((await readAll(t.scan()))[0]!.length, 100);
  assert.is((await t.check()).problems.length, 0);
  const s2 = t.sink();
  await s2.write({ length: 50, columns: [randomColumn({ id: 'int8' }, 50, new Rng(2), 0)], selection: null });
  await s2.commit();
  await t.refresh();
  assert.is(statSync(seg).size, t.snapshot.ao!.segments[0]!.eof['1']!, 'the garbage was truncated and overwritten');
  assert.is((await readAll(t.scan()))[0]!.length, 150);
  assert.is(t.snapshot.ao!.segments.length, 1);
  await db.close();
});

test.run();

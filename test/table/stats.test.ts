/**
 * Statistics equal values computed from the data (README.md "Guarantees"): for every zone
 * (footer), every group (snapshot), every file and the whole snapshot (`paxd stats`), over
 * random data of every type with NULLs and edge values, across several commits.
 *
 * The oracle is the brute-force bruteStats (value at a time). Float sums are defined as the
 * sum of the zones' partial sums in storage order (docs/FORMAT.md), so the expected value of a
 * group or larger is the merge of the zones' brute-force statistics; every other statistic
 * also equals brute force over the whole range at once.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { PaxFileReader } from '../../src/pax/reader.js';
import { statsFromJson, mergeStats, type ColumnStats } from '../../src/stats/index.js';
import { tableStats } from '../../src/table/stats-report.js';
import { formatText } from '../../src/types/text-io.js';
import { TYPE_IDS, type Field, type PgType } from '../../src/types/type.js';
import type { Column } from '../../src/types/column.js';
import { fieldsOf } from '../../src/storage/schema.js';
import { Rng, randomColumn, randomType, testSeed } from '../support/random.js';
import { tempDir } from '../support/tmp.js';
import { readAll } from '../support/columns.js';
import { bruteStats, assertStatsEqual } from '../stats/brute.js';

const ZONE = 1024;

function merged(t: PgType, c: Column, start: number, end: number): ColumnStats {
  let s: ColumnStats | null = null;
  for (let z = start; z < end; z += ZONE) {
    const b = bruteStats(c, z, Math.min(end, z + ZONE));
    s = s === null ? b : mergeStats(t, s, b);
  }
  return s ?? bruteStats(c, start, end);
}

function isFloat(t: PgType): boolean {
  return t.id === 'float4' || t.id === 'float8';
}

/** Every statistic but a float sum equals brute force over the whole range at once. */
function assertWhole(t: PgType, got: ColumnStats, c: Column, start: number, end: number, what: string): void {
  const whole = bruteStats(c, start, end);
  if (isFloat(t)) whole.sum = got.sum;
  assertStatsEqual(t, got, whole, what);
}

test('zone, group, file and snapshot statistics equal brute force over the data', async () => {
  const rng = new Rng(testSeed());
  const types: PgType[] = TYPE_IDS.map((id) => (id === 'varchar' ? { id, length: 70 } : id === 'bpchar' ? { id, length: 3 } : { id }));
  types.push({ id: 'numeric', precision: 38, scale: 4 });
  for (let i = 0; i < 4; i++) types.push(randomType(rng));
  const cols = types.map((type, i) => ({ name: `c${i + 1}`, type }));
  const db = await Database.open(tempDir());
  const t = await db.createTable('s', cols, { rowGroupRows: 4096, zoneRows: ZONE });
  for (const n of [5000, 1, 9000, 0, 4096]) {
    const sink = t.sink({ fileBytes: 60_000 });
    await sink.write({ length: n, columns: t.fields.map((f) => randomColumn(f.type, n, rng, 0.15)), selection: null });
    await sink.commit();
  }
  await t.refresh();
  const fields: readonly Field[] = fieldsOf(t.snapshot);
  const data = await readAll(t.scan());
  const report = tableStats(t);
  let at = 0;
  let zonesChecked = 0;
  for (const [fi, file] of t.snapshot.files.entries()) {
    const reader = await PaxFileReader.open(t.store, `s/${file.path}`, file, fields);
    const fileStart = at;
    for (const [g, group] of file.groups.entries()) {
      for (const [i, f] of fields.entries()) {
        const c = data[i]!;
        // zones, from the footer
        for (let z = 0; z < reader.zoneCount(g); z++) {
          const zs = reader.zoneStats(g, f.fieldId, z);
          const zStart = at + z * ZONE;
          assertStatsEqual(f.type, zs, bruteStats(c, zStart, Math.min(at + group.rows, zStart + ZONE)), `file ${fi} group ${g} zone ${z} ${f.name}`);
          zonesChecked++;
        }
        // group, from the snapshot
        const gs = statsFromJson(f.type, group.columns[String(f.fieldId)]!);
        assertStatsEqual(f.type, gs, merged(f.type, c, at, at + group.rows), `file ${fi} group ${g} ${f.name}`);
        assertWhole(f.type, gs, c, at, at + group.rows, `file ${fi} group ${g} ${f.name} (whole)`);
      }
      at += group.rows;
    }
    // file rollup, from the report
    for (const [i, f] of fields.entries()) {
      const want = merged(f.type, data[i]!, fileStart, at);
      const got = report.files[fi]!.columns[f.name]!;
      assert.is(got.nulls, want.nulls, `file ${fi} ${f.name} nulls`);
      assert.is(got.min, want.min === null ? null : formatText(f.type, want.min), `file ${fi} ${f.name} min`);
      assert.is(got.max, want.max === null ? null : formatText(f.type, want.max), `file ${fi} ${f.name} max`);
    }
  }
  assert.is(at, data[0]!.length);
  assert.ok(zonesChecked > 100, `only ${zonesChecked} zones`);
  // snapshot rollup: paxd stats
  assert.is(report.rows, at);
  for (const [i, f] of fields.entries()) {
    const want = bruteStats(data[i]!, 0, at);
    const got = report.columns[f.name]!;
    assert.is(got.nulls, want.nulls, `${f.name} nulls`);
    assert.is(got.min, want.min === null ? null : formatText(f.type, want.min), `${f.name} min`);
    assert.is(got.max, want.max === null ? null : formatText(f.type, want.max), `${f.name} max`);
    if (typeof want.sum === 'bigint')
      assert.is(got.sum, f.type.id === 'numeric' ? formatText({ id: 'numeric', precision: 38, scale: f.type.scale ?? 0 }, want.sum) : want.sum.toString(), `${f.name} sum`);
    if (typeof want.sum === 'string') assert.is(got.sum, want.sum, `${f.name} sum`);
    if (want.sum === null) assert.is(got.sum, null, `${f.name} sum`);
    if (isFloat(f.type) && typeof want.sum === 'number' && Number.isFinite(want.sum)) {
      const g = Number(got.sum);
      assert.ok(Math.abs(g - want.sum) <= 1e-9 * Math.max(1, Math.abs(want.sum)) || f.type.id === 'float4', `${f.name} sum ${got.sum} vs ${want.sum}`);
    }
  }
  await db.close();
});

test('paxd stats of a column added with a default: every older row holds the default, exactly', async () => {
  const db = await Database.open(tempDir());
  const t = await db.createTable('d', [{ name: 'id', type: 'int4', notNull: true }], { zoneRows: ZONE });
  const sink = t.sink();
  await sink.write({ length: 3000, columns: [randomColumn({ id: 'int4' }, 3000, new Rng(testSeed()), 0)], selection: null });
  await sink.commit();
  await t.addColumn({ name: 'region', type: 'int8', default: '7' });
  await t.addColumn({ name: 'note', type: 'text' });
  const report = tableStats(t);
  assert.equal(report.columns.region, { type: 'int8', nulls: 0, min: '7', max: '7', sum: '21000' });
  assert.equal(report.columns.note, { type: 'text', nulls: 3000, min: null, max: null, sum: null });
  assert.equal(report.groups[0]!.columns.region, report.columns.region);
  // the same answer as the data: a scan reads the default
  const agg = await t.aggregate([{ fn: 'sum', column: 'region' }, { fn: 'min', column: 'region' }], undefined, { useStats: false });
  assert.equal(agg.values, ['21000', 7n]);
  await db.close();
});

test.run();

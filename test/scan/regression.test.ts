/**
 * The classic bug of columnar stores (docs/ARCHITECTURE.md "Scans that skip"): count(*), count(col), sum, avg,
 * min and max after deletes — including deleting the rows that held the min and the max —,
 * after deleting everything, and after deleting then compacting, equal a full scan, and the
 * scan statistics show they were answered from statistics where they could be.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database, type Table } from '../../src/table/database.js';
import { columnOf } from '../../src/types/builder.js';
import type { Value } from '../../src/types/column.js';
import { P } from '../../src/scan/predicate.js';
import type { AggSpec } from '../../src/scan/aggregate.js';
import { tempDir } from '../support/tmp.js';
import { type Model, bruteAggregate, matching, sameAggregate } from './oracle.js';

const N = 10000;
const AGGS: AggSpec[] = [{ fn: 'count_star' }];
for (const c of ['v', 'f', 'n', 's', 'b'])
  for (const fn of ['count', 'min', 'max', 'sum', 'avg'] as const) if (!(c === 's' && (fn === 'sum' || fn === 'avg'))) AGGS.push({ fn, column: c });

async function setup(): Promise<{ db: Database; t: Table; m: Model }> {
  const db = await Database.open(tempDir());
  const t = await db.createTable('r', [
    { name: 'id', type: 'int8' },
    { name: 'v', type: 'int4' },
    { name: 'f', type: 'float8' },
    { name: 'n', type: 'numeric(12,2)' },
    { name: 's', type: 'text' },
    { name: 'b', type: 'int8' },
  ], { rowGroupRows: 2048, zoneRows: 1024 });
  const cols: Value[][] = [[], [], [], [], [], []];
  for (let i = 0; i < N; i++) {
    const v = i % 11 === 0 ? null : ((i * 7919) % 5000) - 2500;
    cols[0]!.push(BigInt(i));
    cols[1]!.push(v);
    cols[2]!.push(i % 13 === 0 ? null : (i % 977) / 7);
    cols[3]!.push(v === null ? null : BigInt(v) * 137n);
    cols[4]!.push(i % 17 === 0 ? null : `s${(i * 31) % 1000}`.padEnd(i % 5 === 0 ? 80 : 4, 'x')); // some long strings: truncated bounds
    cols[5]!.push(BigInt(i) * 1000000000000n);
  }
  const types = t.fields.map((f) => f.type);
  const sink = t.sink();
  await sink.write({ length: N, columns: cols.map((c, i) => columnOf(types[i]!, c)), selection: null });
  await sink.commit();
  await t.refresh();
  const rows = cols[0]!.map((_, i) => cols.map((c) => c[i]!));
  return { db, t, m: { fields: [...t.fields], rows, deleted: rows.map(() => false) } };
}

async function check(t: Table, m: Model, what: string): Promise<void> {
  const fromStats = await t.aggregate(AGGS);
  const full = await t.aggregate(AGGS, undefined, { useStats: false });
  const idx = matching(m, undefined);
  AGGS.forEach((a, i) => {
    const f = m.fields.find((x) => x.name === a.column);
    const label = `${what}: ${a.fn}(${a.column ?? '*'})`;
    assert.ok(Object.is(fromStats.values[i], full.values[i]), `${label}: statistics ${String(fromStats.values[i])}, full scan ${String(full.values[i])}`);
    assert.ok(sameAggregate(f?.type ?? null, a.fn, fromStats.values[i]!, bruteAggregate(m, a, idx)), `${label}: ${String(fromStats.values[i])}, brute force ${String(bruteAggregate(m, a, idx))}`);
  });
  const s = fromStats.stats;
  // text min/max keeps truncated bounds (long strings): groups holding those are scanned;
  // every other group is answered from statistics, and the full scan answers none.
  assert.is(s.groupsAnsweredFromStats + s.groupsRead + s.groupsSkippedByPredicate, s.groupsTotal);
  assert.is(full.stats.groupsAnsweredFromStats, 0);
  const numeric = await t.aggregate(AGGS.filter((a) => a.column !== 's'));
  assert.is(numeric.stats.groupsRead, 0, `${what}: numeric aggregates read no group`);
  assert.is(numeric.stats.bytesRead, 0);
  assert.is(numeric.stats.groupsAnsweredFromStats + numeric.stats.groupsSkippedByPredicate, numeric.stats.groupsTotal);
}

function deleteWhere(m: Model, pred: (row: Value[]) => boolean): number {
  let n = 0;
  m.rows.forEach((r, i) => {
    if (!m.deleted[i] && pred(r)) {
      m.deleted[i] = true;
      n++;
    }
  });
  return n;
}

test('aggregates after deletes of the extremes, of everything, and after compaction equal a full scan', async () => {
  const { db, t, m } = await setup();
  await check(t, m, 'fresh');

  // delete the rows holding min(v) and max(v), then those holding min/max of f
  for (const col of ['v', 'f'] as const) {
    const r = await t.aggregate([{ fn: 'min', column: col }, { fn: 'max', column: col }]);
    const [lo, hi] = r.values;
    const ci = col === 'v' ? 1 : 2;
    const d = await t.delete(P.or(P.eq(col, lo!), P.eq(col, hi!)));
    assert.is(d.deleted, deleteWhere(m, (row) => row[ci] !== null && (row[ci] === lo || row[ci] === hi)));
    await check(t, m, `after deleting min and max of ${col}`);
    const after = await t.aggregate([{ fn: 'min', column: col }, { fn: 'max', column: col }]);
    assert.ok(after.values[0] !== lo && after.values[1] !== hi, `${col}: new extremes`);
  }

  // a large delete in one group: its vector goes to an object of its own
  const d = await t.delete(P.between('id', 2048n, 2048n + 1500n));
  assert.is(d.deleted, deleteWhere(m, (row) => (row[0] as bigint) >= 2048n && (row[0] as bigint) <= 3548n));
  assert.ok(t.snapshot.files[0]!.groups[1]!.deletesPath !== undefined, 'large delete vector stored out of line');
  await check(t, m, 'after a large delete');

  // delete then compact
  const c = await t.compact();
  assert.is(c.rowsDropped, m.deleted.filter((x) => x).length);
  assert.ok(t.snapshot.files.every((f) => f.groups.every((g) => g.live === g.rows)), 'no delete vector is left');
  await check(t, m, 'after compaction');

  // delete everything
  const all = await t.delete(P.or(P.isNull('id'), P.isNotNull('id')));
  assert.is(all.deleted, deleteWhere(m, () => true));
  assert.is(t.rows, 0);
  await check(t, m, 'after deleting everything');
  const r = await t.aggregate(AGGS);
  assert.is(r.values[0], 0n);
  assert.is(r.values[1], 0n);
  assert.is(r.values[2], null);
  assert.is(r.stats.groupsRead, 0);

  // compacting a table whose rows are all deleted leaves no data file
  await t.compact();
  assert.is(t.snapshot.files.length, 0);
  await check(t, m, 'after compacting everything away');
  await db.close();
});

test.run();

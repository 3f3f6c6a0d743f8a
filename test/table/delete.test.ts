/**
 * Deletes and compaction under concurrency (DESIGN.md: "deletes re-check their rows",
 * "compaction … rebases deletes that arrived meanwhile"), and delete-vector objects that are
 * damaged. A commit race is staged by a store that runs a competing commit just before the
 * first snapshot write of the operation under test.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database, type Table } from '../../src/table/database.js';
import { columnOf, getValue } from '../../src/types/builder.js';
import type { Value } from '../../src/types/column.js';
import { isPaxdError } from '../../src/types/errors.js';
import { P } from '../../src/scan/predicate.js';
import type { AggSpec } from '../../src/scan/aggregate.js';
import { MemStore } from '../support/memstore.js';
import { readAll } from '../support/columns.js';

/** A MemStore that runs `hook` once, before the next snapshot write. */
class RacingStore extends MemStore {
  hook: (() => Promise<void>) | null = null;
  override async putIfAbsent(path: string, bytes: Uint8Array): Promise<boolean> {
    if (path.includes('/_snapshots/') && this.hook !== null) {
      const h = this.hook;
      this.hook = null;
      await h();
    }
    return super.putIfAbsent(path, bytes);
  }
}

async function setup(): Promise<{ store: RacingStore; db: Database; t: Table }> {
  const store = new RacingStore();
  const db = await Database.open(store);
  const t = await db.createTable('d', [{ name: 'id', type: 'int8' }, { name: 'v', type: 'float8' }], { rowGroupRows: 1024, zoneRows: 1024 });
  await append(t, 0, 5000);
  await t.refresh();
  return { store, db, t };
}

async function append(t: Table, from: number, n: number): Promise<void> {
  const ids: Value[] = [];
  const vs: Value[] = [];
  for (let i = from; i < from + n; i++) {
    ids.push(BigInt(i));
    vs.push(i % 10 === 0 ? null : i / 8);
  }
  const sink = t.sink();
  await sink.write({ length: n, columns: [columnOf({ id: 'int8' }, ids), columnOf({ id: 'float8' }, vs)], selection: null });
  await sink.commit();
}

async function ids(t: Table): Promise<number[]> {
  const [c] = await readAll(t.scan({ columns: ['id'] }));
  const out: number[] = [];
  for (let i = 0; i < c!.length; i++) out.push(Number(getValue(c!, i)));
  return out;
}

const AGGS: AggSpec[] = [{ fn: 'count_star' }, { fn: 'count', column: 'v' }, { fn: 'sum', column: 'v' }, { fn: 'min', column: 'v' }, { fn: 'max', column: 'v' }, { fn: 'avg', column: 'v' }, { fn: 'max', column: 'id' }];

async function statsEqualScan(t: Table): Promise<void> {
  const a = await t.aggregate(AGGS);
  const b = await t.aggregate(AGGS, undefined, { useStats: false });
  assert.equal(a.values, b.values);
  assert.is(a.stats.groupsRead, 0);
}

const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);

test('a delete that loses the race to an append re-evaluates on the new base', async () => {
  const { store, db, t } = await setup();
  const other = await db.table('d');
  store.hook = () => append(other, 5000, 1000);
  const r = await t.delete(P.ge('id', 4500n));
  assert.is(r.deleted, 1500, 'the appended rows match too');
  assert.equal(await ids(t), range(0, 4500));
  await statsEqualScan(t);
});

test('two racing deletes: the loser deletes only what is still live', async () => {
  const { store, db, t } = await setup();
  const other = await db.table('d');
  store.hook = async () => {
    await other.delete(P.lt('id', 100n));
  };
  const r = await t.delete(P.lt('id', 150n));
  assert.is(r.deleted, 50);
  assert.equal(await ids(t), range(150, 5000));
  await statsEqualScan(t);
});

test('compaction rebases deletes and appends that arrived meanwhile', async () => {
  const { store, db, t } = await setup();
  await t.delete(P.or(P.lt('id', 700n), P.between('id', 2000n, 2100n)));
  const other = await db.table('d');
  store.hook = async () => {
    await other.delete(P.or(P.between('id', 3000n, 3010n), P.eq('id', 4999n), P.eq('id', 701n)));
    await append(other, 5000, 10);
  };
  const c = await t.compact();
  assert.ok(c.filesRewritten >= 1);
  const want = range(700, 5010).filter((i) => !(i >= 2000 && i <= 2100) && !(i >= 3000 && i <= 3010) && i !== 4999 && i !== 701);
  await t.refresh();
  assert.equal(await ids(t), want);
  await statsEqualScan(t);
  const groupsWithDeletes = t.snapshot.files.flatMap((f) => f.groups).filter((g) => g.live < g.rows).length;
  assert.ok(groupsWithDeletes > 0, 'the racing delete landed in the new files');
});

test('compaction fails with 40001 when another compaction rewrote its files', async () => {
  const { store, db, t } = await setup();
  await t.delete(P.lt('id', 10n));
  const other = await db.table('d');
  store.hook = async () => {
    await other.compact();
  };
  try {
    await t.compact();
    assert.unreachable('compact should fail');
  } catch (e) {
    assert.ok(isPaxdError(e) && e.code === '40001', String(e));
  }
});

test('a damaged delete-vector object is corruption naming the file and offset', async () => {
  const { store, t } = await setup();
  await t.delete(P.lt('id', 1020n)); // > 1,024 positions? no: 1,020 inline
  assert.ok(t.snapshot.files[0]!.groups[0]!.deleted !== undefined);
  await t.delete(P.lt('id', 2000n)); // group 1: 976 more, group 0: 4 more -> inline still; use a big one
  const big = await t.delete(P.between('id', 2048n, 3071n));
  assert.is(big.deleted, 1024);
  const g = t.snapshot.files[0]!.groups.find((x) => x.deletesPath !== undefined);
  assert.ok(g === undefined, 'exactly 1,024 positions stay inline');
  // a group of 2,048 rows with all its rows deleted is out of line
  const t2 = await (await Database.open(store)).createTable('d2', [{ name: 'id', type: 'int8' }], { rowGroupRows: 4096, zoneRows: 1024 });
  const sink = t2.sink();
  await sink.write({ length: 4096, columns: [columnOf({ id: 'int8' }, range(0, 4096).map(BigInt))], selection: null });
  await sink.commit();
  await t2.refresh();
  await t2.delete(P.lt('id', 3000n));
  const path = t2.snapshot.files[0]!.groups[0]!.deletesPath!;
  assert.ok(path.startsWith('deletes/'));
  assert.is((await readAll(t2.scan()))[0]!.length, 1096);
  const obj = store.objects.get(`d2/${path}`)!;
  obj[100] = obj[100]! ^ 0xff;
  try {
    await readAll(t2.scan());
    assert.unreachable('scan should fail');
  } catch (e) {
    assert.ok(isPaxdError(e) && e.code === 'XX001' && e.file === `d2/${path}` && e.offset === 24, String(e));
  }
});

test.run();

/**
 * Pruning liveness (docs/ARCHITECTURE.md "Scans that skip"): not only the answers, but that groups and zones
 * were actually skipped — by predicate, by running bound, or answered from statistics — and
 * that a skipped group costs no read.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database, type Table } from '../../src/table/database.js';
import { columnOf, getValue } from '../../src/types/builder.js';
import type { Value } from '../../src/types/column.js';
import { P } from '../../src/scan/predicate.js';
import { MemStore } from '../support/memstore.js';
import { readAll } from '../support/columns.js';

const N = 20 * 2048; // 20 groups of 2,048 rows, 2 zones each

async function setup(): Promise<{ t: Table; store: MemStore }> {
  const store = new MemStore();
  const db = await Database.open(store);
  const t = await db.createTable('e', [
    { name: 'ts', type: 'timestamp' },
    { name: 'r', type: 'int4' },
    { name: 'k', type: 'text' },
  ], { rowGroupRows: 2048, zoneRows: 1024 });
  const ts: Value[] = [];
  const r: Value[] = [];
  const k: Value[] = [];
  let x = 12345;
  for (let i = 0; i < N; i++) {
    ts.push(1_700_000_000_000_000n + BigInt(i) * 1_000_000n);
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    r.push(x % 1_000_000);
    k.push(i % 3 === 0 ? null : `k${i % 50}`);
  }
  const sink = t.sink();
  await sink.write({ length: N, columns: [columnOf({ id: 'timestamp' }, ts), columnOf({ id: 'int4' }, r), columnOf({ id: 'text' }, k)], selection: null });
  await sink.commit();
  await t.refresh();
  return { t, store };
}

const T0 = 1_700_000_000_000_000n;
const at = (row: number) => T0 + BigInt(row) * 1_000_000n;

test('a selective time predicate skips groups (k of n, k > 0) and zones', async () => {
  const { t } = await setup();
  const scan = t.scan({ columns: ['r'], where: P.between('ts', at(5200), at(5500)) });
  const [col] = await readAll(scan);
  assert.is(col!.length, 301);
  const s = scan.stats;
  assert.is(s.groupsTotal, 20);
  assert.is(s.groupsSkippedByPredicate, 19);
  assert.is(s.groupsRead, 1);
  assert.is(s.zonesSkippedByPredicate, 1, 'the other zone of the group is skipped too');
  assert.is(scan.estimate().rows, 2048);
});

test('groups that statistics rule out cost no byte; all skipped means no read at all', async () => {
  const { t, store } = await setup();
  const before = store.reads;
  const scan = t.scan({ where: P.lt('ts', T0) });
  const cols = await readAll(scan);
  assert.is(cols[0]!.length, 0);
  assert.is(scan.stats.groupsSkippedByPredicate, 20);
  assert.is(scan.stats.bytesRead, 0);
  assert.is(store.reads, before, 'no read reached the store');
});

test('late materialization: projected columns are not loaded for groups without matches', async () => {
  const { t } = await setup();
  // r = -1 never matches, but statistics cannot prove it for a random column
  const narrow = t.scan({ columns: ['r'], where: P.eq('r', -1) });
  await readAll(narrow);
  const wide = t.scan({ columns: ['ts', 'k', 'r'], where: P.eq('r', -1) });
  await readAll(wide);
  assert.is(wide.stats.bytesRead, narrow.stats.bytesRead, 'ts and k chunks are never loaded');
  const all = t.scan({ columns: ['ts', 'k', 'r'] });
  await readAll(all);
  assert.ok(all.stats.bytesRead > narrow.stats.bytesRead * 2);
});

test('aggregates: whole groups from statistics, the edges scanned, the rest skipped', async () => {
  const { t } = await setup();
  // rows 1000 .. 9999: groups 0 and 4 partly (scanned), 1..3 entirely (statistics), 5..19 not at all
  const r = await t.aggregate([{ fn: 'count_star' }, { fn: 'sum', column: 'r' }, { fn: 'max', column: 'ts' }], P.and(P.ge('ts', at(1000)), P.lt('ts', at(10000))));
  assert.is(r.values[0], 9000n);
  assert.is(r.values[2], at(9999));
  assert.is(r.stats.groupsAnsweredFromStats, 3);
  assert.is(r.stats.groupsRead, 2);
  assert.is(r.stats.groupsSkippedByPredicate, 15);
  const full = await t.aggregate([{ fn: 'count_star' }, { fn: 'sum', column: 'r' }, { fn: 'max', column: 'ts' }], P.and(P.ge('ts', at(1000)), P.lt('ts', at(10000))), { useStats: false });
  assert.equal(full.values, r.values);
  const star = await t.aggregate([{ fn: 'count_star' }, { fn: 'min', column: 'r' }, { fn: 'max', column: 'r' }, { fn: 'sum', column: 'r' }, { fn: 'avg', column: 'r' }]);
  assert.is(star.stats.groupsAnsweredFromStats, 20);
  assert.is(star.stats.bytesRead, 0);
});

test('top-N on an ordered column reads one group; on a random column it skips most by bound', async () => {
  const { t } = await setup();
  const r = await t.topN({ orderBy: [{ column: 'ts', desc: true }], limit: 10, columns: ['ts'] });
  assert.is(r.rows, 10);
  assert.is(getValue(r.columns[0]!, 0), at(N - 1));
  assert.is(getValue(r.columns[0]!, 9), at(N - 10));
  assert.ok(r.stats.groupsSkippedByBound >= 18, `skipped ${r.stats.groupsSkippedByBound} of 20 by bound`);
  assert.ok(r.stats.zonesRead <= 2);

  const asc = await t.topN({ orderBy: [{ column: 'ts' }], limit: 10, offset: 5, columns: ['ts'], visit: 'storage' });
  assert.is(getValue(asc.columns[0]!, 0), at(5));
  assert.ok(asc.stats.groupsSkippedByBound >= 18);

  const rnd = await t.topN({ orderBy: [{ column: 'r', desc: true }], limit: 10, columns: ['r'] });
  const brute = (await readAll(t.scan({ columns: ['r'] })))[0]!;
  const all = Array.from(brute.values as Int32Array).sort((a, b) => b - a).slice(0, 10);
  assert.equal(Array.from(rnd.columns[0]!.values as Int32Array), all);
  assert.ok(rnd.stats.groupsSkippedByBound + rnd.stats.zonesSkippedByBound > 0, 'the bound skips groups or zones of the random column');
});

test('setBound on an open reader: later groups and rows that cannot beat it are skipped', async () => {
  const { t } = await setup();
  const scan = t.scan({ columns: ['ts'] });
  await scan.begin();
  const first = await scan.next();
  assert.ok(first !== null);
  scan.setBound('ts', '>', at(N - 100));
  let rows = 0;
  for (let b = await scan.next(); b !== null; b = await scan.next()) rows += b.selection === null ? b.length : b.selection.length;
  await scan.end();
  assert.is(rows, 99);
  assert.ok(scan.stats.groupsSkippedByBound >= 17, `${scan.stats.groupsSkippedByBound} skipped by bound`);
});

test('ordered visit: groups by descending max, planned from statistics', async () => {
  const { t } = await setup();
  const scan = t.scan({ columns: ['ts'], order: { column: 'ts', desc: true } });
  await scan.begin();
  const b = await scan.next();
  assert.ok(b !== null);
  assert.is(scan.position.unit, 19, 'the last group holds the largest ts');
  await scan.end();
});

test.run();

/**
 * Tables on S3 (README.md "Tables in S3"): Database.open('s3://bucket/prefix') with the AWS
 * environment pointing at s3rver. A round trip of every type, statistics and aggregates,
 * CSV ingest through ingestFiles, scans with predicates that skip groups without fetching
 * them, ao_column appends as new objects merged by compaction, deletes, check.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/table/database.js';
import { query, textRows } from '../../src/engine/index.js';
import { ingestFiles } from '../../src/table/ingest.js';
import { P } from '../../src/scan/predicate.js';
import { S3Store } from '../../src/storage/s3.js';
import { columnOf, getValue } from '../../src/types/builder.js';
import { concatRanges } from '../../src/types/concat.js';
import type { Batch, Column, Value } from '../../src/types/column.js';
import { TYPE_IDS, type Field, type PgType } from '../../src/types/type.js';
import { assertColumnEqual, readAll } from '../support/columns.js';
import { Rng, randomColumn, testSeed } from '../support/random.js';
import { startS3, type S3Server } from '../support/s3.js';
import { tempDir } from '../support/tmp.js';

let s3: S3Server;
test.before(async () => {
  s3 = await startS3();
});
test.after(async () => {
  await s3.close();
});

function allTypes(): Field[] {
  const types: PgType[] = TYPE_IDS.map((id) => (id === 'varchar' ? { id, length: 12 } : id === 'bpchar' ? { id, length: 3 } : { id }));
  types.push({ id: 'numeric', precision: 10, scale: 2 });
  return types.map((type, i) => ({ name: `c${i + 1}`, type, notNull: i % 5 === 4, fieldId: i + 1 }));
}

test('round trip of every type through s3://, projections, statistics, check', async () => {
  const db = await Database.open(s3.uri('roundtrip'));
  const store = db.store as S3Store;
  assert.instance(store, S3Store);
  const rng = new Rng(testSeed());
  const fields = allTypes();
  for (const n of [0, 1025, 5000]) {
    const data: Column[] = fields.map((f) => randomColumn(f.type, n, rng, f.notNull ? 0 : 0.1));
    const t = await db.createTable(`t${n}`, fields, { rowGroupRows: 2048, zoneRows: 1024 });
    const sink = t.sink();
    for (let at = 0; at < n; at += 1500) {
      const len = Math.min(1500, n - at);
      const batch: Batch = { length: len, columns: data.map((c, i) => concatRanges(fields[i]!.type, [{ column: c, start: at, length: len }])), selection: null };
      await sink.write(batch);
    }
    assert.is((await sink.commit()).rows, n);
    await t.refresh();
    assert.is(t.rows, n);
    const got = await readAll(t.scan());
    fields.forEach((f, i) => assertColumnEqual(got[i]!, data[i]!, `t${n}.${f.name} (${f.type.id})`));
    const [p3, p0] = await readAll(t.scan({ columns: [fields[3]!.name, fields[0]!.name], batchRows: 512 }));
    assertColumnEqual(p3!, data[3]!, 'projected');
    assertColumnEqual(p0!, data[0]!, 'projected');
    const check = await t.check();
    assert.equal(check.problems, []);
  }
  // A second process's view: a fresh Database on the same URI lists the same tables.
  const db2 = await Database.open(s3.uri('roundtrip'));
  assert.equal((await db2.tables()).map((x) => [x.name, x.rows]), [['t0', 0], ['t1025', 1025], ['t5000', 5000]]);
  await db2.close();
  await db.close();
});

/** A CSV of N rows: id, grp (id / 1024, so groups have disjoint ranges), score, note. */
function csvFile(n: number): { path: string; ids: number[]; scores: number[] } {
  const lines = ['id,grp,score,note'];
  const ids: number[] = [];
  const scores: number[] = [];
  for (let i = 0; i < n; i++) {
    const score = (i * 7919) % 1000;
    ids.push(i);
    scores.push(score);
    lines.push(`${i},${Math.floor(i / 1024)},${score},${i % 7 === 0 ? '' : `"note, ${i}"`}`);
  }
  const path = join(tempDir(), 'events.csv');
  writeFileSync(path, lines.join('\n') + '\n');
  return { path, ids, scores };
}

test('ingestFiles of a CSV into s3://, aggregates from statistics, predicate scans skip groups without GETs', async () => {
  const db = await Database.open(s3.uri('ingest'));
  const store = db.store as S3Store;
  const t = await db.createTable('events', [
    { name: 'id', type: 'int8', notNull: true },
    { name: 'grp', type: 'int4' },
    { name: 'score', type: 'int4' },
    { name: 'note', type: 'text' },
  ], { rowGroupRows: 1024, zoneRows: 1024 });
  const N = 20 * 1024;
  const csv = csvFile(N);
  const r = await ingestFiles(t, [csv.path], { csv: { header: true } });
  assert.is(r.rowsLoaded, N);
  await t.refresh();
  assert.is(t.rows, N);

  const gets0 = store.metrics.gets;
  const agg = await t.aggregate([{ fn: 'count_star' }, { fn: 'min', column: 'id' }, { fn: 'max', column: 'id' }, { fn: 'sum', column: 'score' }]);
  assert.is(store.metrics.gets, gets0, 'count/min/max/sum from statistics: not a single GET');
  assert.is(Number(agg.values[0]), N);
  assert.is(Number(agg.values[1]), 0);
  assert.is(Number(agg.values[2]), N - 1);
  assert.is(String(agg.values[3]), String(csv.scores.reduce((a, b) => a + b, 0)));

  // A full scan of one column, then a selective predicate that reads 1 of 20 groups: it
  // fetches a fraction of the bytes (the file footer is cached from the first scan).
  const fetched0 = store.metrics.bytesFetched;
  const [all] = await readAll(t.scan({ columns: ['score'] }));
  assert.is(all!.length, N);
  const full = store.metrics.bytesFetched - fetched0;
  const fetched1 = store.metrics.bytesFetched;
  const gets1 = store.metrics.gets;
  const scan = t.scan({ columns: ['id', 'score'], where: P.between('id', 12_300, 12_600) });
  const [id, score] = await readAll(scan);
  assert.is(id!.length, 301);
  for (let i = 0; i < id!.length; i++) {
    const v = Number(getValue(id!, i) as bigint);
    assert.is(getValue(score!, i), csv.scores[v]);
  }
  assert.is(scan.stats.groupsSkippedByPredicate, 19);
  const selective = store.metrics.bytesFetched - fetched1;
  assert.ok(store.metrics.gets - gets1 <= 2, 'one ranged GET per projected column chunk');
  assert.ok(selective * 5 < full, `selective scan fetched ${selective} bytes, full scan of one column ${full}`);

  // A predicate on a non-sorted column, compared with the input.
  const [ids2] = await readAll(t.scan({ columns: ['id'], where: P.and(P.ge('score', 990), P.isNotNull('note')) }));
  const expected = csv.ids.filter((i) => csv.scores[i]! >= 990 && i % 7 !== 0);
  assert.equal(Array.from({ length: ids2!.length }, (_, i) => Number(getValue(ids2!, i) as bigint)), expected);

  // Deletes and check on S3.
  const del = await t.delete(P.lt('id', 500));
  assert.is(del.deleted, 500);
  await t.refresh();
  assert.is(t.rows, N - 500);
  assert.equal((await t.check()).problems, []);
  await db.close();
});

test('ao_column on S3: appends become new objects, compaction merges them', async () => {
  const db = await Database.open(s3.uri('ao'));
  const t = await db.createTable('log', [{ name: 'k', type: 'int4', notNull: true }, { name: 'v', type: 'text' }], { layout: 'ao_column' });
  const want: Value[] = [];
  for (let c = 0; c < 4; c++) {
    const k: Value[] = [];
    const v: Value[] = [];
    for (let i = 0; i < 300; i++) {
      k.push(c * 1000 + i);
      v.push(i % 11 === 0 ? null : `v${c}-${i}`);
    }
    want.push(...k);
    const sink = t.sink();
    await sink.write({ length: 300, columns: [columnOf({ id: 'int4' }, k), columnOf({ id: 'text' }, v)], selection: null });
    await sink.commit();
  }
  await t.refresh();
  assert.is(t.rows, 1200);
  const [k] = await readAll(t.scan({ columns: ['k'] }));
  assert.equal(Array.from({ length: k!.length }, (_, i) => getValue(k!, i)).sort((a, b) => Number(a) - Number(b)), want);
  await t.compact();
  await t.refresh();
  assert.is(t.rows, 1200);
  const [k2] = await readAll(t.scan({ columns: ['k'] }));
  assert.is(k2!.length, 1200);
  assert.equal((await t.check()).problems, []);
  await db.close();
});

test('DROP TABLE on S3: a tombstone commit, pinned readers keep reading, re-create above it, vacuum removes the data', async () => {
  const db = await Database.open(s3.uri('drop'));
  for (const layout of ['pax', 'ao_column'] as const) {
    const name = `d_${layout}`;
    await query(db, `CREATE TABLE ${name} (id int8 NOT NULL, v text) WITH (layout = ${layout})`);
    await query(db, `INSERT INTO ${name} VALUES (1, 'a'), (2, 'b')`);
    await query(db, `INSERT INTO ${name} VALUES (3, 'c')`);
    const pinned = await db.table(name);
    assert.is((await query(db, `DROP TABLE ${name}`)).tag, 'DROP TABLE');
    const gone = await db.table(name).then(() => null, (e: { code: string }) => e.code);
    assert.is(gone, '42P01');
    assert.ok(!(await db.tables()).some((t) => t.name === name));
    const cols = await readAll(pinned.scan({ columns: ['id'] }));
    assert.equal([0, 1, 2].map((i) => getValue(cols[0]!, i)), [1n, 2n, 3n], 'a pinned reader keeps its snapshot');
    // Re-created with another schema: empty, then written (on S3 an ao_column append makes new objects, never over the old ones).
    await query(db, `CREATE TABLE ${name} (k text, n int4) WITH (layout = ${layout})`);
    assert.equal(textRows(await query(db, `SELECT count(*) FROM ${name}`)), [['0']]);
    await query(db, `INSERT INTO ${name} VALUES ('x', 5)`);
    assert.equal(textRows(await query(db, `SELECT k, n FROM ${name}`)), [['x', '5']]);
  }
  // Vacuum of a dropped table: only its tombstone is left.
  await query(db, "CREATE TABLE d_vac (id int8)");
  await query(db, 'INSERT INTO d_vac VALUES (1), (2)');
  const tomb = await db.dropTable('d_vac');
  const r = await db.vacuum('d_vac', { graceMs: 0 });
  assert.ok(r.filesRemoved >= 1 && r.snapshotsRemoved >= 2, JSON.stringify(r));
  // The tombstone, the checkpoint vacuum gave it and the checkpoint hint (docs/FORMAT.md "Table metadata v2").
  const tombName = `d_vac/_snapshots/${String(tomb.id).padStart(20, '0')}`;
  assert.equal((await db.store.list('d_vac/')).map((o) => o.path), [`${tombName}.ckpt`, `${tombName}.snap`, 'd_vac/_snapshots/_checkpoint']);
  assert.equal((await db.tables()).map((t) => t.name), ['d_ao_column', 'd_pax']);
  await db.close();
});

test.run();

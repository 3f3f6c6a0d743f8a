/**
 * Table-level round trips (README.md "Guarantees"): random schemas covering every supported
 * type, NULLs and edge values, the row counts around batch, zone and row-group boundaries,
 * every codec. What is read equals what was written.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { concatRanges } from '../../src/types/concat.js';
import type { Batch, Column } from '../../src/types/column.js';
import { TYPE_IDS, type Field, type PgType } from '../../src/types/type.js';
import { Rng, randomColumn, randomType, testSeed } from '../support/random.js';
import { tempDir } from '../support/tmp.js';
import { assertColumnEqual, readAll } from '../support/columns.js';

const COUNTS = [0, 1, 1023, 1024, 1025, 131071, 131072, 131073, 300000];
const MAX = 300000;

/** One column of every type (with a typmod variant where there is one), plus a few random ones. */
function schema(rng: Rng): Field[] {
  const types: PgType[] = TYPE_IDS.map((id) => {
    switch (id) {
      case 'varchar':
        return { id, length: 12 };
      case 'bpchar':
        return { id, length: 3 };
      default:
        return { id };
    }
  });
  types.push({ id: 'numeric', precision: 38, scale: 0 }, { id: 'numeric', precision: 38, scale: 38 }, { id: 'numeric', precision: 10, scale: 2 }, { id: 'varchar' });
  for (let i = 0; i < 3; i++) types.push(randomType(rng));
  return types.map((type, i) => ({ name: `c${i + 1}`, type, notNull: i % 5 === 4, fieldId: i + 1 }));
}

const rng = new Rng(testSeed());
const fields = schema(rng);
const data: Column[] = fields.map((f) => randomColumn(f.type, MAX, rng, f.notNull ? 0 : 0.1));

function prefix(n: number): Column[] {
  return data.map((c, i) => concatRanges(fields[i]!.type, [{ column: c, start: 0, length: n }]));
}

/** Cuts rows [0, n) into batches of irregular sizes, so sink boundaries fall everywhere. */
function batches(n: number): Batch[] {
  const out: Batch[] = [];
  const sizes = [1, 7, 1000, 4096, 50000, 333];
  let at = 0;
  let k = 0;
  while (at < n) {
    const len = Math.min(sizes[k++ % sizes.length]!, n - at);
    out.push({ length: len, columns: data.map((c, i) => concatRanges(fields[i]!.type, [{ column: c, start: at, length: len }])), selection: null });
    at += len;
  }
  return out;
}

for (const codec of ['lz4', 'zstd', 'none'] as const) {
  test(`round trip, codec ${codec}, every row count`, async () => {
    const db = await Database.open(tempDir());
    for (const n of COUNTS) {
      const name = `t_${codec}_${n}`;
      const t = await db.createTable(name, fields, { codec });
      const sink = t.sink();
      for (const b of batches(n)) await sink.write(b);
      const r = await sink.commit();
      assert.is(r.rows, n);
      await t.refresh();
      assert.is(t.rows, n);
      const expected = prefix(n);
      const got = await readAll(t.scan());
      fields.forEach((f, i) => assertColumnEqual(got[i]!, expected[i]!, `${name}.${f.name} (${f.type.id})`));
      // a projection in another order reads the same values
      const proj = [fields[3]!.name, fields[0]!.name];
      const got2 = await readAll(t.scan({ columns: proj, batchRows: 512 }));
      assertColumnEqual(got2[0]!, expected[3]!, `${name} projected`);
      assertColumnEqual(got2[1]!, expected[0]!, `${name} projected`);
    }
    await db.close();
  });
}

test('a commit of several files and groups, and appends on top, read back in order', async () => {
  const db = await Database.open(tempDir());
  const t = await db.createTable('multi', fields.slice(0, 6), { rowGroupRows: 5000, zoneRows: 2048 });
  const six = data.slice(0, 6);
  let at = 0;
  for (const n of [12345, 1, 40000]) {
    const sink = t.sink({ fileBytes: 100_000 });
    await sink.write({ length: n, columns: six.map((c, i) => concatRanges(fields[i]!.type, [{ column: c, start: at, length: n }])), selection: null });
    await sink.commit();
    at += n;
  }
  await t.refresh();
  assert.is(t.rows, at);
  assert.ok(t.snapshot.files.length > 3, `expected several files, got ${t.snapshot.files.length}`);
  const got = await readAll(t.scan());
  six.forEach((c, i) => assertColumnEqual(got[i]!, concatRanges(fields[i]!.type, [{ column: c, start: 0, length: at }]), `multi.${fields[i]!.name}`));
  await db.close();
});

test('NOT NULL is checked against validity: 23502 naming the column and the input row', async () => {
  const db = await Database.open(tempDir());
  const t = await db.createTable('nn', [{ name: 'id', type: 'int4', notNull: true }, { name: 'v', type: 'text' }]);
  const sink = t.sink();
  const ok: Batch = { length: 3, columns: [randomColumn({ id: 'int4' }, 3, rng, 0), randomColumn({ id: 'text' }, 3, rng, 0)], selection: null };
  await sink.write(ok);
  const { columnOf } = await import('../../src/types/builder.js');
  const bad: Batch = { length: 3, columns: [columnOf({ id: 'int4' }, [1, 2, null]), columnOf({ id: 'text' }, ['a', 'b', 'c'])], selection: null };
  try {
    await sink.write(bad);
    assert.unreachable('expected a not-null violation');
  } catch (e) {
    const err = e as { code: string; columnName: string; row: number; message: string };
    assert.is(err.code, '23502');
    assert.is(err.columnName, 'id');
    assert.is(err.row, 6);
    assert.match(err.message, 'null value in column "id" of relation "nn" violates not-null constraint');
  }
  await sink.abort();
  await t.refresh();
  assert.is(t.rows, 0);
  await db.close();
});

test.run();

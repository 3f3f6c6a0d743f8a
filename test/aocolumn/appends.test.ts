/**
 * Trickle ingest (docs/FORMAT.md "ao_column segments"): 1,000 appends of 100 rows each to an ao_column
 * table. Each append only adds blocks at the end of the segments — the bytes it writes (EOF
 * growth, equal to the files' growth) stay proportional to its 100 rows, the same for the
 * 1,000th append as for the first — every row reads back, and after compaction the table is
 * full blocks (16,384 rows) with the same content.
 *
 * On an in-memory store (an appendable ObjectStore): 1,000 commits on local disk cost ~6,000
 * fsyncs, minutes on a slow disk, and durability is not what this test is about
 * (./crash.test.ts is).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { columnOf } from '../../src/types/builder.js';
import { getValue } from '../../src/types/builder.js';
import type { SnapshotJson } from '../../src/storage/snapshot-types.js';
import { MemStore } from '../support/memstore.js';
import { readAll } from '../support/columns.js';

const APPENDS = 1000;
const ROWS = 100;

function eofTotal(s: SnapshotJson): number {
  let n = 0;
  for (const seg of s.ao!.segments) for (const e of Object.values(seg.eof)) n += e;
  return n;
}

test('1,000 appends of 100 rows: O(rows) bytes per append, every row back, full blocks after compact', async () => {
  const store = new MemStore();
  const db = await Database.open(store);
  const t = await db.createTable('trickle', [
    { name: 'id', type: 'int8', notNull: true },
    { name: 'note', type: 'text' },
  ], { layout: 'ao_column' });
  const growth: number[] = [];
  let eof = 0;
  for (let a = 0; a < APPENDS; a++) {
    const ids: bigint[] = [];
    const notes: (string | null)[] = [];
    for (let i = 0; i < ROWS; i++) {
      const id = a * ROWS + i;
      ids.push(BigInt(id));
      notes.push(id % 7 === 0 ? null : `event ${id}`);
    }
    const sink = t.sink();
    await sink.write({ length: ROWS, columns: [columnOf({ id: 'int8' }, ids), columnOf({ id: 'text' }, notes)], selection: null });
    const r = await sink.commit();
    const now = eofTotal(r.snapshot);
    growth.push(now - eof);
    eof = now;
  }
  await t.refresh();
  // one segment set, appended in place: the files are exactly the committed EOFs
  assert.is(t.snapshot.ao!.segments.length, 1);
  let onDisk = 0;
  for (const fieldId of ['1', '2']) onDisk += (await store.stat(`trickle/ao/${fieldId}/1.seg`))!.size;
  assert.is(onDisk, eof);
  const avg = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
  const first = avg(growth.slice(0, 100));
  const last = avg(growth.slice(-100));
  const max = Math.max(...growth);
  assert.ok(max < 4 * first, `an append wrote ${max} bytes, the first hundred ${first.toFixed(0)} on average`);
  assert.ok(last < 1.25 * first && last > 0.8 * first, `bytes per append: first 100 ${first.toFixed(0)}, last 100 ${last.toFixed(0)}`);
  process.stdout.write(` [bytes per append: first 100 avg ${first.toFixed(0)}, last 100 avg ${last.toFixed(0)}, max ${max}; ${eof} bytes in segments] `);

  // every row back, in order
  const [id, note] = await readAll(t.scan());
  assert.is(id!.length, APPENDS * ROWS);
  for (let i = 0; i < id!.length; i++) {
    if (getValue(id!, i) !== BigInt(i)) assert.unreachable(`row ${i}: id ${getValue(id!, i)}`);
    if (getValue(note!, i) !== (i % 7 === 0 ? null : `event ${i}`)) assert.unreachable(`row ${i}: note ${getValue(note!, i)}`);
  }

  // compact: full blocks, same content, readers of the old snapshot undisturbed
  const old = t.scan({ columns: ['id'] });
  const r = await t.compact();
  assert.is(r.filesRewritten, APPENDS);
  const groups = t.snapshot.files.flatMap((f) => f.groups);
  assert.is(groups.length, Math.ceil((APPENDS * ROWS) / 16384));
  groups.slice(0, -1).forEach((g, i) => assert.is(g.rows, 16384, `group ${i}`));
  const [id2, note2] = await readAll(t.scan());
  assert.is(id2!.length, APPENDS * ROWS);
  for (let i = 0; i < id2!.length; i++) {
    if (getValue(id2!, i) !== BigInt(i) || getValue(note2!, i) !== getValue(note!, i)) assert.unreachable(`after compact, row ${i}`);
  }
  assert.is((await readAll(old))[0]!.length, APPENDS * ROWS, 'a scan pinned before the compaction');
  assert.equal((await t.check()).problems, []);
  // the old segment set left the snapshot; vacuum removes its files
  assert.is(t.snapshot.ao!.segments.length, 1);
  const v = await db.vacuum('trickle', { graceMs: 0 });
  assert.ok(v.filesRemoved >= 2, `vacuum removed ${v.filesRemoved} files`);
  await t.refresh();
  assert.is((await readAll(t.scan({ columns: ['id'] })))[0]!.length, APPENDS * ROWS);
  await db.close();
});

test.run();

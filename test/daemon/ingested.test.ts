/**
 * The ingested-files window (src/storage/ingested.ts): recorded by the commit that
 * adds the rows, refused a second time (23505) without committing, bounded, and carried
 * forward by every later commit (compaction included).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { parseColumns } from '../../src/types/parse-type.js';
import { columnOf } from '../../src/types/builder.js';
import { PaxdError } from '../../src/types/errors.js';
import { withIngested, type IngestedFileJson } from '../../src/storage/index.js';
import { tempDir } from '../support/tmp.js';

const id = (n: number): IngestedFileJson => ({ name: `f${n}.csv`, size: n, hash: `sha256:${n.toString(16).padStart(64, '0')}` });

test('a sink commit records identities; the same identity again fails with 23505 and commits nothing', async () => {
  const db = await Database.open(tempDir());
  const t = await db.createTable('t', parseColumns('id int8'));
  const write = async (ingested: IngestedFileJson[]) => {
    const s = t.sink({ ingested });
    await s.write({ length: 2, columns: [columnOf(t.fields[0]!.type, [1n, 2n])], selection: null });
    return s.commit();
  };
  const r = await write([id(1), id(2)]);
  assert.equal(r.snapshot.ingested, [id(1), id(2)]);
  try {
    await write([id(3), id(2)]);
    assert.unreachable('committed a file twice');
  } catch (e) {
    assert.instance(e, PaxdError);
    assert.is((e as PaxdError).code, '23505');
  }
  await t.refresh();
  assert.is(t.snapshot.id, r.snapshot.id, 'nothing committed');
  assert.is(t.rows, 2);
  // Later commits carry the window: an append without identities, then a compaction.
  await write([]);
  const c = await t.compact({ smallFileRows: 1000 });
  assert.ok(c.filesRewritten >= 2);
  assert.equal(c.snapshot.ingested, [id(1), id(2)]);
  await db.close();
});

test('the window keeps the newest identities', () => {
  const base = { ingested: [id(1), id(2), id(3)] } as Parameters<typeof withIngested>[0];
  assert.equal(withIngested(base, [id(4), id(5)], 4).ingested, [id(2), id(3), id(4), id(5)]);
});

test.run();

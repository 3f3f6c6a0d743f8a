/**
 * Arrow IPC input (README.md "Usage"): every type round trips through ingestFiles by column name, and a
 * truncated or garbled Arrow file (file and stream format) fails with 22P04 naming the file,
 * with nothing committed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RecordBatch, Schema, Field as ArrowField, Table as ArrowTable, tableToIPC, makeData, Struct } from 'apache-arrow';
import { Database } from '../../src/table/database.js';
import { ingestFiles } from '../../src/table/ingest.js';
import { PaxdError } from '../../src/types/errors.js';
import { arrowType, columnToArrow } from '../../src/types/arrow.js';
import { TYPE_IDS, type PgType } from '../../src/types/type.js';
import { Rng, randomColumn, testSeed } from '../support/random.js';
import { tempDir } from '../support/tmp.js';
import { assertColumnEqual, readAll } from '../support/columns.js';

const rng = new Rng(testSeed());
const types: PgType[] = TYPE_IDS.map((id) => (id === 'varchar' ? { id, length: 20 } : id === 'bpchar' ? { id, length: 4 } : id === 'numeric' ? { id, precision: 20, scale: 3 } : { id }));
const columns = types.map((type, i) => ({ name: `c${i + 1}`, type }));
const n = 3000;
const data = types.map((t) => randomColumn(t, n, rng, 0.1));

function arrowBytes(format: 'file' | 'stream'): Uint8Array {
  const fields = columns.map((c, i) => new ArrowField(c.name, arrowType(types[i]!), true));
  const schema = new Schema(fields);
  const children = data.map((c) => columnToArrow(c));
  const struct = makeData({ type: new Struct(fields), length: n, nullCount: 0, children });
  return tableToIPC(new ArrowTable([new RecordBatch(schema, struct)]), format);
}

test('every type round trips through Arrow IPC ingest (file and stream format)', async () => {
  const dir = tempDir();
  const db = await Database.open(join(dir, 'store'));
  for (const format of ['file', 'stream'] as const) {
    const path = join(dir, `all.${format === 'file' ? 'arrow' : 'arrows'}`);
    writeFileSync(path, arrowBytes(format));
    const t = await db.createTable(`t_${format}`, columns);
    const r = await ingestFiles(t, [path]);
    assert.is(r.rowsLoaded, n);
    await t.refresh();
    const got = await readAll(t.scan());
    got.forEach((c, i) => assertColumnEqual(c, data[i]!, `${format} ${columns[i]!.name} (${types[i]!.id})`));
  }
  await db.close();
});

test('truncated or garbled Arrow IPC input fails with 22P04 naming the file; nothing committed', async () => {
  const dir = tempDir();
  const db = await Database.open(join(dir, 'store'));
  const t = await db.createTable('t', columns);
  for (const format of ['file', 'stream'] as const) {
    const full = arrowBytes(format);
    for (const cut of [0, 7, 100, Math.floor(full.length / 2), full.length - 9]) {
      const path = join(dir, `cut-${cut}.${format === 'file' ? 'arrow' : 'arrows'}`);
      const bad = new Uint8Array(full.subarray(0, cut));
      writeFileSync(path, bad);
      try {
        await ingestFiles(t, [path]);
        assert.unreachable(`${format} cut at ${cut}: expected an error`);
      } catch (e) {
        assert.ok(e instanceof PaxdError, `${format} cut at ${cut}: ${(e as Error).stack}`);
        assert.is(e.code, '22P04', `${format} cut at ${cut}: ${e.message}`);
        assert.ok(e.message.startsWith(`${path}: `), e.message);
      }
    }
  }
  await t.refresh();
  assert.is(t.rows, 0);
  assert.is(t.snapshot.id, 1, 'no commit');
  await db.close();
});

test.run();

/**
 * The daemon's background vacuum (src/daemon/maintenance.ts) also clears dropped tables: once
 * past the grace period their data files go, and the tombstone stays (the name answers 42P01).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/table/database.js';
import { query } from '../../src/engine/index.js';
import { Maintenance } from '../../src/daemon/maintenance.js';
import { DaemonMetrics } from '../../src/daemon/metrics.js';
import { createLogger } from '../../src/daemon/log.js';
import { tempDir } from '../support/tmp.js';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

test('background vacuum removes the data of a dropped table and keeps the live one', async () => {
  const dir = tempDir();
  const db = await Database.open(dir);
  try {
    for (const t of ['gone', 'kept']) {
      await query(db, `CREATE TABLE ${t} (id int8, v text)`);
      await query(db, `INSERT INTO ${t} VALUES (1, 'a'), (2, 'b')`);
    }
    await query(db, 'DROP TABLE gone');
    const dataOf = (t: string) => filesUnder(join(dir, t)).filter((f) => !f.startsWith('_snapshots'));
    assert.ok(dataOf('gone').length > 0, 'the dropped table still has its data files before vacuum');
    const metrics = new DaemonMetrics();
    const m = new Maintenance(db, { compactSmallFiles: 0, compactDeletedFraction: 1, compactIntervalMs: 0, vacuumGraceMs: 0, vacuumIntervalMs: 0 }, createLogger('silent'), metrics);
    await m.vacuumAll();
    assert.equal(dataOf('gone'), [], 'no data file of the dropped table is left');
    assert.ok(dataOf('kept').length > 0, 'the live table keeps its data');
    const r = await query(db, 'SELECT count(*) FROM kept');
    assert.equal(r.rows, [[2n]]);
    await query(db, 'SELECT count(*) FROM gone').then(
      () => assert.unreachable('a dropped table must not answer'),
      (e: { code?: string }) => assert.is(e.code, '42P01'),
    );
  } finally {
    await db.close();
  }
});

test.run();

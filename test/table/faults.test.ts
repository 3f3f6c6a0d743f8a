/**
 * Fault sweep (README.md "Guarantees"): a fault-injecting filesystem under the local store
 * fails the Nth write, fsync, link or directory sync of an ingest, for N = 1, 2, … until the
 * ingest succeeds. After each failure the error is a clean PaxdError and the table's content
 * equals its state before the ingest; once `vacuum` runs no temporary or unreferenced file is
 * left behind.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/table/database.js';
import { LocalStore } from '../../src/storage/local.js';
import { FaultFs, type FaultCategory } from '../../src/storage/faulty.js';
import { PaxdError } from '../../src/types/errors.js';
import { concatRanges } from '../../src/types/concat.js';
import type { Batch, Column } from '../../src/types/column.js';
import { Rng, randomColumn, testSeed } from '../support/random.js';
import { tempDir } from '../support/tmp.js';
import { assertColumnEqual, readAll } from '../support/columns.js';

const COLUMNS = [
  { name: 'id', type: 'int8', notNull: true },
  { name: 'name', type: 'text' },
  { name: 'amount', type: 'numeric(12,2)' },
];

async function content(dir: string): Promise<Column[]> {
  const db = await Database.open(dir);
  try {
    return await readAll((await db.table('f')).scan());
  } finally {
    await db.close();
  }
}

function append(a: Column[], b: Batch): Column[] {
  return a.map((c, i) => concatRanges(c.type, [{ column: c, start: 0, length: c.length }, { column: b.columns[i]!, start: 0, length: b.length }]));
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) out.push(join(e.parentPath, e.name));
  return out;
}

test('fail the Nth write / fsync / link / dirsync of an ingest until it succeeds', async () => {
  const dir = tempDir();
  const rng = new Rng(testSeed());
  {
    const db = await Database.open(dir);
    await db.createTable('f', COLUMNS, { rowGroupRows: 1024, zoneRows: 1024 });
    await db.close();
  }
  let expected = await content(dir);
  const summary: string[] = [];
  for (const category of ['write', 'fsync', 'link', 'dirsync', 'any'] as (FaultCategory | 'any')[]) {
    let failures = 0;
    for (let n = 1; ; n++) {
      assert.ok(n < 500, `${category}: the ingest never succeeded`);
      const fs = new FaultFs().failNth(category, n);
      const db = await Database.open(new LocalStore(dir, { fs }));
      const t = await db.table('f');
      const rows = 3000;
      const batch: Batch = { length: rows, columns: t.fields.map((f) => randomColumn(f.type, rows, rng, f.notNull ? 0 : 0.2)), selection: null };
      let ok = false;
      try {
        const sink = t.sink({ fileBytes: 16 * 1024 });
        await sink.write(batch);
        await sink.commit();
        ok = true;
      } catch (e) {
        assert.ok(e instanceof PaxdError, `${category} #${n}: not a PaxdError: ${(e as Error).stack}`);
        assert.is(e.kind, 'io', `${category} #${n}: ${e.message}`);
        failures++;
      } finally {
        await db.close();
      }
      if (ok) expected = append(expected, batch);
      const got = await content(dir);
      got.forEach((c, i) => assertColumnEqual(c, expected[i]!, `${category} #${n} (${ok ? 'committed' : 'failed'}): ${COLUMNS[i]!.name}`));
      if (ok && fs.injected === 0) break;
    }
    summary.push(`${category}: ${failures} failed ingests`);
  }
  process.stdout.write(` [${summary.join(', ')}] `);
  const db = await Database.open(dir);
  await db.vacuum('f', { graceMs: 0 });
  const t = await db.table('f');
  const referenced = new Set(t.snapshot.files.map((f) => join(dir, 'f', f.path)));
  for (const file of filesUnder(join(dir, 'f'))) {
    assert.not.match(file, /\.tmp-/, `temporary file left behind: ${file}`);
    if (file.includes(`${join('f', 'data')}`)) assert.ok(referenced.has(file), `unreferenced data file left behind: ${file}`);
  }
  await db.close();
  assertColumnEqual((await content(dir))[0]!, expected[0]!, 'after vacuum');
});

test.run();

/**
 * A text value that starts with U+FEFF (a byte order mark) is data like any other character:
 * PostgreSQL keeps it, so paxd must too — through values, statistics, group keys and
 * predicates, each of which decodes UTF-8 with its own TextDecoder (whose default drops a
 * leading BOM).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { query, textRows } from '../../src/engine/index.js';
import { COMPILE } from '../../src/engine/compile/pipeline.js';
import { tempDir } from '../support/tmp.js';

const BOM = '\uFEFF';

test('a leading U+FEFF survives values, min/max, GROUP BY and WHERE', async () => {
  const db = await Database.open(tempDir());
  try {
    await query(db, 'CREATE TABLE b (id int4, v text)');
    await query(db, `INSERT INTO b VALUES (1, '${BOM}a'), (2, '${BOM}a'), (3, 'a'), (4, '${BOM}')`);
    const all = await query(db, 'SELECT id, v FROM b ORDER BY id');
    assert.equal(textRows(all), [['1', `${BOM}a`], ['2', `${BOM}a`], ['3', 'a'], ['4', BOM]]);
    const stats = await query(db, 'SELECT min(v), max(v), length(max(v)) FROM b');
    assert.equal(textRows(stats), [['a', `${BOM}a`, '2']]);
    for (const compiled of [true, false]) {
      const was = COMPILE.enabled;
      COMPILE.enabled = compiled;
      try {
        const g = await query(db, 'SELECT v, count(*) FROM b WHERE id > 0 GROUP BY v ORDER BY v');
        assert.equal(textRows(g), [['a', '1'], [BOM, '1'], [`${BOM}a`, '2']], `GROUP BY, compiled ${compiled}`);
      } finally {
        COMPILE.enabled = was;
      }
    }
    const w = await query(db, `SELECT id FROM b WHERE v = '${BOM}a' ORDER BY id`);
    assert.equal(textRows(w), [['1'], ['2']]);
    const lt = await query(db, `SELECT id FROM b WHERE v > 'a' ORDER BY id`);
    assert.equal(textRows(lt), [['1'], ['2'], ['4']]);
  } finally {
    await db.close();
  }
});

test.run();

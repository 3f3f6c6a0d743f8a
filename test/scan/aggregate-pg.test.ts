/**
 * Aggregate result values and types against PostgreSQL 15 itself: sum and avg of int2, int4,
 * int8, numeric(p,s) and numeric (the division scale of avg, exact numeric sums, NaN and
 * Infinity), min/max of numeric and text, over data spread across several row groups and
 * answered partly from statistics, partly by scanning (a predicate cuts a group in two).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { columnOf } from '../../src/types/builder.js';
import { formatText } from '../../src/types/text-io.js';
import type { Value } from '../../src/types/column.js';
import { P } from '../../src/scan/predicate.js';
import type { AggSpec } from '../../src/scan/aggregate.js';
import { Rng, testSeed } from '../support/random.js';
import { startPostgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';

const COLS = [
  { name: 'a', type: 'int2' },
  { name: 'b', type: 'int4' },
  { name: 'c', type: 'int8' },
  { name: 'd', type: 'numeric(12,3)' },
  { name: 'e', type: 'numeric' },
  { name: 'f', type: 'text' },
];

test('sum, avg, min, max equal PostgreSQL (values and scales)', async () => {
  const pg = await startPostgres();
  const rng = new Rng(testSeed());
  for (let round = 0; round < 4; round++) {
    const n = rng.int(1, 3000);
    const db = await Database.open(tempDir());
    const t = await db.createTable('g', [{ name: 'id', type: 'int4' }, ...COLS], { rowGroupRows: 1024, zoneRows: 1024 });
    const cols: Value[][] = [[], [], [], [], [], [], []];
    const big = rng.chance(0.5);
    for (let i = 0; i < n; i++) {
      cols[0]!.push(i);
      const nul = () => rng.chance(0.1);
      cols[1]!.push(nul() ? null : rng.int(-32768, 32767));
      cols[2]!.push(nul() ? null : big ? rng.int(-2147483648, 2147483647) : rng.int(-9, 9));
      cols[3]!.push(nul() ? null : big ? rng.bigint(-(2n ** 62n), 2n ** 62n) : BigInt(rng.int(-1000, 1000)));
      cols[4]!.push(nul() ? null : BigInt(rng.int(-99999999, 99999999)));
      cols[5]!.push(nul() ? null : rng.chance(0.01) && round === 3 ? rng.pick(['NaN', 'Infinity']) : `${rng.int(-99999, 99999)}.${String(rng.int(0, 9999)).padStart(rng.int(1, 4), '0')}`.replace(/\.(\d*)$/, (m) => m));
      cols[6]!.push(nul() ? null : `t${rng.int(0, 999)}`);
    }
    const types = t.fields.map((f) => f.type);
    const sink = t.sink();
    await sink.write({ length: n, columns: cols.map((c, i) => columnOf(types[i]!, c)), selection: null });
    await sink.commit();
    await t.refresh();
    const rows = cols[0]!.map((_, i) => `(${cols.map((c, j) => (c[i] === null ? 'NULL' : `'${formatText(types[j]!, c[i]!)}'::${t.fields[j]!.type.id === 'numeric' ? (j === 4 ? 'numeric(12,3)' : 'numeric') : t.fields[j]!.type.id}`)).join(', ')})`);
    const aggs: AggSpec[] = [];
    const sql: string[] = [];
    for (const c of COLS) {
      for (const fn of c.type === 'text' ? (['min', 'max'] as const) : (['sum', 'avg', 'min', 'max'] as const)) {
        aggs.push({ fn, column: c.name });
        sql.push(`${fn}(${c.name})::text`);
      }
    }
    const cut = Math.floor(n / 3);
    for (const where of [undefined, P.ge('id', cut)]) {
      const got = await t.aggregate(aggs, where);
      const q = `SELECT ${sql.join(', ')} FROM (VALUES ${rows.join(', ')}) AS v(id, ${COLS.map((c) => c.name).join(', ')})${where ? ` WHERE id >= ${cut}` : ''}`;
      const want = (await pg.query(q)).split('|');
      assert.is(want.length, aggs.length);
      got.values.forEach((v, i) => {
        const text = v === null ? '' : formatText(got.types[i]!, v);
        assert.is(text, want[i], `round ${round}, ${aggs[i]!.fn}(${aggs[i]!.column})${where ? ' where' : ''}`);
      });
    }
    await db.close();
  }
});

test.run();

/**
 * `$n` parameters (docs/ARCHITECTURE.md "The SQL engine"): prepare() infers each parameter's type from its context as
 * PostgreSQL does, describes the result without running it, and execute() runs with values.
 * Each case runs on paxd and as PREPARE/EXECUTE on PostgreSQL 15 (whose pg_prepared_statements
 * gives the inferred types); types, result columns and rows must agree.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { prepare, query, textRows } from '../../src/engine/index.js';
import { parseText, pgDisplayName } from '../../src/types/index.js';
import { NULL, runPg, sameRows } from './compare.js';
import { pgSql, setupRelational } from './relational-setup.js';

/** A statement and its parameters as text (null for NULL). */
const CASES: [string, (string | null)[]][] = [
  ['SELECT id, s FROM ja WHERE id = $1', ['3']],
  ['SELECT id FROM ja WHERE n > $1 AND s = $2 ORDER BY id', ['2.5', 'x']],
  ['SELECT $1::int8 + 1, $2', ['41', 'hello']],
  ['SELECT id FROM ja WHERE k = $1', [null]],
  ['SELECT a.id, b.id FROM ja a JOIN jb b ON a.id = b.id WHERE b.d > $1 ORDER BY 1', ['1992-01-20']],
  ['SELECT id FROM ja ORDER BY id LIMIT $1 OFFSET $2', ['2', '3']],
  ['SELECT id FROM ja WHERE k IN ($1, $2) ORDER BY id', ['3', '4']],
  ['SELECT id FROM ja WHERE k BETWEEN $1 AND $2 ORDER BY id', ['3', '5']],
  ['SELECT s, count(*) FROM ja WHERE f < $1 GROUP BY s HAVING count(*) > $2 ORDER BY s', ['1', '1']],
  ['SELECT id + $1, s || $2 FROM ja WHERE id < 3 ORDER BY 1', ['100', '!']],
  ['SELECT k FROM ja WHERE id < $1 UNION SELECT k FROM jb WHERE id < $1 ORDER BY 1', ['5']],
  ['SELECT * FROM (SELECT id, k FROM ja WHERE k > $1) s WHERE s.id < $2 ORDER BY id', ['10', '30']],
  ['SELECT c_name, o_totalprice FROM customer JOIN orders ON c_custkey = o_custkey WHERE o_orderkey = $1', ['17']],
  ['SELECT id FROM ja WHERE s LIKE $1 ORDER BY id', ['%x%']],
  ['SELECT id FROM ja WHERE $1 ORDER BY id LIMIT 2', ['true']],
  ['SELECT coalesce(k, $1) FROM ja WHERE id < 5 ORDER BY id', ['-1']],
];

CASES.forEach(([sql, texts], i) => {
  test(`${sql} with (${texts.join(', ')})`, async () => {
    const { db, pg } = await setupRelational();
    const name = `p${i}`;
    const pgTypes = await runPg(pg, pgSql(`PREPARE ${name} AS ${sql};\nSELECT parameter_types FROM pg_prepared_statements WHERE name = '${name}';\nDEALLOCATE ${name};`));
    assert.ok(pgTypes.ok, JSON.stringify(pgTypes));
    if (!pgTypes.ok) return;
    const p = await prepare(db, sql);
    assert.is(`{${p.paramTypes.map((t) => pgDisplayName(t)).join(',')}}`, pgTypes.rows[0]![0]!.replace(/"/g, ''));
    const args = texts.map((t) => (t === null ? 'NULL' : `'${t.replace(/'/g, "''")}'`)).join(', ');
    const theirs = await runPg(pg, pgSql(`PREPARE ${name} AS ${sql};\nEXECUTE ${name}(${args});\nDEALLOCATE ${name};`));
    assert.ok(theirs.ok, JSON.stringify(theirs));
    const r = await p.execute(texts.map((t, j) => (t === null ? null : parseText(p.paramTypes[j]!, t))));
    assert.equal(p.fields, r.fields);
    if (!theirs.ok) return;
    const mine = textRows(r).map((row) => row.map((v) => v ?? NULL));
    const diff = sameRows(/\border\s+by\b/i.test(sql), theirs.rows, mine);
    assert.ok(diff === null, diff ?? '');
  });
});

test('query(db, sql, params) infers the types and runs with the values', async () => {
  const { db } = await setupRelational();
  assert.equal(textRows(await query(db, 'SELECT id, s FROM ja WHERE id = $1', [3])), [['3', 'z']]);
});

test('explicit parameter types win over inference; fields are described without running', async () => {
  const { db } = await setupRelational();
  const p = await prepare(db, 'SELECT id, $1 AS v FROM ja WHERE id = $2', [{ id: 'int8' }, null]);
  assert.equal(p.paramTypes, [{ id: 'int8' }, { id: 'int4' }]);
  assert.equal(p.fields?.map(({ name, type }) => ({ name, type })), [{ name: 'id', type: { id: 'int4' } }, { name: 'v', type: { id: 'int8' } }]);
  // id is ja's first column (RowDescription's table OID and attnum, engine/origin.ts); $1 is no table's.
  assert.equal(p.fields?.map((f) => f.origin?.column), [1, undefined]);
  assert.equal(textRows(await p.execute([7n, 1])), [['1', '7']]);
});

test('INSERT … VALUES and DELETE … WHERE take parameters of their columns’ types', async () => {
  const { db } = await setupRelational();
  await query(db, 'CREATE TABLE pt (a int4, b text, c numeric(8,2), d date)');
  const ins = await prepare(db, 'INSERT INTO pt VALUES ($1, $2, $3, $4), ($1 + 1, upper($2), $3, $4)');
  assert.equal(ins.paramTypes.map((t) => t.id), ['int4', 'text', 'numeric', 'date']);
  assert.is(ins.fields, null);
  assert.is((await ins.execute([1, 'x', '12.5', parseText({ id: 'date' }, '1994-08-23')])).tag, 'INSERT 0 2');
  const del = await prepare(db, 'DELETE FROM pt WHERE a = $1');
  assert.equal(del.paramTypes, [{ id: 'int4' }]);
  assert.is((await del.execute([2])).tag, 'DELETE 1');
  assert.equal(textRows(await query(db, 'SELECT * FROM pt WHERE c = $1', ['12.50'])), [['1', 'x', '12.50', '1994-08-23']]);
});

test('a missing parameter is 42P02; a wrong count at execute is 08P01', async () => {
  const { db } = await setupRelational();
  const codeOf = async (f: () => Promise<unknown>) => {
    try {
      await f();
      return 'ok';
    } catch (e) {
      return (e as { code?: string }).code;
    }
  };
  assert.is(await codeOf(() => query(db, 'SELECT $1')), '42P02');
  const p = await prepare(db, 'SELECT id FROM ja WHERE id = $1');
  assert.is(await codeOf(() => p.execute([])), '08P01');
  assert.is(await codeOf(() => prepare(db, 'SELECT 1; SELECT 2')), '42601');
});

test.run();

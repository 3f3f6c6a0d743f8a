/**
 * Array text (src/types/array.ts) against PostgreSQL 15's array_out and array_in: random
 * text[] values built of the characters that need quoting (quotes, backslashes, commas,
 * braces, white space, the word NULL, empty strings, non-ASCII) print as PostgreSQL prints
 * them and read back to the same elements; literals PostgreSQL reads (extra spaces, quoted
 * and escaped NULL, escapes in unquoted elements) read to the same elements; malformed ones
 * are 22P02 in both.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatArrayText, parseArrayText } from '../../src/types/array.js';
import { parseText } from '../../src/types/text-io.js';
import { arrayOf } from '../../src/types/array.js';
import { isPaxdError } from '../../src/types/errors.js';
import { startPostgres, PgQueryError } from '../support/pg.js';
import { Rng, testSeed } from '../support/random.js';

const PIECES = ['a', 'b', ' ', '"', '\\', ',', '{', '}', '\t', '\n', 'NULL', 'null', 'é', '😀', 'x y', ''];

const sqlText = (s: string) => `'${s.replace(/'/g, "''")}'`;

function randomArray(rng: Rng): (string | null)[] {
  return Array.from({ length: rng.int(0, 5) }, () => (rng.chance(0.15) ? null : Array.from({ length: rng.int(0, 3) }, () => rng.pick(PIECES)).join('')));
}

test('random text[] values print as array_out prints them and read back to their elements', async () => {
  const pg = await startPostgres();
  const rng = new Rng(testSeed(0xa77a));
  const arrays = Array.from({ length: 300 }, () => randomArray(rng)).filter((a) => a.length > 0);
  const values = arrays.map((a, i) => `(${i}, ARRAY[${a.map((e) => (e === null ? 'NULL' : sqlText(e))).join(', ')}]::text[]::text)`).join(', ');
  const printed = JSON.parse(await pg.query(`SELECT json_agg(v ORDER BY i) FROM (VALUES ${values}) s(i, v)`)) as string[];
  const problems: string[] = [];
  arrays.forEach((a, i) => {
    if (formatArrayText(a) !== printed[i]) problems.push(`format ${JSON.stringify(a)}: paxd ${formatArrayText(a)}, PostgreSQL ${printed[i]}`);
    if (JSON.stringify(parseArrayText(printed[i]!)) !== JSON.stringify(a)) problems.push(`parse ${printed[i]}: ${JSON.stringify(parseArrayText(printed[i]!))}`);
  });
  assert.equal(problems, []);
  assert.is(formatArrayText([]), '{}');
});

test('literals PostgreSQL reads give the same elements; malformed ones are 22P02 in both', async () => {
  const pg = await startPostgres();
  const good = [
    '{}',
    ' { } ',
    '{a,b}',
    '{ a , b }',
    '{"NULL",NULL,null,nUlL}',
    '{\\NULL,N\\ULL}',
    '{"a\\"b","c\\\\d"}',
    '{a\\,b,c\\ }',
    '{"",""}',
    '{ "x y" ,z}',
    '{a b}',
  ];
  for (const lit of good) {
    const want = JSON.parse(await pg.query(`SELECT array_to_json(${sqlText(lit)}::text[])`)) as (string | null)[];
    assert.equal(parseArrayText(lit), want, lit);
    // Through the element type's input and output: the canonical text, as PostgreSQL's.
    assert.is(parseText(arrayOf({ id: 'text' }), lit), await pg.query(`SELECT ${sqlText(lit)}::text[]::text`), lit);
  }
  const bad = ['', '1,2', '{1,2', '{1,,2}', '{,}', '{"a}', '{a"b}', '{a}x', '{a,}', '{a\\}'];
  for (const lit of bad) {
    let code: string | undefined;
    try {
      await pg.query(`SELECT ${sqlText(lit)}::text[]`);
    } catch (e) {
      code = e instanceof PgQueryError ? e.sqlstate : String(e);
    }
    assert.is(code, '22P02', `PostgreSQL: ${lit}`);
    try {
      parseArrayText(lit);
      assert.unreachable(`paxd read ${lit}`);
    } catch (e) {
      assert.ok(isPaxdError(e) && e.code === '22P02', `paxd: ${lit}: ${String(e)}`);
    }
  }
  assert.is(parseText(arrayOf({ id: 'int4' }), '{ 1, 02,NULL, -3}'), '{1,2,NULL,-3}');
});

test.run();

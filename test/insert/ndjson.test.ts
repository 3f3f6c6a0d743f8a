/**
 * NDJSON input (src/insert/ndjson.ts): every type against parseText, numbers by their source
 * text, errors with their exact file:line:column and SQLSTATE, skip-mode accounting through
 * ingestFiles, and .gz / .zst inputs (src/insert/input.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { compress as zstdCompress } from 'zstd-napi';
import { Database } from '../../src/table/database.js';
import { ingestFiles } from '../../src/table/ingest.js';
import { readNdjson } from '../../src/insert/ndjson.js';
import type { Reject } from '../../src/insert/formats.js';
import { getValue } from '../../src/types/builder.js';
import type { Column } from '../../src/types/column.js';
import { PaxdError } from '../../src/types/errors.js';
import { formatText, parseText } from '../../src/types/text-io.js';
import type { Field, PgType } from '../../src/types/type.js';
import { readAll as readTable } from '../support/columns.js';
import { tempDir } from '../support/tmp.js';

function field(name: string, type: PgType, notNull = false, extra: Partial<Field> = {}): Field {
  return { name, type, notNull, fieldId: 0, ...extra };
}

async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size);
  if (bytes.length === 0) yield bytes;
}

function text(c: Column, i: number): string | null {
  const v = getValue(c, i);
  return v === null ? null : formatText(c.type, v);
}

interface Read {
  rows: (string | null)[][];
  rejects: Reject[];
  read: number;
  rejected: number;
}

async function read(input: string | Uint8Array, fields: readonly Field[], opts: { skip?: boolean; size?: number; batchRows?: number } = {}): Promise<Read> {
  const bytes = typeof input === 'string' ? Buffer.from(input) : input;
  const rejects: Reject[] = [];
  const r = readNdjson(chunks(bytes, opts.size ?? 1 << 20), fields, { table: 't', onError: opts.skip ? 'skip' : 'abort', onReject: (x) => rejects.push(x), ...(opts.batchRows ? { batchRows: opts.batchRows } : {}) }, 'data.ndjson');
  const rows: (string | null)[][] = [];
  for await (const b of r) for (let i = 0; i < b.length; i++) rows.push(b.columns.map((c) => text(c, i)));
  assert.is(r.rowsRead, rows.length + r.rowsRejected, 'rows read = loaded + rejected');
  return { rows, rejects, read: r.rowsRead, rejected: r.rowsRejected };
}

async function errorOf(input: string | Uint8Array, fields: readonly Field[]): Promise<PaxdError> {
  try {
    await read(input, fields);
  } catch (e) {
    if (e instanceof PaxdError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

// ---- values ----

/** [type, JSON value as written in the file, the text parseText reads for it]. */
const VALUES: [PgType, string, string][] = [
  [{ id: 'int2' }, '-32768', '-32768'],
  [{ id: 'int4' }, '2147483647', '2147483647'],
  [{ id: 'int4' }, '"  42 "', '  42 '],
  [{ id: 'int8' }, '9007199254740993', '9007199254740993'],
  [{ id: 'int8' }, '-9223372036854775808', '-9223372036854775808'],
  [{ id: 'float4' }, '3.4028235e38', '3.4028235e38'],
  [{ id: 'float4' }, '0.1', '0.1'],
  [{ id: 'float8' }, '1e-320', '1e-320'],
  [{ id: 'float8' }, '"NaN"', 'NaN'],
  [{ id: 'float8' }, '"-Infinity"', '-Infinity'],
  [{ id: 'bool' }, 'true', 'true'],
  [{ id: 'bool' }, 'false', 'false'],
  [{ id: 'bool' }, '"yes"', 'yes'],
  [{ id: 'text' }, '"a\\"b\\\\c\\n\\u00e9\\ud83d\\ude00"', 'a"b\\c\né😀'],
  [{ id: 'text' }, '12.50', '12.50'],
  [{ id: 'text' }, 'true', 'true'],
  [{ id: 'varchar', length: 3 }, '"abc"', 'abc'],
  [{ id: 'bpchar', length: 4 }, '"ab"', 'ab'],
  [{ id: 'bytea' }, '"\\\\x00ff10"', '\\x00ff10'],
  [{ id: 'date' }, '"2024-02-29"', '2024-02-29'],
  [{ id: 'date' }, '"infinity"', 'infinity'],
  [{ id: 'timestamp' }, '"2024-01-02 03:04:05.123456"', '2024-01-02 03:04:05.123456'],
  [{ id: 'timestamp' }, '"2024-01-02T03:04:05.1234565"', '2024-01-02T03:04:05.1234565'],
  [{ id: 'timestamptz' }, '"2024-01-02 03:04:05+02"', '2024-01-02 03:04:05+02'],
  [{ id: 'numeric' }, '12.50', '12.50'],
  [{ id: 'numeric' }, '123456789012345678901234567890.000000001', '123456789012345678901234567890.000000001'],
  [{ id: 'numeric' }, '1e5', '1e5'],
  [{ id: 'numeric', precision: 10, scale: 2 }, '3.14159', '3.14159'],
  [{ id: 'numeric', precision: 38, scale: 0 }, '-99999999999999999999999999999999999999', '-99999999999999999999999999999999999999'],
  [{ id: 'uuid' }, '"A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'],
];

test('values: every type reads as parseText reads its text (numbers by their source text)', async () => {
  for (const [type, json, asText] of VALUES) {
    const f = field('v', type);
    const r = await read(`{"v": ${json}}\n`, [f]);
    const expected = formatText(type, parseText(type, asText));
    assert.equal(r.rows, [[expected]], `${json} into ${JSON.stringify(type)}`);
  }
});

test('values: jsonb takes objects, arrays and scalars as JSON, normalized as jsonb input does', async () => {
  const f = field('j', { id: 'jsonb' });
  const lines = ['{"j": {"b": 1, "a": [1, 2.50, "x"]}}', '{"j": "str"}', '{"j": 12.50}', '{"j": [  ]}', '{"j": true}', '{"j": null}'];
  const r = await read(lines.join('\n'), [f]);
  const expected = ['{"b": 1, "a": [1, 2.50, "x"]}', '"str"', '12.50', '[  ]', 'true'].map((s) => formatText(f.type, parseText(f.type, s)));
  assert.equal(r.rows, [...expected.map((e) => [e]), [null]]);
});

test('values: json takes objects, arrays and scalars as their JSON source text, as written', async () => {
  const f = field('j', { id: 'json' });
  const lines = ['{"j": {"b": 1, "a": [1, 2.50, "x"], "b": 2}}', '{"j": "s\\"q"}', '{"j": 12.50}', '{"j": [  ]}', '{"j": false}', '{"j": null}'];
  const r = await read(lines.join('\n'), [f]);
  assert.equal(r.rows, [['{"b": 1, "a": [1, 2.50, "x"], "b": 2}'], ['"s\\"q"'], ['12.50'], ['[  ]'], ['false'], [null]]);
});

test('values: keys by name in any order, missing keys NULL or default, blank lines and CRLF, at every chunk size', async () => {
  const fields = [field('a', { id: 'int4' }), field('b', { id: 'text' }), field('c', { id: 'int4' }, false, { default: '7' }), field('D', { id: 'bool' })];
  const input = '\ufeff{"b":"x","a":1,"c":2,"D":true}\r\n\n   \r\n{"a":2}\n{"d":false, "b": null}\n{}';
  const expected = [
    ['1', 'x', '2', 't'],
    ['2', null, '7', null],
    [null, null, '7', 'f'],
    [null, null, '7', null],
  ];
  for (const size of [1, 2, 3, 5, 8, 13, 1000]) {
    const r = await read(input, fields, { size });
    assert.equal(r.rows, expected, `chunks of ${size}`);
    assert.is(r.read, 4);
  }
  const small = await read(input, fields, { batchRows: 1 });
  assert.equal(small.rows, expected);
});

// ---- errors ----

const ABC = [field('a', { id: 'int4' }), field('b', { id: 'text' }), field('c', { id: 'int8' }, true)];

const ERRORS: { name: string; input: string | Uint8Array; code: string; message: string; line: number; column?: number }[] = [
  { name: 'fraction into integer', input: '{"a":1,"c":1}\n\n{"c":5,"a":1.5}\n', code: '22P02', message: 'data.ndjson:3:1: invalid input syntax for type integer: "1.5"', line: 3, column: 1 },
  { name: 'exponent into integer', input: '{"a":1e3,"c":1}\n', code: '22P02', message: 'data.ndjson:1:1: invalid input syntax for type integer: "1e3"', line: 1, column: 1 },
  { name: 'integer out of range', input: '{"c":1,"a":3000000000}\n', code: '22003', message: 'data.ndjson:1:1: value "3000000000" is out of range for type integer', line: 1, column: 1 },
  { name: 'bigint out of range', input: '{"c":9223372036854775808}\n', code: '22003', message: 'data.ndjson:1:3: value "9223372036854775808" is out of range for type bigint', line: 1, column: 3 },
  { name: 'string into integer', input: '{"a":"12x","c":1}', code: '22P02', message: 'data.ndjson:1:1: invalid input syntax for type integer: "12x"', line: 1, column: 1 },
  { name: 'NOT NULL, explicit null', input: '{"c":1}\r\n{"c":null}\r\n', code: '23502', message: 'data.ndjson:2:3: null value in column "c" of relation "t" violates not-null constraint', line: 2, column: 3 },
  { name: 'NOT NULL, missing key', input: '{"a":1}\n', code: '23502', message: 'data.ndjson:1:3: null value in column "c" of relation "t" violates not-null constraint', line: 1, column: 3 },
  { name: 'object into integer', input: '{"c":1,"a":{"x":1}}\n', code: '42804', message: 'data.ndjson:1:1: column "a" is of type integer but the JSON value is an object (only json and jsonb columns take objects and arrays)', line: 1, column: 1 },
  { name: 'unknown key', input: '{"c":1}\n{"c":1,"zz":2}\n', code: '42703', message: 'data.ndjson:2: column "zz" of relation "t" does not exist', line: 2 },
  { name: 'invalid JSON: trailing comma', input: '{"c":1,}\n', code: '22P02', message: 'data.ndjson:1: invalid input syntax for type json', line: 1 },
  { name: 'invalid JSON: bad literal', input: '{"c":1}\n{"c":tru}\n', code: '22P02', message: 'data.ndjson:2: invalid input syntax for type json', line: 2 },
  { name: 'invalid JSON: number with junk', input: '{"c":12x}\n', code: '22P02', message: 'data.ndjson:1: invalid input syntax for type json', line: 1 },
  { name: 'invalid JSON: unterminated string', input: '{"c":1,"b":"abc}\n', code: '22P02', message: 'data.ndjson:1: invalid input syntax for type json', line: 1 },
  { name: 'invalid JSON: raw control character', input: '{"c":1,"b":"a\tb"}\n', code: '22P02', message: 'data.ndjson:1: invalid input syntax for type json', line: 1 },
  { name: 'invalid JSON: bad nested value', input: '{"c":1,"b":[1,,2]}\n', code: '22P02', message: 'data.ndjson:1: invalid input syntax for type json', line: 1 },
  { name: 'invalid JSON: two objects', input: '{"c":1} {"c":2}\n', code: '22P02', message: 'data.ndjson:1: invalid input syntax for type json', line: 1 },
  { name: 'not an object', input: '{"c":1}\n[1,2]\n', code: '22P04', message: 'data.ndjson:2: NDJSON line must hold a JSON object, not an array', line: 2 },
  { name: 'invalid UTF-8', input: Buffer.concat([Buffer.from('{"c":1}\n{"c":1,"b":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]), code: '22021', message: 'data.ndjson:2: invalid byte sequence for encoding "UTF8": 0xc3 0x28', line: 2 },
  { name: 'NUL byte', input: Buffer.from('{"c":1,"b":"a\0"}\n'), code: '22021', message: 'data.ndjson:1: invalid byte sequence for encoding "UTF8": 0x00', line: 1 },
  { name: 'escaped NUL into text', input: '{"c":1,"b":"a\\u0000"}\n', code: '22021', message: 'data.ndjson:1:2: invalid byte sequence for encoding "UTF8": 0x00', line: 1, column: 2 },
  { name: 'varchar too long', input: '{"c":1,"b":"abcd"}\n', code: '22001', message: 'data.ndjson:1:2: value too long for type character varying(3)', line: 1, column: 2 },
];

for (const c of ERRORS) {
  test(`errors: ${c.name}`, async () => {
    const fields = c.name === 'varchar too long' ? [ABC[0]!, field('b', { id: 'varchar', length: 3 }), ABC[2]!] : ABC;
    const e = await errorOf(c.input, fields);
    assert.is(e.code, c.code);
    assert.is(e.message, c.message);
    assert.is(e.file, 'data.ndjson');
    assert.is(e.line, c.line);
    assert.is(e.column, c.column);
  });
}

test('errors: invalid JSON carries PostgreSQL\'s detail', async () => {
  const e = await errorOf('{"c":1,}\n', ABC);
  assert.is(e.detail, 'Expected string, but found "}".');
});

test('skip: bad rows go to onReject with their line, column and raw bytes; the rest load', async () => {
  const input = '{"a":1,"c":1}\r\n{"a":"x","c":2}\n\n{"c":3,"oops":1}\n{bad\n{"a":4,"c":4}\n{"a":5}';
  const r = await read(input, ABC, { skip: true, size: 7 });
  assert.equal(r.rows, [['1', null, '1'], ['4', null, '4']]);
  assert.is(r.read, 6);
  assert.is(r.rejected, 4);
  assert.equal(
    r.rejects.map((x) => [x.line, x.column, x.code, new TextDecoder().decode(x.raw)]),
    [
      [2, 1, '22P02', '{"a":"x","c":2}'],
      [4, 0, '42703', '{"c":3,"oops":1}'],
      [5, 0, '22P02', '{bad'],
      [7, 3, '23502', '{"a":5}'],
    ],
  );
});

// ---- through ingestFiles ----

async function tableWith(fields: { name: string; type: string; notNull?: boolean }[]) {
  const db = await Database.open(join(tempDir(), 'db'));
  return { db, t: await db.createTable('t', fields) };
}

async function rowsOf(t: Awaited<ReturnType<typeof tableWith>>['t']): Promise<(string | null)[][]> {
  await t.refresh();
  const cols = await readTable(t.scan());
  const out: (string | null)[][] = [];
  for (let i = 0; i < (cols[0]?.length ?? 0); i++) out.push(cols.map((c) => text(c, i)));
  return out;
}

test('ingestFiles: abort commits nothing; skip writes rejects and the counts add up', async () => {
  const { db, t } = await tableWith([{ name: 'a', type: 'int4' }, { name: 'b', type: 'text' }]);
  const dir = tempDir();
  const file = join(dir, 'data.ndjson');
  writeFileSync(file, '{"a":1,"b":"x"}\n{"a":"bad"}\n{"a":3}\n');
  try {
    await ingestFiles(t, [file]);
    assert.unreachable('expected the load to fail');
  } catch (e) {
    assert.instance(e, PaxdError);
    assert.is((e as PaxdError).code, '22P02');
    assert.is((e as PaxdError).message, `${file}:2:1: invalid input syntax for type integer: "bad"`);
  }
  assert.equal(await rowsOf(t), []);
  const rejects = join(dir, 'rejects.ndjson');
  const r = await ingestFiles(t, [file], { onError: 'skip', rejects });
  assert.equal([r.rowsRead, r.rowsLoaded, r.rowsRejected], [3, 2, 1]);
  assert.equal(await rowsOf(t), [['1', 'x'], ['3', null]]);
  const lines = readFileSync(rejects, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines, [{ file, line: 2, column: 1, code: '22P02', message: 'invalid input syntax for type integer: "bad"', row: '{"a":"bad"}' }]);
  await db.close();
});

test('ingestFiles: .gz and .zst inputs stream through decompression', async () => {
  const { db, t } = await tableWith([{ name: 'id', type: 'int8' }, { name: 's', type: 'text' }]);
  const dir = tempDir();
  let body = '';
  const expected: (string | null)[][] = [];
  for (let i = 0; i < 50000; i++) {
    body += `{"id":${i},"s":"row ${i}"}\n`;
    expected.push([String(i), `row ${i}`]);
  }
  writeFileSync(join(dir, 'a.ndjson.gz'), gzipSync(body));
  writeFileSync(join(dir, 'b.ndjson.zst'), zstdCompress(Buffer.from(body)));
  writeFileSync(join(dir, 'c.csv.zst'), zstdCompress(Buffer.from(expected.map((r) => r.join(',')).join('\n'))));
  const r = await ingestFiles(t, [join(dir, 'a.ndjson.gz'), join(dir, 'b.ndjson.zst'), join(dir, 'c.csv.zst')]);
  assert.is(r.rowsLoaded, 150000);
  assert.equal(await rowsOf(t), [...expected, ...expected, ...expected]);
  // A truncated compressed file fails with 22P04 naming it, and commits nothing.
  const zst = zstdCompress(Buffer.from(body));
  writeFileSync(join(dir, 'cut.ndjson.zst'), zst.subarray(0, zst.length >> 1));
  writeFileSync(join(dir, 'cut.ndjson.gz'), gzipSync(body).subarray(0, 1000));
  for (const name of ['cut.ndjson.zst', 'cut.ndjson.gz']) {
    try {
      await ingestFiles(t, [join(dir, name)]);
      assert.unreachable('expected the load to fail');
    } catch (e) {
      assert.instance(e, PaxdError);
      assert.is((e as PaxdError).code, '22P04', name);
      assert.ok((e as PaxdError).message.startsWith(join(dir, name)), (e as PaxdError).message);
    }
  }
  assert.is((await rowsOf(t)).length, 150000);
  await db.close();
});

test.run();

/**
 * Schema inference for `paxd ingest --create` (src/insert/infer.ts): CSV (with the load's
 * options), NDJSON and Parquet/Arrow samples give the expected types; the inferred table then
 * loads the whole input.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DateDay, Decimal, FixedSizeBinary, Float32, Int16, Int64, Table as ArrowTable, TimeUnit, Timestamp, Uint64, Utf8, makeData, makeVector, tableToIPC, vectorFromArray, type DataType, type Vector } from 'apache-arrow';
import { Table as WasmTable, writeParquet } from 'parquet-wasm';
import { Database, type ColumnSpec } from '../../src/table/database.js';
import { ingestFiles } from '../../src/table/ingest.js';
import { formatColumns, inferSchema, type InferOptions } from '../../src/insert/infer.js';
import { openInput } from '../../src/insert/input.js';
import type { Format } from '../../src/insert/formats.js';
import { PaxdError } from '../../src/types/errors.js';
import { typeName, type PgType } from '../../src/types/type.js';
import { tempDir } from '../support/tmp.js';

async function infer(format: Format, content: string | Uint8Array, opts: InferOptions = {}, ext = format): Promise<{ path: string; columns: ColumnSpec[] }> {
  const path = join(tempDir(), `data.${ext}`);
  writeFileSync(path, content);
  const r = await inferSchema(format, await openInput(path), opts);
  assert.is(r.replay, null);
  return { path, columns: r.columns };
}

const shape = (cs: readonly ColumnSpec[]): string[] => cs.map((c) => `${c.name} ${typeName(c.type as PgType)}`);

const CSV_HEADER = 'flag,small,big,huge,frac,expo,day,ts,tstz,id,word,empty,mixed\n';
const CSV_ROWS = [
  'true,1,1,99999999999999999999,1.5,1e3,2024-01-31,2024-01-31 10:00:00,2024-01-31 10:00:00+02,a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,x,,1',
  'F,-2147483648,9223372036854775807,-1,.25,inf,1999-12-31,2024-01-31T10:00:00.5,2024-01-31T10:00:00Z,A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A12,y,,2024-01-01',
  ',,,,,,,2024-02-01,2024-01-31 10:00:00,,,,',
];
const CSV_EXPECTED = ['flag bool', 'small int4', 'big int8', 'huge numeric', 'frac numeric', 'expo float8', 'day date', 'ts timestamp', 'tstz timestamptz', 'id uuid', 'word text', 'empty text', 'mixed text'];

test('CSV with a header: names from it, the narrowest type of each column; NULLs constrain nothing', async () => {
  const { columns } = await infer('csv', CSV_HEADER + CSV_ROWS.join('\n') + '\n', { csv: { header: true } });
  assert.equal(shape(columns), CSV_EXPECTED);
  assert.ok(columns.every((c) => c.notNull === undefined || c.notNull === false), 'never NOT NULL');
});

test('CSV without a header: column1..N; the load options (delimiter, quote, null) are used', async () => {
  const body = "1;'a;b';NULL\r\n2;'2024-01-01';3.5\r\n";
  const { columns } = await infer('csv', body, { csv: { delimiter: ';', quote: "'", null: 'NULL' } });
  assert.equal(shape(columns), ['column1 int4', 'column2 text', 'column3 numeric']);
  const quotedInts = await infer('csv', 'a\n"1"\n"2"\n', { csv: { header: true } });
  assert.equal(shape(quotedInts.columns), ['a int4']);
  const emptyString = await infer('csv', 'a\n1\n""\n', { csv: { header: true } });
  assert.equal(shape(emptyString.columns), ['a text'], 'an empty quoted string is a value, not NULL');
});

test('CSV: only the sample is read (rows and bytes), and a record cut by the sample is ignored', async () => {
  const rows = ['n', ...Array.from({ length: 20000 }, (_, i) => String(i)), 'not a number'];
  const { columns } = await infer('csv', rows.join('\n') + '\n', { csv: { header: true } });
  assert.equal(shape(columns), ['n int4']);
  // 3 MiB: the 1 MiB sample ends inside a record, which is not taken as a (short) value.
  const many = ['n', ...Array.from({ length: 400000 }, (_, i) => String(1000000 + i)), 'not a number'];
  const bytes = await infer('csv', many.join('\n') + '\n', { csv: { header: true }, sampleRows: 1e9 });
  assert.equal(shape(bytes.columns), ['n int4']);
});

test('CSV: repeated and empty header names become unique', async () => {
  const { columns } = await infer('csv', 'a,a,,b\n1,2,3,4\n', { csv: { header: true } });
  assert.equal(columns.map((c) => c.name), ['a', 'a_2', 'column3', 'b']);
});

test('NDJSON: JSON kinds and string shapes; keys in order of first appearance', async () => {
  const lines = [
    '{"id": 1, "big": 3000000000, "price": 12.50, "x": 1.5e3, "ok": true, "day": "2024-01-31", "at": "2024-01-31T10:00:00Z", "zip": "01234", "doc": {"a": 1}}',
    '',
    '{"id": 2, "big": null, "price": 7, "x": 2, "ok": false, "day": "2024-02-01", "at": "2024-01-31 10:00:00", "zip": "99999", "doc": [1], "late": "x", "mix": 1}',
    '{"mix": "a", "u": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "n": null}',
  ];
  const { columns } = await infer('ndjson', lines.join('\r\n') + '\r\n');
  assert.equal(shape(columns), [
    'id int4',
    'big int8',
    'price numeric',
    'x float8',
    'ok bool',
    'day date',
    'at timestamptz',
    'zip text',
    'doc jsonb',
    'late text',
    'mix text',
    'u uuid',
    'n text',
  ]);
});

test('NDJSON: invalid JSON in the sample fails with the line', async () => {
  try {
    await infer('ndjson', '{"a":1}\n{"a":\n');
    assert.unreachable('expected an error');
  } catch (e) {
    assert.instance(e, PaxdError);
    assert.is((e as PaxdError).code, '22P02');
    assert.is((e as PaxdError).line, 2);
  }
});

function fixed(type: DataType, values: ArrayBufferView, n: number): Vector {
  const make = makeData as unknown as (p: Record<string, unknown>) => Parameters<typeof makeVector>[0];
  return makeVector(make({ type, length: n, nullCount: 0, data: values }));
}

const ARROW_COLUMNS = (): Record<string, Vector> => ({
  s16: fixed(new Int16(), Int16Array.from([1]), 1),
  i64: fixed(new Int64(), BigInt64Array.from([1n]), 1),
  u64: fixed(new Uint64(), BigUint64Array.from([1n]), 1),
  f32: fixed(new Float32(), Float32Array.from([1]), 1),
  dec: fixed(new Decimal(2, 12, 128), Uint32Array.from([1, 0, 0, 0]), 1),
  day: fixed(new DateDay(), Int32Array.from([1]), 1),
  ts: fixed(new Timestamp(TimeUnit.NANOSECOND), BigInt64Array.from([1n]), 1),
  tsz: fixed(new Timestamp(TimeUnit.MILLISECOND, 'Europe/Paris'), BigInt64Array.from([1n]), 1),
  id: fixed(new FixedSizeBinary(16), new Uint8Array(16), 1),
  name: vectorFromArray(['x'], new Utf8()),
});
const ARROW_EXPECTED = ['s16 int2', 'i64 int8', 'u64 numeric(20,0)', 'f32 float4', 'dec numeric(12,2)', 'day date', 'ts timestamp', 'tsz timestamptz', 'id uuid', 'name text'];

test('Parquet: types from the schema, and the inferred table loads the file', async () => {
  const bytes = writeParquet(WasmTable.fromIPCStream(tableToIPC(new ArrowTable(ARROW_COLUMNS()), 'stream')));
  const { path, columns } = await infer('parquet', bytes);
  assert.equal(shape(columns), ARROW_EXPECTED);
  const db = await Database.open(join(tempDir(), 'db'));
  const t = await db.createTable('t', columns);
  const r = await ingestFiles(t, [path]);
  assert.is(r.rowsLoaded, 1);
  await db.close();
});

test('Arrow IPC: types from the schema', async () => {
  const { columns } = await infer('arrow', tableToIPC(new ArrowTable(ARROW_COLUMNS()), 'stream'));
  assert.equal(shape(columns), ARROW_EXPECTED);
});

test('--create flow: infer, create, load every row of CSV and NDJSON files', async () => {
  const db = await Database.open(join(tempDir(), 'db'));
  const csv = await infer('csv', CSV_HEADER + CSV_ROWS.join('\n') + '\n', { csv: { header: true } });
  const t1 = await db.createTable('c', csv.columns);
  assert.is((await ingestFiles(t1, [csv.path], { csv: { header: true } })).rowsLoaded, 3);
  const nd = await infer('ndjson', '{"a": 1, "b": "2024-01-01", "c": {"k": [1]}}\n{"a": 99999999999, "d": 1.25}\n');
  assert.is(formatColumns(nd.columns), 'a int8, b date, c jsonb, d numeric');
  const t2 = await db.createTable('n', nd.columns);
  assert.is((await ingestFiles(t2, [nd.path])).rowsLoaded, 2);
  await db.close();
});

test.run();

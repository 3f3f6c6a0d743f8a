/**
 * Parquet input (src/insert/parquet-input.ts): files written with parquet-wasm for every type
 * (NULLs included), read back through ingestFiles and compared value by value; conversions,
 * type mismatches, bad values located by row and column, skip accounting, several row groups,
 * truncated and corrupt files (22P04, nothing committed).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  Binary,
  Bool,
  DateDay,
  Decimal,
  type DataType,
  FixedSizeBinary,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  LargeUtf8,
  Table as ArrowTable,
  TimeUnit,
  Timestamp,
  Uint32,
  Utf8,
  makeData,
  makeVector,
  tableToIPC,
  vectorFromArray,
  type Vector,
} from 'apache-arrow';
import { Table as WasmTable, WriterPropertiesBuilder, writeParquet } from 'parquet-wasm';
import { Database, type Table } from '../../src/table/database.js';
import { ingestFiles } from '../../src/table/ingest.js';
import { getValue } from '../../src/types/builder.js';
import type { Column } from '../../src/types/column.js';
import { PaxdError } from '../../src/types/errors.js';
import { formatText } from '../../src/types/text-io.js';
import { readAll } from '../support/columns.js';
import { tempDir } from '../support/tmp.js';

function text(c: Column, i: number): string | null {
  const v = getValue(c, i);
  return v === null ? null : formatText(c.type, v);
}

async function rowsOf(t: Table): Promise<(string | null)[][]> {
  await t.refresh();
  const cols = await readAll(t.scan());
  const out: (string | null)[][] = [];
  for (let i = 0; i < (cols[0]?.length ?? 0); i++) out.push(cols.map((c) => text(c, i)));
  return out;
}

/** A validity bitmap with the rows in `nulls` cleared. */
function bitmap(n: number, nulls: readonly number[]): Uint8Array {
  const b = new Uint8Array((n + 7) >>> 3).fill(0xff);
  for (const i of nulls) b[i >>> 3]! &= ~(1 << (i & 7));
  return b;
}

/** A fixed-width Arrow vector of `type` over `values` with NULLs at `nulls`. */
function fixed(type: DataType, values: ArrayBufferView, n: number, nulls: readonly number[] = []): Vector {
  const make = makeData as unknown as (p: Record<string, unknown>) => Parameters<typeof makeVector>[0];
  return makeVector(make({ type, length: n, nullCount: nulls.length, nullBitmap: nulls.length ? bitmap(n, nulls) : undefined, data: values }));
}

function parquetOf(columns: Record<string, Vector>, rowGroupRows?: number): Uint8Array {
  const ipc = tableToIPC(new ArrowTable(columns), 'stream');
  const props = rowGroupRows === undefined ? undefined : new WriterPropertiesBuilder().setMaxRowGroupSize(rowGroupRows).build();
  return writeParquet(WasmTable.fromIPCStream(ipc), props);
}

async function setup(columns: { name: string; type: string; notNull?: boolean }[]) {
  const dir = tempDir();
  const db = await Database.open(join(dir, 'db'));
  const t = await db.createTable('t', columns);
  return { dir, db, t };
}

async function errorOf(p: Promise<unknown>): Promise<PaxdError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof PaxdError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

const UUID_A = Uint8Array.from({ length: 16 }, (_, i) => i * 17);
const dec = (v: bigint): number[] => {
  const u = BigInt.asUintN(128, v);
  return [0, 1, 2, 3].map((k) => Number((u >> BigInt(32 * k)) & 0xffffffffn));
};

test('every type, with NULLs, round-trips from Parquet into a table', async () => {
  const n = 3;
  const file = parquetOf({
    i8: fixed(new Int8(), Int8Array.from([-128, 127, 0]), n, [2]),
    i16: fixed(new Int16(), Int16Array.from([-32768, 32767, 0]), n, [1]),
    i32: fixed(new Int32(), Int32Array.from([-2147483648, 2147483647, 0]), n, [2]),
    i32w: fixed(new Int32(), Int32Array.from([-5, 5, 0]), n, [2]),
    i64: fixed(new Int64(), BigInt64Array.from([-(2n ** 63n), 2n ** 63n - 1n, 0n]), n, [2]),
    u32: fixed(new Uint32(), Uint32Array.from([4294967295, 0, 1]), n),
    f32: fixed(new Float32(), Float32Array.from([1.5, -0.1, 0]), n, [2]),
    f64: fixed(new Float64(), Float64Array.from([0.1, -1e300, Infinity]), n),
    b: vectorFromArray([true, false, null], new Bool()),
    s: vectorFromArray(['héllo', '', null], new Utf8()),
    vc: vectorFromArray(['abc', 'ab', null], new Utf8()),
    ls: vectorFromArray(['large', null, 'x'], new LargeUtf8()),
    by: vectorFromArray([Uint8Array.from([0, 255]), new Uint8Array(0), null], new Binary()),
    u: fixed(new FixedSizeBinary(16), Uint8Array.from([...UUID_A, ...new Uint8Array(16), ...new Uint8Array(16)]), n, [2]),
    d: fixed(new Decimal(2, 10, 128), Uint32Array.from([...dec(12345n), ...dec(-1n), ...dec(0n)]), n, [2]),
    dw: fixed(new Decimal(3, 20, 128), Uint32Array.from([...dec(12345n), ...dec(-1999n), ...dec(5n)]), n),
    dt: fixed(new DateDay(), Int32Array.from([19782, -719528, 0]), n, [2]),
    tms: fixed(new Timestamp(TimeUnit.MILLISECOND), BigInt64Array.from([1700000000123n, -1n, 0n]), n, [2]),
    tus: fixed(new Timestamp(TimeUnit.MICROSECOND, 'UTC'), BigInt64Array.from([1700000000123456n, 0n, 0n]), n, [1]),
    tns: fixed(new Timestamp(TimeUnit.NANOSECOND), BigInt64Array.from([1500n, 2500n, -1500n]), n),
    tnz: fixed(new Timestamp(TimeUnit.NANOSECOND, '+02:00'), BigInt64Array.from([1700000000123456789n, 0n, 0n]), n, [1, 2]),
  });
  const { dir, db, t } = await setup([
    { name: 'i8', type: 'int2' },
    { name: 'i16', type: 'int2' },
    { name: 'i32', type: 'int4' },
    { name: 'i32w', type: 'int8' },
    { name: 'i64', type: 'int8' },
    { name: 'u32', type: 'int8' },
    { name: 'f32', type: 'float4' },
    { name: 'f64', type: 'float8' },
    { name: 'b', type: 'bool' },
    { name: 's', type: 'text' },
    { name: 'vc', type: 'varchar(3)' },
    { name: 'ls', type: 'text' },
    { name: 'by', type: 'bytea' },
    { name: 'u', type: 'uuid' },
    { name: 'd', type: 'numeric(10,2)' },
    { name: 'dw', type: 'numeric(12,1)' },
    { name: 'dt', type: 'date' },
    { name: 'tms', type: 'timestamp' },
    { name: 'tus', type: 'timestamptz' },
    { name: 'tns', type: 'timestamp' },
    { name: 'tnz', type: 'timestamptz' },
    { name: 'missing', type: 'text' },
  ]);
  const path = join(dir, 'all.parquet');
  writeFileSync(path, file);
  const r = await ingestFiles(t, [path]);
  assert.equal([r.rowsRead, r.rowsLoaded, r.rowsRejected], [3, 3, 0]);
  const rows = await rowsOf(t);
  assert.equal(rows, [
    ['-128', '-32768', '-2147483648', '-5', '-9223372036854775808', '4294967295', '1.5', '0.1', 't', 'héllo', 'abc', 'large', '\\x00ff', '00112233-4455-6677-8899-aabbccddeeff', '123.45', '12.3', '2024-02-29', '2023-11-14 22:13:20.123', '2023-11-14 22:13:20.123456+00', '1970-01-01 00:00:00.000002', '2023-11-14 22:13:20.123457+00', null],
    ['127', null, '2147483647', '5', '9223372036854775807', '0', '-0.1', '-1e+300', 'f', '', 'ab', null, '\\x', '00000000-0000-0000-0000-000000000000', '-0.01', '-2.0', '0001-01-01 BC', '1969-12-31 23:59:59.999', null, '1970-01-01 00:00:00.000002', null, null],
    [null, '0', null, null, null, '1', null, 'Infinity', null, null, null, 'x', null, null, null, '0.0', null, null, '1970-01-01 00:00:00+00', '1969-12-31 23:59:59.999998', null, null],
  ]);
  await db.close();
});

test('several row groups are read one at a time, and stdin-like (compressed) input is buffered', async () => {
  const n = 10000;
  const ids = BigInt64Array.from({ length: n }, (_, i) => BigInt(i));
  const names = Array.from({ length: n }, (_, i) => (i % 7 === 0 ? null : `name ${i}`));
  const file = parquetOf({ id: fixed(new Int64(), ids, n), name: vectorFromArray(names, new Utf8()) }, 1000);
  const { dir, db, t } = await setup([{ name: 'id', type: 'int8' }, { name: 'name', type: 'text' }]);
  writeFileSync(join(dir, 'a.parquet'), file);
  writeFileSync(join(dir, 'b.parquet.gz'), gzipSync(file));
  const r = await ingestFiles(t, [join(dir, 'a.parquet'), join(dir, 'b.parquet.gz')]);
  assert.is(r.rowsLoaded, 2 * n);
  const rows = await rowsOf(t);
  const expected = Array.from({ length: n }, (_, i) => [String(i), names[i]!]);
  assert.equal(rows, [...expected, ...expected]);
  await db.close();
});

test('a value the column cannot hold fails at file:row:column; skip loads the rest', async () => {
  const file = parquetOf({
    a: fixed(new Int64(), BigInt64Array.from([1n, 3000000000n, 3n, 4n]), 4),
    s: vectorFromArray(['ok', 'ok', 'toolong', 'ok'], new Utf8()),
  });
  const { dir, db, t } = await setup([{ name: 'a', type: 'int4' }, { name: 's', type: 'varchar(3)' }]);
  const path = join(dir, 'bad.parquet');
  writeFileSync(path, file);
  const e = await errorOf(ingestFiles(t, [path]));
  assert.is(e.code, '22003');
  assert.is(e.message, `${path}:2:1: value "3000000000" is out of range for type integer`);
  assert.is(e.row, 2);
  assert.equal(await rowsOf(t), []);
  const rejects = join(dir, 'rejects.ndjson');
  const r = await ingestFiles(t, [path], { onError: 'skip', rejects });
  assert.equal([r.rowsRead, r.rowsLoaded, r.rowsRejected], [4, 2, 2]);
  assert.equal(await rowsOf(t), [['1', 'ok'], ['4', 'ok']]);
  await db.close();
});

test('NOT NULL: a NULL fails at its row and column', async () => {
  const file = parquetOf({ a: fixed(new Int32(), Int32Array.from([1, 0]), 2, [1]) });
  const { dir, db, t } = await setup([{ name: 'a', type: 'int4', notNull: true }]);
  const path = join(dir, 'n.parquet');
  writeFileSync(path, file);
  const e = await errorOf(ingestFiles(t, [path]));
  assert.is(e.code, '23502');
  assert.is(e.message, `${path}:2:1: null value in column "a" of relation "t" violates not-null constraint`);
  await db.close();
});

test('incompatible types fail with 42804 naming the column and both types; unknown columns with 42703', async () => {
  const { dir, db, t } = await setup([{ name: 'a', type: 'int4' }, { name: 'b', type: 'date' }]);
  const p1 = join(dir, 'float.parquet');
  writeFileSync(p1, parquetOf({ a: fixed(new Float64(), Float64Array.from([1.5]), 1) }));
  const e1 = await errorOf(ingestFiles(t, [p1]));
  assert.is(e1.code, '42804');
  assert.is(e1.message, `${p1}: column "a" is of type integer but the Parquet column "a" is of type Float64`);
  const p2 = join(dir, 'extra.parquet');
  writeFileSync(p2, parquetOf({ a: fixed(new Int32(), Int32Array.from([1]), 1), zz: fixed(new Int32(), Int32Array.from([1]), 1) }));
  const e2 = await errorOf(ingestFiles(t, [p2]));
  assert.is(e2.code, '42703');
  assert.is(e2.message, `${p2}: column "zz" of relation "t" does not exist`);
  await db.close();
});

test('truncated or corrupt Parquet fails with 22P04 naming the file, and nothing is committed', async () => {
  const n = 5000;
  const file = parquetOf({ a: fixed(new Int32(), Int32Array.from({ length: n }, (_, i) => i), n) }, 1000);
  const { dir, db, t } = await setup([{ name: 'a', type: 'int4' }]);
  const good = join(dir, 'good.parquet');
  writeFileSync(good, file);
  const cases: [string, Uint8Array][] = [
    ['empty.parquet', new Uint8Array(0)],
    ['cut-footer.parquet', file.subarray(0, file.length - 10)],
    ['cut-half.parquet', file.subarray(0, file.length >> 1)],
    ['magic-only.parquet', Buffer.from('PAR1')],
    ['not-parquet.parquet', Buffer.from('hello, world, this is not parquet at all')],
  ];
  // The data pages of the middle of the file overwritten with junk (footer intact).
  const junk = Uint8Array.from(file);
  for (let i = 100; i < junk.length / 2; i++) junk[i] = (i * 7919) & 0xff;
  cases.push(['junk-pages.parquet', junk]);
  for (const [name, bytes] of cases) {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    const e = await errorOf(ingestFiles(t, [good, path]));
    assert.is(e.code, '22P04', `${name}: ${e.message}`);
    assert.ok(e.message.startsWith(`${path}: invalid or truncated Parquet file: `), e.message);
    assert.is(e.file, path);
  }
  assert.equal(await rowsOf(t), []);
  await db.close();
});

test.run();

/**
 * Parquet export (README.md "Export to Parquet"): every exported file is read back with DuckDB —
 * schema types by DESIGN.md's mapping, NOT NULL as REQUIRED, row counts, every value of a
 * column of every type (NULLs and edge values from randomColumn), deleted rows left out, one
 * row group per PAX row group with statistics (null counts present); plus merging of small
 * groups, `where`, codecs and the `--where` syntax.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBBlobValue, DuckDBDateValue, DuckDBDecimalValue, DuckDBTimestampTZValue, DuckDBTimestampValue, DuckDBUUIDValue, type DuckDBValue } from '@duckdb/node-api';
import { Database, type Table } from '../../src/table/database.js';
import { exportTable, parseWhere } from '../../src/export/index.js';
import { P } from '../../src/scan/index.js';
import { getValue } from '../../src/types/builder.js';
import type { Column, Value } from '../../src/types/column.js';
import { TYPE_IDS, type Field, type PgType } from '../../src/types/type.js';
import { PaxdError } from '../../src/types/errors.js';
import { openDuckDb, type DuckDb } from '../support/duckdb.js';
import { Rng, randomColumn, testSeed } from '../support/random.js';
import { tempDir } from '../support/tmp.js';
import { readAll } from '../support/columns.js';

/** DuckDB's name for the Arrow type each PostgreSQL type is exported as (DESIGN.md mapping). */
function duckType(t: PgType): string {
  switch (t.id) {
    case 'int2':
      return 'SMALLINT';
    case 'int4':
      return 'INTEGER';
    case 'int8':
      return 'BIGINT';
    case 'float4':
      return 'FLOAT';
    case 'float8':
      return 'DOUBLE';
    case 'bool':
      return 'BOOLEAN';
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'jsonb':
    case 'json':
      return 'VARCHAR';
    case 'bytea':
      return 'BLOB';
    case 'date':
      return 'DATE';
    case 'timestamp':
      return 'TIMESTAMP';
    case 'timestamptz':
      return 'TIMESTAMP WITH TIME ZONE';
    case 'numeric':
      return t.precision === undefined ? 'VARCHAR' : `DECIMAL(${t.precision},${t.scale ?? 0})`;
    case 'uuid':
      return 'UUID'; // FIXED_LEN_BYTE_ARRAY(16) annotated with the UUID logical type
    default:
      throw new Error(`${t.id} is not a storable type`);
  }
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** A DuckDB value in paxd's Value representation (bytes as hex), for comparison. */
function fromDuck(v: DuckDBValue): unknown {
  if (v instanceof DuckDBDecimalValue) return v.value;
  if (v instanceof DuckDBDateValue) return v.days;
  if (v instanceof DuckDBTimestampValue || v instanceof DuckDBTimestampTZValue) return v.micros;
  if (v instanceof DuckDBBlobValue) return hex(v.bytes);
  if (v instanceof DuckDBUUIDValue) return v.toUint128().toString(16).padStart(32, '0');
  return v;
}

/** paxd's value as the export writes it: bytes as hex, -infinity as DuckDB's. */
function fromPaxd(v: Value, t: PgType): unknown {
  if (v instanceof Uint8Array) return hex(v);
  if (t.id === 'date' && v === -(2 ** 31)) return -(2 ** 31) + 1;
  if ((t.id === 'timestamp' || t.id === 'timestamptz') && v === -(2n ** 63n)) return -(2n ** 63n) + 1n;
  return v;
}

function same(a: unknown, b: unknown): boolean {
  return Object.is(a, b) || (typeof a === 'number' && typeof b === 'number' && a === b && a !== 0);
}

function schema(): Field[] {
  const types: PgType[] = TYPE_IDS.map((id) => (id === 'varchar' ? { id, length: 12 } : id === 'bpchar' ? { id, length: 3 } : { id }));
  types.push({ id: 'numeric', precision: 38, scale: 0 }, { id: 'numeric', precision: 38, scale: 38 }, { id: 'numeric', precision: 10, scale: 2 }, { id: 'numeric', precision: 4, scale: 1 });
  return types.map((type, i) => ({ name: `c${i + 1}_${type.id}`, type, notNull: i % 5 === 4, fieldId: i + 1 }));
}

/** Closed after the suite, whether a test passed or not. */
const opened: Database[] = [];

const ROWS = [7000, 2500]; // two commits: two data files
const GROUP_ROWS = 3000;

async function makeTable(layout: 'pax' | 'ao_column'): Promise<{ db: Database; table: Table }> {
  const rng = new Rng(testSeed());
  const db = await Database.open(tempDir());
  opened.push(db);
  const fields = schema();
  const table = await db.createTable(`t_${layout}`, fields, { layout, rowGroupRows: GROUP_ROWS, zoneRows: 1024 });
  for (const n of ROWS) {
    const columns: Column[] = fields.map((f) => randomColumn(f.type, n, rng, f.notNull ? 0 : 0.1));
    const sink = table.sink();
    await sink.write({ length: n, columns, selection: null });
    await sink.commit();
  }
  await table.refresh();
  // Deleted rows must not be exported: every 7th value of the int4 column, where not NULL.
  await table.delete(P.or(P.lt('c2_int4', -1_000_000), P.eq('c1_int2', 0)));
  return { db, table };
}

/** The live rows of file `f` of the table, per column, read through the scan. */
async function expectedFile(table: Table, f: number): Promise<Column[]> {
  return readAll(table.scan({ groups: (file) => file === f }));
}

let duck: DuckDb;
test.before(async () => {
  duck = await openDuckDb({ threads: 1 });
});
test.after(async () => {
  duck.close();
  for (const db of opened) await db.close();
});

test('pax: one file per data file, one row group per PAX group, types, values and statistics read back by DuckDB', async () => {
  const { table } = await makeTable('pax');
  const out = join(tempDir(), 'out');
  const progress: number[] = [];
  const s = await exportTable(table, { to: out, codec: 'zstd', minGroupRows: 0, onProgress: (p) => progress.push(p.rows) });
  const snap = table.snapshot;
  assert.is(s.files.length, snap.files.length);
  assert.is(s.rows, table.rows);
  assert.ok(table.rows < ROWS[0]! + ROWS[1]!, 'some rows are deleted');
  assert.equal(readdirSync(out).sort(), s.files.map((f) => f.path.slice(out.length + 1)).sort(), 'no temporary file left');
  assert.ok(progress.length > 0 && progress[progress.length - 1] === s.rows);
  const fields = table.fields;
  for (let fi = 0; fi < snap.files.length; fi++) {
    const file = s.files[fi]!;
    const groups = snap.files[fi]!.groups;
    assert.is(file.source, snap.files[fi]!.path);
    const q = `'${file.path}'`;
    // types and nullability
    const desc = await duck.rows(`DESCRIBE SELECT * FROM read_parquet(${q})`);
    assert.equal(desc.map((r) => r[0]), fields.map((f) => f.name));
    assert.equal(desc.map((r) => r[1]), fields.map((f) => duckType(f.type)));
    const rep = await duck.rows(`SELECT name, repetition_type FROM parquet_schema(${q}) WHERE name <> 'arrow_schema' AND num_children IS NULL`);
    assert.equal(rep.map((r) => r[1]), fields.map((f) => (f.notNull ? 'REQUIRED' : 'OPTIONAL')));
    // one row group per PAX group, with its live rows, and statistics with null counts
    const rg = await duck.rows(`SELECT row_group_id, any_value(row_group_num_rows), count(*), count(stats_null_count), sum(stats_null_count) FROM parquet_metadata(${q}) GROUP BY ALL ORDER BY 1`);
    assert.is(rg.length, groups.length, `${file.path}: row groups`);
    const expected = await expectedFile(table, fi);
    const nulls = expected.map((c) => c.nullCount).reduce((a, b) => a + b, 0);
    groups.forEach((g, i) => {
      assert.is(Number(rg[i]![1]), g.live, `row group ${i} rows`);
      assert.is(Number(rg[i]![2]), fields.length);
      assert.is(Number(rg[i]![3]), fields.length, 'every column chunk has a null count');
    });
    assert.is(rg.reduce((a, r) => a + Number(r[4]), 0), nulls, 'null counts add up');
    const minmax = await duck.rows(`SELECT count(*) FILTER (WHERE stats_min_value IS NOT NULL OR stats_min IS NOT NULL) FROM parquet_metadata(${q}) WHERE path_in_schema = 'c3_int8'`);
    assert.is(Number(minmax[0]![0]), groups.length, 'min/max written');
    // every value
    const rows = await duck.rows(`SELECT * FROM read_parquet(${q})`);
    assert.is(rows.length, expected[0]!.length, `${file.path}: rows`);
    assert.is(file.rows, rows.length);
    for (let c = 0; c < fields.length; c++) {
      const col = expected[c]!;
      for (let r = 0; r < rows.length; r++) {
        const a = fromDuck(rows[r]![c]!);
        const e = fromPaxd(getValue(col, r), col.type);
        if (!same(a, e)) assert.unreachable(`${file.path} column ${fields[c]!.name} row ${r}: DuckDB read ${String(a)}, paxd holds ${String(e)}`);
      }
    }
  }
});

test('ao_column: 3000-row groups merged into row groups of at least minGroupRows', async () => {
  const { table } = await makeTable('ao_column');
  const out = tempDir();
  const s = await exportTable(table, { to: out, codec: 'snappy', minGroupRows: 5000 });
  assert.is(s.rows, table.rows);
  for (const [fi, file] of s.files.entries()) {
    const rg = await duck.rows(`SELECT row_group_id, any_value(row_group_num_rows) FROM parquet_metadata('${file.path}') GROUP BY ALL ORDER BY 1`);
    const sizes = rg.map((r) => Number(r[1]));
    assert.is(sizes.reduce((a, b) => a + b, 0), file.rows);
    sizes.slice(0, -1).forEach((n) => assert.ok(n >= 5000, `merged row group of ${n} rows`));
    const live = table.snapshot.files[fi]!.groups.map((g) => g.live);
    assert.ok(sizes.length < live.length || live.length === 1, `${live.length} groups merged into ${sizes.length}`);
    const n = await duck.rows(`SELECT count(*), count(c3_int8), sum(c3_int8) FROM read_parquet('${file.path}')`);
    const exp = await expectedFile(table, fi);
    assert.is(Number(n[0]![0]), exp[0]!.length);
  }
});

test('where, codecs, empty results', async () => {
  const { table } = await makeTable('pax');
  for (const codec of ['snappy', 'lz4', 'none'] as const) {
    const out = tempDir();
    const s = await exportTable(table, { to: out, codec, where: parseWhere('c2_int4 > 0 and c6_bool is not null') });
    const expected = await readAll(table.scan({ columns: ['c2_int4'], where: P.and(P.gt('c2_int4', 0), P.isNotNull('c6_bool')) }));
    assert.is(s.rows, expected[0]!.length);
    const r = await duck.rows(`SELECT count(*), min(c2_int4), count(*) FILTER (WHERE c6_bool IS NULL) FROM read_parquet('${out}/*.parquet')`);
    assert.is(Number(r[0]![0]), s.rows);
    assert.ok((r[0]![1] as number) > 0);
    assert.is(Number(r[0]![2]), 0);
    const codecs = await duck.rows(`SELECT DISTINCT compression FROM parquet_metadata('${out}/*.parquet')`);
    assert.equal(codecs.map((x) => x[0]), [{ snappy: 'SNAPPY', lz4: 'LZ4_RAW', none: 'UNCOMPRESSED' }[codec]]);
  }
  const out = tempDir();
  const s = await exportTable(table, { to: out, where: P.gt('c2_int4', 2147483647) });
  assert.is(s.rows, 0);
  assert.is(s.files.length, 0);
  assert.equal(readdirSync(out), []);
});

test('bad options and bad --where fail with codes', async () => {
  const { table } = await makeTable('pax');
  const code = async (f: () => Promise<unknown> | unknown) => {
    try {
      await f();
    } catch (e) {
      assert.instance(e, PaxdError);
      return (e as PaxdError).code;
    }
    return 'none';
  };
  assert.is(await code(() => exportTable(table, { to: tempDir(), codec: 'brotli' as never })), '22023');
  assert.is(await code(() => exportTable(table, { to: tempDir(), minGroupRows: -1 })), '22023');
  assert.is(await code(() => exportTable(table, { to: 's3://bucket/x' })), '0A000');
  assert.is(await code(() => exportTable(table, { to: tempDir(), where: parseWhere('nope = 1') })), '42703');
  assert.is(await code(() => parseWhere('c1_int2 = ')), '42601');
  assert.is(await code(() => parseWhere('c1_int2 1')), '42601');
  assert.is(await code(() => parseWhere('c1_int2 = 1 or c1_int2 = 2')), '42601');
  assert.equal(parseWhere("a >= '2024-01-01' AND b != 'it''s' and c IS NULL and d is not null"), P.and(P.ge('a', '2024-01-01'), P.ne('b', "it's"), P.isNull('c'), P.isNotNull('d')));
  assert.ok(!existsSync(join(tempDir(), 'x')));
});

test.run();

/**
 * The tables and fixtures of the engine's differential suite, shared by
 * test/engine/differential.test.ts (paxd against PostgreSQL) and test/pgwire/differential.test.ts
 * (paxd embedded against paxd over the wire), so both run the same statements over the same rows.
 *
 *   t         2,500 generated rows over the common types, ~10% NULLs (the 0x fixtures)
 *   ty        every type paxd stores (src/types/type.ts), edge values, ~20% NULLs
 *   tn        NULL-heavy: columns 30%, 70%, 90%, 95% and 100% NULL
 *   region … lineitem   TPC-H at SF 0.01 (test/support/tpch.ts), several row groups each
 *
 * `differentialTables()` generates them (deterministic seeds; the batches are materialized, so
 * the same rows can be written to paxd and copied to PostgreSQL); `buildPaxdTables(db)` creates
 * and loads them all into a paxd Database. Fixture format: statements end with `;` at the end
 * of a line; `--` lines are comments, and `-- paxd: 0A000` right before a statement says paxd
 * must fail with that SQLSTATE (a feature not built yet) whatever PostgreSQL answers.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from '../../src/table/database.js';
import { columnOf, parseText, parseTypeName, type Batch, type PgType, type Value } from '../../src/types/index.js';
import { Rng } from '../support/random.js';
import { tpchTables } from '../support/tpch.js';

const ROWS = 2500;
const TPCH_SF = 0.01;

const COLUMNS: { name: string; type: string; gen: (r: Rng, i: number) => Value }[] = [
  { name: 'id', type: 'int4', gen: (_r, i) => i },
  { name: 'i2', type: 'int2', gen: (r) => r.int(-300, 300) },
  { name: 'i4', type: 'int4', gen: (r) => (r.chance(0.02) ? r.pick([2147483647, -2147483648]) : r.int(-100000, 100000)) },
  { name: 'i8', type: 'int8', gen: (r) => r.bigint(-(10n ** 12n), 10n ** 12n) },
  { name: 'f8', type: 'float8', gen: (r) => Math.round((r.next() - 0.5) * 1e6) / 64 },
  { name: 'f4', type: 'float4', gen: (r) => Math.fround(r.int(-5000, 5000) / 8) },
  { name: 'n', type: 'numeric(12,3)', gen: (r) => BigInt(r.int(-9999999, 9999999)) },
  { name: 's', type: 'text', gen: (r) => r.pick(['alpha', 'beta', 'gamma', 'delta', 'Beta', '', 'epsilon zeta']) },
  { name: 'b', type: 'bool', gen: (r) => r.chance(0.5) },
  { name: 'd', type: 'date', gen: (r) => r.int(18000, 20000) },
  { name: 'ts', type: 'timestamp', gen: (r) => BigInt(r.int(1_500_000_000, 1_800_000_000)) * 1_000_000n + BigInt(r.int(0, 999_999)) },
  { name: 'g', type: 'int4', gen: (r) => r.int(0, 9) },
];

/**
 * ty: one column per stored type, values drawn from PostgreSQL text literals (parsed by paxd's
 * input functions for paxd, sent as the same text to PostgreSQL), edge values included.
 */
const TY_ROWS = 400;
const TY_COLUMNS: { name: string; type: string; values: string[] }[] = [
  { name: 'i2', type: 'int2', values: ['0', '1', '-1', '32767', '-32768', '100', '-7', '42'] },
  { name: 'i4', type: 'int4', values: ['0', '2147483647', '-2147483648', '7', '-100', '65536', '12345'] },
  { name: 'i8', type: 'int8', values: ['0', '9223372036854775807', '-9223372036854775808', '4294967296', '-1', '1000000000000'] },
  { name: 'f4', type: 'float4', values: ['0', '-0', '1.5', '3.4028235e+38', '1e-30', 'NaN', 'Infinity', '-Infinity', '0.1', '-2.25'] },
  { name: 'f8', type: 'float8', values: ['0', '-0', '0.1', '1e308', '-1e-300', 'NaN', 'Infinity', '-Infinity', '3.141592653589793', '-2.5'] },
  { name: 'nu', type: 'numeric', values: ['0', '1.5', '-0.000001', '123456789012345678901234567890.123', '1e-20', '-42', '3.14159', '100.00', '0.5'] },
  { name: 'n52', type: 'numeric(5,2)', values: ['0.00', '999.99', '-999.99', '1.05', '-0.01', '12.50', '3.33'] },
  { name: 'n386', type: 'numeric(38,6)', values: ['0', '12345678901234567890123456789012.123456', '-1.000001', '0.5', '77777.777777', '-99999999999999999999999999999999.999999'] },
  { name: 'vc', type: 'varchar(12)', values: ['', 'a', 'abc', 'hello world', 'Zürich', 'x y ', 'ABC', 'a%b_c'] },
  { name: 'bp', type: 'bpchar(6)', values: ['', 'a', 'ab ', 'abcdef', 'Ä', 'b', 'AB'] },
  { name: 'tx', type: 'text', values: ['', 'plain', 'with space', 'tab\there', 'new\nline', 'back\\slash', 'quote\'s', 'ünïcödé', '日本語', '😀 emoji', 'UPPER', 'lower'] },
  { name: 'bo', type: 'bool', values: ['t', 'f'] },
  { name: 'da', type: 'date', values: ['2000-01-01', '1999-12-31', '2024-02-29', '1970-01-01', '0001-01-01', '9999-12-31', '1900-03-01', '2038-01-19'] },
  { name: 'tp', type: 'timestamp', values: ['2000-01-01 00:00:00', '1999-12-31 23:59:59.999999', '2024-02-29 12:30:00', '1970-01-01 00:00:00', '2038-01-19 03:14:08', '1900-01-01 00:00:00.5'] },
  { name: 'tz', type: 'timestamptz', values: ['2000-01-01 00:00:00+00', '2024-06-30 23:59:59.25+00', '1970-01-01 00:00:00+00', '2038-01-19 03:14:08+00', '2021-03-14 08:00:00+00'] },
  { name: 'by', type: 'bytea', values: ['\\x', '\\x00', '\\xdeadbeef', '\\x0102030405', '\\xff', '\\x616263'] },
  { name: 'uu', type: 'uuid', values: ['00000000-0000-0000-0000-000000000000', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '123e4567-e89b-12d3-a456-426614174000'] },
  { name: 'js', type: 'jsonb', values: ['{}', '[]', 'null', '1', '"str"', '{"a": 1, "b": [1, 2, 3]}', '{"b": {"c": null}, "a": "x"}', '[1, "two", true, null]', 'true', '1.50'] },
];

/** tn: NULL-heavy columns (fraction NULL) with small domains, so that groups and joins meet NULLs. */
const TN_ROWS = 600;
const TN_COLUMNS: { name: string; type: string; nulls: number; gen: (r: Rng) => Value }[] = [
  { name: 'k', type: 'int4', nulls: 0.3, gen: (r) => r.int(0, 4) },
  { name: 'a', type: 'int4', nulls: 0.9, gen: (r) => r.int(-50, 50) },
  { name: 'z', type: 'int8', nulls: 1, gen: () => 0n },
  { name: 'x', type: 'float8', nulls: 0.95, gen: (r) => r.int(-1000, 1000) / 4 },
  { name: 's', type: 'text', nulls: 0.8, gen: (r) => r.pick(['p', 'q', 'r', 'pq', '']) },
  { name: 'd', type: 'date', nulls: 0.9, gen: (r) => r.int(19000, 19100) },
  { name: 'm', type: 'numeric(10,2)', nulls: 0.7, gen: (r) => BigInt(r.int(-100000, 100000)) },
  { name: 'f', type: 'bool', nulls: 0.6, gen: (r) => r.chance(0.5) },
];

export interface Fixture {
  file: string;
  sql: string;
  /** The SQLSTATE of a `-- paxd: XXXXX` line before the statement, else null. */
  expect: string | null;
}

/** Every statement of fixtures/<folder>/*.sql (fixtures/sql by default), in file order. */
export function loadFixtures(folder = 'sql'): Fixture[] {
  const dir = join(import.meta.dirname, '../../fixtures', folder);
  const out: Fixture[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.sql')).sort()) {
    let buf: string[] = [];
    let expect: string | null = null;
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      const m = /^--\s*paxd:\s*([0-9A-Z]{5})/.exec(line);
      if (m) expect = m[1]!;
      if (line.trim() === '' || line.startsWith('--')) continue;
      buf.push(line);
      if (line.trimEnd().endsWith(';')) {
        out.push({ file, sql: buf.join('\n'), expect });
        buf = [];
        expect = null;
      }
    }
  }
  return out;
}

/** One table of the suite: its columns, its rows (materialized) and its paxd layout. */
export interface DiffTable {
  name: string;
  columns: { name: string; type: string; notNull?: boolean }[];
  batches: Batch[];
  rowGroupRows: number;
  zoneRows: number;
}

function batchOf(types: string[], cols: Value[][], rows: number): Batch {
  return { length: rows, columns: cols.map((c, j) => columnOf(parseTypeName(types[j]!), c)), selection: null };
}

const table = (name: string, columns: DiffTable['columns'], batches: Batch[], rowGroupRows: number): DiffTable => ({
  name,
  columns,
  batches,
  rowGroupRows,
  zoneRows: rowGroupRows >= 16384 ? 4096 : 1024,
});

/** Generates t, ty, tn and the TPC-H tables (SF 0.01), each call the same rows. */
export function* differentialTables(): Generator<DiffTable> {
  const rng = new Rng(6);
  const cols: Value[][] = COLUMNS.map(() => []);
  for (let i = 0; i < ROWS; i++) COLUMNS.forEach((c, j) => cols[j]!.push(c.name !== 'id' && rng.chance(0.1) ? null : c.gen(rng, i)));
  const tColumns = COLUMNS.map((c) => ({ name: c.name, type: c.type, notNull: c.name === 'id' }));
  yield table('t', tColumns, [batchOf(COLUMNS.map((c) => c.type), cols, ROWS)], 1024);

  const tyRng = new Rng(61);
  const tyTypes = ['int4', ...TY_COLUMNS.map((c) => c.type)];
  const tyCols: Value[][] = tyTypes.map(() => []);
  for (let i = 0; i < TY_ROWS; i++) {
    tyCols[0]!.push(i);
    TY_COLUMNS.forEach((c, j) => tyCols[j + 1]!.push(tyRng.chance(0.2) ? null : parseText(parseTypeName(c.type), tyRng.pick(c.values))));
  }
  const tyColumns = [{ name: 'id', type: 'int4', notNull: true }, ...TY_COLUMNS.map((c) => ({ name: c.name, type: c.type }))];
  yield table('ty', tyColumns, [batchOf(tyTypes, tyCols, TY_ROWS)], 128);

  const tnRng = new Rng(62);
  const tnTypes = ['int4', ...TN_COLUMNS.map((c) => c.type)];
  const tnCols: Value[][] = tnTypes.map(() => []);
  for (let i = 0; i < TN_ROWS; i++) {
    tnCols[0]!.push(i);
    TN_COLUMNS.forEach((c, j) => tnCols[j + 1]!.push(tnRng.next() < c.nulls ? null : c.gen(tnRng)));
  }
  const tnColumns = [{ name: 'id', type: 'int4', notNull: true }, ...TN_COLUMNS.map((c) => ({ name: c.name, type: c.type }))];
  yield table('tn', tnColumns, [batchOf(tnTypes, tnCols, TN_ROWS)], 256);

  for (const t of tpchTables(TPCH_SF)) {
    const columns = t.columns.map((c) => ({ name: c.name, type: String(c.type), notNull: c.notNull ?? false }));
    yield table(t.name, columns, [...t.batches(8192)], 16384);
  }
}

/** Creates one table of the suite in paxd and writes its rows; returns its column types. */
export async function buildPaxdTable(db: Database, t: DiffTable): Promise<PgType[]> {
  const created = await db.createTable(t.name, t.columns, { rowGroupRows: t.rowGroupRows, zoneRows: t.zoneRows });
  const sink = created.sink();
  for (const b of t.batches) await sink.write(b);
  await sink.commit();
  return created.fields.map((f) => f.type);
}

/** Creates and loads every table of the suite into `db`. */
export async function buildPaxdTables(db: Database): Promise<void> {
  for (const t of differentialTables()) await buildPaxdTable(db, t);
}

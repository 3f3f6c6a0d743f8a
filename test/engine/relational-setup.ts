/**
 * The data of the relational suites (./joins.test.ts, ./params.test.ts): a small TPC-H-shaped
 * schema (region, nation, supplier, customer, part, orders, lineitem) plus two small tables
 * with NULLs and duplicate keys for outer joins, loaded into paxd and into PostgreSQL alike.
 * Keys leave gaps on purpose (orders of customers that do not exist, NULL foreign keys).
 * In PostgreSQL the tables live in schema `rel`: run queries through `pgSql`.
 */
import { Database } from '../../src/table/database.js';
import { columnOf, formatText, type PgType, type Value } from '../../src/types/index.js';
import { Rng } from '../support/random.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';

type Gen = (r: Rng, i: number) => Value;
interface TableSpec {
  name: string;
  rows: number;
  columns: { name: string; type: string; gen: Gen }[];
}

const DAY_1992 = 8035;
const nulls = (p: number, g: Gen): Gen => (r, i) => (r.chance(p) ? null : g(r, i));
const cents = (lo: number, hi: number): Gen => (r) => BigInt(r.int(lo * 100, hi * 100));

const SEGMENTS = ['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'HOUSEHOLD', 'MACHINERY'];
const PRIORITIES = ['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'];
const MODES = ['MAIL', 'SHIP', 'AIR', 'TRUCK', 'RAIL', 'FOB', 'REG AIR'];
const REGIONS = ['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST'];

export const TABLES: TableSpec[] = [
  { name: 'region', rows: 5, columns: [{ name: 'r_regionkey', type: 'int4', gen: (_r, i) => i }, { name: 'r_name', type: 'text', gen: (_r, i) => REGIONS[i]! }] },
  {
    name: 'nation',
    rows: 25,
    columns: [
      { name: 'n_nationkey', type: 'int4', gen: (_r, i) => i },
      { name: 'n_name', type: 'text', gen: (_r, i) => `NATION${String(i).padStart(2, '0')}` },
      { name: 'n_regionkey', type: 'int4', gen: (_r, i) => i % 5 },
    ],
  },
  {
    name: 'supplier',
    rows: 40,
    columns: [
      { name: 's_suppkey', type: 'int4', gen: (_r, i) => i + 1 },
      { name: 's_name', type: 'text', gen: (_r, i) => `Supplier#${i + 1}` },
      { name: 's_nationkey', type: 'int4', gen: (r) => r.int(0, 24) },
      { name: 's_acctbal', type: 'numeric(12,2)', gen: cents(-999, 9999) },
    ],
  },
  {
    name: 'customer',
    rows: 300,
    columns: [
      { name: 'c_custkey', type: 'int4', gen: (_r, i) => i + 1 },
      { name: 'c_name', type: 'text', gen: (_r, i) => `Customer#${i + 1}` },
      { name: 'c_address', type: 'text', gen: (r) => `addr ${r.int(1, 999)}` },
      { name: 'c_nationkey', type: 'int4', gen: (r) => r.int(0, 24) },
      { name: 'c_phone', type: 'text', gen: (r) => `${r.int(10, 34)}-${r.int(100, 999)}` },
      { name: 'c_acctbal', type: 'numeric(12,2)', gen: cents(-999, 9999) },
      { name: 'c_mktsegment', type: 'text', gen: (r) => r.pick(SEGMENTS) },
      { name: 'c_comment', type: 'text', gen: (r) => r.pick(['fine', 'slow', 'quick']) },
    ],
  },
  {
    name: 'part',
    rows: 200,
    columns: [
      { name: 'p_partkey', type: 'int4', gen: (_r, i) => i + 1 },
      { name: 'p_type', type: 'text', gen: (r) => `${r.pick(['PROMO', 'STANDARD', 'ECONOMY'])} ${r.pick(['BRUSHED', 'PLATED'])} TIN` },
    ],
  },
  {
    name: 'orders',
    rows: 2000,
    columns: [
      { name: 'o_orderkey', type: 'int8', gen: (_r, i) => BigInt(i + 1) },
      { name: 'o_custkey', type: 'int4', gen: nulls(0.02, (r) => r.int(1, 320)) },
      { name: 'o_orderstatus', type: 'text', gen: (r) => r.pick(['F', 'O', 'P']) },
      { name: 'o_totalprice', type: 'numeric(12,2)', gen: cents(1000, 400000) },
      { name: 'o_orderdate', type: 'date', gen: (r) => DAY_1992 + r.int(0, 2400) },
      { name: 'o_orderpriority', type: 'text', gen: (r) => r.pick(PRIORITIES) },
      { name: 'o_shippriority', type: 'int4', gen: () => 0 },
    ],
  },
  {
    name: 'lineitem',
    rows: 8000,
    columns: [
      { name: 'l_orderkey', type: 'int8', gen: (r) => BigInt(r.int(1, 2100)) },
      { name: 'l_partkey', type: 'int4', gen: (r) => r.int(1, 200) },
      { name: 'l_suppkey', type: 'int4', gen: (r) => r.int(1, 40) },
      { name: 'l_quantity', type: 'numeric(12,2)', gen: (r) => BigInt(r.int(1, 50) * 100) },
      { name: 'l_extendedprice', type: 'numeric(12,2)', gen: cents(900, 100000) },
      { name: 'l_discount', type: 'numeric(12,2)', gen: (r) => BigInt(r.int(0, 10)) },
      { name: 'l_returnflag', type: 'text', gen: (r) => r.pick(['A', 'N', 'R']) },
      { name: 'l_shipdate', type: 'date', gen: (r) => DAY_1992 + r.int(0, 2500) },
      { name: 'l_commitdate', type: 'date', gen: (r) => DAY_1992 + r.int(0, 2500) },
      { name: 'l_receiptdate', type: 'date', gen: (r) => DAY_1992 + r.int(0, 2500) },
      { name: 'l_shipmode', type: 'text', gen: (r) => r.pick(MODES) },
    ],
  },
  {
    name: 'ja',
    rows: 60,
    columns: [
      { name: 'id', type: 'int4', gen: (_r, i) => i },
      { name: 'k', type: 'int4', gen: nulls(0.15, (r) => r.int(0, 20)) },
      { name: 'k8', type: 'int8', gen: nulls(0.1, (r) => BigInt(r.int(0, 20))) },
      { name: 's', type: 'text', gen: nulls(0.1, (r) => r.pick(['x', 'y', 'z', 'w', ''])) },
      { name: 'n', type: 'numeric(10,2)', gen: nulls(0.1, (r) => BigInt(r.int(0, 8) * 50)) },
      { name: 'f', type: 'float8', gen: nulls(0.1, (r) => r.int(-3, 3) / 2) },
    ],
  },
  {
    name: 'jb',
    rows: 45,
    columns: [
      { name: 'id', type: 'int4', gen: (_r, i) => i },
      { name: 'k', type: 'int8', gen: nulls(0.15, (r) => BigInt(r.int(5, 30))) },
      { name: 's', type: 'varchar(5)', gen: nulls(0.1, (r) => r.pick(['x', 'y', 'v', ''])) },
      { name: 'n', type: 'numeric', gen: nulls(0.1, (r) => `${r.int(0, 8) * 0.5}`) },
      { name: 'f', type: 'float4', gen: nulls(0.1, (r) => r.int(-3, 3) / 2) },
      { name: 'd', type: 'date', gen: nulls(0.1, (r) => DAY_1992 + r.int(0, 30)) },
    ],
  },
];

export interface Env {
  db: Database;
  pg: Postgres;
}

let env: Promise<Env> | null = null;

/** Both databases with the same rows, once per process. */
export function setupRelational(): Promise<Env> {
  env ??= (async () => {
    const rng = new Rng(66);
    const db = await Database.open(tempDir());
    const pg = await startPostgres();
    // A schema of its own: other suites load their own tpch tables into the same cluster.
    const sql: string[] = ['DROP SCHEMA IF EXISTS rel CASCADE; CREATE SCHEMA rel; SET search_path = rel;'];
    for (const spec of TABLES) {
      const t = await db.createTable(spec.name, spec.columns.map((c) => ({ name: c.name, type: c.type, notNull: false })), { rowGroupRows: 1024, zoneRows: 1024 });
      const types: PgType[] = t.fields.map((f) => f.type);
      const cols: Value[][] = spec.columns.map(() => []);
      for (let i = 0; i < spec.rows; i++) spec.columns.forEach((c, j) => cols[j]!.push(c.gen(rng, i)));
      const sink = t.sink();
      await sink.write({ length: spec.rows, columns: cols.map((c, j) => columnOf(types[j]!, c)), selection: null });
      await sink.commit();
      sql.push(`DROP TABLE IF EXISTS ${spec.name}; CREATE TABLE ${spec.name} (${spec.columns.map((c) => `${c.name} ${c.type}`).join(', ')});`);
      for (let start = 0; start < spec.rows; start += 500) {
        const rows: string[] = [];
        for (let i = start; i < Math.min(spec.rows, start + 500); i++)
          rows.push(`(${cols.map((c, j) => (c[i] === null ? 'NULL' : `'${formatText(types[j]!, c[i]!).replace(/'/g, "''")}'`)).join(', ')})`);
        sql.push(`INSERT INTO ${spec.name} VALUES ${rows.join(',\n')};`);
      }
    }
    await pg.query(sql.join('\n'));
    return { db, pg };
  })();
  return env;
}

/** A statement for PostgreSQL, over schema `rel`. */
export function pgSql(sql: string): string {
  return `SET search_path = rel;\n${sql}`;
}

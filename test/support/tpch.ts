/**
 * A deterministic generator of the eight TPC-H tables (not dbgen, but the specification's
 * columns, types and value domains, TPC-H 3.0.1 section 4.2.3) at any scale factor, for the
 * engine's differential suite and benches.
 *
 *   for (const t of tpchTables(0.01)) {
 *     const table = await db.createTable(t.name, t.columns);
 *     const sink = table.sink();
 *     for (const b of t.batches()) await sink.write(b);
 *     await sink.commit();
 *     await pg.query(`CREATE TABLE ${t.name} (${pgColumns(t)});\n${copyFromStdin(t.name, t.types, t.batches())}`);
 *   }
 *
 * lineitem is bench/lineitem.ts's generator itself (same columns, types and bytes for the same
 * scale and seed), so a bench's cached lineitem CSV and this lineitem are the same rows. orders
 * replays that generator's random draws to know each order's date and lines, so the two tables
 * agree as the specification requires: l_shipdate = o_orderdate + 1..121, o_totalprice =
 * sum(l_extendedprice × (1 + l_tax) × (1 − l_discount)), o_orderstatus F/O/P from the lines'
 * l_linestatus. o_custkey is never a multiple of 3 (a third of the customers have no orders);
 * partsupp holds the 4 suppliers of each part by the specification's formula.
 *
 * Values are in paxd's stored representation (src/types/column.ts): keys int8 as bigint,
 * numeric(15,2) as bigint cents, dates as days since 1970-01-01, bpchar(n) padded to n.
 */
import { columnOf, getValue } from '../../src/types/builder.js';
import type { Batch, Value } from '../../src/types/column.js';
import { parseTypeName } from '../../src/types/parse-type.js';
import { formatText } from '../../src/types/text-io.js';
import type { PgType } from '../../src/types/type.js';
import type { ColumnSpec } from '../../src/table/database.js';
import { generateLineitem, LINEITEM_COLUMNS } from '../../bench/lineitem.js';

export type TpchName = 'region' | 'nation' | 'supplier' | 'customer' | 'part' | 'partsupp' | 'orders' | 'lineitem';

export interface TpchTable {
  readonly name: TpchName;
  readonly columns: readonly ColumnSpec[];
  readonly types: readonly PgType[];
  /** The exact row count (lineitem: counted by generating it once). */
  rows(): number;
  /** The rows in batches of about `batchRows` (whole orders for lineitem), the same every call. */
  batches(batchRows?: number): Generator<Batch>;
}

const col = (name: string, type: string): ColumnSpec => ({ name, type, notNull: true });

export const TPCH_COLUMNS: Record<TpchName, readonly ColumnSpec[]> = {
  region: [col('r_regionkey', 'int8'), col('r_name', 'bpchar(25)'), col('r_comment', 'varchar(152)')],
  nation: [col('n_nationkey', 'int8'), col('n_name', 'bpchar(25)'), col('n_regionkey', 'int8'), col('n_comment', 'varchar(152)')],
  supplier: [
    col('s_suppkey', 'int8'),
    col('s_name', 'bpchar(25)'),
    col('s_address', 'varchar(40)'),
    col('s_nationkey', 'int8'),
    col('s_phone', 'bpchar(15)'),
    col('s_acctbal', 'numeric(15,2)'),
    col('s_comment', 'varchar(101)'),
  ],
  customer: [
    col('c_custkey', 'int8'),
    col('c_name', 'varchar(25)'),
    col('c_address', 'varchar(40)'),
    col('c_nationkey', 'int8'),
    col('c_phone', 'bpchar(15)'),
    col('c_acctbal', 'numeric(15,2)'),
    col('c_mktsegment', 'bpchar(10)'),
    col('c_comment', 'varchar(117)'),
  ],
  part: [
    col('p_partkey', 'int8'),
    col('p_name', 'varchar(55)'),
    col('p_mfgr', 'bpchar(25)'),
    col('p_brand', 'bpchar(10)'),
    col('p_type', 'varchar(25)'),
    col('p_size', 'int4'),
    col('p_container', 'bpchar(10)'),
    col('p_retailprice', 'numeric(15,2)'),
    col('p_comment', 'varchar(23)'),
  ],
  partsupp: [col('ps_partkey', 'int8'), col('ps_suppkey', 'int8'), col('ps_availqty', 'int4'), col('ps_supplycost', 'numeric(15,2)'), col('ps_comment', 'varchar(199)')],
  orders: [
    col('o_orderkey', 'int8'),
    col('o_custkey', 'int8'),
    col('o_orderstatus', 'bpchar(1)'),
    col('o_totalprice', 'numeric(15,2)'),
    col('o_orderdate', 'date'),
    col('o_orderpriority', 'bpchar(15)'),
    col('o_clerk', 'bpchar(15)'),
    col('o_shippriority', 'int4'),
    col('o_comment', 'varchar(79)'),
  ],
  lineitem: LINEITEM_COLUMNS,
};

/** The tables in load order (referenced tables first). */
export const TPCH_NAMES: readonly TpchName[] = ['region', 'nation', 'supplier', 'customer', 'part', 'partsupp', 'orders', 'lineitem'];

const REGIONS = ['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST'];
/** [name, regionkey] by nationkey, as in the specification (4.2.3). */
const NATIONS: [string, number][] = [
  ['ALGERIA', 0], ['ARGENTINA', 1], ['BRAZIL', 1], ['CANADA', 1], ['EGYPT', 4], ['ETHIOPIA', 0], ['FRANCE', 3], ['GERMANY', 3],
  ['INDIA', 2], ['INDONESIA', 2], ['IRAN', 4], ['IRAQ', 4], ['JAPAN', 2], ['JORDAN', 4], ['KENYA', 0], ['MOROCCO', 0],
  ['MOZAMBIQUE', 0], ['PERU', 1], ['CHINA', 2], ['ROMANIA', 3], ['SAUDI ARABIA', 4], ['VIETNAM', 2], ['RUSSIA', 3],
  ['UNITED KINGDOM', 3], ['UNITED STATES', 1],
];
const SEGMENTS = ['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'MACHINERY', 'HOUSEHOLD'];
const PRIORITIES = ['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'];
const TYPE_1 = ['STANDARD', 'SMALL', 'MEDIUM', 'LARGE', 'ECONOMY', 'PROMO'];
const TYPE_2 = ['ANODIZED', 'BURNISHED', 'PLATED', 'POLISHED', 'BRUSHED'];
const TYPE_3 = ['TIN', 'NICKEL', 'BRASS', 'STEEL', 'COPPER'];
const CONTAINER_1 = ['SM', 'LG', 'MED', 'JUMBO', 'WRAP'];
const CONTAINER_2 = ['CASE', 'BOX', 'BAG', 'JAR', 'PKG', 'PACK', 'CAN', 'DRUM'];
const COLORS = (
  'almond antique aquamarine azure beige bisque black blanched blue blush brown burlywood burnished chartreuse chiffon ' +
  'chocolate coral cornflower cornsilk cream cyan dark deep dim dodger drab firebrick floral forest frosted gainsboro ' +
  'ghost goldenrod green grey honeydew hot indian ivory khaki lace lavender lawn lemon light lime linen magenta maroon ' +
  'medium metallic midnight mint misty moccasin navajo navy olive orange orchid pale papaya peach peru pink plum powder ' +
  'puff purple red rose rosy royal saddle salmon sandy seashell sienna sky slate smoke snow spring steel tan thistle ' +
  'tomato turquoise violet wheat white yellow'
).split(' ');
/** bench/lineitem.ts's word list (its comments), replayed draw for draw by orders. */
const LINE_WORDS = (
  'furiously carefully quickly blithely slyly regular express special final pending ironic bold ' +
  'even silent unusual packages deposits requests accounts instructions theodolites foxes pinto ' +
  'beans ideas dependencies platelets asymptotes courts dolphins sleep wake nag haggle cajole ' +
  'integrate boost detect use are was above across after against along among around'
).split(' ');
const TEXT_WORDS = [...LINE_WORDS, 'Customer', 'Complaints', 'Recommends', 'the', 'about', 'beyond', 'fluffily', 'quietly'];
const ADDRESS_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ,';

const DAY_1992_01_01 = 8035;
const DAY_1998_08_02 = 10440;
const DAY_1995_06_17 = 9298;

/** xorshift32, exactly bench/lineitem.ts's (orders replays its draws). */
class XorShift {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 0x9e3779b9;
  }
  next(): number {
    let x = this.s;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.s = x >>> 0;
    return this.s;
  }
  int(lo: number, hi: number): number {
    return lo + (this.next() % (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(0, xs.length - 1)]!;
  }
}

export interface TpchSizes {
  suppliers: number;
  parts: number;
  customers: number;
  orders: number;
}

/** Row counts by the specification's SF multipliers (bench/lineitem.ts rounds the same way). */
export function tpchSizes(sf: number): TpchSizes {
  if (!(sf > 0)) throw new RangeError(`TPC-H scale factor must be positive, got ${sf}`);
  return {
    suppliers: Math.max(1, Math.round(10_000 * sf)),
    parts: Math.max(1, Math.round(200_000 * sf)),
    customers: Math.max(1, Math.round(150_000 * sf)),
    orders: Math.round(1_500_000 * sf),
  };
}

/** P_RETAILPRICE in cents (4.2.3): 90000 + ((key/10) mod 20001) + 100 × (key mod 1000). */
export function retailCents(partkey: number): number {
  return 90000 + (Math.floor(partkey / 10) % 20001) + 100 * (partkey % 1000);
}

/** The i-th (0..3) supplier of a part (4.2.3, PS_SUPPKEY). */
export function partSupplier(partkey: number, i: number, suppliers: number): number {
  return ((partkey + i * (Math.floor(suppliers / 4) + Math.floor((partkey - 1) / suppliers))) % suppliers) + 1;
}

/** The eight tables at scale factor `sf` (orders and lineitem from bench/lineitem.ts's `seed`). */
export function tpchTables(sf: number, seed = 42): TpchTable[] {
  const sizes = tpchSizes(sf);
  const rowTable = (name: Exclude<TpchName, 'lineitem'>, count: number, row: (rng: XorShift, i: number) => Value[], salt: number): TpchTable => {
    const columns = TPCH_COLUMNS[name];
    const types = columns.map((c) => parseTypeName(String(c.type)));
    return {
      name,
      columns,
      types,
      rows: () => count,
      *batches(batchRows = 65536) {
        const rng = new XorShift((seed * 7919 + salt * 104729) >>> 0);
        for (let start = 0; start < count; start += batchRows) {
          const n = Math.min(batchRows, count - start);
          const cols: Value[][] = types.map(() => new Array<Value>(n));
          for (let i = 0; i < n; i++) {
            const r = row(rng, start + i);
            for (let j = 0; j < r.length; j++) cols[j]![i] = r[j]!;
          }
          yield { length: n, columns: cols.map((c, j) => columnOf(types[j]!, c)), selection: null };
        }
      },
    };
  };
  const bp = (s: string, n: number) => s.padEnd(n);
  const phone = (rng: XorShift, nation: number) => `${nation + 10}-${rng.int(100, 999)}-${rng.int(100, 999)}-${rng.int(1000, 9999)}`;
  const acctbal = (rng: XorShift) => BigInt(rng.int(-99999, 999999));
  const address = (rng: XorShift) => {
    const n = rng.int(10, 40);
    let s = '';
    for (let i = 0; i < n; i++) s += ADDRESS_CHARS[rng.int(0, ADDRESS_CHARS.length - 1)];
    return s;
  };
  const key9 = (prefix: string, k: number) => `${prefix}#${String(k).padStart(9, '0')}`;

  const lineitemTypes = LINEITEM_COLUMNS.map((c) => parseTypeName(String(c.type)));
  let lineitemCount: number | null = null;
  const lineitem: TpchTable = {
    name: 'lineitem',
    columns: LINEITEM_COLUMNS,
    types: lineitemTypes,
    rows() {
      if (lineitemCount === null) {
        lineitemCount = 0;
        for (const b of generateLineitem(sf, 65536, seed)) lineitemCount += b.length;
      }
      return lineitemCount;
    },
    batches: (batchRows = 65536) => generateLineitem(sf, batchRows, seed),
  };

  return [
    rowTable('region', REGIONS.length, (rng, i) => [BigInt(i), bp(REGIONS[i]!, 25), text(rng, 31, 115)], 1),
    rowTable('nation', NATIONS.length, (rng, i) => [BigInt(i), bp(NATIONS[i]![0], 25), BigInt(NATIONS[i]![1]), text(rng, 31, 114)], 2),
    rowTable(
      'supplier',
      sizes.suppliers,
      (rng, i) => {
        const nation = rng.int(0, 24);
        return [BigInt(i + 1), bp(key9('Supplier', i + 1), 25), address(rng), BigInt(nation), phone(rng, nation), acctbal(rng), text(rng, 25, 100)];
      },
      3,
    ),
    rowTable(
      'customer',
      sizes.customers,
      (rng, i) => {
        const nation = rng.int(0, 24);
        return [BigInt(i + 1), key9('Customer', i + 1), address(rng), BigInt(nation), phone(rng, nation), acctbal(rng), bp(rng.pick(SEGMENTS), 10), text(rng, 29, 116)];
      },
      4,
    ),
    rowTable(
      'part',
      sizes.parts,
      (rng, i) => {
        const key = i + 1;
        const names = new Set<string>();
        while (names.size < 5) names.add(rng.pick(COLORS));
        const m = rng.int(1, 5);
        return [
          BigInt(key),
          [...names].join(' '),
          bp(`Manufacturer#${m}`, 25),
          bp(`Brand#${m}${rng.int(1, 5)}`, 10),
          `${rng.pick(TYPE_1)} ${rng.pick(TYPE_2)} ${rng.pick(TYPE_3)}`,
          rng.int(1, 50),
          bp(`${rng.pick(CONTAINER_1)} ${rng.pick(CONTAINER_2)}`, 10),
          BigInt(retailCents(key)),
          text(rng, 5, 22),
        ];
      },
      5,
    ),
    rowTable(
      'partsupp',
      sizes.parts * 4,
      (rng, i) => {
        const part = Math.floor(i / 4) + 1;
        return [BigInt(part), BigInt(partSupplier(part, i % 4, sizes.suppliers)), rng.int(1, 9999), BigInt(rng.int(100, 100000)), text(rng, 49, 198)];
      },
      6,
    ),
    ordersTable(sf, seed, sizes),
    lineitem,
  ];
}

/** A comment of random words, `min`..`max` characters (4.2.2.10's text, from a smaller grammar). */
function text(rng: XorShift, min: number, max: number): string {
  const target = rng.int(min, max);
  let s = rng.pick(TEXT_WORDS);
  while (s.length < target) s += ' ' + rng.pick(TEXT_WORDS);
  return s.slice(0, target).trimEnd();
}

/**
 * orders, replaying bench/lineitem.ts's draws (the same xorshift32, seed and order of calls)
 * to learn each order's date and lines; its own columns come from a second generator.
 */
function ordersTable(sf: number, seed: number, sizes: TpchSizes): TpchTable {
  const columns = TPCH_COLUMNS.orders;
  const types = columns.map((c) => parseTypeName(String(c.type)));
  const clerks = Math.max(1, Math.round(1000 * sf));
  return {
    name: 'orders',
    columns,
    types,
    rows: () => sizes.orders,
    *batches(batchRows = 65536) {
      const line = new XorShift(seed);
      const own = new XorShift((seed * 7919 + 7 * 104729) >>> 0);
      for (let start = 0; start < sizes.orders; start += batchRows) {
        const n = Math.min(batchRows, sizes.orders - start);
        const cols: Value[][] = types.map(() => new Array<Value>(n));
        for (let i = 0; i < n; i++) {
          const order = start + i;
          const okey = BigInt(Math.floor(order / 8) * 32 + (order % 8) + 1);
          const orderdate = line.int(DAY_1992_01_01, DAY_1998_08_02 - 151);
          const lines = line.int(1, 7);
          let total = 0n; // in 1/1,000,000 cents: cents × (100 + tax) × (100 − discount)
          let shipped = 0;
          for (let l = 1; l <= lines; l++) {
            const pk = line.int(1, sizes.parts);
            const q = line.int(1, 50);
            const discount = line.int(0, 10);
            const tax = line.int(0, 8);
            const sd = orderdate + line.int(1, 121);
            const rd = sd + line.int(1, 30);
            line.int(30, 90); // commitdate
            if (rd <= DAY_1995_06_17) line.next(); // returnflag R or A
            line.int(0, 3); // shipinstruct
            line.int(0, 6); // shipmode
            skipComment(line);
            total += BigInt(q * retailCents(pk)) * BigInt(100 + tax) * BigInt(100 - discount);
            if (sd <= DAY_1995_06_17) shipped++;
          }
          let custkey = own.int(1, sizes.customers);
          if (sizes.customers >= 3) while (custkey % 3 === 0) custkey = own.int(1, sizes.customers);
          const row: Value[] = [
            okey,
            BigInt(custkey),
            shipped === lines ? 'F' : shipped === 0 ? 'O' : 'P',
            (total + 5000n) / 10000n,
            orderdate,
            own.pick(PRIORITIES).padEnd(15),
            `Clerk#${String(own.int(1, clerks)).padStart(9, '0')}`,
            0,
            text(own, 19, 78),
          ];
          for (let j = 0; j < row.length; j++) cols[j]![i] = row[j]!;
        }
        yield { length: n, columns: cols.map((c, j) => columnOf(types[j]!, c)), selection: null };
      }
    },
  };
}

const LINE_WORD_LENGTHS = LINE_WORDS.map((w) => w.length);

/** The draws of one l_comment in bench/lineitem.ts, without building it. */
function skipComment(rng: XorShift): void {
  const target = rng.int(10, 43);
  let len = 0;
  while (len < target) {
    const w = LINE_WORD_LENGTHS[rng.int(0, LINE_WORD_LENGTHS.length - 1)]!;
    if (len > 0) {
      if (target - len < 2) break;
      len++;
    }
    len += Math.min(w, target - len);
  }
}

/** `name type NOT NULL, …` for CREATE TABLE. */
export function pgColumns(t: { columns: readonly ColumnSpec[] }): string {
  return t.columns.map((c) => `${c.name} ${String(c.type)}${c.notNull ? ' NOT NULL' : ''}`).join(', ');
}

/**
 * `COPY name FROM STDIN;` followed by the rows in COPY's text format and `\.`, for psql's
 * standard input (test/support/pg.ts `query`): psql sends the lines after the COPY to the server.
 */
export function copyFromStdin(name: string, types: readonly PgType[], batches: Iterable<Batch>): string {
  const lines: string[] = [`COPY ${name} FROM STDIN;`];
  for (const b of batches) {
    for (let i = 0; i < b.length; i++) {
      const row = b.columns.map((c, j) => {
        const v = getValue(c, i);
        return v === null ? '\\N' : copyEscape(formatText(types[j]!, v));
      });
      lines.push(row.join('\t'));
    }
  }
  lines.push('\\.');
  return lines.join('\n') + '\n';
}

/** COPY text format escapes (PostgreSQL docs, COPY, "Text Format"). */
function copyEscape(s: string): string {
  return /[\\\t\n\r]/.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r')) : s;
}

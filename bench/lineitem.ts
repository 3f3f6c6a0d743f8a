/**
 * A deterministic generator of a TPC-H-like `lineitem` table (not dbgen, but its 16 columns,
 * types and value distributions per the TPC-H specification, section 4.2.3): any scale factor,
 * generated batch by batch into typed arrays, the same bytes for the same (scale, seed).
 *
 * Orders: 1,500,000 × SF, keys sparse as in TPC-H (the first 8 of every 32), 1–7 lines each
 * (about 6,000,000 × SF lines). Dates: orderdate uniform in [1992-01-01, 1998-08-02];
 * shipdate = orderdate + 1..121; commitdate = orderdate + 30..90; receiptdate = shipdate + 1..30.
 */
import type { Batch, Column } from '../src/types/column.js';
import type { PgType } from '../src/types/type.js';
import type { ColumnSpec } from '../src/table/database.js';

export const LINEITEM_COLUMNS: ColumnSpec[] = [
  { name: 'l_orderkey', type: 'int8', notNull: true },
  { name: 'l_partkey', type: 'int8', notNull: true },
  { name: 'l_suppkey', type: 'int8', notNull: true },
  { name: 'l_linenumber', type: 'int4', notNull: true },
  { name: 'l_quantity', type: 'numeric(15,2)', notNull: true },
  { name: 'l_extendedprice', type: 'numeric(15,2)', notNull: true },
  { name: 'l_discount', type: 'numeric(15,2)', notNull: true },
  { name: 'l_tax', type: 'numeric(15,2)', notNull: true },
  { name: 'l_returnflag', type: 'bpchar(1)', notNull: true },
  { name: 'l_linestatus', type: 'bpchar(1)', notNull: true },
  { name: 'l_shipdate', type: 'date', notNull: true },
  { name: 'l_commitdate', type: 'date', notNull: true },
  { name: 'l_receiptdate', type: 'date', notNull: true },
  { name: 'l_shipinstruct', type: 'bpchar(25)', notNull: true },
  { name: 'l_shipmode', type: 'bpchar(10)', notNull: true },
  { name: 'l_comment', type: 'varchar(44)', notNull: true },
];

const T_INT8: PgType = { id: 'int8' };
const T_INT4: PgType = { id: 'int4' };
const T_DEC: PgType = { id: 'numeric', precision: 15, scale: 2 };
const T_DATE: PgType = { id: 'date' };
const bp = (n: number): PgType => ({ id: 'bpchar', length: n });

const DAY_1992_01_01 = 8035; // days since 1970-01-01
const DAY_1998_08_02 = 10440;
const DAY_1995_06_17 = 9298;
const INSTRUCT = ['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'].map((s) => s.padEnd(25));
const MODES = ['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'].map((s) => s.padEnd(10));
const WORDS = (
  'furiously carefully quickly blithely slyly regular express special final pending ironic bold ' +
  'even silent unusual packages deposits requests accounts instructions theodolites foxes pinto ' +
  'beans ideas dependencies platelets asymptotes courts dolphins sleep wake nag haggle cajole ' +
  'integrate boost detect use are was above across after against along among around'
).split(' ');

const enc = new TextEncoder();
const INSTRUCT_B = INSTRUCT.map((s) => enc.encode(s));
const MODES_B = MODES.map((s) => enc.encode(s));
const WORDS_B = WORDS.map((s) => enc.encode(s));

/** xorshift32: fast, deterministic. */
class Rng {
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
  /** Uniform integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + (this.next() % (hi - lo + 1));
  }
}

export function lineitemRows(scale: number): number {
  // Exact count depends on the line counts drawn; this is the expectation.
  return Math.round(6_000_000 * scale);
}

/**
 * Yields batches of about `batchRows` rows (whole orders), in orderkey order, until
 * 1,500,000 × scale orders have been generated.
 */
export function* generateLineitem(scale: number, batchRows = 65536, seed = 42): Generator<Batch> {
  const orders = Math.round(1_500_000 * scale);
  const parts = Math.max(1, Math.round(200_000 * scale));
  const supps = Math.max(1, Math.round(10_000 * scale));
  const rng = new Rng(seed);
  let order = 0;
  const cap = batchRows + 8;
  while (order < orders) {
    const orderkey = new BigInt64Array(cap);
    const partkey = new BigInt64Array(cap);
    const suppkey = new BigInt64Array(cap);
    const linenumber = new Int32Array(cap);
    const quantity = new BigInt64Array(cap * 2);
    const price = new BigInt64Array(cap * 2);
    const discount = new BigInt64Array(cap * 2);
    const tax = new BigInt64Array(cap * 2);
    const returnflag = new Uint8Array(cap);
    const linestatus = new Uint8Array(cap);
    const shipdate = new Int32Array(cap);
    const commitdate = new Int32Array(cap);
    const receiptdate = new Int32Array(cap);
    const instruct = new Uint8Array(cap);
    const mode = new Uint8Array(cap);
    const comment = new Uint8Array(cap * 44);
    const commentOff = new Int32Array(cap + 1);
    let n = 0;
    let cpos = 0;
    while (n < batchRows && order < orders) {
      const okey = BigInt(Math.floor(order / 8) * 32 + (order % 8) + 1);
      const orderdate = rng.int(DAY_1992_01_01, DAY_1998_08_02 - 151);
      const lines = rng.int(1, 7);
      for (let l = 1; l <= lines; l++) {
        const pk = rng.int(1, parts);
        const q = rng.int(1, 50);
        const retail = 90000 + (Math.floor(pk / 10) % 20001) + 100 * (pk % 1000); // cents
        orderkey[n] = okey;
        partkey[n] = BigInt(pk);
        suppkey[n] = BigInt(((pk + l * (Math.floor(supps / 4) + Math.floor((pk - 1) / supps))) % supps) + 1);
        linenumber[n] = l;
        quantity[2 * n] = BigInt(q * 100);
        price[2 * n] = BigInt(q * retail);
        discount[2 * n] = BigInt(rng.int(0, 10));
        tax[2 * n] = BigInt(rng.int(0, 8));
        const sd = orderdate + rng.int(1, 121);
        const rd = sd + rng.int(1, 30);
        shipdate[n] = sd;
        commitdate[n] = orderdate + rng.int(30, 90);
        receiptdate[n] = rd;
        returnflag[n] = rd <= DAY_1995_06_17 ? (rng.next() & 1 ? 82 /* R */ : 65 /* A */) : 78; /* N */
        linestatus[n] = sd > DAY_1995_06_17 ? 79 /* O */ : 70; /* F */
        instruct[n] = rng.int(0, 3);
        mode[n] = rng.int(0, 6);
        const target = rng.int(10, 43);
        const start = cpos;
        while (cpos - start < target) {
          const w = WORDS_B[rng.int(0, WORDS_B.length - 1)]!;
          const room = target - (cpos - start);
          if (cpos > start) {
            if (room < 2) break;
            comment[cpos++] = 32;
          }
          const take = Math.min(w.length, target - (cpos - start));
          comment.set(w.subarray(0, take), cpos);
          cpos += take;
        }
        n++;
        commentOff[n] = cpos;
      }
      order++;
    }
    const columns: Column[] = [
      fixed(T_INT8, n, orderkey.subarray(0, n)),
      fixed(T_INT8, n, partkey.subarray(0, n)),
      fixed(T_INT8, n, suppkey.subarray(0, n)),
      fixed(T_INT4, n, linenumber.subarray(0, n)),
      fixed(T_DEC, n, new Uint8Array(quantity.buffer, 0, n * 16)),
      fixed(T_DEC, n, new Uint8Array(price.buffer, 0, n * 16)),
      fixed(T_DEC, n, new Uint8Array(discount.buffer, 0, n * 16)),
      fixed(T_DEC, n, new Uint8Array(tax.buffer, 0, n * 16)),
      chars(bp(1), n, returnflag),
      chars(bp(1), n, linestatus),
      fixed(T_DATE, n, shipdate.subarray(0, n)),
      fixed(T_DATE, n, commitdate.subarray(0, n)),
      fixed(T_DATE, n, receiptdate.subarray(0, n)),
      pick(bp(25), n, instruct, INSTRUCT_B),
      pick(bp(10), n, mode, MODES_B),
      { type: { id: 'varchar', length: 44 }, length: n, nullCount: 0, validity: null, values: comment.subarray(0, cpos), offsets: commentOff.subarray(0, n + 1), data: comment.subarray(0, cpos) },
    ];
    yield { length: n, columns, selection: null };
  }
}

function fixed(type: PgType, n: number, values: Column['values']): Column {
  return { type, length: n, nullCount: 0, validity: null, values, offsets: null, data: null };
}

function chars(type: PgType, n: number, bytes: Uint8Array): Column {
  const offsets = new Int32Array(n + 1);
  for (let i = 0; i <= n; i++) offsets[i] = i;
  const data = bytes.slice(0, n);
  return { type, length: n, nullCount: 0, validity: null, values: data, offsets, data };
}

function pick(type: PgType, n: number, idx: Uint8Array, choices: Uint8Array[]): Column {
  const w = choices[0]!.length;
  const data = new Uint8Array(n * w);
  const offsets = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    data.set(choices[idx[i]!]!, i * w);
    offsets[i + 1] = (i + 1) * w;
  }
  return { type, length: n, nullCount: 0, validity: null, values: data, offsets, data };
}

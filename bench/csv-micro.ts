/**
 * Micro-benchmark of the CSV reader alone (src/insert/csv): lineitem-like CSV generated in
 * memory (dbgen's shape: unpadded char fields, 16 columns), fed in 64 KiB chunks as a file
 * stream would, parsed into batches; prints rows/s and MB/s (best of the runs).
 *
 *   node --import tsx bench/csv-micro.ts [rows=1000000] [runs=5]
 *   node --cpu-prof --import tsx bench/csv-micro.ts     (profile)
 */
import { readCsv } from '../src/insert/csv/index.js';
import type { Field, PgType } from '../src/types/type.js';

const DEC: PgType = { id: 'numeric', precision: 15, scale: 2 };
const cols: [string, PgType][] = [
  ['l_orderkey', { id: 'int8' }],
  ['l_partkey', { id: 'int8' }],
  ['l_suppkey', { id: 'int8' }],
  ['l_linenumber', { id: 'int4' }],
  ['l_quantity', DEC],
  ['l_extendedprice', DEC],
  ['l_discount', DEC],
  ['l_tax', DEC],
  ['l_returnflag', { id: 'bpchar', length: 1 }],
  ['l_linestatus', { id: 'bpchar', length: 1 }],
  ['l_shipdate', { id: 'date' }],
  ['l_commitdate', { id: 'date' }],
  ['l_receiptdate', { id: 'date' }],
  ['l_shipinstruct', { id: 'bpchar', length: 25 }],
  ['l_shipmode', { id: 'bpchar', length: 10 }],
  ['l_comment', { id: 'varchar', length: 44 }],
];
export const LINEITEM_FIELDS: Field[] = cols.map(([name, type], i) => ({ name, type, notNull: true, fieldId: i + 1 }));

const INSTRUCT = ['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'];
const MODES = ['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'];
const WORDS = 'furiously carefully quickly blithely slyly regular express special final pending ironic bold even silent unusual packages deposits requests accounts instructions'.split(' ');

function date(days: number): string {
  return new Date(days * 86400000).toISOString().slice(0, 10);
}

/** `rows` lines of lineitem-like CSV, as 64 KiB chunks. */
export function lineitemCsv(rows: number, seed = 7): Buffer[] {
  let s = seed;
  const rnd = (n: number) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  };
  const lines: string[] = [];
  const chunks: Buffer[] = [];
  let size = 0;
  const flush = () => {
    const all = Buffer.from(lines.join(''));
    for (let i = 0; i < all.length; i += 65536) chunks.push(all.subarray(i, i + 65536));
    lines.length = 0;
    size = 0;
  };
  for (let r = 0; r < rows; r++) {
    const order = 1 + (r >> 2) * 32 + (r & 3);
    const ship = 8035 + rnd(2400);
    const qty = 1 + rnd(50);
    let comment = '';
    const nw = 2 + rnd(5);
    for (let w = 0; w < nw; w++) comment += (w ? ' ' : '') + WORDS[rnd(WORDS.length)];
    if (comment.length > 44) comment = comment.slice(0, 44);
    const line =
      `${order},${1 + rnd(200000)},${1 + rnd(10000)},${1 + (r & 3)},${qty}.00,${(qty * (900 + rnd(100000)) / 100).toFixed(2)},0.0${rnd(10)},0.0${rnd(9)},` +
      `${'RAN'[rnd(3)]},${'OF'[rnd(2)]},${date(ship)},${date(ship + rnd(60) - 30)},${date(ship + 1 + rnd(30))},` +
      `${INSTRUCT[rnd(4)]},${MODES[rnd(7)]},${comment}\n`;
    lines.push(line);
    size += line.length;
    if (size > 1 << 22) flush();
  }
  flush();
  return chunks;
}

async function* stream(chunks: readonly Buffer[]): AsyncGenerator<Uint8Array> {
  for (const c of chunks) yield c;
}

export async function run(args: string[]): Promise<void> {
  const rows = Number(args[0] ?? 1_000_000);
  const runs = Number(args[1] ?? 5);
  const chunks = lineitemCsv(rows);
  const bytes = chunks.reduce((n, c) => n + c.length, 0);
  (globalThis as { gc?: () => void }).gc?.(); // the generator's garbage is not the reader's
  process.stdout.write(`lineitem-like CSV: ${rows} rows, ${(bytes / 1e6).toFixed(1)} MB\n`);
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    let n = 0;
    const reader = readCsv(stream(chunks), LINEITEM_FIELDS, {}, 'lineitem.csv');
    for await (const b of reader) n += b.length;
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(c0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    if (n !== rows) throw new Error(`read ${n} rows, expected ${rows}`);
    best = Math.min(best, ms);
    process.stdout.write(`run ${i + 1}: ${ms.toFixed(0)} ms, ${Math.round(rows / (ms / 1000)).toLocaleString('en-US')} rows/s, ${(bytes / 1e6 / (ms / 1000)).toFixed(0)} MB/s (cpu ${cpuMs.toFixed(0)} ms)\n`);
  }
  process.stdout.write(`best: ${Math.round(rows / (best / 1000)).toLocaleString('en-US')} rows/s, ${(bytes / 1e6 / (best / 1000)).toFixed(0)} MB/s\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await run(process.argv.slice(2));

/**
 * The storage bench: lineitem at scale factor 1 (override with --sf N) written through the
 * sink and read back through the scan, in today's format v1 with lz4 (the baseline) and in
 * format v2 (lightweight encodings per zone) with each codec (--codec C for one). Per
 * configuration it prints write rows/s, full-scan rows/s and decoded MB/s (best of 3), the
 * full scan again with reused decode buffers (`reuseBuffers`: what the engine's aggregating
 * pipelines read, TPC-H Q1 among them; each zone decodes into the same memory), the CPU time
 * (user + system, this process, best of 3) of both full scans, the
 * fixed-width columns alone, the file size, and TPC-H Q1's scan (the 7 columns Q1 reads, with
 * its shipdate predicate): what decompression yields per decimal value (lz4/zstd output, or the
 * encoded zone itself when stored uncompressed) and what the scan hands over (decimal128, 16
 * bytes, the engine's form), with fresh and with reused buffers. Beside them: the size of
 * DuckDB's file of the same rows (bench/data/lineitem-sf1.duckdb, at SF 1) and the speed-up of
 * each full scan over v1 lz4's in the same run.
 * Generation time is excluded from the write figure: batches are generated first.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../src/table/database.js';
import { columnBytes, type Batch } from '../src/types/column.js';
import { P } from '../src/scan/index.js';
import { decodeCounters } from '../src/pax/index.js';
import { generateLineitem, LINEITEM_COLUMNS } from './lineitem.js';

type Codec = 'lz4' | 'zstd' | 'none';

const Q1_COLUMNS = ['l_returnflag', 'l_linestatus', 'l_quantity', 'l_extendedprice', 'l_discount', 'l_tax', 'l_shipdate'];
/** date '1998-12-01' - interval '90' day, as days since 1970-01-01. */
const Q1_SHIPDATE = 10471;
const DUCKDB_FILE = new URL('./data/lineitem-sf1.duckdb', import.meta.url);

export async function run(args: string[]): Promise<void> {
  const sfArg = args.indexOf('--sf');
  const sf = sfArg >= 0 ? Number(args[sfArg + 1]) : 1;
  const codecs = (args.includes('--codec') ? [args[args.indexOf('--codec') + 1]!] : ['lz4', 'zstd', 'none']) as Codec[];
  const configs: { format: 1 | 2; codec: Codec }[] = [{ format: 1, codec: 'lz4' }, ...codecs.map((codec) => ({ format: 2 as const, codec }))];
  process.stdout.write(`storage bench: lineitem SF ${sf}, node ${process.version}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}\n`);
  let t0 = performance.now();
  const batches: Batch[] = [...generateLineitem(sf)];
  let rows = 0;
  let decoded = 0;
  for (const b of batches) {
    rows += b.length;
    for (const c of b.columns) decoded += columnBytes(c);
  }
  process.stdout.write(`generated ${rows.toLocaleString('en-US')} rows (${(decoded / 1e6).toFixed(0)} MB of column data) in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  if (sf === 1 && existsSync(DUCKDB_FILE)) process.stdout.write(`DuckDB's file of the same rows: ${(statSync(DUCKDB_FILE).size / 1e6).toFixed(0)} MB\n`);
  process.stdout.write(
    '\nformat codec  write rows/s  read rows/s   read MB/s  vs v1  cpu ms  reused rows/s  vs v1  cpu ms  fixed MB/s  file MB  ratio  Q1 ms  Q1 reused ms  Q1 dec B/value (decompressed, handed over)\n',
  );
  let baseline = 0;
  let baselineReused = 0;
  const fixedCols = LINEITEM_COLUMNS.filter((c) => !/char|text/.test(String(c.type))).map((c) => c.name);
  const fixedBytes = batches.reduce((a, b) => a + b.columns.filter((c) => c.offsets === null).reduce((x, c) => x + columnBytes(c), 0), 0);
  for (const { format, codec } of configs) {
    const dir = mkdtempSync(join(tmpdir(), 'paxd-bench-'));
    const before = process.env.PAXD_PAX_FORMAT;
    process.env.PAXD_PAX_FORMAT = String(format);
    try {
      const db = await Database.open(dir);
      const t = await db.createTable('lineitem', LINEITEM_COLUMNS, { codec });
      t0 = performance.now();
      const sink = t.sink();
      for (const b of batches) await sink.write(b);
      const r = await sink.commit();
      const writeS = (performance.now() - t0) / 1000;
      await t.refresh();
      const fullScan = (reuseBuffers: boolean) => async () => {
        const scan = t.scan({ reuseBuffers });
        await scan.begin();
        let n = 0;
        for (let b = await scan.next(); b !== null; b = await scan.next()) n += b.length;
        await scan.end();
        if (n !== rows) throw new Error(`read ${n} rows, wrote ${rows}`);
      };
      const readCpu = { s: 0 };
      const readS = await bestOf3(fullScan(false), readCpu);
      const reusedCpu = { s: 0 };
      const reusedS = await bestOf3(fullScan(true), reusedCpu);
      // fixed-width columns only: the decode figure without string materialization
      const fixedS = await bestOf3(async () => {
        const scan = t.scan({ columns: fixedCols });
        await scan.begin();
        for (let b = await scan.next(); b !== null; b = await scan.next());
        await scan.end();
      });
      let q1Selected = 0;
      let decBytes = 0;
      let decValues = 0;
      const q1Scan = (reuseBuffers: boolean) => async () => {
        decodeCounters.reset();
        const scan = t.scan({ columns: Q1_COLUMNS, where: P.le('l_shipdate', Q1_SHIPDATE), reuseBuffers });
        await scan.begin();
        q1Selected = 0;
        for (let b = await scan.next(); b !== null; b = await scan.next()) q1Selected += b.selection === null ? b.length : b.selection.length;
        await scan.end();
        decBytes = decodeCounters.decodedBytes.get('fixed16') ?? 0;
        decValues = decodeCounters.values.get('fixed16') ?? 0;
      };
      const q1S = await bestOf3(q1Scan(false));
      const q1ReusedS = await bestOf3(q1Scan(true));
      if (q1Selected === 0) throw new Error('Q1 selected no rows');
      if (format === 1) {
        baseline = rows / readS;
        baselineReused = rows / reusedS;
      }
      process.stdout.write(
        `v${format}     ${codec.padEnd(5)}  ${fmt(rows / writeS).padStart(12)}  ${fmt(rows / readS).padStart(11)}  ${(decoded / 1e6 / readS).toFixed(0).padStart(10)}  ${(rows / readS / baseline).toFixed(2).padStart(4)}x  ${(readCpu.s * 1000).toFixed(0).padStart(6)}  ${fmt(rows / reusedS).padStart(13)}  ${(rows / reusedS / baselineReused).toFixed(2).padStart(4)}x  ${(reusedCpu.s * 1000).toFixed(0).padStart(6)}  ${(fixedBytes / 1e6 / fixedS).toFixed(0).padStart(10)}  ${(r.bytes / 1e6).toFixed(0).padStart(7)}  ${(decoded / r.bytes).toFixed(2).padStart(5)}  ${(q1S * 1000).toFixed(0).padStart(5)}  ${(q1ReusedS * 1000).toFixed(0).padStart(12)}  ${(decBytes / decValues).toFixed(2)}, 16\n`,
      );
      await db.close();
    } finally {
      if (before === undefined) delete process.env.PAXD_PAX_FORMAT;
      else process.env.PAXD_PAX_FORMAT = before;
      rmSync(dir, { recursive: true, force: true });
    }
  }
  process.stdout.write(`load average at the end ${loadavg().map((x) => x.toFixed(2)).join(' ')}\n`);
}

/** The best of 3 runs' wall seconds; with `cpu`, also the best of their CPU seconds (user + system, this process). */
async function bestOf3(f: () => Promise<void>, cpu?: { s: number }): Promise<number> {
  let best = Infinity;
  let bestCpu = Infinity;
  for (let i = 0; i < 3; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await f();
    best = Math.min(best, (performance.now() - t0) / 1000);
    const c = process.cpuUsage(c0);
    bestCpu = Math.min(bestCpu, (c.user + c.system) / 1e6);
  }
  if (cpu !== undefined) cpu.s = bestCpu;
  return best;
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

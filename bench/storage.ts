/**
 * The storage bench: lineitem at scale factor 1 (override with --sf N) written through the
 * sink and read back in full through the scan, for each codec. Prints write rows/s, read
 * throughput in decoded MB/s and rows/s, and the compression ratio (decoded bytes / file bytes).
 * Generation time is excluded from the write figure: batches are generated first. "fixed MB/s"
 * is the full read of the 11 fixed-width columns alone (decode without string materialization).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../src/table/database.js';
import { columnBytes, type Batch } from '../src/types/column.js';
import { generateLineitem, LINEITEM_COLUMNS } from './lineitem.js';

export async function run(args: string[]): Promise<void> {
  const sfArg = args.indexOf('--sf');
  const sf = sfArg >= 0 ? Number(args[sfArg + 1]) : 1;
  const codecs = (args.includes('--codec') ? [args[args.indexOf('--codec') + 1]!] : ['lz4', 'zstd', 'none']) as ('lz4' | 'zstd' | 'none')[];
  process.stdout.write(`storage bench: lineitem SF ${sf}, node ${process.version}\n`);
  let t0 = performance.now();
  const batches: Batch[] = [...generateLineitem(sf)];
  let rows = 0;
  let decoded = 0;
  for (const b of batches) {
    rows += b.length;
    for (const c of b.columns) decoded += columnBytes(c);
  }
  process.stdout.write(`generated ${rows.toLocaleString('en-US')} rows (${(decoded / 1e6).toFixed(0)} MB of column data) in ${((performance.now() - t0) / 1000).toFixed(1)} s\n\n`);
  process.stdout.write('codec  write rows/s  write MB/s  read rows/s   read MB/s  fixed MB/s  file MB  ratio\n');
  for (const codec of codecs) {
    const dir = mkdtempSync(join(tmpdir(), 'paxd-bench-'));
    try {
      const db = await Database.open(dir);
      const t = await db.createTable('lineitem', LINEITEM_COLUMNS, { codec });
      t0 = performance.now();
      const sink = t.sink();
      for (const b of batches) await sink.write(b);
      const r = await sink.commit();
      const writeS = (performance.now() - t0) / 1000;
      await t.refresh();
      // best of 3 full reads
      let readS = Infinity;
      for (let i = 0; i < 3; i++) {
        t0 = performance.now();
        const scan = t.scan();
        await scan.begin();
        let n = 0;
        for (let b = await scan.next(); b !== null; b = await scan.next()) n += b.length;
        await scan.end();
        readS = Math.min(readS, (performance.now() - t0) / 1000);
        if (n !== rows) throw new Error(`read ${n} rows, wrote ${rows}`);
      }
      // fixed-width columns only: the decode figure without string materialization
      const fixedCols = LINEITEM_COLUMNS.filter((c) => !/char|text/.test(String(c.type))).map((c) => c.name);
      const fixedBytes = batches.reduce((a, b) => a + b.columns.filter((c) => c.offsets === null).reduce((x, c) => x + columnBytes(c), 0), 0);
      let fixedS = Infinity;
      for (let i = 0; i < 3; i++) {
        t0 = performance.now();
        const scan = t.scan({ columns: fixedCols });
        await scan.begin();
        for (let b = await scan.next(); b !== null; b = await scan.next());
        await scan.end();
        fixedS = Math.min(fixedS, (performance.now() - t0) / 1000);
      }
      process.stdout.write(
        `${codec.padEnd(5)}  ${fmt(rows / writeS).padStart(12)}  ${(decoded / 1e6 / writeS).toFixed(0).padStart(10)}  ${fmt(rows / readS).padStart(11)}  ${(decoded / 1e6 / readS).toFixed(0).padStart(10)}  ${(fixedBytes / 1e6 / fixedS).toFixed(0).padStart(10)}  ${(r.bytes / 1e6).toFixed(0).padStart(7)}  ${(decoded / r.bytes).toFixed(2).padStart(5)}\n`,
      );
      await db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/**
 * The S3 bench (README.md "Tables in S3"): lineitem (SF 0.1 by default; --sf N) written once to the local
 * store and once to an s3rver on loopback (started here, as the tests start it), then a
 * projected scan of 3 of its 16 columns (l_orderkey, l_extendedprice, l_shipdate) read back
 * from each. Prints rows/s, decoded MB/s, and the bytes and requests the scan fetched from
 * the store, next to the table's size: a projected scan should fetch about its columns'
 * share of the file bytes and no more. S3 scans are cold (a new store, so an empty cache);
 * best of --runs N (default 3).
 *
 *   npm run bench -- s3 [--sf 0.1] [--runs 3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../src/table/database.js';
import { LocalStore } from '../src/storage/local.js';
import { S3Store } from '../src/storage/s3.js';
import { ForwardingStore } from '../src/storage/forwarding.js';
import type { ObjectStore } from '../src/storage/store.js';
import { columnBytes, type Batch } from '../src/types/column.js';
import { startS3 } from '../test/support/s3.js';
import { generateLineitem, LINEITEM_COLUMNS } from './lineitem.js';

const PROJECTION = ['l_orderkey', 'l_extendedprice', 'l_shipdate'];

/** Counts what reads fetch from any store. */
class CountingStore extends ForwardingStore {
  bytes = 0;
  reads = 0;
  override async read(path: string, offset?: number, length?: number): Promise<Uint8Array> {
    const b = await this.inner.read(path, offset, length);
    this.reads++;
    this.bytes += b.byteLength;
    return b;
  }
}

interface ScanFigures {
  seconds: number;
  rows: number;
  decoded: number;
  /** Bytes returned by store reads (cache hits included) and by HTTP GETs (S3 only). */
  readBytes: number;
  reads: number;
  httpBytes: number | null;
  gets: number | null;
}

async function projectedScan(open: () => ObjectStore): Promise<ScanFigures> {
  const counting = new CountingStore(open());
  const db = await Database.open(counting);
  const t = await db.table('lineitem');
  const t0 = performance.now();
  const scan = t.scan({ columns: PROJECTION });
  await scan.begin();
  let rows = 0;
  let decoded = 0;
  for (let b = await scan.next(); b !== null; b = await scan.next()) {
    rows += b.selection ? b.selection.length : b.length;
    for (const c of b.columns) decoded += columnBytes(c);
  }
  await scan.end();
  const seconds = (performance.now() - t0) / 1000;
  const s3 = counting.inner instanceof S3Store ? counting.inner.metrics : null;
  await db.close();
  return { seconds, rows, decoded, readBytes: counting.bytes, reads: counting.reads, httpBytes: s3?.bytesFetched ?? null, gets: s3?.gets ?? null };
}

export async function run(args: string[]): Promise<void> {
  const opt = (name: string, d: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : d);
  const sf = opt('--sf', 0.1);
  const runs = opt('--runs', 3);
  process.stdout.write(`s3 bench: lineitem SF ${sf}, projected scan of ${PROJECTION.join(', ')}, best of ${runs}, node ${process.version}\n`);
  const batches: Batch[] = [...generateLineitem(sf)];
  const rows = batches.reduce((a, b) => a + b.length, 0);

  const dir = mkdtempSync(join(tmpdir(), 'paxd-bench-s3-'));
  const s3 = await startS3();
  try {
    const targets: { name: string; open: () => ObjectStore }[] = [
      { name: 'local', open: () => new LocalStore(dir) },
      { name: 's3rver', open: () => S3Store.fromUri(s3.uri('bench')) },
    ];
    process.stdout.write(`${rows.toLocaleString('en-US')} rows\n\n`);
    process.stdout.write('store    write s  table MB  scan rows/s  decoded MB/s  fetched MB  of table  reads  HTTP GETs\n');
    for (const target of targets) {
      const store = target.open();
      const db = await Database.open(store);
      const t = await db.createTable('lineitem', LINEITEM_COLUMNS);
      const t0 = performance.now();
      const sink = t.sink();
      for (const b of batches) await sink.write(b);
      await sink.commit();
      const writeS = (performance.now() - t0) / 1000;
      await t.refresh();
      const tableBytes = t.info().bytes;
      await db.close();
      let best: ScanFigures | null = null;
      for (let i = 0; i < runs; i++) {
        const f = await projectedScan(target.open);
        if (f.rows !== rows) throw new Error(`${target.name}: scan read ${f.rows} rows, wrote ${rows}`);
        if (best === null || f.seconds < best.seconds) best = f;
      }
      const f = best!;
      const fetched = f.httpBytes ?? f.readBytes;
      process.stdout.write(
        [
          target.name.padEnd(7),
          writeS.toFixed(2).padStart(8),
          (tableBytes / 1e6).toFixed(1).padStart(9),
          Math.round(f.rows / f.seconds).toLocaleString('en-US').padStart(12),
          (f.decoded / 1e6 / f.seconds).toFixed(0).padStart(13),
          (fetched / 1e6).toFixed(2).padStart(11),
          `${((100 * fetched) / tableBytes).toFixed(1)}%`.padStart(9),
          String(f.reads).padStart(6),
          (f.gets === null ? '-' : String(f.gets)).padStart(10),
        ].join(' ') + '\n',
      );
    }
  } finally {
    await s3.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

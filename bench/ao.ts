/**
 * The ao_column bench (docs/FORMAT.md "ao_column segments"): a 200-column table (int8, float8 and text
 * columns in turn; --rows N, 200,000 by default) stored in both layouts, then 2 of its
 * columns read back. Reports, per layout, what the read touched at the store: objects
 * opened, bytes read, ranged reads, and the time. ao_column reads only the 2 columns'
 * segments; PAX reads the 2 columns' chunks plus each file's footer (which describes all 200).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../src/table/database.js';
import { LocalStore } from '../src/storage/local.js';
import { ForwardingStore } from '../src/storage/forwarding.js';
import { columnOf } from '../src/types/builder.js';
import type { Batch, Column } from '../src/types/column.js';

const COLUMNS = 200;
const READ = ['c1', 'c101'];

/** A store that counts what is read through it. */
class CountingStore extends ForwardingStore {
  readonly paths = new Set<string>();
  bytes = 0;
  reads = 0;
  reset(): void {
    this.paths.clear();
    this.bytes = 0;
    this.reads = 0;
  }
  override async read(path: string, offset?: number, length?: number): Promise<Uint8Array> {
    const b = await this.inner.read(path, offset, length);
    if (!path.includes('/_snapshots/')) {
      this.paths.add(path);
      this.bytes += b.byteLength;
      this.reads++;
    }
    return b;
  }
}

function typeOf(c: number): string {
  return ['int8', 'float8', 'text'][c % 3]!;
}

function batch(start: number, n: number): Batch {
  const columns: Column[] = [];
  for (let c = 0; c < COLUMNS; c++) {
    const t = typeOf(c);
    if (t === 'int8') columns.push(columnOf({ id: 'int8' }, Array.from({ length: n }, (_, i) => BigInt((start + i) * (c + 1)))));
    else if (t === 'float8') columns.push(columnOf({ id: 'float8' }, Array.from({ length: n }, (_, i) => ((start + i) % 1000) / 7 + c)));
    else columns.push(columnOf({ id: 'text' }, Array.from({ length: n }, (_, i) => ((start + i) % 11 === 0 ? null : `v${(start + i) % 5000}-${c}`))));
  }
  return { length: n, columns, selection: null };
}

export async function run(args: string[]): Promise<void> {
  const rowsArg = args.indexOf('--rows');
  const rows = rowsArg >= 0 ? Number(args[rowsArg + 1]) : 200_000;
  const appendsArg = args.indexOf('--appends');
  const appends = appendsArg >= 0 ? Number(args[appendsArg + 1]) : 4;
  process.stdout.write(`ao bench: ${COLUMNS} columns, ${rows.toLocaleString('en-US')} rows in ${appends} appends, reading ${READ.join(', ')}; node ${process.version}\n\n`);
  process.stdout.write('layout     write s  table MB  objects read  ranged reads  MB read  read ms  rows/s read\n');
  for (const layout of ['ao_column', 'pax'] as const) {
    const dir = mkdtempSync(join(tmpdir(), 'paxd-bench-ao-'));
    try {
      const store = new CountingStore(new LocalStore(dir));
      const db = await Database.open(store);
      const t = await db.createTable('wide', Array.from({ length: COLUMNS }, (_, c) => ({ name: `c${c + 1}`, type: typeOf(c) })), { layout });
      let t0 = performance.now();
      const per = Math.ceil(rows / appends);
      for (let at = 0; at < rows; at += per) {
        const sink = t.sink();
        for (let b = at; b < Math.min(rows, at + per); b += 10_000) await sink.write(batch(b, Math.min(10_000, rows - b, at + per - b)));
        await sink.commit();
      }
      const writeS = (performance.now() - t0) / 1000;
      await t.refresh();
      const tableBytes = t.info().bytes;
      store.reset();
      t0 = performance.now();
      const scan = t.scan({ columns: READ });
      await scan.begin();
      let n = 0;
      for (let b = await scan.next(); b !== null; b = await scan.next()) n += b.selection === null ? b.length : b.selection.length;
      await scan.end();
      const ms = performance.now() - t0;
      if (n !== rows) throw new Error(`${layout}: read ${n} rows, expected ${rows}`);
      process.stdout.write(
        `${layout.padEnd(9)} ${writeS.toFixed(1).padStart(8)} ${(tableBytes / 1e6).toFixed(1).padStart(9)} ${String(store.paths.size).padStart(13)} ${String(store.reads).padStart(13)} ${(store.bytes / 1e6).toFixed(2).padStart(8)} ${ms.toFixed(0).padStart(8)} ${Math.round(rows / (ms / 1000)).toLocaleString('en-US').padStart(12)}\n`,
      );
      if (layout === 'ao_column') process.stdout.write(`           objects read: ${[...store.paths].map((p) => p.slice('wide/'.length)).sort().join(', ')}\n`);
      await db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

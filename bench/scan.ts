/**
 * The scan bench (docs/ARCHITECTURE.md "Scans that skip"): `npm run bench -- scan [--rows N] [--keep DIR]`.
 *
 * Generates a table of N rows (100,000,000 by default) — `ts timestamp` in ascending order
 * (one row per millisecond) and `r int4` uniformly random — straight into typed arrays, ingests
 * it through the sink (default row groups of 131,072 rows), and prints:
 *
 *   1. count(*), min(ts), max(ts), sum(r) — answered from statistics (target: < 5 ms);
 *   2. ORDER BY ts DESC LIMIT 10 — groups read (target: ≤ 2% of groups);
 *   3. ORDER BY r DESC LIMIT 10 — checked against the top 10 kept while generating;
 *   4. sum(r), count(*) WHERE ts in a 1% window — groups skipped, answered, read; checked.
 *
 * Times are the best of several runs on the pinned snapshot (no data-file cache is kept
 * between runs other than the operating system's).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../src/table/database.js';
import type { Batch, Column } from '../src/types/column.js';
import { P } from '../src/scan/predicate.js';
import type { ScanStats } from '../src/scan/reader.js';

const T0_US = 1_700_000_000_000_000; // 2023-11-14, as µs since 1970 (exact in a double)
const STEP_US = 1000;

export async function run(args: string[]): Promise<void> {
  const arg = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const rows = Number(arg('--rows') ?? 100_000_000);
  const keep = arg('--keep');
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'paxd-bench-scan-'));
  const out = (s: string) => process.stdout.write(s + '\n');
  out(`scan bench: ${rows.toLocaleString('en-US')} rows (ts timestamp ordered, r int4 random), node ${process.version}, data in ${dir}`);
  try {
    const db = await Database.open(dir);
    let t = await db.createTable('events', [{ name: 'ts', type: 'timestamp', notNull: true }, { name: 'r', type: 'int4', notNull: true }]).catch(async () => db.table('events'));
    const groupRows = t.snapshot.options.rowGroupRows;
    // expected answers, kept while generating
    const top = new Int32Array(10).fill(-1);
    const lo = Math.floor(rows * 0.42);
    const hi = lo + Math.floor(rows / 100);
    let windowSum = 0n;
    let total = 0n;
    let x = 0x9e3779b9;
    let t0 = performance.now();
    if (t.info().rows === 0) {
      const sink = t.sink();
      for (let start = 0; start < rows; start += groupRows) {
        const n = Math.min(groupRows, rows - start);
        const ts = new BigInt64Array(n);
        const w = new Int32Array(ts.buffer);
        const r = new Int32Array(n);
        let part = 0;
        let winPart = 0;
        for (let i = 0; i < n; i++) {
          const v = T0_US + (start + i) * STEP_US;
          w[2 * i] = v % 4294967296;
          w[2 * i + 1] = Math.floor(v / 4294967296);
          x ^= x << 13;
          x ^= x >>> 17;
          x ^= x << 5;
          const rv = (x >>> 1) % 1_000_000_000;
          r[i] = rv;
          part += rv;
          if (start + i >= lo && start + i <= hi) winPart += rv;
          if (rv > top[9]!) {
            let k = 9;
            while (k > 0 && top[k - 1]! < rv) {
              top[k] = top[k - 1]!;
              k--;
            }
            top[k] = rv;
          }
        }
        total += BigInt(part);
        windowSum += BigInt(winPart);
        const batch: Batch = { length: n, columns: [column({ id: 'timestamp' }, n, ts), column({ id: 'int4' }, n, r)], selection: null };
        await sink.write(batch);
        if (start % (groupRows * 64) === 0 && process.stdout.isTTY) process.stdout.write(`\r  ingesting: ${((start / rows) * 100).toFixed(0)}%`);
      }
      const c = await sink.commit();
      const s = (performance.now() - t0) / 1000;
      out(`${process.stdout.isTTY ? '\r' : ''}generated and ingested in ${s.toFixed(1)} s (${Math.round(rows / s).toLocaleString('en-US')} rows/s), ${c.groups} groups, ${(c.bytes / 1e6).toFixed(0)} MB`);
      await t.refresh();
    } else {
      out('(reusing the table in --keep; answers not checked)');
      top.fill(-1);
    }
    t = await db.table('events');
    const groups = t.info().groups;
    out('');
    out('query                                               best ms  groups: total  skipped(pred)  skipped(bound)  from stats  read');
    const line = (q: string, ms: number, s: ScanStats) =>
      out(`${q.padEnd(50)} ${ms.toFixed(2).padStart(8)}  ${String(s.groupsTotal).padStart(13)}  ${String(s.groupsSkippedByPredicate).padStart(13)}  ${String(s.groupsSkippedByBound).padStart(14)}  ${String(s.groupsAnsweredFromStats).padStart(10)}  ${String(s.groupsRead).padStart(4)}`);
    const best = async <T>(runs: number, f: () => Promise<T>): Promise<{ ms: number; r: T }> => {
      let ms = Infinity;
      let r!: T;
      for (let i = 0; i < runs; i++) {
        t0 = performance.now();
        r = await f();
        ms = Math.min(ms, performance.now() - t0);
      }
      return { ms, r };
    };

    const a = await best(20, () => t.aggregate([{ fn: 'count_star' }, { fn: 'min', column: 'ts' }, { fn: 'max', column: 'ts' }, { fn: 'sum', column: 'r' }]));
    line('count(*), min(ts), max(ts), sum(r)', a.ms, a.r.stats);
    check(a.r.values[0] === BigInt(rows), `count(*) = ${a.r.values[0]}`);
    check(a.r.values[2] === BigInt(T0_US + (rows - 1) * STEP_US), `max(ts) = ${a.r.values[2]}`);
    if (total > 0n) check(a.r.values[3] === total, `sum(r) = ${a.r.values[3]}, expected ${total}`);
    check(a.ms < 5, `answered in ${a.ms.toFixed(2)} ms (target < 5 ms)`);

    const tn = await best(5, () => t.topN({ orderBy: [{ column: 'ts', desc: true }], limit: 10, columns: ['ts'] }));
    line('ORDER BY ts DESC LIMIT 10', tn.ms, tn.r.stats);
    const pct = (tn.r.stats.groupsRead / groups) * 100;
    check(tn.r.columns[0]!.length === 10 && (tn.r.columns[0]!.values as BigInt64Array)[0] === BigInt(T0_US + (rows - 1) * STEP_US), 'newest row first');
    check(pct <= 2, `read ${tn.r.stats.groupsRead} of ${groups} groups = ${pct.toFixed(2)}% (target ≤ 2%)`);

    const tr = await best(3, () => t.topN({ orderBy: [{ column: 'r', desc: true }], limit: 10, columns: ['r'] }));
    line('ORDER BY r DESC LIMIT 10', tr.ms, tr.r.stats);
    const got = Array.from(tr.r.columns[0]!.values as Int32Array);
    if (top[0]! >= 0) check(got.join() === Array.from(top).join(), `top 10 of r: ${got.join(', ')}`);
    out(`  r: read ${tr.r.stats.groupsRead} of ${groups} groups (${((tr.r.stats.groupsRead / groups) * 100).toFixed(1)}%), zones skipped by bound ${tr.r.stats.zonesSkippedByBound}, rows examined ${tr.r.stats.rowsRead.toLocaleString('en-US')}`);

    const where = P.between('ts', BigInt(T0_US + lo * STEP_US), BigInt(T0_US + hi * STEP_US));
    const fs = await best(5, () => t.aggregate([{ fn: 'sum', column: 'r' }, { fn: 'count_star' }], where));
    line('sum(r), count(*) WHERE ts in a 1% window', fs.ms, fs.r.stats);
    check(fs.r.values[1] === BigInt(hi - lo + 1), `count = ${fs.r.values[1]}`);
    if (windowSum > 0n) check(fs.r.values[0] === windowSum, `sum = ${fs.r.values[0]}, expected ${windowSum}`);
    check(fs.r.stats.groupsSkippedByPredicate > 0, 'groups skipped by the time predicate');

    const sc = await best(3, () => {
      const s = t.scan({ columns: ['r'], where });
      return (async () => {
        await s.begin();
        let n = 0;
        for (let b = await s.next(); b !== null; b = await s.next()) n += b.selection?.length ?? b.length;
        await s.end();
        return { n, stats: s.stats };
      })();
    });
    line('scan r WHERE ts in a 1% window (rows out)', sc.ms, sc.r.stats);
    await db.close();
  } finally {
    if (keep === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

function column(type: Column['type'], n: number, values: Column['values']): Column {
  return { type, length: n, nullCount: 0, validity: null, values, offsets: null, data: null };
}

function check(ok: boolean, what: string): void {
  process.stdout.write(`  ${ok ? 'ok  ' : 'FAIL'} ${what}\n`);
  if (!ok) process.exitCode = 1;
}

/**
 * The inbox bench (docs/DAEMON.md): `paxd serve`'s inbox (in process, no wire or
 * HTTP) fed a stream of small files and then a few large ones. Reports, for each, sustained
 * files/s, rows/s and MB/s from the first file dropped to the last one moved to .done, the
 * commits it took, and the table's data-file count before and after background compaction.
 *
 *   npm run bench -- inbox                                  10,000 files of 100 rows; 4 of 1M rows
 *   npm run bench -- inbox --small 2000 --small-rows 50 --large 2 --large-rows 200000
 */
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../src/table/database.js';
import { parseColumns } from '../src/types/parse-type.js';
import { Daemon, defaultConfig, createLogger } from '../src/daemon/index.js';

interface Phase {
  files: number;
  rowsPerFile: number;
}

function option(args: string[], name: string, dflt: number): number {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const n = Number(args[i + 1]);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} needs a non-negative integer`);
  return n;
}

/** CSV of `rows` rows (id, name, v) with a header line. */
function csv(seq: number, rows: number): Buffer {
  const lines = ['id,name,v'];
  for (let i = 0; i < rows; i++) lines.push(`${seq * 10_000_000 + i},name-${i % 977},${(i * 7919) % 100_003}`);
  return Buffer.from(lines.join('\n') + '\n');
}

export async function run(args: string[], out: (s: string) => void = (s) => process.stdout.write(s)): Promise<void> {
  const small: Phase = { files: option(args, '--small', 10_000), rowsPerFile: option(args, '--small-rows', 100) };
  const large: Phase = { files: option(args, '--large', 4), rowsPerFile: option(args, '--large-rows', 1_000_000) };
  const root = mkdtempSync(join(tmpdir(), 'paxd-bench-inbox-'));
  try {
    const data = join(root, 'data');
    const inbox = join(root, 'in');
    const staging = join(root, 'staging');
    mkdirSync(staging, { recursive: true });
    const db = await Database.open(data);
    for (const t of ['small', 'large']) {
      await db.createTable(t, parseColumns('id int8 not null, name text, v int8'));
      mkdirSync(join(inbox, t), { recursive: true });
    }
    await db.close();
    const d = await Daemon.start(
      { ...defaultConfig(), store: data, listen: 'off', http: 'off', inbox, inbox_stable_ms: 50, compact_interval_ms: 0, vacuum_interval_ms: 0 },
      { log: createLogger(args.includes('--quiet') ? 'silent' : 'warn'), out: () => undefined },
    );
    try {
      for (const [table, phase] of [['small', small], ['large', large]] as const) {
        if (phase.files === 0) continue;
        // Files are made first (not timed), then renamed in as fast as they can be.
        const names: string[] = [];
        let bytes = 0;
        for (let i = 0; i < phase.files; i++) {
          const name = `f${String(i).padStart(6, '0')}.csv`;
          const b = csv(i, phase.rowsPerFile);
          bytes += b.byteLength;
          writeFileSync(join(staging, name), b);
          names.push(name);
        }
        const before = (await (await Database.open(data)).table(table)).snapshot.id;
        const started = performance.now();
        for (const n of names) renameSync(join(staging, n), join(inbox, table, n));
        const done = join(inbox, table, '.done');
        for (;;) {
          let n = 0;
          try {
            n = readdirSync(done).length;
          } catch {
            // not there yet
          }
          if (n === phase.files) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        const seconds = (performance.now() - started) / 1000;
        const t = await d.db.table(table);
        const rows = t.rows;
        if (rows !== phase.files * phase.rowsPerFile) throw new Error(`${table}: ${rows} rows, expected ${phase.files * phase.rowsPerFile}`);
        const commits = t.snapshot.id - before;
        const filesBefore = t.info().files;
        await t.compact();
        out(
          `${table}: ${phase.files} files × ${phase.rowsPerFile} rows (${(bytes / 1e6).toFixed(1)} MB CSV) in ${seconds.toFixed(2)} s: ` +
            `${Math.round(phase.files / seconds)} files/s, ${Math.round(rows / seconds)} rows/s, ${(bytes / 1e6 / seconds).toFixed(1)} MB/s; ` +
            `${commits} commits; data files ${filesBefore} → ${t.info().files} after compaction\n`,
        );
      }
    } finally {
      await d.stop();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

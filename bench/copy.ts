/**
 * `npm run bench -- wire --only copy [--sf 0.1] [--runs 3] [--chunk 65536]` (or `-- copy`; the first part of `-- wire`): the same lineitem CSV file
 * loaded by `paxd ingest` (a child process; the time is the one it reports, without process
 * start-up) and by COPY lineitem FROM STDIN (FORMAT csv) over the wire into `paxd serve` (a
 * fresh child process per run, like the ingest; timed from the COPY query), the file streamed
 * in CopyData messages of --chunk bytes with the socket's backpressure respected. Both go
 * through the one CSV tokenizer (src/insert/csv); the target is COPY within 20% of ingest's
 * rows/s. Prints rows/s per run and the medians' ratio; results go to bench/results/copy-*.json.
 *
 * The client (this process) and the server share the machine's cores, which the output says.
 */
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Database } from '../src/table/database.js';
import { RawClient, errorFieldsOf, fe, splitReplies } from '../test/pgwire/client.js';
import { LINEITEM_COLUMNS } from './lineitem.js';
import { ensureLineitemCsv } from './lineitem-csv.js';
import { saveResults, startPaxd } from './support.js';

const out = (s: string) => process.stdout.write(s + '\n');
const log = (s: string) => process.stderr.write(s + '\n');
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** COPY within this fraction of ingest's rows/s is the target. */
const TARGET = 0.8;

export async function run(args: string[]): Promise<void> {
  const value = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const sf = Number(value('--sf') ?? 0.1);
  const runs = Math.floor(Number(value('--runs') ?? 3));
  const chunk = Math.floor(Number(value('--chunk') ?? 65536));
  if (!(sf > 0) || !(runs > 0) || !(chunk > 0)) throw new RangeError('--sf, --runs and --chunk must be positive numbers');
  const csv = await ensureLineitemCsv(sf, { log });
  out(`copy bench: lineitem SF ${sf} (${fmt(csv.rows)} rows, ${(csv.bytes / 1e6).toFixed(0)} MB), ${runs} run(s), CopyData of ${fmt(chunk)} bytes; node ${process.version}, ${cpus().length} cores shared by client and server`);

  const ingest: number[] = [];
  const copy: number[] = [];
  for (let r = 0; r < runs; r++) {
    ingest.push(await timeIngest(csv.path, csv.rows));
    log(`  paxd ingest:          ${fmt(csv.rows / ingest.at(-1)!)} rows/s (${ingest.at(-1)!.toFixed(2)} s)`);
    copy.push(await timeCopy(csv.path, csv.rows, chunk));
    log(`  COPY FROM STDIN csv:  ${fmt(csv.rows / copy.at(-1)!)} rows/s (${copy.at(-1)!.toFixed(2)} s)`);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ingestRate = csv.rows / median(ingest);
  const copyRate = csv.rows / median(copy);
  const ratio = copyRate / ingestRate;
  out(`${'path'.padEnd(28)} ${'median s'.padStart(9)} ${'rows/s'.padStart(12)}`);
  out(`${'paxd ingest (CSV file)'.padEnd(28)} ${median(ingest).toFixed(2).padStart(9)} ${fmt(ingestRate).padStart(12)}`);
  out(`${'COPY FROM STDIN (csv)'.padEnd(28)} ${median(copy).toFixed(2).padStart(9)} ${fmt(copyRate).padStart(12)}`);
  out(`COPY / ingest: ${ratio.toFixed(2)}× (target ≥ ${TARGET}: ${ratio >= TARGET ? 'met' : 'missed'})`);
  saveResults('copy', { sf, rows: csv.rows, bytes: csv.bytes, chunk, node: process.version, cores: cpus().length, ingestSeconds: ingest, copySeconds: copy, ingestRowsPerSecond: ingestRate, copyRowsPerSecond: copyRate, ratio });
}

/** `paxd ingest lineitem FILE` in a child process; the seconds of its own summary line. */
async function timeIngest(path: string, rows: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'paxd-copy-bench-'));
  try {
    const db = await Database.open(dir);
    await db.createTable('lineitem', LINEITEM_COLUMNS);
    await db.close();
    const cli = fileURLToPath(new URL('../test/support/cli.ts', import.meta.url));
    const r = spawnSync(process.execPath, ['--import', 'tsx', cli, 'ingest', 'lineitem', path, '--format', 'csv', '--verbose', '--data', dir], { encoding: 'utf8' });
    // ingested 600,308 rows into lineitem in 4.29 s (…)
    const m = /ingested ([\d,]+) rows into lineitem in ([\d.]+) s/.exec(r.stdout);
    if (r.status !== 0 || m === null) throw new Error(`paxd ingest failed (${r.status}): ${r.stderr}${r.stdout}`);
    if (Number(m[1]!.replace(/,/g, '')) !== rows) throw new Error(`paxd ingest loaded ${m[1]} rows, the file has ${rows}`);
    return Number(m[2]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function timeCopy(path: string, rows: number, chunk: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'paxd-copy-bench-'));
  const db = await Database.open(dir);
  try {
    await db.createTable('lineitem', LINEITEM_COLUMNS);
  } finally {
    await db.close();
  }
  const paxd = await startPaxd(dir);
  try {
    const c = await RawClient.session(paxd.port);
    try {
      const t0 = performance.now();
      c.send(fe.query('COPY lineitem FROM STDIN (FORMAT csv)'));
      await c.until((b) => splitReplies(b).some((r) => r.code === 'G' || r.code === 'E'));
      for await (const piece of createReadStream(path, { highWaterMark: chunk })) {
        if (!c.socket.write(fe.copyData(piece as Buffer))) await new Promise((resolve) => c.socket.once('drain', resolve));
      }
      c.send(fe.copyDone());
      const replies = await c.untilReady(1, 3_600_000);
      const s = (performance.now() - t0) / 1000;
      const e = replies.find((r) => r.code === 'E');
      if (e !== undefined) throw new Error(`COPY failed: ${JSON.stringify(errorFieldsOf(e.body))}`);
      const tag = replies.find((r) => r.code === 'C')!.body.toString('utf8').replace(/\0$/, '');
      if (tag !== `COPY ${rows}`) throw new Error(`COPY answered ${tag}, the file has ${rows} rows`);
      return s;
    } finally {
      c.end();
    }
  } finally {
    await paxd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

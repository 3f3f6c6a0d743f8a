/**
 * A child process for memory measurements: ingests one file into a fresh `lineitem` table in
 * a temporary store and prints one JSON line with the figures, including the process's peak
 * resident set size (process.resourceUsage().maxRSS, the kernel's high-water mark for this
 * process alone, so the parent's memory never counts).
 *
 *   node --import tsx bench/rss.ts FILE [csv|arrow]
 *   {"rows":40201234,"seconds":61.2,"rowsPerSecond":656890,"maxRssBytes":412000000,"storeBytes":…}
 *
 * `measureIngestRss` runs it from the ingest bench.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Database } from '../src/table/database.js';
import { ingestFiles } from '../src/table/ingest.js';
import type { Format } from '../src/insert/formats.js';
import { LINEITEM_COLUMNS } from './lineitem.js';

export interface RssResult {
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  /** Peak RSS of the ingesting process, in bytes. */
  maxRssBytes: number;
  /** Bytes committed to the store. */
  storeBytes: number;
  inputBytes: number;
}

/** Runs this file as a child process on `file` and resolves with what it printed. */
export function measureIngestRss(file: string, format: Format, onProgress?: (line: string) => void): Promise<RssResult> {
  const self = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    // cwd: the repository, where `--import tsx` resolves
    const cwd = fileURLToPath(new URL('..', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', self, file, format], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      err += s;
      for (const line of s.split('\n')) if (line.trim() !== '') onProgress?.(line.trim());
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code !== 0) return reject(new Error(`bench/rss.ts ${file} exited with ${code ?? signal}: ${err.trim().split('\n').slice(-5).join(' | ')}`));
      const last = out.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(last) as RssResult);
      } catch {
        reject(new Error(`bench/rss.ts printed no result (stdout: ${JSON.stringify(out.slice(-500))})`));
      }
    });
  });
}

async function main(file: string, format: Format): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'paxd-rss-'));
  try {
    const db = await Database.open(dir);
    const table = await db.createTable('lineitem', LINEITEM_COLUMNS);
    let lastReport = 0;
    const r = await ingestFiles(table, [file], {
      format,
      onProgress: (p) => {
        // to stderr, every 10 s: the parent relays it so a long run shows it is alive
        if (p.seconds - lastReport < 10) return;
        lastReport = p.seconds;
        const rss = process.memoryUsage.rss();
        process.stderr.write(`${p.seconds.toFixed(0)} s: ${p.rows.toLocaleString('en-US')} rows, ${(p.bytes / 1e9).toFixed(2)} GB read, RSS ${(rss / 1e6).toFixed(0)} MB\n`);
      },
    });
    await db.close();
    const result: RssResult = {
      rows: r.rowsLoaded,
      seconds: r.seconds,
      rowsPerSecond: r.rowsLoaded / r.seconds,
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
      storeBytes: r.commit.bytes,
      inputBytes: statSync(file).size,
    };
    process.stdout.write(JSON.stringify(result) + '\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [file, format = 'csv'] = process.argv.slice(2);
  if (file === undefined) {
    process.stderr.write('usage: node --import tsx bench/rss.ts FILE [csv|arrow]\n');
    process.exit(2);
  }
  await main(file, format as Format);
}

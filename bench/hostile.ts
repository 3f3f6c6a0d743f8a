/**
 * `npm run bench -- hostile`: what one heavy statement or load costs the other sessions of
 * `paxd serve` (issue #18): a second session's `select 1` (and `/health`) every 20 ms while
 *
 *   lists     a 100,000-value IN list, a 100,000-row VALUES and a 100,000-element ARRAY[…] run
 *             (--runs N each, 3): their time, and the probe's p50 / p99 / max meanwhile;
 *   uploads   --uploads N (8) concurrent chunked CSV uploads of --mb M (20) MB each to
 *             /v1/tables/t/rows: their time, every row committed, /health and select 1 p50 / p99 / max.
 *
 * The daemon runs with a 1 GB heap, as the hostile suites run it (test/hostile/daemon.ts).
 * Figures depend on the machine's load: run both sides of a comparison back to back, and say
 * the load (printed). PAXD_BENCH_SERVE_NODE_ARGS adds node options to the server
 * (`--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import { request } from 'node:http';
import { loadavg } from 'node:os';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { Database } from '../src/table/database.js';
import { columnOf, parseColumns, type Value } from '../src/types/index.js';
import { connect, percentiles, serveLimited, type Limited } from '../test/hostile/daemon.js';
import { tempDir } from '../test/support/tmp.js';
import { saveResults } from './support.js';

const PROBE_EVERY_MS = 20;

function option(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(args[i + 1]);
}

const fmt = (x: ReturnType<typeof percentiles>) => `p50 ${x.p50.toFixed(1)} p99 ${x.p99.toFixed(1)} max ${x.max.toFixed(1)} ms (${x.n})`;
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

/** Runs `f` every PROBE_EVERY_MS until `running()` is false; each run's ms. */
async function probe(f: () => Promise<unknown>, running: () => boolean): Promise<number[]> {
  const ms: number[] = [];
  while (running()) {
    const t0 = performance.now();
    await f();
    ms.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
  }
  return ms;
}

async function serve(dir: string, http: boolean): Promise<Limited> {
  const nodeArgs = (process.env.PAXD_BENCH_SERVE_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  return serveLimited(dir, { heapMb: 1024, http, nodeArgs, env: { PAXD_MAX_INFLIGHT_BODY_BYTES: String(4 * 1024 ** 3), PAXD_LOG_LEVEL: 'warn' } });
}

async function lists(runs: number): Promise<Record<string, unknown>> {
  const dir = tempDir();
  const db = await Database.open(dir);
  const t = await db.createTable('a', parseColumns('id int4, s text'));
  const ids: Value[] = Array.from({ length: 20_000 }, (_v, i) => i);
  const sink = t.sink();
  await sink.write({ length: ids.length, columns: [columnOf({ id: 'int4' }, ids), columnOf({ id: 'text' }, ids.map(String))], selection: null });
  await sink.commit();
  await db.close();
  const d = await serve(dir, false);
  const out: Record<string, unknown> = {};
  try {
    const list = Array.from({ length: 100_000 }, (_v, i) => i * 3).join(',');
    const cases: [string, string][] = [
      ['100,000-value IN list', `select count(*) from a where id in (${list})`],
      ['100,000-row VALUES', `select count(*), sum(x) from (values ${Array.from({ length: 100_000 }, (_v, i) => `(${i})`).join(',')}) v(x)`],
      ['100,000-element ARRAY[…]', `select cardinality(array[${list}])`],
    ];
    const mine: pg.Client = await connect(d.wirePort, 'paxd');
    const other: pg.Client = await connect(d.wirePort, 'paxd');
    for (const [name, sql] of cases) {
      const took: number[] = [];
      let running = true;
      const probes = probe(() => other.query('select 1'), () => running);
      for (let r = 0; r < runs; r++) {
        const t0 = performance.now();
        await mine.query(sql);
        took.push(performance.now() - t0);
      }
      running = false;
      const p = percentiles(await probes);
      console.log(`${name}: ${took.map((x) => x.toFixed(0)).join(', ')} ms; select 1 meanwhile ${fmt(p)}; load ${load()}`);
      out[name] = { ms: took, probe: p };
    }
    await Promise.all([mine.end(), other.end()]);
  } finally {
    await d.stop();
  }
  return out;
}

/** A CSV body of about `bytes` bytes of rows (id, 177 letters, id) from id `first`. */
function csvBody(bytes: number, first: number): { stream: Readable; rows: number } {
  const row = (id: number) => `${id},${'the quick brown fox jumps over the lazy dog '.repeat(4).slice(0, 177)},${id}\n`;
  const size = Buffer.byteLength(row(first));
  const perBlock = Math.floor((1024 * 1024) / size);
  const rows = Math.max(1, Math.floor(bytes / size));
  let sent = 0;
  const stream = new Readable({
    read() {
      if (sent >= rows) return void this.push(null);
      const n = Math.min(perBlock, rows - sent);
      this.push(Buffer.from(Array.from({ length: n }, (_v, i) => row(first + sent + i)).join('')));
      sent += n;
    },
  });
  return { stream, rows };
}

async function uploads(n: number, mb: number): Promise<Record<string, unknown>> {
  const dir = tempDir();
  const db = await Database.open(dir);
  await db.createTable('t', parseColumns('id int8, name text, v int8'));
  await db.close();
  const d = await serve(dir, true);
  try {
    const base = `http://127.0.0.1:${d.httpPort}`;
    const wire = await connect(d.wirePort, 'paxd');
    let running = true;
    const health = probe(async () => (await fetch(`${base}/health`)).arrayBuffer(), () => running);
    const select1 = probe(() => wire.query('select 1'), () => running);
    const t0 = performance.now();
    const sent = await Promise.all(
      Array.from({ length: n }, (_v, i) => {
        const body = csvBody(mb * 1024 * 1024, 1_000_000_000 + i * 10_000_000);
        return new Promise<number>((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port: d.httpPort!, method: 'POST', path: '/v1/tables/t/rows?header=false', headers: { 'Content-Type': 'text/csv', 'Transfer-Encoding': 'chunked' } }, (res) => {
            res.resume();
            res.on('end', () => (res.statusCode === 200 ? resolve(body.rows) : reject(new Error(`upload ${i}: HTTP ${res.statusCode}`))));
          });
          req.on('error', reject);
          body.stream.pipe(req);
        });
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    running = false;
    const [h, q] = [percentiles(await health), percentiles(await select1)];
    const count = Number((await wire.query('select count(*) from t')).rows[0].count);
    await wire.end();
    const want = sent.reduce((a, b) => a + b, 0);
    if (count !== want) throw new Error(`${count} rows committed, ${want} sent`);
    console.log(`${n} × ${mb} MB chunked CSV uploads in ${seconds.toFixed(1)} s, ${count} rows committed; /health ${fmt(h)}; select 1 ${fmt(q)}; load ${load()}`);
    return { uploads: n, mb, seconds, health: h, select1: q };
  } finally {
    await d.stop();
  }
}

export async function run(args: string[]): Promise<void> {
  const only = args.includes('--only') ? args[args.indexOf('--only') + 1]! : 'lists,uploads';
  const results: Record<string, unknown> = { load: load() };
  if (only.includes('lists')) results.lists = await lists(option(args, 'runs', 3));
  if (only.includes('uploads')) results.uploads = await uploads(option(args, 'uploads', 8), option(args, 'mb', 20));
  saveResults('hostile', results);
}

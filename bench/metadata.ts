/**
 * The metadata bench (issue #20, docs/FORMAT.md "Table metadata v2"): what a table's metadata
 * costs as the table grows, on the local store and on s3rver.
 *
 * PAX: tables of 1,000, 10,000 and 100,000 row groups (8 rows each, 7 columns; --groups
 * 1000,10000 to choose). For each it prints the bytes a 1-row commit writes (the delta and the
 * root; a checkpoint when one falls due is shown apart, with its share per commit), the time
 * to open the table in a new process and answer count(*) (measured inside that process, from
 * before Database.open to the answer, after a count(*) on a scratch table has loaded the
 * modules and the SQL parser: node's and the code's start-up, the same for every table, are
 * left out), the S3 requests
 * that process made to find the newest state and in all, and count(*) in a warm Database
 * (median of 50). Targets: commit < 16 KB, warm < 2 ms and cold < 300 ms at 100,000 groups,
 * ≤ 2 requests to find the newest state.
 *
 * ao_column: --appends N (10,000) appends of 100 rows with no compaction: bytes per append
 * (data and metadata together) over the first and the last 100 appends, and the cold open.
 * Target: end ≤ 2× start, open < 300 ms.
 *
 *   npm run bench -- metadata [--groups 1000,10000,100000] [--appends 10000] [--only pax|ao] [--store local|s3]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../src/table/database.js';
import { query } from '../src/engine/index.js';
import { LocalStore } from '../src/storage/local.js';
import { S3Store } from '../src/storage/s3.js';
import { ForwardingStore } from '../src/storage/forwarding.js';
import type { ObjectStore } from '../src/storage/store.js';
import { columnOf } from '../src/types/builder.js';
import type { Batch } from '../src/types/column.js';
import { startS3 } from '../test/support/s3.js';

const GROUP_ROWS = 8;
const COLUMNS = [
  { name: 'id', type: 'int8', notNull: true },
  { name: 'a', type: 'int4' },
  { name: 'b', type: 'float8' },
  { name: 'c', type: 'text' },
  { name: 'd', type: 'date' },
  { name: 'e', type: 'numeric(12,2)' },
  { name: 'f', type: 'bool' },
];

/** Counts bytes and objects written through it, by kind of path. */
class WriteCounter extends ForwardingStore {
  bytes = new Map<string, number>();
  reset(): void {
    this.bytes.clear();
  }
  private note(path: string, n: number): void {
    const kind = path.endsWith('.ckpt') || path.endsWith('.mf') || path.endsWith('/_checkpoint') ? 'checkpoint' : path.includes('/_snapshots/') ? 'delta' : path.startsWith('_paxd/') ? 'root' : 'data';
    this.bytes.set(kind, (this.bytes.get(kind) ?? 0) + n);
  }
  total(...kinds: string[]): number {
    return kinds.reduce((a, k) => a + (this.bytes.get(k) ?? 0), 0);
  }
  override async putIfAbsent(path: string, bytes: Uint8Array): Promise<boolean> {
    const ok = await this.inner.putIfAbsent(path, bytes);
    if (ok) this.note(path, bytes.byteLength);
    return ok;
  }
  override async create(path: string) {
    const w = await this.inner.create(path);
    const self = this;
    return {
      get path() {
        return w.path;
      },
      get position() {
        return w.position;
      },
      async write(b: Uint8Array) {
        self.note(path, b.byteLength);
        await w.write(b);
      },
      close: () => w.close(),
      abort: () => w.abort(),
    };
  }
  override async append(path: string, offset: number) {
    const w = await this.inner.append(path, offset);
    const self = this;
    return {
      get path() {
        return w.path;
      },
      get position() {
        return w.position;
      },
      async write(b: Uint8Array) {
        self.note(path, b.byteLength);
        await w.write(b);
      },
      close: () => w.close(),
      abort: () => w.abort(),
    };
  }
}

function batch(start: number, n: number): Batch {
  const r = Array.from({ length: n }, (_, i) => start + i);
  return {
    length: n,
    selection: null,
    columns: [
      columnOf({ id: 'int8' }, r.map((x) => BigInt(x))),
      columnOf({ id: 'int4' }, r.map((x) => x % 1000)),
      columnOf({ id: 'float8' }, r.map((x) => x / 7)),
      columnOf({ id: 'text' }, r.map((x) => (x % 13 === 0 ? null : `v${x % 997}`))),
      columnOf({ id: 'date' }, r.map((x) => x % 20000)),
      columnOf({ id: 'numeric', precision: 12, scale: 2 }, r.map((x) => BigInt(x * 3))),
      columnOf({ id: 'bool' }, r.map((x) => x % 2 === 0)),
    ],
  };
}

interface Target {
  name: string;
  uri: string;
  open(): ObjectStore;
  /** The S3 store's request counters (the store last opened), when on S3. */
  metrics?: () => { requests: number } | undefined;
}

/** 1-row commits over which the checkpoints' bytes are shared out (4 checkpoints at CHECKPOINT_MAX_DEPTH 64). */
const COMMITS = 256;

export async function run(args: string[]): Promise<void> {
  const arg = (k: string): string | undefined => (args.includes(k) ? args[args.indexOf(k) + 1] : undefined);
  if (arg('--cold') !== undefined) return cold(arg('--cold')!, arg('--table')!);
  const sizes = (arg('--groups') ?? '1000,10000,100000').split(',').map(Number);
  const appends = Number(arg('--appends') ?? 10_000);
  const only = arg('--only');
  const stores = arg('--store');
  const dir = mkdtempSync(join(tmpdir(), 'paxd-bench-meta-'));
  const s3 = stores === 'local' ? null : await startS3();
  try {
    const targets: Target[] = [];
    if (stores !== 's3') targets.push({ name: 'local', uri: dir, open: () => new LocalStore(dir) });
    if (s3 !== null) {
      let last: S3Store | undefined;
      targets.push({ name: 's3rver', uri: s3.uri('meta'), open: () => (last = S3Store.fromUri(s3.uri('meta'))), metrics: () => last?.metrics });
    }
    if (only !== 'ao') {
      process.stdout.write(`metadata bench, PAX: ${GROUP_ROWS}-row groups of ${COLUMNS.length} columns; node ${process.version}\n\n`);
      process.stdout.write(`store    groups   commit B  (delta  root)  ckpt B/commit (over ${COMMITS})  cold ms  cpu ms  find req  cold req  warm ms  cpu ms  warm req\n`);
      for (const target of targets) for (const g of sizes) await paxCase(target, g);
    }
    if (only !== 'pax') {
      process.stdout.write(`\nmetadata bench, ao_column: ${appends.toLocaleString('en-US')} appends of 100 rows, no compaction\n\n`);
      process.stdout.write('store    B/append first 100  B/append last 100  ratio  metadata B/append (first, last)  cold ms  cpu ms  cold req\n');
      for (const target of targets.filter((t) => t.name === 'local' || appends <= 2000)) await aoCase(target, appends);
    }
  } finally {
    await s3?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function paxCase(target: Target, groups: number): Promise<void> {
  const table = `pax${groups}`;
  const counter = new WriteCounter(target.open());
  const db = await Database.open(counter, { uri: target.uri });
  const t = await db.createTable(table, COLUMNS, { rowGroupRows: GROUP_ROWS, codec: 'none' });
  const sink = t.sink({ fileBytes: 4 << 20 });
  const rows = groups * GROUP_ROWS;
  for (let at = 0; at < rows; at += 65_536) await sink.write(batch(at, Math.min(65_536, rows - at)));
  await sink.commit();
  // One 1-row commit after a few warm-ups, measured alone.
  for (let i = 0; i < 3; i++) await query(db, `INSERT INTO ${table} VALUES (${-i - 1}, 1, 1.5, 'x', '2024-01-01', 1.25, true)`);
  counter.reset();
  await query(db, `INSERT INTO ${table} VALUES (-9, 1, 1.5, 'x', '2024-01-01', 1.25, true)`);
  const delta = counter.total('delta');
  const root = counter.total('root');
  const commitBytes = counter.total('delta', 'root', 'data');
  // Checkpoint bytes (manifest lists, manifests, hints) over COMMITS more 1-row commits: their
  // share per commit, merges included.
  counter.reset();
  const n = COMMITS;
  for (let i = 0; i < n; i++) await query(db, `INSERT INTO ${table} VALUES (${-100 - i}, 1, 1.5, 'x', '2024-01-01', 1.25, true)`);
  const ckpt = counter.total('checkpoint');
  const perCommit = fmt(ckpt / n);
  // Warm: count(*) in this Database, median of 50, and the S3 requests each made.
  const want = String(rows + 4 + n);
  const times: number[] = [];
  const s3 = target.metrics?.();
  const before = s3?.requests ?? 0;
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    const r = await query(db, `SELECT count(*) FROM ${table}`);
    times.push(performance.now() - t0);
    if (i === 0 && String(r.rows[0]?.[0]) !== want) throw new Error(`count(*) answered ${String(r.rows[0]?.[0])}, expected ${want}`);
  }
  const cpu = process.cpuUsage(cpu0);
  const warmCpu = (cpu.user + cpu.system) / 1000 / 50;
  const warmRequests = s3 === undefined ? 0 : ((target.metrics?.()?.requests ?? 0) - before) / 50;
  times.sort((a, b) => a - b);
  await db.close();
  const c = coldOpen(target.uri, table, want);
  process.stdout.write(
    `${target.name.padEnd(7)}  ${String(groups).padStart(6)}  ${fmt(commitBytes).padStart(9)}  (${fmt(delta)}  ${fmt(root)})  ${perCommit.padStart(11)}  ${c.ms.toFixed(0).padStart(7)}  ${c.cpu.toFixed(0).padStart(6)}  ${String(c.find).padStart(8)}  ${String(c.requests).padStart(8)}  ${times[25]!.toFixed(2).padStart(7)}  ${warmCpu.toFixed(2).padStart(7)}  ${warmRequests.toFixed(1).padStart(8)}\n`,
  );
}

async function aoCase(target: Target, appends: number): Promise<void> {
  const table = `ao${appends}`;
  const counter = new WriteCounter(target.open());
  const db = await Database.open(counter, { uri: target.uri });
  await db.createTable(table, COLUMNS, { layout: 'ao_column' });
  const window = Math.min(100, Math.floor(appends / 2));
  let first = 0;
  let firstMeta = 0;
  let last = 0;
  let lastMeta = 0;
  for (let i = 0; i < appends; i++) {
    if (i === 0 || i === appends - window) counter.reset();
    const t = await db.table(table);
    const sink = t.sink();
    await sink.write(batch(i * 100, 100));
    await sink.commit();
    if (i === window - 1) {
      first = counter.total('data', 'delta', 'root', 'checkpoint') / window;
      firstMeta = counter.total('delta', 'root', 'checkpoint') / window;
    }
  }
  last = counter.total('data', 'delta', 'root', 'checkpoint') / window;
  lastMeta = counter.total('delta', 'root', 'checkpoint') / window;
  await db.close();
  const c = coldOpen(target.uri, table, String(appends * 100));
  process.stdout.write(
    `${target.name.padEnd(7)}  ${fmt(first).padStart(18)}  ${fmt(last).padStart(17)}  ${(last / first).toFixed(2).padStart(5)}  ${`${fmt(firstMeta)}, ${fmt(lastMeta)}`.padStart(31)}  ${c.ms.toFixed(0).padStart(7)}  ${c.cpu.toFixed(0).padStart(6)}  ${String(c.requests).padStart(8)}\n`,
  );
}

/** Opens the table in a new process and answers count(*) there; what it measured. */
function coldOpen(uri: string, table: string, want: string): { ms: number; cpu: number; find: number; requests: number } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', 'metadata', '--cold', uri, '--table', table], { encoding: 'utf8', env: process.env });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  const m = /^cold (\S+) ms (\S+) cpu (\d+) find (\d+) requests (\S+) count$/.exec(line);
  if (m === null) throw new Error(`cold open failed: ${r.stdout}${r.stderr}`);
  if (m[5] !== want) throw new Error(`cold count(*) answered ${m[5]}, expected ${want}`);
  return { ms: Number(m[1]), cpu: Number(m[2]), find: Number(m[3]), requests: Number(m[4]) };
}

/** The child of coldOpen: open, count(*), print the time and the S3 requests. */
async function cold(uri: string, table: string): Promise<void> {
  // Not metadata: the SQL parser's WebAssembly and the modules a first query loads (tsx
  // compiles them on first import). Warmed on a one-row table in a scratch folder first.
  const { currentRoot } = await import('../src/storage/catalog.js');
  const scratch = mkdtempSync(join(tmpdir(), 'paxd-bench-warm-'));
  const warm = await Database.open(scratch);
  await warm.createTable('w', COLUMNS);
  await query(warm, `INSERT INTO w VALUES (1, 1, 1.5, 'x', '2024-01-01', 1.25, true)`);
  await query(warm, 'SELECT count(*) FROM w');
  await warm.close();
  rmSync(scratch, { recursive: true, force: true });
  if (uri.startsWith('s3://')) await import('../src/storage/s3.js');
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const db = await Database.open(uri);
  const store = db.store;
  const s3 = store instanceof S3Store ? store.metrics : null;
  // The newest state is found by the root log: that costs these requests.
  await currentRoot(store);
  const find = s3?.requests ?? 0;
  const r = await query(db, `SELECT count(*) FROM ${table}`);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  const count = String(r.rows[0]?.[0]);
  process.stdout.write(`cold ${ms.toFixed(1)} ms ${((cpu.user + cpu.system) / 1000).toFixed(1)} cpu ${find} find ${s3?.requests ?? 0} requests ${count} count\n`);
  await db.close();
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/**
 * The wire bench (docs/WIRE.md): COPY FROM STDIN against `paxd ingest` (./copy.ts, first), then
 * paxd serve against PostgreSQL 15 through node-postgres, on the same rows.
 *
 *   copy      the same lineitem CSV through `paxd ingest` and through COPY FROM STDIN into paxd
 *             serve: rows/s of each and their ratio (target ≥ 0.8); --runs N, --chunk BYTES
 *
 *   load      `clients` connections, each looping for `seconds` over a mix of queries on a
 *             lineitem-like table (generateLineitem, SF 0.1 by default): a filtered range
 *             (point), GROUP BY aggregates (agg), ORDER BY … LIMIT (topn), a prepared statement
 *             with `$1` through the extended protocol (param), an expected division by zero
 *             (error, SQLSTATE 22012), and every COPY_EVERY-th iteration (staggered across clients) a COPY FROM STDIN of
 *             COPY_ROWS rows into an append table (copy). Prints queries/s, COPY rows/s,
 *             p50/p99 ms per kind and the errors; then checks that the append table holds
 *             exactly the rows of every acknowledged COPY (count and sum of ids).
 *   select *  `SELECT * FROM big` (`--rows` rows of int4, int8, float8, text, bool, timestamp)
 *             through the extended protocol: node-postgres in text (rowMode 'array'), and a raw
 *             client in text and in binary result format (node-postgres cannot read binary
 *             results, see selectAll): rows/s, best of 2.
 *
 * paxd runs as a child process (`paxd serve`, trust on 127.0.0.1, the CLI from source), so it
 * has its own thread as PostgreSQL's backends have their processes; the clients run in this
 * process. Both servers and the clients share the machine's cores, which the output says.
 * Tables are created with the library and filled through COPY FROM STDIN over the wire with
 * the same bytes for both systems. PostgreSQL has no index (neither has paxd); it gets
 * VACUUM ANALYZE after loading. Any unexpected error or a missing row exits non-zero.
 * Results also go to bench/results/wire-<time>.json.
 *
 *   npm run bench -- wire [--only copy|load] [--runs 3] [--clients 64] [--seconds 60] [--rows 1000000] [--sf 0.1] [--skip-pg]
 */
import { cpus } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as netConnect } from 'node:net';
import pg from 'pg';
import { Database } from '../src/table/database.js';
import { startPostgres, type Postgres } from '../test/support/pg.js';
import { generateLineitem, LINEITEM_COLUMNS, lineitemRows } from './lineitem.js';
import { CsvWriter } from './lineitem-csv.js';
import { errorFieldsOf, fe } from '../test/pgwire/client.js';
import { saveResults, startPaxd, type PaxdChild } from './support.js';

const COPY_EVERY = 10;
const COPY_ROWS = 500;
const SELECT_RUNS = 2;
const CHUNK_BYTES = 1 << 20;

const out = (s: string) => process.stdout.write(s + '\n');
const log = (s: string) => process.stderr.write(s + '\n');

const BIG_COLUMNS = [
  { name: 'a', type: 'int4', notNull: true },
  { name: 'b', type: 'int8', notNull: true },
  { name: 'c', type: 'float8', notNull: true },
  { name: 'd', type: 'text' },
  { name: 'e', type: 'bool', notNull: true },
  { name: 'f', type: 'timestamp', notNull: true },
] as const;

const APPEND_COLUMNS = [
  { name: 'id', type: 'int8', notNull: true },
  { name: 'client', type: 'int4', notNull: true },
  { name: 'v', type: 'text', notNull: true },
  { name: 'ts', type: 'timestamp', notNull: true },
] as const;

type Kind = 'point' | 'agg' | 'topn' | 'param' | 'error' | 'copy';
const KINDS: readonly Kind[] = ['point', 'agg', 'topn', 'param', 'error', 'copy'];

/** One system under load: where to connect and what came back. */
interface Target {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly database: string;
}

interface LoadResult {
  seconds: number;
  latencies: Record<Kind, number[]>;
  copyRowsAcked: number;
  expectedErrors: number;
  unexpected: string[];
  appendCount: bigint;
  appendSum: bigint;
  expectedSum: bigint;
}

interface SelectResult {
  mode: SelectMode;
  rows: number;
  seconds: number;
}

interface SystemResult {
  load: LoadResult;
  select: SelectResult[];
}

export async function run(args: string[]): Promise<void> {
  const value = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const positive = (name: string, dflt: number): number => {
    const v = value(name);
    const n = v === undefined ? dflt : Number(v);
    if (!(n > 0)) throw new RangeError(`${name} must be a positive number, got ${v}`);
    return n;
  };
  const clients = Math.floor(positive('--clients', 64));
  const seconds = positive('--seconds', 60);
  const rows = Math.floor(positive('--rows', 1_000_000));
  const sf = positive('--sf', 0.1);
  const skipPg = args.includes('--skip-pg');
  const only = value('--only');
  if (only !== undefined && only !== 'copy' && only !== 'load') throw new RangeError(`--only takes copy or load, got ${only}`);
  // First COPY FROM STDIN against paxd ingest on the same file (./copy.ts; --runs, --chunk).
  if (only !== 'load') await (await import('./copy.js')).run(args);
  if (only === 'copy') return;

  out(`wire bench: ${clients} clients × ${seconds} s of mixed queries and COPY on lineitem SF ${sf} (≈${fmt(lineitemRows(sf))} rows); SELECT * of ${fmt(rows)} rows; node ${process.version}`);
  out(`note: the clients (this process), paxd (a child process) and PostgreSQL share this machine's ${cpus().length} cores`);

  log('generating data…');
  const lineitemCopy = lineitemCsvChunks(sf);
  const bigCopy = bigTextChunks(rows);

  const results: Record<string, SystemResult> = {};
  const dir = mkdtempSync(join(tmpdir(), 'paxd-wire-'));
  let paxd: PaxdChild | null = null;
  let postgres: Postgres | null = null;
  try {
    // paxd: tables through the library, rows through COPY over the wire
    const db = await Database.open(dir);
    try {
      await db.createTable('lineitem', LINEITEM_COLUMNS);
      await db.createTable('big', [...BIG_COLUMNS]);
      await db.createTable('append_t', [...APPEND_COLUMNS]);
    } finally {
      await db.close();
    }
    paxd = await startPaxd(dir);
    const paxdTarget: Target = { name: 'paxd', host: '127.0.0.1', port: paxd.port, user: 'paxd', database: 'paxd' };
    await load(paxdTarget, lineitemCopy, bigCopy);

    let pgTarget: Target | null = null;
    if (!skipPg) {
      postgres = await startPostgres();
      const ddl = (name: string, cols: readonly { name: string; type: string; notNull?: boolean }[]) =>
        `CREATE TABLE ${name} (${cols.map((c) => `${c.name} ${c.type}${c.notNull ? ' NOT NULL' : ''}`).join(', ')})`;
      await postgres.query(
        [ddl('lineitem', LINEITEM_COLUMNS.map((c) => ({ ...c, type: String(c.type) }))), ddl('big', BIG_COLUMNS), ddl('append_t', APPEND_COLUMNS)].join(';\n'),
      );
      pgTarget = { name: 'PostgreSQL', host: postgres.host, port: postgres.port, user: 'postgres', database: 'postgres' };
      await load(pgTarget, lineitemCopy, bigCopy);
      await postgres.query('VACUUM (ANALYZE) lineitem; VACUUM (ANALYZE) big');
    }

    for (const t of pgTarget === null ? [paxdTarget] : [paxdTarget, pgTarget]) {
      log(`${t.name}: load, ${clients} clients for ${seconds} s…`);
      const l = await loadTest(t, clients, seconds, sf);
      log(`${t.name}: SELECT * FROM big…`);
      const s: SelectResult[] = [];
      for (const mode of SELECT_MODES) s.push(await selectAll(t, mode, rows));
      results[t.name] = { load: l, select: s };
    }
  } finally {
    if (paxd !== null) await paxd.stop();
    if (postgres !== null) await postgres.stop();
    rmSync(dir, { recursive: true, force: true });
  }

  const failures = report(results);
  saveResults('wire', {
    clients,
    seconds,
    rows,
    sf,
    node: process.version,
    cores: cpus().length,
    results: Object.fromEntries(
      Object.entries(results).map(([name, r]) => [
        name,
        {
          ...r.load,
          appendCount: String(r.load.appendCount),
          appendSum: String(r.load.appendSum),
          expectedSum: String(r.load.expectedSum),
          latencies: Object.fromEntries(KINDS.map((k) => [k, { n: r.load.latencies[k].length, p50: percentile(r.load.latencies[k], 0.5), p99: percentile(r.load.latencies[k], 0.99) }])),
          select: r.select.map((s) => ({ ...s, rowsPerSecond: s.rows / s.seconds })),
        },
      ]),
    ),
  });
  if (failures > 0) {
    out(`FAILED: ${failures} problem(s) above`);
    process.exitCode = 1;
  }
}

// ---- output ------------------------------------------------------------------------------

/** Prints the tables; returns how many failures (unexpected errors, missing rows) it saw. */
function report(results: Record<string, SystemResult>): number {
  const names = Object.keys(results);
  let failures = 0;
  out('');
  out('mixed load (latency in ms; copy = one COPY of ' + COPY_ROWS + ' rows)');
  out(`${'kind'.padEnd(8)} ${names.map((n) => `${n.padStart(12)} n ${'/s'.padStart(8)} ${'p50'.padStart(7)} ${'p99'.padStart(7)}`).join('   ')}`);
  for (const k of KINDS) {
    const cells = names.map((n) => {
      const r = results[n]!.load;
      const xs = r.latencies[k];
      return `${fmt(xs.length).padStart(14)} ${fmt(xs.length / r.seconds).padStart(8)} ${ms(percentile(xs, 0.5)).padStart(7)} ${ms(percentile(xs, 0.99)).padStart(7)}`;
    });
    out(`${k.padEnd(8)} ${cells.join('   ')}`);
  }
  out('');
  const summary = (r: LoadResult) => {
    const queries = KINDS.filter((k) => k !== 'copy').reduce((s, k) => s + r.latencies[k].length, 0);
    const all = KINDS.flatMap((k) => r.latencies[k]);
    return { qps: queries / r.seconds, copyRowsPerS: r.copyRowsAcked / r.seconds, p50: percentile(all, 0.5), p99: percentile(all, 0.99) };
  };
  out(`${'system'.padEnd(12)} ${'queries/s'.padStart(10)} ${'COPY rows/s'.padStart(12)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'expected err'.padStart(12)} ${'unexpected'.padStart(10)}  append table`);
  for (const n of names) {
    const r = results[n]!.load;
    const s = summary(r);
    const ok = r.appendCount === BigInt(r.copyRowsAcked) && r.appendSum === r.expectedSum;
    out(
      `${n.padEnd(12)} ${fmt(s.qps).padStart(10)} ${fmt(s.copyRowsPerS).padStart(12)} ${ms(s.p50).padStart(7)} ${ms(s.p99).padStart(7)} ${fmt(r.expectedErrors).padStart(12)} ${fmt(r.unexpected.length).padStart(10)}  ` +
        `${ok ? 'ok' : 'MISMATCH'}: ${r.appendCount} rows, ${fmt(r.copyRowsAcked)} acknowledged${r.appendSum === r.expectedSum ? '' : `, sum(id) ${r.appendSum} expected ${r.expectedSum}`}`,
    );
    if (!ok) failures++;
    failures += r.unexpected.length;
    for (const e of r.unexpected.slice(0, 10)) out(`  unexpected (${n}): ${e}`);
    if (r.unexpected.length > 10) out(`  … and ${r.unexpected.length - 10} more`);
  }
  out('');
  out(`SELECT * FROM big (${fmt(results[names[0]!]!.select[0]!.rows)} rows of int4, int8, float8, text, bool, timestamp; extended protocol; rows/s, best of ${SELECT_RUNS})`);
  out(`  pg text: node-postgres, rowMode 'array', values parsed; raw: DataRows framed and counted, values not decoded`);
  out(`${'system'.padEnd(12)} ${SELECT_MODES.map((m) => m.padStart(12)).join(' ')}`);
  for (const n of names) out(`${n.padEnd(12)} ${results[n]!.select.map((s) => fmt(s.rows / s.seconds).padStart(12)).join(' ')}`);
  const p = results['paxd'];
  const q = results['PostgreSQL'];
  if (p !== undefined && q !== undefined) {
    const a = summary(p.load);
    const b = summary(q.load);
    out('');
    out('paxd / PostgreSQL (throughput: > 1 is paxd faster; latency: < 1 is paxd faster)');
    out(`  queries/s ${ratio(a.qps, b.qps)}   COPY rows/s ${ratio(a.copyRowsPerS, b.copyRowsPerS)}   p50 ${ratio(a.p50, b.p50)}   p99 ${ratio(a.p99, b.p99)}`);
    out(`  per kind p50: ${KINDS.map((k) => `${k} ${ratio(percentile(p.load.latencies[k], 0.5), percentile(q.load.latencies[k], 0.5))}`).join(', ')}`);
    out(`  SELECT * rows/s: ${SELECT_MODES.map((m, i) => `${m} ${ratio(p.select[i]!.rows / p.select[i]!.seconds, q.select[i]!.rows / q.select[i]!.seconds)}`).join(', ')}`);
  }
  return failures;
}

function ratio(a: number, b: number): string {
  return b > 0 && Number.isFinite(a) && Number.isFinite(b) ? `${(a / b).toFixed(2)}×` : 'n/a';
}

function ms(x: number): string {
  return Number.isFinite(x) ? (x < 10 ? x.toFixed(2) : x.toFixed(1)) : '-';
}

function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
}

// ---- the load ------------------------------------------------------------------------------

/** xorshift32, so both systems see the same sequence of queries per client. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 0x9e3779b9;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x100000000;
  };
}

const MAX_ORDERKEY_PER_SF = 6_000_000; // TPC-H orderkeys are sparse up to 4 × 1.5M × SF
const SHIPMODES = ['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'];

function connect(t: Target): pg.Client {
  return new pg.Client({ host: t.host, port: t.port, user: t.user, database: t.database });
}

async function loadTest(t: Target, clients: number, seconds: number, sf: number): Promise<LoadResult> {
  const latencies = Object.fromEntries(KINDS.map((k) => [k, [] as number[]])) as unknown as Record<Kind, number[]>;
  const unexpected: string[] = [];
  let expectedErrors = 0;
  let copyRowsAcked = 0;
  let expectedSum = 0n;
  const conns = Array.from({ length: clients }, () => connect(t));
  // a client that dies (socket error) must not crash the process: it is an unexpected error
  for (const [i, c] of conns.entries()) c.on('error', (e: Error) => unexpected.push(`client ${i}: connection error: ${e.message}`));
  try {
    await Promise.all(conns.map((c) => c.connect()));
    const maxKey = Math.max(1000, Math.round(MAX_ORDERKEY_PER_SF * sf));
    const t0 = performance.now();
    const deadline = t0 + seconds * 1000;
    const one = async (c: pg.Client, k: number) => {
      const r = rng(k * 7919 + 1);
      let copies = 0;
      for (let i = 0; performance.now() < deadline; i++) {
        let kind: Kind;
        let run: () => Promise<unknown>;
        if ((i + k) % COPY_EVERY === 0) {
          kind = 'copy';
          const first = BigInt(k) * 1_000_000_000n + BigInt(copies++ * COPY_ROWS);
          run = async () => {
            const n = await copyIn(c, 'COPY append_t FROM STDIN', [appendRows(first, k, COPY_ROWS)]);
            if (n !== COPY_ROWS) throw new Error(`COPY answered ${n} rows, sent ${COPY_ROWS}`);
            copyRowsAcked += n;
            // sum of first … first + COPY_ROWS - 1
            expectedSum += BigInt(COPY_ROWS) * first + BigInt((COPY_ROWS * (COPY_ROWS - 1)) / 2);
          };
        } else {
          const x = r();
          if (x < 0.3) {
            kind = 'point';
            const lo = Math.floor(r() * maxKey);
            run = () => c.query(`SELECT l_orderkey, l_linenumber, l_quantity, l_extendedprice, l_shipdate FROM lineitem WHERE l_orderkey BETWEEN ${lo} AND ${lo + 200} ORDER BY l_orderkey, l_linenumber`);
          } else if (x < 0.5) {
            kind = 'agg';
            const day = isoDay(10440 - Math.floor(r() * 2000)); // up to 1998-08-02
            run = () =>
              c.query(
                `SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, avg(l_extendedprice) AS avg_price, count(*) AS n FROM lineitem WHERE l_shipdate <= '${day}' GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus`,
              );
          } else if (x < 0.7) {
            kind = 'topn';
            const mode = SHIPMODES[Math.floor(r() * SHIPMODES.length)]!;
            run = () => c.query(`SELECT l_orderkey, l_linenumber, l_extendedprice FROM lineitem WHERE l_shipmode = '${mode}' ORDER BY l_extendedprice DESC, l_orderkey, l_linenumber LIMIT 10`);
          } else if (x < 0.95) {
            kind = 'param';
            const lo = Math.floor(r() * maxKey);
            run = () =>
              c.query({
                name: 'by_orderkey',
                text: 'SELECT count(*) AS n, sum(l_extendedprice) AS total FROM lineitem WHERE l_orderkey >= $1 AND l_orderkey < $1 + 1000',
                values: [lo],
              });
          } else {
            kind = 'error';
            const lo = Math.floor(r() * maxKey);
            run = () => c.query(`SELECT l_orderkey / (l_linenumber - l_linenumber) FROM lineitem WHERE l_orderkey BETWEEN ${lo} AND ${lo + 1000}`);
          }
        }
        const start = performance.now();
        try {
          // an 'error' query whose range holds no row divides nothing and succeeds: fine too
          await run();
          latencies[kind].push(performance.now() - start);
        } catch (e) {
          const code = (e as { code?: string }).code;
          if (kind === 'error' && code === '22012') {
            expectedErrors++;
            latencies[kind].push(performance.now() - start);
          } else {
            unexpected.push(`client ${k} ${kind}: ${code ?? 'no SQLSTATE'} ${(e as Error).message}`);
            // a broken connection ends this client; a statement error does not
            if ((e as Error).message.includes('Connection terminated') || (e as Error).message.includes('not queryable')) break;
          }
        }
      }
    };
    await Promise.all(conns.map((c, k) => one(c, k)));
    const elapsed = (performance.now() - t0) / 1000;
    const check = connect(t);
    await check.connect();
    let appendCount = -1n;
    let appendSum = -1n;
    try {
      const res = await check.query<{ n: string; s: string | null }>('SELECT count(*) AS n, sum(id) AS s FROM append_t');
      appendCount = BigInt(res.rows[0]!.n);
      appendSum = BigInt(res.rows[0]!.s ?? '0');
    } finally {
      await check.end();
    }
    return { seconds: elapsed, latencies, copyRowsAcked, expectedErrors, unexpected, appendCount, appendSum, expectedSum };
  } finally {
    await Promise.all(conns.map((c) => c.end().catch(() => undefined)));
  }
}

/** 'YYYY-MM-DD' of a day number since 1970-01-01. */
function isoDay(day: number): string {
  return new Date(day * 86_400_000).toISOString().slice(0, 10);
}

/** COPY text rows of the append table: ids first … first + n - 1. */
function appendRows(first: bigint, client: number, n: number): Buffer {
  const base = Date.UTC(2024, 0, 1);
  let s = '';
  for (let i = 0; i < n; i++) {
    const id = first + BigInt(i);
    s += `${id}\t${client}\tclient ${client} row ${i}\t${timestampText(base + i * 1000)}\n`;
  }
  return Buffer.from(s, 'utf8');
}

/** '2024-01-01 00:00:01.5' style text (PostgreSQL's input accepts the ISO form). */
function timestampText(msSinceEpoch: number): string {
  return new Date(msSinceEpoch).toISOString().replace('T', ' ').replace('Z', '');
}

// ---- SELECT * ------------------------------------------------------------------------------

/**
 * How a SELECT * is read: node-postgres in text (rowMode 'array', its default type parsers),
 * or a raw protocol client in text or binary that frames and counts the DataRows without
 * decoding values. node-postgres 8.23 cannot read binary results: pg-protocol decodes every
 * DataRow field as a UTF-8 string (parseDataRowMessage), so its binary parsers then fail on
 * `buffer.readInt32BE is not a function`; hence the raw client for binary, and raw text too
 * so the two formats compare on equal terms.
 */
type SelectMode = 'pg text' | 'raw text' | 'raw binary';
const SELECT_MODES: readonly SelectMode[] = ['pg text', 'raw text', 'raw binary'];

async function selectAll(t: Target, mode: SelectMode, expectRows: number): Promise<SelectResult> {
  let best = Infinity;
  let rows = 0;
  for (let i = 0; i < SELECT_RUNS; i++) {
    const t0 = performance.now();
    rows = mode === 'pg text' ? await selectViaPg(t) : await selectRaw(t, mode === 'raw binary' ? 1 : 0);
    const s = (performance.now() - t0) / 1000;
    if (rows !== expectRows) throw new Error(`${t.name} SELECT * FROM big (${mode}): ${rows} rows, expected ${expectRows}`);
    best = Math.min(best, s);
  }
  return { mode, rows, seconds: best };
}

async function selectViaPg(t: Target): Promise<number> {
  const c = connect(t);
  await c.connect();
  try {
    // the extended protocol, as the raw client uses (queryMode is honoured by node-postgres, not in @types/pg)
    const config = { text: 'SELECT * FROM big', rowMode: 'array', queryMode: 'extended' } as pg.QueryArrayConfig;
    const r = await c.query(config);
    return r.rows.length;
  } finally {
    await c.end();
  }
}

/**
 * Connects (trust), runs SELECT * FROM big through Parse/Bind/Execute/Sync with every result
 * column in `format` (0 text, 1 binary), and counts DataRows until ReadyForQuery. Connection
 * time is included, as it is for node-postgres.
 */
function selectRaw(t: Target, format: 0 | 1): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(t.port, t.host);
    let pending: Buffer = Buffer.alloc(0);
    let ready = 0;
    let dataRows = 0;
    let error: string | null = null;
    const fail = (e: Error) => {
      socket.destroy();
      reject(e);
    };
    socket.once('error', fail);
    socket.on('connect', () => socket.write(fe.startup({ user: t.user, database: t.database })));
    socket.on('data', (chunk: Buffer) => {
      const b = pending.byteLength === 0 ? chunk : Buffer.concat([pending, chunk]);
      let off = 0;
      // each backend message: Byte1 code, Int32 length (itself included), body
      while (off + 5 <= b.byteLength) {
        const len = b.readInt32BE(off + 1);
        if (off + 1 + len > b.byteLength) break;
        const code = b[off]!;
        if (code === 0x44 /* D DataRow */) dataRows++;
        else if (code === 0x45 /* E ErrorResponse */) error ??= errorFieldsOf(b.subarray(off + 5, off + 1 + len))['M'] ?? 'error';
        else if (code === 0x52 /* R Authentication */ && b.readInt32BE(off + 5) !== 0) error ??= 'the server asks for a password (expected trust)';
        else if (code === 0x5a /* Z ReadyForQuery */) {
          ready++;
          if (error !== null) return fail(new Error(`${t.name} raw SELECT: ${error}`));
          if (ready === 1) socket.write(Buffer.concat([fe.parse('', 'SELECT * FROM big'), fe.bind('', '', [], [format]), fe.execute(''), fe.sync()]));
          else {
            socket.end(fe.terminate());
            return resolve(dataRows);
          }
        }
        off += 1 + len;
      }
      pending = off === b.byteLength ? Buffer.alloc(0) : Buffer.from(b.subarray(off));
    });
  });
}

// ---- loading -------------------------------------------------------------------------------

async function load(t: Target, lineitem: Buffer[], big: Buffer[]): Promise<void> {
  const c = connect(t);
  await c.connect();
  try {
    const t0 = performance.now();
    const n1 = await copyIn(c, 'COPY lineitem FROM STDIN (FORMAT csv)', lineitem);
    const t1 = performance.now();
    const n2 = await copyIn(c, 'COPY big FROM STDIN', big);
    const t2 = performance.now();
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const rate = (n: number, ms: number) => `${fmt((n * 1000) / Math.max(ms, 1e-3))} rows/s`;
    out(`${t.name}: COPY FROM STDIN of ${fmt(n1)} lineitem rows (CSV) in ${s(t1 - t0)} (${rate(n1, t1 - t0)}), ${fmt(n2)} big rows (text) in ${s(t2 - t1)} (${rate(n2, t2 - t1)})`);
  } finally {
    await c.end();
  }
}

function lineitemCsvChunks(sf: number): Buffer[] {
  const chunks: Buffer[] = [];
  const w = new CsvWriter((buf, len) => chunks.push(Buffer.from(buf.subarray(0, len))));
  for (const b of generateLineitem(sf)) w.writeBatch(b);
  w.flush();
  return chunks;
}

/** COPY text of `big`: a = i, b = i × 1,000,003, c = i / 4, d NULL every 97th row, e, f. */
function bigTextChunks(rows: number): Buffer[] {
  const chunks: Buffer[] = [];
  const base = Date.UTC(2020, 0, 1);
  let s = '';
  for (let i = 0; i < rows; i++) {
    const d = i % 97 === 0 ? '\\N' : `row ${i} of the big table`;
    s += `${i}\t${BigInt(i) * 1_000_003n}\t${i / 4}\t${d}\t${i % 3 === 0 ? 't' : 'f'}\t${timestampText(base + i * 1500)}\n`;
    if (s.length >= CHUNK_BYTES) {
      chunks.push(Buffer.from(s, 'utf8'));
      s = '';
    }
  }
  if (s.length > 0) chunks.push(Buffer.from(s, 'utf8'));
  return chunks;
}

/** What node-postgres's Connection offers for COPY FROM STDIN (not in @types/pg). */
interface CopyConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

/**
 * COPY … FROM STDIN through node-postgres without pg-copy-streams: a Submittable that sends
 * the query, answers CopyInResponse with the chunks and CopyDone, and settles on
 * ReadyForQuery with the row count of the CommandComplete tag ("COPY n").
 */
class CopyIn implements pg.Submittable {
  readonly done: Promise<number>;
  private resolve!: (n: number) => void;
  private reject!: (e: Error) => void;
  private rows = -1;
  private error: Error | null = null;

  constructor(
    private readonly sql: string,
    private readonly chunks: readonly Buffer[],
  ) {
    this.done = new Promise((res, rej) => {
      this.resolve = res;
      this.reject = rej;
    });
  }

  submit(connection: pg.Connection): void {
    (connection as unknown as CopyConnection).query(this.sql);
  }

  handleCopyInResponse(connection: pg.Connection): void {
    const c = connection as unknown as CopyConnection;
    for (const chunk of this.chunks) c.sendCopyFromChunk(chunk);
    c.endCopyFrom();
  }

  handleCommandComplete(msg: { text: string }): void {
    const m = /^COPY (\d+)$/.exec(msg.text);
    this.rows = m === null ? -1 : Number(m[1]);
  }

  handleError(e: Error): void {
    // a connection error never gets a ReadyForQuery: settle now
    this.error = e;
    this.reject(e);
  }

  handleReadyForQuery(): void {
    if (this.error === null) this.resolve(this.rows);
  }

  // not expected during COPY FROM; present so node-postgres finds them
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handleCopyData(): void {}
  handlePortalSuspended(): void {}
}

async function copyIn(c: pg.Client, sql: string, chunks: readonly Buffer[]): Promise<number> {
  return c.query(new CopyIn(sql, chunks)).done;
}


// ---- helpers -------------------------------------------------------------------------------


function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

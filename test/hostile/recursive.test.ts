/**
 * Recursive CTEs without a bound (issue #19, WITH RECURSIVE; the method of ./queries.test.ts):
 * `paxd serve` runs as a child process with a 1 GB heap, and each case must end with
 * PostgreSQL's SQLSTATE (or the code listed for it, with the reason) within its
 * statement_timeout + 200 ms (asserted with STOP_SLACK_MS more on a loaded 2-core machine),
 * the daemon must stay up, and a second session's `select 1`, sent every PROBE_EVERY_MS
 * throughout, must keep its p99 under the bound. One more case stops the statement with a
 * CancelRequest instead of a timeout. Every figure is printed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect as tcpConnect } from 'node:net';
import type pg from 'pg';
import { Database } from '../../src/table/database.js';
import { columnOf, type Value } from '../../src/types/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';
import { percentiles, rssOf, serveLimited, type Limited, connect, outcome } from './daemon.js';

const ROWS = 2_000;
const TIMEOUT_MS = 2_000;
const STOP_SLACK_MS = 800;
const PROBE_EVERY_MS = 20;
const HEAP_MB = 1024;
const PROBE_P99_BOUND_MS = 250;
/** When the cancel case sends its CancelRequest. */
const CANCEL_AFTER_MS = 700;

interface Case {
  readonly name: string;
  readonly sql: string;
  readonly timeoutMs?: number;
  /** The code expected without asking PostgreSQL, and why (PostgreSQL would run until its timeout). */
  readonly expect?: { code: string; why: string };
  /** Codes paxd may end with besides PostgreSQL's, and why. */
  readonly also?: Record<string, string>;
  /** Stopped by a CancelRequest after CANCEL_AFTER_MS rather than by statement_timeout. */
  readonly cancel?: boolean;
}

const CASES: Case[] = [
  { name: 'UNION ALL without a bound, count(*)', sql: 'with recursive r(n) as (select 1 union all select n + 1 from r) select count(*) from r' },
  { name: 'UNION without a bound (every row new)', sql: 'with recursive r(n) as (select 1 union select n + 1 from r) select max(n) from r' },
  {
    name: 'UNION ALL growing by a join each iteration',
    sql: 'with recursive r(n) as (select 1 union all select r.n + 1 from r, a) select count(*) from r',
    also: { '53200': 'the third iteration joins 2,000 rows with 2,000: paxd may reach its statement memory before the timeout' },
  },
  {
    name: 'wide rows, 60 s timeout: the memory bound first',
    sql: "with recursive r(n, s) as (select 1, repeat('x', 100000) union all select n + 1, s from r) select count(*) from r",
    timeoutMs: 60_000,
    expect: { code: '53200', why: "PostgreSQL's work table spills to disk and would run until its timeout; paxd keeps the rows and reaches its statement memory first" },
  },
  {
    name: 'cancel of a recursive CTE without a bound',
    sql: 'with recursive r(n) as (select 1 union all select n + 1 from r) select count(*) from r',
    timeoutMs: 0,
    cancel: true,
    expect: { code: '57014', why: 'canceling statement due to user request, as PostgreSQL' },
  },
];

let pgsrv: Postgres;
let daemon: Limited;
const figures: string[] = [];

async function loadTables(dir: string): Promise<void> {
  const db = await Database.open(dir);
  const ids: Value[] = Array.from({ length: ROWS }, (_v, i) => i);
  const t = await db.createTable('a', [{ name: 'id', type: 'int4' }] as never);
  const sink = t.sink();
  await sink.write({ length: ROWS, columns: [columnOf({ id: 'int4' } as never, ids)], selection: null });
  await sink.commit();
  await db.close();
  await pgsrv.query(`DROP TABLE IF EXISTS a; CREATE TABLE a (id int4);\nCOPY a FROM STDIN;\n${ids.join('\n')}\n\\.\nANALYZE a;\n`);
}


/** A CancelRequest for `c`'s backend (PostgreSQL protocol 53.2.9: length 16, code 80877102, pid, key). */
function sendCancel(port: number, c: pg.Client): Promise<void> {
  const { processID, secretKey } = c as unknown as { processID: number; secretKey: number };
  const msg = Buffer.alloc(16);
  msg.writeInt32BE(16, 0);
  msg.writeInt32BE(80877102, 4);
  msg.writeInt32BE(processID, 8);
  msg.writeInt32BE(secretKey, 12);
  return new Promise((res, rej) => {
    const s = tcpConnect(port, '127.0.0.1', () => s.end(msg));
    s.on('close', () => res());
    s.on('error', rej);
  });
}


test.before(async () => {
  pgsrv = await startPostgres();
  const dir = tempDir();
  await loadTables(dir);
  daemon = await serveLimited(dir, { heapMb: HEAP_MB });
});

test.after(async () => {
  await daemon?.stop();
  console.log(`\n${figures.join('\n')}`);
});

test('recursive CTEs without a bound stop with PostgreSQL SQLSTATE in time; the daemon lives; select 1 stays fast', async () => {
  const theirs = await connect(pgsrv.port, 'postgres');
  const mine = await connect(daemon.wirePort, 'paxd');
  const probe = await connect(daemon.wirePort, 'paxd');
  await theirs.query(`set statement_timeout = ${TIMEOUT_MS}`);
  const lat: number[] = [];
  let probing = true;
  const probeLoop = (async () => {
    while (probing) {
      const t0 = performance.now();
      await probe.query('select 1');
      lat.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
    }
  })();
  const failures: string[] = [];
  for (const c of CASES) {
    const timeout = c.timeoutMs ?? TIMEOUT_MS;
    const p = c.expect !== undefined ? { code: c.expect.code, ms: Number.NaN, message: '' } : await outcome(theirs, c.sql);
    await mine.query(`set statement_timeout = ${timeout}`);
    const before = lat.length;
    const cancel = c.cancel === true ? new Promise((r) => setTimeout(r, CANCEL_AFTER_MS)).then(() => sendCancel(daemon.wirePort, mine)) : null;
    const m = await outcome(mine, c.sql);
    await cancel;
    const window = percentiles(lat.slice(before));
    const stopAt = c.cancel === true ? CANCEL_AFTER_MS : timeout;
    const allowed = [p.code, ...Object.keys(c.also ?? {})];
    const theirsSaid = c.expect !== undefined ? `expected ${c.expect.code} (${c.expect.why})` : `PostgreSQL ${p.code || 'answered'} in ${p.ms.toFixed(0)} ms`;
    figures.push(`${c.name}: paxd ${m.code || 'answered'} in ${m.ms.toFixed(0)} ms, ${theirsSaid}; select 1 meanwhile p50 ${window.p50.toFixed(1)} p99 ${window.p99.toFixed(1)} max ${window.max.toFixed(1)} ms (${window.n}); RSS ${(rssOf(daemon.pid) / 1048576).toFixed(0)} MB${m.code !== '' ? ` — ${m.message}` : ''}`);
    if (!allowed.includes(m.code)) failures.push(`${c.name}: paxd ${m.code || 'answered'} (${m.message}), ${theirsSaid}; allowed ${allowed.join(', ')}`);
    if (m.ms > stopAt + 200 + STOP_SLACK_MS) failures.push(`${c.name}: took ${m.ms.toFixed(0)} ms, past its stop at ${stopAt} ms + 200 ms (+${STOP_SLACK_MS} slack)`);
    if (daemon.child.exitCode !== null || daemon.child.signalCode !== null) {
      failures.push(`${c.name}: the daemon died (${daemon.child.exitCode ?? daemon.child.signalCode})\n${daemon.out().slice(-2000)}`);
      break;
    }
    const after = await outcome(mine, 'select 1');
    if (after.code !== '') failures.push(`${c.name}: the session's next select 1 failed with ${after.code}`);
  }
  probing = false;
  await probeLoop;
  const all = percentiles(lat);
  figures.push(`select 1 on a second session over the whole run: p50 ${all.p50.toFixed(1)} p99 ${all.p99.toFixed(1)} max ${all.max.toFixed(1)} ms (${all.n} probes; asserted p99 < ${PROBE_P99_BOUND_MS} ms)`);
  await Promise.all([theirs.end(), mine.end(), probe.end()]);
  assert.equal(failures, []);
  assert.ok(all.p99 < PROBE_P99_BOUND_MS, `select 1 p99 ${all.p99.toFixed(1)} ms over ${all.n} probes`);
});

test.run();

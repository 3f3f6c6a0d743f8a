/**
 * The daemon's HTTP API over real HTTP (docs/DAEMON.md): Arrow IPC, CSV and NDJSON
 * bodies loaded as one commit each; truncated and malformed bodies refused with a 4xx and
 * nothing committed; /v1/sql read back with apache-arrow equal to the embedded engine's
 * answer; /metrics parses as Prometheus text and its counters move; Basic authentication
 * against SCRAM verifiers.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Int64, Table as ArrowTable, Utf8, tableFromIPC, tableToIPC, vectorFromArray } from 'apache-arrow';
import { Database } from '../../src/table/database.js';
import { parseColumns } from '../../src/types/parse-type.js';
import { query, textRows } from '../../src/engine/index.js';
import { Daemon, defaultConfig, makeVerifier, createLogger, type DaemonConfig } from '../../src/daemon/index.js';
import { tempDir } from '../support/tmp.js';

const silent = createLogger('silent', { write: () => undefined });

async function startDaemon(over: Partial<DaemonConfig> = {}): Promise<{ d: Daemon; base: string; dir: string }> {
  const dir = tempDir();
  const db = await Database.open(dir);
  await db.createTable('t', parseColumns('id int8 not null, name text, v int8'));
  await db.close();
  const config: DaemonConfig = { ...defaultConfig(), store: dir, listen: 'off', http: '127.0.0.1:0', auth_method: over.users === undefined ? 'trust' : null, compact_interval_ms: 0, vacuum_interval_ms: 0, ...over };
  const d = await Daemon.start(config, { log: silent, out: () => undefined });
  return { d, base: `http://127.0.0.1:${d.http!.port}`, dir };
}

async function rowsOf(dir: string, table = 't'): Promise<{ count: string; sum: string | null }> {
  const db = await Database.open(dir);
  try {
    const [row] = textRows(await query(db, `SELECT count(*), sum(v) FROM ${table}`));
    return { count: row![0]!, sum: row![1] ?? null };
  } finally {
    await db.close();
  }
}

function arrowBody(n: number, start = 0): Uint8Array {
  const ids = Array.from({ length: n }, (_, i) => BigInt(start + i));
  return tableToIPC(
    new ArrowTable({
      id: vectorFromArray(ids, new Int64()),
      name: vectorFromArray(ids.map((i) => `name ${i}`), new Utf8()),
      v: vectorFromArray(ids.map((i) => i * 2n), new Int64()),
    }),
    'stream',
  );
}

/** Parses Prometheus text exposition; fails on a line that is not a comment or a sample. */
function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    // Values as Prometheus reads them (Go's ParseFloat: NaN and Inf in any case; prom-client writes "Nan").
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) ([-+]?(?:[0-9.]+(?:e[-+]?[0-9]+)?|nan|inf))$/i.exec(line);
    assert.ok(m !== null, `not a Prometheus sample line: ${JSON.stringify(line)}`);
    out.set(m[1]!, /nan/i.test(m[2]!) ? NaN : Number(m[2]!.replace(/inf/i, 'Infinity')));
  }
  return out;
}

test('Arrow IPC, CSV and NDJSON bodies: one commit each, rows counted, gzip accepted', async () => {
  const { d, base, dir } = await startDaemon();
  try {
    let r = await fetch(`${base}/v1/tables/t/rows`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.apache.arrow.stream' }, body: arrowBody(1000) });
    assert.is(r.status, 200, await r.clone().text());
    assert.is(((await r.json()) as { rows: number }).rows, 1000);
    r = await fetch(`${base}/v1/tables/t/rows`, { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: 'id,name,v\n5000,"a, b",7\n5001,,8\n' });
    assert.is(r.status, 200, await r.clone().text());
    r = await fetch(`${base}/v1/tables/t/rows`, { method: 'POST', headers: { 'Content-Type': 'application/x-ndjson' }, body: '{"id":6000,"name":"x","v":10}\n{"id":6001,"v":20}\n' });
    assert.is(r.status, 200, await r.clone().text());
    r = await fetch(`${base}/v1/tables/t/rows`, { method: 'POST', headers: { 'Content-Type': 'text/csv', 'Content-Encoding': 'gzip' }, body: gzipSync('id,name,v\n7000,z,100\n') });
    assert.is(r.status, 200, await r.clone().text());
    const expectedSum = (999 * 1000) + 7 + 8 + 10 + 20 + 100; // Σ 2i for i < 1000, then the rest
    assert.equal(await rowsOf(dir), { count: '1005', sum: String(expectedSum) });
    const db = await Database.open(dir);
    const snap = (await db.table('t')).snapshot;
    await db.close();
    assert.is(snap.id, 5, 'one snapshot per request');
  } finally {
    await d.stop();
  }
});

test('truncated and malformed bodies: 4xx with the SQLSTATE, nothing committed', async () => {
  const { d, base, dir } = await startDaemon();
  try {
    const full = arrowBody(5000);
    // A cut Arrow stream.
    let r = await fetch(`${base}/v1/tables/t/rows`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.apache.arrow.stream' }, body: full.subarray(0, Math.floor(full.byteLength / 2)) });
    assert.is(r.status, 400);
    assert.is(((await r.json()) as { error: { sqlstate: string } }).error.sqlstate, '22P04');
    // A bad value: the row and column are named.
    r = await fetch(`${base}/v1/tables/t/rows`, { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: 'id,name,v\n1,a,1\n2,b,zz\n' });
    assert.is(r.status, 400);
    const e = ((await r.json()) as { error: { sqlstate: string; line: number; column: number; message: string } }).error;
    assert.equal([e.sqlstate, e.line, e.column], ['22P02', 3, 3]);
    assert.not.match(e.message, /paxd-tmp|spool/, 'the spool file is not named');
    // A CSV body cut inside a quoted field.
    r = await fetch(`${base}/v1/tables/t/rows`, { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: 'id,name,v\n1,"unterminated' });
    assert.ok(r.status >= 400 && r.status < 500, `status ${r.status}`);
    // Malformed NDJSON.
    r = await fetch(`${base}/v1/tables/t/rows`, { method: 'POST', headers: { 'Content-Type': 'application/x-ndjson' }, body: '{"id":1,"v":2}\n{"id":2,' });
    assert.ok(r.status >= 400 && r.status < 500, `status ${r.status}`);
    // Unknown table, unknown content type.
    r = await fetch(`${base}/v1/tables/nope/rows`, { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: 'id\n1\n' });
    assert.is(r.status, 404);
    assert.is(((await r.json()) as { error: { sqlstate: string } }).error.sqlstate, '42P01');
    r = await fetch(`${base}/v1/tables/t/rows`, { method: 'POST', headers: { 'Content-Type': 'image/png' }, body: 'x' });
    assert.is(r.status, 415);

    // Fewer bytes than Content-Length: the connection ends early.
    const port = d.http!.port;
    const answer = await new Promise<string>((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.write(`POST /v1/tables/t/rows HTTP/1.1\r\nHost: x\r\nContent-Type: application/vnd.apache.arrow.stream\r\nContent-Length: ${full.byteLength}\r\n\r\n`);
        s.end(full.subarray(0, 1000));
      });
      let got = '';
      s.on('data', (b) => (got += b));
      s.on('close', () => resolve(got));
      s.on('error', () => resolve(got));
    });
    assert.ok(answer === '' || /^HTTP\/1\.1 4\d\d/.test(answer), `answer: ${answer}`);
    // A chunked body whose sender goes away mid-stream.
    await new Promise<void>((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.write(`POST /v1/tables/t/rows HTTP/1.1\r\nHost: x\r\nContent-Type: text/csv\r\nTransfer-Encoding: chunked\r\n\r\n`);
        s.write(`10\r\nid,name,v\n1,a,1\n\r\n`);
        setTimeout(() => s.destroy(), 50);
      });
      s.on('close', () => resolve());
      s.on('error', () => resolve());
    });
    await new Promise((r2) => setTimeout(r2, 200));
    assert.equal(await rowsOf(dir), { count: '0', sum: null });
    const db = await Database.open(dir);
    assert.is((await db.table('t')).snapshot.id, 1, 'no commit');
    await db.close();
  } finally {
    await d.stop();
  }
});

test('/v1/sql: Arrow IPC read back equals the embedded engine; JSON on request; errors with SQLSTATE', async () => {
  const { d, base, dir } = await startDaemon();
  try {
    const r0 = await fetch(`${base}/v1/tables/t/rows`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.apache.arrow.stream' }, body: arrowBody(3000) });
    assert.is(r0.status, 200);
    const db = await Database.open(dir);
    const queries = [
      'SELECT id, name, v FROM t WHERE id < 20 ORDER BY id DESC',
      'SELECT count(*), sum(v), min(name), max(id), avg(v) FROM t',
      'SELECT v % 7 AS k, count(*) AS n, sum(id) AS s FROM t GROUP BY 1 ORDER BY 1',
      'SELECT id, v * 0.5 AS half, id > 10 AS big FROM t ORDER BY v DESC LIMIT 5',
      'SELECT id FROM t WHERE id < 0',
    ];
    for (const sql of queries) {
      const r = await fetch(`${base}/v1/sql`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: sql });
      assert.is(r.status, 200, sql);
      assert.is(r.headers.get('content-type'), 'application/vnd.apache.arrow.stream');
      const table = tableFromIPC(new Uint8Array(await r.arrayBuffer()));
      const expected = await query(db, sql);
      assert.equal(table.schema.fields.map((f) => f.name), expected.fields.map((f) => f.name), sql);
      assert.is(table.numRows, expected.rows.length, sql);
      for (let c = 0; c < expected.fields.length; c++) {
        const col = table.getChildAt(c)!;
        for (let i = 0; i < expected.rows.length; i++) {
          const want = expected.rows[i]![c];
          const got = col.get(i) as unknown;
          assert.equal(got, want, `${sql}: row ${i} column ${expected.fields[c]!.name}`);
        }
      }
      // The same as JSON (PostgreSQL's text output), with the statement sent as JSON.
      const j = await fetch(`${base}/v1/sql`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify({ sql }) });
      assert.is(j.status, 200);
      assert.equal(((await j.json()) as { rows: unknown }).rows, textRows(expected), sql);
    }
    await db.close();

    let r = await fetch(`${base}/v1/sql`, { method: 'POST', body: 'SELEC 1' });
    assert.is(r.status, 400);
    assert.is(((await r.json()) as { error: { sqlstate: string } }).error.sqlstate, '42601');
    r = await fetch(`${base}/v1/sql`, { method: 'POST', body: 'SELECT * FROM missing' });
    assert.ok(r.status >= 400 && r.status < 500);
    assert.is(((await r.json()) as { error: { sqlstate: string } }).error.sqlstate, '42P01');
    r = await fetch(`${base}/v1/sql`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"sql":' });
    assert.is(r.status, 400);
  } finally {
    await d.stop();
  }
});

test('/metrics parses as Prometheus text and its counters move; /health and /ready', async () => {
  const { d, base } = await startDaemon();
  try {
    assert.is((await fetch(`${base}/health`)).status, 200);
    assert.is((await fetch(`${base}/ready`)).status, 200);
    const before = parseMetrics(await (await fetch(`${base}/metrics`)).text());
    assert.ok(before.has('paxd_nodejs_eventloop_lag_seconds'), 'event-loop lag');
    assert.ok(before.has('paxd_inbox_files_pending'));
    await fetch(`${base}/v1/tables/t/rows`, { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: 'id,name,v\n1,a,1\n2,b,2\n' });
    await fetch(`${base}/v1/sql`, { method: 'POST', body: 'SELECT count(*) FROM t' });
    await fetch(`${base}/v1/sql`, { method: 'POST', body: 'SELECT nope FROM t' });
    const after = parseMetrics(await (await fetch(`${base}/metrics`)).text());
    assert.is(after.get('paxd_ingest_rows_total{source="http",table="t"}'), 2);
    assert.is(after.get('paxd_commits_total{operation="ingest",table="t"}'), 1);
    assert.is(after.get('paxd_queries_total{status="ok"}'), 1);
    assert.is(after.get('paxd_queries_total{status="error"}'), 1);
    assert.is(after.get('paxd_query_duration_seconds_count'), 2);
    assert.ok((after.get('paxd_ingest_bytes_total{source="http",table="t"}') ?? 0) > 0);
    assert.ok((after.get('paxd_store_read_bytes_total{kind="snapshot"}') ?? 0) > 0, 'store reads counted');
    assert.ok((after.get('paxd_store_objects_created_total') ?? 0) >= 1, 'data files counted');
  } finally {
    await d.stop();
  }
});

test('Basic authentication against SCRAM verifiers, except /health and /ready', async () => {
  const verifier = await makeVerifier('s3cret', randomBytes(16), 4096);
  const { d, base } = await startDaemon({ users: { alice: verifier } });
  try {
    const basic = (u: string, p: string) => ({ Authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });
    assert.is((await fetch(`${base}/health`)).status, 200);
    assert.is((await fetch(`${base}/ready`)).status, 200);
    let r = await fetch(`${base}/metrics`);
    assert.is(r.status, 401);
    assert.match(r.headers.get('www-authenticate') ?? '', /Basic/);
    assert.is(((await r.json()) as { error: { sqlstate: string } }).error.sqlstate, '28P01');
    assert.is((await fetch(`${base}/v1/sql`, { method: 'POST', body: 'SELECT 1', headers: basic('alice', 'wrong') })).status, 401);
    assert.is((await fetch(`${base}/v1/sql`, { method: 'POST', body: 'SELECT 1', headers: basic('bob', 's3cret') })).status, 401);
    r = await fetch(`${base}/v1/sql`, { method: 'POST', body: 'SELECT 1 AS one', headers: { ...basic('alice', 's3cret'), Accept: 'application/json' } });
    assert.is(r.status, 200);
    assert.equal(((await r.json()) as { rows: unknown }).rows, [['1']]);
    assert.is((await fetch(`${base}/metrics`, { headers: basic('alice', 's3cret') })).status, 200);
  } finally {
    await d.stop();
  }
});

test.run();

/**
 * Loads parsed on a parser thread (src/insert/parse-thread.ts, `ingestFiles(…, { parseThread:
 * true })`, as the daemon's HTTP loads run) against the same loads parsed on the calling thread:
 * the same rows of every type, the same rejects in skip mode, the same error (SQLSTATE, message,
 * file:line:column) in abort mode, many loads at once on the pool's threads, and the event loop
 * free while a large body parses.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Database } from '../../src/table/database.js';
import { ingestFiles } from '../../src/table/ingest.js';
import { streamInput, type Format } from '../../src/insert/readers.js';
import { getValue } from '../../src/types/builder.js';
import { formatText } from '../../src/types/text-io.js';
import { PaxdError } from '../../src/types/errors.js';
import { parseColumns } from '../../src/types/parse-type.js';
import { readAll } from '../support/columns.js';
import { tempDir } from '../support/tmp.js';

const COLUMNS = 'id int8 not null, n numeric(12,2), f float8, s text, b bool, d date, ts timestamptz, u uuid, j jsonb';

async function* chunked(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(text);
  for (let o = 0; o < bytes.length; o += size) yield bytes.subarray(o, o + size);
}

/** Loads `body` into a fresh table, on a parser thread or not; the rows as text, or the error. */
async function load(body: string, format: Format, parseThread: boolean, onError: 'abort' | 'skip' = 'abort', watch?: { enable(): void; disable(): void }) {
  const db = await Database.open(join(tempDir(), 'db'));
  const t = await db.createTable('t', parseColumns(COLUMNS));
  try {
    const rejects = onError === 'skip' ? join(tempDir(), 'rejects.ndjson') : undefined;
    watch?.enable();
    const r = await ingestFiles(t, [streamInput('request body', chunked(body, 7777), null)], { format, onError, ...(rejects !== undefined ? { rejects } : {}), csv: { header: false, blockBytes: 4096 }, parseThread });
    watch?.disable();
    await t.refresh();
    const cols = await readAll(t.scan());
    const rows = Array.from({ length: cols[0]?.length ?? 0 }, (_v, i) => cols.map((c) => {
      const v = getValue(c, i);
      return v === null ? null : formatText(c.type, v);
    }));
    const rejected = rejects === undefined ? '' : (await import('node:fs')).readFileSync(rejects, 'utf8');
    return { ok: true as const, counts: [r.rowsRead, r.rowsLoaded, r.rowsRejected], rows, rejected };
  } catch (e) {
    if (!(e instanceof PaxdError)) throw e;
    return { ok: false as const, code: e.code, message: e.message, where: [e.file, e.line, e.column, e.columnName] };
  } finally {
    await db.close();
  }
}

function csvBody(rows: number, bad: (i: number) => boolean = () => false): string {
  let s = '';
  for (let i = 0; i < rows; i++) {
    const n = bad(i) ? 'x12' : `${i}.${i % 100}`;
    s += `${i},${n},${i % 7 === 0 ? '' : i / 8},"say ""hi"", ${i}",${i % 2 === 0},2024-01-${1 + (i % 28)},2024-03-0${1 + (i % 9)} 10:00:0${i % 10}+02,00000000-0000-0000-0000-${String(i).padStart(12, '0')},"{""k"": ${i}}"\n`;
  }
  return s;
}

test('CSV: the same rows parsed on a thread as on the calling thread, every type, across blocks and chunks', async () => {
  const body = csvBody(3000);
  const here = await load(body, 'csv', false);
  const there = await load(body, 'csv', true);
  assert.ok(here.ok && there.ok);
  assert.equal(there, here);
  if (there.ok) assert.equal(there.counts, [3000, 3000, 0]);
});

test('NDJSON: the same rows on a thread', async () => {
  const body = Array.from({ length: 500 }, (_v, i) => JSON.stringify({ id: i, n: `${i}.5`, s: `row ${i}`, b: i % 3 === 0, j: { i } })).join('\n');
  const there = await load(body, 'ndjson', true);
  assert.equal(there, await load(body, 'ndjson', false));
  assert.ok(there.ok && there.rows.length === 500);
});

test('abort: the same error, with its SQLSTATE and file:line:column, and nothing committed', async () => {
  const body = csvBody(2000, (i) => i === 1234);
  const here = await load(body, 'csv', false);
  const there = await load(body, 'csv', true);
  assert.is(there.ok, false);
  assert.equal(there, here);
  if (!there.ok) {
    assert.is(there.code, '22P02');
    assert.match(there.message, /^request body:1235:2: /);
  }
});

test('skip: the same rejects, in order, and the counts add up', async () => {
  const body = csvBody(2000, (i) => i % 97 === 5);
  const here = await load(body, 'csv', false, 'skip');
  const there = await load(body, 'csv', true, 'skip');
  assert.ok(there.ok);
  assert.equal(there, here);
  if (there.ok) assert.equal(there.counts, [2000, 2000 - 21, 21]);
});

test('loads at once share the pool; the event loop stays free while a large body parses on a thread', async () => {
  const bodies = Array.from({ length: 6 }, (_v, k) => csvBody(400 + k));
  const results = await Promise.all(bodies.map((b) => load(b, 'csv', true)));
  results.forEach((r, k) => assert.ok(r.ok && r.rows.length === 400 + k));
  // About 8 MB of CSV: the longest the event loop waited, parsed here and on a thread.
  const big = csvBody(40_000);
  const delay = async (parseThread: boolean) => {
    const h = monitorEventLoopDelay({ resolution: 10 });
    const r = await load(big, 'csv', parseThread, 'abort', h);
    assert.ok(r.ok);
    return h.max / 1e6;
  };
  const here = await delay(false);
  const there = await delay(true);
  console.log(`  longest event-loop delay loading ${(big.length / 1048576).toFixed(1)} MB of CSV: ${here.toFixed(0)} ms parsed here, ${there.toFixed(0)} ms on a parser thread`);
});

test.run();

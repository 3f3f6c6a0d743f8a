/**
 * Long query texts are parsed on a worker thread (src/engine/parse.ts WORKER_PARSE_CHARS), so
 * that libpg-query's one synchronous parse (about 0.8 s for a 100,000-value IN list) does not
 * stop the event loop that serves every session (issue #18): the same trees and the same
 * errors as the parse on the main thread, while a timer keeps firing.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSync } from 'libpg-query';
import { constNodes, constsOf, parseStatements, valuesListNodes, WORKER_PARSE_CHARS } from '../../src/engine/parse.js';

const inList = `select count(*) from a where id in (${Array.from({ length: 100_000 }, (_v, i) => i * 3).join(',')})`;

/**
 * Runs `f` with a 5 ms timer beside it: how often the timer fired while `f` ran, and the
 * longest gap between its firings (ms).
 */
async function beside<T>(f: () => Promise<T>): Promise<{ value: T; gap: number; ticks: number }> {
  let last = performance.now();
  let gap = 0;
  let ticks = 0;
  const t = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
    ticks++;
  }, 5);
  try {
    const value = await f();
    gap = Math.max(gap, performance.now() - last);
    return { value, gap, ticks };
  } finally {
    clearInterval(t);
  }
}

/**
 * A tree with its ConstLists (src/engine/parse.ts) put back as PostgreSQL's nodes, through the
 * accessors the binders use: what libpg-query's own parse gives.
 */
function expanded(x: unknown): unknown {
  if (x === null || typeof x !== 'object') return x;
  if (Array.isArray(x)) return x.map(expanded);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(x)) {
    if (constsOf(v) === null) out[k] = expanded(v);
    else if (k === 'rexpr') out[k] = { List: { items: expanded(constNodes(v)) } };
    else if (k === 'valuesLists') out[k] = expanded(valuesListNodes(v));
    else out[k] = expanded(constNodes(v));
  }
  return out;
}

const code = (p: Promise<unknown>) => p.then(() => 'none', (e: { code?: string }) => e.code ?? 'no code');

test.before(async () => {
  await parseStatements('select 1'); // the main thread's grammar, loaded
});

test('a 100,000-value IN list: the tree of the synchronous parse, while the event loop keeps running', async () => {
  assert.ok(inList.length > WORKER_PARSE_CHARS);
  await parseStatements(`${inList.slice(0, WORKER_PARSE_CHARS)} ,1)`).catch(() => undefined); // the worker, started
  // The same parse on the main thread, beside the same timer: the stop the worker must avoid.
  const sync = await beside(async () => (parseSync(inList) as { stmts: { stmt: unknown }[] }).stmts[0]!.stmt);
  const { value, gap, ticks } = await beside(() => parseStatements(inList));
  console.log(`100,000-value IN list (${(inList.length / 1e6).toFixed(2)} MB): the event loop stopped ${sync.gap.toFixed(0)} ms for the synchronous parse, ${gap.toFixed(0)} ms at most for the parse on the worker (the timer fired ${ticks} times meanwhile)`);
  assert.is(value.length, 1);
  assert.ok(constsOf(((value[0]!.ast as { SelectStmt: { whereClause: { A_Expr: { rexpr: unknown } } } }).SelectStmt.whereClause.A_Expr.rexpr)) !== null, 'the list came compact');
  assert.equal(expanded(value[0]!.ast), sync.value);
  // The synchronous parse lets no timer fire; while the worker parses, the event loop runs. (The
  // tree's JSON is still read and frozen on the main thread, a stop of about half the parse's:
  // how long is a figure for the bench, not a test, since it varies with the machine's load.)
  assert.is(sync.ticks, 0);
  assert.ok(ticks >= 3, `the timer fired ${ticks} times while the worker parsed (${gap.toFixed(0)} ms stop at most)`);
});

test('errors through the worker: 42601 with its position, 54001 for nesting too deep for JSON', async () => {
  const pad = `/* ${'x'.repeat(WORKER_PARSE_CHARS)} */`;
  const bad = `${pad} select 1 frm t`;
  const e = await parseStatements(bad).then(() => null, (x: { code?: string; position?: number }) => x);
  assert.is(e?.code, '42601');
  assert.is(e?.position, bad.indexOf('t', bad.indexOf('frm') + 3) + 1);
  assert.is(await code(parseStatements(`${pad} select ${'('.repeat(10_000)}1${')'.repeat(10_000)}`)), '42601');
  assert.is(await code(parseStatements(`${pad} select ${'1+'.repeat(10_000)}1`)), '54001');
  // The worker lives on after its errors.
  assert.is((await parseStatements(`${pad} select 2`)).length, 1);
});

test.run();

/**
 * The engine's interrupt-and-yield point (src/engine/context.ts) and the operators reshaped
 * around it: a statement given a signal stops with the signal's reason wherever it is; the sort
 * that runs in bounded runs merges them into exactly the stable order one Array.sort gives; the
 * hash join that cuts its output in the middle of a probe row's matches gives exactly the pairs
 * of a plain nested loop (semi and anti joins and outer padding included).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { PgType, Value } from '../../src/types/index.js';
import { PaxdError, SQLSTATE } from '../../src/types/index.js';
import { query } from '../../src/engine/index.js';
import { E } from '../../src/engine/expr.js';
import { HashJoin, type HashJoinSpec } from '../../src/engine/exec/join/hash-join.js';
import { mergeSort, SORT_RUN } from '../../src/engine/exec/sort.js';
import type { RowBatch } from '../../src/engine/exec/batch.js';
import { Rng, testSeed } from '../support/random.js';
import { tempDir } from '../support/tmp.js';
import { createLongTables, LONG } from '../pgwire/cancel-tables.js';

const canceled = () => new PaxdError('io', SQLSTATE.query_canceled, 'canceling statement due to user request');

test('mergeSort: runs merged give the stable order of one Array.prototype.sort, at every size around the run length', async () => {
  const rng = new Rng(testSeed(0xca1));
  for (const n of [0, 1, SORT_RUN - 1, SORT_RUN, SORT_RUN + 1, 3 * SORT_RUN + 17, 8 * SORT_RUN, 50_000]) {
    const rows = Array.from({ length: n }, (_v, i) => ({ key: rng.int(0, 50), at: i }));
    const cmp = (a: { key: number }, b: { key: number }) => a.key - b.key;
    const want = [...rows].sort(cmp).map((r) => r.at);
    const got = (await mergeSort([...rows], cmp)).map((r) => r.at);
    assert.equal(got, want, `n = ${n}`);
  }
});

/** The pairs of a hash join over one key column each side (slot 0 probe, slot 1 build). */
async function joined(probe: Value[], build: Value[], opts: Partial<HashJoinSpec>): Promise<[Value, Value][]> {
  const t: PgType = { id: 'int4' };
  const spec: HashJoinSpec = {
    width: 2,
    probeSlots: [0],
    buildSlots: [1],
    probeKeys: [E.column(0, t, 'p')],
    buildKeys: [E.column(1, t, 'b')],
    semi: false,
    preserveProbe: false,
    preserveBuild: false,
    joinFilter: null,
    workMem: 1 << 30,
    ...opts,
  };
  const hj = new HashJoin(spec);
  hj.addBuild({ rows: build.length, cols: [[], build] });
  await hj.finishBuild();
  const out: [Value, Value][] = [];
  const take = (b: RowBatch) => {
    assert.ok(b.rows <= 8192, `a batch of ${b.rows} rows`);
    for (let i = 0; i < b.rows; i++) out.push([b.cols[0]![i] ?? null, spec.semi || spec.anti === true ? null : (b.cols[1]![i] ?? null)]);
  };
  for (const b of hj.probe({ rows: probe.length, cols: [probe, []] })) take(b);
  for (const b of hj.unmatched()) take(b);
  return out;
}

/** The same join as a plain nested loop: `match(p, b)` decides a pair. */
function nestedLoop(probe: Value[], build: Value[], match: (p: Value, b: Value) => boolean, kind: 'inner' | 'left' | 'semi' | 'anti'): [Value, Value][] {
  const out: [Value, Value][] = [];
  for (const p of probe) {
    const m = build.filter((b) => match(p, b));
    if (kind === 'semi') {
      if (m.length > 0) out.push([p, null]);
    } else if (kind === 'anti') {
      if (m.length === 0) out.push([p, null]);
    } else {
      for (const b of m) out.push([p, b]);
      if (m.length === 0 && kind === 'left') out.push([p, null]);
    }
  }
  return out;
}

test('hash join: output cut inside one probe row’s matches equals a nested loop (cross, duplicate keys, semi, anti, left)', async () => {
  const t: PgType = { id: 'int4' };
  const n = 10_000; // more than a batch of pairs
  const build = Array.from({ length: n }, (_v, i) => i % 3);
  const probe = [0, 1, 5, 2];
  // Keyless (a cross join with a filter): p + b is odd.
  const odd = E.cmp('=', E.arith('%', E.arith('+', E.column(0, t, 'p'), E.column(1, t, 'b'), t), E.const(2, t), t), E.const(1, t));
  const isOdd = (p: Value, b: Value) => ((p as number) + (b as number)) % 2 === 1;
  const keyless = { probeKeys: [], buildKeys: [] };
  assert.equal(await joined(probe, build, keyless), nestedLoop(probe, build, () => true, 'inner'), 'cross');
  assert.equal(await joined(probe, build, { ...keyless, joinFilter: odd, semi: true }), nestedLoop(probe, build, isOdd, 'semi'), 'semi, filtered');
  assert.equal(await joined(probe, build, { ...keyless, joinFilter: odd, anti: true, preserveProbe: false }), nestedLoop(probe, build, isOdd, 'anti'), 'anti, filtered');
  assert.equal(await joined(probe, build, { ...keyless, joinFilter: odd, preserveProbe: true }), nestedLoop(probe, build, isOdd, 'left'), 'left, filtered');
  // Keyed, with about 3,333 build rows per key.
  assert.equal(await joined(probe, build, {}), nestedLoop(probe, build, (p, b) => p === b, 'inner'), 'duplicate keys');
  assert.equal(await joined(probe, build, { joinFilter: odd, semi: true }), nestedLoop(probe, build, (p, b) => p === b && isOdd(p, b), 'semi'), 'keyed semi');
  // Padded rows follow the pairs of their batch: the same rows, in another order (no ORDER BY).
  const sorted = (x: [Value, Value][]) => x.map((r) => JSON.stringify(r)).sort();
  assert.equal(sorted(await joined(probe, build, { preserveProbe: true })), sorted(nestedLoop(probe, build, (p, b) => p === b, 'left')), 'keyed left');
});

test('a statement stops with its signal’s reason: at once when already stopped, within milliseconds when it runs', async () => {
  const db = await createLongTables(tempDir(), false);
  try {
    const pre = new AbortController();
    pre.abort(canceled());
    try {
      await query(db, LONG['cross join']!, undefined, { signal: pre.signal });
      assert.unreachable('stopped');
    } catch (e) {
      assert.is((e as PaxdError).code, '57014');
    }
    for (const kind of ['cross join', 'sort', 'hash aggregate']) {
      const ac = new AbortController();
      let at = 0;
      setTimeout(() => {
        at = performance.now();
        ac.abort(canceled());
      }, 500);
      try {
        await query(db, LONG[kind]!, undefined, { signal: ac.signal });
        assert.unreachable(`${kind} ran to its end`);
      } catch (e) {
        const ms = performance.now() - at;
        assert.is((e as PaxdError).code, '57014', String(e));
        assert.ok(at > 0 && ms < 500, `${kind}: stopped ${ms.toFixed(1)} ms after the signal`);
      }
    }
  } finally {
    await db.close();
  }
});

test.run();

/**
 * The one bounded heap (src/scan/heap.ts) against a full stable sort: random rows with many
 * ties and NULLs, one to three keys, ASC/DESC, NULLS FIRST/LAST, every limit from 0 past the
 * row count. The engine's sortRows (its ORDER BY … LIMIT) and the heap used directly must both
 * keep exactly the first `limit` rows of the full sort, in its order.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BoundedHeap } from '../../src/scan/heap.js';
import { type SortKey, compareRows, sortRows } from '../../src/engine/exec/sort.js';
import type { PgType, Value } from '../../src/types/index.js';
import { Rng, randomValue, testSeed } from '../support/random.js';

const TYPES: PgType[] = [{ id: 'int4' }, { id: 'int8' }, { id: 'float8' }, { id: 'text' }, { id: 'timestamp' }, { id: 'numeric', precision: 6, scale: 2 }];

/** A value from a small domain so that ties are common, NULL one time in four. */
function tiedValue(pool: Value[], rng: Rng): Value {
  if (rng.chance(0.25)) return null;
  return rng.pick(pool);
}

test('bounded heap keeps the first LIMIT rows of a stable full sort (ties, NULLs first/last, DESC)', async () => {
  const rng = new Rng(testSeed(0x4ea9));
  for (let round = 0; round < 300; round++) {
    const width = rng.int(1, 3);
    const types = Array.from({ length: width }, () => rng.pick(TYPES));
    const pools = types.map((t) => Array.from({ length: rng.int(1, 6) }, () => randomValue(t, rng)).filter((v) => v !== null));
    const keys: SortKey[] = types.map((type, index) => {
      const desc = rng.chance(0.5);
      return { index, type, desc, nullsFirst: rng.chance(0.5) ? desc : !desc };
    });
    const n = rng.int(0, 200);
    const rows: Value[][] = Array.from({ length: n }, (_, i) => [...types.map((_, k) => (pools[k]!.length === 0 ? null : tiedValue(pools[k]!, rng))), i]);
    const expected = [...rows].sort((a, b) => compareRows(keys, a, b)); // Array.prototype.sort is stable
    for (const limit of [0, 1, rng.int(1, 10), rng.int(0, n + 5), n, n + 3, Math.floor(n / 9)]) {
      const want = expected.slice(0, limit).map((r) => r[width]);
      const viaSort = (await sortRows([...rows], keys, limit)).slice(0, limit).map((r) => r[width]); // it may keep more than asked
      assert.equal(viaSort, want, `sortRows, round ${round}, limit ${limit} of ${n}`);
      const heap = new BoundedHeap<Value[]>(limit, (a, b) => compareRows(keys, a, b) || (a[width] as number) - (b[width] as number));
      for (const r of rows) heap.offer(r);
      assert.is(heap.size, Math.min(limit, n));
      assert.equal(heap.sorted().map((r) => r[width]), want, `BoundedHeap, round ${round}, limit ${limit} of ${n}`);
    }
  }
});

test('bounded heap: worst() is the row a better one displaces; offer of a worse row is refused', () => {
  const h = new BoundedHeap<number>(3, (a, b) => a - b);
  for (const x of [9, 4, 7]) assert.ok(h.offer(x));
  assert.ok(h.full);
  assert.is(h.worst(), 9);
  assert.not.ok(h.offer(10));
  assert.not.ok(h.offer(9)); // a tie with the worst does not displace it
  assert.ok(h.offer(1));
  assert.is(h.worst(), 7);
  assert.equal(h.sorted(), [1, 4, 7]);
  assert.is(h.size, 0);
});

test.run();

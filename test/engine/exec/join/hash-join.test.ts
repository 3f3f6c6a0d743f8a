/**
 * The hash join operator (src/engine/exec/join/hash-join.ts) over wide batches: PostgreSQL's key
 * equality (numeric by value, 0 = -0, NaN = NaN, bpchar without trailing blanks, NULL never
 * equal), outer-join padding on either side, semi-joins, and the work-memory limit (53200).
 * test/engine/join-spill.test.ts runs the joins that spill past it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { PgType, Value } from '../../../../src/types/index.js';
import { E } from '../../../../src/engine/expr.js';
import { HashJoin, type HashJoinSpec } from '../../../../src/engine/exec/join/hash-join.js';
import type { RowBatch } from '../../../../src/engine/exec/batch.js';

/** Slot 0: the probe key; slot 1: the build key. */
async function join(type: PgType, probe: Value[], build: Value[], opts: Partial<HashJoinSpec> = {}): Promise<[Value, Value][]> {
  const spec: HashJoinSpec = {
    width: 2,
    probeSlots: [0],
    buildSlots: [1],
    probeKeys: [E.column(0, type, 'p')],
    buildKeys: [E.column(1, type, 'b')],
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
    for (let i = 0; i < b.rows; i++) out.push([b.cols[0]![i] ?? null, spec.semi ? null : (b.cols[1]![i] ?? null)]);
  };
  for (const b of hj.probe({ rows: probe.length, cols: [probe, []] })) take(b);
  for (const b of hj.unmatched()) take(b);
  return out;
}

test('numeric keys match by value, whatever their scale', async () => {
  assert.equal(await join({ id: 'numeric' }, ['1.50', '-0.0', '2'], ['1.5', '0', '2.000', 'NaN']), [
    ['1.50', '1.5'],
    ['-0.0', '0'],
    ['2', '2.000'],
  ]);
});

test('float keys: 0 = -0 and NaN = NaN; NULL matches nothing', async () => {
  assert.equal(await join({ id: 'float8' }, [0, NaN, null, 1], [-0, NaN, null]), [
    [0, -0],
    [NaN, NaN],
  ]);
});

test('bpchar keys ignore trailing blanks; duplicates give every pair, in build order', async () => {
  assert.equal(await join({ id: 'bpchar', length: 3 }, ['a  '], ['a', 'b  ', 'a  ']), [
    ['a  ', 'a'],
    ['a  ', 'a  '],
  ]);
});

test('outer joins pad the side they keep with NULLs; semi-joins give each probe row once', async () => {
  const t: PgType = { id: 'int4' };
  assert.equal(await join(t, [1, 2, null], [1, 1, 3], { preserveProbe: true }), [
    [1, 1],
    [1, 1],
    [2, null],
    [null, null],
  ]);
  assert.equal(await join(t, [1, 2], [1, 3, null], { preserveBuild: true }), [
    [1, 1],
    [null, 3],
    [null, null],
  ]);
  assert.equal(await join(t, [1, 2, 1], [1, 1, 1], { semi: true }), [
    [1, null],
    [1, null],
  ]);
});

test('a build side past the work memory says so, and its error is 53200', async () => {
  const t: PgType = { id: 'int4' };
  const hj = new HashJoin({
    width: 2,
    probeSlots: [0],
    buildSlots: [1],
    probeKeys: [E.column(0, t, 'p')],
    buildKeys: [E.column(1, t, 'b')],
    semi: false,
    preserveProbe: false,
    preserveBuild: false,
    joinFilter: null,
    workMem: 10000,
  });
  hj.addBuild({ rows: 10, cols: [[], Array.from({ length: 10 }, (_v, i) => i)] });
  assert.not.ok(hj.exceeded);
  hj.addBuild({ rows: 10000, cols: [[], Array.from({ length: 10000 }, (_v, i) => i)] });
  assert.ok(hj.exceeded);
  assert.is(hj.tooBig().code, '53200');
});

test.run();

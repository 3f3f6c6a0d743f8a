/**
 * Property tests (docs/ARCHITECTURE.md "Scans that skip"): random data (every orderable type, NULLs, NaN,
 * ±Infinity, long strings with truncated statistics), random predicates and random deletes;
 * every filtered scan, aggregate and top-N equals the brute-force oracle (./oracle.ts) over
 * all rows, and aggregates answered from statistics equal a full scan bit for bit.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database, type Table } from '../../src/table/database.js';
import type { Column, Value } from '../../src/types/column.js';
import { getValue } from '../../src/types/builder.js';
import { concatRanges } from '../../src/types/concat.js';
import type { Field, PgType } from '../../src/types/type.js';
import type { Predicate } from '../../src/scan/predicate.js';
import { describePredicate, bindPredicate } from '../../src/scan/predicate.js';
import { ColumnBuilder } from '../../src/types/builder.js';
import { Rng, randomValue, testSeed } from '../support/random.js';
import { tempDir } from '../support/tmp.js';
import { readAll } from '../support/columns.js';
import { type Model, bruteAggregate, bruteTopN, matching, randomAggs, randomPredicate, rowsOf, sameAggregate } from './oracle.js';

const TYPES: [string, PgType][] = [
  ['id', { id: 'int8' }],
  ['i2', { id: 'int2' }],
  ['i4', { id: 'int4' }],
  ['i8', { id: 'int8' }],
  ['f4', { id: 'float4' }],
  ['f8', { id: 'float8' }],
  ['bo', { id: 'bool' }],
  ['tx', { id: 'text' }],
  ['vc', { id: 'varchar', length: 10 }],
  ['bp', { id: 'bpchar', length: 3 }],
  ['by', { id: 'bytea' }],
  ['dt', { id: 'date' }],
  ['ts', { id: 'timestamp' }],
  ['tz', { id: 'timestamptz' }],
  ['nd', { id: 'numeric', precision: 10, scale: 2 }],
  ['nu', { id: 'numeric' }],
  ['uu', { id: 'uuid' }],
  ['jb', { id: 'jsonb' }],
];

/** Floats from a tame range (sums do not overflow differently by order), with NaN and ±Infinity. */
function tameFloat(rng: Rng, single: boolean): number {
  const r = rng.int(0, 19);
  const x = r === 0 ? rng.pick([NaN, Infinity, -Infinity, -0, 0]) : rng.int(-10000, 10000) / rng.pick([1, 4, 10]);
  return single ? Math.fround(x) : x;
}

function tameNumeric(rng: Rng): string {
  if (rng.chance(0.03)) return rng.pick(['NaN', 'Infinity', '-Infinity']);
  return (rng.int(-100000, 100000) / rng.pick([1, 100, 1000])).toString();
}

/** A column with a small domain per type (so equality predicates hit), NULLs at 10%. */
function column(name: string, t: PgType, n: number, offset: number, rng: Rng): Column {
  const b = new ColumnBuilder(t, n);
  const pool: Value[] = [];
  for (let i = 0; i < 40; i++) pool.push(t.id === 'float4' || t.id === 'float8' ? tameFloat(rng, t.id === 'float4') : t.id === 'numeric' && t.precision === undefined ? tameNumeric(rng) : randomValue(t, rng));
  for (let i = 0; i < n; i++) {
    if (name === 'id') b.append(BigInt(offset + i));
    else if (name === 'ts') b.append(rng.chance(0.05) ? null : BigInt(offset + i) * 1000000n + 1600000000000000n);
    else if (rng.chance(0.1)) b.append(null);
    else b.append(rng.chance(0.5) ? rng.pick(pool) : t.id === 'float4' || t.id === 'float8' ? tameFloat(rng, t.id === 'float4') : t.id === 'numeric' && t.precision === undefined ? tameNumeric(rng) : randomValue(t, rng));
  }
  return b.finish();
}

async function setup(seed: number): Promise<{ db: Database; t: Table; m: Model; rng: Rng }> {
  const rng = new Rng(seed);
  const db = await Database.open(tempDir());
  const fields = TYPES.map(([name, type]) => ({ name, type, notNull: false }));
  const t = await db.createTable('p', fields, { rowGroupRows: 2048, zoneRows: 1024 });
  const m: Model = { fields: t.fields as Field[], rows: [], deleted: [] };
  let offset = 0;
  for (const n of [5000, 3000, 700]) {
    const cols = TYPES.map(([name, type]) => column(name, type, n, offset, rng));
    const sink = t.sink();
    // irregular batches
    for (let at = 0; at < n; ) {
      const len = Math.min(n - at, rng.int(1, 2500));
      await sink.write({ length: len, columns: cols.map((c) => concatRanges(c.type, [{ column: c, start: at, length: len }])), selection: null });
      at += len;
    }
    await sink.commit();
    m.rows.push(...rowsOf(cols));
    offset += n;
  }
  m.deleted = m.rows.map(() => false);
  await t.refresh();
  return { db, t, m, rng };
}

function ids(c: Column): number[] {
  const out: number[] = [];
  for (let i = 0; i < c.length; i++) out.push(Number(getValue(c, i) as bigint));
  return out;
}

async function checkScan(t: Table, m: Model, p: Predicate | undefined, what: string): Promise<void> {
  const want = matching(m, p);
  const scan = t.scan({ columns: ['id', 'tx'], ...(p !== undefined ? { where: p } : {}), batchRows: 512 });
  const got = ids((await readAll(scan))[0]!);
  assert.equal(got, want, `${what}: filtered scan`);
  const s = scan.stats;
  assert.is(s.groupsSkippedByPredicate + s.groupsSkippedByBound + s.groupsRead, s.groupsTotal, `${what}: group accounting`);
}

async function checkAggregates(t: Table, m: Model, p: Predicate | undefined, rng: Rng, what: string): Promise<void> {
  const aggs = randomAggs(m, rng);
  const idx = matching(m, p);
  const r = await t.aggregate(aggs, p);
  const full = await t.aggregate(aggs, p, { useStats: false });
  aggs.forEach((a, i) => {
    const f = m.fields.find((x) => x.name === a.column);
    const want = bruteAggregate(m, a, idx);
    const got = r.values[i]!;
    const desc = `${what}: ${a.fn}(${a.column ?? '*'}) = ${String(got)}, expected ${String(want)}`;
    assert.ok(sameAggregate(f?.type ?? null, a.fn, got, want), desc);
    // statistics and a full scan agree exactly (floats included)
    const g2 = full.values[i]!;
    assert.ok(Object.is(got, g2) || (got instanceof Uint8Array && sameAggregate(f!.type, a.fn, got, g2)), `${what}: ${a.fn}(${a.column ?? '*'}) from statistics ${String(got)}, full scan ${String(g2)}`);
  });
  assert.is(full.stats.groupsAnsweredFromStats, 0);
}

async function checkTopN(t: Table, m: Model, p: Predicate | undefined, rng: Rng, what: string): Promise<void> {
  const orderable = m.fields.filter((f) => f.type.id !== 'jsonb');
  const nk = rng.int(1, 2);
  const orderBy = [];
  for (let k = 0; k < nk; k++) {
    const f = rng.pick(orderable);
    orderBy.push({ column: f.name, desc: rng.chance(0.5), ...(rng.chance(0.3) ? { nullsFirst: rng.chance(0.5) } : {}) });
  }
  const limit = rng.int(0, 40);
  const offset = rng.chance(0.3) ? rng.int(0, 20) : 0;
  const want = bruteTopN(m, orderBy, matching(m, p), limit, offset);
  for (const visit of ['bound', 'storage'] as const) {
    const r = await t.topN({ orderBy, limit, offset, ...(p !== undefined ? { where: p } : {}), columns: ['id'], visit });
    assert.equal(ids(r.columns[0]!), want, `${what}: top-N ${JSON.stringify(orderBy)} limit ${limit} offset ${offset} visit ${visit}`);
  }
}

test('filtered scans, aggregates and top-N equal brute force, through random deletes and compaction', async () => {
  const seed = testSeed();
  const { db, t, m, rng } = await setup(seed);
  for (let round = 0; round < 6; round++) {
    for (let k = 0; k < 12; k++) {
      const p = rng.chance(0.1) ? undefined : randomPredicate(m, rng);
      const what = `seed ${seed} round ${round} #${k} WHERE ${p === undefined ? 'true' : describePredicate(bindPredicate(p, m.fields))}`;
      await checkScan(t, m, p, what);
      await checkAggregates(t, m, p, rng, what);
      await checkTopN(t, m, p, rng, what);
    }
    // a random delete (sometimes deleting the extremes of a column), then sometimes compaction
    const d = randomPredicate(m, rng);
    const want = matching(m, d);
    const r = await t.delete(d);
    assert.is(r.deleted, want.length, `seed ${seed} round ${round}: deleted rows`);
    for (const i of want) m.deleted[i] = true;
    assert.is(t.rows, m.deleted.filter((x) => !x).length);
    if (round % 3 === 2) {
      const c = await t.compact();
      assert.ok(c.filesRewritten > 0 || want.length === 0);
    }
  }
  await db.close();
});

test.run();

/**
 * What postgres_fdw sends that only paxd can answer (the rest of its dialect is
 * differential, fixtures/sql/40-fdw-dialect.sql): EXPLAIN's cost line as get_remote_estimate
 * parses it, with rows estimated from statistics; the ctid system column; the size query of
 * ANALYZE; and the process-wide scan counters that show a count(*) answered from statistics.
 *
 * Table o: 4,096 rows in four row groups of 1,024, id = 0..4095 ascending (disjoint group
 * ranges, so zone maps decide exactly), k = id % 40, s one of four words.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { columnOf, type Value } from '../../src/types/index.js';
import { engineCounters, prepare, query, textRows } from '../../src/engine/index.js';
import { parseCtid } from '../../src/scan/index.js';
import { tempDir } from '../support/tmp.js';

const ROWS = 4096;
let dbp: Promise<Database> | null = null;

function setup(): Promise<Database> {
  dbp ??= (async () => {
    const db = await Database.open(tempDir());
    const t = await db.createTable('o', [{ name: 'id', type: 'int4', notNull: true }, { name: 'k', type: 'int4' }, { name: 's', type: 'text' }], { rowGroupRows: 1024, zoneRows: 1024 });
    const ids: Value[] = [];
    const ks: Value[] = [];
    const ss: Value[] = [];
    for (let i = 0; i < ROWS; i++) {
      ids.push(i);
      ks.push(i % 40);
      ss.push(['paid', 'new', 'shipped', 'void'][i % 4]!);
    }
    const sink = t.sink();
    await sink.write({ length: ROWS, columns: [columnOf(t.fields[0]!.type, ids), columnOf(t.fields[1]!.type, ks), columnOf(t.fields[2]!.type, ss)], selection: null });
    await sink.commit();
    await query(db, 'CREATE TABLE c (id int4 NOT NULL, name text)');
    await query(db, `INSERT INTO c VALUES ${Array.from({ length: 40 }, (_v, i) => `(${i}, 'c${i}')`).join(', ')}`);
    return db;
  })();
  return dbp;
}

/** get_remote_estimate (postgres_fdw.c): the first line, from its last '(', as sscanf reads it. */
function remoteEstimate(lines: string[]): { startup: number; total: number; rows: number; width: number } {
  const line = lines[0]!;
  const p = line.slice(line.lastIndexOf('('));
  const m = /^\(cost=(\d+\.\d+)\.\.(\d+\.\d+) rows=(\d+) width=(\d+)\)/.exec(p);
  assert.ok(m !== null, `could not interpret EXPLAIN output: "${line}"`);
  return { startup: Number(m[1]), total: Number(m[2]), rows: Number(m[3]), width: Number(m[4]) };
}

async function explain(sql: string): Promise<string[]> {
  return textRows(await query(await setup(), `EXPLAIN ${sql}`)).map((r) => r[0]!);
}

test('EXPLAIN: every node line ends with PostgreSQL cost estimates; COSTS OFF omits them', async () => {
  const lines = await explain('SELECT s, count(*) FROM public.o WHERE ((id < 1500)) GROUP BY 1 ORDER BY 2 DESC NULLS FIRST LIMIT 2::bigint');
  const nodes = lines.filter((l) => !/^\s+[A-Z][A-Za-z ]+:/.test(l));
  assert.ok(nodes.length >= 4, lines.join('\n'));
  for (const l of nodes) assert.match(l, / {2}\(cost=\d+\.\d{2}\.\.\d+\.\d{2} rows=\d+ width=\d+\)$/);
  const off = textRows(await query(await setup(), 'EXPLAIN (COSTS OFF) SELECT count(*) FROM o')).map((r) => r[0]!);
  assert.is(off[0], 'Aggregate');
});

test('EXPLAIN rows: pruned groups count nothing, range predicates keep their overlap, equality 1/ndv', async () => {
  assert.is(remoteEstimate(await explain('SELECT id FROM public.o')).rows, 4096);
  // id < 1500: group 1 whole, group 2 in part (zone maps skip groups 3 and 4).
  const lt = remoteEstimate(await explain('SELECT id FROM public.o WHERE ((id < 1500))')).rows;
  assert.ok(lt >= 1400 && lt <= 1600, String(lt));
  assert.is(remoteEstimate(await explain('SELECT id, k FROM public.o WHERE ((id = 2500))')).rows, 1);
  const k = remoteEstimate(await explain('SELECT id FROM public.o WHERE ((k = 7))')).rows;
  assert.ok(k >= 50 && k <= 200, String(k));
  assert.is(remoteEstimate(await explain('SELECT id FROM public.o WHERE ((id > 9000))')).rows, 1);
  assert.is(remoteEstimate(await explain('SELECT id FROM public.o ORDER BY id ASC NULLS LAST LIMIT 5::bigint')).rows, 5);
  assert.is(remoteEstimate(await explain('SELECT count(*), sum(k) FROM public.o')).rows, 1);
  // GROUP BY an integer column: at most its range of distinct values.
  assert.is(remoteEstimate(await explain('SELECT k, count(*) FROM public.o GROUP BY 1')).rows, 40);
  const join = remoteEstimate(await explain('SELECT r1.id, r2.name FROM (public.o r1 INNER JOIN public.c r2 ON (((r1.k = r2.id))))'));
  assert.ok(join.rows >= 2000 && join.rows <= 8000, String(join.rows));
});

test('EXPLAIN costs favour paxd: statistics answers nearly free, sorts and aggregates start after their input', async () => {
  const count = remoteEstimate(await explain('SELECT count(*) FROM public.o'));
  const scan = remoteEstimate(await explain('SELECT NULL FROM public.o'));
  assert.ok(count.total < 0.1, JSON.stringify(count));
  assert.ok(scan.total > count.total * 10, JSON.stringify(scan));
  const sorted = remoteEstimate(await explain('SELECT id FROM public.o ORDER BY k ASC NULLS LAST'));
  assert.ok(sorted.startup >= scan.total, JSON.stringify(sorted));
  const grouped = remoteEstimate(await explain('SELECT s, count(*), sum(k) FROM public.o GROUP BY 1'));
  assert.ok(grouped.startup >= scan.total && grouped.total >= grouped.startup, JSON.stringify(grouped));
  assert.is(remoteEstimate(await explain('SELECT id, k FROM public.o')).width, 8);
});

test('EXPLAIN accepts postgres_fdw parameter placeholders; EXPLAIN ANALYZE keeps its lines', async () => {
  const lines = await explain('SELECT id, k FROM public.o WHERE ((((SELECT null::integer)::integer) = k))');
  remoteEstimate(lines);
  const analyzed = textRows(await query(await setup(), 'EXPLAIN ANALYZE SELECT count(*) FROM o WHERE id < 10')).map((r) => r[0]!);
  assert.match(analyzed[0]!, /^Aggregate {2}\(cost=[\d.]+\.\.[\d.]+ rows=1 width=8\) \(actual time=/);
  assert.ok(analyzed.some((l) => l.includes('Row Groups: 4 total, 3 skipped by predicate')), analyzed.join('\n'));
  assert.match(analyzed[analyzed.length - 1]!, /^Execution Time: /);
});

test('ctid: selectable (not in *), names the row by group rank and position, usable in WHERE', async () => {
  const db = await setup();
  const r = await query(db, 'SELECT id, s, ctid FROM public.o WHERE ((id = ANY (\'{5,1500,4095}\'::integer[]))) FOR UPDATE');
  assert.equal(textRows(r), [
    ['5', 'new', '(0,6)'],
    ['1500', 'paid', '(512,477)'],
    ['4095', 'void', '(1536,1024)'],
  ]);
  assert.equal(parseCtid('(512,477)'), { unit: 1, row: 476 });
  assert.is((await query(db, 'SELECT * FROM o WHERE id = 1')).fields.length, 3);
  assert.equal(textRows(await query(db, "SELECT id FROM o WHERE ctid = '(512,477)'")), [['1500']]);
  assert.equal(textRows(await query(db, "SELECT id FROM o WHERE ctid = ' ( 512 , 477 ) ' AND k = 20")), [['1500']]);
  assert.equal(textRows(await query(db, "SELECT count(*) FROM o WHERE ctid <> '(0,1)'")), [['4095']]);
  // A parameter compared with ctid takes its text form, as postgres_fdw sends it.
  const p = await prepare(db, 'SELECT id, ctid FROM o WHERE ctid = $1');
  assert.equal(textRows(await p.execute(['(1536,1024)'])), [['4095', '(1536,1024)']]);
  for (const [sql, code] of [
    ["SELECT id FROM o WHERE ctid = 'x'", '22P02'],
    ["SELECT id FROM o WHERE ctid < '(0,1)'", '0A000'],
    ['SELECT ctid FROM o JOIN c ON o.k = c.id', '42702'],
    ['SELECT o.ctid FROM o JOIN c ON o.k = c.id', '0A000'],
  ] as const) {
    const e = await query(db, sql).then(() => null, (x: { code?: string }) => x);
    assert.is(e?.code, code, sql);
  }
});

test('pg_relation_size of a regclass literal: the bytes of the pinned data files; 42P01 for no table', async () => {
  const db = await setup();
  const r = await query(db, "SELECT pg_catalog.pg_relation_size('public.o'::pg_catalog.regclass) / 8192, pg_relation_size('o'::regclass)");
  assert.is(r.fields[0]!.type.id, 'int8');
  const [pages, bytes] = textRows(r)[0]!.map(Number) as [number, number];
  assert.ok(bytes > 0 && pages === Math.floor(bytes / 8192), `${pages} ${bytes}`);
  const e = await query(db, "SELECT pg_relation_size('public.nope'::regclass)").then(() => null, (x: { code?: string }) => x);
  assert.is(e?.code, '42P01');
});

test('engineCounters: count(*) is answered from statistics, a filtered scan reads groups', async () => {
  const db = await setup();
  const a = engineCounters();
  assert.equal(textRows(await query(db, 'SELECT count(*) FROM public.o')), [['4096']]);
  const b = engineCounters();
  assert.is(b.groupsAnsweredFromStats - a.groupsAnsweredFromStats, 4);
  assert.is(b.groupsRead - a.groupsRead, 0);
  assert.is(b.scans - a.scans, 1);
  await query(db, 'SELECT id FROM o WHERE k = 3 AND id >= 3072');
  const c = engineCounters();
  assert.is(c.groupsRead - b.groupsRead, 1);
  assert.is(c.groupsSkippedByPredicate - b.groupsSkippedByPredicate, 3);
  assert.is(c.rowsRead - b.rowsRead, 1024);
});

test('what the engine cannot read exactly is 0A000: array forms, regex constructs, other aggregates', async () => {
  const db = await setup();
  for (const sql of [
    "SELECT id FROM o WHERE id = ANY ('[1:2]={1,2}'::integer[])",
    "SELECT id FROM o WHERE id = ANY ('{{1},{2}}'::integer[])",
    "SELECT id FROM o WHERE s ~ '\\bpaid'",
    "SELECT id FROM o WHERE s ~ '[[:alpha:]]'",
    "SELECT id FROM o WHERE s ~ '(?i)paid'",
    "SELECT id FROM o WHERE s ~ '[]a]'",
    "SELECT id FROM o WHERE s ~* 'é'",
    'SELECT mode() WITHIN GROUP (ORDER BY k) FROM o',
  ]) {
    const e = await query(db, sql).then(() => null, (x: { code?: string }) => x);
    assert.is(e?.code, '0A000', sql);
  }
  assert.equal(textRows(await query(db, "SELECT count(*) FROM o WHERE s ~ '^(paid|void)$' AND k = ANY ('{ 0 , \"3\" }')")), [['206']]);
});

test.run();

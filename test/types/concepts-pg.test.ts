/**
 * One implementation per concept, shown through every front door and differential against a
 * real PostgreSQL 15 (house issue "one implementation per concept"):
 *
 *   numeric division   select_div_scale (src/types/numeric.ts): the engine's `/`, avg() in the
 *                      engine and avg() answered from statistics (Table.aggregate)
 *   date/time text     src/types/datetime.ts: CSV and NDJSON ingest, the engine's output
 *                      (formatText), the wire's row encoder (DataRow bytes) and `paxd stats`
 *   JSON scanning      src/types/json-scan.ts: NDJSON input and jsonb input accept and reject
 *                      the same documents, with PostgreSQL's jsonb text
 *   unit names         src/types/datetime.ts: interval input, date_trunc and extract take the
 *                      same spellings PostgreSQL takes
 *
 * Parquet export writes dates and timestamps as date32/timestamp[us] (no text), so it is not a
 * door of the text concept.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { query, textRows } from '../../src/engine/index.js';
import { ingestFiles } from '../../src/table/ingest.js';
import { RowEncoder } from '../../src/pgwire/codec/row-encoder.js';
import { tableStats } from '../../src/table/stats-report.js';
import { PaxdError, UNIX_EPOCH_JD, columnOf, date2j, formatText, parseText, type PgType, type Value } from '../../src/types/index.js';
import { UNIT_NAMES, SPECIAL_UNIT_NAMES } from '../../src/types/datetime.js';
import { Rng, testSeed } from '../support/random.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';

/** Evaluates `expr` (with %L replaced by the quoted value) per value; 'ok:<text>' or 'err:<SQLSTATE>'. */
const TRY = `
CREATE OR REPLACE FUNCTION pg_temp.try(v text, expr text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE r text;
BEGIN
  EXECUTE format('SELECT (' || expr || ')::text', v) INTO r;
  RETURN 'ok:' || coalesce(r, '');
EXCEPTION WHEN others THEN
  RETURN 'err:' || SQLSTATE;
END $f$;`;

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** PostgreSQL's answer for each value: one query, results in order. */
async function pgTry(pg: Postgres, values: readonly string[], expr: string): Promise<string[]> {
  const rows = values.map((v, i) => `(${i}, ${lit(v)})`).join(', ');
  const out = await pg.query(`${TRY} SELECT pg_temp.try(v, ${lit(expr)}) FROM (VALUES ${rows}) AS t(i, v) ORDER BY i`);
  const lines = out.split('\n').filter((l) => l.startsWith('ok:') || l.startsWith('err:'));
  assert.is(lines.length, values.length, 'one PostgreSQL answer per value');
  return lines;
}

function ours(f: () => string): string {
  try {
    return 'ok:' + f();
  } catch (e) {
    if (e instanceof PaxdError || (e as { code?: unknown }).code !== undefined) return 'err:' + (e as { code: string }).code;
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------

test('numeric division: the engine\'s /, avg() in the engine and avg() from statistics use one select_div_scale', async () => {
  const pg = await startPostgres();
  const rng = new Rng(testSeed());
  const pairs: [string, string][] = [
    ['1.0', '3'], ['123.456', '0.3'], ['1', '7'], ['10000', '3'], ['9999', '10000'], ['0.0001', '3'],
    ['-7.5', '2'], ['100000000000000000000.0', '3'], ['1', '0.000000001'], ['0', '5.000'], ['2', '3.00000000000000000000001'],
  ];
  for (let i = 0; i < 40; i++) {
    const num = () => `${rng.chance(0.3) ? '-' : ''}${rng.int(0, 10 ** rng.int(1, 9))}${rng.chance(0.6) ? '.' + String(rng.int(0, 99999)).slice(0, rng.int(1, 5)) : ''}`;
    const y = num();
    pairs.push([num(), Number(y) === 0 ? '1' : y]);
  }
  const db = await Database.open(tempDir());
  // The engine's expression.
  const sql = `SELECT ${pairs.map(([x, y]) => `(${x}::numeric / ${y}::numeric)`).join(', ')}`;
  const engine = textRows(await query(db, sql))[0]!;
  const want = (await pg.query(`${sql.replace(/\)(, |$)/g, ')::text$1')}`)).split('|');
  pairs.forEach(([x, y], i) => assert.is(engine[i], want[i], `${x} / ${y}`));

  // avg over several groups: from statistics, in the engine, and in PostgreSQL.
  for (let round = 0; round < 3; round++) {
    const t = await db.createTable(`n${round}`, [{ name: 'c', type: round === 0 ? 'numeric' : round === 1 ? 'numeric(12,3)' : 'int8' }], { rowGroupRows: 1024, zoneRows: 1024 });
    const n = rng.int(1500, 4000);
    const vals: Value[] = [];
    const texts: string[] = [];
    for (let i = 0; i < n; i++) {
      const text = round === 2 ? String(rng.int(-1e9, 1e9)) : `${rng.int(-99999, 99999)}.${String(rng.int(0, 999)).padStart(3, '0')}`;
      texts.push(text);
      vals.push(parseText(t.fields[0]!.type, text));
    }
    const sink = t.sink();
    await sink.write({ length: n, columns: [columnOf(t.fields[0]!.type, vals)], selection: null });
    await sink.commit();
    await t.refresh();
    const fromStats = await t.aggregate([{ fn: 'avg', column: 'c' }]);
    assert.ok(fromStats.stats.groupsAnsweredFromStats > 0, 'avg answered from statistics');
    const statsText = formatText(fromStats.types[0]!, fromStats.values[0]!);
    const [engineAvg, engineDiv] = textRows(await query(db, `SELECT avg(c), sum(c)::numeric / count(c) FROM n${round}`))[0]!;
    const pgType = round === 0 ? 'numeric' : round === 1 ? 'numeric(12,3)' : 'int8';
    const [pgAvg, pgDiv] = (await pg.query(`SELECT avg(c)::text, (sum(c)::numeric / count(c))::text FROM (VALUES ${texts.map((v) => `(${lit(v)}::${pgType})`).join(', ')}) AS v(c)`)).split('|');
    assert.is(statsText, pgAvg, `avg from statistics, round ${round}`);
    assert.is(engineAvg, pgAvg, `avg in the engine, round ${round}`);
    assert.is(engineDiv, pgDiv, `sum / count in the engine, round ${round}`);
  }
  await db.close();
});

// ---------------------------------------------------------------------------------------------

const DATES = ['2024-01-02', '0044-03-15 BC', '10000-01-01', '0001-01-01', '9999-12-31', '1969-12-31', '0099-06-30', '4714-11-24 BC', '5874897-12-31', 'infinity', '-infinity', '2000-02-29'];
const TIMESTAMPS = ['2024-01-02 03:04:05', '2024-01-02 03:04:05.1', '1999-12-31 23:59:59.999999', '0044-03-15 12:00:00.5 BC', '10000-01-01 00:00:00', '1969-12-31 23:59:59.000001', '0001-01-01 00:00:00', 'infinity', '-infinity', '294246-12-31 23:59:59'];

/** The text values of a DataRow stream (text format, one column per message position). */
function dataRowTexts(buf: Buffer): (string | null)[][] {
  const rows: (string | null)[][] = [];
  let o = 0;
  while (o < buf.length) {
    assert.is(buf[o], 0x44, 'a DataRow');
    const len = buf.readInt32BE(o + 1);
    const ncols = buf.readInt16BE(o + 5);
    let p = o + 7;
    const row: (string | null)[] = [];
    for (let c = 0; c < ncols; c++) {
      const n = buf.readInt32BE(p);
      p += 4;
      row.push(n < 0 ? null : buf.toString('utf8', p, p + n));
      if (n > 0) p += n;
    }
    rows.push(row);
    o += 1 + len;
  }
  return rows;
}

test('date and timestamp text: CSV and NDJSON ingest, engine output, row encoder and stats report print what PostgreSQL prints', async () => {
  const pg = await startPostgres();
  const n = Math.max(DATES.length, TIMESTAMPS.length);
  const d = (i: number) => DATES[i % DATES.length]!;
  const s = (i: number) => TIMESTAMPS[i % TIMESTAMPS.length]!;
  const wantD = await pgTry(pg, Array.from({ length: n }, (_, i) => d(i)), '%L::date');
  const wantTs = await pgTry(pg, Array.from({ length: n }, (_, i) => s(i)), '%L::timestamp');
  const wantTz = await pgTry(pg, Array.from({ length: n }, (_, i) => s(i) + (s(i).endsWith('BC') || s(i).includes('inf') ? '' : '+00')), '%L::timestamptz');
  for (const w of [...wantD, ...wantTs, ...wantTz]) assert.ok(w.startsWith('ok:'), `PostgreSQL accepts every input (${w})`);

  const dir = tempDir();
  const csv = join(dir, 'dt.csv');
  const ndjson = join(dir, 'dt.ndjson');
  const tzIn = (i: number) => (s(i).endsWith('BC') || s(i).includes('inf') ? s(i) : s(i) + '+00');
  writeFileSync(csv, Array.from({ length: n }, (_, i) => `${i},"${d(i)}","${s(i)}","${tzIn(i)}"`).join('\n') + '\n');
  writeFileSync(ndjson, Array.from({ length: n }, (_, i) => JSON.stringify({ id: i, d: d(i), ts: s(i), tz: tzIn(i) })).join('\n') + '\n');
  const db = await Database.open(join(dir, 'db'));
  const columns = [
    { name: 'id', type: 'int4' },
    { name: 'd', type: 'date' },
    { name: 'ts', type: 'timestamp' },
    { name: 'tz', type: 'timestamptz' },
  ];
  for (const [name, file, format] of [['from_csv', csv, 'csv'], ['from_ndjson', ndjson, 'ndjson']] as const) {
    const t = await db.createTable(name, columns);
    await ingestFiles(t, [file], { format });
    await t.refresh();
    const want = (i: number) => [wantD[i]!.slice(3), wantTs[i]!.slice(3), wantTz[i]!.slice(3)];
    // The engine's output (formatText of each value).
    const engine = textRows(await query(db, `SELECT d, ts, tz FROM ${name} ORDER BY id`));
    engine.forEach((row, i) => assert.equal(row, want(i), `${format} → engine, row ${i}`));
    // The wire's row encoder over the scanned batches.
    const scan = t.scan({ columns: ['id', 'd', 'ts', 'tz'] });
    await scan.begin();
    const enc = new RowEncoder(t.fields.map((f, i) => ({ source: i, type: f.type })));
    const wire: (string | null)[][] = [];
    for (let b = await scan.next(); b !== null; b = await scan.next()) wire.push(...dataRowTexts(enc.encode([{ batch: b, from: 0, to: b.selection === null ? b.length : b.selection.length }])));
    await scan.end();
    wire.sort((a, b) => Number(a[0]) - Number(b[0]));
    wire.forEach((row, i) => assert.equal(row.slice(1), want(i), `${format} → row encoder, row ${i}`));
    // `paxd stats`: min and max in PostgreSQL's text.
    const report = tableStats(t);
    const [minD, maxD] = (await pg.query(`SELECT min(v::date)::text, max(v::date)::text FROM unnest(ARRAY[${DATES.map(lit).join(', ')}]) v`)).split('|');
    assert.is(report.columns['d']!.min, minD, `${format} → stats min`);
    assert.is(report.columns['d']!.max, maxD, `${format} → stats max`);
    const [minTs, maxTs] = (await pg.query(`SELECT min(v::timestamp)::text, max(v::timestamp)::text FROM unnest(ARRAY[${TIMESTAMPS.map(lit).join(', ')}]) v`)).split('|');
    assert.is(report.columns['ts']!.min, minTs, `${format} → stats min`);
    assert.is(report.columns['ts']!.max, maxTs, `${format} → stats max`);
  }
  // The calendar itself: every day of four centuries around the epoch, against date_out.
  const days = Array.from({ length: 400 }, (_, k) => -80000 + k * 401);
  const pgDays = (await pg.query(`SELECT (date '1970-01-01' + v)::text FROM unnest(ARRAY[${days.join(',')}]) v`)).split('\n').filter((l) => l !== '');
  days.forEach((k, i) => assert.is(formatText({ id: 'date' }, k), pgDays[i], `day ${k}`));
  assert.is(date2j(1970, 1, 1), UNIX_EPOCH_JD);
  await db.close();
});

// ---------------------------------------------------------------------------------------------

const DOCS = [
  '{"b": 1, "a": [1.50, 2e2, -0.0, "x\\u00e9"]}', '[]', '{}', '"s"', '1.0', '-0', 'true', 'null',
  '{"a": {"b": {"c": [null, false]}}}', '{"a":1,"a":2}', '["\\ud83d\\ude00"]', '"tab\\tq\\"uote"',
  '[01]', '[1.]', '[.5]', '[-]', '[1e]', '[1e+]', '[+1]', '[1x]', '["\\x"]', '["\\u12"]', '["a\u0001"]',
  '{"a" 1}', '{"a":}', '[1,]', '[1 2]', '{"a":1,}', '[nul]', '[True]', '["\\ud800"]', '["\\u0000"]', '[1e400000]',
];

test('JSON: NDJSON input and jsonb input accept and reject the same documents, with PostgreSQL\'s jsonb text', async () => {
  const pg = await startPostgres();
  const want = await pgTry(pg, DOCS, '%L::jsonb');
  const dir = tempDir();
  const db = await Database.open(join(dir, 'db'));
  const t = await db.createTable('j', [{ name: 'id', type: 'int4' }, { name: 'j', type: 'jsonb' }]);
  const file = join(dir, 'j.ndjson');
  writeFileSync(file, DOCS.map((doc, i) => `{"id": ${i}, "j": ${doc}}`).join('\n') + '\n');
  const rejects = join(dir, 'rejects.ndjson');
  await ingestFiles(t, [file], { format: 'ndjson', onError: 'skip', rejects });
  await t.refresh();
  const loaded = new Map(textRows(await query(db, 'SELECT id, j FROM j')).map((r) => [Number(r[0]), r[1]]));
  DOCS.forEach((doc, i) => {
    const jsonb = ours(() => formatText({ id: 'jsonb' }, parseText({ id: 'jsonb' }, doc)));
    const ndjson = loaded.has(i) ? 'ok:' + loaded.get(i)! : 'rejected';
    if (want[i]!.startsWith('ok:')) {
      assert.is(jsonb, want[i], `jsonb input of ${doc}`);
      assert.is(ndjson, want[i], `NDJSON value ${doc}`);
    } else {
      assert.ok(jsonb.startsWith('err:'), `jsonb rejects ${doc}`);
      // Syntax errors are PostgreSQL's SQLSTATE; NDJSON rejects the line.
      if (want[i] === 'err:22P02') assert.is(jsonb, want[i], `jsonb error of ${doc}`);
      assert.is(ndjson, 'rejected', `NDJSON rejects ${doc}`);
    }
  });
  await db.close();
});

// ---------------------------------------------------------------------------------------------

test('unit names: interval input, date_trunc and extract take PostgreSQL\'s spellings', async () => {
  const pg = await startPostgres();
  // deltatktbl and the extract-only words of datetktbl (PostgreSQL 15 datetime.c), written out
  // here rather than taken from paxd's table, plus words that must not be units.
  const pgWords = (
    'c cent centuries century d day days dec decade decades decs h hour hours hr hrs m microsecon ' +
    'microsecond microseconds min mins minute minutes mil millennia millennium mils millisecon ' +
    'millisecond milliseconds mon mons month months ms msec msecond mseconds msecs qtr quarter s sec ' +
    'second seconds secs timezone timezone_h timezone_hour timezone_m timezone_minute us usec usecond ' +
    'useconds usecs w week weeks y year years yr yrs dow doy isodow isoyear j jd julian epoch'
  ).split(' ');
  const words = [...new Set([...pgWords, ...Object.keys(UNIT_NAMES), ...Object.keys(SPECIAL_UNIT_NAMES)])];
  words.push('MicroSeconds', 'millisecondsxyz', 'fortnight', 'constructor', 'toString', 'quarters', 'hasOwnProperty');
  const ts = '2024-05-17 10:11:12.345678';
  // interval input: "2 <unit>"
  const wantIv = await pgTry(pg, words.map((w) => `2 ${w}`), '%L::interval');
  const ivType: PgType = { id: 'interval' };
  words.forEach((w, i) => {
    const got = ours(() => formatText(ivType, parseText(ivType, `2 ${w}`)));
    assert.is(got, wantIv[i], `'2 ${w}'::interval`);
  });
  // date_trunc and extract through the engine
  const db = await Database.open(tempDir());
  const wantTrunc = await pgTry(pg, words, `date_trunc(%L, timestamp ${lit(ts)})`);
  const wantPart = await pgTry(pg, words, `date_part(%L, timestamp ${lit(ts)})`);
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const got = await query(db, `SELECT date_trunc(${lit(w)}, timestamp ${lit(ts)})`).then((r) => 'ok:' + textRows(r)[0]![0], (e: { code: string }) => 'err:' + e.code);
    assert.is(got, wantTrunc[i], `date_trunc('${w}', …)`);
    const gotX = await query(db, `SELECT date_part(${lit(w)}, timestamp ${lit(ts)})`).then((r) => 'ok:' + textRows(r)[0]![0], (e: { code: string }) => 'err:' + e.code);
    assert.is(gotX, wantPart[i], `date_part('${w}', …)`);
  }
  await db.close();
});

test.run();

/**
 * Date/time and interval kernels (src/engine/exec/datetime.ts, src/types/interval.ts) and the
 * numeric kernels beside them (src/engine/exec/numeric.ts) at their edges: leap years,
 * month-end arithmetic, negative intervals, range errors; and, through the engine, constant
 * folding and the pushdown of a date compared with a folded timestamp. The differential
 * suite (fixtures/sql/30-datetime.sql, 31-math.sql) checks the same against PostgreSQL.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseText } from '../../src/types/index.js';
import { formatInterval, makeInterval, parseIntervalValue, INTERVAL_RANGE } from '../../src/types/interval.js';
import { dateAddDays, dateTrunc, extractField, intervalDiv, intervalMul, intervalTrunc, timestampDiff, timestampPlusInterval } from '../../src/engine/exec/datetime.js';
import { numericDiv, numericMod, numericPower, numericRound, numericSqrt } from '../../src/engine/exec/numeric.js';
import { Database } from '../../src/table/database.js';
import { query, textRows } from '../../src/engine/index.js';
import { columnOf } from '../../src/types/index.js';
import { tempDir } from '../support/tmp.js';

const ts = (s: string) => parseText({ id: 'timestamp' }, s) as bigint;
const tsText = (us: bigint) => new Date(Number(us / 1000n)).toISOString().replace('T', ' ').replace(/\.000Z$|Z$/, '');
const date = (s: string) => parseText({ id: 'date' }, s) as number;
const iv = (s: string) => parseIntervalValue(s);
const code = (f: () => unknown): string | undefined => {
  try {
    f();
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code;
  }
};

test('month arithmetic clamps the day to the end of the month, leap years included', () => {
  const plus = (a: string, b: string) => tsText(timestampPlusInterval(ts(a), iv(b)));
  assert.is(plus('2024-01-31', '1 month'), '2024-02-29 00:00:00');
  assert.is(plus('2023-01-31', '1 month'), '2023-02-28 00:00:00');
  assert.is(plus('2024-02-29', '1 year'), '2025-02-28 00:00:00');
  assert.is(plus('2024-02-29', '4 years'), '2028-02-29 00:00:00');
  assert.is(plus('2000-01-31 10:30', '13 months'), '2001-02-28 10:30:00');
  assert.is(plus('2024-03-31', '-1 month'), '2024-02-29 00:00:00');
  assert.is(tsText(timestampPlusInterval(ts('2024-03-31'), iv('1 month'), -1)), '2024-02-29 00:00:00');
  // months, then days, then time: 2024-01-31 + 1 mon 1 day is 2024-03-01
  assert.is(plus('2024-01-31', '1 mon 1 day'), '2024-03-01 00:00:00');
  assert.is(plus('2024-01-01', '-1 day +01:00'), '2023-12-31 01:00:00');
  assert.is(plus('2020-12-31 23:59:59.999', '1 millisecond'), '2021-01-01 00:00:00');
});

test('date ± integer and the range errors (22008)', () => {
  assert.is(dateAddDays(date('2024-02-28'), 1), date('2024-02-29'));
  assert.is(dateAddDays(date('2023-02-28'), 1), date('2023-03-01'));
  assert.is(dateAddDays(date('2024-03-01'), -1), date('2024-02-29'));
  assert.is(code(() => dateAddDays(date('2024-01-01'), 2147483647)), '22008');
  assert.is(code(() => dateAddDays(date('4714-11-24 BC'), -1)), '22008');
  assert.is(code(() => timestampPlusInterval(ts('2024-01-01'), iv('300000 years'))), '22008');
});

test('infinite dates and timestamps stay infinite; subtracting them is 22008', () => {
  const inf = date('infinity');
  assert.is(dateAddDays(inf, 1), inf);
  assert.is(timestampPlusInterval(ts('infinity'), iv('1 year'), -1), ts('infinity'));
  assert.is(dateTrunc('month', ts('-infinity'), 'timestamp without time zone'), ts('-infinity'));
  assert.is(code(() => timestampDiff(ts('infinity'), ts('2024-01-01'))), '22008');
  assert.is(extractField('year', 'date', inf, 'numeric'), 'Infinity');
  assert.is(extractField('month', 'timestamp without time zone', ts('-infinity'), 'numeric'), null);
});

test('timestamp - timestamp keeps days and time apart, with the sign of the difference', () => {
  assert.is(formatInterval(timestampDiff(ts('2024-03-01'), ts('2024-01-01 01:00:00.5'))), '59 days 22:59:59.5');
  assert.is(formatInterval(timestampDiff(ts('2024-01-01'), ts('2024-03-01'))), '-60 days');
  assert.is(formatInterval(timestampDiff(ts('2024-01-01 10:00'), ts('2023-12-31 12:00'))), '22:00:00');
  assert.is(formatInterval(timestampDiff(ts('2023-12-31 12:00'), ts('2024-01-01 10:00'))), '-22:00:00');
});

test('interval text: IntervalStyle postgres output and the input forms', () => {
  const cases: [string, string][] = [
    ['1 year 2 months 3 days 4 hours 5 minutes 6.5 seconds', '1 year 2 mons 3 days 04:05:06.5'],
    ['-1 year -2 months +3 days -04:05:06', '-1 years -2 mons +3 days -04:05:06'],
    ['1 day -1 hours', '1 day -01:00:00'],
    ['-1 day +1 hours', '-1 days +01:00:00'],
    ['1 mon -1 day', '1 mon -1 days'],
    ['1.5 days', '1 day 12:00:00'],
    ['1.5 months', '1 mon 15 days'],
    ['1.5 years', '1 year 6 mons'],
    ['-0.1 sec', '-00:00:00.1'],
    ['0', '00:00:00'],
    ['90', '00:01:30'],
    ['2 weeks 1 day', '15 days'],
    ['1 day ago', '-1 days'],
    ['@ 1 d 2 h', '1 day 02:00:00'],
    ['100 hours', '100:00:00'],
    ['1 10:20:30.5', '1 day 10:20:30.5'],
    ['1-2', '1 year 2 mons'],
    ['1 decade 1 century', '110 years'],
  ];
  for (const [input, output] of cases) assert.is(formatInterval(iv(input)), output, input);
  assert.is(code(() => iv('abc')), '22007');
  assert.is(code(() => iv('1 day 1 day')), '22007');
  assert.is(code(() => iv('1 hour 10:00')), '22007');
  assert.is(code(() => iv('')), '22007');
});

test('interval typmods: a bare number takes the range unit; lower fields are dropped', () => {
  assert.is(formatInterval(parseIntervalValue('90', INTERVAL_RANGE.DAY)), '90 days');
  assert.is(formatInterval(parseIntervalValue('1', INTERVAL_RANGE.YEAR)), '1 year');
  assert.is(formatInterval(parseIntervalValue('1 day 3 hours', INTERVAL_RANGE.DAY)), '1 day');
  assert.is(formatInterval(parseIntervalValue('26 months', INTERVAL_RANGE.YEAR)), '2 years');
  assert.is(formatInterval(parseIntervalValue('1 day 10:20:30', INTERVAL_RANGE.HOUR)), '1 day 10:00:00');
});

test('interval * and / cascade fractional months and days down', () => {
  assert.is(formatInterval(intervalMul(iv('1 mon'), 0.5)), '15 days');
  assert.is(formatInterval(intervalMul(iv('1 day'), 2.5)), '2 days 12:00:00');
  assert.is(formatInterval(intervalDiv(iv('1 year'), 3)), '4 mons');
  assert.is(formatInterval(intervalDiv(iv('1 mon'), 7)), '4 days 06:51:25.6896');
  assert.is(formatInterval(intervalMul(iv('1 day'), -1)), '-1 days');
  assert.is(code(() => intervalDiv(iv('1 day'), 0)), '22012');
  assert.is(code(() => intervalMul(makeInterval(2147483647, 0, 0n), 2)), '22008');
});

test('date_trunc: ISO weeks, quarters, centuries and millennia; unit errors', () => {
  const trunc = (u: string, s: string) => tsText(dateTrunc(u, ts(s), 'timestamp without time zone'));
  assert.is(trunc('week', '2024-01-01 10:00'), '2024-01-01 00:00:00');
  assert.is(trunc('week', '2023-01-01 10:00'), '2022-12-26 00:00:00');
  assert.is(trunc('quarter', '2024-12-31 23:59:59.999999'), '2024-10-01 00:00:00');
  assert.is(trunc('decade', '2019-12-31'), '2010-01-01 00:00:00');
  assert.is(trunc('century', '2000-12-31'), '1901-01-01 00:00:00');
  assert.is(trunc('century', '2001-01-01'), '2001-01-01 00:00:00');
  assert.is(trunc('millennium', '2000-06-01'), '1001-01-01 00:00:00');
  assert.is(trunc('MONTH', '2024-02-29 12:00'), '2024-02-01 00:00:00');
  assert.is(trunc('milliseconds', '2024-05-05 10:30:00.123'), '2024-05-05 10:30:00.123');
  assert.is(code(() => trunc('foo', '2024-01-01')), '22023');
  assert.is(code(() => trunc('timezone', '2024-01-01')), '0A000');
  assert.is(formatInterval(intervalTrunc('hour', iv('-1 day -25:30:10'))), '-1 days -25:00:00');
  assert.is(code(() => intervalTrunc('week', iv('10 days'))), '0A000');
});

test('extract is numeric, date_part float8; ISO weeks and leap days', () => {
  const x = (u: string, s: string) => extractField(u, 'timestamp without time zone', ts(s), 'numeric');
  assert.is(x('doy', '2024-12-31'), '366');
  assert.is(x('doy', '2023-12-31'), '365');
  assert.is(x('week', '2021-01-03'), '53');
  assert.is(x('week', '2024-12-30'), '1');
  assert.is(x('isoyear', '2024-12-30'), '2025');
  assert.is(x('second', '2024-05-17 10:11:12.5'), '12.500000');
  assert.is(x('milliseconds', '2024-05-17 10:11:12.5'), '12500.000');
  assert.is(x('epoch', '1960-01-01 00:00:00.5'), '-315619199.500000');
  assert.is(x('julian', '2024-05-17 12:00'), '2460448.50000000000000000000');
  assert.is(extractField('epoch', 'date', date('2024-05-17'), 'numeric'), '1715904000');
  assert.is(extractField('second', 'timestamp without time zone', ts('2024-05-17 10:11:12.5'), 'float8'), 12.5);
  assert.is(extractField('epoch', 'interval', iv('1 year 1 day'), 'numeric'), '31644000.000000');
  assert.is(code(() => extractField('hour', 'date', date('2024-05-17'), 'numeric')), '0A000');
  assert.is(code(() => extractField('foo', 'date', date('2024-05-17'), 'numeric')), '22023');
});

test('numeric division and friends use PostgreSQL result scales', () => {
  assert.is(numericDiv('1.0', '3'), '0.33333333333333333333');
  assert.is(numericDiv('100000000000000000000.0', '3'), '33333333333333333333.3');
  assert.is(numericDiv('0.000001', '7'), '0.000000142857142857142857');
  assert.is(numericDiv('123.456', '0.3'), '411.5200000000000000');
  assert.is(numericDiv('-2', '3'), '-0.66666666666666666667');
  assert.is(code(() => numericDiv('1', '0')), '22012');
  assert.is(numericMod('-7.5', '2'), '-1.5');
  assert.is(numericMod('10', '3.25'), '0.25');
  assert.is(numericRound('2.5', 0), '3');
  assert.is(numericRound('-2.675', 2), '-2.68');
  assert.is(numericRound('1234.5', -2), '1200');
  assert.is(numericRound('1.5', 3), '1.500');
  assert.is(numericSqrt('2.0'), '1.414213562373095');
  assert.is(code(() => numericSqrt('-1')), '2201F');
  assert.is(numericPower('2.0', '10'), '1024.0000000000000000');
  assert.is(numericPower('3', '-3'), '0.0370370370370370');
  assert.is(code(() => numericPower('0', '-1')), '2201F');
  assert.is(code(() => numericPower('-8', '0.5')), '2201F');
});

test('constant date/time expressions fold, and a date compared with a midnight timestamp is pushed into the scan', async () => {
  const db = await Database.open(tempDir());
  const t = await db.createTable('t', [{ name: 'd', type: 'date' }, { name: 'ts', type: 'timestamp' }], {});
  const sink = t.sink();
  const days = [date('1993-12-31'), date('1994-06-30'), date('1994-12-31'), date('1995-01-01'), null];
  await sink.write({ length: days.length, columns: [columnOf(t.fields[0]!.type, days), columnOf(t.fields[1]!.type, days.map((d) => (d === null ? null : BigInt(d) * 86_400_000_000n + 1n)))], selection: null });
  await sink.commit();
  const rows = async (sql: string) => textRows(await query(db, sql)).map((r) => r.join('|'));
  assert.equal(await rows("SELECT count(*) FROM t WHERE d >= date '1994-01-01' AND d < date '1994-01-01' + interval '1' year"), ['2']);
  const pushed = (await rows("EXPLAIN SELECT count(*) FROM t WHERE d < date '1994-01-01' + interval '1' year")).join('\n');
  assert.match(pushed, /Pushed Filter/);
  assert.not.match(pushed, /ts_pl_interval/);
  // Not at midnight: PostgreSQL's meaning (d at midnight < the timestamp) is kept as a residual filter.
  assert.equal(await rows("SELECT count(*) FROM t WHERE d <= timestamp '1994-12-31 12:00'"), ['3']);
  assert.equal(await rows("SELECT count(*) FROM t WHERE d = timestamp '1994-12-31 12:00'"), ['0']);
  assert.equal(await rows("SELECT d + 1, d - date '1994-01-01', ts - d FROM t WHERE d = '1994-12-31'"), ['1995-01-01|364|00:00:00.000001']);
});

test('interval is an expression type: a column of it is 0A000', async () => {
  const db = await Database.open(tempDir());
  const err = await query(db, 'CREATE TABLE iv (x interval)').then(
    () => null,
    (e: { code?: string }) => e.code,
  );
  assert.is(err, '0A000');
});

test.run();

/**
 * Differential test of CSV input against a real PostgreSQL 15 (PostgreSQL 15 COPY: https://www.postgresql.org/docs/15/sql-copy.html):
 * the same tricky files go through `COPY t FROM 'file' (FORMAT csv, …)` and through readCsv;
 * every value must agree (both sides printed by their output functions), and for bad files the
 * SQLSTATE and the line number COPY reports must agree.
 *
 * PostgreSQL reads a byte-order mark as data; paxd skips it, so PostgreSQL gets the file
 * without it. The server reads the files itself (no psql \copy, whose own `\.` handling
 * differs from the server's).
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CsvOptions } from '../../src/insert/csv/index.js';
import { PaxdError } from '../../src/types/errors.js';
import { parseTypeName } from '../../src/types/parse-type.js';
import { formatText } from '../../src/types/text-io.js';
import type { Field } from '../../src/types/type.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { ALL_STORED_TYPES, Rng, randomValue, testSeed } from '../support/random.js';
import { tempDir } from '../support/tmp.js';
import { readAll } from './csv-helpers.js';

type Col = [name: string, type: string, notNull?: boolean];

interface Case {
  name: string;
  cols: Col[];
  csv: string | Buffer;
  opts?: CsvOptions;
  /** Expected failure (checked on both sides); otherwise both must load the same rows. */
  fails?: boolean;
}

const ALL_TYPES: Col[] = ALL_STORED_TYPES.map(([n, t]) => [n, t]);

const ABC: Col[] = [['a', 'int4'], ['b', 'text'], ['c', 'int4']];

const CASES: Case[] = [
  {
    name: 'every type, plain and unusual spellings',
    cols: ALL_TYPES,
    csv: [
      '1,2,3,1.5,2.5,t,hello,abc,ab,\\x0102,1998-01-02,1998-01-02 03:04:05,1998-01-02 03:04:05+02,12.345,1.50,a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,"{""b"": 1, ""a"": [1, 2]}"',
      ' -32768 ,+2147483647, -9223372036854775808 ,1e-3,-1.7976931348623157e308, yes ,"  spaced  ",ab   ,é,abc,1/2/1998,1998-01-02T03:04:05.123456,1998-01-02 03:04:05.5 UTC,  -0.0005 ,-1e-5,{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11},"  [1,2]  "',
      ',,,,,,,,,,,,,,,,',
      '"0","-0","007","NaN","-Infinity","off","","","","","infinity","-infinity","epoch","0","NaN","a0eebc999c0b4ef8bb6d6bb9bd380a11","null"',
      '32767,-1,9007199254740993,3.4028235e38,4.9e-324,1,"a,b","x""y","""",\\\\,2000-02-29,2000-02-29 23:59:59.999999,2000-02-29 23:59:59-05:30,999999999.9994,123456789012345678901234567890.123456789,00000000-0000-0000-0000-000000000000,"{""k"": ""日本""}"',
    ].join('\n') + '\n',
  },
  {
    name: 'quoted delimiters, embedded newlines, doubled quotes',
    cols: [['id', 'int4'], ['a', 'text'], ['b', 'varchar(20)']],
    csv: '1,"a,b","c""d"\n2,"line1\nline2","x\r\ny"\n3,"""","a""""b"\n4,ab"c,d"e,"q"q\n5,"",""\n6,,\n7,"\\.","\\.\n"\n',
  },
  {
    name: 'empty string vs NULL, FORCE_NULL and FORCE_NOT_NULL',
    cols: [['id', 'int4'], ['a', 'text'], ['b', 'text'], ['c', 'text']],
    csv: '1,,"",x\n2,"",,\n3,x,"",""\n',
    opts: { forceNull: ['b'], forceNotNull: ['c'] },
  },
  { name: 'whitespace around values', cols: [['a', 'int4'], ['b', 'text'], ['c', 'numeric(10,2)'], ['d', 'date'], ['e', 'bool']], csv: '  1 , b ,  2.5 , 1998-01-02 ,  t  \n\t3\t,\t, 1 ,2000-01-01, false\n' },
  { name: 'CRLF with quoted CRLF', cols: ABC, csv: '1,a,2\r\n3,"b\r\nc",4\r\n5,"",6\r\n' },
  { name: 'CR line ends', cols: ABC, csv: '1,a,2\r3,"b\rc",4\r' },
  { name: 'no final newline', cols: ABC, csv: '1,a,2\n3,b,4' },
  { name: 'byte-order mark', cols: ABC, csv: '\ufeff1,a,2\n3,b,4\n' },
  { name: 'header', cols: ABC, csv: 'a,b,c\n1,x,2\n', opts: { header: true } },
  { name: 'header match', cols: ABC, csv: 'a,b,c\n1,x,2\n', opts: { header: 'match' } },
  { name: 'delimiter, quote, escape, null options', cols: ABC, csv: "1;'a\\'b;c';2\n3;N;N\n4;'N';5\n", opts: { delimiter: ';', quote: "'", escape: '\\', null: 'N' } },
  { name: 'tab delimiter', cols: ABC, csv: '1\ta b\t2\n3\t"x\ty"\t4\n', opts: { delimiter: '\t' } },
  { name: 'end-of-copy marker', cols: ABC, csv: '1,a,2\n\\.\n3,b,4\n' },
  { name: 'single column with empty lines', cols: [['t', 'text']], csv: 'a\n\n"" \nb\n' },
  { name: 'bpchar and varchar lengths, trailing spaces cut', cols: [['c', 'char(3)'], ['v', 'varchar(3)']], csv: 'a,abc   \nabc  ,ab\nééé,日本語 \n' },

  { name: 'type error after quoted newlines', cols: ABC, csv: '1,x,1\n1,"a\nb\nc",x\n', fails: true },
  { name: 'quoted LF in the first record', cols: ABC, csv: '1,"a\nb",x\n', fails: true },
  { name: 'overflow', cols: ABC, csv: '1,a,1\n2,b,99999999999\n', fails: true },
  { name: 'numeric field overflow', cols: [['n', 'numeric(5,2)']], csv: '1.5\n1000\n', fails: true },
  { name: 'bad date', cols: [['d', 'date']], csv: '2000-01-01\n2001-02-29\n', fails: true },
  { name: 'extra data', cols: ABC, csv: '1,a,1\n1,a,1,4\n', fails: true },
  { name: 'missing data', cols: ABC, csv: '1,a,1\n1,a\n', fails: true },
  { name: 'blank line', cols: ABC, csv: '1,a,1\n\n2,b,2\n', fails: true },
  { name: 'invalid UTF-8', cols: ABC, csv: Buffer.from('1,a,1\n2,caf\xc3(,2\n', 'latin1'), fails: true },
  { name: 'invalid UTF-8 in quotes after newlines', cols: ABC, csv: Buffer.from('1,a,1\n1,"a\nb\nc\xff",1\n', 'latin1'), fails: true },
  { name: 'overlong UTF-8', cols: ABC, csv: Buffer.from('1,\xc0\xaf,1\n', 'latin1'), fails: true },
  { name: 'truncated UTF-8 at end of file', cols: ABC, csv: Buffer.from('1,a,1\n2,a,\xe6\x97', 'latin1'), fails: true },
  { name: 'NUL byte', cols: ABC, csv: '1,a,1\n2,a\u0000b,2\n', fails: true },
  { name: 'unterminated quoted field', cols: ABC, csv: '1,a,1\n2,"abc\nde\n', fails: true },
  { name: 'CR in an LF file', cols: ABC, csv: '1,a,1\n2,b\r,2\n', fails: true },
  { name: 'LF in a CRLF file', cols: ABC, csv: '1,a,1\r\n2,b\n,2\r\n', fails: true },
  { name: 'NOT NULL', cols: [['a', 'int4'], ['b', 'text', true]], csv: '1,a\n2,\n', fails: true },
  { name: 'conversion error before NOT NULL', cols: [['a', 'int4', true], ['b', 'int4']], csv: ',x\n', fails: true },
  { name: 'varchar too long', cols: [['v', 'varchar(3)']], csv: 'abc\nabcd\n', fails: true },
  { name: 'header match mismatch', cols: ABC, csv: 'a,x,c\n1,x,2\n', opts: { header: 'match' }, fails: true },
  { name: 'header line counted', cols: ABC, csv: 'a,b,c\n1,x,2\n3,y,z\n', opts: { header: true }, fails: true },
];

function fieldsOf(cols: readonly Col[]): Field[] {
  return cols.map(([name, type, notNull], i) => ({ name, type: parseTypeName(type), notNull: notNull ?? false, fieldId: i + 1 }));
}

function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

function copyOptions(o: CsvOptions): string {
  const parts = ['FORMAT csv'];
  if (o.header === true) parts.push('HEADER true');
  if (o.header === 'match') parts.push('HEADER match');
  if (o.delimiter !== undefined) parts.push(`DELIMITER ${sqlString(o.delimiter)}`);
  if (o.quote !== undefined) parts.push(`QUOTE ${sqlString(o.quote)}`);
  if (o.escape !== undefined) parts.push(`ESCAPE ${sqlString(o.escape)}`);
  if (o.null !== undefined) parts.push(`NULL ${sqlString(o.null)}`);
  if (o.forceNull) parts.push(`FORCE_NULL (${o.forceNull.join(', ')})`);
  if (o.forceNotNull) parts.push(`FORCE_NOT_NULL (${o.forceNotNull.join(', ')})`);
  return parts.join(', ');
}

let pg: Postgres;
let dir: string;
let fileNo = 0;

interface PgOutcome {
  rows?: (string | null)[][];
  code?: string;
  line?: number;
  message?: string;
}

async function pgLoad(cols: readonly Col[], csv: Buffer, opts: CsvOptions): Promise<PgOutcome> {
  const file = join(dir, `f${fileNo++}.csv`);
  writeFileSync(file, csv);
  chmodSync(file, 0o644);
  const ddl = cols.map(([n, t, nn]) => `${n} ${t}${nn ? ' NOT NULL' : ''}`).join(', ');
  await pg.query(`DROP TABLE IF EXISTS t; CREATE TABLE t (${ddl})`);
  const copy = `COPY t FROM ${sqlString(file)} (${copyOptions(opts)})`;
  const r = await pg.query(`SELECT try_copy(${sqlString(copy)})`);
  if (r !== 'OK') {
    const [code, message, context] = r.split('\u0001');
    const m = /line (\d+)/.exec(context ?? '');
    return { code: code!, message: message!, ...(m ? { line: Number(m[1]) } : {}) };
  }
  const exprs = cols.map(([n]) => `CASE WHEN ${n} IS NULL THEN NULL ELSE format('%s', ${n}) END`).join(', ');
  const json = await pg.query(`SELECT coalesce(json_agg(json_build_array(${exprs}) ORDER BY ctid), '[]') FROM t`);
  return { rows: JSON.parse(json) as (string | null)[][] };
}

async function paxdLoad(cols: readonly Col[], csv: Buffer, opts: CsvOptions): Promise<PgOutcome> {
  try {
    return { rows: (await readAll(csv, fieldsOf(cols), opts, { size: 7 })).rows };
  } catch (e) {
    if (!(e instanceof PaxdError)) throw e;
    return { code: e.code, ...(e.line !== undefined ? { line: e.line } : {}), message: e.message };
  }
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

async function compare(c: Case): Promise<void> {
  const bytes = typeof c.csv === 'string' ? Buffer.from(c.csv, 'utf8') : c.csv;
  const forPg = bytes.subarray(0, 3).equals(BOM) ? bytes.subarray(3) : bytes;
  const want = await pgLoad(c.cols, forPg, c.opts ?? {});
  const got = await paxdLoad(c.cols, bytes, c.opts ?? {});
  if (c.fails) {
    assert.ok(want.code !== undefined, `PostgreSQL loaded ${c.name}`);
    assert.is(got.code, want.code, `SQLSTATE (PostgreSQL: ${want.message}; paxd: ${got.message})`);
    assert.is(got.line, want.line, `line (PostgreSQL: ${want.message}; paxd: ${got.message})`);
    assert.ok(got.message!.endsWith(want.message!), `message: paxd "${got.message}", PostgreSQL "${want.message}"`);
  } else {
    assert.is(want.code, undefined, `PostgreSQL failed: ${want.code} ${want.message} (line ${want.line})`);
    assert.is(got.code, undefined, `paxd failed: ${got.message}`);
    assert.equal(got.rows, want.rows);
  }
}

test.before(async () => {
  pg = await startPostgres();
  dir = tempDir('paxd-csv-pg-');
  chmodSync(dir, 0o755);
  await pg.query(`CREATE OR REPLACE FUNCTION try_copy(sql text) RETURNS text LANGUAGE plpgsql AS $f$
    DECLARE st text; msg text; ctx text;
    BEGIN
      EXECUTE sql;
      RETURN 'OK';
    EXCEPTION WHEN others THEN
      GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, ctx = PG_EXCEPTION_CONTEXT;
      RETURN st || chr(1) || msg || chr(1) || split_part(ctx, E'\\n', 1);
    END $f$`);
});

test.after(async () => {
  await pg.stop();
});

for (const c of CASES) test(`PostgreSQL agrees: ${c.name}`, () => compare(c));

test('PostgreSQL agrees: random values of every type, randomly quoted', async () => {
  const rng = new Rng(testSeed() + 3);
  const cols: Col[] = ALL_TYPES.map(([n, t]) => [n, t]);
  const fields = fieldsOf(cols);
  const lines: string[] = [];
  for (let r = 0; r < 300; r++) {
    const vals = fields.map((f) => {
      if (rng.chance(0.08)) return '';
      let s = formatText(f.type, randomValue(f.type, rng));
      if (f.type.id === 'bpchar') s = s.replace(/ +$/, '');
      const mustQuote = s === '' || /[",\r\n]/.test(s) || s === '\\.';
      return mustQuote || rng.chance(0.2) ? `"${s.replace(/"/g, '""')}"` : s;
    });
    lines.push(vals.join(','));
  }
  const eol = rng.chance(0.5) ? '\n' : '\r\n';
  const csv = lines.join(eol) + eol;
  await compare({ name: 'random', cols, csv });
});

test.run();

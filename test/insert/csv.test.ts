/**
 * CSV input (src/insert/csv): tokenizer edge cases at every chunk boundary, each fast field
 * path against parseText, errors with their exact location and SQLSTATE, skip-mode accounting.
 * The comparison with a real PostgreSQL 15 is in ./csv-pg.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readCsv } from '../../src/insert/csv/index.js';
import { PaxdError } from '../../src/types/errors.js';
import { formatText, parseText } from '../../src/types/text-io.js';
import type { Field, PgType } from '../../src/types/type.js';
import { Rng, randomValue, testSeed } from '../support/random.js';
import { field, readAll } from './csv-helpers.js';

const INT = field('a', { id: 'int4' });
const TXT = field('b', { id: 'text' });
const INT2 = field('c', { id: 'int4' });
const ABC = [INT, TXT, INT2];

async function errorOf(input: string | Uint8Array, fields: readonly Field[], opts = {}): Promise<PaxdError> {
  try {
    await readAll(input, fields, opts);
  } catch (e) {
    if (e instanceof PaxdError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

// ---- tokenizer ----

const TOKENIZER_CASES: { name: string; csv: string; fields?: Field[]; opts?: object; rows: (string | null)[][] }[] = [
  { name: 'plain LF', csv: '1,a,2\n3,b,4\n', rows: [['1', 'a', '2'], ['3', 'b', '4']] },
  { name: 'CRLF', csv: '1,a,2\r\n3,b,4\r\n', rows: [['1', 'a', '2'], ['3', 'b', '4']] },
  { name: 'CR only', csv: '1,a,2\r3,b,4\r', rows: [['1', 'a', '2'], ['3', 'b', '4']] },
  { name: 'no final newline', csv: '1,a,2\n3,b,4', rows: [['1', 'a', '2'], ['3', 'b', '4']] },
  { name: 'empty string vs NULL', csv: '1,"",2\n3,,\n', rows: [['1', '', '2'], ['3', null, null]] },
  { name: 'quoted delimiter and doubled quotes', csv: '1,"x,""y""",2\n', rows: [['1', 'x,"y"', '2']] },
  { name: 'quoted newlines', csv: '1,"line1\nline2\r\nline3",2\n5,"",6\n', rows: [['1', 'line1\nline2\r\nline3', '2'], ['5', '', '6']] },
  { name: 'mixed quoted parts', csv: '1,ab"c,d"e,2\n', rows: [['1', 'abc,de', '2']] },
  { name: 'quoted ints', csv: '"1","a","2"\n', rows: [['1', 'a', '2']] },
  { name: 'whitespace kept for text, allowed for ints', csv: ' 1 , a ,2 \n', rows: [['1', ' a ', '2']] },
  { name: 'BOM skipped', csv: '\ufeff1,a,2\n', rows: [['1', 'a', '2']] },
  { name: 'header by name, reordered', csv: 'c,a,b\n1,2,x\n', opts: { header: true }, rows: [['2', 'x', '1']] },
  { name: 'header with CRLF and quoted name', csv: '"a",b,c\r\n1,x,2\r\n', opts: { header: true }, rows: [['1', 'x', '2']] },
  { name: 'header subset: missing column is NULL', csv: 'a,b\n1,x\n', opts: { header: true }, rows: [['1', 'x', null]] },
  { name: 'delimiter and quote options', csv: "1;'a;''b';2\n", opts: { delimiter: ';', quote: "'" }, rows: [['1', "a;'b", '2']] },
  { name: 'escape option', csv: '1,"a\\"b\\\\c",2\n', opts: { escape: '\\' }, rows: [['1', 'a"b\\c', '2']] },
  { name: 'null string', csv: '1,NULL,2\n3,"NULL",NULL\n', opts: { null: 'NULL' }, rows: [['1', null, '2'], ['3', 'NULL', null]] },
  { name: 'FORCE_NOT_NULL', csv: '1,,2\n', opts: { forceNotNull: ['b'] }, rows: [['1', '', '2']] },
  { name: 'FORCE_NULL', csv: '1,"",2\n', opts: { forceNull: ['b'] }, rows: [['1', null, '2']] },
  { name: 'end-of-copy marker', csv: '1,a,2\n\\.\n3,b,4\n', rows: [['1', 'a', '2']] },
  { name: 'end-of-copy marker needs a line of its own', csv: '1,\\.,2\n1,a,\\.x\n', fields: [INT, TXT, TXT], rows: [['1', '\\.', '2'], ['1', 'a', '\\.x']] },
  { name: 'multi-byte characters', csv: '1,日本語😀,2\n', rows: [['1', '日本語😀', '2']] },
  { name: 'bpchar padding and varchar', csv: 'ab,xy\n"",\n', fields: [field('p', { id: 'bpchar', length: 4 }), field('v', { id: 'varchar', length: 3 })], rows: [['ab  ', 'xy'], ['    ', null]] },
  { name: 'single column, empty lines are NULL', csv: 'x\n\ny\n', fields: [TXT], rows: [['x'], [null], ['y']] },
];

for (const c of TOKENIZER_CASES) {
  test(`tokenizer: ${c.name}, at every chunk boundary`, async () => {
    const fields = c.fields ?? ABC;
    const whole = await readAll(c.csv, fields, c.opts ?? {});
    assert.equal(whole.rows, c.rows);
    const bytes = Buffer.from(c.csv);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const r = await readAll(bytes, fields, c.opts ?? {}, { cut });
      assert.equal(r.rows, c.rows, `cut at ${cut}`);
    }
    for (const size of [1, 2, 3, 7]) assert.equal((await readAll(bytes, fields, c.opts ?? {}, { size })).rows, c.rows, `chunks of ${size}`);
  });
}

test('tokenizer: random CSV round-trips at random chunk sizes and small blocks', async () => {
  const rng = new Rng(testSeed());
  const fields = [field('a', { id: 'int8' }), field('b', { id: 'text' }), field('c', { id: 'varchar', length: 30 })];
  const expected: (string | null)[][] = [];
  let csv = '';
  for (let r = 0; r < 3000; r++) {
    const row = fields.map((f) => (rng.chance(0.1) ? null : formatText(f.type, randomValue(f.type, rng))));
    expected.push(row);
    csv += row.map((v) => (v === null ? '' : /[",\r\n]/.test(v) || v === '' || v === '\\.' ? `"${v.replace(/"/g, '""')}"` : v)).join(',') + (rng.chance(0.5) ? '\n' : '\n');
  }
  for (const size of [1, 13, 4096, 1 << 20]) {
    const r = await readAll(csv, fields, { blockBytes: 64, batchRows: 1000 }, { size });
    assert.equal(r.rows, expected, `chunks of ${size}`);
    assert.is(r.batches, 3);
  }
});

// ---- fast paths against parseText ----

const EDGE: Record<string, string[]> = {
  int2: ['0', '-0', '+7', '32767', '-32768', '32768', '-32769', '00012', ' 12', '12 ', '1_000', '0x10', '12x', '', '-', '+', '99999'],
  int4: ['2147483647', '-2147483648', '2147483648', '-2147483649', '0000000000012', ' -5 ', '1e3', '12x', '', '-', '1.0'],
  int8: ['9223372036854775807', '-9223372036854775808', '9223372036854775808', '123456789012345', '1234567890123456', '123456789012345678', '-123456789012345678', '1234567890123456789', '12345678901234567x', ' 1', '007'],
  float4: ['0', '-0', '1.5', '0.1', '3.4028235e38', '3.5e38', '1e-46', '1.17549435e-38', 'NaN', '-Infinity', 'inf', ' 2.5 ', '1e', '.5', '5.', '16777217', '0.3', '1e10', '123456.789', '7.038531e-26', '1.00000017881393432617187499'],
  float8: ['0', '-0', '1.5', '0.1', '1e308', '1e309', '1e-400', '4.9e-324', '123456789012345678', '0.1234567890123456789', 'NaN', 'infinity', ' 1 ', '1e22', '1e23', '9007199254740993', '.', '-.5e-3', '1E5'],
  bool: ['t', 'f', 'T', 'F', '1', '0', 'y', 'n', 'yes', 'no', 'on', 'off', 'true', 'false', 'TRUE', ' t ', 'o', 'x', '', '\u0011', '2'],
  'numeric(15,2)': ['0', '-0', '12.5', '12.50', '12.505', '-0.001', '0.005', '9999999999999.99', '10000000000000', '9999999999999.995', '1e3', ' 1.5', '.5', '5.', '+3', 'NaN', 'Infinity', '1.2.3', '', '00000000000000001.25'],
  'numeric(38,10)': ['12345678901234567890.1234567890', '1.5', '-0.00000000001', '123456789012345678901234567890'],
  'numeric(5,5)': ['0.12345', '0.123456', '1', '-0.5'],
  date: ['1998-01-02', '2000-02-29', '1900-02-29', '2001-02-29', '0001-01-01', '0000-01-01', '9999-12-31', '1998-13-01', '1998-1-2', 'Jan 2 1998', 'infinity', '-infinity', 'epoch', '19980102', ' 1998-01-02', '1998-01-02 ', '1998-01-32', '5874897-12-31', '4714-11-24 BC'],
  timestamp: ['1998-01-02 03:04:05', '1998-01-02T03:04:05', '1998-01-02 03:04:05.5', '1998-01-02 03:04:05.123456', '1998-01-02 03:04:05.1234567', '1998-01-02 24:00:00', '1998-01-02 23:59:60', '1998-01-02 03:04', '1998-01-02', '1998-01-02 03:04:05+02', '2500-01-01 00:00:00', '1500-01-01 00:00:00', 'infinity', '1998-01-02 3:04:05', '1998-01-02 03:04:05.', '1998-01-02 03:04:65'],
  timestamptz: ['1998-01-02 03:04:05', '1998-01-02 03:04:05Z', '1998-01-02 03:04:05+02', '1998-01-02 03:04:05-05:30', '1998-01-02 03:04:05+15', '1998-01-02 03:04:05 UTC', '1998-01-02T03:04:05.25+01:00', '1998-01-02 03:04:05+2', '1998-01-02 03:04:05z'],
  text: ['', ' ', 'abc', 'é', '日本'],
  'varchar(3)': ['abc', 'abcd', 'abc  ', 'ab ', 'éé', 'ééé', 'éééé', 'éé  ', '日本語', '日本語x'],
  'bpchar(3)': ['a', 'abc', 'abcd', 'abc ', 'é', 'ééé', 'éééé', '', 'ab  '],
  bpchar: ['a ', ' b'],
  uuid: ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'A0EEBC999C0B4EF8BB6D6BB9BD380A11', 'bad'],
  bytea: ['\\x0102', 'abc', '\\xZZ'],
  jsonb: ['{"a": 1}', '[1,2', 'null'],
  numeric: ['1.50', 'NaN', '1e400000', '0', '-0', '-0.000', '0.000', '-0.010', '007', '0.5', '.5', '5.', '+5', '-12.3400', '1.2.3', '-', '.', '1e3', ' 5', '5 ', '12x', '--1', `1${'0'.repeat(1200)}`, `0.${'1'.repeat(1200)}`, `1${'0'.repeat(131072)}`, '123456789012345678901234567890.123456789'],
};

function typeOf(name: string): PgType {
  const m = /^(\w+)(?:\((\d+)(?:,(\d+))?\))?$/.exec(name)!;
  const id = m[1] as PgType['id'];
  if (id === 'numeric' && m[2] !== undefined) return { id, precision: Number(m[2]), scale: Number(m[3] ?? 0) };
  if (m[2] !== undefined) return { id, length: Number(m[2]) };
  return { id };
}

function quoteField(v: string): string {
  return `"${v.replace(/"/g, '""')}"`;
}

for (const name of Object.keys(EDGE)) {
  test(`fast path agrees with parseText: ${name}`, async () => {
    const type = typeOf(name);
    const rng = new Rng(testSeed() + name.length);
    const inputs = [...EDGE[name]!];
    for (let i = 0; i < 400; i++) inputs.push(formatText(type, randomValue(type, rng)));
    // Each value once unquoted (when the tokenizer would keep it whole) and once quoted.
    const fields = [field('v', type)];
    const lines: string[] = [];
    const expect: { input: string; value?: string | null; code?: string; message?: string }[] = [];
    for (const input of inputs) {
      for (const quoted of [false, true]) {
        if (!quoted && (input === '' || /[",\r\n]/.test(input) || input === '\\.')) continue;
        lines.push(quoted ? quoteField(input) : input);
        try {
          expect.push({ input, value: formatText(type, parseText(type, input)) });
        } catch (e) {
          if (!(e instanceof PaxdError)) throw e;
          expect.push({ input, code: e.code, message: e.message });
        }
      }
    }
    const r = await readAll(lines.join('\n') + '\n', fields, { onError: 'skip' }, { size: 997 });
    let row = 0;
    let rej = 0;
    for (let i = 0; i < expect.length; i++) {
      const x = expect[i]!;
      if (x.code === undefined) {
        assert.is(r.rows[row++]![0], x.value, `value of ${JSON.stringify(x.input)}`);
      } else {
        const got = r.rejects[rej++]!;
        assert.ok(got !== undefined, `${JSON.stringify(x.input)} should fail with ${x.code}`);
        assert.is(got.line, i + 1, `line of ${JSON.stringify(x.input)}`);
        assert.is(got.code, x.code, `code of ${JSON.stringify(x.input)}`);
        assert.is(got.message, x.message);
      }
    }
    assert.is(row, r.rows.length);
    assert.is(rej, r.rejects.length);
  });
}

// ---- errors: location, code, message ----

const ERROR_CASES: { name: string; csv: string | Buffer; fields?: Field[]; opts?: object; line: number; column: number; code: string; message: string }[] = [
  { name: 'type error', csv: '1,a,1\n2,b,2\n3x,c,3\n', line: 3, column: 1, code: '22P02', message: 'invalid input syntax for type integer: "3x"' },
  { name: 'overflow', csv: '1,a,99999999999\n', line: 1, column: 3, code: '22003', message: 'value "99999999999" is out of range for type integer' },
  { name: 'line after quoted newlines', csv: '1,x,1\n1,"a\nb\nc",x\n', line: 4, column: 3, code: '22P02', message: 'invalid input syntax for type integer: "x"' },
  { name: 'quoted LF in the first record is not counted (as COPY)', csv: '1,"a\nb",x\n', line: 1, column: 3, code: '22P02', message: 'invalid input syntax for type integer: "x"' },
  { name: 'CRLF quoted newline', csv: '1,x,1\r\n1,"a\r\nb",x\r\n', line: 3, column: 3, code: '22P02', message: 'invalid input syntax for type integer: "x"' },
  { name: 'extra data', csv: '1,a,1\n1,a,1,4\n', line: 2, column: 4, code: '22P04', message: 'extra data after last expected column' },
  { name: 'missing data', csv: '1,a\n', line: 1, column: 3, code: '22P04', message: 'missing data for column "c"' },
  { name: 'conversion error before missing data', csv: '1x,a\n', line: 1, column: 1, code: '22P02', message: 'invalid input syntax for type integer: "1x"' },
  { name: 'blank line', csv: '1,a,1\n\n', line: 2, column: 2, code: '22P04', message: 'missing data for column "b"' },
  { name: 'invalid UTF-8', csv: Buffer.from('1,a,1\n2,caf\xc3(,2\n', 'latin1'), line: 2, column: 2, code: '22021', message: 'invalid byte sequence for encoding "UTF8": 0xc3 0x28' },
  { name: 'invalid UTF-8 after a quoted newline', csv: Buffer.from('1,a,1\n1,"a\nb\xff",1\n', 'latin1'), line: 3, column: 2, code: '22021', message: 'invalid byte sequence for encoding "UTF8": 0xff' },
  { name: 'truncated UTF-8 before the line end', csv: Buffer.from('1,caf\xc3\n', 'latin1'), line: 1, column: 2, code: '22021', message: 'invalid byte sequence for encoding "UTF8": 0xc3 0x0a' },
  { name: 'truncated UTF-8 at the end', csv: Buffer.from('1,a,\xe6\x97', 'latin1'), line: 1, column: 3, code: '22021', message: 'invalid byte sequence for encoding "UTF8": 0xe6 0x97' },
  { name: 'surrogate', csv: Buffer.from('1,\xed\xa0\x80,1\n', 'latin1'), line: 1, column: 2, code: '22021', message: 'invalid byte sequence for encoding "UTF8": 0xed 0xa0 0x80' },
  { name: 'NUL byte', csv: '1,a,1\n2,a\u0000b,2\n', line: 2, column: 2, code: '22021', message: 'invalid byte sequence for encoding "UTF8": 0x00' },
  { name: 'unterminated quoted field', csv: '1,a,1\n2,"abc\nde\n', line: 4, column: 2, code: '22P04', message: 'unterminated CSV quoted field' },
  { name: 'CR in an LF file', csv: '1,a,1\n2,b\r,2\n', line: 2, column: 2, code: '22P04', message: 'unquoted carriage return found in data' },
  { name: 'LF in a CRLF file', csv: '1,a,1\r\n2,b\n,2\r\n', line: 2, column: 2, code: '22P04', message: 'unquoted newline found in data' },
  { name: 'not null', csv: '1,a,\n', fields: [INT, TXT, field('c', { id: 'int4' }, true)], line: 1, column: 3, code: '23502', message: 'null value in column "c" of relation "t" violates not-null constraint' },
  { name: 'conversion error before not null', csv: ',a,x\n', fields: [field('a', { id: 'int4' }, true), TXT, INT2], line: 1, column: 3, code: '22P02', message: 'invalid input syntax for type integer: "x"' },
  { name: 'header line counts', csv: 'a,b,c\n1,a,1\n1,b,x\n', opts: { header: true }, line: 3, column: 3, code: '22P02', message: 'invalid input syntax for type integer: "x"' },
  { name: 'header: column position is the input position', csv: 'c,b,a\n1,a,x\n', opts: { header: true }, line: 2, column: 3, code: '22P02', message: 'invalid input syntax for type integer: "x"' },
  { name: 'header: unknown column', csv: 'a,zz\n', opts: { header: true }, line: 1, column: 2, code: '42703', message: 'column "zz" of relation "t" does not exist' },
  { name: 'header: duplicate column', csv: 'a,A\n', opts: { header: true }, line: 1, column: 2, code: '42701', message: 'column "a" specified more than once' },
  { name: 'header match: wrong name', csv: 'a,x,c\n', opts: { header: 'match' }, line: 1, column: 2, code: '22P04', message: 'column name mismatch in header line field 2: got "x", expected "b"' },
  { name: 'varchar too long', csv: 'abcd\n', fields: [field('v', { id: 'varchar', length: 3 })], line: 1, column: 1, code: '22001', message: 'value too long for type character varying(3)' },
];

for (const c of ERROR_CASES) {
  test(`error: ${c.name}`, async () => {
    const e = await errorOf(c.csv, c.fields ?? ABC, c.opts ?? {});
    assert.is(e.code, c.code);
    assert.is(e.file, 'data.csv');
    assert.is(e.line, c.line);
    assert.is(e.column, c.column);
    assert.is(e.message, `data.csv:${c.line}:${c.column}: ${c.message}`);
  });
}

test('error: a missing NOT NULL column without default fails at the header', async () => {
  const e = await errorOf('a,b\n1,x\n', [INT, TXT, field('c', { id: 'int4' }, true)], { header: true });
  assert.is(e.code, '23502');
  assert.is(e.line, 1);
});

test('header: a missing column takes its default', async () => {
  const r = await readAll('b,a\nx,1\n', [INT, TXT, field('c', { id: 'int4' }, true, { default: '42' })], { header: true });
  assert.equal(r.rows, [['1', 'x', '42']]);
});

test('options: PostgreSQL rejects the same option values', () => {
  const bad = [{ delimiter: ',,' }, { delimiter: '\n' }, { quote: ',' }, { null: 'a,b' }, { escape: 'ab' }, { delimiter: 'é' }];
  for (const o of bad) {
    assert.throws(() => readCsv((async function* () {})(), ABC, o, 'x.csv'), (e: unknown) => e instanceof PaxdError, JSON.stringify(o));
  }
});

// ---- skip mode ----

test('skip: every bad row is rejected with its location and raw bytes, the rest loaded, counts add up', async () => {
  const csv = [
    '1,a,1', // good
    '2x,b,2', // type error, line 2 col 1
    '3,"multi\nline",3', // good (lines 3-4)
    '4,d', // missing, line 5 col 3
    '5,e,5,5', // extra, line 6 col 4
    '6,"q""q",6', // good
    '7,\u0000,7', // NUL, line 8 col 2
    '8,h,99999999999', // overflow, line 9 col 3
    '9,i,9', // good
  ].join('\n') + '\n';
  for (const chunking of [null, { size: 1 }, { size: 5 }]) {
    const r = await readAll(csv, ABC, { onError: 'skip' }, chunking);
    assert.equal(r.rows, [['1', 'a', '1'], ['3', 'multi\nline', '3'], ['6', 'q"q', '6'], ['9', 'i', '9']]);
    assert.equal(r.rejects.map((x) => [x.line, x.column, x.code]), [[2, 1, '22P02'], [5, 3, '22P04'], [6, 4, '22P04'], [8, 2, '22021'], [9, 3, '22003']]);
    assert.equal(r.raws, ['2x,b,2', '4,d', '5,e,5,5', '7,\u0000,7', '8,h,99999999999']);
    assert.is(r.read, 9);
    assert.is(r.loaded, 4);
    assert.is(r.rejected, 5);
  }
});

test('skip: bad rows never shift their neighbours, across batches and blocks', async () => {
  const rng = new Rng(testSeed() + 1);
  const fields = [field('a', { id: 'int8' }), field('b', { id: 'varchar', length: 5 }), field('c', { id: 'numeric', precision: 10, scale: 2 }, true), field('d', { id: 'bool' })];
  const expected: (string | null)[][] = [];
  const badLines: number[] = [];
  const lines: string[] = [];
  for (let i = 0; i < 5000; i++) {
    const a = String(rng.int(-1e6, 1e6));
    const b = rng.chance(0.1) ? '' : 'abc'.slice(0, rng.int(0, 3));
    const c = (rng.int(-99999, 99999) / 100).toFixed(2);
    const d = rng.pick(['t', 'f', 'true', 'no']);
    const k = rng.int(0, 40);
    if (k === 0) lines.push(`${a}x,${b},${c},${d}`);
    else if (k === 1) lines.push(`${a},toolong,${c},${d}`);
    else if (k === 2) lines.push(`${a},${b},,${d}`);
    else if (k === 3) lines.push(`${a},${b},${c}`);
    else if (k === 4) lines.push(`${a},${b},${c},maybe`);
    else {
      lines.push(`${a},${b},${c},${d}`);
      expected.push([a, b === '' ? null : b, c, d === 't' || d === 'true' ? 't' : 'f']);
      continue;
    }
    badLines.push(lines.length);
  }
  const r = await readAll(lines.join('\n'), fields, { onError: 'skip', batchRows: 700, blockBytes: 1000 }, { size: 4096 });
  assert.equal(r.rows, expected);
  assert.equal(r.rejects.map((x) => x.line), badLines);
  assert.is(r.read, 5000);
  assert.is(r.loaded + r.rejected, r.read);
});

test('abort: the first bad row of the input fails the read, even when a later block is worse', async () => {
  const e = await errorOf('1,a,1\n2,b,x\n3,c\n', ABC);
  assert.is(e.line, 2);
  assert.is(e.column, 3);
});

test('streaming: a large input is read with bounded buffers', async () => {
  const rows = 200_000;
  async function* gen(): AsyncGenerator<Uint8Array> {
    let s = '';
    for (let i = 0; i < rows; i++) {
      s += `${i},row ${i},${i % 7}\n`;
      if (s.length > 60000) {
        yield Buffer.from(s);
        s = '';
      }
    }
    yield Buffer.from(s);
  }
  const reader = readCsv(gen(), ABC, { batchRows: 65536 }, 'big.csv');
  let n = 0;
  let sum = 0;
  for await (const b of reader) {
    n += b.length;
    const a = b.columns[0]!.values as Int32Array;
    for (let i = 0; i < b.length; i++) sum += a[i]!;
  }
  assert.is(n, rows);
  assert.is(sum, (rows * (rows - 1)) / 2);
  assert.is(reader.rowsRead, rows);
});

test.run();

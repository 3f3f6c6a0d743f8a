import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PaxdError } from '../../src/types/errors.js';
import { parseColumns, parseTypeName } from '../../src/types/parse-type.js';

function code(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof PaxdError) return e.code;
    throw e;
  }
  return 'ok';
}

test('PostgreSQL type spellings', () => {
  const cases: Array<[string, object]> = [
    ['int', { id: 'int4' }],
    ['INTEGER', { id: 'int4' }],
    ['smallint', { id: 'int2' }],
    ['bigint', { id: 'int8' }],
    ['int8', { id: 'int8' }],
    ['real', { id: 'float4' }],
    ['float', { id: 'float8' }],
    ['float(24)', { id: 'float4' }],
    ['float(25)', { id: 'float8' }],
    ['Double  Precision', { id: 'float8' }],
    ['bool', { id: 'bool' }],
    ['boolean', { id: 'bool' }],
    ['text', { id: 'text' }],
    ['varchar', { id: 'varchar' }],
    ['varchar(10)', { id: 'varchar', length: 10 }],
    ['character varying ( 10 )', { id: 'varchar', length: 10 }],
    ['char', { id: 'bpchar', length: 1 }],
    ['char(3)', { id: 'bpchar', length: 3 }],
    ['character(3)', { id: 'bpchar', length: 3 }],
    ['bpchar', { id: 'bpchar' }],
    ['bytea', { id: 'bytea' }],
    ['date', { id: 'date' }],
    ['timestamp', { id: 'timestamp' }],
    ['timestamp without time zone', { id: 'timestamp' }],
    ['timestamptz', { id: 'timestamptz' }],
    ['Timestamp With Time Zone', { id: 'timestamptz' }],
    ['numeric', { id: 'numeric' }],
    ['numeric(5)', { id: 'numeric', precision: 5, scale: 0 }],
    ['numeric(12,2)', { id: 'numeric', precision: 12, scale: 2 }],
    ['decimal(38, 38)', { id: 'numeric', precision: 38, scale: 38 }],
    ['numeric(5,-2)', { id: 'numeric', precision: 5, scale: -2 }],
    ['uuid', { id: 'uuid' }],
    ['jsonb', { id: 'jsonb' }],
    ['json', { id: 'json' }],
  ];
  for (const [s, want] of cases) assert.equal(parseTypeName(s), want, s);
});

test('type name errors carry PostgreSQL SQLSTATEs', () => {
  assert.is(code(() => parseTypeName('foo')), '42704');
  assert.is(code(() => parseTypeName('numeric(39,2)')), '0A000');
  assert.is(code(() => parseTypeName('numeric(0)')), '22023');
  assert.is(code(() => parseTypeName('numeric(10,1001)')), '22023');
  assert.is(code(() => parseTypeName('varchar(0)')), '22023');
  assert.is(code(() => parseTypeName('float(54)')), '22023');
  assert.is(code(() => parseTypeName('xml')), '0A000');
  assert.is(code(() => parseTypeName('timestamp(3)')), '0A000');
  assert.is(code(() => parseTypeName('int4(3)')), '42601');
  assert.is(code(() => parseTypeName('int[]')), '0A000');
});

test('parseColumns: commas inside parentheses, quoting, constraints, defaults', () => {
  assert.equal(parseColumns('id int8 not null, Name text, "Mixed Case" varchar(10) NULL, price numeric(12,2) default 0, t timestamp with time zone default \'2024-01-01\'::timestamptz'), [
    { name: 'id', type: { id: 'int8' }, notNull: true },
    { name: 'name', type: { id: 'text' }, notNull: false },
    { name: 'Mixed Case', type: { id: 'varchar', length: 10 }, notNull: false },
    { name: 'price', type: { id: 'numeric', precision: 12, scale: 2 }, notNull: false, default: '0' },
    { name: 't', type: { id: 'timestamptz' }, notNull: false, default: '2024-01-01' },
  ]);
  assert.equal(parseColumns("s text default 'it''s'")[0]!.default, "it's");
  assert.is(parseColumns('x int default null')[0]!.default, undefined);
  assert.is(parseColumns('a'.repeat(70) + ' int')[0]!.name.length, 63);
  assert.is(code(() => parseColumns('id int primary key')), '0A000');
  assert.is(code(() => parseColumns('id int default now()')), '0A000');
  assert.is(code(() => parseColumns('id')), '42601');
  assert.is(code(() => parseColumns('id int,')), '42601');
  assert.is(code(() => parseColumns('1x int')), '42601');
  assert.is(code(() => parseColumns('x int not null null')), '42601');
  assert.is(code(() => parseColumns('x nosuchtype')), '42704');
});

test.run();

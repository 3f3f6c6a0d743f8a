/**
 * What a server answers to one query, as comparable text, for the differential wire tests
 * (array-wire, binary-typmod): the simple protocol, then the extended protocol with text and
 * with binary results. RowDescription is "name oid typlen typmod" per column (the table OID
 * and attnum are not compared), DataRows are hex, errors their SQLSTATE.
 *
 *   await wireAnswers(port, 'postgres', 'SELECT 1.5::numeric(5,1) AS n')
 *   // ['simple: T n 1700 -1 327685\nD 0001000000...', 'extended text: …', 'extended binary: …']
 */
import { fe, RawClient, type Reply } from './client.js';

/** [SQL literal, type]: special values of every type, then arrays (the psycopg 3 and pgjdbc tests read them all). */
export const SPECIAL_VALUES: readonly (readonly [string, string])[] = [
  ["'infinity'", 'date'],
  ["'-infinity'", 'date'],
  ["'4714-11-24 BC'", 'date'],
  ["'5874897-12-31'", 'date'],
  ["'0001-01-01'", 'date'],
  ["'9999-12-31'", 'date'],
  ["'infinity'", 'timestamp'],
  ["'-infinity'", 'timestamp'],
  ["'4714-11-24 00:00:00 BC'", 'timestamp'],
  ["'294246-12-31 23:59:59.999999'", 'timestamp'],
  ["'9999-12-31 23:59:59.999999'", 'timestamp'],
  ["'infinity'", 'timestamptz'],
  ["'-infinity'", 'timestamptz'],
  ["'2000-01-01 00:00:00+00'", 'timestamptz'],
  ["'NaN'", 'float4'],
  ["'Infinity'", 'float4'],
  ["'-Infinity'", 'float4'],
  ["'3.4028235e+38'", 'float4'],
  ["'1e-45'", 'float4'],
  ["'NaN'", 'float8'],
  ["'Infinity'", 'float8'],
  ["'-Infinity'", 'float8'],
  ["'-0'", 'float8'],
  ["'1.7976931348623157e+308'", 'float8'],
  ["'5e-324'", 'float8'],
  ["'NaN'", 'numeric'],
  ["'Infinity'", 'numeric'],
  ["'-Infinity'", 'numeric'],
  ["'99999999999999999999999999999999999999'", 'numeric'],
  ["'-0.00000000000000000000000000000000000001'", 'numeric'],
  ["'123456789012345678901234567890.123456789012345678901234567890'", 'numeric'],
  ["'1e-300'", 'numeric'],
  ["'0.000'", 'numeric'],
  ["'1234567890.12'", 'numeric(12,2)'],
  ["'-0.5'", 'numeric(38,37)'],
  ["'32767'", 'int2'],
  ["'-32768'", 'int2'],
  ["'2147483647'", 'int4'],
  ["'-2147483648'", 'int4'],
  ["'9223372036854775807'", 'int8'],
  ["'-9223372036854775808'", 'int8'],
  ["'{1,NULL,-3}'", 'int4[]'],
  ["'{}'", 'int8[]'],
  [`'{"a b","",NULL,"NULL","q\\"t","x,y"}'`, 'text[]'],
  ["'{NaN,Infinity,-0,1.5}'", 'float8[]'],
  ["'{NaN,-Infinity,1.50}'", 'numeric[]'],
  ["'{2020-01-01,NULL}'", 'date[]'],
  ["'{t,f,NULL}'", 'bool[]'],
  ['\'{"2020-01-01 10:00:00+00"}\'', 'timestamptz[]'],
];

export function rowDescription(body: Buffer): string[] {
  const out: string[] = [];
  let off = 2;
  for (let i = 0; i < body.readInt16BE(0); i++) {
    const end = body.indexOf(0, off);
    const name = body.toString('utf8', off, end);
    off = end + 1 + 6;
    out.push(`${name} ${body.readInt32BE(off)} ${body.readInt16BE(off + 4)} ${body.readInt32BE(off + 6)}`);
    off += 12;
  }
  return out;
}

export function answer(rs: Reply[]): string[] {
  return rs.flatMap((r) => {
    if (r.code === 'T') return [`T ${rowDescription(r.body).join(' | ')}`];
    if (r.code === 'D') return [`D ${r.body.toString('hex')}`];
    if (r.code === 'E') return [`E ${/C([0-9A-Z]{5})\0/.exec(r.body.toString('latin1'))?.[1] ?? '?'}`];
    return [];
  });
}

export async function wireAnswers(port: number, user: string, sql: string, startup: Record<string, string> = {}): Promise<string[]> {
  const c = await RawClient.session(port, { user, database: user, ...startup });
  try {
    const out = [`simple: ${answer(await c.query(sql)).join('\n')}`];
    for (const format of [0, 1]) {
      c.send(fe.parse('', sql), fe.bind('', '', [], [format]), fe.describe('P', ''), fe.execute(''), fe.sync());
      out.push(`extended ${format === 0 ? 'text' : 'binary'}: ${answer(await c.untilReady()).join('\n')}`);
    }
    return out;
  } finally {
    c.end();
  }
}

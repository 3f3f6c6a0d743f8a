/**
 * Binary formats (docs/WIRE.md): every supported type's send/receive bytes, binary results equal
 * to the text results, binary parameters, and BINARY cursors. (node-postgres cannot check
 * binary results: its parser decodes every DataRow field as UTF-8 text.)
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { decodeBinary, decodeNumeric, encodeBinary, encodeNumeric } from '../../src/pgwire/codec/binary.js';
import { columnOf, parseText, type PgType } from '../../src/types/index.js';
import { tempDir } from '../support/tmp.js';
import { dataRowOf, errorFieldsOf, fe, msg, RawClient, splitReplies } from './client.js';

let db: Database;
let srv: RunningServer;

const COLUMNS: { name: string; type: string; pg: PgType; text: (string | null)[] }[] = [
  { name: 'i2', type: 'int2', pg: { id: 'int2' }, text: ['-32768', '7', null] },
  { name: 'i4', type: 'int4', pg: { id: 'int4' }, text: ['2147483647', '-1', null] },
  { name: 'i8', type: 'int8', pg: { id: 'int8' }, text: ['9007199254740993', '-5', null] },
  { name: 'f4', type: 'float4', pg: { id: 'float4' }, text: ['1.5', '-0.25', null] },
  { name: 'f8', type: 'float8', pg: { id: 'float8' }, text: ['3.141592653589793', '1e+300', null] },
  { name: 'n', type: 'numeric(12,3)', pg: { id: 'numeric', precision: 12, scale: 3 }, text: ['12345.678', '-0.001', null] },
  { name: 's', type: 'text', pg: { id: 'text' }, text: ['héllo', '', null] },
  { name: 'v', type: 'varchar(5)', pg: { id: 'varchar', length: 5 }, text: ['abc', 'z', null] },
  { name: 'b', type: 'bool', pg: { id: 'bool' }, text: ['t', 'f', null] },
  { name: 'd', type: 'date', pg: { id: 'date' }, text: ['2000-01-01', '1969-12-31', null] },
  { name: 'ts', type: 'timestamp', pg: { id: 'timestamp' }, text: ['2024-02-29 12:34:56.789', '1999-12-31 23:59:59', null] },
  { name: 'tz', type: 'timestamptz', pg: { id: 'timestamptz' }, text: ['2024-02-29 12:34:56+00', '2000-01-01 00:00:00+00', null] },
  { name: 'by', type: 'bytea', pg: { id: 'bytea' }, text: ['\\x00ff10', '\\x', null] },
  { name: 'u', type: 'uuid', pg: { id: 'uuid' }, text: ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '00000000-0000-0000-0000-000000000000', null] },
  { name: 'j', type: 'jsonb', pg: { id: 'jsonb' }, text: ['{"a": 1}', '[]', null] },
];

test.before(async () => {
  db = await Database.open(tempDir());
  const t = await db.createTable(
    'all_types',
    COLUMNS.map((c) => ({ name: c.name, type: c.type })),
  );
  const sink = t.sink();
  await sink.write({
    length: 3,
    columns: COLUMNS.map((c) => columnOf(c.pg, c.text.map((x) => (x === null ? null : parseText(c.pg, x))))),
    selection: null,
  });
  await sink.commit();
  srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
});

test.after(async () => {
  await srv.close();
  await db.close();
});

test('numeric_send bytes: 12.50, -0.001, 0, 10000, NaN', () => {
  const hex = (s: string) => encodeNumeric(s).toString('hex');
  assert.is(hex('12.50'), '0002' + '0000' + '0000' + '0002' + '000c' + '1388');
  assert.is(hex('-0.001'), '0001' + 'ffff' + '4000' + '0003' + '000a');
  assert.is(hex('0'), '0000' + '0000' + '0000' + '0000');
  assert.is(hex('10000'), '0001' + '0001' + '0000' + '0000' + '0001');
  assert.is(hex('NaN'), '0000' + '0000' + 'c000' + '0000');
  const t: PgType = { id: 'numeric' };
  for (const s of ['12.50', '-0.001', '0', '10000', '123456789.000012345', '0.00000001', '-99999999999999999999.5', 'NaN'])
    assert.is(decodeNumeric(t, encodeNumeric(s)), s);
});

test('every type round-trips through encodeBinary/decodeBinary', () => {
  for (const c of COLUMNS)
    for (const x of c.text) {
      if (x === null) continue;
      const v = parseText(c.pg, x);
      assert.equal(decodeBinary(c.pg, encodeBinary(c.pg, v)), v, `${c.type} ${x}`);
    }
  assert.is(encodeBinary({ id: 'date' }, parseText({ id: 'date' }, '2000-01-02')).toString('hex'), '00000001');
  assert.is(encodeBinary({ id: 'timestamp' }, parseText({ id: 'timestamp' }, '2000-01-01 00:00:01')).toString('hex'), '00000000000f4240');
  assert.is(encodeBinary({ id: 'jsonb' }, '{"a": 1}').toString('latin1'), '\x01{"a": 1}');
});

test('every column in binary decodes to the value its text format prints (one portal per format)', async () => {
  const c = await RawClient.connect(srv.port);
  c.send(fe.startup({ user: 'paxd' }));
  await c.untilReady();
  const sql = `select ${COLUMNS.map((x) => x.name).join(', ')} from all_types order by i4`;
  c.send(fe.parse('all', sql), fe.bind('t', 'all', [], [0]), fe.bind('b', 'all', [], [1]), fe.describe('P', 'b'), fe.execute('t'), fe.execute('b'), fe.sync());
  const rs = await c.untilReady();
  c.end();
  const desc = rs.find((r) => r.code === 'T')!.body;
  assert.is(desc.readInt16BE(desc.byteLength - 2), 1, 'RowDescription of portal b says binary');
  const rows = rs.filter((r) => r.code === 'D').map((r) => r.body);
  assert.is(rows.length, 6);
  const cells = (body: Buffer) => {
    const out: (Buffer | null)[] = [];
    let off = 2;
    for (let i = 0; i < body.readInt16BE(0); i++) {
      const n = body.readInt32BE(off);
      out.push(n < 0 ? null : body.subarray(off + 4, off + 4 + n));
      off += 4 + Math.max(0, n);
    }
    return out;
  };
  for (let r = 0; r < 3; r++) {
    const text = cells(rows[r]!);
    const bin = cells(rows[r + 3]!);
    COLUMNS.forEach((col, i) => {
      const t = text[i]!;
      const b = bin[i]!;
      if (t === null) return assert.is(b, null);
      assert.equal(decodeBinary(col.pg, b), parseText(col.pg, t.toString('utf8')), `${col.name} row ${r}`);
    });
  }
});

test('binary results of date, bytea, uuid, jsonb, varchar are PostgreSQL’s bytes; binary parameters', async () => {
  const c = await RawClient.connect(srv.port);
  c.send(fe.startup({ user: 'paxd' }));
  await c.untilReady();
  const int16 = (n: number) => Buffer.from([n >> 8, n & 255]);
  const int32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    return b;
  };
  // Bind with one binary int4 parameter (2147483647) and all results in binary.
  const bind = msg('B', Buffer.from('\0\0'), int16(1), int16(1), int16(1), int32(4), int32(2147483647), int16(1), int16(1));
  c.send(fe.parse('', 'select d, by, u, j, v from all_types where i4 = $1'), bind, fe.execute(''), fe.sync());
  const rs = await c.untilReady();
  c.end();
  const row = rs.find((r) => r.code === 'D')!.body;
  const values: string[] = [];
  let off = 2;
  for (let i = 0; i < row.readInt16BE(0); i++) {
    const n = row.readInt32BE(off);
    values.push(row.toString('hex', off + 4, off + 4 + n));
    off += 4 + n;
  }
  assert.equal(values, ['00000000', '00ff10', 'a0eebc999c0b4ef8bb6d6bb9bd380a11', Buffer.from('\x01{"a": 1}', 'latin1').toString('hex'), Buffer.from('abc').toString('hex')]);
});

test('BINARY cursor: FETCH returns binary columns and says so in RowDescription', async () => {
  const c = await RawClient.connect(srv.port);
  c.send(fe.startup({ user: 'paxd' }));
  await c.untilReady();
  c.send(fe.query('BEGIN; DECLARE bc BINARY CURSOR FOR select i4 from all_types order by i4; FETCH 1 FROM bc; COMMIT'));
  const rs = await c.untilReady();
  c.end();
  const desc = rs.find((r) => r.code === 'T')!.body;
  assert.is(desc.readInt16BE(desc.byteLength - 2), 1);
  const [v] = dataRowOf(rs.find((r) => r.code === 'D')!.body);
  assert.is(Buffer.from(v!, 'latin1').length, 4);
  assert.equal(splitReplies(Buffer.alloc(0)), []);
});

/** Sends one Query and returns its replies up to ReadyForQuery. */
const session = (): Promise<RawClient> => RawClient.session(srv.port, { user: 'paxd' });

test('COPY … (FORMAT binary) out and back in: the same rows; a wrong field count names the tuple', async () => {
  await db.createTable(
    'copy_back',
    COLUMNS.map((c) => ({ name: c.name, type: c.type })),
  );
  const c = await session();
  try {
    c.send(fe.query('COPY all_types TO STDOUT (FORMAT binary)'));
    const out = await c.untilReady();
    assert.is(out[0]!.code, 'H');
    assert.is(out[0]!.body[0], 1);
    const data = Buffer.concat(out.filter((r) => r.code === 'd').map((r) => Buffer.from(r.body)));
    assert.is(data.subarray(0, 11).toString('latin1'), 'PGCOPY\n\xff\r\n\0');
    c.send(fe.query('COPY copy_back FROM STDIN (FORMAT binary)'));
    await c.until((b) => splitReplies(b).some((r) => r.code === 'G'));
    // Cut the stream at odd places: tuples span CopyData messages.
    for (let i = 0; i < data.byteLength; i += 7) c.send(fe.copyData(data.subarray(i, i + 7)));
    c.send(fe.copyDone());
    const r = await c.untilReady();
    assert.equal(r.filter((x) => x.code === 'C').map((x) => x.body.toString('utf8', 0, x.body.byteLength - 1)), ['COPY 3']);
    const text = async (t: string) => {
      c.send(fe.query(`COPY (select * from ${t} order by i4) TO STDOUT`));
      return (await c.untilReady()).filter((x) => x.code === 'd').map((x) => x.body.toString('utf8')).join('');
    };
    assert.is(await text('copy_back'), await text('all_types'));

    c.send(fe.query('COPY copy_back FROM STDIN (FORMAT binary)'));
    await c.until((b) => splitReplies(b).some((x) => x.code === 'G'));
    c.send(fe.copyData(Buffer.concat([data.subarray(0, 19), Buffer.from([0, 1, 0, 0, 0, 1, 0])])), fe.copyDone());
    const bad = await c.untilReady();
    const e = errorFieldsOf(bad.find((x) => x.code === 'E')!.body);
    assert.equal([e.C, e.M, e.W], ['22P04', 'row field count is 1, expected 15', 'COPY copy_back, line 1']);
  } finally {
    c.end();
  }
});

test.run();

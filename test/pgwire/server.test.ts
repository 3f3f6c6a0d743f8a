/**
 * The server end to end: psql and a raw protocol client against a server over a temporary
 * store holding a small table. Each test's connections are closed; the server and store are
 * closed after the suite, leaving no socket behind.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { columnOf } from '../../src/types/index.js';
import { tempDir } from '../support/tmp.js';
import { dataRowOf, errorFieldsOf, fe, RawClient, splitReplies, type Reply } from './client.js';

let db: Database;
let srv: RunningServer;

test.before(async () => {
  db = await Database.open(tempDir());
  const t = await db.createTable('t', [
    { name: 'id', type: 'int4', notNull: true },
    { name: 's', type: 'text' },
    { name: 'n', type: 'numeric(10,2)' },
  ]);
  const sink = t.sink();
  await sink.write({
    length: 3,
    columns: [columnOf({ id: 'int4' }, [1, 2, 3]), columnOf({ id: 'text' }, ['a', null, 'é']), columnOf({ id: 'numeric', precision: 10, scale: 2 }, [150n, -5n, null])],
    selection: null,
  });
  await sink.commit();
  srv = await startServer({ db, host: '127.0.0.1', port: 0, maxMessageSize: 64 * 1024, auth: { method: 'trust' } });
});

test.after(async () => {
  await srv.close();
  await db.close();
});

interface PsqlResult {
  code: number;
  stdout: string;
  stderr: string;
}

function psql(...args: string[]): Promise<PsqlResult> {
  return new Promise((resolve) => {
    execFile(
      'psql',
      ['-X', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(srv.port), '-U', 'paxd', '-d', 'paxd', '-At', ...args],
      { timeout: 10_000, env: { ...process.env, PGCONNECT_TIMEOUT: '5', PGSSLMODE: 'prefer' } },
      (err, stdout, stderr) => resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr }),
    );
  });
}

/** A raw client past startup, its startup replies consumed. */
async function session(params: Record<string, string> = { user: 'paxd', database: 'paxd' }): Promise<{ c: RawClient; startup: Reply[] }> {
  const c = await RawClient.connect(srv.port);
  c.send(fe.startup(params));
  return { c, startup: await c.untilReady() };
}

const codes = (rs: Reply[]) => rs.map((r) => r.code).join('');
const status = (rs: Reply[]) => String.fromCharCode(rs.filter((r) => r.code === 'Z').at(-1)!.body[0]!);
const errorOf = (rs: Reply[]) => errorFieldsOf(rs.find((r) => r.code === 'E')!.body);
const rowsOf = (rs: Reply[]) => rs.filter((r) => r.code === 'D').map((r) => dataRowOf(r.body));
const tagsOf = (rs: Reply[]) => rs.filter((r) => r.code === 'C').map((r) => r.body.toString('utf8', 0, r.body.byteLength - 1));

// ---- psql ----

test('psql: a count over a table', async () => {
  const r = await psql('-c', 'select count(*) from t');
  assert.is(r.stderr, '');
  assert.is(r.stdout, '3\n');
});

test('psql: rows with NULLs, UTF-8 and numeric in text format', async () => {
  const r = await psql('-F', ',', '-c', 'select id, s, n from t order by id');
  assert.is(r.stdout, '1,a,1.50\n2,,-0.05\n3,é,\n');
});

test('psql: an error surfaces as PostgreSQL prints it and stops the script', async () => {
  const r = await psql('-c', 'select 1/0 from t');
  assert.is(r.code, 1);
  assert.match(r.stderr, 'ERROR:  division by zero');
});

test('psql: SET, SHOW and a transaction block', async () => {
  const r = await psql('-c', "SET datestyle TO 'ISO'", '-c', 'SET extra_float_digits = 3', '-c', 'show DateStyle', '-c', 'BEGIN', '-c', 'select max(id) from t', '-c', 'COMMIT', '-c', 'show server_version');
  assert.is(r.stderr, '');
  assert.is(r.stdout, 'SET\nSET\nISO, MDY\nBEGIN\n3\nCOMMIT\n15.0 (paxd)\n');
});

test('psql: PGOPTIONS settings (-c name=value, --name=value) apply from the startup packet', async () => {
  const r = await new Promise<PsqlResult>((resolve) =>
    execFile(
      'psql',
      ['-X', '-At', '-h', '127.0.0.1', '-p', String(srv.port), '-U', 'paxd', '-d', 'paxd', '-c', 'show statement_timeout', '-c', 'show work_mem'],
      { timeout: 10_000, env: { ...process.env, PGOPTIONS: '-c statement_timeout=5s --work-mem=64MB', PGSSLMODE: 'disable' } },
      (err, stdout, stderr) => resolve({ code: err === null ? 0 : 1, stdout, stderr }),
    ),
  );
  assert.is(r.stderr, '');
  assert.is(r.stdout, '5s\n64MB\n');
});

// ---- startup ----

test('startup: AuthenticationOk, the reported parameters, BackendKeyData, ReadyForQuery I', async () => {
  const { c, startup } = await session({ user: 'alice', database: 'anything', application_name: 'tests', client_encoding: 'UTF8' });
  c.end();
  assert.is(startup[0]!.code, 'R');
  assert.is(startup[0]!.body.readInt32BE(0), 0);
  const ps = new Map(
    startup.filter((r) => r.code === 'S').map((r) => {
      const [k, v] = r.body.toString('utf8').split('\0');
      return [k!, v!];
    }),
  );
  assert.is(ps.get('server_version'), '15.0 (paxd)');
  assert.is(ps.get('server_encoding'), 'UTF8');
  assert.is(ps.get('client_encoding'), 'UTF8');
  assert.is(ps.get('DateStyle'), 'ISO, MDY');
  assert.is(ps.get('IntervalStyle'), 'postgres');
  assert.is(ps.get('TimeZone'), 'UTC');
  assert.is(ps.get('integer_datetimes'), 'on');
  assert.is(ps.get('standard_conforming_strings'), 'on');
  assert.is(ps.get('application_name'), 'tests');
  assert.is(ps.get('is_superuser'), 'off');
  assert.is(ps.get('session_authorization'), 'alice');
  assert.is(startup.at(-2)!.code, 'K');
  assert.is(codes(startup.slice(-1)), 'Z');
  assert.is(status(startup), 'I');
});

test('startup: SSLRequest and GSSENCRequest are answered N, then the startup proceeds', async () => {
  const c = await RawClient.connect(srv.port);
  c.send(fe.gssenc());
  await c.until((b) => b.byteLength >= 1);
  assert.is(c.bytes.toString('latin1'), 'N');
  c.send(fe.ssl());
  await c.until((b) => b.byteLength >= 2);
  assert.is(c.bytes.toString('latin1'), 'NN');
  c.send(fe.startup({ user: 'u' }));
  await c.until((b) => splitReplies(b.subarray(2)).some((r) => r.code === 'Z'));
  c.end();
});

test('startup: no user is FATAL 28000; protocol 2.0 is FATAL 0A000; both close', async () => {
  for (const [packet, code] of [
    [fe.startup({ database: 'x' }), '28000'],
    [fe.startup({ user: 'u' }, 0x20000), '0A000'],
  ] as const) {
    const c = await RawClient.connect(srv.port);
    c.send(packet);
    await c.untilClosed();
    const e = errorFieldsOf(splitReplies(c.bytes)[0]!.body);
    assert.is(e.S, 'FATAL');
    assert.is(e.C, code);
  }
});

test('startup: a CancelRequest is accepted and the connection closed', async () => {
  const c = await RawClient.connect(srv.port);
  c.send(fe.cancel(1, 2));
  await c.untilClosed();
  assert.is(c.bytes.byteLength, 0);
});

test('startup: a protocol 3.1 client gets NegotiateProtocolVersion', async () => {
  const { c, startup } = await session();
  c.end();
  assert.not.ok(startup.some((r) => r.code === 'v'));
  const c2 = await RawClient.connect(srv.port);
  c2.send(fe.startup({ user: 'u', _pq_x: '1', '_pq_.opt': 'v' }, 0x30001));
  const rs = await c2.untilReady().catch(() => []);
  c2.end();
  // _pq_x is not a protocol option: it is an unknown parameter, refused as PostgreSQL does.
  assert.is(errorOf(rs).C, '42704');
  const c3 = await RawClient.connect(srv.port);
  c3.send(fe.startup({ user: 'u', '_pq_.opt': 'v' }, 0x30001));
  const rs3 = await c3.untilReady();
  c3.end();
  assert.is(rs3[0]!.code, 'v');
  assert.is(rs3[0]!.body.readInt32BE(0), 0);
});

// ---- simple query protocol ----

test('simple query: RowDescription, DataRows, CommandComplete, ReadyForQuery', async () => {
  const { c } = await session();
  c.send(fe.query('select id from t order by id'));
  const rs = await c.untilReady();
  c.end();
  assert.is(codes(rs), 'TDDDCZ');
  assert.equal(rowsOf(rs), [['1'], ['2'], ['3']]);
  assert.equal(tagsOf(rs), ['SELECT 3']);
});

test('simple query: several statements, each answered; the empty query', async () => {
  const { c } = await session();
  c.send(fe.query("SET application_name = 'x'; select id from t where id = 1; SHOW application_name;"), fe.query(''), fe.query(' ; '));
  const rs = await c.untilReady(3);
  c.end();
  assert.is(codes(rs), 'C' + 'TDC' + 'TDC' + 'SZ' + 'IZ' + 'IZ');
  assert.equal(tagsOf(rs), ['SET', 'SELECT 1', 'SHOW']);
  assert.equal(rowsOf(rs), [['1'], ['x']]);
});

test('simple query: an error stops the string and carries SQLSTATE and position in the whole string', async () => {
  const { c } = await session();
  c.send(fe.query('select 1 from t; select nosuch from t; select 2 from t'));
  const rs = await c.untilReady();
  c.end();
  assert.is(codes(rs), 'TDDDCEZ');
  const e = errorOf(rs);
  assert.is(e.C, '42703');
  assert.is(e.S, 'ERROR');
  assert.is(e.P, '25');
});

test('simple query: a syntax error anywhere runs nothing', async () => {
  const { c } = await session();
  c.send(fe.query('select 1 from t; selec 2'));
  const rs = await c.untilReady();
  c.end();
  assert.is(codes(rs), 'EZ');
  assert.is(errorOf(rs).C, '42601');
  assert.is(errorOf(rs).P, '18');
});

test('transactions: status T, a failed block refuses statements (25P02) until ROLLBACK', async () => {
  const { c } = await session();
  c.send(fe.query('BEGIN'));
  assert.is(status(await c.untilReady()), 'T');
  c.send(fe.query('select 1/0 from t'));
  let rs = await c.untilReady();
  assert.is(errorOf(rs).C, '22012');
  assert.is(status(rs), 'E');
  c.send(fe.query('select 1 from t'));
  rs = await c.untilReady();
  assert.is(errorOf(rs).C, '25P02');
  c.send(fe.query('COMMIT'));
  rs = await c.untilReady();
  assert.equal(tagsOf(rs), ['ROLLBACK']);
  assert.is(status(rs), 'I');
  c.send(fe.query('ROLLBACK'));
  rs = await c.untilReady();
  assert.is(codes(rs), 'NCZ');
  assert.is(errorFieldsOf(rs[0]!.body).C, '25P01');
  c.end();
});

test('SET: unknown parameters 42704, read-only 55P02, values paxd cannot honour 0A000, unknown zones 22023, TimeZone reported', async () => {
  const { c } = await session();
  const expect: [string, string][] = [
    ['SET nosuch = 1', '42704'],
    ['SET server_version = 1', '55P02'],
    ["SET datestyle = 'German'", '0A000'],
    ["SET timezone = 'Mars/Base'", '22023'],
    ['SET extra_float_digits = 0', '0A000'],
    ['SHOW nosuch', '42704'],
  ];
  for (const [sql, code] of expect) {
    c.send(fe.query(sql));
    assert.is(errorOf(await c.untilReady()).C, code, sql);
  }
  c.send(fe.query("SET timezone = 'GMT'"));
  const rs = await c.untilReady();
  c.end();
  assert.is(codes(rs), 'CSZ'); // ParameterStatus after CommandComplete, as PostgreSQL
  assert.is(rs[1]!.body.toString('utf8'), 'TimeZone\0GMT\0');
});

// ---- extended query protocol ----

test('extended: Parse/Bind/Describe/Execute with a row limit, PortalSuspended, Sync', async () => {
  const { c } = await session();
  c.send(fe.parse('', 'select id, s from t order by id'), fe.bind('', ''), fe.describe('P', ''), fe.execute('', 2), fe.execute('', 0), fe.sync());
  const rs = await c.untilReady();
  assert.is(codes(rs), '12TDDsDCZ');
  assert.equal(rowsOf(rs), [['1', 'a'], ['2', null], ['3', 'é']]);
  assert.equal(tagsOf(rs), ['SELECT 1'], 'the rows of the last Execute, as PostgreSQL counts them');
  c.send(fe.parse('s1', 'select count(*) from t'), fe.describe('S', 's1'), fe.bind('', 's1'), fe.execute(''), fe.close('S', 's1'), fe.sync());
  const rs2 = await c.untilReady();
  c.end();
  assert.is(codes(rs2), '1tT2DC3Z');
  assert.equal(rowsOf(rs2), [['3']]);
});

test('extended: an error skips to Sync, then the session goes on', async () => {
  const { c } = await session();
  c.send(fe.parse('', 'select 1/0 from t'), fe.bind('', ''), fe.execute(''), fe.parse('', 'select 1 from t'), fe.sync(), fe.query('select id from t where id = 2'));
  const rs = await c.untilReady(2);
  c.end();
  assert.is(codes(rs), '12EZ' + 'TDCZ');
  assert.is(errorOf(rs).C, '22012');
  assert.equal(rowsOf(rs), [['2']]);
});

test('extended: $n parameters typed by Parse, ParameterDescription without running', async () => {
  const { c } = await session();
  c.send(fe.parse('s', 'select id, $2::text as x from t where id = $1', [23]), fe.describe('S', 's'), fe.bind('', 's', ['2', 'hi']), fe.execute(''), fe.sync());
  const rs = await c.untilReady();
  c.end();
  assert.is(codes(rs), '1tT2DCZ');
  const pd = rs.find((r) => r.code === 't')!.body;
  assert.equal([pd.readInt16BE(0), pd.readInt32BE(2), pd.readInt32BE(6)], [2, 23, 25]);
  assert.equal(rowsOf(rs), [['2', 'hi']]);
});

test('extended: a Bind with the wrong number of parameters is an ERROR (08P01), the session goes on', async () => {
  const { c } = await session();
  c.send(fe.parse('', 'select id from t where id = $1', [23]), fe.bind('', '', []), fe.execute(''), fe.sync(), fe.query('select count(*) from t'));
  const rs = await c.untilReady(2);
  c.end();
  assert.is(codes(rs), '1EZTDCZ');
  assert.is(errorOf(rs).M, 'bind message supplies 0 parameters, but prepared statement "" requires 1');
});

// ---- hostile and broken clients ----

test('a 2 GB declared length is FATAL 08P01 and closes; other sessions keep working', async () => {
  const { c: other } = await session();
  const { c } = await session();
  c.send(Buffer.from([0x51, 0x7f, 0xff, 0xff, 0xff]));
  await c.untilClosed();
  const e = errorFieldsOf(splitReplies(c.bytes)[0]!.body);
  assert.is(e.S, 'FATAL');
  assert.is(e.C, '08P01');
  other.send(fe.query('select id from t where id = 3'));
  assert.equal(rowsOf(await other.untilReady()), [['3']]);
  other.end();
});

test('a hostile startup length is refused before its body arrives', async () => {
  const c = await RawClient.connect(srv.port);
  c.send(Buffer.from([0x7f, 0xff, 0xff, 0xff]));
  await c.untilClosed();
  assert.is(errorFieldsOf(splitReplies(c.bytes)[0]!.body).C, '08P01');
});

test('an unknown message type is FATAL 08P01', async () => {
  const { c } = await session();
  c.send(Buffer.from([0x7a, 0, 0, 0, 4]));
  await c.untilClosed();
  assert.is(errorFieldsOf(splitReplies(c.bytes)[0]!.body).C, '08P01');
});

test('a session sent byte by byte gets the same answers', async () => {
  const c = await RawClient.connect(srv.port);
  const bytes = Buffer.concat([fe.ssl(), fe.startup({ user: 'u' }), fe.query('select id from t order by id')]);
  for (let i = 0; i < bytes.byteLength; i++) c.socket.write(bytes.subarray(i, i + 1));
  await c.until((b) => splitReplies(b.subarray(1)).filter((r) => r.code === 'Z').length >= 2);
  const rs = splitReplies(c.bytes.subarray(1));
  c.end();
  assert.equal(rowsOf(rs), [['1'], ['2'], ['3']]);
});

test('Terminate closes the connection', async () => {
  const { c } = await session();
  c.send(fe.terminate());
  await c.untilClosed();
  assert.ok(c.closed);
});

test('limits: one connection too many is FATAL 53300 after its startup; a silent client is disconnected', async () => {
  const small = await startServer({ db, port: 0, maxConnections: 1, startupTimeoutMs: 200, auth: { method: 'trust' } });
  try {
    const first = await RawClient.connect(small.port);
    first.send(fe.startup({ user: 'u' }));
    await first.until((b) => splitReplies(b).some((r) => r.code === 'Z'));
    const second = await RawClient.connect(small.port);
    second.send(fe.ssl());
    await second.until((b) => b.byteLength >= 1);
    second.send(fe.startup({ user: 'u' }));
    await second.untilClosed();
    const e = errorFieldsOf(splitReplies(second.bytes.subarray(1))[0]!.body);
    assert.is(e.S, 'FATAL');
    assert.is(e.C, '53300');
    first.end();
    await new Promise((r) => setTimeout(r, 50));
    const silent = await RawClient.connect(small.port);
    const started = Date.now();
    await silent.untilClosed();
    assert.ok(Date.now() - started < 2000);
  } finally {
    await small.close();
  }
});

test('trust on a non-loopback address is refused at start', async () => {
  try {
    await startServer({ db, host: '0.0.0.0', port: 0, auth: { method: 'trust' } });
    assert.unreachable('should refuse');
  } catch (e) {
    assert.is((e as { kind?: string }).kind, 'usage');
    assert.match((e as Error).message, 'trust');
  }
});

test.run();

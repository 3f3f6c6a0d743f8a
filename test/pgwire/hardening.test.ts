/**
 * Hostile clients (docs/WIRE.md): declared lengths up to 2 GB cost nothing, a half-sent
 * huge message holds only the bytes that arrived, SASL messages are capped at 1,024 bytes, and
 * other clients are served throughout.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { Database } from '../../src/table/database.js';
import { scramVerifier, startServer, type RunningServer } from '../../src/pgwire/index.js';
import { tempDir } from '../support/tmp.js';
import { errorFieldsOf, fe, RawClient, splitReplies } from './client.js';

let db: Database;
let srv: RunningServer;

test.before(async () => {
  db = await Database.open(tempDir());
  await db.createTable('t', [{ name: 'id', type: 'int4' }]);
  srv = await startServer({ db, port: 0, auth: { users: { alice: scramVerifier('pw') } }, maxConnections: 200 });
});

test.after(async () => {
  await srv.close();
  await db.close();
});

const header = (code: string, length: number) => {
  const b = Buffer.alloc(5);
  b.write(code, 0, 'latin1');
  b.writeUInt32BE(length >>> 0, 1);
  return b;
};

/** A real client still gets in and is answered. */
async function authenticated(): Promise<void> {
  const pgc = new pg.Client({ host: '127.0.0.1', port: srv.port, user: 'alice', password: 'pw', database: 'paxd' });
  await pgc.connect();
  assert.equal((await pgc.query('select count(*)::int4 as n from t')).rows, [{ n: 0 }]);
  await pgc.end();
}

test('100 connections each declaring a 1 GB message and sending 16 KB of it grow RSS by far less than 1 MB each; a real client is served meanwhile', async () => {
  const own = await startServer({ db, port: 0, auth: { method: 'trust' }, maxConnections: 200 });
  try {
    const before = process.memoryUsage().rss;
    const hostile: RawClient[] = [];
    for (let i = 0; i < 100; i++) {
      const c = await RawClient.connect(own.port);
      c.send(fe.startup({ user: 'x' }));
      await c.untilReady();
      c.send(header('Q', 0x3fff_fff0), Buffer.alloc(16 * 1024, 0x41));
      hostile.push(c);
    }
    const client = new pg.Client({ host: '127.0.0.1', port: own.port, user: 'paxd', database: 'paxd' });
    await client.connect();
    assert.equal((await client.query('select count(*)::int4 as n from t')).rows, [{ n: 0 }]);
    await client.end();
    const grown = process.memoryUsage().rss - before;
    assert.ok(grown < 100 * 1024 * 1024, `RSS grew ${grown} bytes for 100 hostile connections`);
    for (const c of hostile) c.end();
  } finally {
    await own.close();
  }
});

test('a 2 GB length at every message kind is FATAL 08P01 from the header alone', async () => {
  for (const code of ['Q', 'P', 'B', 'D', 'E', 'S', 'd', 'p']) {
    const c = await RawClient.connect(srv.port);
    if (code === 'p') c.send(fe.startup({ user: 'alice' }));
    else {
      c.send(fe.startup({ user: 'alice' }));
      await c.until((b) => b.byteLength > 0);
    }
    c.send(header(code, 0x7fff_ffff));
    await c.untilClosed();
    const e = splitReplies(c.bytes).find((r) => r.code === 'E');
    assert.ok(e, `an error for '${code}'`);
    assert.is(errorFieldsOf(e.body).C, '08P01', `code for '${code}'`);
  }
  await authenticated();
});

test('a SASL message over 1,024 bytes is refused before its body is read', async () => {
  const c = await RawClient.connect(srv.port);
  c.send(fe.startup({ user: 'alice' }));
  await c.until((b) => b.byteLength > 0);
  c.send(header('p', 1029));
  await c.untilClosed();
  const e = errorFieldsOf(splitReplies(c.bytes).find((r) => r.code === 'E')!.body);
  assert.is(e.C, '08P01');
  assert.match(e.M ?? '', 'expected 4 to 1024');
});

test('several frames per chunk, split anywhere, through authentication and queries', async () => {
  // Startup + a query that must wait: SASL starts, the query is a protocol violation (no password yet).
  const c = await RawClient.connect(srv.port);
  const bytes = Buffer.concat([fe.startup({ user: 'alice' }), fe.query('select 1 from t')]);
  for (let i = 0; i < bytes.byteLength; i += 3) c.send(bytes.subarray(i, i + 3));
  await c.untilClosed();
  const rs = splitReplies(c.bytes);
  assert.is(rs[0]!.code, 'R');
  assert.is(errorFieldsOf(rs.find((r) => r.code === 'E')!.body).M, 'expected password response, got message type 81');
});

test.run();

/**
 * Many sessions at once (docs/WIRE.md): 16 clients for about two
 * seconds, each looping over queries, transactions with cursors, expected errors and COPY FROM
 * STDIN of its own rows through psql-like raw sessions. No error but the expected ones, and
 * every row a COPY committed is there at the end.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { Database } from '../../src/table/database.js';
import { startServer } from '../../src/pgwire/index.js';
import { tempDir } from '../support/tmp.js';
import { errorFieldsOf, fe, RawClient, splitReplies } from './client.js';

const CLIENTS = 16;
const DURATION_MS = 2000;

test('16 concurrent clients: mixed queries, cursors, errors and COPY; every committed row present', async () => {
  const db = await Database.open(tempDir());
  await db.createTable('events', [
    { name: 'client', type: 'int4', notNull: true },
    { name: 'seq', type: 'int4', notNull: true },
    { name: 'note', type: 'text' },
  ]);
  const srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
  const unexpected: string[] = [];
  const committed = new Array<number>(CLIENTS).fill(0);
  const deadline = Date.now() + DURATION_MS;

  const queryClient = async (k: number) => {
    const c = new pg.Client({ host: '127.0.0.1', port: srv.port, user: `u${k}`, database: 'paxd' });
    await c.connect();
    try {
      for (let i = 0; Date.now() < deadline; i++) {
        try {
          switch (i % 4) {
            case 0:
              await c.query('select count(*), max(seq) from events where client = $1', [k]);
              break;
            case 1:
              await c.query('BEGIN');
              await c.query('DECLARE cur CURSOR FOR select client, seq from events order by client, seq');
              await c.query('FETCH 10 FROM cur');
              await c.query('COMMIT');
              break;
            case 2:
              try {
                await c.query('select 1 / (count(*) - count(*)) from events');
                unexpected.push('division by zero succeeded');
              } catch (e) {
                if ((e as { code?: string }).code !== '22012') unexpected.push(String(e));
              }
              break;
            default:
              await c.query('select client, count(*) from events group by client order by client');
          }
        } catch (e) {
          unexpected.push(`client ${k}: ${(e as Error).message}`);
          await c.query('ROLLBACK').catch(() => undefined);
        }
      }
    } finally {
      await c.end();
    }
  };

  const copyClient = async (k: number) => {
    const c = await RawClient.connect(srv.port);
    c.send(fe.startup({ user: `c${k}` }));
    await c.untilReady();
    try {
      for (let batch = 0; Date.now() < deadline; batch++) {
        c.send(fe.query('COPY events FROM STDIN'));
        await c.until((b) => splitReplies(b).some((r) => r.code === 'G' || r.code === 'E'));
        const rows = Array.from({ length: 50 }, (_, j) => `${k}\t${batch * 50 + j}\tnote ${j}\n`).join('');
        c.send(fe.copyData(rows), fe.copyDone());
        const rs = await c.untilReady();
        const e = rs.find((r) => r.code === 'E');
        if (e !== undefined) unexpected.push(`copy ${k}: ${errorFieldsOf(e.body).M}`);
        else committed[k] = committed[k]! + 50;
      }
    } finally {
      c.end();
    }
  };

  try {
    await Promise.all(Array.from({ length: CLIENTS }, (_, k) => (k % 4 === 0 ? copyClient(k) : queryClient(k))));
    assert.equal(unexpected, []);
    const check = new pg.Client({ host: '127.0.0.1', port: srv.port, user: 'check', database: 'paxd' });
    await check.connect();
    const r = await check.query('select client, count(*)::int4 as n, count(distinct seq)::int4 as d from events group by client order by client');
    await check.end();
    const expected = committed.map((n, k) => ({ client: k, n, d: n })).filter((x) => x.n > 0);
    assert.ok(expected.length > 0, 'some COPY committed');
    assert.equal(r.rows, expected);
  } finally {
    await srv.close();
    await db.close();
  }
});

test.run();

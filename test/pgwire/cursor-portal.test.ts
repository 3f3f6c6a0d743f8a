/**
 * A cursor made by DECLARE is a portal of its name, as in PostgreSQL: Describe (portal) answers
 * its RowDescription and Execute fetches from it like FETCH FORWARD n. Against a real
 * PostgreSQL 15 with the same data: the raw protocol, and psycopg 3's named cursors (which
 * DECLARE, then Describe the portal, then FETCH).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';
import { dataRowOf, errorFieldsOf, fe, RawClient, type Reply } from './client.js';

let pg: Postgres;
let db: Database;
let srv: RunningServer;

test.before(async () => {
  pg = await startPostgres();
  db = await Database.open(tempDir());
  srv = await startServer({ db, host: '127.0.0.1', port: 0, auth: { method: 'trust' } });
  const rows = Array.from(
    { length: 25 },
    (_, i) => `(${i + 1}, ${i % 4 === 0 ? 'NULL' : `'v${i + 1}'`}, ${(i + 1) * 1.25}, '2024-03-${String((i % 28) + 1).padStart(2, '0')} 12:00:00+00')`,
  );
  const setup = [
    'CREATE TABLE cp (id int4 NOT NULL, v text, n numeric, at timestamptz)',
    `INSERT INTO cp VALUES (0, 'zero', 0.5, '2024-01-01 00:00:00+00'), ${rows.join(', ')}`,
  ];
  const mine = await RawClient.session(srv.port);
  const theirs = await RawClient.session(pg.port, { user: 'postgres', database: 'postgres' });
  for (const sql of setup) {
    for (const c of [mine, theirs]) {
      const r = await c.query(sql);
      assert.not.ok(
        r.some((x) => x.code === 'E'),
        `${sql}: ${r.map((x) => (x.code === 'E' ? errorFieldsOf(x.body).M : '')).join('')}`,
      );
    }
  }
  mine.end();
  theirs.end();
});

test.after(async () => {
  await srv.close();
  await db.close();
});

/** Replies as a client sees them: RowDescription's names, type OIDs, typmods and formats; rows; tags; SQLSTATEs; status. */
function summary(replies: readonly Reply[]): string[] {
  return replies.map((r) => {
    switch (r.code) {
      case 'T': {
        const cols: string[] = [];
        let off = 2;
        for (let i = 0; i < r.body.readInt16BE(0); i++) {
          const end = r.body.indexOf(0, off);
          const name = r.body.toString('utf8', off, end);
          off = end + 1 + 6; // table OID, attribute number
          cols.push(`${name}:${r.body.readInt32BE(off)}:${r.body.readInt32BE(off + 6)}:${r.body.readInt16BE(off + 10)}`);
          off += 12;
        }
        return `T ${cols.join(' ')}`;
      }
      case 'C':
        return `C ${r.body.toString('utf8', 0, r.body.byteLength - 1)}`;
      case 'E':
        return `E ${errorFieldsOf(r.body).C}`;
      case 'D':
        return `D ${JSON.stringify(dataRowOf(r.body))}`;
      case 'Z':
        return `Z ${String.fromCharCode(r.body[0]!)}`;
      default:
        return r.code;
    }
  });
}

async function onBoth(run: (c: RawClient) => Promise<Reply[]>): Promise<string[]> {
  const mine = await RawClient.session(srv.port);
  const theirs = await RawClient.session(pg.port, { user: 'postgres', database: 'postgres' });
  try {
    const a = summary(await run(mine));
    const b = summary(await run(theirs));
    assert.equal(a, b);
    return a;
  } finally {
    mine.end();
    theirs.end();
  }
}

test('Describe portal of a DECLAREd cursor answers its RowDescription; Execute fetches forward', async () => {
  const out = await onBoth(async (c) => {
    await c.query('BEGIN');
    await c.query('DECLARE c CURSOR FOR SELECT id, v, n, at FROM cp WHERE id <= 6 ORDER BY id');
    c.send(fe.describe('P', 'c'), fe.execute('c', 2), fe.execute('c', 0), fe.execute('c', 1), fe.sync());
    return c.untilReady();
  });
  assert.equal(out[0], 'T id:23:-1:0 v:25:-1:0 n:1700:-1:0 at:1184:-1:0');
  assert.equal(out.slice(1, 4), ['D ["0","zero","0.5","2024-01-01 00:00:00+00"]', 'D ["1",null,"1.25","2024-03-01 12:00:00+00"]', 's']);
  assert.equal(out.at(-1), 'Z T');
});

test('a WITH HOLD cursor after COMMIT; a BINARY one, whose portal answers text as PostgreSQL does; an unknown portal (34000)', async () => {
  await onBoth(async (c) => {
    await c.query('DECLARE h CURSOR WITH HOLD FOR SELECT id FROM cp ORDER BY id DESC');
    c.send(fe.describe('P', 'h'), fe.execute('h', 3), fe.sync());
    return c.untilReady();
  });
  await onBoth(async (c) => {
    await c.query('BEGIN');
    await c.query('DECLARE b BINARY CURSOR FOR SELECT id FROM cp ORDER BY id');
    c.send(fe.describe('P', 'b'), fe.execute('b', 2), fe.sync());
    return c.untilReady();
  });
  const out = await onBoth(async (c) => {
    c.send(fe.describe('P', 'nope'), fe.sync());
    return c.untilReady();
  });
  assert.equal(out, ['E 34000', 'Z I']);
});

const PSYCOPG = `
import json, sys, psycopg
out = {}
with psycopg.connect(host='127.0.0.1', port=int(sys.argv[1]), user=sys.argv[2], dbname=sys.argv[3]) as conn:
    with conn.cursor(name='c') as cur:
        cur.execute('SELECT id, v, n, at FROM cp WHERE id > %s ORDER BY id', (3,))
        out['description'] = [(d.name, d.type_code) for d in cur.description]
        out['first'] = [list(map(str, r)) for r in cur.fetchmany(4)]
        out['one'] = list(map(str, cur.fetchone()))
        out['rest'] = [list(map(str, r)) for r in cur.fetchall()]
    conn.commit()
    with conn.cursor(name='w', withhold=True) as cur:
        cur.itersize = 7
        cur.execute('SELECT id FROM cp ORDER BY id DESC')
        conn.commit()
        out['iter'] = [r[0] for r in cur]
print(json.dumps(out))
`;

/** Debian's python3 (python3-psycopg), ahead of whatever python3 comes first on PATH. */
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/** The script's output against a server (asynchronously: paxd answers from this process). */
async function psycopg(port: number, user: string): Promise<unknown> {
  const r = await promisify(execFile)(PYTHON, ['-c', PSYCOPG, String(port), user, user], { encoding: 'utf8', timeout: 60_000 });
  return JSON.parse(r.stdout);
}

test('psycopg 3 named cursors: the same description and rows from paxd as from PostgreSQL', async () => {
  const mine = (await psycopg(srv.port, 'paxd')) as { rest: unknown[]; iter: number[] };
  const theirs = await psycopg(pg.port, 'postgres');
  assert.equal(mine, theirs);
  assert.is(mine.rest.length, 17);
  assert.is(mine.iter.length, 26);
});

test.run();

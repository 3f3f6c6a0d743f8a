/**
 * Real Python programs against paxd and PostgreSQL 15, compared (issue #17, Done-when 5 and
 * 6): psycopg 3 in binary mode reads every special value (±infinity, NaN, the extremes,
 * numeric with big and small scales) and arrays with the same OID, the same raw bytes and the
 * same Python value (or the same Python error: psycopg has no date for `infinity`); binds
 * Python's special values as binary parameters and reads them back; and psycopg2 and psycopg 3
 * programs written the ordinary way (autocommit off, execute with parameters, executemany,
 * fetchall, a server-side cursor) get the same rows, arrays as lists. Run with Debian's
 * /usr/bin/python3 (python3-psycopg, python3-psycopg2).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';
import { SPECIAL_VALUES } from './binary-compare.js';

/** psycopg 3 in binary mode: each value's OID, raw bytes and Python value; then binary parameters. */
const PSYCOPG3 = String.raw`
import sys, json, math, psycopg
from decimal import Decimal
import datetime as dt
port, user, values = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
out = {}
with psycopg.connect(host='127.0.0.1', port=port, user=user, dbname=user) as conn:
    for lit, typ in values:
        key = lit + '::' + typ
        try:
            with conn.cursor(binary=True) as cur:
                cur.execute('SELECT ' + lit + '::' + typ + ' AS v')
                raw = cur.pgresult.get_value(0, 0)
                res = {'oid': cur.description[0].type_code, 'raw': None if raw is None else raw.hex()}
                try:
                    res['value'] = repr(cur.fetchone()[0])
                except Exception as e:
                    res['value'] = type(e).__name__ + ': ' + str(e)
        except psycopg.Error as e:
            res = {'error': e.sqlstate}
            conn.rollback()
        out[key] = res
    params = [float('nan'), float('inf'), -float('inf'), -0.0, 1.7976931348623157e308, 5e-324,
              Decimal('NaN'), Decimal('Infinity'), Decimal('-Infinity'), Decimal('1E-30'), Decimal('-12345678901234567890.0001'),
              2**63 - 1, -2**63, 2**31 - 1, -2**15, dt.date.max, dt.date.min, dt.datetime.max, dt.datetime.min,
              dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc), True, b'\x00\xff', 'a"b\\c',
              [1, None, 3], ['a b', '', None], [1.5, float('nan')]]
    for p in params:
        key = 'param ' + repr(p)
        try:
            with conn.cursor(binary=True) as cur:
                cur.execute('SELECT %b::text AS t', [p])
                out[key] = cur.fetchone()[0]
        except psycopg.Error as e:
            out[key] = 'ERROR ' + str(e.sqlstate)
            conn.rollback()
    conn.rollback()
print(json.dumps(out, indent=1, sort_keys=True))
`;

/** Ordinary programs: psycopg2 and psycopg 3 with autocommit off, parameters, executemany, fetchall, server-side cursors. */
const PROGRAMS = `
import sys, json
import psycopg, psycopg2
from decimal import Decimal
import datetime as dt
port, user = int(sys.argv[1]), sys.argv[2]
dsn = 'host=127.0.0.1 port=%d user=%s dbname=%s' % (port, user, user)
out = {}
rows = [(i, 'name %d' % i if i % 4 else None, Decimal('%d.25' % i), dt.date(2020, 1, 1 + i), i % 2 == 0) for i in range(1, 11)]
# The table is made with autocommit on (DDL in a block is the transactions work's, #17).
with psycopg.connect(dsn, autocommit=True) as c:
    c.execute('DROP TABLE IF EXISTS prog')
    c.execute('CREATE TABLE prog (id int4, name text, amount numeric(10,2), day date, even bool)')
# psycopg2, the ordinary way: autocommit off, executemany, commit.
c2 = psycopg2.connect(dsn)
cur = c2.cursor()
cur.executemany('INSERT INTO prog VALUES (%s, %s, %s, %s, %s)', rows[:5])
c2.commit()
cur.execute('SELECT id, name, amount, day, even FROM prog WHERE id > %s ORDER BY id', (1,))
out['psycopg2 fetchall'] = repr(cur.fetchall())
cur.execute('SELECT even, array_agg(id ORDER BY id), array_agg(name ORDER BY id), array_agg(amount ORDER BY id), array_agg(day ORDER BY id) FROM prog GROUP BY even ORDER BY even')
out['psycopg2 arrays'] = repr(cur.fetchall())
out['psycopg2 description'] = repr([(d.name, d.type_code) for d in cur.description])
named = c2.cursor('srv')
named.itersize = 2
named.execute('SELECT id, amount FROM prog ORDER BY id')
out['psycopg2 named'] = repr(list(named))
named.close()
c2.rollback()
c2.close()
# psycopg 3: autocommit off, binary cursors, executemany, a server-side binary cursor.
with psycopg.connect(dsn) as c3:
    with c3.cursor(binary=True) as cur:
        cur.executemany('INSERT INTO prog VALUES (%s, %s, %s, %s, %s)', rows[5:])
    c3.commit()
    with c3.cursor(binary=True) as cur:
        cur.execute('SELECT id, name, amount, day, even FROM prog WHERE amount > %s ORDER BY id', [Decimal('2')])
        out['psycopg3 fetchall'] = repr(cur.fetchall())
        cur.execute('SELECT even, array_agg(id ORDER BY id), array_agg(name ORDER BY id), array_agg(amount ORDER BY id), array_agg(day ORDER BY id), array_agg(even) FROM prog GROUP BY even ORDER BY even')
        out['psycopg3 arrays'] = repr(cur.fetchall())
        out['psycopg3 description'] = repr([(d.name, d.type_code) for d in cur.description])
        cur.execute('SELECT id FROM prog WHERE id = ANY(%s) ORDER BY id', [[2, 3, 7]])
        out['psycopg3 any'] = repr(cur.fetchall())
        cur.execute('SELECT id FROM prog WHERE id = ANY(%b) ORDER BY id', [[2, 3, 7]])
        out['psycopg3 any binary'] = repr(cur.fetchall())
    with c3.cursor() as cur:
        cur.execute('SELECT array_agg(name ORDER BY id) FROM prog')
        out['psycopg3 text arrays'] = repr(cur.fetchall())
    with c3.cursor(name='w', binary=True) as cur:
        cur.itersize = 3
        cur.execute('SELECT id, amount, day FROM prog ORDER BY id DESC')
        out['psycopg3 named'] = repr(list(cur))
    c3.rollback()
print(json.dumps(out, indent=1, sort_keys=True))
`;

/** Debian's python3 (python3-psycopg, python3-psycopg2), ahead of whatever python3 comes first on PATH. */
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

let pg: Postgres;
let db: Database;
let srv: RunningServer;

test.before(async () => {
  pg = await startPostgres();
  db = await Database.open(tempDir());
  srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
});

test.after(async () => {
  await srv.close();
  await db.close();
});

async function python(script: string, args: string[]): Promise<Record<string, unknown>> {
  const r = await promisify(execFile)(PYTHON, ['-c', script, ...args], { encoding: 'utf8', timeout: 120_000 });
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

/** The keys whose values differ, each with both sides. */
function differences(got: Record<string, unknown>, want: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(got), ...Object.keys(want)]);
  return [...keys]
    .filter((k) => JSON.stringify(got[k]) !== JSON.stringify(want[k]))
    .map((k) => `${k}\n  paxd:       ${JSON.stringify(got[k])}\n  PostgreSQL: ${JSON.stringify(want[k])}`);
}

test('psycopg 3 binary mode: special values and arrays read the same bytes and Python values, and bind back the same', async () => {
  const values = JSON.stringify(SPECIAL_VALUES);
  const got = await python(PSYCOPG3, [String(srv.port), 'paxd', values]);
  const want = await python(PSYCOPG3, [String(pg.port), 'postgres', values]);
  assert.ok(Object.keys(want).length >= SPECIAL_VALUES.length);
  assert.equal(differences(got, want), []);
});

test('psycopg2 and psycopg 3 programs written the ordinary way get the same rows, arrays as lists', async () => {
  const got = await python(PROGRAMS, [String(srv.port), 'paxd']);
  const want = await python(PROGRAMS, [String(pg.port), 'postgres']);
  assert.equal(differences(got, want), []);
  assert.ok(String(want['psycopg3 arrays']).includes('[2, 4, 6, 8, 10]'), String(want['psycopg3 arrays']));
});

test.run();

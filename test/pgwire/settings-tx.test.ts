/**
 * SET inside transactions as PostgreSQL 15 has it (https://www.postgresql.org/docs/15/sql-set.html;
 * src/pgwire/session/setting-stack.ts): SET LOCAL lasts until the end of the transaction, a
 * SET or RESET in a block that is rolled back (or in a savepoint rolled back to) is undone, a
 * SET then SET LOCAL comes back to the SET's value at COMMIT, RELEASE merges into the level
 * below, a multi-statement Query is one transaction for its SETs, and SET LOCAL outside a
 * block warns (25P01) and changes nothing. Differential: every scenario runs on paxd and on a
 * real PostgreSQL 15 through node-postgres, and each step's answer (tag or SQLSTATE), notices,
 * SHOW values after it and ParameterStatus messages must be the same.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';

let pgs: Postgres;
let db: Database;
let srv: RunningServer;

test.before(async () => {
  pgs = await startPostgres();
  db = await Database.open(tempDir());
  srv = await startServer({ db, host: '127.0.0.1', port: 0, auth: { method: 'trust' } });
});

test.after(async () => {
  await srv.close();
  await db.close();
});

/** The parameters SHOWn after every step: durations, reported ones (TimeZone, DateStyle, application_name) and one that is not. */
const SHOWN = ['statement_timeout', 'TimeZone', 'DateStyle', 'search_path', 'application_name'];

/** Each scenario starts from the same session state on both sides. */
const START = "SET statement_timeout = '3s'; SET TimeZone = 'UTC'; SET search_path = public; SET application_name = 'start'";

const SCENARIOS: Record<string, readonly string[]> = {
  'SET LOCAL lasts until COMMIT': [
    'BEGIN',
    "SET LOCAL statement_timeout = '5s'",
    "SET LOCAL TimeZone = 'Europe/Berlin'",
    "SET LOCAL DateStyle = 'ISO'",
    'COMMIT',
  ],
  'SET LOCAL lasts until ROLLBACK': ['BEGIN', "SET LOCAL application_name = 'local'", 'SET LOCAL search_path = a, b', 'ROLLBACK'],
  'a SET in a block that commits stays': ['BEGIN', "SET statement_timeout = '5s'", "SET TimeZone = 'Asia/Kolkata'", "SET application_name = 'kept'", 'COMMIT'],
  'a SET in a block that is rolled back is undone': [
    'BEGIN',
    "SET statement_timeout = '5s'",
    "SET TimeZone = 'America/Los_Angeles'",
    'SET search_path = x',
    "SET application_name = 'gone'",
    'ROLLBACK',
  ],
  'SET then SET LOCAL: COMMIT comes back to the SET': [
    'BEGIN',
    "SET TimeZone = 'Asia/Kolkata'",
    "SET LOCAL TimeZone = 'America/Los_Angeles'",
    "SET statement_timeout = '4s'",
    "SET LOCAL statement_timeout = '9s'",
    'COMMIT',
  ],
  'SET LOCAL then SET: the SET wins at COMMIT': ['BEGIN', "SET LOCAL statement_timeout = '1s'", "SET statement_timeout = '2s'", 'COMMIT'],
  'RESET and SET TO DEFAULT in a block: undone by ROLLBACK, kept by COMMIT': [
    'BEGIN',
    'RESET application_name',
    'SET statement_timeout TO DEFAULT',
    'RESET TimeZone',
    'ROLLBACK',
    'BEGIN',
    'RESET application_name',
    'SET LOCAL statement_timeout TO DEFAULT',
    'COMMIT',
  ],
  'ROLLBACK TO a savepoint undoes what was SET after it; RELEASE keeps it': [
    'BEGIN',
    "SET statement_timeout = '1s'",
    'SAVEPOINT s',
    "SET statement_timeout = '2s'",
    "SET LOCAL application_name = 'inner'",
    "SET TimeZone = 'Europe/Berlin'",
    'ROLLBACK TO SAVEPOINT s',
    'SET search_path = in_s',
    'RELEASE SAVEPOINT s',
    'COMMIT',
  ],
  'nested savepoints: a LOCAL released into a SET, a SET released into a LOCAL': [
    'BEGIN',
    "SET TimeZone = 'Asia/Kolkata'",
    'SAVEPOINT a',
    "SET LOCAL TimeZone = 'Europe/Berlin'",
    "SET LOCAL application_name = 'a'",
    'SAVEPOINT b',
    "SET application_name = 'b'",
    "SET statement_timeout = '8s'",
    'RELEASE SAVEPOINT b',
    'RELEASE SAVEPOINT a',
    'COMMIT',
  ],
  'releasing an outer savepoint releases the inner ones; ROLLBACK undoes all': [
    'BEGIN',
    'SAVEPOINT a',
    "SET statement_timeout = '6s'",
    'SAVEPOINT b',
    "SET LOCAL TimeZone = 'Europe/Berlin'",
    'RELEASE SAVEPOINT a',
    'ROLLBACK',
  ],
  'a failed block: its SETs are undone by ROLLBACK, and by the COMMIT that rolls back': [
    'BEGIN',
    "SET statement_timeout = '5s'",
    'SELECT 1/0',
    "SET application_name = 'refused'",
    'ROLLBACK',
    'BEGIN',
    "SET TimeZone = 'Europe/Berlin'",
    'SELECT 1/0',
    'COMMIT',
  ],
  'SET LOCAL outside a block warns and changes nothing': [
    "SET LOCAL statement_timeout = '5s'",
    "SET LOCAL application_name = 'never'",
    'SET LOCAL TimeZone TO DEFAULT',
  ],
  'a multi-statement Query is one transaction for its SETs': [
    "SET LOCAL application_name = 'implicit'; SHOW application_name",
    "SET statement_timeout = '7s'; SELECT 1/0",
    "SET statement_timeout = '8s'; SET LOCAL TimeZone = 'Asia/Kolkata'; SHOW TimeZone",
  ],
};

interface Step {
  readonly sql: string;
  readonly answer: unknown;
  readonly notices: readonly string[];
  readonly shown: Readonly<Record<string, string>>;
  readonly status: readonly string[];
}

async function runScenario(port: number, user: string, steps: readonly string[]): Promise<Step[]> {
  const c = new pg.Client({ host: '127.0.0.1', port, user, database: user });
  await c.connect();
  const notices: string[] = [];
  const status: string[] = [];
  c.on('notice', (n) => notices.push(`${n.severity} ${n.code} ${n.message}`));
  (c as unknown as { connection: { on(e: string, f: (m: { parameterName: string; parameterValue: string }) => void): void } }).connection.on(
    'parameterStatus',
    (m) => {
      if (SHOWN.includes(m.parameterName)) status.push(`${m.parameterName}=${m.parameterValue}`);
    },
  );
  try {
    await c.query(START);
    const out: Step[] = [];
    for (const sql of steps) {
      notices.length = 0;
      status.length = 0;
      let answer: unknown;
      try {
        const r = (await c.query(sql)) as pg.QueryResult | pg.QueryResult[];
        answer = (Array.isArray(r) ? r : [r]).map((x) => (x.command === 'SHOW' ? x.rows : x.command));
      } catch (e) {
        answer = (e as { code?: string }).code ?? String(e);
      }
      // node-postgres rejects at the ErrorResponse, before the ParameterStatus and ReadyForQuery
      // that follow it: one more round trip (which changes no parameter) lets them arrive.
      const inFailed = await c.query('SELECT 1').then(
        () => false,
        () => true,
      );
      // What the statement did, before the SHOWs below add their own round trips.
      const seen = { notices: [...notices], status: [...status] };
      const shown: Record<string, string> = {};
      if (!inFailed) for (const p of SHOWN) shown[p] = Object.values((await c.query(`SHOW ${p}`)).rows[0] as object)[0] as string;
      out.push({ sql, answer, ...seen, shown });
    }
    return out;
  } finally {
    await c.end();
  }
}

for (const [name, steps] of Object.entries(SCENARIOS)) {
  test(`SET in transactions, as PostgreSQL: ${name}`, async () => {
    const mine = await runScenario(srv.port, 'paxd', steps);
    const theirs = await runScenario(pgs.port, 'postgres', steps);
    for (let i = 0; i < steps.length; i++) assert.equal(mine[i], theirs[i], `step ${i + 1}: ${steps[i]}`);
  });
}

test('SET LOCAL statement_timeout applies to the statements of its block, and only there', async () => {
  const c = new pg.Client({ host: '127.0.0.1', port: srv.port, user: 'paxd', database: 'paxd' });
  await c.connect();
  try {
    await c.query('CREATE TABLE st_a (id int4)');
    const rows = Array.from({ length: 2000 }, (_v, i) => `(${i})`).join(', ');
    await c.query(`INSERT INTO st_a VALUES ${rows}`);
    const slow = 'SELECT count(*) FROM st_a x, st_a y, st_a z';
    await c.query('BEGIN');
    await c.query("SET LOCAL statement_timeout = '50ms'");
    const started = performance.now();
    const code = await c.query(slow).then(
      () => 'no error',
      (e: { code?: string }) => e.code,
    );
    assert.is(code, '57014');
    assert.ok(performance.now() - started < 2000, `${(performance.now() - started).toFixed(0)} ms`);
    await c.query('ROLLBACK');
    assert.is((await c.query('SHOW statement_timeout')).rows[0].statement_timeout, '0');
    // After the block the same statement runs on (stopped here by a session SET, not the LOCAL one).
    await c.query("SET statement_timeout = '300ms'");
    const after = performance.now();
    assert.is(
      await c.query(slow).then(
        () => 'no error',
        (e: { code?: string }) => e.code,
      ),
      '57014',
    );
    assert.ok(performance.now() - after >= 290, 'the 50 ms of the LOCAL setting is gone');
  } finally {
    await c.end();
  }
});

test.run();

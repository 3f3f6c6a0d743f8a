/**
 * The settings drivers and tools send (psql, pgjdbc, psycopg, SQLAlchemy, DBeaver, Metabase,
 * pg_dump), differential against a real PostgreSQL 15: each SET answers the same (the tag,
 * or the SQLSTATE), SHOW then prints the same value under the same column name, and RESET
 * brings back the same default — except where paxd says otherwise on purpose, listed in
 * PAXD_DEFAULTS with the reason. Values paxd would not honour are 0A000 (REFUSED).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';
import { dataRowOf, RawClient, type Reply } from './client.js';

/** Parameter → SET values (as SQL after `=`), good and bad. */
const CASES: readonly (readonly [string, readonly string[]])[] = [
  ['client_min_messages', ['warning', 'ERROR', 'debug', 'info', 'log', 'notice', 'bogus']],
  ['application_name', ["'psql'", "'DBeaver 23.1.0 - Main <paxd>'", "'PostgreSQL JDBC Driver'", "'é'", "''"]],
  ['extra_float_digits', ['3', '2', '1', '4', 'x']],
  ['search_path', ['public', '"$user", public', "'My Schema', public", "''", 'pg_catalog, public']],
  ['standard_conforming_strings', ['on', 'true']],
  ['bytea_output', ['hex', "'HEX'", 'bogus']],
  ['IntervalStyle', ['postgres']],
  ['lc_messages', ["'C'", "'POSIX'", "'C.utf8'"]],
  ['DateStyle', ['ISO', "'ISO, MDY'"]],
  ['client_encoding', ['UTF8', "'utf-8'"]],
  ['enable_seqscan', ['off', 'on', "'false'", 'yes', '0', 'bogus']],
  ['enable_hashjoin', ['off']],
  ['enable_mergejoin', ['off']],
  ['enable_nestloop', ['off', 't']],
  ['enable_indexscan', ['off']],
  ['enable_bitmapscan', ['off']],
  ['enable_sort', ['off']],
  ['enable_hashagg', ['off']],
  ['enable_partitionwise_join', ['on']],
  ['enable_partitionwise_aggregate', ['on']],
  ['enable_memoize', ['off']],
  ['jit', ['off', 'on']],
  ['geqo', ['off']],
  ['row_security', ['off']],
  ['check_function_bodies', ['false']],
  ['synchronize_seqscans', ['off']],
  ['escape_string_warning', ['off']],
  ['array_nulls', ['on']],
  ['quote_all_identifiers', ['off']],
  ['max_parallel_workers_per_gather', ['0', '4', '2.5', '3.5', '-1', 'x', '1025']],
  ['synchronous_commit', ['off', 'local', 'true', 'remote_apply', '0', 'bogus']],
  ['default_transaction_isolation', ["'read committed'", "'serializable'", "'REPEATABLE READ'", "'read uncommitted'", "'bogus'"]],
  ['transaction_isolation', ["'read committed'", "'repeatable read'", "'bogus'"]],
  ['xmloption', ['document', 'content']],
  ['default_tablespace', ["''"]],
  ['default_table_access_method', ['heap', 'bogus']],
  ['statement_timeout', ['0', "'5s'", '1000', "'1min'"]],
  ['lock_timeout', ['0', "'1min'"]],
  ['idle_in_transaction_session_timeout', ['0', "'10s'"]],
  ['no_such_parameter', ['1']],
];

/** What paxd refuses that PostgreSQL accepts: 0A000, never accepted and ignored. */
const REFUSED: readonly (readonly [string, string])[] = [
  ['extra_float_digits', '0'],
  ['extra_float_digits', '-15'],
  ['bytea_output', 'escape'],
  ['array_nulls', 'off'],
  ['quote_all_identifiers', 'on'],
  ['standard_conforming_strings', 'off'],
  ['IntervalStyle', 'iso_8601'],
];

/** Defaults paxd reports on purpose (RESET shows them), with why. */
const PAXD_DEFAULTS: Readonly<Record<string, string>> = {
  // Every transaction is snapshot isolation, REPEATABLE READ's behaviour (docs/WIRE.md).
  default_transaction_isolation: 'repeatable read',
  transaction_isolation: 'repeatable read',
  // The test cluster runs with synchronous_commit=off (test/support/pg.ts); paxd's default is on.
  synchronous_commit: 'on',
};

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

/** A reply list as text: errors by SQLSTATE, notices by SQLSTATE, column names, rows, tags. */
function outcome(rs: Reply[]): string {
  return rs
    .flatMap((r) => {
      if (r.code === 'E' || r.code === 'N') return [`${r.code} ${/C([0-9A-Z]{5})\0/.exec(r.body.toString('latin1'))?.[1] ?? '?'}`];
      if (r.code === 'T') return [`T ${r.body.toString('utf8', 2, r.body.indexOf(0, 2))}`];
      if (r.code === 'D') return [`D ${JSON.stringify(dataRowOf(r.body))}`];
      if (r.code === 'C') return [`C ${r.body.toString('utf8', 0, r.body.byteLength - 1)}`];
      return [];
    })
    .join(' ');
}

async function session(port: number): Promise<RawClient> {
  const user = port === pg.port ? 'postgres' : 'paxd';
  return RawClient.session(port, { user, database: user });
}

test('SET, SHOW and RESET of the settings clients send answer as PostgreSQL 15', async () => {
  const paxd = await session(srv.port);
  const postgres = await session(pg.port);
  const problems: string[] = [];
  const both = async (sql: string) => [outcome(await paxd.query(sql)), outcome(await postgres.query(sql))] as const;
  try {
    for (const [name, values] of CASES) {
      // Outside a block SHOW transaction_isolation is the default's: make both defaults agree.
      if (name === 'transaction_isolation') await both(`SET default_transaction_isolation = 'read committed'`);
      for (const value of values) {
        for (const sql of [`SET ${name} = ${value}`, `SHOW ${name}`]) {
          const [got, want] = await both(sql);
          if (got !== want) problems.push(`${sql}: paxd ${got}, PostgreSQL ${want}`);
        }
      }
      if (name === 'transaction_isolation') await both('RESET default_transaction_isolation');
      const [, wantReset] = await both(`RESET ${name}`);
      const [got, want] = await both(`SHOW ${name}`);
      const expected = PAXD_DEFAULTS[name] === undefined ? want : want.replace(/D \[.*\]/, `D ${JSON.stringify([PAXD_DEFAULTS[name]])}`);
      if (got !== expected) problems.push(`RESET ${name} (${wantReset}); SHOW: paxd ${got}, expected ${expected}`);
    }
  } finally {
    paxd.end();
    postgres.end();
  }
  assert.equal(problems, []);
});

test('values paxd would not honour are 0A000 where PostgreSQL accepts them', async () => {
  const paxd = await session(srv.port);
  const postgres = await session(pg.port);
  try {
    for (const [name, value] of REFUSED) {
      const sql = `SET ${name} = ${value}`;
      const want = outcome(await postgres.query(sql));
      assert.is(want, 'C SET', `PostgreSQL: ${sql}`);
      await postgres.query(`RESET ${name}`);
      assert.is(outcome(await paxd.query(sql)), 'E 0A000', `paxd: ${sql}`);
    }
  } finally {
    paxd.end();
    postgres.end();
  }
});

test('SET SESSION CHARACTERISTICS (pgjdbc setTransactionIsolation) sets the default that SHOW TRANSACTION ISOLATION LEVEL reads', async () => {
  const shows: string[][] = [];
  for (const port of [srv.port, pg.port]) {
    const c = await session(port);
    const out: string[] = [];
    for (const sql of [
      'SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED',
      'SHOW TRANSACTION ISOLATION LEVEL',
      'SHOW default_transaction_isolation',
      'SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE',
      'SHOW TRANSACTION ISOLATION LEVEL',
    ])
      out.push(outcome(await c.query(sql)));
    shows.push(out);
    c.end();
  }
  assert.equal(shows[0], shows[1]);
});

test('client_min_messages = error drops the WARNING of a COMMIT outside a block, as in PostgreSQL', async () => {
  for (const port of [srv.port, pg.port]) {
    const c = await session(port);
    assert.is(outcome(await c.query('COMMIT')), 'N 25P01 C COMMIT', `port ${port}`);
    await c.query('SET client_min_messages = error');
    assert.is(outcome(await c.query('COMMIT')), 'C COMMIT', `port ${port}`);
    await c.query('RESET client_min_messages');
    assert.is(outcome(await c.query('BEGIN')), 'C BEGIN');
    assert.is(outcome(await c.query('BEGIN')), 'N 25001 C BEGIN');
    c.end();
  }
});

test('settings in the startup packet, as pgjdbc sends them, show as PostgreSQL shows them', async () => {
  const params = { extra_float_digits: '2', application_name: 'PostgreSQL JDBC Driver', DateStyle: 'ISO', client_encoding: 'UTF8', search_path: 'public' };
  const shows: string[][] = [];
  for (const [port, user] of [
    [srv.port, 'paxd'],
    [pg.port, 'postgres'],
  ] as const) {
    const c = await RawClient.session(port, { user, database: user, ...params });
    const out: string[] = [];
    for (const name of Object.keys(params)) out.push(outcome(await c.query(`SHOW ${name}`)));
    shows.push(out);
    c.end();
  }
  assert.equal(shows[0], shows[1]);
});

test.run();

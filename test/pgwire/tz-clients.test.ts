/**
 * Clients outside UTC (issue #17, "Time zones"): pgjdbc started with -Duser.timezone (it sends
 * the JVM's zone in the startup packet) and psql with PGTZ connect to paxd serve and print
 * timestamptz values byte-identical to PostgreSQL 15's over the same rows; SET/SHOW TimeZone
 * and ParameterStatus spell zones as PostgreSQL does. The Java program
 * (fixtures/tz/TzProbe.java) is compiled with javac against Debian's libpostgresql-jdbc-java.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/table/database.js';
import { query } from '../../src/engine/index.js';
import { startServer } from '../../src/pgwire/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';

const JDBC_JAR = '/usr/share/java/postgresql.jar';

const DDL = 'CREATE TABLE tt (id int4, v timestamptz)';
const ROWS = [
  '2024-03-31 00:59:59+00', '2024-03-31 01:00:00+00', '2024-10-27 00:30:00+00', '2024-10-27 01:30:00+00',
  '2024-03-10 09:30:00+00', '2024-03-10 10:30:00+00', '2024-11-03 05:30:00+00', '2024-11-03 06:30:00+00',
  '2024-04-06 15:30:00+00', '2024-10-05 16:00:00+00', '1800-06-01 12:00:00+00', '1941-07-01 00:00:00+00',
  '2000-01-01 00:00:00.123456+00', '2038-01-19 03:14:08+00', '0044-03-15 12:00:00+00 BC', 'infinity', '-infinity', null,
];
const INSERT = `INSERT INTO tt VALUES ${ROWS.map((v, i) => `(${i}, ${v === null ? 'NULL' : `'${v}'`})`).join(', ')}`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string): Promise<Run> {
  return new Promise((resolve) =>
    execFile(cmd, args, { timeout: 60_000, env: { ...process.env, PGSSLMODE: 'disable', PGCONNECT_TIMEOUT: '5', ...env }, ...(cwd !== undefined ? { cwd } : {}) }, (err, stdout, stderr) =>
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr }),
    ),
  );
}

interface Env {
  pg: Postgres;
  paxdPort: number;
  close: () => Promise<void>;
}

let env: Promise<Env> | null = null;

function setup(): Promise<Env> {
  env ??= (async () => {
    const db = await Database.open(tempDir());
    await query(db, DDL);
    await query(db, INSERT);
    const srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
    const pg = await startPostgres();
    await pg.query(`DROP TABLE IF EXISTS tt; ${DDL}; ${INSERT}`);
    return {
      pg,
      paxdPort: srv.port,
      close: async () => {
        await srv.close();
        await db.close();
      },
    };
  })();
  return env;
}

const PSQL_SQL = [
  'SHOW TimeZone',
  "SELECT id, v, v::date, v::timestamp, extract(timezone FROM v), date_trunc('hour', v), date_trunc('month', v) FROM tt ORDER BY id",
  "SELECT timestamptz '2024-03-31 02:30', timestamptz '2024-10-27 02:30', timestamptz '2024-11-03 01:30', timestamp '2024-07-01 12:00' AT TIME ZONE 'Asia/Tokyo'",
].join(';\n') + ';\n';

for (const tz of ['America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Europe/Berlin']) {
  test(`psql with PGTZ=${tz} prints what PostgreSQL prints`, async () => {
    const { pg, paxdPort } = await setup();
    const pgOut = await runScript('127.0.0.1', pg.port, 'postgres', 'postgres', tz);
    const mine = await runScript('127.0.0.1', paxdPort, 'paxd', 'paxd', tz);
    assert.is(mine.stderr, pgOut.stderr);
    assert.is(mine.code, 0, mine.stderr);
    assert.ok(mine.stdout.includes(tz), mine.stdout);
    assert.is(mine.stdout, pgOut.stdout);
  });
}

/** psql -f of PSQL_SQL (written to a temporary file), with PGTZ set. */
async function runScript(host: string, port: number, user: string, db: string, tz: string): Promise<Run> {
  const dir = tempDir();
  writeFileSync(join(dir, 'q.sql'), PSQL_SQL);
  return run('psql', ['-X', '-v', 'ON_ERROR_STOP=1', '-h', host, '-p', String(port), '-U', user, '-d', db, '-f', join(dir, 'q.sql')], { PGTZ: tz });
}

test('pgjdbc with -Duser.timezone=Europe/Berlin connects and prints timestamptz values as against PostgreSQL', async () => {
  assert.ok(existsSync(JDBC_JAR), `${JDBC_JAR} is missing: install Debian's libpostgresql-jdbc-java`);
  const { pg, paxdPort } = await setup();
  const dir = tempDir();
  copyFileSync(join(import.meta.dirname, 'fixtures/tz/TzProbe.java'), join(dir, 'TzProbe.java'));
  const javac = await run('javac', ['-cp', JDBC_JAR, '-d', dir, join(dir, 'TzProbe.java')]);
  assert.is(javac.code, 0, javac.stderr);
  const java = (port: number, user: string, db: string) =>
    run('java', ['-Duser.timezone=Europe/Berlin', '-cp', `${dir}:${JDBC_JAR}`, 'TzProbe', `jdbc:postgresql://127.0.0.1:${port}/${db}?sslmode=disable`, user]);
  const theirs = await java(pg.port, 'postgres', 'postgres');
  assert.is(theirs.code, 0, theirs.stderr);
  const mine = await java(paxdPort, 'paxd', 'paxd');
  assert.is(mine.code, 0, mine.stderr);
  assert.ok(mine.stdout.startsWith('TimeZone Europe/Berlin\n'), mine.stdout.slice(0, 200));
  assert.is(mine.stdout, theirs.stdout);
});

test('SET/SHOW TimeZone spell zones as PostgreSQL does; unknown ones are 22023', async () => {
  const { pg, paxdPort } = await setup();
  const values = ['europe/berlin', 'EUROPE/BERLIN', 'UTC', 'utc', 'GMT', 'gmt', 'Etc/GMT+3', '+02', '-7', '5.5', "'-05:30'", "'UTC+3'", "'utc-5:45'", "'<+03>-3'", "'EST5EDT'", "'CET'", "'Asia/Calcutta'", "'Mars/Base'", "'PST'", "'FOO+5BAR'", "'<-03>3<-02>,M3.5.0/-2,M10.5.0/-1'", '100', '200', "'us/pacific'", 'DEFAULT', 'LOCAL'];
  const script = [...values.map((v) => `SET TIME ZONE ${/^[a-z/+.-]/i.test(v) && !/^(DEFAULT|LOCAL)$/.test(v) && !/^[+-]?\d/.test(v) ? `'${v}'` : v};\nSHOW TimeZone;\nSELECT timestamptz '2024-07-01 12:00:00+00';`),
    ...["INTERVAL '+02:00' HOUR TO MINUTE", "INTERVAL '-05:30'", "INTERVAL '1 day'", "INTERVAL '1 month'", "INTERVAL '200 hours'"].map((v) => `SET TIME ZONE ${v};\nSHOW TimeZone;\nSELECT timestamptz '2024-07-01 12:00:00+00';`)].join('\n') + '\n';
  const dir = tempDir();
  writeFileSync(join(dir, 's.sql'), script);
  const runIt = (port: number, user: string, db: string) => run('psql', ['-X', '-At', '-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', db, '-f', join(dir, 's.sql')], { PGTZ: 'Asia/Kolkata' });
  const theirs = await runIt(pg.port, 'postgres', 'postgres');
  const mine = await runIt(paxdPort, 'paxd', 'paxd');
  const norm = (s: string) => s.replace(/psql:[^:]+:(\d+): /g, 'psql:$1: ');
  assert.is(norm(mine.stderr), norm(theirs.stderr));
  assert.is(mine.stdout, theirs.stdout);
});

test('COPY FROM STDIN in a session outside UTC reads local times there, as PostgreSQL (text and csv)', async () => {
  const { pg, paxdPort } = await setup();
  const lines = ['2024-03-10 02:30:00', '2024-11-03 01:30:00', '2024-07-01 12:00:00', '2024-07-01 12:00:00+00', '2024-07-01 12:00:00.5 Europe/Berlin', '1880-01-01 00:00:00'];
  const script = [
    'CREATE TABLE cz (id int4, v timestamptz);',
    'COPY cz FROM STDIN;',
    ...lines.map((l, i) => `${i}\t${l}`),
    '\\.',
    'COPY cz FROM STDIN (FORMAT csv);',
    ...lines.map((l, i) => `${i + 10},"${l}"`),
    '\\.',
    "SELECT id, v, v AT TIME ZONE 'UTC' FROM cz ORDER BY id;",
    'DROP TABLE cz;',
  ].join('\n') + '\n';
  const dir = tempDir();
  writeFileSync(join(dir, 'c.sql'), script);
  const runIt = (port: number, user: string, db: string) => run('psql', ['-X', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', db, '-f', join(dir, 'c.sql')], { PGTZ: 'America/New_York' });
  const theirs = await runIt(pg.port, 'postgres', 'postgres');
  assert.is(theirs.code, 0, theirs.stderr);
  const mine = await runIt(paxdPort, 'paxd', 'paxd');
  assert.is(mine.stderr, theirs.stderr);
  assert.is(mine.stdout, theirs.stdout);
});

test.after(async () => {
  if (env !== null) await (await env).close();
});

test.run();

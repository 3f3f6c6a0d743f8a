/**
 * COPY of a view through the wire, beside PostgreSQL 15 (psql on both): `COPY v TO STDOUT`
 * is 42809 "cannot copy from view" with PostgreSQL's hint, as COPY FROM into a view is
 * refused; `COPY (SELECT … FROM v) TO STDOUT` and COPY of the table under it answer the same
 * rows on both.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { Database } from '../../src/table/database.js';
import { startServer } from '../../src/pgwire/index.js';
import { startPostgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** psql -c `sql`; stderr without the verbose LOCATION lines (PostgreSQL's source file and line). */
function psql(args: string[], sql: string): Promise<Run> {
  return new Promise((resolve) =>
    execFile('psql', ['-X', '-v', 'ON_ERROR_STOP=1', '-v', 'VERBOSITY=verbose', ...args, '-c', sql], { timeout: 20_000, env: { ...process.env, PGSSLMODE: 'disable', PGCONNECT_TIMEOUT: '5' } }, (err, stdout, stderr) =>
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr: stderr.replace(/^LOCATION: .*\n/gm, '') }),
    ),
  );
}

test('COPY view TO is 42809 with the hint; COPY (SELECT … FROM view) TO and COPY table TO answer as PostgreSQL', async () => {
  const pg = await startPostgres();
  const db = await Database.open(tempDir());
  const srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
  try {
    const sides = { paxd: ['-h', '127.0.0.1', '-p', String(srv.port), '-U', 'paxd', '-d', 'paxd'], pg: ['-h', pg.socketDir, '-p', String(pg.port), '-U', 'postgres', '-d', 'postgres'] };
    const setup = "CREATE TABLE cv_t (id int4, s text); INSERT INTO cv_t VALUES (2, 'b'), (1, 'a'); CREATE VIEW cv_v AS SELECT id, upper(s) AS u FROM cv_t WHERE id > 1;";
    for (const [side, args] of Object.entries(sides)) for (const stmt of setup.split(';').filter((x) => x.trim() !== '')) assert.is((await psql(args, stmt)).code, 0, `${side}: ${stmt}`);
    const out: Record<string, Run[]> = {};
    for (const [side, args] of Object.entries(sides))
      out[side] = [await psql(args, 'COPY cv_v TO STDOUT'), await psql(args, 'COPY (SELECT * FROM cv_v ORDER BY id) TO STDOUT'), await psql(args, 'COPY cv_t TO STDOUT'), await psql(args, 'COPY cv_nosuch TO STDOUT')];
    const [pv, ps, pt, pn] = out.pg!;
    const [xv, xs, xt, xn] = out.paxd!;
    assert.is(pv!.code, 1);
    assert.match(pv!.stderr, /42809: cannot copy from view "cv_v"/);
    assert.is(xv!.stderr, pv!.stderr, 'the same error, SQLSTATE and hint');
    assert.is(xv!.code, pv!.code);
    assert.is(xs!.stdout, ps!.stdout);
    assert.is(xs!.stdout, '2\tB\n');
    assert.is(xt!.stdout.split('\n').sort().join('\n'), pt!.stdout.split('\n').sort().join('\n'));
    assert.is(xn!.stderr, pn!.stderr);
  } finally {
    await srv.close();
    await db.close();
    await pg.stop();
  }
});

test.run();

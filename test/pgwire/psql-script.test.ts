/**
 * psql runs a script against paxd serve (docs/WIRE.md): `psql -X -v ON_ERROR_STOP=1
 * -f fixtures/script.sql` with DDL, COPY FROM STDIN (text, csv, \copy), queries, a cursor, a
 * transaction with a savepoint and an error inside it, COPY TO STDOUT, SET/SHOW, and a COPY
 * that fails and stops the script. Its stdout and stderr must equal fixtures/script.out and
 * fixtures/script.err, which are what PostgreSQL 15 prints for the same script.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/table/database.js';
import { startServer } from '../../src/pgwire/index.js';
import { tempDir } from '../support/tmp.js';

const fixtures = join(import.meta.dirname, 'fixtures');

test('psql -X -v ON_ERROR_STOP=1 -f script.sql gives the expected output and stops at the failing COPY', async () => {
  const db = await Database.open(tempDir());
  const srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
  try {
    const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        'psql',
        ['-X', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(srv.port), '-U', 'paxd', '-d', 'paxd', '-f', 'script.sql'],
        { cwd: fixtures, timeout: 20_000, env: { ...process.env, PGSSLMODE: 'disable', PGCONNECT_TIMEOUT: '5' } },
        (err, stdout, stderr) => resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr }),
      ),
    );
    assert.is(r.stderr, readFileSync(join(fixtures, 'script.err'), 'utf8'));
    assert.is(r.stdout, readFileSync(join(fixtures, 'script.out'), 'utf8'));
    assert.is(r.code, 3); // ON_ERROR_STOP: an error in a script
  } finally {
    await srv.close();
    await db.close();
  }
});

test.run();

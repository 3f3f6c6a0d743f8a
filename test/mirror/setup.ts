/**
 * The shared world of the mirror tests: a throwaway PostgreSQL 15 (test/support/pg.ts) with
 * a database `paxd_mirror`, and an in-process paxd with the tables of fixtures/fdw/tables.sql
 * and the rows of ./data.ts, served over the wire (trust, loopback). `world()` starts it once
 * per test process; each test file then mirrors into its own schema and server names, and
 * closes it with `closeWorld()`.
 *
 * In PostgreSQL: schema h holds heap copies of paxd's tables with the same rows, schema l
 * heap tables that only PostgreSQL has (fixtures/fdw/local.sql).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Database } from '../../src/table/database.js';
import { query } from '../../src/engine/index.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';
import { dataStatements } from './data.js';

export const FIXTURES = join(import.meta.dirname, '../../fixtures/fdw');
export const DATABASE = 'paxd_mirror';

export interface World {
  readonly pg: Postgres;
  /** libpq URL of the test database as the superuser. */
  readonly url: string;
  readonly db: Database;
  readonly srv: RunningServer;
  /** A new connection to the test database (`user` default postgres); values come back as text. */
  connect(user?: string): Promise<pg.Client>;
}

let shared: Promise<World> | null = null;

export function world(): Promise<World> {
  shared ??= start();
  return shared;
}

/** Closes paxd's server and store (each test file calls it in its `after`; the next file starts afresh). */
export async function closeWorld(): Promise<void> {
  if (shared === null) return;
  const w = await shared.catch(() => null);
  shared = null;
  if (w === null) return;
  await w.srv.close();
  await w.db.close();
}

/** Statements of a SQL file, split at `;` line ends, comments dropped. */
export function sqlFile(name: string): string[] {
  return readFileSync(join(FIXTURES, name), 'utf8')
    .split('\n')
    .filter((l) => !l.trimStart().startsWith('--'))
    .join('\n')
    .split(/;\s*\n/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Every value as PostgreSQL's text output (no parsing into JS numbers or dates). */
const TEXT_TYPES = { getTypeParser: () => (v: string) => v } as unknown as pg.CustomTypesConfig;

async function start(): Promise<World> {
  const postgres = await startPostgres();
  await postgres.query(`DROP DATABASE IF EXISTS ${DATABASE}; CREATE DATABASE ${DATABASE}`);
  const url = `postgres://postgres@${postgres.host}:${postgres.port}/${DATABASE}`;
  const connect = async (user = 'postgres') => {
    const c = new pg.Client({ host: postgres.host, port: postgres.port, user, database: DATABASE, types: TEXT_TYPES });
    c.on('error', () => undefined);
    await c.connect();
    return c;
  };
  const db = await Database.open(tempDir('paxd-mirror-'));
  const ddl = sqlFile('tables.sql');
  const data = dataStatements();
  for (const s of [...ddl, ...data]) await query(db, s);
  const srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
  const c = await connect();
  try {
    await c.query('CREATE SCHEMA h; CREATE SCHEMA l');
    await c.query('SET search_path = h');
    for (const s of [...ddl, ...data]) await c.query(s);
    await c.query('ANALYZE');
    await c.query('SET search_path = l');
    for (const s of sqlFile('local.sql')) await c.query(s);
  } finally {
    await c.end();
  }
  return { pg: postgres, url, db, srv, connect };
}

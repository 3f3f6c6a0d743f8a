/**
 * Runs the mirror against a real PostgreSQL: reads what exists, plans (./plan.ts), and
 * applies the plan in one transaction under an advisory lock, so a daemon and a
 * `paxd mirror` run at the same time do not interleave, and a failure leaves PostgreSQL as
 * it was. `dryRun` plans without changing anything.
 *
 *   const r = await runMirror(db, mirrorOptions({ pg: 'postgres://postgres@localhost/app' }));
 *   r.created   // ['events', 'trades']
 *   r.steps     // what ran, passwords masked in `display`
 */
import type { Database } from '../table/index.js';
import { PaxdError, SQLSTATE, type ForeignTableSpec } from '../types/index.js';
import { desiredTables } from './desired.js';
import { NOTHING, readExisting, type SqlClient } from './existing.js';
import { maskUrl, type MirrorOptions } from './options.js';
import { planMirror, type Step } from './plan.js';

export interface MirrorResult {
  readonly steps: readonly Step[];
  readonly created: readonly string[];
  readonly altered: readonly string[];
  readonly dropped: readonly string[];
  readonly unchanged: readonly string[];
  /** True when nothing was changed because of dryRun. */
  readonly dryRun: boolean;
}

export interface RunOptions {
  /** Plan and return the statements without running them. */
  readonly dryRun?: boolean;
  /** The desired tables, when already computed (the daemon's poll). */
  readonly tables?: readonly ForeignTableSpec[];
}

/** Plans without a PostgreSQL: the statements that create everything from nothing. */
export async function planFromNothing(db: Database, o: MirrorOptions): Promise<MirrorResult> {
  const plan = planMirror(await desiredTables(db), NOTHING, o);
  return result(plan.steps, plan.unchanged, true);
}

export async function runMirror(db: Database, o: MirrorOptions, run: RunOptions = {}): Promise<MirrorResult> {
  const want = run.tables ?? (await desiredTables(db));
  const client = new (await pgModule()).Client({ connectionString: o.pg, application_name: 'paxd mirror', connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
  } catch (e) {
    throw connectError(o, e);
  }
  // A server-side error on an idle connection (a restart) must not crash the process.
  client.on('error', () => undefined);
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext($1))`, [`paxd mirror ${o.schema} ${o.server}`]);
    const plan = planMirror(want, await readExisting(client as unknown as SqlClient, o), o);
    if (run.dryRun) {
      await client.query('ROLLBACK');
      return result(plan.steps, plan.unchanged, true);
    }
    for (const s of plan.steps) {
      try {
        await client.query(s.sql);
      } catch (e) {
        throw stepError(o, s, e);
      }
    }
    await client.query('COMMIT');
    return result(plan.steps, plan.unchanged, false);
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    if (e instanceof PaxdError) throw e;
    throw pgError(o, e, 'reading the catalog');
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * node-postgres, loaded on first use: only `paxd mirror` and a daemon with a mirror need it,
 * so every other command starts without it.
 */
async function pgModule(): Promise<typeof import('pg').default> {
  try {
    return (await import('pg')).default;
  } catch (e) {
    throw new PaxdError('internal', SQLSTATE.internal_error, `paxd mirror needs the node-postgres package ("pg"), which could not be loaded: ${(e as Error).message} (npm install pg)`, { cause: e });
  }
}

function result(steps: readonly Step[], unchanged: readonly string[], dryRun: boolean): MirrorResult {
  const of = (k: Step['kind']) => steps.filter((s) => s.kind === k).map((s) => s.table!);
  return { steps, created: of('create'), altered: of('alter'), dropped: of('drop'), unchanged, dryRun };
}

interface PgErr {
  code?: string;
  message?: string;
  hint?: string;
}

function connectError(o: MirrorOptions, e: unknown): PaxdError {
  const err = e as PgErr & { errno?: number; address?: string; port?: number };
  const where = maskUrl(o.pg);
  if (err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND' || err.code === 'EHOSTUNREACH' || err.code === 'ETIMEDOUT' || /timeout/i.test(err.message ?? ''))
    return new PaxdError('io', SQLSTATE.sqlclient_unable_to_establish_sqlconnection, `could not connect to PostgreSQL at ${where}: ${err.message ?? err.code} (is it running, and is --pg right?)`, { cause: e });
  if (err.code === SQLSTATE.invalid_password || err.code === SQLSTATE.invalid_authorization_specification)
    return new PaxdError('io', err.code, `PostgreSQL at ${where} refused the login: ${err.message} (check the user and password in --pg)`, { cause: e });
  if (err.code === SQLSTATE.invalid_catalog_name) return new PaxdError('io', err.code, `PostgreSQL at ${where}: ${err.message} (the database in --pg must exist)`, { cause: e });
  return pgError(o, e, 'connecting');
}

function pgError(o: MirrorOptions, e: unknown, doing: string): PaxdError {
  const err = e as PgErr;
  return new PaxdError('io', err.code !== undefined && /^[0-9A-Z]{5}$/.test(err.code) ? err.code : SQLSTATE.connection_failure, `PostgreSQL at ${maskUrl(o.pg)}, ${doing}: ${err.message ?? String(e)}`, {
    cause: e,
  });
}

/** A statement PostgreSQL refused, with what to do about the usual ones. */
function stepError(o: MirrorOptions, s: Step, e: unknown): PaxdError {
  const err = e as PgErr;
  let fix = '';
  if (err.code === SQLSTATE.insufficient_privilege && s.kind === 'extension')
    fix =
      ' — creating postgres_fdw needs a superuser: have one run CREATE EXTENSION postgres_fdw in this database and GRANT USAGE ON FOREIGN DATA WRAPPER postgres_fdw TO the role of --pg, or run paxd mirror as a superuser';
  else if (err.code === SQLSTATE.insufficient_privilege && s.kind === 'server') fix = ' — a superuser must GRANT USAGE ON FOREIGN DATA WRAPPER postgres_fdw TO the role of --pg';
  else if (err.code === SQLSTATE.insufficient_privilege && (s.kind === 'create' || s.kind === 'schema'))
    fix = ` — the role of --pg needs CREATE on schema ${o.schema} (GRANT CREATE ON SCHEMA ${o.schema} TO …) and USAGE on server ${o.server}`;
  else if (err.code === SQLSTATE.insufficient_privilege) fix = ` — the role of --pg must own what it changes (server ${o.server}, its foreign tables), or be a superuser`;
  else if (err.code === SQLSTATE.undefined_file || (err.code === SQLSTATE.feature_not_supported && /postgres_fdw/.test(err.message ?? '')))
    fix = ' — the postgres_fdw extension is not installed on the PostgreSQL host (Debian: postgresql-contrib, or postgresql-15 which includes it)';
  return new PaxdError('io', err.code !== undefined && /^[0-9A-Z]{5}$/.test(err.code) ? err.code : SQLSTATE.connection_failure, `PostgreSQL at ${maskUrl(o.pg)} refused \`${s.display}\`: ${err.message ?? String(e)}${fix}`, {
    cause: e,
  });
}

/**
 * The mirror's diff: from paxd's tables (the desired foreign tables) and what PostgreSQL
 * has (./existing.ts), the statements that make PostgreSQL match — nothing when it already
 * does, so running the mirror again is a no-op.
 *
 *   CREATE EXTENSION IF NOT EXISTS postgres_fdw
 *   CREATE SERVER paxd FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '7432', dbname 'paxd', fetch_size '10000', use_remote_estimate 'true')
 *   CREATE USER MAPPING FOR CURRENT_USER SERVER paxd OPTIONS (user 'paxd', password '********')
 *   CREATE FOREIGN TABLE public.events (id bigint NOT NULL, kind text COLLATE "C") SERVER paxd OPTIONS (schema_name 'public', table_name 'events')
 *
 * A changed paxd table becomes one ALTER FOREIGN TABLE (columns added, dropped, retyped,
 * NOT NULL set or dropped), so views and grants on it survive; a paxd table that is gone
 * drops its foreign table. Only foreign tables of our server in our schema are touched: a
 * heap table or another server's foreign table with a paxd table's name is an error.
 */
import { PaxdError, SQLSTATE, type ForeignColumn, type ForeignTableSpec } from '../types/index.js';
import type { ExistingState, ExistingTable } from './existing.js';
import type { MirrorOptions } from './options.js';
import { ident, literal, qualified } from './sql.js';

/** One statement: `sql` to run, `display` the same with the password masked. */
export interface Step {
  readonly sql: string;
  readonly display: string;
  readonly kind: 'extension' | 'schema' | 'server' | 'mapping' | 'create' | 'alter' | 'drop';
  /** The foreign table a create/alter/drop is about. */
  readonly table?: string;
}

export interface MirrorPlan {
  readonly steps: readonly Step[];
  /** Tables already as they should be. */
  readonly unchanged: readonly string[];
}

const MASK = "'********'";

function step(kind: Step['kind'], sql: string, table?: string, display = sql): Step {
  return table === undefined ? { kind, sql, display } : { kind, sql, display, table };
}

/** The server options the mirror owns; others set by hand (fdw_tuple_cost, …) are kept. */
export function serverOptions(o: MirrorOptions): [string, string][] {
  return [
    ['host', o.host],
    ['port', String(o.port)],
    ['dbname', o.dbname],
    ['fetch_size', String(o.fetchSize)],
    ['use_remote_estimate', o.useRemoteEstimate ? 'true' : 'false'],
  ];
}

function mappingFor(o: MirrorOptions): string {
  const r = o.forRole.toUpperCase();
  return r === 'PUBLIC' || r === 'CURRENT_USER' ? r : ident(o.forRole);
}

/** `OPTIONS (ADD k 'v', SET k 'v')` for the options that differ, or null when none do. */
function alterOptions(want: [string, string][], have: ReadonlyMap<string, string>, secret?: string): { sql: string; display: string } | null {
  const parts: { sql: string; display: string }[] = [];
  for (const [k, v] of want) {
    if (have.get(k) === v) continue;
    const verb = have.has(k) ? 'SET' : 'ADD';
    parts.push({ sql: `${verb} ${k} ${literal(v)}`, display: `${verb} ${k} ${k === secret ? MASK : literal(v)}` });
  }
  if (parts.length === 0) return null;
  return { sql: `OPTIONS (${parts.map((p) => p.sql).join(', ')})`, display: `OPTIONS (${parts.map((p) => p.display).join(', ')})` };
}

function columnDdl(c: ForeignColumn): string {
  return `${ident(c.name)} ${c.type}${c.collation !== null ? ` COLLATE ${ident(c.collation)}` : ''}${c.notNull ? ' NOT NULL' : ''}`;
}

function tableOptions(o: MirrorOptions, name: string): [string, string][] {
  return [
    ['schema_name', o.remoteSchema],
    ['table_name', name],
  ];
}

/** The statements that make `have` match `want`. */
export function planMirror(want: readonly ForeignTableSpec[], have: ExistingState, o: MirrorOptions): MirrorPlan {
  const steps: Step[] = [];
  const unchanged: string[] = [];
  if (!have.extension) steps.push(step('extension', 'CREATE EXTENSION IF NOT EXISTS postgres_fdw'));
  if (!have.schema) steps.push(step('schema', `CREATE SCHEMA IF NOT EXISTS ${ident(o.schema)}`));
  const server = ident(o.server);
  if (have.server === null) {
    steps.push(step('server', `CREATE SERVER ${server} FOREIGN DATA WRAPPER postgres_fdw OPTIONS (${serverOptions(o).map(([k, v]) => `${k} ${literal(v)}`).join(', ')})`));
  } else {
    if (have.server.wrapper !== 'postgres_fdw')
      throw new PaxdError('exists', SQLSTATE.duplicate_object, `foreign server "${o.server}" exists with foreign-data wrapper ${have.server.wrapper}, expected postgres_fdw: choose another name with --server`);
    const alter = alterOptions(serverOptions(o), have.server.options);
    if (alter !== null) steps.push(step('server', `ALTER SERVER ${server} ${alter.sql}`));
  }
  const wantMapping: [string, string][] = [['user', o.user], ...(o.password !== undefined ? [['password', o.password] as [string, string]] : [])];
  if (have.mapping === null) {
    const opts = wantMapping.map(([k, v]) => `${k} ${literal(v)}`).join(', ');
    const shown = wantMapping.map(([k, v]) => `${k} ${k === 'password' ? MASK : literal(v)}`).join(', ');
    steps.push(step('mapping', `CREATE USER MAPPING FOR ${mappingFor(o)} SERVER ${server} OPTIONS (${opts})`, undefined, `CREATE USER MAPPING FOR ${mappingFor(o)} SERVER ${server} OPTIONS (${shown})`));
  } else {
    const alter = alterOptions(wantMapping, have.mapping, 'password');
    if (alter !== null) steps.push(step('mapping', `ALTER USER MAPPING FOR ${mappingFor(o)} SERVER ${server} ${alter.sql}`, undefined, `ALTER USER MAPPING FOR ${mappingFor(o)} SERVER ${server} ${alter.display}`));
  }
  const wanted = new Set(want.map((t) => t.name));
  for (const t of want) {
    const name = qualified(o.schema, t.name);
    const e = have.tables.get(t.name);
    if (e === undefined) {
      steps.push(
        step(
          'create',
          `CREATE FOREIGN TABLE ${name} (${t.columns.map(columnDdl).join(', ')}) SERVER ${server} OPTIONS (${tableOptions(o, t.name).map(([k, v]) => `${k} ${literal(v)}`).join(', ')})`,
          t.name,
        ),
      );
      continue;
    }
    if (e.relkind !== 'f' || e.server !== o.server) throw clash(o, e);
    const actions = alterColumns(t, e);
    const opts = alterOptions(tableOptions(o, t.name), e.options);
    if (opts !== null) actions.push(opts.sql);
    if (actions.length === 0) unchanged.push(t.name);
    else steps.push(step('alter', `ALTER FOREIGN TABLE ${name} ${actions.join(', ')}`, t.name));
  }
  for (const e of [...have.tables.values()].sort((a, b) => (a.name < b.name ? -1 : 1)))
    if (e.relkind === 'f' && e.server === o.server && !wanted.has(e.name)) steps.push(step('drop', `DROP FOREIGN TABLE ${qualified(o.schema, e.name)}`, e.name));
  return { steps, unchanged };
}

/** The ALTER FOREIGN TABLE actions that turn `e`'s columns into `t`'s. */
function alterColumns(t: ForeignTableSpec, e: ExistingTable): string[] {
  const actions: string[] = [];
  const have = new Map(e.columns.map((c) => [c.name, c]));
  const want = new Set(t.columns.map((c) => c.name));
  for (const c of e.columns) if (!want.has(c.name)) actions.push(`DROP COLUMN ${ident(c.name)}`);
  for (const c of t.columns) {
    const h = have.get(c.name);
    if (h === undefined) {
      actions.push(`ADD COLUMN ${columnDdl(c)}`);
      continue;
    }
    if (h.type !== c.type || h.collation !== c.collation)
      actions.push(`ALTER COLUMN ${ident(c.name)} TYPE ${c.type}${c.collation !== null ? ` COLLATE ${ident(c.collation)}` : ''}`);
    if (h.notNull !== c.notNull) actions.push(`ALTER COLUMN ${ident(c.name)} ${c.notNull ? 'SET' : 'DROP'} NOT NULL`);
  }
  return actions;
}

function clash(o: MirrorOptions, e: ExistingTable): PaxdError {
  const what =
    e.relkind === 'f' ? `a foreign table of server "${e.server}"` : e.relkind === 'r' || e.relkind === 'p' ? 'a table' : e.relkind === 'v' ? 'a view' : `a relation of kind '${e.relkind}'`;
  return new PaxdError('exists', SQLSTATE.duplicate_table, `relation "${o.schema}.${e.name}" already exists in PostgreSQL as ${what}, not a foreign table of server "${o.server}": drop or rename it, or mirror into another schema with --schema`);
}

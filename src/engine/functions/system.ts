/**
 * System information and settings functions clients call (PostgreSQL 15 docs 9.26 and 9.27.1):
 *
 *   version()                       → 'PostgreSQL 15.0 (paxd) on x86_64-pc-linux-gnu, compiled by Node.js v20.11.1, 64-bit'
 *   current_setting('TimeZone')     → 'UTC'          current_setting('nope', true) → NULL
 *   set_config('search_path', '', false) → ''       (as SET, reported to the client)
 *   current_schema()                → 'public'       current_schemas(true) → {pg_catalog,public}
 *   pg_typeof(1.5)                  → 'numeric'      pg_backend_pid() → the BackendKeyData pid
 *
 * The settings are the wire session's (../context.ts SessionAccess over
 * src/pgwire/session/params.ts); embedded, without a session, the settings functions are
 * 0A000. Drivers parse version() (JDBC, SQLAlchemy, pg_dump read "PostgreSQL 15.0"), so it
 * starts as PostgreSQL's does. txid_current() is 0A000 (paxd's transactions have no xids).
 */
import { type PgType, type Value, SQLSTATE, arrayOf, formatArrayText, pgDisplayName, typeOid } from '../../types/index.js';
import { currentContext, type SessionAccess } from '../context.js';
import { SqlError, notSupported } from '../errors.js';
import { E } from '../expr.js';
import { T } from '../types.js';
import type { Family, Kernel, Signature } from './signature.js';

/** What `server_version` says: a real PostgreSQL version first, so libpq and postgres_fdw parse it (≥ 15: CLOSE + DECLARE rescans). */
export const SERVER_VERSION = '15.0 (paxd)';

const sig = (params: readonly PgType[], result: PgType, kernel: Kernel, extra: Partial<Signature> = {}): Signature => Object.freeze({ params, result, kernel, ...extra });

/** The platform part of version(), in the GNU triplet PostgreSQL's configure prints. */
function platform(): string {
  const arch = process.arch === 'x64' ? 'x86_64' : process.arch === 'arm64' ? 'aarch64' : process.arch;
  const os = process.platform === 'linux' ? 'pc-linux-gnu' : process.platform === 'darwin' ? 'apple-darwin' : process.platform;
  return `${arch}-${os}`;
}

export const VERSION_STRING = `PostgreSQL ${SERVER_VERSION} on ${platform()}, compiled by Node.js ${process.version}, 64-bit`;

function session(fn: string): SessionAccess {
  const s = currentContext()?.session;
  if (s === undefined) throw notSupported(`${fn}() outside a wire session`);
  return s;
}

/** current_setting(name [, missing_ok]): 42704 for an unknown name unless missing_ok. */
const currentSetting: Kernel = (a) => {
  const s = session('current_setting');
  try {
    return s.setting(a[0] as string);
  } catch (e) {
    if (a.length > 1 && a[1] === true && (e as { code?: string }).code === '42704') return null;
    throw e;
  }
};

/** set_config(name, value, is_local): SET (a NULL is_local is false); 22004 without a name. */
const setConfig: Kernel = (a) => {
  if (a[0] === null) throw new SqlError('invalid_input', SQLSTATE.null_value_not_allowed, 'SET requires parameter name');
  if (a[1] === null) throw notSupported('set_config with a NULL value (RESET)');
  return session('set_config').setSetting(a[0] as string, a[1] as string, a[2] === true);
};

/** The schemas of search_path in order, without `"$user"` (paxd has no per-user schemas). */
function searchPath(): string[] {
  const path = session('current_schema').setting('search_path');
  return path
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '' && x !== '"$user"' && x !== '$user')
    .map((x) => (x.startsWith('"') ? x.slice(1, -1).replaceAll('""', '"') : x.toLowerCase()))
    .filter((x) => x === 'public' || x === 'pg_catalog' || x === 'information_schema');
}

/** regtype's output of a type: format_type without its typmod. */
export function regtypeName(t: PgType): string {
  if (t.id === 'array') return `${regtypeName(t.element!)}[]`;
  if (t.id === 'bpchar') return 'character';
  return pgDisplayName({ id: t.id });
}

const constant = (v: Value, type: PgType) => () => E.const(v, type);

/** pg_type's `unknown`, the type of an untyped literal. */
const UNKNOWN_OID = 705n;

export const SYSTEM_FUNCTIONS: Family = Object.freeze({
  version: [sig([], T.text, () => VERSION_STRING, { bind: constant(VERSION_STRING, T.text) })],
  current_setting: [
    sig([T.text], T.text, currentSetting, { volatility: 'stable' }),
    sig([T.text, T.bool], T.text, currentSetting, { volatility: 'stable' }),
  ],
  set_config: [sig([T.text, T.text, T.bool], T.text, setConfig, { volatility: 'volatile', strict: false })],
  current_database: [sig([], T.name, () => 'paxd', { bind: constant('paxd', T.name) })],
  current_schema: [sig([], T.name, () => searchPath()[0] ?? null, { volatility: 'stable' })],
  current_schemas: [
    sig([T.bool], arrayOf(T.name), (a) => {
      const path = searchPath();
      const implicit = a[0] === true && !path.includes('pg_catalog') ? ['pg_catalog'] : [];
      return formatArrayText([...implicit, ...path.filter((x) => a[0] === true || x !== 'pg_catalog')]);
    }, { volatility: 'stable' }),
  ],
  pg_backend_pid: [sig([], T.int4, () => session('pg_backend_pid').backendPid, { volatility: 'stable' })],
  txid_current: [sig([], T.int8, () => { throw notSupported('txid_current()'); }, { volatility: 'volatile' })],
  // pg_typeof(x) is x's type (a regtype, which prints its name), whatever its value: a constant.
  pg_typeof: [sig([], T.regtype, () => null, { variadic: 'any', strict: false, bind: (args, unknown, fail) => (args.length !== 1 ? fail() : E.const(unknown[0] === true ? UNKNOWN_OID : BigInt(typeOid(args[0]!.type)), T.regtype)) })],
});

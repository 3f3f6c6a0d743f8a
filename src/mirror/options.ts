/**
 * What `paxd mirror` declares, and where. Defaults match `paxd serve`'s defaults, so
 * `paxd mirror --pg postgres://localhost/app` mirrors a daemon on 127.0.0.1:7432.
 */

export interface MirrorOptions {
  /** The PostgreSQL to declare the foreign tables in (a libpq URL: postgres://user:pw@host:port/db). */
  readonly pg: string;
  /** Schema of the foreign tables in PostgreSQL (created if missing). Default `public`. */
  readonly schema: string;
  /** Name of the foreign server. Default `paxd`. */
  readonly server: string;
  /** The paxd wire server as PostgreSQL reaches it. Default 127.0.0.1:7432. */
  readonly host: string;
  readonly port: number;
  /** `dbname` postgres_fdw sends in its startup message (paxd ignores it). Default `paxd`. */
  readonly dbname: string;
  /** The paxd user of the user mapping. Default `paxd`. */
  readonly user: string;
  /**
   * The user mapping's password. postgres_fdw refuses non-superusers without one; with
   * `undefined`, an existing password is left as it is.
   */
  readonly password?: string;
  /**
   * The local role the user mapping is for: `CURRENT_USER` (the role of --pg), `PUBLIC`, or
   * a role name. Default CURRENT_USER.
   */
  readonly forRole: string;
  /** Rows per FETCH (postgres_fdw's default, 100, is slow for analytics). Default 10000. */
  readonly fetchSize: number;
  /** Ask paxd for estimates (EXPLAIN) while planning: needed for join and aggregate pushdown. Default true. */
  readonly useRemoteEstimate: boolean;
  /** The paxd schema the foreign tables point at (paxd's tables are all in `public`). */
  readonly remoteSchema: string;
}

export const MIRROR_DEFAULTS = {
  schema: 'public',
  server: 'paxd',
  host: '127.0.0.1',
  port: 7432,
  dbname: 'paxd',
  user: 'paxd',
  forRole: 'CURRENT_USER',
  fetchSize: 10_000,
  useRemoteEstimate: true,
  remoteSchema: 'public',
} as const;

/** Options with defaults filled in. */
export function mirrorOptions(o: { readonly [K in keyof MirrorOptions]?: MirrorOptions[K] | undefined } & { pg: string }): MirrorOptions {
  const out = { ...MIRROR_DEFAULTS } as Record<string, unknown>;
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as unknown as MirrorOptions;
}

/** A libpq URL with its password replaced by ********, for messages and logs. */
export function maskUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*:)([^@]*)@/, '$1********@').replace(/([?&]password=)[^&]*/, '$1********');
}

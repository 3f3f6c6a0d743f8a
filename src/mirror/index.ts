/**
 * src/mirror (docs/MIRROR.md): declares paxd's tables as postgres_fdw foreign tables in a real
 * PostgreSQL and keeps them in sync (docs/MIRROR.md). The type names and COLLATE "C" it
 * declares come from src/types/foreign.ts, which the wire server's catalog shares.
 *
 *   options.ts   what to declare and where, with defaults
 *   desired.ts   the foreign tables paxd's tables call for
 *   existing.ts  what PostgreSQL has (system catalogs)
 *   plan.ts      the diff: CREATE/ALTER/DROP statements, nothing when in sync
 *   sql.ts       identifier and literal quoting
 *   mirror.ts    connect, lock, apply in one transaction; errors that name the fix
 *   sync.ts      the daemon's polling re-sync
 */
export { runMirror, planFromNothing, type MirrorResult, type RunOptions } from './mirror.js';
export { MirrorSync, type SyncEvents } from './sync.js';
export { mirrorOptions, maskUrl, MIRROR_DEFAULTS, type MirrorOptions } from './options.js';
export { planMirror, type MirrorPlan, type Step } from './plan.js';
export { desiredTables, signature } from './desired.js';

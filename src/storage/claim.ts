/**
 * Segment claims: who may append to a segment set. Two writers appending at the same logical
 * EOF of one segment would write over each other's bytes — and the loser of the commit race
 * could still be writing after the winner committed, damaging committed data. A commit-time
 * check cannot undo that, so writers exclude each other *before* the first byte:
 *
 *   <table>/ao/claims/<segno>-<gen>-<attempt>.claim      JSON {pid, host, at}
 *
 * `gen` is the segment set's commit generation in the snapshot (AoSegmentJson.gen, 0 for a
 * new set): a claim is only good while that generation is the committed one, so a commit
 * (which bumps it) releases the claim implicitly. Claiming is putIfAbsent (atomic on every
 * store): exactly one writer wins (segno, gen, attempt). The highest attempt present is the
 * holder; a holder that crashed (same host, its pid no longer alive) is taken over by
 * claiming attempt + 1 — that is how the append after a crash reuses the segment and
 * overwrites the crashed append's bytes past the EOF. A holder on another host is never taken
 * over (its liveness cannot be known): the appender uses another segment set instead.
 *
 * Stores without appends (S3) never reuse a committed set; there, claims only allocate new
 * segment numbers.
 */
import { hostname } from 'node:os';
import type { ObjectStore } from './store.js';

export const CLAIMS_DIR = 'ao/claims';

export interface Claim {
  segno: number;
  gen: number;
  attempt: number;
  /** Store path of the claim object. */
  path: string;
}

interface ClaimBody {
  pid: number;
  host: string;
  at: string;
}

function claimPath(table: string, segno: number, gen: number, attempt: number): string {
  return `${table}/${CLAIMS_DIR}/${segno}-${gen}-${attempt}.claim`;
}

/** (segno, gen, attempt) of a claim path, or null. */
export function parseClaimPath(path: string): { segno: number; gen: number; attempt: number } | null {
  const m = /\/(\d+)-(\d+)-(\d+)\.claim$/.exec(path);
  return m === null ? null : { segno: Number(m[1]), gen: Number(m[2]), attempt: Number(m[3]) };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Claims (segno, gen), taking over a crashed holder; null when a live writer holds it. */
export async function tryClaim(store: ObjectStore, table: string, segno: number, gen: number): Promise<Claim | null> {
  const held = await store.list(`${table}/${CLAIMS_DIR}/${segno}-${gen}-`);
  let top = -1;
  let topPath = '';
  for (const o of held) {
    const c = parseClaimPath(o.path);
    if (c !== null && c.segno === segno && c.gen === gen && c.attempt > top) {
      top = c.attempt;
      topPath = o.path;
    }
  }
  if (top >= 0) {
    let body: ClaimBody | null = null;
    try {
      body = JSON.parse(Buffer.from(await store.read(topPath)).toString('utf8')) as ClaimBody;
    } catch {
      body = null; // released meanwhile, or unreadable: treat as held (another set will do)
    }
    if (body === null || body.host !== hostname() || alive(body.pid)) return null;
  }
  const attempt = top + 1;
  const path = claimPath(table, segno, gen, attempt);
  const body: ClaimBody = { pid: process.pid, host: hostname(), at: new Date().toISOString() };
  if (!(await store.putIfAbsent(path, Buffer.from(JSON.stringify(body), 'utf8')))) return null;
  return { segno, gen, attempt, path };
}

/** Releases a claim (after its commit, or on abort). Best effort: a leftover is only garbage. */
export async function releaseClaim(store: ObjectStore, c: Claim): Promise<void> {
  await store.delete(c.path).catch(() => undefined);
}

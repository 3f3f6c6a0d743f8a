/**
 * The ingested-files window of a snapshot (`SnapshotJson.ingested`): the identities
 * (name, size, content hash) of the input files whose rows the table holds, recorded by the
 * same commit that adds the rows. A loader that crashed after committing and before moving its
 * file away finds the file's identity here on restart and does not load it twice.
 *
 * The window is bounded (every snapshot carries it): the newest `window` identities are kept.
 * A loader must never have more files committed-but-not-yet-moved than the window holds;
 * the daemon's inbox has at most one batch in that state.
 *
 *   withIngested(base, [{ name: 'a.csv', size: 12, hash: 'sha256:…' }]).ingested  // […base's, a.csv]
 */
import { PaxdError, SQLSTATE } from '../types/index.js';
import type { IngestedFileJson, SnapshotJson } from './snapshot-types.js';

/** Identities kept per table by default. */
export const DEFAULT_INGESTED_WINDOW = 1024;

/** Whether `f` (same name, size and hash) is recorded in `s`. */
export function findIngested(s: SnapshotJson, f: IngestedFileJson): boolean {
  return (s.ingested ?? []).some((g) => sameFile(g, f));
}

export function sameFile(a: IngestedFileJson, b: IngestedFileJson): boolean {
  return a.name === b.name && a.size === b.size && a.hash === b.hash;
}

/**
 * `base` with `files` appended to its window (oldest dropped past `window`). Fails with 23505
 * when one of them is recorded already: a second load of the same file must not commit.
 */
export function withIngested(base: SnapshotJson, files: readonly IngestedFileJson[], window = DEFAULT_INGESTED_WINDOW): Pick<SnapshotJson, 'ingested'> {
  for (const f of files) if (findIngested(base, f)) throw alreadyIngested(base, f);
  const all = [...(base.ingested ?? []), ...files];
  return { ingested: all.length > window ? all.slice(all.length - window) : all };
}

export function alreadyIngested(s: SnapshotJson, f: IngestedFileJson): PaxdError {
  return new PaxdError('exists', SQLSTATE.unique_violation, `file "${f.name}" (${f.size} bytes, ${f.hash}) is already ingested into table "${s.table}" (snapshot ${s.id})`, { file: f.name });
}

export function isAlreadyIngested(e: unknown): boolean {
  return e instanceof PaxdError && e.kind === 'exists' && e.code === SQLSTATE.unique_violation;
}

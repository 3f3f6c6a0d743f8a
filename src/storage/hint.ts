/**
 * Hints: small objects that name the newest of something (a table's newest checkpoint,
 * ./table-state.ts; the store's recent root, ./root.ts), so that a reader finds it without
 * listing the whole history (Delta Lake's `_last_checkpoint`). The only objects paxd replaces
 * rather than creates once: a hint commits nothing. A reader that finds one missing, stale or
 * damaged only does more work (lists or reads more), and what a hint names is used only once
 * it verifies on its own. Framed (./frame.ts) around the JSON `{"id": 12}`.
 */
import { isPaxdError } from '../types/index.js';
import { decodeFrame, encodeFrame, type FrameKind } from './frame.js';
import type { ObjectStore } from './store.js';

/** The id a hint names, or null when it is missing or damaged. */
export async function readHint(store: ObjectStore, path: string, kind: FrameKind): Promise<number | null> {
  try {
    const v = decodeFrame(kind, await store.read(path), path) as { id?: unknown } | null;
    return v !== null && typeof v === 'object' && Number.isSafeInteger(v.id) && (v.id as number) > 0 ? (v.id as number) : null;
  } catch (e) {
    if (isPaxdError(e) && (e.kind === 'not_found' || e.kind === 'corruption')) return null;
    throw e;
  }
}

/**
 * Points the hint at `id` unless it names a newer one. Not atomic (delete, then create): a
 * reader in between finds none, which only costs it a longer way. Errors are the caller's to
 * ignore: a hint is never needed.
 */
export async function writeHint(store: ObjectStore, path: string, kind: FrameKind, id: number): Promise<void> {
  const was = await readHint(store, path, kind);
  if (was !== null && was >= id) return;
  await store.delete(path);
  await store.putIfAbsent(path, encodeFrame(kind, { id }));
}

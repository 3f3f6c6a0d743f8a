/** Shared by the storage tests: a small valid snapshot and error assertions. */
import * as assert from 'uvu/assert';
import { PaxdError } from '../../src/types/errors.js';
import type { DataFileJson, SnapshotJson } from '../../src/storage/snapshot-types.js';

export function sampleSnapshot(table = 't', files: DataFileJson[] = []): SnapshotJson {
  return {
    format: 1,
    table,
    id: 1,
    parent: 0,
    createdAt: '2024-01-01T00:00:00.000Z',
    operation: 'create',
    layout: 'pax',
    options: { codec: 'lz4', rowGroupRows: 131072, rowGroupBytes: 1 << 26, zoneRows: 8192 },
    fields: [{ name: 'id', type: 'int8', notNull: true, fieldId: 1 }],
    nextFieldId: 2,
    files,
  };
}

export function dataFile(path: string, deletesPath?: string): DataFileJson {
  return {
    path,
    size: 100,
    footerOffset: 80,
    footerLength: 20,
    footerCrc: 123,
    groups: [{ rows: 10, live: 10, columns: { '1': { rows: 10, nulls: 0, min: '1', max: '10' } }, ...(deletesPath ? { deletesPath } : {}) }],
  };
}

/** Awaits `p` and returns the PaxdError it rejects with; fails the test otherwise. */
export async function rejection(p: Promise<unknown>): Promise<PaxdError> {
  try {
    await p;
  } catch (e) {
    assert.instance(e, PaxdError, `expected a PaxdError, got ${String(e)}`);
    return e as PaxdError;
  }
  assert.unreachable('expected a rejection');
  throw new Error('unreachable');
}

/** Same for synchronous code. */
export function thrown(fn: () => unknown): PaxdError {
  try {
    fn();
  } catch (e) {
    assert.instance(e, PaxdError, `expected a PaxdError, got ${String(e)}`);
    return e as PaxdError;
  }
  assert.unreachable('expected a throw');
  throw new Error('unreachable');
}

/**
 * What vacuum leaves of a table's metadata when its newest state is snapshot `id` built on
 * older deltas: the delta, the checkpoint vacuum wrote for it (its manifest list and
 * `manifests` manifests, whose random names `listedShape` replaces by `*`) and the checkpoint
 * hint (docs/FORMAT.md "Table metadata v2"), in listing order.
 */
export function checkpointed(table: string, id: number, manifests = 1): string[] {
  const snap = `${table}/_snapshots/${String(id).padStart(20, '0')}`;
  return [...Array.from({ length: manifests }, () => `${snap}-*.mf`), `${snap}.ckpt`, `${snap}.snap`, `${table}/_snapshots/_checkpoint`];
}

/** Listed paths with the random part of manifest names replaced by `*` (see checkpointed). */
export function listedShape(paths: readonly string[]): string[] {
  return paths.map((p) => p.replace(/-[0-9a-f]{16}\.mf$/, '-*.mf'));
}

/**
 * `paxd check`: reads every byte of every data file a snapshot references and verifies every
 * checksum (footer, every zone of every chunk), decoding each zone so that structural damage
 * that a checksum could not see (impossible offsets, bad dictionary indices) is found too.
 */
import type { ObjectStore } from '../storage/store.js';
import type { SnapshotJson } from '../storage/snapshot-types.js';
import { fieldsOf } from '../storage/schema.js';
import { PaxFileReader } from '../pax/reader.js';
import { PaxdError } from '../types/errors.js';

export interface CheckProblem {
  file: string;
  offset?: number;
  message: string;
  code: string;
}

export interface CheckResult {
  snapshot: number;
  files: number;
  groups: number;
  zones: number;
  bytes: number;
  problems: CheckProblem[];
}

export async function checkTable(
  store: ObjectStore,
  table: string,
  snapshot: SnapshotJson,
  onProgress?: (filesDone: number, files: number) => void,
): Promise<CheckResult> {
  const fields = fieldsOf(snapshot);
  const result: CheckResult = { snapshot: snapshot.id, files: 0, groups: 0, zones: 0, bytes: 0, problems: [] };
  for (const file of snapshot.files) {
    const path = `${table}/${file.path}`;
    try {
      const stat = await store.stat(path);
      if (stat === null) throw new PaxdError('corruption', 'XX001', `data file ${path} is missing`, { file: path });
      if (stat.size !== file.size)
        throw new PaxdError('corruption', 'XX001', `data file ${path} has ${stat.size} bytes, the snapshot says ${file.size}`, { file: path, offset: Math.min(stat.size, file.size) });
      const reader = await PaxFileReader.open(store, path, file, fields);
      for (let g = 0; g < file.groups.length; g++) {
        for (const f of fields) {
          if (!reader.hasField(f.fieldId)) continue;
          const chunk = await reader.loadChunk(g, f.fieldId);
          for (let z = 0; z < chunk.zoneCount; z++) chunk.zone(z);
          result.zones += chunk.zoneCount;
        }
        result.groups++;
      }
      result.bytes += file.size;
    } catch (e) {
      if (!(e instanceof PaxdError) || (e.kind !== 'corruption' && e.kind !== 'not_found')) throw e;
      result.problems.push({ file: e.file ?? path, ...(e.offset !== undefined ? { offset: e.offset } : {}), message: e.message, code: e.code });
    }
    result.files++;
    onProgress?.(result.files, snapshot.files.length);
  }
  return result;
}

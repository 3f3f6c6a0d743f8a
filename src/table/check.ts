/**
 * `paxd check`: reads every byte of every data file a snapshot references and verifies every
 * checksum (footer, every zone of every chunk), decoding each zone so that structural damage
 * that a checksum could not see (impossible offsets, bad dictionary indices) is found too.
 *
 * ao_column tables: every segment the snapshot lists must exist and hold at least its
 * committed EOF (bytes past it are a crashed append's, never read, not checked); every block
 * of every stripe must lie below its segment's EOF, and is read, checksummed and decoded.
 * A problem names the segment file and the block's offset.
 */
import { type ObjectStore, type SnapshotJson, fieldsOf, type DataFileJson, verifyState } from '../storage/index.js';
import { PaxFileReader } from '../pax/index.js';
import { AoStripeReader, segmentPath } from '../aocolumn/index.js';
import { PaxdError, SQLSTATE, type Field } from '../types/index.js';
import { isAoStripe } from '../scan/index.js';

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
  const problem = (e: unknown, path: string) => {
    if (!(e instanceof PaxdError) || (e.kind !== 'corruption' && e.kind !== 'not_found')) throw e;
    result.problems.push({ file: e.file ?? path, ...(e.offset !== undefined ? { offset: e.offset } : {}), message: e.message, code: e.code });
  };
  // The metadata first: the state read afresh from its delta chain (every delta's crc, the
  // checkpoint it starts from), not from this process's memory (docs/FORMAT.md "Table metadata v2").
  try {
    await verifyState(store, table, snapshot.id);
  } catch (e) {
    problem(e, table);
  }
  const eofs = new Map<string, number>();
  for (const seg of snapshot.ao?.segments ?? []) {
    for (const [fieldId, eof] of Object.entries(seg.eof)) {
      const path = `${table}/${segmentPath(fieldId, seg.segno)}`;
      eofs.set(path, eof);
      try {
        const stat = await store.stat(path);
        if (stat === null) throw new PaxdError('corruption', SQLSTATE.data_corrupted, `segment ${path} is missing`, { file: path });
        if (stat.size < eof) throw new PaxdError('corruption', SQLSTATE.data_corrupted, `segment ${path} has ${stat.size} bytes, its committed EOF is ${eof}`, { file: path, offset: stat.size });
      } catch (e) {
        problem(e, path);
      }
    }
  }
  for (const file of snapshot.files) {
    const path = `${table}/${file.path}`;
    if (isAoStripe(file)) {
      await checkStripe(store, table, file, fields, eofs, result, problem);
      result.files++;
      onProgress?.(result.files, snapshot.files.length);
      continue;
    }
    try {
      const stat = await store.stat(path);
      if (stat === null) throw new PaxdError('corruption', SQLSTATE.data_corrupted, `data file ${path} is missing`, { file: path });
      if (stat.size !== file.size)
        throw new PaxdError('corruption', SQLSTATE.data_corrupted, `data file ${path} has ${stat.size} bytes, the snapshot says ${file.size}`, { file: path, offset: Math.min(stat.size, file.size) });
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
      problem(e, path);
    }
    result.files++;
    onProgress?.(result.files, snapshot.files.length);
  }
  return result;
}

/** Every block of an ao_column stripe: below its segment's EOF, then read and decoded. */
async function checkStripe(
  store: ObjectStore,
  table: string,
  stripe: DataFileJson,
  fields: readonly Field[],
  eofs: Map<string, number>,
  result: CheckResult,
  problem: (e: unknown, path: string) => void,
): Promise<void> {
  const reader = new AoStripeReader(store, table, stripe, fields);
  for (let g = 0; g < stripe.groups.length; g++) {
    for (const f of fields) {
      if (!reader.hasField(f.fieldId)) continue;
      const path = reader.blockPath(g, f.fieldId);
      try {
        const ref = stripe.groups[g]!.blocks![String(f.fieldId)]!;
        const eof = eofs.get(path);
        if (eof === undefined || ref.offset + ref.length > eof)
          throw new PaxdError('corruption', SQLSTATE.data_corrupted, `block of group ${g} in ${path} at ${ref.offset} (${ref.length} bytes) lies past the segment's committed EOF ${eof ?? '(none)'}`, { file: path, offset: ref.offset });
        const chunk = await reader.loadChunk(g, f.fieldId);
        chunk.zone(0);
        result.zones++;
        result.bytes += ref.length;
      } catch (e) {
        problem(e, path);
      }
    }
    result.groups++;
  }
}

/**
 * The layout switch of the read side: a group source is what the scan, deletes, compaction
 * and check need from one entry of `snapshot.files` — a PAX file (src/pax/reader.ts) or an
 * ao_column stripe (src/aocolumn/reader.ts). Above this file nothing knows the layout.
 */
import type { Field } from '../types/index.js';
import type { DataFileJson, ObjectStore } from '../storage/index.js';
import type { ColumnStats } from '../stats/index.js';
import { PaxFileReader, type PaxChunk, type ZoneBuffers } from '../pax/index.js';
import { AoStripeReader } from '../aocolumn/index.js';

export interface GroupSource {
  /** Rows per zone (an ao_column group is one zone). */
  readonly zoneRows: number;
  /** Bytes read to open the source (a PAX footer; 0 for a stripe). */
  readonly bytesRead: number;
  groupRows(g: number): number;
  zoneCount(g: number): number;
  hasField(fieldId: number): boolean;
  zoneStats(g: number, fieldId: number, z: number): ColumnStats;
  /** With `buffers`, zones may be decoded into them (src/pax/zone-memory.ts); a source may ignore them. */
  loadChunk(g: number, fieldId: number, buffers?: ZoneBuffers): Promise<PaxChunk>;
}

export function isAoStripe(file: DataFileJson): boolean {
  return file.layout === 'ao_column';
}

export async function openSource(store: ObjectStore, table: string, file: DataFileJson, fields: readonly Field[]): Promise<GroupSource> {
  if (isAoStripe(file)) return new AoStripeReader(store, table, file, fields);
  return PaxFileReader.open(store, `${table}/${file.path}`, file, fields);
}

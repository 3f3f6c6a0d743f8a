/**
 * Encoding one column chunk (all zones of one column in one row group): statistics per zone,
 * zone encoding and compression, and the chunk's statistics. Pure: it runs on the main thread
 * or in an encoder thread (./encode-pool.ts) alike; the writer assigns file offsets.
 */
import type { Column } from '../types/index.js';
import type { ColumnStatsJson } from '../storage/index.js';
import { type ColumnStats, computeStats, mergeStats, statsToJson } from '../stats/index.js';
import type { CodecName } from './codec.js';
import { type PaxFormat, type ZoneJson, defaultFormat } from './footer.js';
import { encodeZone } from './zone-encode.js';

/** A zone's footer entry before the writer knows where it lands. */
export type PlacedLaterZone = Omit<ZoneJson, 'offset'>;

export interface EncodedChunk {
  /** The format of the zones' bytes. */
  format: PaxFormat;
  zones: PlacedLaterZone[];
  /** Stored bytes per zone, in zone order. */
  blobs: Uint8Array[];
  stats: ColumnStatsJson;
}

const NO_ROWS: ColumnStats = { rows: 0, nulls: 0, nans: 0, min: null, max: null, minExact: true, maxExact: true, sum: null };

export function encodeChunk(col: Column, zoneRows: number, codec: CodecName, format: PaxFormat = defaultFormat()): EncodedChunk {
  const zones: PlacedLaterZone[] = [];
  const blobs: Uint8Array[] = [];
  let total: ColumnStats | null = null;
  for (let start = 0; start < col.length; start += zoneRows) {
    const end = Math.min(col.length, start + zoneRows);
    const s = computeStats(col, start, end);
    const z = encodeZone(col, start, end, s.nulls, codec, format);
    const meta: PlacedLaterZone = {
      stored: z.stored.byteLength,
      decoded: z.decoded,
      codec: z.codec,
      enc: z.enc,
      rows: end - start,
      nulls: s.nulls,
      crc: z.crc,
      stats: statsToJson(col.type, s),
    };
    if (z.dict !== undefined) meta.dict = z.dict;
    zones.push(meta);
    blobs.push(z.stored);
    total = total === null ? s : mergeStats(col.type, total, s);
  }
  return { format, zones, blobs, stats: statsToJson(col.type, total ?? { ...NO_ROWS }) };
}

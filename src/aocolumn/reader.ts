/**
 * Reads an ao_column stripe (the groups one append wrote) with the interface the scan uses
 * for PAX files (src/scan/source.ts): a group is one block per column, so it has one zone.
 * Nothing is read when a stripe is opened — its directory is in the snapshot — and loading
 * a column of a group is one ranged read of one block in that column's segment, so a scan of
 * 2 columns of a 200-column table touches only those 2 columns' segments.
 */
import { type Column, type Field, corruption } from '../types/index.js';
import type { DataFileJson, GroupJson, ObjectStore } from '../storage/index.js';
import { type ColumnStats, statsFromJson } from '../stats/index.js';
import { type PaxChunk, decodeZone } from '../pax/index.js';
import { parseBlock, segmentPath } from './block.js';

export class AoStripeReader {
  /** Every group is a single zone: zoneRows is at least the largest group. */
  readonly zoneRows: number;
  readonly bytesRead = 0;
  private readonly fieldsById: Map<number, Field>;
  private readonly present: Set<number>;

  constructor(
    private readonly store: ObjectStore,
    private readonly table: string,
    private readonly stripe: DataFileJson,
    fields: readonly Field[],
  ) {
    let most = 8;
    for (const g of stripe.groups) most = Math.max(most, g.rows);
    this.zoneRows = most;
    this.fieldsById = new Map(fields.map((f) => [f.fieldId, f]));
    this.present = new Set(Object.keys(stripe.groups[0]?.blocks ?? {}).map(Number));
  }

  get groupCount(): number {
    return this.stripe.groups.length;
  }

  groupRows(g: number): number {
    return this.group(g).rows;
  }

  zoneCount(g: number): number {
    return this.group(g).rows > 0 ? 1 : 0;
  }

  hasField(fieldId: number): boolean {
    return this.present.has(fieldId);
  }

  /** The block's statistics: the group's, as the snapshot holds them (live rows). */
  zoneStats(g: number, fieldId: number, z: number): ColumnStats {
    if (z !== 0) throw new RangeError(`zone ${z} of an ao_column group (one block per column)`);
    return this.chunkStats(g, fieldId);
  }

  chunkStats(g: number, fieldId: number): ColumnStats {
    const s = this.group(g).columns[String(fieldId)];
    if (s === undefined) throw new RangeError(`field ${fieldId} has no statistics in group ${g}`);
    return statsFromJson(this.field(fieldId).type, s);
  }

  /** Store path of the segment holding `fieldId`'s block of group g. */
  blockPath(g: number, fieldId: number): string {
    return `${this.table}/${segmentPath(fieldId, this.block(g, fieldId).seg)}`;
  }

  /** One ranged read of the block; decoded (checksums, decompression) when first asked for. */
  async loadChunk(g: number, fieldId: number): Promise<PaxChunk> {
    const meta = this.group(g);
    const ref = this.block(g, fieldId);
    const type = this.field(fieldId).type;
    const path = this.blockPath(g, fieldId);
    const bytes = await this.store.read(path, ref.offset, ref.length);
    if (bytes.byteLength !== ref.length) throw corruption(path, ref.offset + bytes.byteLength, `ao_column block: read ${bytes.byteLength} bytes, expected ${ref.length}`);
    const { zone, payload, format } = parseBlock(bytes, path, ref.offset, meta.rows, meta.columns[String(fieldId)] ?? { rows: meta.rows, nulls: 0 });
    let cached: Column | undefined;
    return {
      zoneCount: 1,
      storedBytes: ref.length,
      zone(z: number): Column {
        if (z !== 0) throw new RangeError(`zone ${z} of an ao_column block`);
        cached ??= decodeZone(payload, zone, type, path, format);
        return cached;
      },
    };
  }

  private group(g: number): GroupJson {
    const grp = this.stripe.groups[g];
    if (grp === undefined) throw new RangeError(`group ${g} of a stripe with ${this.stripe.groups.length} groups`);
    return grp;
  }

  private block(g: number, fieldId: number) {
    const b = this.group(g).blocks?.[String(fieldId)];
    if (b === undefined) throw new RangeError(`field ${fieldId} has no block in group ${g} of ${this.stripe.path}`);
    return b;
  }

  private field(fieldId: number): Field {
    const f = this.fieldsById.get(fieldId);
    if (f === undefined) throw new RangeError(`field ${fieldId} is not in the schema given to the reader`);
    return f;
  }
}

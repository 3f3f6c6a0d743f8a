/**
 * Reads a PAX file. Opening fetches [footerOffset, size) — footer and trailer — in one ranged
 * read and verifies it against the snapshot's DataFileJson before trusting it:
 *
 *   footerOffset      footer   footerLength bytes of UTF-8 JSON; crc32 = trailer crc = snapshot crc
 *   size - 14         length u32 LE (= snapshot footerLength) | crc u32 LE (= snapshot footerCrc)
 *   size - 6          version u16 LE (1 or 2, = the footer's format) | magic "PAXF"
 *
 * then checks the footer's structure: chunks and zones tile [0, footerOffset) exactly, in
 * order, with zone rows matching zoneRows, so every stored byte belongs to exactly one zone
 * whose crc a full read verifies. loadChunk() reads one chunk in one ranged read; its zones
 * are decoded (crc, decompression, layout checks: ./zone-decode.ts) when first asked for.
 *
 *   const r = await PaxFileReader.open(store, 't/data/0001.pax', file, fields);
 *   const chunk = await r.loadChunk(0, fieldId);
 *   for (let z = 0; z < chunk.zoneCount; z++) use(chunk.zone(z));
 */
import { crc32 } from 'node:zlib';
import { type Column, checksumMismatch, corruption, type Field, typeName } from '../types/index.js';
import type { DataFileJson, ObjectStore } from '../storage/index.js';
import { type ColumnStats, statsFromJson } from '../stats/index.js';
import { CODECS } from './codec.js';
import { type ChunkJson, type FooterJson, type PaxFormat, type ZoneJson, PAX_VERSIONS, TRAILER_SIZE, readTrailer } from './footer.js';
import { MAX_ZONE_ROWS } from './writer.js';
import { decodeZone } from './zone-decode.js';
import { FRESH_MEMORY, type ZoneBuffers } from './zone-memory.js';

export interface PaxChunk {
  readonly zoneCount: number;
  /** Zone z as an Arrow-layout Column (decoded and verified on first use, then cached). */
  zone(z: number): Column;
  readonly storedBytes: number;
}

export class PaxFileReader {
  readonly zoneRows: number;
  private readonly store: ObjectStore;
  private readonly path: string;
  private readonly footer: FooterJson;
  /** fieldId -> index of its chunk within a group. */
  private readonly chunkIndex: Map<number, number>;
  private readonly fieldsById: Map<number, Field>;
  private read = 0;

  private constructor(store: ObjectStore, path: string, footer: FooterJson, fields: readonly Field[], footerBytes: number) {
    this.store = store;
    this.path = path;
    this.footer = footer;
    this.zoneRows = footer.zoneRows;
    this.chunkIndex = new Map(footer.fields.map((f, i) => [f.fieldId, i]));
    this.fieldsById = new Map(fields.map((f) => [f.fieldId, f]));
    this.read = footerBytes;
  }

  /** Opens `path` (store-relative) as the snapshot describes it: one ranged read, verified. */
  static async open(store: ObjectStore, path: string, file: DataFileJson, fields: readonly Field[]): Promise<PaxFileReader> {
    const bad = (offset: number, what: string) => corruption(path, offset, `pax file: ${what}`);
    const tailLength = file.size - file.footerOffset;
    if (file.footerOffset < 0 || tailLength !== file.footerLength + TRAILER_SIZE)
      throw bad(Math.max(0, Math.min(file.footerOffset, file.size)), `snapshot says size ${file.size}, footer at ${file.footerOffset} of ${file.footerLength} bytes: they do not add up with a ${TRAILER_SIZE}-byte trailer`);
    const tail = await store.read(path, file.footerOffset, tailLength);
    if (tail.byteLength !== tailLength) throw bad(file.footerOffset + tail.byteLength, `read ${tail.byteLength} bytes of footer and trailer, expected ${tailLength}`);
    const trailerAt = file.size - TRAILER_SIZE;
    const t = readTrailer(tail, file.footerLength);
    if (!t.magicOk) throw bad(trailerAt + 10, 'bad magic, expected "PAXF"');
    if (!PAX_VERSIONS.includes(t.version as PaxFormat)) throw bad(trailerAt + 8, `format version ${t.version}, expected ${PAX_VERSIONS.join(' or ')}`);
    if (t.footerLength !== file.footerLength) throw bad(trailerAt, `trailer footer length ${t.footerLength}, snapshot says ${file.footerLength}`);
    if (t.footerCrc !== file.footerCrc >>> 0) throw checksumMismatch('pax trailer footer crc differs from the snapshot', path, trailerAt + 4, t.footerCrc, file.footerCrc >>> 0);
    const footerBytes = tail.subarray(0, file.footerLength);
    const actual = crc32(footerBytes) >>> 0;
    if (actual !== t.footerCrc) throw checksumMismatch('pax footer', path, file.footerOffset, actual, t.footerCrc);
    let footer: FooterJson;
    try {
      footer = JSON.parse(Buffer.from(footerBytes.buffer, footerBytes.byteOffset, footerBytes.byteLength).toString('utf8')) as FooterJson;
    } catch (e) {
      throw bad(file.footerOffset, `footer is not JSON: ${(e as Error).message}`);
    }
    validateFooter(footer, t.version as PaxFormat, file, fields, (what) => bad(file.footerOffset, `footer: ${what}`));
    return new PaxFileReader(store, path, footer, fields, tailLength);
  }

  get bytesRead(): number {
    return this.read;
  }

  get groupCount(): number {
    return this.footer.groups.length;
  }

  groupRows(g: number): number {
    return this.group(g).rows;
  }

  zoneCount(g: number): number {
    const rows = this.group(g).rows;
    return Math.ceil(rows / this.zoneRows);
  }

  hasField(fieldId: number): boolean {
    return this.chunkIndex.has(fieldId);
  }

  zoneStats(g: number, fieldId: number, z: number): ColumnStats {
    const zone = this.chunk(g, fieldId).zones[z];
    if (zone === undefined) throw new RangeError(`zone ${z} of group ${g} does not exist`);
    return statsFromJson(this.field(fieldId).type, zone.stats);
  }

  /** Statistics of the whole chunk of `fieldId` in group g, as the footer stores them. */
  chunkStats(g: number, fieldId: number): ColumnStats {
    return statsFromJson(this.field(fieldId).type, this.chunk(g, fieldId).stats);
  }

  /**
   * One ranged read of the chunk (all zones of the column in group g). With `buffers`, zones are
   * decoded into them: zone(z) is then valid until the next zone decoded into the same buffers
   * (by this chunk or another), and asking for it again after that decodes it again.
   */
  async loadChunk(g: number, fieldId: number, buffers?: ZoneBuffers): Promise<PaxChunk> {
    const c = this.chunk(g, fieldId);
    const type = this.field(fieldId).type;
    let bytes: Uint8Array = new Uint8Array(0);
    if (c.length > 0) {
      bytes = await this.store.read(this.path, c.offset, c.length);
      if (bytes.byteLength !== c.length) throw corruption(this.path, c.offset + bytes.byteLength, `pax chunk: read ${bytes.byteLength} bytes, expected ${c.length}`);
      this.read += c.length;
    }
    const path = this.path;
    const format = this.footer.format;
    const cache: (Column | undefined)[] = new Array(c.zones.length);
    // With buffers: the one zone decoded last, and the buffers' epoch it was decoded at.
    let lastZone = -1;
    let lastEpoch = -1;
    let last: Column | null = null;
    return {
      zoneCount: c.zones.length,
      storedBytes: c.length,
      zone(z: number): Column {
        if (buffers === undefined) {
          const hit = cache[z];
          if (hit !== undefined) return hit;
        } else if (last !== null && lastZone === z && lastEpoch === buffers.epoch) return last;
        const meta: ZoneJson | undefined = c.zones[z];
        if (meta === undefined) throw new RangeError(`zone ${z} of a chunk with ${c.zones.length} zones`);
        const at = meta.offset - c.offset;
        const stored = bytes.subarray(at, at + meta.stored);
        if (buffers === undefined) return (cache[z] = decodeZone(stored, meta, type, path, format, FRESH_MEMORY));
        lastEpoch = buffers.next();
        lastZone = z;
        last = decodeZone(stored, meta, type, path, format, buffers);
        return last;
      },
    };
  }

  private group(g: number) {
    const grp = this.footer.groups[g];
    if (grp === undefined) throw new RangeError(`group ${g} of a file with ${this.footer.groups.length} groups`);
    return grp;
  }

  private chunk(g: number, fieldId: number): ChunkJson {
    const i = this.chunkIndex.get(fieldId);
    if (i === undefined) throw new RangeError(`field ${fieldId} is not in this file`);
    return this.group(g).chunks[i]!;
  }

  private field(fieldId: number): Field {
    const f = this.fieldsById.get(fieldId);
    if (f === undefined) throw new RangeError(`field ${fieldId} is not in the schema given to open()`);
    return f;
  }
}

const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;

/**
 * Structural checks of a footer whose crc matched: the footer is what this writer writes, the
 * chunks and zones tile the data region, and it agrees with the snapshot and schema.
 */
function validateFooter(f: FooterJson, version: PaxFormat, file: DataFileJson, fields: readonly Field[], bad: (what: string) => Error): void {
  if (typeof f !== 'object' || f === null || f.format !== version) throw bad(`format ${String((f as FooterJson | null)?.format)}, the trailer says ${version}`);
  if (!isCount(f.zoneRows) || f.zoneRows < 8 || f.zoneRows % 8 !== 0 || f.zoneRows > MAX_ZONE_ROWS) throw bad(`zone rows ${String(f.zoneRows)}`);
  if (!Array.isArray(f.fields) || !Array.isArray(f.groups)) throw bad('missing fields or groups');
  if (f.groups.length !== file.groups.length) throw bad(`${f.groups.length} groups, snapshot says ${file.groups.length}`);
  const types = new Map(fields.map((x) => [x.fieldId, typeName(x.type)]));
  const seen = new Set<number>();
  for (const x of f.fields) {
    if (!isCount(x.fieldId) || seen.has(x.fieldId)) throw bad(`bad or repeated field id ${String(x.fieldId)}`);
    seen.add(x.fieldId);
    const want = types.get(x.fieldId);
    if (want !== undefined && want !== x.type) throw bad(`field ${x.fieldId} is ${x.type} in the file, ${want} in the schema`);
  }
  let pos = 0;
  f.groups.forEach((g, gi) => {
    if (!isCount(g.rows) || g.rows !== file.groups[gi]!.rows) throw bad(`group ${gi} has ${String(g.rows)} rows, snapshot says ${file.groups[gi]!.rows}`);
    if (!Array.isArray(g.chunks) || g.chunks.length !== f.fields.length) throw bad(`group ${gi} has ${g.chunks?.length} chunks for ${f.fields.length} fields`);
    const zoneCount = Math.ceil(g.rows / f.zoneRows);
    g.chunks.forEach((c, ci) => {
      const where = `group ${gi} chunk ${ci}`;
      if (c.fieldId !== f.fields[ci]!.fieldId) throw bad(`${where} is field ${c.fieldId}, expected ${f.fields[ci]!.fieldId}`);
      if (c.offset !== pos || !isCount(c.length)) throw bad(`${where} at ${c.offset}, expected ${pos}`);
      if (!Array.isArray(c.zones) || c.zones.length !== zoneCount) throw bad(`${where} has ${c.zones?.length} zones, expected ${zoneCount}`);
      c.zones.forEach((z, zi) => {
        const rows = Math.min(f.zoneRows, g.rows - zi * f.zoneRows);
        if (z.offset !== pos) throw bad(`${where} zone ${zi} at ${z.offset}, expected ${pos}`);
        if (!isCount(z.stored) || !isCount(z.decoded) || !isCount(z.crc) || z.rows !== rows || !isCount(z.nulls) || z.nulls > rows)
          throw bad(`${where} zone ${zi}: bad sizes or counts`);
        if (!CODECS.includes(z.codec)) throw bad(`${where} zone ${zi}: unknown codec ${String(z.codec)}`);
        if (z.codec === 'none' && z.stored !== z.decoded) throw bad(`${where} zone ${zi}: stored ${z.stored} bytes uncompressed, decoded ${z.decoded}`);
        pos += z.stored;
      });
      if (pos - c.offset !== c.length) throw bad(`${where}: length ${c.length}, zones add up to ${pos - c.offset}`);
    });
  });
  if (pos !== file.footerOffset) throw bad(`data ends at ${pos}, footer starts at ${file.footerOffset}`);
}

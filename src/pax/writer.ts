/**
 * Writes a PAX file: row groups of column chunks cut into zones, then the footer and the
 * trailer. Bytes of a file (docs/FORMAT.md "PAX files"):
 *
 *   0                 zone blobs: group 0 { field 0 { zone 0 | zone 1 | … } | field 1 { … } | … }
 *                     | group 1 { … } | …          (each zone compressed on its own, crc32 in the footer)
 *   footerOffset      footer: UTF-8 JSON (FooterJson in ./footer.ts)
 *   size - 14         trailer: footerLength u32 | footerCrc u32 | version u16 | "PAXF"
 *
 * There is no header: every byte is a zone (its crc), the footer (its crc, repeated in the
 * trailer and the snapshot) or the trailer (checked against the snapshot).
 *
 *   const w = await PaxFileWriter.create(store, 't/data/0001.pax', fields, { codec: 'lz4', zoneRows: 16384 });
 *   const g = await w.writeGroup(columns);     // GroupJson: rows, live, stats per fieldId
 *   const file = await w.finish('data/0001.pax'); // DataFileJson for the snapshot
 */
import { crc32 } from 'node:zlib';
import { type Column, assert, usage, type Field, typeName, columnBytes } from '../types/index.js';
import type { DataFileJson, GroupJson, ObjectStore, ObjectWriter } from '../storage/index.js';
import type { statsToJson } from '../stats/index.js';
import { encodeChunk, type EncodedChunk } from './chunk-encode.js';
import { encodePool } from './encode-pool.js';
import { CODECS, type CodecName } from './codec.js';
import { type ChunkJson, type FooterGroupJson, type FooterJson, type PaxFormat, type ZoneJson, TRAILER_SIZE, defaultFormat, writeTrailer } from './footer.js';

export interface PaxWriterOptions {
  codec: 'lz4' | 'zstd' | 'none';
  zoneRows: number;
  /** 2 (v2 zones: lightweight encodings) unless given, or PAXD_PAX_FORMAT=1 (./footer.ts defaultFormat). */
  format?: PaxFormat;
}

export const DEFAULT_ZONE_ROWS = 16384;
/** Largest zone: bounded so that a zone's u16 dictionary indices and sizes stay small. */
export const MAX_ZONE_ROWS = 1 << 20;

export class PaxFileWriter {
  private readonly out: ObjectWriter;
  private readonly fields: readonly Field[];
  private readonly codec: CodecName;
  private readonly zoneRows: number;
  private readonly format: PaxFormat;
  private readonly footerGroups: FooterGroupJson[] = [];
  private readonly groups: GroupJson[] = [];
  private pos = 0;
  private busy = false;
  private done = false;

  private constructor(out: ObjectWriter, fields: readonly Field[], opts: PaxWriterOptions) {
    this.out = out;
    this.fields = fields;
    this.codec = opts.codec;
    this.zoneRows = opts.zoneRows;
    this.format = opts.format ?? defaultFormat();
  }

  static async create(store: ObjectStore, path: string, fields: readonly Field[], opts: PaxWriterOptions): Promise<PaxFileWriter> {
    if (opts.format !== undefined && opts.format !== 1 && opts.format !== 2) throw usage(`unknown PAX format ${String(opts.format)} (expected 1 or 2)`);
    if (!CODECS.includes(opts.codec)) throw usage(`unknown codec "${String(opts.codec)}" (expected lz4, zstd or none)`);
    if (!Number.isInteger(opts.zoneRows) || opts.zoneRows < 8 || opts.zoneRows % 8 !== 0 || opts.zoneRows > MAX_ZONE_ROWS)
      throw usage(`zone rows must be a multiple of 8 between 8 and ${MAX_ZONE_ROWS}, got ${opts.zoneRows}`);
    return new PaxFileWriter(await store.create(path), fields, opts);
  }

  get bytesWritten(): number {
    return this.pos;
  }

  get groupCount(): number {
    return this.groups.length;
  }

  /** Encodes one row group from equal-length columns, one per field in field order, and writes it. */
  async writeGroup(columns: readonly Column[]): Promise<GroupJson> {
    assert(columns.length === this.fields.length, `writeGroup: ${columns.length} columns for ${this.fields.length} fields`);
    return this.writeGroupFrom(columns.length === 0 ? 0 : columns[0]!.length, (c) => columns[c]!);
  }

  /**
   * Like writeGroup, but asks for each column only when it is about to be encoded, so that a
   * caller can build one column at a time and drop what it buffered for it: the group then
   * never needs to exist twice in memory (sinks bound their memory this way).
   */
  async writeGroupFrom(rows: number, column: (c: number) => Column | Promise<Column>, opts: { owned?: boolean } = {}): Promise<GroupJson> {
    assert(!this.done, 'writeGroup after finish/abort');
    assert(!this.busy, 'writeGroup while another writeGroup is running');
    this.busy = true;
    try {
      // Columns the caller hands over (owned) are encoded in the encoder threads, several at a
      // time; the chunks are written in field order as they come back.
      const pool = opts.owned === true ? encodePool() : null;
      const window = pool === null ? 0 : pool.size + 1;
      const encoded: Promise<EncodedChunk>[] = [];
      const chunks: ChunkJson[] = [];
      const stats: Record<string, ReturnType<typeof statsToJson>> = {};
      const writeNext = async (): Promise<void> => {
        const c = chunks.length;
        const chunk = await this.place(await encoded[c]!, this.fields[c]!.fieldId);
        chunks.push(chunk);
        stats[String(this.fields[c]!.fieldId)] = { ...chunk.stats }; // the caller may update its copy (deletes)
      };
      for (let c = 0; c < this.fields.length; c++) {
        const col = await column(c);
        const f = this.fields[c]!;
        assert(col.length === rows, `writeGroup: column ${f.name} has ${col.length} rows, expected ${rows}`);
        assert(typeName(col.type) === typeName(f.type), `writeGroup: column ${f.name} is ${typeName(col.type)}, field is ${typeName(f.type)}`);
        if (pool?.takes(columnBytes(col)) === true) {
          const p = pool.encode(col, this.zoneRows, this.codec, this.format);
          p.catch(() => undefined); // surfaced when written
          encoded.push(p);
        } else encoded.push(Promise.resolve(encodeChunk(col, this.zoneRows, this.codec, this.format)));
        while (encoded.length - chunks.length > window) await writeNext();
      }
      while (chunks.length < encoded.length) await writeNext();
      this.footerGroups.push({ rows, chunks });
      const g: GroupJson = { rows, live: rows, columns: stats };
      this.groups.push(g);
      return g;
    } finally {
      this.busy = false;
    }
  }

  /** Writes an encoded chunk at the end of the file; returns its footer entry. */
  private async place(e: EncodedChunk, fieldId: number): Promise<ChunkJson> {
    const offset = this.pos;
    let at = offset;
    const zones: ZoneJson[] = e.zones.map((z) => {
      const placed: ZoneJson = { offset: at, ...z };
      at += z.stored;
      return placed;
    });
    // Zone by zone: stores coalesce small writes, and a concatenation would be one more copy.
    for (const b of e.blobs) await this.write(b);
    return { fieldId, offset, length: at - offset, stats: e.stats, zones };
  }

  private async write(bytes: Uint8Array): Promise<void> {
    await this.out.write(bytes);
    this.pos += bytes.byteLength;
  }

  /** Writes footer + trailer and makes the file durable. */
  async finish(pathInTable: string): Promise<DataFileJson> {
    assert(!this.done, 'finish after finish/abort');
    assert(!this.busy, 'finish while writeGroup is running');
    this.done = true;
    const footer: FooterJson = {
      format: this.format,
      codec: this.codec,
      zoneRows: this.zoneRows,
      fields: this.fields.map((f) => ({ fieldId: f.fieldId, type: typeName(f.type) })),
      groups: this.footerGroups,
    };
    const json = Buffer.from(JSON.stringify(footer), 'utf8');
    const footerCrc = crc32(json) >>> 0;
    const tail = new Uint8Array(json.byteLength + TRAILER_SIZE);
    tail.set(json, 0);
    writeTrailer(tail, json.byteLength, json.byteLength, footerCrc, this.format);
    const footerOffset = this.pos;
    await this.write(tail);
    await this.out.close();
    return { path: pathInTable, size: this.pos, footerOffset, footerLength: json.byteLength, footerCrc, groups: this.groups };
  }

  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.out.abort();
  }
}

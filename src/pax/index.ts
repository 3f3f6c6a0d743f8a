/**
 * PAX files: row groups of column chunks cut into zones (compressed, checksummed, randomly
 * accessible), with a JSON footer of zone and chunk statistics. Layout: docs/FORMAT.md.
 */
export { PaxFileWriter, DEFAULT_ZONE_ROWS, type PaxWriterOptions } from './writer.js';
export { PaxFileReader, type PaxChunk } from './reader.js';
export type { CodecName } from './codec.js';
export type { PaxFormat, ZoneEncoding, ZoneJson } from './footer.js';
export { encodeChunk, type EncodedChunk } from './chunk-encode.js';
export { encodePool } from './encode-pool.js';
export { decodeZone, decodeCounters } from './zone-decode.js';
export { ZoneBuffers, FRESH_MEMORY, type ZoneMemory } from './zone-memory.js';
export { MAX_ZONE_ROWS } from './writer.js';

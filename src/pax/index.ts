/**
 * PAX files: row groups of column chunks cut into zones (compressed, checksummed, randomly
 * accessible), with a JSON footer of zone and chunk statistics. Layout: docs/FORMAT.md.
 */
export { PaxFileWriter, DEFAULT_ZONE_ROWS, type PaxWriterOptions } from './writer.js';
export { PaxFileReader, type PaxChunk } from './reader.js';
export type { CodecName } from './codec.js';

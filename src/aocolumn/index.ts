/**
 * ao_column segments (docs/FORMAT.md "ao_column segments"): per-column append-only segment
 * files of checksummed blocks, the block directory in the snapshot (segment claims: src/storage/claim.ts).
 */
export { AoAppender, MAX_SEGMENT_BYTES, blockRowsOf, type AoAppenderOptions } from './appender.js';
export { AoStripeReader } from './reader.js';
export { BLOCK_HEADER_BYTES, MAX_BLOCK_ROWS, segmentPath } from './block.js';

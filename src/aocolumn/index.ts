/**
 * ao_column segments (docs/FORMAT.md "ao_column segments"): per-column append-only segment
 * files of checksummed blocks, the block directory in the snapshot, segment claims.
 */
export { AoAppender, MAX_SEGMENT_BYTES, blockRowsOf, type AoAppenderOptions } from './appender.js';
export { AoStripeReader } from './reader.js';
export { BLOCK_HEADER_BYTES, MAX_BLOCK_ROWS, segmentPath } from './block.js';
export { CLAIMS_DIR, parseClaimPath } from './claim.js';

/**
 * The public surface of src/scan: batch readers (the source contract), predicates, running
 * bounds, top-N, aggregates from statistics, delete vectors.
 */
export { TableScan, DEFAULT_BATCH_ROWS, emptyStats } from './reader.js';
export type { BatchReader, BatchPosition, ScanOptions, ScanOrder, ScanStats } from './reader.js';
export { P, bindPredicate, describePredicate } from './predicate.js';
export type { Predicate, BoundPredicate, CmpOp } from './predicate.js';
export { classify, type Pruning } from './prune.js';
export type { BoundOp, BoundOptions } from './bounds.js';
export { BoundedHeap } from './heap.js';
export { topN } from './topn.js';
export type { OrderKey, TopNOptions, TopNResult } from './topn.js';
export { aggregate } from './aggregate.js';
export type { AggFn, AggSpec, AggregateOptions, AggregateResult } from './aggregate.js';
export { formatCtid, parseCtid, isTidText, ctidBlock, ctidOffset, type RowId } from './ctid.js';
export { isAoStripe, openSource, type GroupSource } from './source.js';
export { compilePredicate } from './compile.js';
export { constantColumn, constantStats, groupStats } from './unit-stats.js';
export { deletedMask, loadDeleted, storeDeleted } from './delete-vector.js';
export { gather, liveSelection } from './gather.js';
export { holds } from './prune.js';
export type { Node } from './predicate.js';

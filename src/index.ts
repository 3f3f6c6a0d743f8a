/**
 * paxd's public library API. The CLI and the daemon use nothing else.
 *
 *   import { Database, columnOf } from 'paxd';
 *   const db = await Database.open('./paxd-data');
 *   const t = await db.createTable('events', [{ name: 'id', type: 'int8', notNull: true }, { name: 'kind', type: 'text' }]);
 *   const sink = t.sink();
 *   await sink.write({ length: 2, columns: [columnOf({ id: 'int8' }, [1n, 2n]), columnOf({ id: 'text' }, ['a', null])], selection: null });
 *   await sink.commit();          // one snapshot, all or nothing
 */
export { Database, Table, DEFAULT_DATA, DEFAULT_OPTIONS } from './table/index.js';
export type { ColumnSpec, CreateTableOptions, TableInfo } from './table/index.js';
export { TableSink } from './insert/index.js';
export type { SinkOptions, CommitResult } from './insert/index.js';
export { readArrow } from './insert/readers.js';
export type { Format, Reject } from './insert/readers.js';
export { TableScan, DEFAULT_BATCH_ROWS, emptyStats, P, bindPredicate, describePredicate, classify, topN, aggregate } from './scan/index.js';
export { formatCtid, parseCtid, isTidText, ctidBlock, ctidOffset } from './scan/index.js';
export type { BatchReader, BatchPosition, ScanOptions, ScanOrder, ScanStats, Predicate, BoundPredicate, CmpOp, Pruning, BoundOp, BoundOptions } from './scan/index.js';
export type { OrderKey, TopNOptions, TopNResult, AggFn, AggSpec, AggregateOptions, AggregateResult, RowId } from './scan/index.js';
export { deleteRows, compactTable, checkTable, WriteSet, serializationFailure } from './table/index.js';
export type { DeleteResult, CompactOptions, CompactResult, CheckResult, CheckProblem, GroupRef, WriteMark } from './table/index.js';
export { ingestFiles } from './table/ingest.js';
export type { IngestOptions, IngestResult, IngestProgress } from './table/ingest.js';
export { tableStats } from './table/index.js';
export type { StatsReport, ColumnReport, GroupReport } from './table/index.js';
export type { ObjectStore, ObjectWriter, ObjectInfo, SnapshotJson } from './storage/index.js';
export { LocalStore } from './storage/index.js';
export * from './types/index.js';
export { arrowType, columnToArrow, columnFromArrow } from './types/arrow.js';

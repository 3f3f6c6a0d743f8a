/**
 * src/storage: object stores (local disk, S3), snapshots and the atomic commit loop,
 * DROP TABLE's tombstone, vacuum, checksums. What other layers may use; nothing else is imported from deeper files.
 */
export type { ObjectInfo, ObjectStore, ObjectWriter } from './store.js';
export { ForwardingStore } from './forwarding.js';
export type {
  AoBlockJson,
  AoJson,
  AoSegmentJson,
  ColumnStatsJson,
  DataFileJson,
  FieldJson,
  GroupJson,
  IngestedFileJson,
  SnapshotJson,
  StatJson,
  TableOptionsJson,
  ViewJson,
} from './snapshot-types.js';
export { crc32 } from './checksum.js';
export { decodeFrame, encodeFrame, FRAME_HEADER_BYTES, type FrameKind } from './frame.js';
export { LocalStore, type LocalStoreOptions } from './local.js';
export { nodeFs, writeAll, writeFileDurable, type FsDirEntry, type FsFile, type FsOps, type FsStat, type OpenMode } from './fs-ops.js';
export { FaultFs, InjectedFault, FAULT_CATEGORIES, type FaultCategory, type FaultCode } from './faulty.js';
export { decodeSnapshot, encodeSnapshot, snapshotIdOf, snapshotPath } from './snapshot.js';
export {
  checkTableName,
  commit,
  commitTables,
  createTable,
  currentRoot,
  incarnationOf,
  isDropped,
  isView,
  latestSnapshot,
  latestSnapshotInfo,
  listSnapshots,
  listTables,
  newestSnapshotInfo,
  readSnapshot,
  snapshotInRoot,
  type BuildSnapshot,
  type TableWrite,
  type CommitOptions,
  type LatestSnapshot,
  type ListTablesOptions,
} from './catalog.js';
export { dropTable, tombstoneWrite } from './drop.js';
export { ROOT_DIR, rootPath, rootIdOf, listRootIds, readRootOrNull, decodeRoot, type RootEntry, type RootJson } from './root.js';
export { newFileName } from './file-name.js';
export { CLAIMS_DIR, parseClaimPath, tryClaim, releaseClaim, type Claim } from './claim.js';
export { verifyState } from './table-state.js';
export { fileCounts, type FileCounts } from './file-counts.js';
export { vacuum, referencedPaths, type VacuumOptions, type VacuumResult } from './vacuum.js';
export { openStore } from './open.js';
export { DEFAULT_INGESTED_WINDOW, alreadyIngested, findIngested, isAlreadyIngested, sameFile, withIngested } from './ingested.js';
// Types only: openStore loads ./s3.ts (and the AWS SDK) when a root is s3://, not before.
export type { S3Store, S3StoreOptions, S3Metrics } from './s3.js';
export { fieldToJson, fieldsOf } from './schema.js';
export { DEFAULT_DATA } from './open.js';
export { DEFAULT_VACUUM_GRACE_MS } from './vacuum.js';
export { TEMP_DIR, processTempDir, sweepTempArea, tempAreaOf } from './temp-area.js';

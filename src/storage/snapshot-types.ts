/**
 * The content of a snapshot: the whole committed state of a table, as JSON inside the framed
 * file that ./snapshot.ts reads and writes. Group statistics live here (not only in file
 * footers) so that planning, pruning and aggregates from statistics need no data-file read.
 *
 * Statistic values are kept as `StatJson` (see src/stats/json.ts for the encoding per type):
 * exact, and never JSON numbers where a number could lose precision.
 */

/** One column's statistics over a zone, group or file, as stored. */
export interface ColumnStatsJson {
  /** Rows covered (including NULLs). */
  rows: number;
  nulls: number;
  /** NaN count, floats (and unconstrained numeric) only. */
  nans?: number;
  /** Smallest non-NULL, non-NaN value, or absent when there is none or the type has no order. */
  min?: StatJson;
  max?: StatJson;
  /** False when min/max are only bounds (truncated strings, rows deleted since). */
  minExact?: boolean;
  maxExact?: boolean;
  /** Exact sum of non-NULL values for numeric types (floats: the sum in storage order). */
  sum?: StatJson;
}

export type StatJson = string | number | boolean;

export interface FieldJson {
  name: string;
  /** Canonical type name: int8, varchar(20), numeric(12,2). */
  type: string;
  notNull: boolean;
  fieldId: number;
  /** Default in PostgreSQL text form; absent means NULL. */
  default?: string;
}

export interface GroupJson {
  rows: number;
  /** Rows still visible: rows minus deleted. */
  live: number;
  /** Statistics per column, keyed by fieldId. Columns added later are absent. */
  columns: Record<string, ColumnStatsJson>;
  /** Deleted row positions within the group, sorted, when small; see `deletesPath`. */
  deleted?: number[];
  /** Path of a delete-vector object holding the positions, when large. */
  deletesPath?: string;
  /**
   * ao_column only: the group's block of each column, keyed by fieldId (docs/FORMAT.md
   * "ao_column segments"). Columns added later are absent, as in `columns`.
   */
  blocks?: Record<string, AoBlockJson>;
}

/** Where one ao_column block lies: segment `<table>/ao/<fieldId>/<seg>.seg`, bytes [offset, offset + length). */
export interface AoBlockJson {
  seg: number;
  offset: number;
  /** Header plus stored bytes. */
  length: number;
}

/**
 * One committed segment set of an ao_column table: segment number `segno` of every column,
 * `<table>/ao/<fieldId>/<segno>.seg`, with the committed logical EOF of each. Bytes past an
 * EOF (a crashed append) are never read.
 */
export interface AoSegmentJson {
  segno: number;
  /** Commits that appended to this segment set; an appender claims (segno, gen) before writing. */
  gen: number;
  /** Committed logical EOF per fieldId. A column without an entry has no bytes in this set. */
  eof: Record<string, number>;
}

/** The ao_column part of a snapshot: the segments and their EOFs (the block directory is in the groups). */
export interface AoJson {
  segments: AoSegmentJson[];
}

export interface DataFileJson {
  /**
   * Path relative to the table folder, e.g. "data/0000000005-1f2e3d4c.pax". For an ao_column
   * stripe (`layout: 'ao_column'`: the groups one append wrote) an identity "ao/<name>" that
   * names no object; its bytes are blocks in segments (`GroupJson.blocks`).
   */
  path: string;
  /** Bytes: the file's size; for an ao_column stripe, the bytes of its blocks. */
  size: number;
  /** Present (and 'ao_column') for an ao_column stripe; absent for a PAX file. */
  layout?: 'ao_column';
  /** PAX only (0 for an ao_column stripe). */
  footerOffset: number;
  footerLength: number;
  footerCrc: number;
  groups: GroupJson[];
}

export interface SnapshotJson {
  format: 1;
  table: string;
  /** Snapshot number; the file is _snapshots/<id, 20 digits>.snap. */
  id: number;
  /** The snapshot this one was built on, or 0 for the table's first. */
  parent: number;
  createdAt: string;
  /**
   * 'drop' is a tombstone (DROP TABLE, ./drop.ts): the table does not exist from this snapshot
   * on; it has no files, and keeps the dropped table's schema only for the record.
   */
  operation: 'create' | 'append' | 'delete' | 'compact' | 'add_column' | 'drop' | 'replace_view';
  /**
   * Id of the 'create' snapshot that began this incarnation of the table, when it was created
   * again after DROP TABLE (absent: 1, the first). Carried forward by every commit; a writer
   * whose work belongs to another incarnation fails with 42P01 (catalog.ts `commit`).
   */
  incarnation?: number;
  layout: 'pax' | 'ao_column';
  options: TableOptionsJson;
  fields: FieldJson[];
  nextFieldId: number;
  files: DataFileJson[];
  /** ao_column tables: segments and their committed EOFs. */
  ao?: AoJson;
  /**
   * Identities of the most recently ingested input files whose rows this table holds
   * (exactly-once ingest from the daemon's inbox), oldest first, bounded to a window
   * (./ingested.ts). Every later commit carries the list forward unchanged.
   */
  ingested?: IngestedFileJson[];
  /** Free-form commit info: who, what command. */
  summary?: Record<string, string | number>;
  /**
   * Present when the relation is a view (CREATE VIEW, docs/FORMAT.md "Views"): `fields` are its
   * columns, fixed at CREATE, and it has no files. Absent for a table.
   */
  view?: ViewJson;
}

/**
 * A view's definition: the query as its creator wrote it, parsed and bound again at each use
 * (so it reads the tables as they are then), and the relations it reads, for DROP's
 * dependency check (2BP01 without CASCADE).
 */
export interface ViewJson {
  /** The SELECT, as written after AS (`SELECT a, b FROM t WHERE a > 1`). */
  query: string;
  /**
   * The query's own result column names at CREATE (before the view's column list renames
   * them): at each use the query must still begin with these columns.
   */
  columns: string[];
  /** Tables and views the query reads, sorted, each once. */
  dependsOn: string[];
}

/** One ingested input file, as recorded by the commit that loaded its rows. */
export interface IngestedFileJson {
  /** The file's name (no folder): `events-0001.csv.gz`. */
  name: string;
  /** Its size in bytes as found (compressed bytes for .gz/.zst). */
  size: number;
  /** Content hash: `sha256:<64 hex digits>`. */
  hash: string;
}

export interface TableOptionsJson {
  codec: 'lz4' | 'zstd' | 'none';
  rowGroupRows: number;
  rowGroupBytes: number;
  zoneRows: number;
}

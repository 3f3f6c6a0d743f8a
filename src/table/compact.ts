/**
 * Compaction (`paxd compact TABLE`): rewrites the data files that hold deleted rows,
 * and small files (several files under one row group's worth of rows), into new files without
 * the deleted rows, committed as one new snapshot.
 *
 *   const r = await table.compact();   // { filesRewritten, filesWritten, rowsWritten, rowsDropped, snapshot }
 *
 * Files are the unit (a file's groups are addressed by their index in its footer, so a file
 * is kept or replaced whole). The live rows of the chosen files are copied in storage order
 * into row groups of `rowGroupRows` rows; the new files take the place of the first rewritten
 * file in the snapshot's file list, so storage order — and with it top-N tie-breaks — is kept.
 *
 * Commit rebases over concurrent work: appends commute (their files are kept); rows deleted
 * from a rewritten file after compaction read it are deleted again in the new files (their
 * positions mapped through the copy), with statistics recomputed as a delete does. A rewritten
 * file that is gone from the new base (another compaction won) fails the commit with 40001,
 * and the new files are left for `paxd vacuum`.
 *
 * ao_column tables: a stripe (one append's groups) is the unit, as a file is for PAX; small
 * means fewer rows than one full block (16,384 rows by default), so many small appends are
 * merged into full blocks. The merged stripes are written to a new segment set (never into
 * the sets being compacted: a live set would keep the dead blocks forever), and sets no
 * stripe references any more leave the snapshot, for vacuum to delete their files once no
 * reader can still have them pinned.
 */
import { type Column, concatRanges, type ColumnRange, PaxdError, SQLSTATE } from '../types/index.js';
import { type ObjectStore, type DataFileJson, type GroupJson, type SnapshotJson, commit, latestSnapshot, type CommitOptions, fieldsOf, type AoJson, newFileName } from '../storage/index.js';
import { PaxFileWriter } from '../pax/index.js';
import { AoAppender, blockRowsOf } from '../aocolumn/index.js';
import { DEFAULT_FILE_BYTES } from '../insert/index.js';
import { deletedMask, loadDeleted, liveSelection } from '../scan/index.js';
import { GroupRows, withDeletes } from './delete.js';

export interface CompactOptions extends CommitOptions {
  /** A file with fewer rows than this is small; small files are merged when there are two or more. Default: rowGroupRows (ao_column: one block's rows). */
  smallFileRows?: number;
  /** Roll over to a new file at this many bytes (default 512 MiB, as the sink). */
  fileBytes?: number;
}

export interface CompactResult {
  snapshot: SnapshotJson;
  filesRewritten: number;
  filesWritten: number;
  rowsWritten: number;
  /** Deleted rows dropped from the rewritten files. */
  rowsDropped: number;
}

/** Where the live rows of one source group went. */
interface SourceGroup {
  path: string;
  group: number;
  /** Deleted positions when compaction read the group. */
  deleted: Uint32Array | null;
  /** New global row index (over the new files' rows) of the group's first live row. */
  newStart: number;
}

export async function compactTable(store: ObjectStore, table: string, opts: CompactOptions = {}): Promise<CompactResult> {
  const base0 = await latestSnapshot(store, table);
  const fields = fieldsOf(base0);
  const isAo = base0.layout === 'ao_column';
  const small = opts.smallFileRows ?? (isAo ? blockRowsOf(base0.options) : base0.options.rowGroupRows);
  const fileRows = (f: DataFileJson) => f.groups.reduce((n, g) => n + g.rows, 0);
  const smallFiles = base0.files.filter((f) => fileRows(f) < small);
  const chosen = base0.files.filter((f) => f.groups.some((g) => g.live < g.rows) || (smallFiles.length >= 2 && fileRows(f) < small));
  if (chosen.length === 0) return { snapshot: base0, filesRewritten: 0, filesWritten: 0, rowsWritten: 0, rowsDropped: 0 };

  // ---- copy the live rows into new files ----
  const written: DataFileJson[] = [];
  const sources: SourceGroup[] = [];
  let writer: PaxFileWriter | AoAppender | null = null;
  let appender: AoAppender | null = null;
  let writerPath = '';
  let pending: ColumnRange[][] = fields.map(() => []);
  let pendingRows = 0;
  let rowsWritten = 0;
  let rowsDropped = 0;
  const rowGroupRows = base0.options.rowGroupRows;
  const flush = async () => {
    if (pendingRows === 0) return;
    if (writer === null) {
      if (isAo) {
        appender ??= await AoAppender.open(store, table, fields, base0.options, base0, { freshSegments: true });
        writerPath = `ao/${newFileName()}`;
        writer = appender;
      } else {
        writerPath = `data/${newFileName()}.pax`;
        writer = await PaxFileWriter.create(store, `${table}/${writerPath}`, fields, { codec: base0.options.codec, zoneRows: base0.options.zoneRows });
      }
    }
    const cols: Column[] = fields.map((f, i) => concatRanges(f.type, pending[i]!));
    const rows = pendingRows;
    pending = fields.map(() => []);
    pendingRows = 0;
    await writer.writeGroupFrom(rows, (c) => cols[c]!);
    if (writer.bytesWritten >= (opts.fileBytes ?? DEFAULT_FILE_BYTES)) await finishFile();
  };
  const finishFile = async () => {
    if (writer === null) return;
    const w: PaxFileWriter | AoAppender = writer;
    writer = null;
    written.push(await w.finish(writerPath));
  };
  try {
    for (const file of chosen) {
      for (let g = 0; g < file.groups.length; g++) {
        const rows = await GroupRows.open(store, table, fields, file, g);
        sources.push({ path: file.path, group: g, deleted: rows.deleted, newStart: rowsWritten + pendingRows });
        rowsDropped += rows.meta.rows - rows.meta.live;
        const mask = rows.deleted === null ? null : deletedMask(rows.deleted, rows.meta.rows);
        for (let z = 0; z < rows.zoneCount; z++) {
          const n = rows.zoneLength(z);
          const sel = liveSelection(mask, z * rows.zoneRows, n);
          const runs = toRuns(sel, n);
          if (runs.length === 0) continue;
          const zoneCols = await Promise.all(fields.map((f) => rows.zone(f, z)));
          for (const [start, len] of runs) {
            let at = start;
            let left = len;
            while (left > 0) {
              const take = Math.min(left, rowGroupRows - pendingRows);
              zoneCols.forEach((c, i) => pending[i]!.push({ column: c, start: at, length: take }));
              pendingRows += take;
              at += take;
              left -= take;
              if (pendingRows >= rowGroupRows) {
                rowsWritten += pendingRows;
                await flush();
              }
            }
          }
        }
      }
    }
    rowsWritten += pendingRows;
    await flush();
    await finishFile();
    await (appender as AoAppender | null)?.close();
  } catch (e) {
    const w = writer as PaxFileWriter | AoAppender | null;
    if (w !== null) await w.abort().catch(() => undefined);
    await (appender as AoAppender | null)?.abort().catch(() => undefined);
    for (const f of written) if (f.layout === undefined) await store.delete(`${table}/${f.path}`).catch(() => undefined);
    throw e;
  }
  const ao = appender as AoAppender | null;

  // Global new row index -> (new file, group, row).
  const starts: { file: number; group: number; start: number; rows: number }[] = [];
  let at = 0;
  written.forEach((f, fi) =>
    f.groups.forEach((g, gi) => {
      starts.push({ file: fi, group: gi, start: at, rows: g.rows });
      at += g.rows;
    }),
  );
  const locate = (row: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]!.start <= row) lo = mid;
      else hi = mid - 1;
    }
    return starts[lo]!;
  };
  const chosenPaths = new Set(chosen.map((f) => f.path));

  const build = async (base: SnapshotJson): Promise<SnapshotJson> => {
    const byPath = new Map(base.files.map((f) => [f.path, f]));
    for (const p of chosenPaths)
      if (!byPath.has(p))
        throw new PaxdError('conflict', SQLSTATE.serialization_failure, `could not compact relation "${table}": data file ${p} was rewritten or removed by a concurrent commit`);
    // Rows deleted from the sources since they were read, mapped into the new files.
    const extra = new Map<string, number[]>(); // "file:group" -> positions
    for (const s of sources) {
      const meta = byPath.get(s.path)!.groups[s.group]!;
      if (meta.rows - meta.live === (s.deleted?.length ?? 0)) continue;
      const now = await loadDeleted(store, table, meta);
      const before = s.deleted ?? new Uint32Array(0);
      let k = 0; // deleted-before-read positions below p
      for (const p of now ?? []) {
        while (k < before.length && before[k]! < p) k++;
        if (k < before.length && before[k] === p) continue;
        const row = s.newStart + p - k;
        const loc = locate(row);
        const key = `${loc.file}:${loc.group}`;
        let list = extra.get(key);
        if (list === undefined) extra.set(key, (list = []));
        list.push(row - loc.start);
      }
    }
    let files: DataFileJson[] = written;
    if (extra.size > 0) {
      files = [];
      for (let fi = 0; fi < written.length; fi++) {
        const file = written[fi]!;
        const groups: GroupJson[] = [];
        for (let g = 0; g < file.groups.length; g++) {
          const add = extra.get(`${fi}:${g}`);
          if (add === undefined) groups.push(file.groups[g]!);
          else {
            add.sort((a, b) => a - b);
            groups.push(await withDeletes(store, table, fields, await GroupRows.open(store, table, fields, file, g), add));
          }
        }
        files.push({ ...file, groups });
      }
    }
    const out: DataFileJson[] = [];
    let placed = false;
    for (const f of base.files) {
      if (chosenPaths.has(f.path)) {
        if (!placed) out.push(...files);
        placed = true;
      } else out.push(f);
    }
    const segments = ao === null ? {} : { ao: referencedSegments(ao.segmentsFor(base), out) };
    return { ...base, operation: 'compact', files: out, ...segments, summary: { command: 'compact', filesRewritten: chosen.length, rowsDropped } };
  };
  let snapshot: SnapshotJson;
  try {
    snapshot = await commit(store, table, build, opts);
  } finally {
    await ao?.release();
  }
  return { snapshot, filesRewritten: chosen.length, filesWritten: written.length, rowsWritten, rowsDropped };
}

/** Runs [start, length) of consecutive selected rows (all n rows when sel is null). */
function toRuns(sel: Uint32Array | null, n: number): [number, number][] {
  if (sel === null) return n > 0 ? [[0, n]] : [];
  const runs: [number, number][] = [];
  let i = 0;
  while (i < sel.length) {
    let j = i + 1;
    while (j < sel.length && sel[j] === sel[j - 1]! + 1) j++;
    runs.push([sel[i]!, j - i]);
    i = j;
  }
  return runs;
}

/**
 * The segment sets some stripe still references. A set an appender holds a claim on but has
 * not committed to yet may leave here; its commit puts it back (AoAppender.segmentsFor).
 */
function referencedSegments(ao: AoJson, files: readonly DataFileJson[]): AoJson {
  const used = new Set<number>();
  for (const f of files) for (const g of f.groups) for (const b of Object.values(g.blocks ?? {})) used.add(b.seg);
  return { segments: ao.segments.filter((s) => used.has(s.segno)) };
}

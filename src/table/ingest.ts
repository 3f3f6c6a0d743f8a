/**
 * `paxd ingest` as a library function: load files (or standard input) into a table as ONE
 * commit — all of it or none of it. Bad rows fail the load (default) or, with
 * onError 'skip', go to a rejects file, up to maxRejects; the result always adds up:
 * rowsRead = rowsLoaded + rowsRejected = lines in the rejects file.
 *
 * The rejects file is complete and durable (every write checked whole, fsynced) before the
 * commit: a load whose rejects could not be kept (a full disk: 53100) fails and commits
 * nothing, so no rejected row is ever lost behind a successful load.
 */
import type { Table } from './database.js';
import { PaxdError, SQLSTATE, type TimeZone, usage } from '../types/index.js';
import { nodeFs, type FsOps, type IngestedFileJson } from '../storage/index.js';
import { RejectsFile, type CsvOptions, openInput, formatOf, openFormat, openFormatInThread, type Format, type Input, type Reject } from '../insert/readers.js';
import type { CommitResult } from '../insert/index.js';

export interface IngestOptions {
  /** The format of every file; from each file's extension when absent. */
  format?: Format;
  csv?: Omit<CsvOptions, 'onError' | 'onReject' | 'table'>;
  /** The zone text timestamptz values without an offset are read in (CSV, text, NDJSON); default UTC, as paxd's sessions. */
  timeZone?: TimeZone;
  onError?: 'abort' | 'skip';
  /** Path of the rejects file (NDJSON, one rejected row per line); skip mode only. */
  rejects?: string;
  /** Fail the whole load when more rows than this are rejected. */
  maxRejects?: number;
  /** Called now and then with the progress so far. */
  onProgress?: (p: IngestProgress) => void;
  /** Extra fields recorded in the snapshot's summary. */
  summary?: Record<string, string | number>;
  /** Identities of the files, recorded in the snapshot by the commit (SinkOptions.ingested). */
  ingested?: readonly IngestedFileJson[];
  /**
   * Runs after every row is read and the rejects file is durable, right before the commit; a
   * throw aborts the load (the inbox writes its per-file rejects here, so they exist before
   * the rows they belong with are committed).
   */
  beforeCommit?: (r: { rowsRead: number; rowsRejected: number }) => Promise<void>;
  /** The filesystem the rejects file is written through (a FaultFs in tests). Default: the real one. */
  fs?: FsOps;
  /**
   * Parse on a parser thread (../insert/parse-thread.ts) rather than on this one: the daemon's
   * HTTP loads, whose parsing would otherwise hold the event loop every session shares.
   */
  parseThread?: boolean;
}

export interface IngestProgress {
  file: string;
  rows: number;
  rejected: number;
  /** Input bytes consumed so far, over all files, and the total when every size is known. */
  bytes: number;
  totalBytes: number | null;
  seconds: number;
}

export interface IngestResult {
  rowsRead: number;
  rowsLoaded: number;
  rowsRejected: number;
  seconds: number;
  commit: CommitResult;
}

/**
 * `files` are paths (`-`: standard input), or Inputs already open (an HTTP body: streamInput),
 * whose format must then be given.
 */
export async function ingestFiles(table: Table, files: readonly (string | Input)[], options: IngestOptions = {}): Promise<IngestResult> {
  const onError = options.onError ?? 'abort';
  if (options.rejects !== undefined && onError !== 'skip') throw usage('a rejects file needs --on-error skip');
  if (files.length === 0) throw usage('no input files');
  const started = performance.now();
  let rejects: RejectsFile | null = null;
  let rowsRead = 0;
  let rowsRejected = 0;
  let bytesDone = 0;
  const sink = table.sink({
    summary: { operation: 'ingest', files: files.map((f) => (typeof f === 'string' ? f : f.name)).join(' ').slice(0, 1000), ...options.summary },
    ...(options.ingested !== undefined ? { ingested: options.ingested } : {}),
  });
  try {
    if (options.rejects !== undefined) rejects = await RejectsFile.open(options.fs ?? nodeFs, options.rejects);
    const rejectLines: string[] = [];
    const onReject = (r: Reject): void => {
      rowsRejected++;
      if (options.maxRejects !== undefined && rowsRejected > options.maxRejects)
        throw new PaxdError('invalid_input', r.code, `${r.file}:${r.line}:${r.column}: ${r.message} (more than ${options.maxRejects} rejected rows: load aborted)`, {
          file: r.file,
          line: r.line,
          column: r.column,
        });
      rejectLines.push(
        JSON.stringify({ file: r.file, line: r.line, column: r.column, code: r.code, message: r.message, ...(r.raw ? { row: new TextDecoder().decode(r.raw) } : {}) }) + '\n',
      );
    };
    const inputs = await Promise.all(files.map((f) => (typeof f === 'string' ? openInput(f) : f)));
    const totalBytes = inputs.every((i) => i.size !== null) ? inputs.reduce((a, i) => a + i.size!, 0) : null;
    let lastProgress = 0;
    for (const input of inputs) {
      const format = options.format ?? formatOf(input.name === 'stdin' ? '-' : input.name);
      if (format === null) throw usage(input.name === 'stdin' ? 'reading standard input needs --format' : `cannot tell the format of ${input.name} from its extension: use --format`);
      const reader = (options.parseThread === true ? openFormatInThread : openFormat)(format, input, table.fields, { table: table.name, onError, onReject, csv: options.csv ?? {}, ...(options.timeZone !== undefined ? { timeZone: options.timeZone } : {}) });
      const rejectedBefore = rowsRejected;
      for await (const batch of reader) {
        await sink.write(batch);
        if (rejects !== null && rejectLines.length > 0) await rejects.write(rejectLines.splice(0).join(''));
        const now = performance.now();
        if (options.onProgress && now - lastProgress > 200) {
          lastProgress = now;
          options.onProgress({ file: input.name, rows: rowsRead + reader.rowsRead, rejected: rowsRejected, bytes: bytesDone + input.bytesRead(), totalBytes, seconds: (now - started) / 1000 });
        }
      }
      if (rejects !== null && rejectLines.length > 0) await rejects.write(rejectLines.splice(0).join(''));
      rowsRead += reader.rowsRead;
      bytesDone += input.bytesRead();
      // The format's own count and ours must agree: every row is loaded or rejected.
      if (reader.rowsRejected !== rowsRejected - rejectedBefore)
        throw new PaxdError('internal', SQLSTATE.internal_error, `internal error: ${input.name}: reader rejected ${reader.rowsRejected} rows, ${rowsRejected - rejectedBefore} reached the rejects`);
    }
    if (rejects !== null) {
      const r = rejects;
      rejects = null;
      await r.finish();
    }
    await options.beforeCommit?.({ rowsRead, rowsRejected });
    const commit = await sink.commit();
    if (commit.rows !== rowsRead - rowsRejected)
      throw new PaxdError('internal', SQLSTATE.internal_error, `internal error: committed ${commit.rows} rows of ${rowsRead} read and ${rowsRejected} rejected`);
    return { rowsRead, rowsLoaded: commit.rows, rowsRejected, seconds: (performance.now() - started) / 1000, commit };
  } catch (e) {
    await sink.abort();
    await rejects?.close();
    throw e;
  }
}

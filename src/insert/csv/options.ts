/**
 * CSV options, named and checked as PostgreSQL 15's COPY names and checks them
 * (https://www.postgresql.org/docs/15/sql-copy.html, "Parameters" and "CSV Format";
 * commands/copy.c ProcessCopyOptions for the messages).
 *
 *   resolveCsvOptions({ delimiter: ';', header: true })
 *   // { delimiter: 59, quote: 34, escape: 34, null: Uint8Array [], header: 'names', ... }
 */
import { PaxdError, SQLSTATE } from '../../types/errors.js';

/** What a rejected row looks like to `onReject` (mode `onError: 'skip'`). */
export interface CsvReject {
  /** The line PostgreSQL's COPY would report for the row (quoted newlines counted). */
  readonly line: number;
  /** 1-based position of the offending field in the input row. */
  readonly column: number;
  /** SQLSTATE, e.g. '22P02'. */
  readonly code: string;
  /** PostgreSQL's message, without the location prefix. */
  readonly message: string;
  /** The row's original bytes, without its line terminator. */
  readonly raw: Uint8Array;
}

export interface CsvOptions {
  /**
   * false (default): no header line. true: the first line names the columns, which are
   * matched to the table by name (exactly, then case-insensitively), in any order; table
   * columns missing from it get their default (or NULL), as COPY with a column list does.
   * 'match': PostgreSQL 15's HEADER MATCH — the names must equal the table's, in order.
   */
  header?: boolean | 'match';
  /** One single-byte character; default ','. */
  delimiter?: string;
  /** One single-byte character; default '"'. */
  quote?: string;
  /** One single-byte character; default: the quote character. */
  escape?: string;
  /** The unquoted string that means NULL; default '' (an unquoted empty field). */
  null?: string;
  /** Columns (by name) whose NULL-string fields are read as values, not NULL (FORCE_NOT_NULL). */
  forceNotNull?: readonly string[];
  /** Columns (by name) whose quoted NULL-string fields are read as NULL (FORCE_NULL). */
  forceNull?: readonly string[];
  /** 'abort' (default): the first bad row throws. 'skip': bad rows go to onReject. */
  onError?: 'abort' | 'skip';
  /** Receives each rejected row in 'skip' mode; it may throw to end the load. */
  onReject?: (reject: CsvReject) => void;
  /** The relation named in NOT NULL errors; default 't'. */
  table?: string;
  /** Rows per yielded batch; default 65,536. */
  batchRows?: number;
  /** Bytes buffered before a block of rows is parsed; default 1 MiB. */
  blockBytes?: number;
}

export const DEFAULT_BATCH_ROWS = 65536;
export const DEFAULT_BLOCK_BYTES = 1 << 20;

/** Options with defaults applied and characters as bytes. */
export interface ResolvedCsvOptions {
  readonly delimiter: number;
  readonly quote: number;
  readonly escape: number;
  readonly null: Uint8Array;
  readonly header: 'none' | 'names' | 'match';
  readonly forceNotNull: readonly string[];
  readonly forceNull: readonly string[];
  readonly skip: boolean;
  readonly onReject: ((reject: CsvReject) => void) | undefined;
  readonly table: string;
  readonly batchRows: number;
  readonly blockBytes: number;
}

const LF = 10;
const CR = 13;
const utf8 = new TextEncoder();

function optionError(message: string, code: string = SQLSTATE.feature_not_supported): PaxdError {
  return new PaxdError('usage', code, message);
}

function singleByte(value: string, what: string): number {
  const b = utf8.encode(value);
  if (b.length !== 1) throw optionError(`COPY ${what} must be a single one-byte character`);
  return b[0]!;
}

export function resolveCsvOptions(o: CsvOptions): ResolvedCsvOptions {
  const delimiter = singleByte(o.delimiter ?? ',', 'delimiter');
  const quote = singleByte(o.quote ?? '"', 'quote');
  const escape = singleByte(o.escape ?? o.quote ?? '"', 'escape');
  const nullStr = o.null ?? '';
  const nullBytes = utf8.encode(nullStr);
  if (delimiter === LF || delimiter === CR) throw optionError('COPY delimiter cannot be newline or carriage return', SQLSTATE.invalid_parameter_value);
  if (nullBytes.includes(LF) || nullBytes.includes(CR)) throw optionError('COPY null representation cannot use newline or carriage return', SQLSTATE.invalid_parameter_value);
  if (delimiter === quote) throw optionError('COPY delimiter and quote must be different', SQLSTATE.invalid_parameter_value);
  if (nullBytes.includes(delimiter)) throw optionError('COPY delimiter must not appear in the NULL specification', SQLSTATE.invalid_parameter_value);
  if (nullBytes.includes(quote)) throw optionError('CSV quote character must not appear in the NULL specification', SQLSTATE.invalid_parameter_value);
  const batchRows = o.batchRows ?? DEFAULT_BATCH_ROWS;
  if (!Number.isInteger(batchRows) || batchRows < 1) throw optionError(`batchRows must be a positive integer, got ${batchRows}`, SQLSTATE.invalid_parameter_value);
  const blockBytes = o.blockBytes ?? DEFAULT_BLOCK_BYTES;
  if (!Number.isInteger(blockBytes) || blockBytes < 1) throw optionError(`blockBytes must be a positive integer, got ${blockBytes}`, SQLSTATE.invalid_parameter_value);
  const skip = (o.onError ?? 'abort') === 'skip';
  return {
    delimiter,
    quote,
    escape,
    null: nullBytes,
    header: o.header === 'match' ? 'match' : o.header ? 'names' : 'none',
    forceNotNull: o.forceNotNull ?? [],
    forceNull: o.forceNull ?? [],
    skip,
    onReject: o.onReject,
    table: o.table ?? 't',
    batchRows,
    blockBytes,
  };
}

/**
 * CSV options, named and checked as PostgreSQL 15's COPY names and checks them
 * (https://www.postgresql.org/docs/15/sql-copy.html, "Parameters" and "CSV Format";
 * commands/copy.c ProcessCopyOptions for the messages).
 *
 *   resolveCsvOptions({ delimiter: ';', header: true })
 *   // { delimiter: 59, quote: 34, escape: 34, null: Uint8Array [], header: 'names', ... }
 */
import { PaxdError, SQLSTATE, type TimeZone, UTC } from '../../types/index.js';

/** What a rejected row looks like to `onReject` (mode `onError: 'skip'`). */
export interface CsvReject {
  /** The line PostgreSQL's COPY would report for the row (quoted newlines counted). */
  readonly line: number;
  /** 1-based position of the offending field in the input row. */
  readonly column: number;
  /** SQLSTATE, e.g. '22P02' (SQLSTATE.invalid_text_representation). */
  readonly code: string;
  /** PostgreSQL's message, without the location prefix. */
  readonly message: string;
  /** The row's original bytes, without its line terminator. */
  readonly raw: Uint8Array;
}

export interface CsvOptions {
  /** The session's TimeZone: timestamptz fields without an offset are local times there (default UTC). */
  timeZone?: TimeZone;
  /**
   * 'csv' (default) or COPY's 'text' format (backslash escapes, NULL `\N`, tab-delimited;
   * https://www.postgresql.org/docs/15/sql-copy.html "Text Format").
   */
  format?: 'csv' | 'text';
  /**
   * COPY's column list: the input's fields are these table columns, in this order; the other
   * columns get their default (or NULL). Without it (and without a header by name) the input
   * has every table column, in table order.
   */
  columns?: readonly string[];
  /**
   * The input is COPY FROM STDIN: in the text format a `\.` in the middle of a line ends the
   * data (PostgreSQL discards the rest of the stream; from a file it reads on).
   */
  stdin?: boolean;
  /**
   * false (default): no header line. true: the first line names the columns, which are
   * matched to the table by name (exactly, then case-insensitively), in any order; table
   * columns missing from it get their default (or NULL), as COPY with a column list does.
   * 'match': PostgreSQL 15's HEADER MATCH — the names must equal the table's (or the column
   * list's), in order. 'skip': COPY's HEADER true — the first line is skipped unread.
   */
  header?: boolean | 'match' | 'skip';
  /** One single-byte character; default ',' (text format: a tab). */
  delimiter?: string;
  /** One single-byte character; default '"'. */
  quote?: string;
  /** One single-byte character; default: the quote character. */
  escape?: string;
  /** The unquoted string that means NULL; default '' (an unquoted empty field; text format: `\N`). */
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
  /**
   * Builds the error a bad row fails the read with (mode 'abort'); default: the error placed
   * at `file:line:column`. COPY over the wire uses it for PostgreSQL's CONTEXT line.
   */
  placeError?: (bad: CsvRowError) => PaxdError;
}

/** A bad row, as placeError sees it. */
export interface CsvRowError {
  /** The error, not yet placed (PostgreSQL's message and SQLSTATE). */
  readonly error: PaxdError;
  readonly line: number;
  /** 1-based input position of the field, when the error is about one. */
  readonly column: number;
  /** The table column the error is about (conversion, missing data, NOT NULL). */
  readonly columnName: string | undefined;
  /** The field's text when a conversion failed (what COPY's CONTEXT quotes). */
  readonly value: string | undefined;
  /** The record's bytes without its terminator, or null when they are not shown (an encoding or line-level error: COPY shows no line then). */
  readonly raw: Uint8Array | null;
  /** The input's name (file name). */
  readonly file: string;
}

export const DEFAULT_BATCH_ROWS = 65536;
export const DEFAULT_BLOCK_BYTES = 1 << 20;

/** Options with defaults applied and characters as bytes. */
export interface ResolvedCsvOptions {
  readonly format: 'csv' | 'text';
  readonly columns: readonly string[] | undefined;
  readonly stdin: boolean;
  readonly delimiter: number;
  readonly quote: number;
  readonly escape: number;
  readonly null: Uint8Array;
  readonly header: 'none' | 'names' | 'match' | 'skip';
  readonly forceNotNull: readonly string[];
  readonly forceNull: readonly string[];
  readonly skip: boolean;
  readonly onReject: ((reject: CsvReject) => void) | undefined;
  readonly table: string;
  readonly batchRows: number;
  readonly blockBytes: number;
  readonly placeError: ((bad: CsvRowError) => PaxdError) | undefined;
  readonly timeZone: TimeZone;
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

/** Bytes the text format's delimiter may not be: they start escapes (ProcessCopyOptions). */
const TEXT_DELIMITER_FORBIDDEN = '\\.abcdefghijklmnopqrstuvwxyz0123456789';

export function resolveCsvOptions(o: CsvOptions): ResolvedCsvOptions {
  const format = o.format ?? 'csv';
  const text = format === 'text';
  if (text && (o.quote !== undefined || o.escape !== undefined)) throw optionError(`COPY ${o.quote !== undefined ? 'quote' : 'escape'} available only in CSV mode`);
  if (text && (o.forceNull?.length || o.forceNotNull?.length)) throw optionError(`COPY ${o.forceNull?.length ? 'force null' : 'force not null'} available only in CSV mode`);
  const delimiter = singleByte(o.delimiter ?? (text ? '\t' : ','), 'delimiter');
  if (text && TEXT_DELIMITER_FORBIDDEN.includes(String.fromCharCode(delimiter))) throw optionError(`COPY delimiter cannot be "${String.fromCharCode(delimiter)}"`, SQLSTATE.invalid_parameter_value);
  const quote = singleByte(o.quote ?? '"', 'quote');
  const escape = singleByte(o.escape ?? o.quote ?? '"', 'escape');
  const nullStr = o.null ?? (text ? '\\N' : '');
  const nullBytes = utf8.encode(nullStr);
  if (delimiter === LF || delimiter === CR) throw optionError('COPY delimiter cannot be newline or carriage return', SQLSTATE.invalid_parameter_value);
  if (nullBytes.includes(LF) || nullBytes.includes(CR)) throw optionError('COPY null representation cannot use newline or carriage return', SQLSTATE.invalid_parameter_value);
  if (!text && delimiter === quote) throw optionError('COPY delimiter and quote must be different', SQLSTATE.invalid_parameter_value);
  if (nullBytes.includes(delimiter)) throw optionError('COPY delimiter must not appear in the NULL specification', SQLSTATE.invalid_parameter_value);
  if (!text && nullBytes.includes(quote)) throw optionError('CSV quote character must not appear in the NULL specification', SQLSTATE.invalid_parameter_value);
  const batchRows = o.batchRows ?? DEFAULT_BATCH_ROWS;
  if (!Number.isInteger(batchRows) || batchRows < 1) throw optionError(`batchRows must be a positive integer, got ${batchRows}`, SQLSTATE.invalid_parameter_value);
  const blockBytes = o.blockBytes ?? DEFAULT_BLOCK_BYTES;
  if (!Number.isInteger(blockBytes) || blockBytes < 1) throw optionError(`blockBytes must be a positive integer, got ${blockBytes}`, SQLSTATE.invalid_parameter_value);
  const skip = (o.onError ?? 'abort') === 'skip';
  return {
    timeZone: o.timeZone ?? UTC,
    format,
    columns: o.columns,
    stdin: o.stdin ?? false,
    delimiter,
    quote,
    escape,
    null: nullBytes,
    header: o.header === 'match' ? 'match' : o.header === 'skip' ? 'skip' : o.header ? 'names' : 'none',
    forceNotNull: o.forceNotNull ?? [],
    forceNull: o.forceNull ?? [],
    skip,
    onReject: o.onReject,
    table: o.table ?? 't',
    batchRows,
    blockBytes,
    placeError: o.placeError,
  };
}

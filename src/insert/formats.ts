/**
 * The input formats behind `paxd ingest`: each opens an Input (a byte stream) as batches of
 * the table's columns and counts what it read and rejected. Rejected rows (bad values, wrong
 * column counts) go to `onReject` in skip mode; in abort mode the first one throws.
 *
 * This file registers CSV and text; ./readers.ts registers the others (NDJSON, Parquet, Arrow),
 * Parquet and Arrow as openers that load their reader, and apache-arrow, when first iterated.
 */
import { type Batch, type Field, PaxdError, SQLSTATE, type TimeZone } from '../types/index.js';
import type { Input } from './input.js';
import { readCsv, type CsvOptions } from './csv/index.js';

/** `text` is PostgreSQL COPY's text format (tab-separated, backslash escapes, `\N`). */
export type Format = 'csv' | 'text' | 'ndjson' | 'parquet' | 'arrow';
export const FORMATS: readonly Format[] = ['csv', 'text', 'ndjson', 'parquet', 'arrow'];

export interface Reject {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly code: string;
  readonly message: string;
  /** The row's original bytes (CSV, NDJSON), when there are any. */
  readonly raw?: Uint8Array;
}

export interface FormatOptions {
  /** The relation named in messages (23502). */
  table: string;
  onError: 'abort' | 'skip';
  onReject: (r: Reject) => void;
  csv: Omit<CsvOptions, 'onError' | 'onReject' | 'table'>;
  /** The zone text timestamptz values without an offset are read in (CSV, text, NDJSON); default UTC. */
  timeZone?: TimeZone;
}

export interface FormatReader extends AsyncIterable<Batch> {
  readonly rowsRead: number;
  readonly rowsRejected: number;
}

export type OpenFormat = (input: Input, fields: readonly Field[], opts: FormatOptions) => FormatReader;

const openers = new Map<Format, OpenFormat>();

/** Formats register themselves here (one module per format). */
export function registerFormat(format: Format, open: OpenFormat): void {
  openers.set(format, open);
}

export function openFormat(format: Format, input: Input, fields: readonly Field[], opts: FormatOptions): FormatReader {
  const open = openers.get(format);
  if (open === undefined) throw new PaxdError('unsupported', SQLSTATE.feature_not_supported, `ingest of format ${format} is not supported yet`);
  return open(input, fields, opts);
}

/** The format of a file from its extension (before .gz/.zst). */
export function formatOf(file: string): Format | null {
  const f = file.toLowerCase().replace(/\.(gz|zst)$/, '');
  if (/\.(arrow|arrows|ipc|feather)$/.test(f)) return 'arrow';
  if (/\.(csv|tsv|txt)$/.test(f)) return 'csv';
  if (/\.(ndjson|jsonl|json)$/.test(f)) return 'ndjson';
  if (f.endsWith('.parquet')) return 'parquet';
  return null;
}

for (const format of ['csv', 'text'] as const) {
  registerFormat(format, (input, fields, opts) =>
    readCsv(input.stream, fields, {
      ...opts.csv,
      ...(opts.timeZone !== undefined ? { timeZone: opts.timeZone } : {}),
      format,
      table: opts.table,
      onError: opts.onError,
      onReject: (r) => opts.onReject({ file: input.name, line: r.line, column: r.column, code: r.code, message: r.message, raw: r.raw }),
    }, input.name),
  );
}

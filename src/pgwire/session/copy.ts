/**
 * COPY through the connection (https://www.postgresql.org/docs/15/sql-copy.html): options,
 * COPY TO's formatting, and the binary format both ways. COPY FROM in the text and CSV formats
 * goes through the ingest tokenizer: ./copy-in.ts.
 *
 *   COPY t FROM STDIN (FORMAT csv, HEADER)   CopyInResponse, CopyData…, CopyDone → one commit
 *   COPY t TO STDOUT                         CopyOutResponse, one CopyData per row, CopyDone
 *
 * COPY FROM goes into one sink and commits once: a bad row fails the whole COPY and nothing
 * is committed. Errors carry PostgreSQL's CONTEXT line, `COPY t, line 3, column x: "12x"`.
 */
import type { Table } from '../../table/index.js';
import { PaxdError, SQLSTATE, columnOf, notNullViolation, undefinedColumn, parseText, type Field, type PgType, type Value } from '../../types/index.js';
import type { CopyOptionsSpec } from './statements.js';
import { decodeBinary, encodeBinary } from '../codec/binary.js';

export interface CopyFormat {
  /** PostgreSQL's binary COPY format (./binary.ts for each value). */
  readonly binary: boolean;
  readonly csv: boolean;
  readonly header: boolean;
  /** HEADER MATCH: the header line must name the input columns (PostgreSQL 15). */
  readonly headerMatch: boolean;
  readonly delimiter: string;
  readonly null: string;
  readonly quote: string;
  readonly escape: string;
  /** FORCE_NULL and FORCE_NOT_NULL columns (CSV, COPY FROM). */
  readonly forceNull: readonly string[];
  readonly forceNotNull: readonly string[];
}

function copyError(message: string): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.syntax_error, message);
}

function onOff(name: string, v: string): boolean {
  const l = v.toLowerCase();
  if (['on', 'true', '1', 'yes'].includes(l)) return true;
  if (['off', 'false', '0', 'no'].includes(l)) return false;
  throw copyError(`${name} requires a Boolean value`);
}

/** COPY's options with PostgreSQL's defaults and checks (commands/copy.c ProcessCopyOptions). */
export function copyFormat(o: CopyOptionsSpec, direction: 'from' | 'to' = 'from'): CopyFormat {
  const fmt = (o.format ?? 'text').toLowerCase();
  if (fmt !== 'text' && fmt !== 'csv' && fmt !== 'binary') throw copyError(`COPY format "${o.format}" not recognized`);
  const csv = fmt === 'csv';
  const binary = fmt === 'binary';
  if (binary && (o.delimiter !== undefined || o.null !== undefined || o.header !== undefined))
    throw copyError(`cannot specify ${o.delimiter !== undefined ? 'DELIMITER' : o.null !== undefined ? 'NULL' : 'HEADER'} in BINARY mode`);
  const delimiter = o.delimiter ?? (csv ? ',' : '\t');
  if (delimiter.length !== 1) throw copyError('COPY delimiter must be a single one-byte character');
  if (!csv && (o.quote !== undefined || o.escape !== undefined)) throw copyError('COPY quote available only in CSV mode');
  const quote = o.quote ?? '"';
  const escape = o.escape ?? quote;
  if (quote.length !== 1) throw copyError('COPY quote must be a single one-byte character');
  if (escape.length !== 1) throw copyError('COPY escape must be a single one-byte character');
  if (delimiter === '\n' || delimiter === '\r') throw copyError('COPY delimiter cannot be newline or carriage return');
  if (csv && delimiter === quote) throw copyError('COPY delimiter and quote must be different');
  const header = o.header === undefined ? false : o.header.toLowerCase() === 'match' ? true : onOff('header', o.header);
  const headerMatch = o.header !== undefined && o.header.toLowerCase() === 'match';
  for (const [list, what] of [[o.force_not_null, 'force not null'], [o.force_null, 'force null']] as const) {
    if (list === undefined) continue;
    if (!csv) throw new PaxdError('unsupported', SQLSTATE.feature_not_supported, `COPY ${what} available only in CSV mode`);
    if (direction === 'to') throw new PaxdError('unsupported', SQLSTATE.feature_not_supported, `COPY ${what} only available using COPY FROM`);
  }
  return { binary, csv, header, headerMatch, delimiter, null: o.null ?? (csv ? '' : '\\N'), quote, escape, forceNull: o.force_null ?? [], forceNotNull: o.force_not_null ?? [] };
}

// ---- COPY TO: one line per row ----

/** A row as one line of the format, newline included. */
export function formatRow(f: CopyFormat, row: readonly (string | null)[]): string {
  let out = '';
  for (let i = 0; i < row.length; i++) {
    if (i > 0) out += f.delimiter;
    const v = row[i]!;
    out += v === null ? f.null : f.csv ? csvField(f, v) : textField(f, v);
  }
  return out + '\n';
}

function csvField(f: CopyFormat, v: string): string {
  const needs = v === f.null || v.includes(f.delimiter) || v.includes(f.quote) || v.includes('\n') || v.includes('\r') || v === '\\.';
  if (!needs) return v;
  let q = '';
  for (const ch of v) q += ch === f.quote || ch === f.escape ? f.escape + ch : ch;
  return f.quote + q + f.quote;
}

const TEXT_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };

function textField(f: CopyFormat, v: string): string {
  let out = '';
  for (const ch of v) {
    const e = TEXT_ESCAPES[ch];
    out += e !== undefined ? e : ch === f.delimiter ? '\\' + ch : ch;
  }
  return out;
}

/**
 * The binary format's framing (https://www.postgresql.org/docs/15/sql-copy.html, "Binary Format"):
 *
 *   header   11 bytes "PGCOPY\n\xff\r\n\0", int32 flags (0), int32 header extension length (0)
 *   tuple    int16 field count, then per field int32 length (-1 = NULL) and the value's bytes
 *   trailer  int16 -1
 */
export const BINARY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

export function binaryHeader(): Buffer {
  return Buffer.concat([BINARY_SIGNATURE, Buffer.alloc(8)]);
}

export function binaryTrailer(): Buffer {
  return Buffer.from([0xff, 0xff]);
}

/** One tuple of the binary format. */
export function binaryRow(fields: readonly Field[] | readonly { type: PgType }[], row: readonly Value[]): Buffer {
  const parts: Buffer[] = [Buffer.from([row.length >> 8, row.length & 255])];
  for (let i = 0; i < row.length; i++) {
    const v = row[i]!;
    const len = Buffer.alloc(4);
    if (v === null) {
      len.writeInt32BE(-1);
      parts.push(len);
      continue;
    }
    const b = encodeBinary(fields[i]!.type, v);
    len.writeInt32BE(b.byteLength);
    parts.push(len, b);
  }
  return Buffer.concat(parts);
}

// ---- COPY FROM, binary format (text and CSV: ./copy-in.ts) ----

/** One tuple of the binary format, decoded, and its number (COPY's "line"). */
interface BinaryRow {
  readonly values: Value[];
  readonly line: number;
}

/** Cuts the binary format into tuples as CopyData arrives. */
export class BinaryCopyParser {
  /** Bytes not yet cut into tuples, and whether the header was read. */
  private pendingBytes = Buffer.alloc(0);
  private headerRead = false;
  private line = 0;
  private ended = false;

  constructor(
    /** The types of the input columns, in order. */
    private readonly types: readonly PgType[],
  ) {}

  /** Tuples completed by `chunk`. */
  push(chunk: Buffer): BinaryRow[] {
    if (this.ended) return [];
    this.pendingBytes = this.pendingBytes.byteLength === 0 ? Buffer.from(chunk) : Buffer.concat([this.pendingBytes, chunk]);
    return this.binaryRows();
  }

  /** Checks that the data ended with the trailer. */
  end(): BinaryRow[] {
    if (!this.ended) throw this.at(badFormat(this.headerRead ? 'unexpected EOF in COPY data' : 'COPY file signature not recognized'), this.line + 1);
    return [];
  }

  /** Lines (tuples) consumed so far. */
  get lines(): number {
    return this.line;
  }

  /** Tuples completed so far; `line` counts tuples, as PostgreSQL's CONTEXT does. */
  private binaryRows(): BinaryRow[] {
    const out: BinaryRow[] = [];
    const b = this.pendingBytes;
    let off = 0;
    if (!this.headerRead) {
      if (b.byteLength < 19) return out;
      if (!b.subarray(0, 11).equals(BINARY_SIGNATURE)) throw this.at(badFormat('COPY file signature not recognized'), 1);
      const flags = b.readInt32BE(11);
      if ((flags & 0x1_0000) !== 0) throw this.at(badFormat('invalid COPY file header (WITH OIDS)'), 1);
      const ext = b.readInt32BE(15);
      if (ext < 0) throw this.at(badFormat('invalid COPY file header (missing length)'), 1);
      if (b.byteLength < 19 + ext) return out;
      off = 19 + ext;
      this.headerRead = true;
    }
    for (;;) {
      if (b.byteLength - off < 2) break;
      const n = b.readInt16BE(off);
      if (n === -1) {
        this.ended = true;
        off = b.byteLength;
        break;
      }
      const line = this.line + 1;
      if (n !== this.types.length) throw this.at(badFormat(`row field count is ${n}, expected ${this.types.length}`), line);
      let p = off + 2;
      const values: Value[] = [];
      let complete = true;
      for (let i = 0; i < n; i++) {
        if (b.byteLength - p < 4) {
          complete = false;
          break;
        }
        const len = b.readInt32BE(p);
        p += 4;
        if (len === -1) {
          values.push(null);
          continue;
        }
        if (len < 0) throw this.at(badFormat('invalid field size'), line);
        if (b.byteLength - p < len) {
          complete = false;
          break;
        }
        try {
          values.push(decodeBinary(this.types[i]!, b.subarray(p, p + len)));
        } catch (e) {
          throw this.at(e instanceof PaxdError ? e : badFormat(String(e)), line);
        }
        p += len;
      }
      if (!complete) break;
      this.line = line;
      out.push({ values, line });
      off = p;
    }
    this.pendingBytes = b.subarray(off);
    return out;
  }

  private at(e: PaxdError, line: number): PaxdError {
    return new PaxdError(e.kind, e.code, e.message, { line });
  }
}

/** Rows buffered before they become one batch for the sink. */
const BATCH_ROWS = 8192;

/** What the session drives during COPY FROM STDIN, whatever the format. */
export interface CopyLoad {
  /** The COPY's input columns, for CopyInResponse. */
  readonly width: number;
  /** One CopyData message's bytes; resolves once they are taken (backpressure). */
  push(chunk: Buffer): Promise<void>;
  /** CopyDone: ends the input, commits, and returns the rows copied. */
  finish(): Promise<number>;
  /** Commits nothing. */
  abort(): Promise<void>;
}

/** Input position per table field (-1: not in the column list), checking the list as PostgreSQL does. */
export function copyColumns(table: Table, columns: readonly string[] | null): number[] {
  const fields = table.fields;
  const names = columns ?? fields.map((f) => f.name);
  const seen = new Set<string>();
  for (const n of names) {
    if (!fields.some((f) => f.name === n))
      throw undefinedColumn(n, { relation: table.name });
    if (seen.has(n)) throw new PaxdError('exists', SQLSTATE.duplicate_column, `column "${n}" specified more than once`);
    seen.add(n);
  }
  return fields.map((f) => names.indexOf(f.name));
}

/**
 * COPY FROM in the binary format into a table: tuples are decoded as they arrive (./binary.ts),
 * written to one sink in batches, and committed once at the end.
 */
export class BinaryCopyLoad implements CopyLoad {
  private readonly parser: BinaryCopyParser;
  private readonly sink;
  /** Input position per table field, -1 when the column is not in the COPY's column list. */
  private readonly source: readonly number[];
  private readonly defaults: readonly Value[];
  private buffered: Value[][] = [];
  private bufferedLines: number[] = [];
  private rows = 0;

  constructor(
    private readonly table: Table,
    columns: readonly string[] | null,
  ) {
    const fields = table.fields;
    this.source = copyColumns(table, columns);
    const names = columns ?? fields.map((f) => f.name);
    this.defaults = fields.map((f) => (f.default === undefined ? null : parseText(f.type, f.default)));
    this.parser = new BinaryCopyParser(names.map((n) => fields.find((f) => f.name === n)!.type));
    this.sink = table.sink();
  }

  get width(): number {
    return this.source.filter((s) => s >= 0).length;
  }

  async push(chunk: Buffer): Promise<void> {
    for (const r of this.parsed(() => this.parser.push(chunk))) await this.add(r);
  }

  async finish(): Promise<number> {
    for (const r of this.parsed(() => this.parser.end())) await this.add(r);
    await this.flush();
    await this.sink.commit();
    return this.rows;
  }

  /** The parser's rows; its errors get the CONTEXT of the line they name. */
  private parsed(cut: () => BinaryRow[]): BinaryRow[] {
    try {
      return cut();
    } catch (e) {
      if (e instanceof PaxdError && !(e instanceof CopyError)) throw this.context(e, e.line ?? this.parser.lines + 1);
      throw e;
    }
  }

  async abort(): Promise<void> {
    await this.sink.abort();
  }

  private async add(r: BinaryRow): Promise<void> {
    this.buffered.push(r.values);
    this.bufferedLines.push(r.line);
    if (this.buffered.length >= BATCH_ROWS) await this.flush();
  }

  private async flush(): Promise<void> {
    const n = this.buffered.length;
    if (n === 0) return;
    const fields = this.table.fields;
    const columns = fields.map((f, c) => {
      const values: Value[] = new Array(n);
      const src = this.source[c]!;
      for (let i = 0; i < n; i++) {
        const v = src < 0 ? this.defaults[c]! : this.buffered[i]![src]!;
        if (v === null && f.notNull) throw this.context(notNull(f, this.table.name, this.buffered[i]!.map((x) => (x === null ? null : String(x)))), this.bufferedLines[i]!);
        values[i] = v;
      }
      return columnOf(typeOf(f), values);
    });
    this.buffered = [];
    this.bufferedLines = [];
    await this.sink.write({ length: n, columns, selection: null });
    this.rows += n;
  }

  /** PostgreSQL's CopyFromErrorCallback for the binary format: `COPY t, line 3`. */
  private context(e: unknown, line: number): PaxdError {
    const where = `COPY ${this.table.name}, line ${line}`;
    if (e instanceof PaxdError) return new CopyError(e, where);
    return new CopyError(new PaxdError('internal', SQLSTATE.internal_error, String(e)), where);
  }
}

function typeOf(f: Field): PgType {
  return f.type;
}

function badFormat(message: string): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.bad_copy_file_format, message);
}

function notNull(f: Field, table: string, row: readonly (string | null)[]): PaxdError {
  return notNullViolation(f.name, table, {
    detail: `Failing row contains (${row.map((v) => v ?? 'null').join(', ')}).`,
  });
}

/** An error of COPY FROM with its CONTEXT line (ErrorResponse field 'W'). */
export class CopyError extends PaxdError {
  constructor(
    e: PaxdError,
    readonly where: string,
  ) {
    super(e.kind, e.code, e.message, { ...e.location(), ...(e.detail !== undefined ? { detail: e.detail } : {}) });
  }
}

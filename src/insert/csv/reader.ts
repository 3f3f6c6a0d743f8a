/**
 * CSV input: a stream of bytes in, batches of the table's types out (PostgreSQL 15 COPY: https://www.postgresql.org/docs/15/sql-copy.html).
 *
 *   const reader = readCsv(createReadStream('data.csv'), table.fields, { header: true }, 'data.csv');
 *   for await (const batch of reader) await sink.write(batch);
 *   reader.rowsRead === reader.rowsLoaded + reader.rowsRejected;   // always
 *
 * The input is read block by block (about `blockBytes` at a time, plus whatever one record
 * needs), never as a whole: each block is split into records and fields by ./tokenizer.ts,
 * checked as UTF-8 in one native call, then parsed column by column by ./fields.ts straight
 * into the batch's typed arrays.
 *
 * Columns are matched by position without a header; with `header: true` by name, in any
 * order, as `COPY t (b, a) FROM … (HEADER)` would do it: table columns the header lacks get
 * their default (else NULL) — and since every row would then violate a NOT NULL constraint on
 * such a column without default, that fails at the header instead, once. `header: 'match'` is
 * PostgreSQL 15's HEADER MATCH.
 *
 * Bad rows, in PostgreSQL's order of checks (encoding and line-terminator errors while reading
 * the record; extra fields; then each field in input order — missing field or conversion
 * error; then NOT NULL), fail the read with the first error of the first bad row
 * (`onError: 'abort'`), or are handed to `onReject` and left out (`onError: 'skip'`). Errors
 * carry file, line (as COPY counts them) and the 1-based position of the field.
 *
 * Departures from PostgreSQL's COPY, on purpose: a UTF-8 byte-order mark at the very start is
 * skipped (COPY would take it as data).
 */
import { isAscii } from 'node:buffer';
import { type Batch, type Value, type PaxdError, assert, parseText, type Field, type TimeZone, firstInvalidUtf8, invalidEncoding, isCleanUtf8 } from '../../types/index.js';
import { BatchBuilder } from '../batch-builder.js';
import type { ColumnBuffer } from './columns.js';
import {
  MAX_COLUMNS,
  duplicateColumn,
  forceNotReferenced,
  headerFieldCount,
  headerMismatch,
  missingData,
  notNullViolation,
  recordError,
  tooManyColumns,
  undefinedColumn,
} from './errors.js';
import { type BlockContext, parseColumn } from './fields.js';
import { type CsvOptions, type CsvReject, type ResolvedCsvOptions, resolveCsvOptions } from './options.js';
import { CsvTokenizer, FIELD_NULL, FIELD_QUOTED, RecordError } from './tokenizer.js';

/** The batches of a CSV input, with running counts (rowsRead = rowsLoaded + rowsRejected). */
export interface CsvReader extends AsyncGenerator<Batch, void, undefined> {
  /** Data rows read so far (the header line is not a row). */
  readonly rowsRead: number;
  /** Rows placed into batches. */
  readonly rowsLoaded: number;
  /** Rows left out in 'skip' mode (or the one that failed the read in 'abort' mode). */
  readonly rowsRejected: number;
  /** Input bytes consumed so far. */
  readonly bytesRead: number;
}

/** Records per tokenized block (bounded further by the bytes at hand and the batch's room). */
const BLOCK_RECORDS = 4096;

const ROW_OK = 0;
const ROW_BAD = 1;
/** Fewer fields than expected: "missing data" unless an earlier field fails first. */
const ROW_SHORT = 2;

interface RowError {
  readonly line: number;
  readonly column: number;
  readonly columnName: string | undefined;
  readonly error: PaxdError;
  /** The field's text, for a conversion error. */
  readonly value?: string;
  /** COPY shows the line in its CONTEXT (errors found after the line was read whole). */
  readonly showLine: boolean;
}

export function readCsv(source: AsyncIterable<Uint8Array>, fields: readonly Field[], opts: CsvOptions, fileName: string): CsvReader {
  const state = new CsvRead(fields, resolveCsvOptions(opts), fileName);
  const gen = state.run(source) as CsvReader;
  Object.defineProperties(gen, {
    rowsRead: { get: () => state.rowsRead },
    rowsLoaded: { get: () => state.rowsLoaded },
    rowsRejected: { get: () => state.rowsRejected },
    bytesRead: { get: () => state.bytesRead },
  });
  return gen;
}

class CsvRead implements BlockContext {
  rowsRead = 0;
  rowsLoaded = 0;
  rowsRejected = 0;
  bytesRead = 0;

  // BlockContext
  tok!: CsvTokenizer;
  buf: Buffer;
  bad: Uint8Array = new Uint8Array(0);
  ascii = false;

  private readonly fields: readonly Field[];
  private readonly opts: ResolvedCsvOptions;
  private readonly fileName: string;
  private start = 0;
  private fill = 0;
  private threshold: number;
  private bomChecked = false;
  private ended = false;
  private ready = false;
  /** Table column of each input position. */
  private inputToTable: Int32Array = new Int32Array(0);
  /** 1-based input position of each table column, 0 if the input lacks it. */
  private tableToInput: Int32Array = new Int32Array(0);
  /** Parsed defaults of the table columns the input lacks. */
  private defaults: Value[] = [];
  private batch!: BatchBuilder;
  private readonly errors = new Map<number, RowError>();
  /** Per record: 1 + the table index of the first NOT NULL column holding NULL, else 0. */
  private nn: Int32Array = new Int32Array(0);
  private nnAny = false;
  private secondPass = false;
  /** Table index of a NOT NULL column without default that the input lacks (COPY's column list), else -1. */
  private missingNotNull = -1;
  /** The header line's bytes (for errors about it). */
  private headerRaw: Uint8Array | undefined;

  constructor(fields: readonly Field[], opts: ResolvedCsvOptions, fileName: string) {
    this.fields = fields;
    this.opts = opts;
    this.fileName = fileName;
    this.buf = Buffer.allocUnsafeSlow(opts.blockBytes * 2 + 1);
    this.threshold = opts.blockBytes;
  }

  get timeZone(): TimeZone {
    return this.opts.timeZone;
  }

  async *run(source: AsyncIterable<Uint8Array>): AsyncGenerator<Batch, void, undefined> {
    for await (const chunk of source) {
      this.bytesRead += chunk.length;
      this.append(chunk);
      if (this.fill - this.start >= this.threshold) yield* this.drain(false);
      if (this.ended) break; // after `\.` nothing more is read
    }
    if (!this.ended) yield* this.drain(true);
    if (this.batch.length > 0) yield this.batch.finish();
  }

  private append(chunk: Uint8Array): void {
    const need = this.fill + chunk.length + 1;
    if (need > this.buf.length) {
      if (this.start > 0) {
        this.buf.copyWithin(0, this.start, this.fill);
        this.fill -= this.start;
        this.start = 0;
      }
      const need2 = this.fill + chunk.length + 1;
      if (need2 > this.buf.length) {
        const nb = Buffer.allocUnsafeSlow(Math.max(need2, this.buf.length * 2));
        this.buf.copy(nb, 0, 0, this.fill);
        this.buf = nb;
      }
    }
    this.buf.set(chunk, this.fill);
    this.fill += chunk.length;
  }

  private *drain(eof: boolean): Generator<Batch, void, undefined> {
    for (;;) {
      if (this.ended) return;
      const avail = this.fill - this.start;
      if (avail === 0) return;
      if (!eof && avail < this.threshold) return;
      if (!this.bomChecked) {
        if (avail < 3 && !eof) return;
        const b = this.buf;
        const s = this.start;
        if (avail >= 3 && b[s] === 0xef && b[s + 1] === 0xbb && b[s + 2] === 0xbf) this.start += 3;
        this.bomChecked = true;
        continue;
      }
      if (!this.ready) {
        if (!this.setup(eof)) {
          this.threshold = avail * 2;
          return;
        }
        continue;
      }
      const tok = this.tok;
      const pos = this.start;
      const next = tok.tokenize(this.buf, pos, this.fill, eof, this.opts.batchRows - this.batch.length);
      if (tok.n === 0) {
        if (tok.ended) {
          this.ended = true;
          return;
        }
        assert(!eof, 'CSV tokenizer made no progress at end of input');
        this.threshold = avail * 2; // one record is longer than what we have: wait for twice as much
        return;
      }
      this.threshold = this.opts.blockBytes;
      this.parseBlock(pos, next);
      this.start = next;
      if (tok.ended) this.ended = true;
      if (this.batch.length === this.opts.batchRows) yield this.batch.finish();
    }
  }

  // ---- header and column mapping ----

  /** Reads the header (if any) and prepares the tokenizer; false when more bytes are needed. */
  private setup(eof: boolean): boolean {
    const fields = this.fields;
    const opts = this.opts;
    let lineNo = 0;
    let eol = 0;
    let mapping: number[];
    const listed = opts.columns === undefined ? null : this.mapColumns(opts.columns);
    if (opts.header === 'none') {
      mapping = listed ?? fields.map((_, i) => i);
    } else if (opts.header === 'skip') {
      // COPY's HEADER true: the first line is read and thrown away.
      const htok = new CsvTokenizer(opts, MAX_COLUMNS + 1, 1);
      const next = htok.tokenize(this.buf, this.start, this.fill, eof, 1);
      if (htok.ended) {
        this.ended = true;
        return true;
      }
      if (htok.n === 0) return false;
      this.start = next;
      lineNo = htok.lineNo;
      eol = htok.eol;
      mapping = listed ?? fields.map((_, i) => i);
    } else {
      const htok = new CsvTokenizer(opts, MAX_COLUMNS + 1, 1);
      const next = htok.tokenize(this.buf, this.start, this.fill, eof, 1);
      if (htok.ended) {
        this.ended = true;
        return true;
      }
      if (htok.n === 0) return false;
      const names = this.headerNames(htok);
      this.start = next;
      lineNo = htok.lineNo;
      eol = htok.eol;
      mapping = opts.header === 'match' ? this.matchHeader(names, listed) : this.mapHeader(names);
    }
    const stride = mapping.length;
    this.inputToTable = Int32Array.from(mapping);
    this.tableToInput = new Int32Array(fields.length);
    mapping.forEach((c, p) => (this.tableToInput[c] = p + 1));
    const forced = (names: readonly string[], option: string): Uint8Array => {
      const flags = new Uint8Array(stride);
      for (const name of names) {
        const c = fields.findIndex((f) => f.name === name);
        if (c < 0) throw undefinedColumn(name, opts.table);
        const p = this.tableToInput[c]!;
        if (p === 0) throw forceNotReferenced(option, name);
        flags[p - 1] = 1;
      }
      return flags;
    };
    const fnn = forced(opts.forceNotNull, 'FORCE_NOT_NULL');
    const fn = forced(opts.forceNull, 'FORCE_NULL');
    this.defaults = fields.map((f, c) => {
      if (this.tableToInput[c] !== 0) return null;
      if (f.default === undefined) {
        // With a header by name the missing column is the header's fault; with COPY's column
        // list every row fails NOT NULL, as PostgreSQL's COPY does (an empty input loads).
        if (f.notNull && opts.header === 'names') throw notNullViolation(f.name, opts.table).at({ file: this.fileName, line: Math.max(1, lineNo), columnName: f.name });
        if (f.notNull && this.missingNotNull < 0) this.missingNotNull = c;
        return null;
      }
      return parseText(f.type, f.default);
    });
    const cap = Math.min(BLOCK_RECORDS, opts.batchRows);
    this.tok = new CsvTokenizer(opts, stride, cap, fnn, fn);
    this.tok.lineNo = lineNo;
    this.tok.eol = eol;
    this.bad = new Uint8Array(cap);
    this.nn = new Int32Array(cap);
    const tableToInput = this.tableToInput;
    this.batch = new BatchBuilder(fields, (c) => tableToInput[c]!, opts.batchRows);
    this.ready = true;
    return true;
  }

  private headerNames(htok: CsvTokenizer): (string | null)[] {
    const r = 0;
    const at = (line: number, column?: number) => ({ line, column: column ?? 0 });
    const bad = isCleanUtf8(this.buf, htok.recStart[r]!, htok.recEnd[r]!) ? -1 : firstInvalidUtf8(this.buf, htok.recStart[r]!, htok.recEnd[r]!);
    if (bad >= 0 && (htok.recErr[r] === RecordError.None || bad < htok.recErrPos[r]!)) {
      const loc = htok.locate(this.buf, r, bad);
      throw this.place({ ...at(loc.line, loc.column), error: invalidEncoding(this.buf, bad, this.fill - bad), columnName: undefined, showLine: false });
    }
    const nf = htok.nFields[r]!;
    if (htok.recErr[r] !== RecordError.None && htok.recErr[r] !== RecordError.ExtraData) {
      const err = htok.recErr[r] as RecordError;
      throw this.place({ ...at(htok.recErrLine[r]!, htok.recErrCol[r]!), error: recordError(err), columnName: undefined, showLine: err === RecordError.Unterminated }, this.buf.subarray(htok.recStart[r]!, htok.recEnd[r]!));
    }
    if (nf > MAX_COLUMNS) throw this.place({ ...at(htok.recLine[r]!), error: tooManyColumns(nf), columnName: undefined, showLine: false });
    this.headerRaw = this.buf.slice(htok.recStart[r]!, htok.recEnd[r]!);
    const names: (string | null)[] = [];
    for (let p = 0; p < nf; p++) {
      const k = p * htok.cap + r;
      const fl = htok.fFlags[k]!;
      if (fl === FIELD_NULL) names.push(null);
      else names.push((fl === FIELD_QUOTED ? htok.qbuf : this.buf).toString('utf8', htok.fStart[k], htok.fEnd[k]));
    }
    return names;
  }

  /** COPY's column list: table index of each listed column. */
  private mapColumns(names: readonly string[]): number[] {
    const fields = this.fields;
    const used = new Set<number>();
    return names.map((name) => {
      const c = fields.findIndex((f) => f.name === name);
      if (c < 0) throw undefinedColumn(name, this.opts.table);
      if (used.has(c)) throw duplicateColumn(name);
      used.add(c);
      return c;
    });
  }

  /** HEADER MATCH: the header must list the table's columns (or the column list), in order. */
  private matchHeader(names: readonly (string | null)[], listed: number[] | null): number[] {
    const fields = this.fields;
    const expected = listed ?? fields.map((_, i) => i);
    const raw = this.headerRaw;
    if (names.length !== expected.length) throw this.place({ line: 1, column: 0, error: headerFieldCount(names.length, expected.length), columnName: undefined, showLine: true }, raw);
    names.forEach((n, i) => {
      const want = fields[expected[i]!]!.name;
      if (n !== want) throw this.place({ line: 1, column: i + 1, error: headerMismatch(i + 1, n, want, new TextDecoder().decode(this.opts.null)), columnName: undefined, showLine: true }, raw);
    });
    return expected;
  }

  /** HEADER by name: each header field names a table column (exactly, else case-insensitively). */
  private mapHeader(names: readonly (string | null)[]): number[] {
    const fields = this.fields;
    const used = new Set<number>();
    return names.map((raw, p) => {
      const name = raw ?? '';
      let c = fields.findIndex((f) => f.name === name);
      if (c < 0) {
        const lower = name.toLowerCase();
        c = fields.findIndex((f) => f.name.toLowerCase() === lower);
      }
      const at = { file: this.fileName, line: 1, column: p + 1 };
      if (c < 0) throw undefinedColumn(name, this.opts.table).at(at);
      if (used.has(c)) throw duplicateColumn(fields[c]!.name).at(at);
      used.add(c);
      return c;
    });
  }

  // ---- one block ----

  private parseBlock(pos: number, next: number): void {
    const tok = this.tok;
    const n = tok.n;
    const buf = this.buf;
    const bad = this.bad;
    const stride = tok.stride;
    this.errors.clear();
    this.nnAny = false;
    this.secondPass = false;
    const region = buf.subarray(pos, next);
    this.ascii = isAscii(region);
    const clean = this.ascii ? region.indexOf(0) < 0 : isCleanUtf8(buf, pos, next);
    for (let r = 0; r < n; r++) {
      const err = tok.recErr[r] as RecordError;
      if (err !== RecordError.None) {
        bad[r] = ROW_BAD;
        // Line-level errors come from reading the line, except these two (found after it).
        const showLine = err === RecordError.ExtraData || err === RecordError.Unterminated;
        this.errors.set(r, { line: tok.recErrLine[r]!, column: tok.recErrCol[r]!, columnName: undefined, error: recordError(err), showLine });
      } else bad[r] = tok.nFields[r]! < stride ? ROW_SHORT : ROW_OK;
      this.nn[r] = this.missingNotNull + 1;
    }
    if (this.missingNotNull >= 0) this.nnAny = true;
    if (!clean) {
      for (let r = 0; r < n; r++) {
        const at = firstInvalidUtf8(buf, tok.recStart[r]!, tok.recEnd[r]!);
        if (at < 0 || (bad[r] === ROW_BAD && at >= tok.recErrPos[r]!)) continue;
        const loc = tok.locate(buf, r, at);
        bad[r] = ROW_BAD;
        this.errors.set(r, { line: loc.line, column: loc.column, columnName: undefined, error: invalidEncoding(buf, at, this.fill - at), showLine: false });
      }
    }
    if (tok.text) this.checkEscapes(n);
    const base = this.batch.length;
    const cols = this.batch.cols;
    const inputToTable = this.inputToTable;
    for (let p = 0; p < stride; p++) parseColumn(this, cols[inputToTable[p]!]!, p, base);
    if (this.nnAny) {
      for (let r = 0; r < n; r++) {
        if (bad[r] !== ROW_OK || this.nn[r] === 0) continue;
        const f = this.fields[this.nn[r]! - 1]!;
        bad[r] = ROW_BAD;
        this.errors.set(r, { line: tok.recLine[r]!, column: this.tableToInput[this.nn[r]! - 1]!, columnName: f.name, error: notNullViolation(f.name, this.opts.table), showLine: true });
      }
    }
    let good = n;
    if (this.errors.size > 0) {
      const rows = [...this.errors.keys()].sort((a, b) => a - b);
      if (!this.opts.skip) {
        const r = rows[0]!;
        this.rowsRead += r + 1;
        this.rowsLoaded += r;
        this.rowsRejected += 1;
        throw this.located(this.errors.get(r)!, r);
      }
      for (const r of rows) {
        const e = this.errors.get(r)!;
        this.rowsRejected++;
        this.rowsRead++;
        this.opts.onReject?.(this.reject(r, e));
      }
      good = n - rows.length;
      // Parse the block again without the rejected rows, so that the good ones stay contiguous.
      this.secondPass = true;
      for (const col of cols) col.resetRange(base, base + n);
      for (let p = 0; p < stride; p++) {
        const end = parseColumn(this, cols[inputToTable[p]!]!, p, base);
        assert(end === base + good, `CSV second pass wrote ${end - base} rows, expected ${good}`);
      }
    }
    this.fillDefaults(base, good);
    this.batch.length = base + good;
    this.rowsRead += good;
    this.rowsLoaded += good;
  }

  /** Columns the input lacks hold their default in rows [base, base + n). */
  private fillDefaults(base: number, n: number): void {
    for (let c = 0; c < this.fields.length; c++) {
      if (this.tableToInput[c] !== 0) continue;
      const col = this.batch.cols[c]!;
      const v = this.defaults[c]!;
      for (let o = base; o < base + n; o++) col.writeValue(o, v);
    }
  }

  /**
   * Text format: fields whose escapes decoded to NUL or non-ASCII bytes must be valid UTF-8
   * (CopyReadAttributesText's pg_verifymbstr); the first bad field fails its row.
   */
  private checkEscapes(n: number): void {
    const tok = this.tok;
    const q = tok.qbuf;
    for (let r = 0; r < n; r++) {
      if (tok.recEscHigh[r] === 0 || this.bad[r] === ROW_BAD) continue;
      const nf = Math.min(tok.nFields[r]!, tok.stride);
      for (let p = 0; p < nf; p++) {
        const k = p * tok.cap + r;
        if (tok.fFlags[k] !== FIELD_QUOTED) continue;
        const at = firstInvalidUtf8(q, tok.fStart[k]!, tok.fEnd[k]!);
        if (at < 0) continue;
        this.bad[r] = ROW_BAD;
        this.errors.set(r, { line: tok.recLine[r]!, column: p + 1, columnName: undefined, error: invalidEncoding(q, at, tok.fEnd[k]! - at), showLine: true });
        break;
      }
    }
  }

  private located(e: RowError, r: number): PaxdError {
    return this.place(e, this.buf.subarray(this.tok.recStart[r]!, this.tok.recEnd[r]!));
  }

  /** The error a bad row (or header) fails the read with: placeError's, else `file:line:column: message`. */
  private place(e: RowError, raw?: Uint8Array): PaxdError {
    const place = this.opts.placeError;
    if (place !== undefined) {
      return place({
        error: e.error,
        line: e.line,
        column: e.column,
        columnName: e.columnName,
        value: e.value,
        raw: e.showLine && raw !== undefined ? raw : null,
        file: this.fileName,
      });
    }
    const column = e.column > 0 ? { column: e.column } : {};
    return e.error.at({ file: this.fileName, line: e.line, ...column, ...(e.columnName !== undefined ? { columnName: e.columnName } : {}) });
  }

  private reject(r: number, e: RowError): CsvReject {
    const tok = this.tok;
    return {
      line: e.line,
      column: e.column,
      code: e.error.code,
      message: e.error.message,
      raw: this.buf.slice(tok.recStart[r], tok.recEnd[r]),
    };
  }

  // ---- BlockContext ----

  skip(r: number, p: number): boolean {
    if (this.bad[r] !== ROW_SHORT) return true;
    const tok = this.tok;
    if (p < tok.nFields[r]!) return false;
    const f = this.fields[this.inputToTable[p]!]!;
    this.bad[r] = ROW_BAD;
    this.errors.set(r, { line: tok.recLine[r]!, column: p + 1, columnName: f.name, error: missingData(f.name), showLine: true });
    return true;
  }

  fail(r: number, p: number, e: PaxdError): void {
    assert(!this.secondPass, `CSV field ${p + 1} of a good row failed on the second pass: ${e.message}`);
    this.bad[r] = ROW_BAD;
    const tok = this.tok;
    const k = p * tok.cap + r;
    const value = (tok.fFlags[k] === FIELD_QUOTED ? tok.qbuf : this.buf).toString('utf8', tok.fStart[k]!, tok.fEnd[k]!);
    this.errors.set(r, { line: tok.recLine[r]!, column: p + 1, columnName: this.fields[this.inputToTable[p]!]!.name, error: e, value, showLine: true });
  }

  nullInNotNull(r: number, col: ColumnBuffer): void {
    const cur = this.nn[r]!;
    if (cur === 0 || col.index + 1 < cur) this.nn[r] = col.index + 1;
    this.nnAny = true;
  }
}

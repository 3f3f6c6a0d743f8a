/**
 * NDJSON input (README.md "Usage"), registered as format 'ndjson': one JSON object per line, its keys
 * matched to the table's columns by name (exactly, else case-insensitively).
 *
 *   {"id": 1, "name": "ann", "price": 12.50, "tags": ["a"]}      ← data.ndjson line 1
 *   {"id": 2, "price": null}                                     ← name: its default, else NULL
 *
 * Values, with PostgreSQL semantics (each becomes the text PostgreSQL's input function of the
 * column's type reads, through parseText):
 *   - a string: its decoded contents ("2024-01-02" into a date, "\\x00ff" into bytea);
 *   - a number: its SOURCE TEXT, never a JS double — `12.50` into numeric is 12.50, and
 *     `9007199254740993` into int8 is exact. Into integer columns the text must be an integer
 *     literal in range, as PostgreSQL reads it: `1.5` or `1e3` → 22P02 `invalid input syntax
 *     for type integer: "1.5"`, `3000000000` → 22003 `value "3000000000" is out of range for
 *     type integer`;
 *   - true / false: 'true' / 'false';
 *   - null, or a missing key: NULL (a missing key: the column's default, if it has one);
 *   - an object or array: only into jsonb (normalized as jsonb input normalizes it) or json (as
 *     written); into any other type → 42804. Into json and jsonb every value is its JSON source
 *     text (a string stays a JSON string).
 *
 * Errors read `data.ndjson:17:3: <PostgreSQL's message>`: the line (1-based, every line
 * counted, blank ones too) and the 1-based position of the offending column IN THE TABLE
 * (JSON objects have no field positions of their own). Errors of the whole line carry no
 * column (`data.ndjson:17: …`, column 0 in a Reject): invalid JSON (22P02 `invalid input
 * syntax for type json`, PostgreSQL's detail in `detail`), invalid UTF-8 or a NUL byte (22021),
 * a line that is not an object (22P04), a key naming no column (42703 `column "x" of relation
 * "t" does not exist`). Within a line the line errors come first, then the columns in table
 * order (conversion, then NOT NULL 23502).
 *
 * Blank lines (only spaces/tabs) are skipped; CRLF line ends and a UTF-8 byte-order mark at
 * the start are accepted. The input is read chunk by chunk and never held whole: memory is a
 * batch of columns plus the longest line.
 */
import { isAscii } from 'node:buffer';
import { type Batch, type TimeZone, UTC, type Value, PaxdError, SQLSTATE, notNullViolation, undefinedColumn, parseText, isJsonWs, jsonNestedEnd, jsonNumberEnd, jsonScan, jsonSkipWs, jsonStringEnd, type Field, type PgType, pgDisplayName, firstInvalidUtf8, invalidEncoding, isCleanUtf8 } from '../types/index.js';
import { BatchBuilder } from './batch-builder.js';
import { DEFAULT_BATCH_ROWS } from './csv/options.js';
import { registerFormat, type FormatReader, type Reject } from './formats.js';
import type { Input } from './input.js';

export interface NdjsonOptions {
  /** The relation named in messages (42703, 23502); default 't'. */
  table?: string;
  /** 'abort' (default): the first bad row throws. 'skip': bad rows go to onReject. */
  onError?: 'abort' | 'skip';
  onReject?: (r: Reject) => void;
  /** Rows per yielded batch; default 65,536. */
  batchRows?: number;
  /** The zone timestamptz values without an offset are read in; default UTC. */
  timeZone?: TimeZone;
}

export interface NdjsonReader extends FormatReader {
  readonly rowsLoaded: number;
}

/** What a key's value was, per table column, for the line being read. */
const enum Slot {
  Absent,
  Null,
  /** A string without escapes: the characters between its quotes. */
  Str,
  /** A string with escapes: JSON.parse of it, quotes included. */
  StrEsc,
  Num,
  True,
  False,
  /** An object or array: its source text. */
  Nested,
}

const LF = 10;
const CR = 13;
const QUOTE = 34;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const COMMA = 44;
const COLON = 58;
const MINUS = 45;

const JSONB: PgType = { id: 'jsonb' };

/** A line-level problem the scanner found: not JSON, or JSON but not an object. */
const SCAN_OK = 0;
const SCAN_SYNTAX = 1;
const SCAN_NOT_OBJECT = 2;

export function readNdjson(source: AsyncIterable<Uint8Array>, fields: readonly Field[], opts: NdjsonOptions, fileName: string): NdjsonReader {
  const state = new NdjsonRead(fields, opts, fileName);
  const gen = state.run(source);
  return {
    get rowsRead() {
      return state.rowsRead;
    },
    get rowsLoaded() {
      return state.rowsLoaded;
    },
    get rowsRejected() {
      return state.rowsRejected;
    },
    [Symbol.asyncIterator]: () => gen,
  };
}

registerFormat('ndjson', (input: Input, fields, opts) =>
  readNdjson(input.stream, fields, { table: opts.table, onError: opts.onError, onReject: opts.onReject, ...(opts.timeZone !== undefined ? { timeZone: opts.timeZone } : {}) }, input.name),
);

class NdjsonRead {
  rowsRead = 0;
  rowsLoaded = 0;
  rowsRejected = 0;

  private readonly fields: readonly Field[];
  private readonly fileName: string;
  private readonly table: string;
  private readonly skip: boolean;
  private readonly onReject: ((r: Reject) => void) | undefined;
  private readonly batchRows: number;
  private readonly isJsonb: Uint8Array;
  private readonly defaults: Value[];
  private readonly byName = new Map<string, number>();
  private readonly byLowerName = new Map<string, number>();

  // Per-line slots, one per table column (no object per row).
  private readonly kind: Uint8Array;
  private readonly from: Int32Array;
  private readonly to: Int32Array;
  private readonly vals: Value[];
  /** The column of the k-th key of the previous line: the next line likely has the same order. */
  private keyOrder: Int32Array;
  private unknownKey: string | null = null;

  private buf: Buffer = Buffer.allocUnsafeSlow(1 << 16);
  private start = 0;
  private fill = 0;
  private lineNo = 0;
  private bomChecked = false;

  private readonly batch: BatchBuilder;
  private readonly zone: TimeZone;

  constructor(fields: readonly Field[], opts: NdjsonOptions, fileName: string) {
    this.fields = fields;
    this.zone = opts.timeZone ?? UTC;
    this.fileName = fileName;
    this.table = opts.table ?? 't';
    this.skip = (opts.onError ?? 'abort') === 'skip';
    this.onReject = opts.onReject;
    this.batchRows = opts.batchRows ?? DEFAULT_BATCH_ROWS;
    const n = fields.length;
    this.kind = new Uint8Array(n);
    this.from = new Int32Array(n);
    this.to = new Int32Array(n);
    this.vals = new Array<Value>(n).fill(null);
    this.keyOrder = new Int32Array(Math.max(8, n)).fill(-1);
    this.isJsonb = Uint8Array.from(fields, (f) => (f.type.id === 'jsonb' || f.type.id === 'json' ? 1 : 0));
    fields.forEach((f, c) => {
      this.byName.set(f.name, c);
      const lower = f.name.toLowerCase();
      if (!this.byLowerName.has(lower)) this.byLowerName.set(lower, c);
    });
    this.defaults = fields.map((f) => (f.default === undefined ? null : parseText(f.type, f.default)));
    this.batch = new BatchBuilder(fields, (c) => c + 1, this.batchRows);
  }

  async *run(source: AsyncIterable<Uint8Array>): AsyncGenerator<Batch, void, undefined> {
    for await (const chunk of source) {
      this.append(chunk);
      yield* this.drain(false);
    }
    yield* this.drain(true);
    if (this.batch.length > 0) yield this.batch.finish();
  }

  private append(chunk: Uint8Array): void {
    if (this.fill + chunk.length > this.buf.length) {
      if (this.start > 0) {
        this.buf.copyWithin(0, this.start, this.fill);
        this.fill -= this.start;
        this.start = 0;
      }
      if (this.fill + chunk.length > this.buf.length) {
        const nb = Buffer.allocUnsafeSlow(Math.max(this.fill + chunk.length, this.buf.length * 2));
        this.buf.copy(nb, 0, 0, this.fill);
        this.buf = nb;
      }
    }
    this.buf.set(chunk, this.fill);
    this.fill += chunk.length;
  }

  /** Reads the complete lines buffered (at the end of input, the unterminated last one too). */
  private *drain(eof: boolean): Generator<Batch, void, undefined> {
    const buf = this.buf;
    if (!this.bomChecked) {
      if (this.fill - this.start < 3 && !eof) return;
      if (this.fill - this.start >= 3 && buf[this.start] === 0xef && buf[this.start + 1] === 0xbb && buf[this.start + 2] === 0xbf) this.start += 3;
      this.bomChecked = true;
    }
    const view = buf.subarray(0, this.fill);
    const lastNl = view.lastIndexOf(LF);
    const end = eof ? this.fill : lastNl + 1;
    if (end <= this.start) return;
    const region = buf.subarray(this.start, end);
    const ascii = isAscii(region);
    if (ascii ? region.indexOf(0) < 0 : isCleanUtf8(buf, this.start, end)) {
      // One decode for the whole block; lines are ranges of it (values are sliced from it).
      const s = buf.toString(ascii ? 'latin1' : 'utf8', this.start, end);
      let ls = 0;
      while (ls < s.length) {
        let le = s.indexOf('\n', ls);
        const next = le < 0 ? s.length : le + 1;
        if (le < 0) le = s.length;
        this.lineNo++;
        this.line(s, ls, le);
        if (this.batch.length === this.batchRows) yield this.batch.finish();
        ls = next;
      }
    } else {
      // Some line has a bad byte: find it line by line, in bytes.
      let ls = this.start;
      while (ls < end) {
        let le = view.indexOf(LF, ls);
        const next = le < 0 || le >= end ? end : le + 1;
        if (le < 0 || le >= end) le = end;
        this.lineNo++;
        const bad = firstInvalidUtf8(buf, ls, le);
        if (bad >= 0) {
          this.rowsRead++;
          this.rejectLine(invalidEncoding(buf, bad, le - bad), 0, undefined, buf.slice(ls, trimCR(buf, ls, le)));
        } else {
          const s = buf.toString('utf8', ls, le);
          this.line(s, 0, s.length);
        }
        if (this.batch.length === this.batchRows) yield this.batch.finish();
        ls = next;
      }
    }
    this.start = end;
  }

  // ---- one line ----

  private line(s: string, ls: number, le: number): void {
    if (le > ls && s.charCodeAt(le - 1) === CR) le--;
    let i = ls;
    while (i < le && isJsonWs(s.charCodeAt(i))) i++;
    if (i === le) return; // blank line
    this.rowsRead++;
    this.kind.fill(Slot.Absent);
    this.unknownKey = null;
    const scan = this.scan(s, i, le);
    if (scan !== SCAN_OK) {
      this.rejectLine(scan === SCAN_SYNTAX ? jsonSyntaxError(s.slice(ls, le)) : notAnObject(s, i), 0, undefined, lineBytes(s, ls, le));
      return;
    }
    if (this.unknownKey !== null) {
      this.rejectLine(undefinedColumn(this.unknownKey, { relation: this.table }), 0, undefined, lineBytes(s, ls, le));
      return;
    }
    const fields = this.fields;
    const vals = this.vals;
    const kind = this.kind;
    for (let c = 0; c < fields.length; c++) {
      const k = kind[c]!;
      let v: Value;
      if (k === Slot.Absent) v = this.defaults[c]!;
      else if (k === Slot.Null) v = null;
      else {
        try {
          v = this.convert(s, c, k as Slot);
        } catch (e) {
          if (!(e instanceof PaxdError)) throw e;
          this.rejectLine(e, c + 1, fields[c]!.name, lineBytes(s, ls, le));
          return;
        }
      }
      if (v === null && fields[c]!.notNull) {
        this.rejectLine(notNullViolation(fields[c]!.name, this.table), c + 1, fields[c]!.name, lineBytes(s, ls, le));
        return;
      }
      vals[c] = v;
    }
    const o = this.batch.length;
    const cols = this.batch.cols;
    for (let c = 0; c < fields.length; c++) cols[c]!.writeValue(o, vals[c]!);
    this.batch.length = o + 1;
    this.rowsLoaded++;
  }

  /** The value of column c (slot kind k, not Absent/Null) as its type's scalar. */
  private convert(s: string, c: number, k: Slot): Value {
    const type = this.fields[c]!.type;
    const a = this.from[c]!;
    const b = this.to[c]!;
    if (this.isJsonb[c] === 1) {
      // The value's JSON text: a string keeps its quotes.
      return k === Slot.Str || k === Slot.StrEsc ? parseText(type, s.slice(a - 1, b + 1)) : parseText(type, s.slice(a, b));
    }
    switch (k) {
      case Slot.Str:
      case Slot.Num:
        return parseText(type, s.slice(a, b), this.zone);
      case Slot.StrEsc:
        return parseText(type, JSON.parse(s.slice(a - 1, b + 1)) as string, this.zone);
      case Slot.True:
        return parseText(type, 'true');
      case Slot.False:
        return parseText(type, 'false');
      case Slot.Nested:
        throw nestedMismatch(this.fields[c]!, s.charCodeAt(a) === LBRACE ? 'object' : 'array');
      default:
        throw new PaxdError('internal', SQLSTATE.internal_error, `internal error: NDJSON slot ${k} converted`);
    }
  }

  /** A bad row: thrown (abort) or handed to onReject and left out (skip). */
  private rejectLine(e: PaxdError, column: number, columnName: string | undefined, raw: Uint8Array): void {
    this.rowsRejected++;
    const line = this.lineNo;
    if (!this.skip) throw e.at({ file: this.fileName, line, ...(column > 0 ? { column } : {}), ...(columnName !== undefined ? { columnName } : {}) });
    this.onReject?.({ file: this.fileName, line, column, code: e.code, message: e.message, raw });
  }

  // ---- the scanner: validates a line as JSON and records the top-level values' ranges ----

  /**
   * Scans s[i, le) as one JSON object (RFC 8259), recording for each key that names a column
   * the range of its value. Strings are checked for control characters and bad escapes; nested
   * values are matched bracket by bracket and checked by the jsonb parser.
   */
  private scan(s: string, i: number, le: number): number {
    if (s.charCodeAt(i) !== LBRACE) return SCAN_NOT_OBJECT;
    i = jsonSkipWs(s, i + 1, le);
    if (i < le && s.charCodeAt(i) === RBRACE) return jsonSkipWs(s, i + 1, le) === le ? SCAN_OK : SCAN_SYNTAX;
    for (let key = 0; ; key++) {
      if (i >= le || s.charCodeAt(i) !== QUOTE) return SCAN_SYNTAX;
      const ke = jsonStringEnd(s, i + 1, le);
      if (ke < 0) return SCAN_SYNTAX;
      const c = this.column(s, i + 1, ke, jsonScan.escaped, key);
      i = jsonSkipWs(s, ke + 1, le);
      if (i >= le || s.charCodeAt(i) !== COLON) return SCAN_SYNTAX;
      i = jsonSkipWs(s, i + 1, le);
      if (i >= le) return SCAN_SYNTAX;
      const vs = i;
      const ch = s.charCodeAt(i);
      let k: Slot;
      let a = vs;
      let b: number;
      if (ch === QUOTE) {
        b = jsonStringEnd(s, i + 1, le);
        if (b < 0) return SCAN_SYNTAX;
        a = vs + 1;
        k = jsonScan.escaped ? Slot.StrEsc : Slot.Str;
        i = b + 1;
      } else if (ch === MINUS || (ch >= 48 && ch <= 57)) {
        b = jsonNumberEnd(s, i, le);
        if (b < 0) return SCAN_SYNTAX;
        k = Slot.Num;
        i = b;
      } else if (ch === 116 /* t */ && s.startsWith('true', i)) {
        k = Slot.True;
        b = i += 4;
      } else if (ch === 102 /* f */ && s.startsWith('false', i)) {
        k = Slot.False;
        b = i += 5;
      } else if (ch === 110 /* n */ && s.startsWith('null', i)) {
        k = Slot.Null;
        b = i += 4;
      } else if (ch === LBRACE || ch === LBRACKET) {
        b = jsonNestedEnd(s, i, le);
        if (b < 0) return SCAN_SYNTAX;
        // Brackets balance; the jsonb parser checks the rest (commas, colons, literals).
        try {
          parseText(JSONB, s.slice(vs, b));
        } catch (e) {
          if (e instanceof PaxdError && e.code === SQLSTATE.invalid_text_representation) return SCAN_SYNTAX;
        }
        k = Slot.Nested;
        i = b;
      } else return SCAN_SYNTAX;
      if (c >= 0) {
        this.kind[c] = k;
        this.from[c] = a;
        this.to[c] = b;
      }
      i = jsonSkipWs(s, i, le);
      if (i >= le) return SCAN_SYNTAX;
      const sep = s.charCodeAt(i);
      if (sep === COMMA) {
        i = jsonSkipWs(s, i + 1, le);
        continue;
      }
      if (sep !== RBRACE) return SCAN_SYNTAX;
      return jsonSkipWs(s, i + 1, le) === le ? SCAN_OK : SCAN_SYNTAX;
    }
  }

  /** The table column of the key s[a, b) (the k-th key of its line), or -1 (noted as unknown). */
  private column(s: string, a: number, b: number, escaped: boolean, k: number): number {
    const order = this.keyOrder;
    if (!escaped && k < order.length) {
      const guess = order[k]!;
      if (guess >= 0) {
        const name = this.fields[guess]!.name;
        if (name.length === b - a && s.startsWith(name, a)) return guess;
      }
    }
    const key = escaped ? (JSON.parse(s.slice(a - 1, b + 1)) as string) : s.slice(a, b);
    let c = this.byName.get(key);
    if (c === undefined) c = this.byLowerName.get(key.toLowerCase());
    if (c === undefined) {
      if (this.unknownKey === null) this.unknownKey = key;
      return -1;
    }
    if (k >= order.length) {
      const grown = new Int32Array(order.length * 2).fill(-1);
      grown.set(order);
      this.keyOrder = grown;
    }
    this.keyOrder[k] = c;
    return c;
  }

}

// ---- scanning: the JSON scanner of ../types/json-scan.ts (positions in a line; -1 = not JSON) ----

function trimCR(buf: Uint8Array, ls: number, le: number): number {
  return le > ls && buf[le - 1] === CR ? le - 1 : le;
}

function lineBytes(s: string, ls: number, le: number): Uint8Array {
  return Buffer.from(s.slice(ls, le), 'utf8');
}

// ---- errors, worded as PostgreSQL words them ----

/**
 * 22P02 `invalid input syntax for type json`, with the detail PostgreSQL's JSON parser gives
 * for the line (`Token "x" is invalid.`), from paxd's port of it (jsonb input).
 */
function jsonSyntaxError(line: string): PaxdError {
  let detail: string | undefined;
  try {
    parseText(JSONB, line);
  } catch (e) {
    if (e instanceof PaxdError && e.code === SQLSTATE.invalid_text_representation) detail = e.detail;
  }
  return new PaxdError('invalid_input', SQLSTATE.invalid_text_representation, 'invalid input syntax for type json', detail !== undefined ? { detail } : {});
}

function notAnObject(s: string, i: number): PaxdError {
  const c = s.charCodeAt(i);
  const what = c === LBRACKET ? 'an array' : c === QUOTE ? 'a string' : c === 116 || c === 102 ? 'a boolean' : c === 110 ? 'null' : 'a number';
  // Something that is not JSON at all is a syntax error, whatever its first character.
  try {
    JSON.parse(s.slice(i));
  } catch {
    return jsonSyntaxError(s.slice(i));
  }
  return new PaxdError('invalid_input', SQLSTATE.bad_copy_file_format, `NDJSON line must hold a JSON object, not ${what}`);
}


/** Modeled on PostgreSQL's `column "x" is of type integer but expression is of type jsonb` (42804). */
function nestedMismatch(f: Field, what: 'object' | 'array'): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.datatype_mismatch, `column "${f.name}" is of type ${pgDisplayName(f.type)} but the JSON value is an ${what} (only json and jsonb columns take objects and arrays)`);
}

// ---- for schema inference (../insert/infer.ts): the top-level entries of one line ----

export type JsonKind = 'null' | 'string' | 'number' | 'bool' | 'nested';

export interface JsonEntry {
  readonly key: string;
  readonly kind: JsonKind;
  /** A string's decoded value, a number's source text, 'true'/'false', or a nested value's source. */
  readonly text: string;
}

/**
 * The keys and values of a line holding one JSON object, in order; null when the line is not
 * a JSON object (blank lines give []). Slow path: sampling only.
 */
export function jsonLineEntries(line: string): JsonEntry[] | null {
  let le = line.length;
  if (le > 0 && line.charCodeAt(le - 1) === CR) le--;
  let i = jsonSkipWs(line, 0, le);
  if (i === le) return [];
  if (line.charCodeAt(i) !== LBRACE) return null;
  const out: JsonEntry[] = [];
  i = jsonSkipWs(line, i + 1, le);
  if (i < le && line.charCodeAt(i) === RBRACE) return jsonSkipWs(line, i + 1, le) === le ? out : null;
  for (;;) {
    if (i >= le || line.charCodeAt(i) !== QUOTE) return null;
    const ke = jsonStringEnd(line, i + 1, le);
    if (ke < 0) return null;
    const key = JSON.parse(line.slice(i, ke + 1)) as string;
    i = jsonSkipWs(line, ke + 1, le);
    if (i >= le || line.charCodeAt(i) !== COLON) return null;
    i = jsonSkipWs(line, i + 1, le);
    const ch = line.charCodeAt(i);
    let kind: JsonKind;
    let text: string;
    if (ch === QUOTE) {
      const b = jsonStringEnd(line, i + 1, le);
      if (b < 0) return null;
      kind = 'string';
      text = JSON.parse(line.slice(i, b + 1)) as string;
      i = b + 1;
    } else if (ch === MINUS || (ch >= 48 && ch <= 57)) {
      const b = jsonNumberEnd(line, i, le);
      if (b < 0) return null;
      kind = 'number';
      text = line.slice(i, b);
      i = b;
    } else if (line.startsWith('true', i) || line.startsWith('false', i)) {
      kind = 'bool';
      text = line.startsWith('true', i) ? 'true' : 'false';
      i += text.length;
    } else if (line.startsWith('null', i)) {
      kind = 'null';
      text = 'null';
      i += 4;
    } else if (ch === LBRACE || ch === LBRACKET) {
      const b = jsonNestedEnd(line, i, le);
      if (b < 0) return null;
      kind = 'nested';
      text = line.slice(i, b);
      i = b;
    } else return null;
    out.push({ key, kind, text });
    i = jsonSkipWs(line, i, le);
    if (i >= le) return null;
    const sep = line.charCodeAt(i);
    if (sep === COMMA) {
      i = jsonSkipWs(line, i + 1, le);
      continue;
    }
    if (sep !== RBRACE) return null;
    return jsonSkipWs(line, i + 1, le) === le ? out : null;
  }
}

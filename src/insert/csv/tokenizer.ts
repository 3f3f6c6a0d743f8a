/**
 * A byte-level CSV tokenizer with the semantics of PostgreSQL 15's COPY … (FORMAT csv)
 * (commands/copyfromparse.c: CopyReadLineText splits the input into records, CopyReadAttributesCSV
 * splits a record into fields; https://www.postgresql.org/docs/15/sql-copy.html "CSV Format").
 *
 * It works on a block of bytes and fills, for up to `cap` records, flat arrays that describe
 * each record and each of its first `stride` fields; it never builds a string or an object
 * per field. Field p of record r is at index k = p * cap + r (column-major, so the typed
 * field parsers of ./fields.ts walk each column sequentially):
 *
 *   fStart[k], fEnd[k]   the field's value: bytes [fStart, fEnd) of the block's buffer when
 *                        fFlags[k] = FIELD_PLAIN, of `qbuf` (de-quoted copy) for FIELD_QUOTED
 *   fFlags[k]            FIELD_PLAIN | FIELD_QUOTED | FIELD_NULL
 *   nFields[r]           fields the record has (may be more or less than `stride`)
 *   recStart[r], recEnd[r]  the record's bytes, without its line terminator
 *   recLine[r]           the line PostgreSQL reports for the record (see below)
 *   recErr[r]            0, or a RecordError found while splitting (then recErrLine/recErrCol)
 *
 * Semantics, as PostgreSQL's:
 * - A field is a run of unquoted and quoted parts: `ab"c,d"e` is `abc,de`. Inside quotes the
 *   escape character (default: the quote) escapes a following quote or escape; anything else
 *   is literal, including delimiters, CR and LF.
 * - NULL is an unquoted field whose raw bytes equal the null string (default: empty), so `,,`
 *   is NULL and `,"",` an empty string. FORCE_NOT_NULL and FORCE_NULL adjust that per column.
 * - Records end at an unquoted LF, CRLF or CR; the first one fixes the style for the whole
 *   input, and another style later is an error ("unquoted carriage return found in data",
 *   "unquoted newline found in data"). A last record without terminator is a record.
 * - `\.` alone on a line, at the start of a record, ends the data (PostgreSQL 15 does this for
 *   files too); anything after it is not read.
 * - Line numbers: COPY's cur_lineno is incremented at the start of every record and for each
 *   newline inside quotes — LF once the input is known to use LF, else CR (so a quoted LF in
 *   the very first record is not counted, a quirk this tokenizer keeps). Errors report the
 *   count at the point of detection; for field errors that is the record's last line.
 *
 * A record that ends past the block is left for the next call (`tokenize` returns where the
 * complete records end); `eof` says no more bytes will come.
 *
 * The same tokenizer reads COPY's text format (`format: 'text'`; sql-copy.html "Text Format",
 * copyfromparse.c CopyReadAttributesText), with the same arrays:
 * - a backslash escapes the next byte, whatever it is (a delimiter, CR or LF included, which
 *   are then data); `\b \f \n \r \t \v`, octal `\ooo` (1-3 digits) and hex `\xh`/`\xhh` are
 *   decoded; a field with any backslash is decoded into `qbuf` (FIELD_QUOTED);
 * - NULL is a field whose raw bytes (before decoding) equal the null string (default `\N`);
 * - `\.` followed by the line terminator, anywhere in a line, ends the line there: the bytes
 *   before it are a record (PostgreSQL's CopyReadLineText). Alone on a line it ends the data;
 *   in the middle of one it ends the data too when reading COPY FROM STDIN (`stdin`:
 *   PostgreSQL then discards the rest of the stream), while from a file PostgreSQL reads on
 *   with the next line. `\.` followed by anything else is "end-of-copy marker corrupt";
 * - an unescaped CR or LF of the wrong style is "literal carriage return/newline found in data";
 * - a record whose decoded bytes include a NUL or a byte >= 0x80 from an escape gets
 *   recEscHigh[r] = 1: the reader then checks its decoded fields as UTF-8 (pg_verifymbstr).
 * Line numbers count records only (an escaped newline is data, not a line).
 *
 * Why one file of ~800 lines: it is one concept, the record splitter of both COPY formats, and
 * one class on purpose. record() and textRecord() are the two hot loops (one call per record,
 * every byte passes through them); they share the slot arrays, the character classes and the
 * line-terminator rules (lineEnd, store), which V8 reads as fields of one object shape. Split
 * across modules, the state would become an object passed around or a second class, and the
 * loops would stop being monomorphic. The type-directed work that does divide by family (the
 * field parsers) lives in ./fields/, one file per family.
 *
 * One concept in one file (over 600 lines): one state machine over the block's bytes; its
 * fast and quoted paths share the record and field arrays and must stay in one hot loop.
 */
import type { ResolvedCsvOptions } from './options.js';

export const FIELD_PLAIN = 0;
export const FIELD_QUOTED = 1;
export const FIELD_NULL = 2;

/** Errors found while splitting records, in the order of PostgreSQL's checks. */
export const enum RecordError {
  None = 0,
  /** "unquoted carriage return found in data" */
  UnquotedCR = 1,
  /** "unquoted newline found in data" */
  UnquotedLF = 2,
  /** "unterminated CSV quoted field" (only at the end of the input) */
  Unterminated = 3,
  /** "end-of-copy marker does not match previous newline style" */
  MarkerStyle = 4,
  /** "extra data after last expected column" */
  ExtraData = 5,
  /** Text format: "literal carriage return found in data" */
  LiteralCR = 6,
  /** Text format: "literal newline found in data" */
  LiteralLF = 7,
  /** Text format: "end-of-copy marker corrupt" */
  MarkerCorrupt = 8,
}

/** Line-terminator style, fixed by the first record (PostgreSQL's eol_type). */
export const enum Eol {
  Unknown = 0,
  LF = 1,
  CRLF = 2,
  CR = 3,
}

const C_PLAIN = 0;
const C_DELIM = 1;
const C_QUOTE = 2;
const C_LF = 3;
const C_CR = 4;

const LF = 10;
const CR = 13;
const BACKSLASH = 92;
const DOT = 46;

const X_LOWER = 120;

const NEED_MORE = -1;

/** The byte each text-format escape `\c` stands for: \b \f \n \r \t \v, anything else itself. */
const TEXT_ESCAPE = new Uint8Array(256);
for (let c = 0; c < 256; c++) TEXT_ESCAPE[c] = c;
TEXT_ESCAPE[98] = 8; // b
TEXT_ESCAPE[102] = 12; // f
TEXT_ESCAPE[110] = 10; // n
TEXT_ESCAPE[114] = 13; // r
TEXT_ESCAPE[116] = 9; // t
TEXT_ESCAPE[118] = 11; // v

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

const enum Marker {
  Data = 0,
  NeedMore = 1,
  End = 2,
  StyleError = 3,
}

export class CsvTokenizer {
  /** Records per block, and fields stored per record. */
  readonly cap: number;
  readonly stride: number;

  readonly fStart: Int32Array;
  readonly fEnd: Int32Array;
  readonly fFlags: Uint8Array;
  readonly nFields: Int32Array;
  readonly recStart: Int32Array;
  readonly recEnd: Int32Array;
  readonly recLine: Int32Array;
  readonly recErr: Uint8Array;
  readonly recErrLine: Int32Array;
  readonly recErrCol: Int32Array;
  /** Offset of the byte where recErr was detected (the record's end for errors found after it). */
  readonly recErrPos: Int32Array;
  /** The line-terminator style in force when each record began (to re-scan it later). */
  readonly recEol: Uint8Array;
  /** Text format: 1 when an escape of the record decoded to a NUL or non-ASCII byte. */
  readonly recEscHigh: Uint8Array;
  /** The format: COPY's text format, else CSV. */
  readonly text: boolean;
  /** De-quoted values of FIELD_QUOTED fields; valid until the next `tokenize`. */
  qbuf: Buffer;
  qlen = 0;
  /** Records in the last block. */
  n = 0;
  /** true once `\.` ended the data. */
  ended = false;
  /** COPY's cur_lineno after the last complete record. */
  lineNo = 0;
  eol: Eol = Eol.Unknown;

  private readonly cls = new Uint8Array(256);
  private readonly delim: number;
  private readonly quote: number;
  private readonly escape: number;
  private readonly nullBytes: Uint8Array;
  private readonly forceNotNull: Uint8Array;
  private readonly forceNull: Uint8Array;
  // Per-field results of quotedField().
  private qs = 0;
  private qe = 0;
  private qLines = 0;
  private qUnterminated = false;
  // Per-field results of escapedField() (text format).
  private qHigh = false;
  private qMarker = false;
  /** Offset just past the line terminator of the marker found by escapedField(). */
  private qMarkerNext = 0;
  /** The record just stored ended at a `\.` that ends the data. */
  private markerRecord = false;
  /** COPY FROM STDIN: a `\.` in the middle of a text line ends the data. */
  private readonly stdin: boolean;
  private qErr: RecordError = RecordError.None;
  /** lineEnd's answer: the terminator ends the record; it is of another style than the input's; the style after it. */
  private endsRecord = false;
  private strayEol = false;
  private nextEol: Eol = Eol.Unknown;

  /**
   * `forceNotNull` / `forceNull` hold one flag per input position (length >= stride).
   */
  constructor(opts: ResolvedCsvOptions, stride: number, cap: number, forceNotNull?: Uint8Array, forceNull?: Uint8Array) {
    this.cap = cap;
    this.stride = stride;
    this.fStart = new Int32Array(stride * cap);
    this.fEnd = new Int32Array(stride * cap);
    this.fFlags = new Uint8Array(stride * cap);
    this.nFields = new Int32Array(cap);
    this.recStart = new Int32Array(cap);
    this.recEnd = new Int32Array(cap);
    this.recLine = new Int32Array(cap);
    this.recErr = new Uint8Array(cap);
    this.recErrLine = new Int32Array(cap);
    this.recErrCol = new Int32Array(cap);
    this.recErrPos = new Int32Array(cap);
    this.recEol = new Uint8Array(cap);
    this.recEscHigh = new Uint8Array(cap);
    this.text = opts.format === 'text';
    this.stdin = opts.stdin;
    this.qbuf = Buffer.allocUnsafe(4096);
    this.delim = opts.delimiter;
    this.quote = opts.quote;
    this.escape = opts.escape;
    this.nullBytes = opts.null;
    this.forceNotNull = forceNotNull ?? new Uint8Array(stride);
    this.forceNull = forceNull ?? new Uint8Array(stride);
    this.cls[LF] = C_LF;
    this.cls[CR] = C_CR;
    this.cls[this.delim] = C_DELIM;
    // In the text format the backslash plays the quote's part: it sends a field to the slow path.
    this.cls[this.text ? BACKSLASH : this.quote] = C_QUOTE;
  }

  /**
   * Splits complete records of buf[pos, end) into the block arrays (at most maxRecords) and
   * returns the offset just past the last one (its line terminator included). `buf` must have
   * one spare byte at `end`, which is overwritten (a sentinel that stops the inner scan).
   */
  tokenize(buf: Uint8Array, pos: number, end: number, eof: boolean, maxRecords: number): number {
    const max = Math.min(maxRecords, this.cap);
    buf[end] = LF; // sentinel
    this.qlen = 0;
    this.n = 0;
    let r = 0;
    // Nothing but `return` after the loop: V8 compiles this loop on stack replacement early,
    // and code after it without type feedback would throw that code away at every exit.
    const text = this.text;
    while (r < max && pos < end) {
      const next = text ? this.textRecord(buf, pos, end, eof, r) : this.record(buf, pos, end, eof, r);
      if (next === NEED_MORE) break;
      pos = next;
      if (this.ended) {
        if (this.markerRecord) this.n = ++r; // the text format's last record, cut by `\.`
        break;
      }
      this.n = ++r;
    }
    return pos;
  }

  /**
   * Splits the record at buf[i] into slot r; returns the offset past its terminator, or
   * NEED_MORE when it does not end within the bytes at hand (nothing is then changed).
   * One call per record keeps the hot code in a function V8 optimizes whole, not by OSR.
   */
  private record(buf: Uint8Array, i: number, end: number, eof: boolean, r: number): number {
    const cls = this.cls;
    const cap = this.cap;
    const stride = this.stride;
    const fStart = this.fStart;
    const fEnd = this.fEnd;
    const fFlags = this.fFlags;
    const nullBytes = this.nullBytes;
    const nullLen = nullBytes.length;
    const forceNotNull = this.forceNotNull;
    const forceNull = this.forceNull;
    let eol = this.eol;
    const recStart = i;
    const qlen0 = this.qlen;
    let line = this.lineNo + 1;
    let err: RecordError = RecordError.None;
    let errLine = 0;
    let errCol = 0;
    let errPos = 0;
    if (buf[i] === BACKSLASH) {
      const m = this.endMarker(buf, i, end, eof, eol);
      if (m === Marker.NeedMore) return NEED_MORE;
      if (m === Marker.End) {
        this.ended = true;
        return end;
      }
      if (m === Marker.StyleError) {
        err = RecordError.MarkerStyle;
        errLine = line;
        errCol = 1;
        errPos = i;
      }
    }
    let f = 0;
    let recEnd = 0;
    for (;;) {
      const s = i;
      let j = i;
      while (cls[buf[j]!] === C_PLAIN) j++;
      let t = cls[buf[j]!]!;
      let flag = FIELD_PLAIN;
      let fs = s;
      let fe = j;
      if (t === C_QUOTE) {
        this.qLines = 0;
        j = this.quotedField(buf, s, j, end, eof, eol);
        if (j === NEED_MORE) {
          this.qlen = qlen0;
          return NEED_MORE;
        }
        line += this.qLines;
        flag = FIELD_QUOTED;
        fs = this.qs;
        fe = this.qe;
        if (this.qUnterminated && err === RecordError.None) {
          err = RecordError.Unterminated;
          errLine = -1; // the record's last line, known below
          errCol = f + 1;
          errPos = end;
        }
        if (forceNull[f] === 1 && f < stride && fe - fs === nullLen && equalAt(this.qbuf, fs, nullBytes)) flag = FIELD_NULL;
        t = j >= end ? C_LF : cls[buf[j]!]!;
      } else if (fe - fs === nullLen && (nullLen === 0 || equalAt(buf, fs, nullBytes)) && !(f < stride && forceNotNull[f] === 1)) {
        flag = FIELD_NULL;
      }
      if (f < stride) {
        const k = f * cap + r;
        fStart[k] = fs;
        fEnd[k] = fe;
        fFlags[k] = flag;
      }
      f++;
      if (t === C_DELIM) {
        i = j + 1;
        continue;
      }
      // A line terminator, or the end of the bytes at hand.
      if (j >= end) {
        if (!eof) {
          this.qlen = qlen0;
          return NEED_MORE;
        }
        recEnd = end;
        i = end;
        break;
      }
      // A line terminator: lineEnd applies the input's style.
      const next = this.lineEnd(buf, j, end, eof, t === C_CR, eol);
      if (next === NEED_MORE) {
        this.qlen = qlen0;
        return NEED_MORE;
      }
      if (this.strayEol && err === RecordError.None) {
        err = t === C_CR ? RecordError.UnquotedCR : RecordError.UnquotedLF;
        errLine = line;
        errCol = f;
        errPos = j;
      }
      i = next;
      if (!this.endsRecord) continue; // the record goes on to the terminator of the established style
      eol = this.nextEol;
      recEnd = j;
      break;
    }
    this.store(r, recStart, recEnd, i, line, f, eol, err, err === RecordError.None || errLine === -1 ? line : errLine, errCol, errPos);
    return i;
  }

  /**
   * The text-format record at buf[i] into slot r (see the header comment); like record().
   * Returns `end` with `ended` set when `\.` ends the data (the record before it, if any,
   * is stored).
   */
  private textRecord(buf: Uint8Array, i: number, end: number, eof: boolean, r: number): number {
    const cls = this.cls;
    const cap = this.cap;
    const stride = this.stride;
    const fStart = this.fStart;
    const fEnd = this.fEnd;
    const fFlags = this.fFlags;
    const nullBytes = this.nullBytes;
    const nullLen = nullBytes.length;
    let eol = this.eol;
    const recStart = i;
    const qlen0 = this.qlen;
    const line = this.lineNo + 1;
    let err: RecordError = RecordError.None;
    let errCol = 0;
    let errPos = 0;
    let high = 0;
    let f = 0;
    let recEnd = 0;
    let marker = false;
    for (;;) {
      const s = i;
      let j = i;
      while (cls[buf[j]!] === C_PLAIN) j++;
      let t = cls[buf[j]!]!;
      let flag = FIELD_PLAIN;
      let fs = s;
      let fe = j;
      if (t === C_QUOTE && j < end) {
        this.qHigh = false;
        this.qMarker = false;
        this.qErr = RecordError.None;
        const stop = this.escapedField(buf, s, j, end, eof, eol);
        if (stop === NEED_MORE) {
          this.qlen = qlen0;
          return NEED_MORE;
        }
        if (this.qHigh) high = 1;
        if (this.qErr !== RecordError.None && err === RecordError.None) {
          err = this.qErr;
          errCol = f + 1;
          errPos = stop;
        }
        j = stop;
        flag = FIELD_QUOTED;
        fs = this.qs;
        fe = this.qe;
        if (this.qMarker) {
          // `\.` ends the data here; the bytes before it on this line are the last record.
          marker = true;
          if (f === 0 && j === s) {
            this.qlen = qlen0;
            this.ended = true;
            return end;
          }
          t = C_LF;
        } else t = j >= end ? C_LF : cls[buf[j]!]!;
      }
      // NULL is decided on the raw bytes, escapes and all (CopyReadAttributesText).
      if (j - s === nullLen && equalAt(buf, s, nullBytes)) flag = FIELD_NULL;
      if (f < stride) {
        const k = f * cap + r;
        fStart[k] = fs;
        fEnd[k] = fe;
        fFlags[k] = flag;
      }
      f++;
      if (marker) {
        recEnd = j;
        if (this.stdin) {
          i = end;
          this.ended = true;
          this.markerRecord = true;
        } else i = this.qMarkerNext;
        break;
      }
      if (t === C_DELIM) {
        i = j + 1;
        continue;
      }
      if (j >= end) {
        if (!eof) {
          this.qlen = qlen0;
          return NEED_MORE;
        }
        recEnd = end;
        i = end;
        break;
      }
      const next = this.lineEnd(buf, j, end, eof, t === C_CR, eol);
      if (next === NEED_MORE) {
        this.qlen = qlen0;
        return NEED_MORE;
      }
      if (this.strayEol && err === RecordError.None) {
        err = t === C_CR ? RecordError.LiteralCR : RecordError.LiteralLF;
        errCol = f;
        errPos = j;
      }
      i = next;
      if (!this.endsRecord) continue;
      eol = this.nextEol;
      recEnd = j;
      break;
    }
    this.recEscHigh[r] = high;
    this.store(r, recStart, recEnd, i, line, f, eol, err, line, errCol, errPos);
    return i;
  }

  /**
   * Slot r: a record of `f` fields at [recStart, recEnd) on line `line` (its last), the next
   * record at `next`; its first error (ExtraData when none came before and it has more fields
   * than the table takes); the style `eol` in force from here on.
   */
  private store(r: number, recStart: number, recEnd: number, next: number, line: number, f: number, eol: Eol, err: RecordError, errLine: number, errCol: number, errPos: number): void {
    if (err === RecordError.None && f > this.stride) {
      err = RecordError.ExtraData;
      errLine = line;
      errCol = this.stride + 1;
      errPos = next;
    }
    this.recEol[r] = this.eol;
    this.recStart[r] = recStart;
    this.recEnd[r] = recEnd;
    this.recLine[r] = line;
    this.nFields[r] = f;
    this.recErr[r] = err;
    this.recErrLine[r] = errLine;
    this.recErrCol[r] = errCol;
    this.recErrPos[r] = errPos;
    this.lineNo = line;
    this.eol = eol;
  }

  /**
   * The line terminator (CR or LF, `cr` says which) at buf[j] of a record begun in style `eol`,
   * by PostgreSQL's rules (copyfromparse.c CopyReadLineText): the first terminator fixes the
   * style (LF, CRLF or CR) for the whole input, and one of another style is an error: in the
   * middle of a record (strayEol, the record goes on), or a lone CR ending a CRLF input
   * (strayEol, and it ends the record). Returns where the next record starts, or NEED_MORE when
   * a CR is the last byte at hand (it may be a CRLF's); sets endsRecord, strayEol and, for a
   * record that ends, nextEol.
   *
   *   eol      at j        ends  stray  next
   *   CR|CRLF  LF          no    yes    j+1
   *   other    LF          yes   no     j+1  (LF)
   *   LF       CR          no    yes    j+1
   *   CRLF     CR, not LF  no    yes    j+1
   *   CR       CR          yes   no     j+1
   *   any      CR LF       yes   no     j+2  (CRLF)
   *   CRLF     CR at eof   yes   yes    j+1
   *   Unknown  CR         yes   no     j+1  (CR)
   */
  private lineEnd(buf: Uint8Array, j: number, end: number, eof: boolean, cr: boolean, eol: Eol): number {
    this.strayEol = false;
    this.endsRecord = true;
    this.nextEol = eol;
    if (!cr) {
      if (eol === Eol.CR || eol === Eol.CRLF) {
        this.strayEol = true;
        this.endsRecord = false;
      } else this.nextEol = Eol.LF;
      return j + 1;
    }
    if (eol === Eol.LF || (eol === Eol.CRLF && j + 1 < end && buf[j + 1] !== LF)) {
      this.strayEol = true;
      this.endsRecord = false;
      return j + 1;
    }
    if (eol === Eol.CR) return j + 1;
    // Unknown or CRLF: look at the next byte.
    if (j + 1 >= end && !eof) return NEED_MORE;
    if (j + 1 < end && buf[j + 1] === LF) {
      this.nextEol = Eol.CRLF;
      return j + 2;
    }
    if (eol === Eol.CRLF) this.strayEol = true; // CR at the very end of the input in a CRLF file
    else this.nextEol = Eol.CR;
    return j + 1;
  }

  /**
   * The rest of a text-format field with a backslash at buf[j] (bytes [s, j) before it are
   * plain): decodes it into qbuf (this.qs/qe) and returns the offset of the byte that ends it
   * (delimiter, CR, LF, `end` at EOF, or the backslash of an end marker: this.qMarker), or
   * NEED_MORE when an escape or the field may go on past the bytes at hand.
   */
  private escapedField(buf: Uint8Array, s: number, j: number, end: number, eof: boolean, eol: Eol): number {
    const need = this.qlen + (end - s);
    if (need > this.qbuf.length) {
      const nb = Buffer.allocUnsafe(Math.max(need, this.qbuf.length * 2));
      this.qbuf.copy(nb, 0, 0, this.qlen);
      this.qbuf = nb;
    }
    const q = this.qbuf;
    const delim = this.delim;
    let o = this.qlen;
    this.qs = o;
    for (let k = s; k < j; k++) q[o++] = buf[k]!;
    let i = j;
    for (;;) {
      if (i >= end) {
        if (!eof) return NEED_MORE;
        break;
      }
      const c = buf[i]!;
      if (c === delim || c === LF || c === CR) break;
      if (c !== BACKSLASH) {
        q[o++] = c;
        i++;
        continue;
      }
      // An escape: up to three bytes follow it (`\ooo`, `\xhh`, `\.` CR LF).
      if (!eof && i + 4 > end) return NEED_MORE;
      if (i + 1 >= end) {
        i++; // a backslash at the very end of the data is dropped
        continue;
      }
      const d = buf[i + 1]!;
      if (d === DOT) {
        const m = this.textMarker(buf, i + 2, end, eol);
        if (m === Marker.End) {
          this.qMarker = true;
          this.qMarkerNext = i + (eol === Eol.CRLF ? 4 : 3);
          break;
        }
        if (this.qErr === RecordError.None) this.qErr = m === Marker.StyleError ? RecordError.MarkerStyle : RecordError.MarkerCorrupt;
        q[o++] = DOT;
        i += 2;
        continue;
      }
      let v = d;
      i += 2;
      if (d >= 48 && d <= 55) {
        v = d - 48;
        if (i < end && buf[i]! >= 48 && buf[i]! <= 55) {
          v = (v << 3) + buf[i++]! - 48;
          if (i < end && buf[i]! >= 48 && buf[i]! <= 55) v = (v << 3) + buf[i++]! - 48;
        }
        v &= 0xff;
        if (v === 0 || v >= 0x80) this.qHigh = true;
      } else if (d === X_LOWER) {
        const h1 = i < end ? hexValue(buf[i]!) : -1;
        if (h1 >= 0) {
          v = h1;
          i++;
          const h2 = i < end ? hexValue(buf[i]!) : -1;
          if (h2 >= 0) {
            v = (v << 4) + h2;
            i++;
          }
          if (v === 0 || v >= 0x80) this.qHigh = true;
        }
      } else v = TEXT_ESCAPE[d]!;
      q[o++] = v;
    }
    this.qe = o;
    this.qlen = o;
    return i;
  }

  /** CopyReadLineText's check of the bytes after `\.` (from buf[k]) in the text format. */
  private textMarker(buf: Uint8Array, k: number, end: number, eol: Eol): Marker {
    if (eol === Eol.CRLF) {
      const c = k < end ? buf[k++]! : 0;
      if (c === LF) return Marker.StyleError;
      if (c !== CR) return Marker.Data;
    }
    const c2 = k < end ? buf[k]! : 0;
    if (c2 !== CR && c2 !== LF) return Marker.Data;
    if ((eol === Eol.LF && c2 !== LF) || (eol === Eol.CRLF && c2 !== LF) || (eol === Eol.CR && c2 !== CR)) return Marker.StyleError;
    return Marker.End;
  }

  /**
   * The rest of a field that has a quote at buf[j] (bytes [s, j) before it are unquoted data):
   * de-quotes it into qbuf (this.qs/qe), counts quoted newlines (this.qLines) and returns the
   * offset of the byte that ends the field (delimiter, CR, LF or `end` at EOF), or NEED_MORE.
   */
  private quotedField(buf: Uint8Array, s: number, j: number, end: number, eof: boolean, eol: Eol): number {
    const need = this.qlen + (end - s);
    if (need > this.qbuf.length) {
      const nb = Buffer.allocUnsafe(Math.max(need, this.qbuf.length * 2));
      this.qbuf.copy(nb, 0, 0, this.qlen);
      this.qbuf = nb;
    }
    const q = this.qbuf;
    const quote = this.quote;
    const escape = this.escape;
    const delim = this.delim;
    const nl = eol === Eol.LF ? LF : CR; // the newline COPY counts inside quotes
    let o = this.qlen;
    this.qs = o;
    for (let k = s; k < j; k++) q[o++] = buf[k]!;
    let i = j + 1;
    let lines = 0;
    this.qUnterminated = false;
    for (;;) {
      // In quotes.
      for (;;) {
        if (i >= end) {
          if (!eof) return NEED_MORE;
          this.qUnterminated = true;
          this.qe = o;
          this.qLines = lines;
          this.qlen = o;
          return end;
        }
        const c = buf[i]!;
        if (c === escape) {
          if (i + 1 >= end && !eof) return NEED_MORE;
          if (i + 1 < end) {
            const d = buf[i + 1]!;
            if (d === escape || d === quote) {
              q[o++] = d;
              i += 2;
              continue;
            }
          }
        }
        if (c === quote) {
          i++;
          break;
        }
        if (c === nl) lines++;
        q[o++] = c;
        i++;
      }
      // Out of quotes, until a delimiter, a line end or another quote.
      for (;;) {
        if (i >= end) {
          if (!eof) return NEED_MORE;
          this.qe = o;
          this.qLines = lines;
          this.qlen = o;
          return end;
        }
        const c = buf[i]!;
        if (c === delim || c === LF || c === CR) {
          this.qe = o;
          this.qLines = lines;
          this.qlen = o;
          return i;
        }
        i++;
        if (c === quote) break;
        q[o++] = c;
      }
    }
  }

  /** CopyReadLineText's `\.` check at the start of a record (buf[i] is a backslash). */
  private endMarker(buf: Uint8Array, i: number, end: number, eof: boolean, eol: Eol): Marker {
    if (i + 1 >= end) return eof ? Marker.Data : Marker.NeedMore;
    if (buf[i + 1] !== DOT) return Marker.Data;
    let k = i + 2;
    if (eol === Eol.CRLF) {
      if (k >= end) return eof ? Marker.Data : Marker.NeedMore;
      const c = buf[k++]!;
      if (c !== CR) return Marker.Data;
    }
    if (k >= end) return eof ? Marker.Data : Marker.NeedMore;
    const c2 = buf[k]!;
    if (c2 !== CR && c2 !== LF) return Marker.Data;
    if ((eol === Eol.LF && c2 !== LF) || (eol === Eol.CRLF && c2 !== LF) || (eol === Eol.CR && c2 !== CR)) return Marker.StyleError;
    return Marker.End;
  }

  /**
   * Where, in record r of the last block, the byte at `at` lies: the line COPY would report
   * there (quoted newlines before it counted) and its 1-based field position. Slow; for errors.
   */
  locate(buf: Uint8Array, r: number, at: number): { line: number; column: number } {
    if (this.text) {
      let field = 1;
      for (let i = this.recStart[r]!; i < at; i++) {
        if (buf[i] === BACKSLASH) i++;
        else if (buf[i] === this.delim) field++;
      }
      return { line: this.recLine[r]!, column: field };
    }
    const nl = this.recEol[r] === Eol.LF ? LF : CR;
    // recLine counts the record's quoted newlines; recount those before `at`.
    let lines = 0;
    let total = 0;
    let field = 1;
    let inQuote = false;
    const end = this.recEnd[r]!;
    for (let i = this.recStart[r]!; i < end; i++) {
      const c = buf[i]!;
      if (inQuote) {
        if (c === this.escape && i + 1 < end && (buf[i + 1] === this.escape || buf[i + 1] === this.quote)) {
          i++;
          continue;
        }
        if (c === this.quote) inQuote = false;
        else if (c === nl) {
          total++;
          if (i < at) lines++;
        }
      } else if (c === this.quote) inQuote = true;
      else if (c === this.delim && i < at) field++;
    }
    return { line: this.recLine[r]! - total + lines, column: field };
  }
}

function equalAt(buf: Uint8Array, at: number, bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (buf[at + i] !== bytes[i]) return false;
  return true;
}

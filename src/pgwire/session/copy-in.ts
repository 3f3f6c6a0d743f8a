/**
 * COPY … FROM STDIN in the text and CSV formats: the CopyData messages, as they arrive, feed
 * the table layer's COPY load (src/table/copy-from.ts: the ingest path's reader and the
 * table's sink), so that COPY and `paxd ingest` parse with one parser and fail with the same
 * errors. Only the error's placement differs: over the wire it carries PostgreSQL's CONTEXT
 * line (commands/copyfrom.c CopyFromErrorCallback):
 *
 *   COPY t, line 3, column a: "12x"        a value that does not convert
 *   COPY t, line 2: "1,2,3"                an error about the line (extra or missing data,
 *                                          NOT NULL, an unterminated quoted field)
 *   COPY t, line 2                         an error found while reading the line (encoding,
 *                                          line terminators, the end-of-copy marker)
 *
 * Memory stays bounded: push() resolves once the load has taken the chunk (backpressure,
 * src/table/copy-from.ts). The session awaits push() before it reads the next message, and
 * pauses the socket when messages queue up.
 *
 *   const load = openCopyLoad(table, null, copyFormat({ format: 'csv' }));
 *   await load.push(chunk) …; const rows = await load.finish();   // or load.abort()
 */
import { openCopyFrom, type CopyFrom, type CsvRowError, type Table } from '../../table/index.js';
import { PaxdError, SQLSTATE, type TimeZone, UTC, undefinedColumn } from '../../types/index.js';
import { BinaryCopyLoad, CopyError, copyColumns, type CopyFormat, type CopyLoad } from './copy.js';

/** The load for a COPY FROM STDIN in `format` (binary: ./copy.ts). */
export function openCopyLoad(table: Table, columns: readonly string[] | null, format: CopyFormat, timeZone: TimeZone = UTC): CopyLoad {
  return format.binary ? new BinaryCopyLoad(table, columns) : new TextCopyLoad(table, columns, format, timeZone);
}

/** PostgreSQL's MAX_COPY_DATA_DISPLAY: CONTEXT shows at most this many bytes of a value or line. */
const MAX_COPY_DATA_DISPLAY = 100;

/** limit_printout_length (copyfromparse.c): cut at a character boundary, then "...". */
export function limitPrintout(bytes: Uint8Array): string {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.byteLength <= MAX_COPY_DATA_DISPLAY) return b.toString('utf8');
  let n = MAX_COPY_DATA_DISPLAY;
  while (n > 0 && (b[n]! & 0xc0) === 0x80) n--;
  return b.toString('utf8', 0, n) + '...';
}

/** The CONTEXT line of a bad row (CopyFromErrorCallback). */
export function copyContext(table: string, bad: CsvRowError): string {
  const at = `COPY ${table}, line ${bad.line}`;
  if (bad.value !== undefined && bad.columnName !== undefined) return `${at}, column ${bad.columnName}: "${limitPrintout(Buffer.from(bad.value, 'utf8'))}"`;
  if (bad.raw !== null) return `${at}: "${limitPrintout(bad.raw)}"`;
  return at;
}

/** COPY FROM STDIN (text or CSV): the table layer's load, its errors placed with CONTEXT. */
class TextCopyLoad implements CopyLoad {
  readonly width: number;
  private readonly load: CopyFrom;

  constructor(table: Table, columns: readonly string[] | null, f: CopyFormat, timeZone: TimeZone) {
    const source = copyColumns(table, columns);
    this.width = source.filter((s) => s >= 0).length;
    const name = table.name;
    // PostgreSQL checks FORCE_* columns before any data (BeginCopyFrom).
    for (const [list, option] of [[f.forceNotNull, 'FORCE_NOT_NULL'], [f.forceNull, 'FORCE_NULL']] as const) {
      for (const col of list) {
        const c = table.fields.findIndex((x) => x.name === col);
        if (c < 0) throw undefinedColumn(col, { relation: name });
        if (source[c]! < 0) throw new PaxdError('invalid_input', SQLSTATE.invalid_column_reference, `${option} column "${col}" not referenced by COPY`);
      }
    }
    this.load = openCopyFrom(table, {
      timeZone,
      format: f.csv ? 'csv' : 'text',
      delimiter: f.delimiter,
      null: f.null,
      ...(f.csv ? { quote: f.quote, escape: f.escape, forceNull: f.forceNull, forceNotNull: f.forceNotNull } : {}),
      header: f.headerMatch ? 'match' : f.header ? 'skip' : false,
      ...(columns !== null ? { columns } : {}),
      placeError: (bad: CsvRowError): PaxdError => new CopyError(bad.error, copyContext(name, bad)),
    });
  }

  push(chunk: Buffer): Promise<void> {
    return this.load.push(chunk);
  }

  finish(): Promise<number> {
    return this.load.finish();
  }

  abort(): Promise<void> {
    return this.load.abort();
  }
}

/**
 * COPY … FROM STDIN in the text and CSV formats: the CopyData messages, as they arrive, feed
 * the ingest path's reader (../insert/csv: its byte-level tokenizer, typed field parsers and
 * batches) and the table's sink, so that COPY and `paxd ingest` parse with one parser and fail
 * with the same errors. Only the error's placement differs: over the wire it carries
 * PostgreSQL's CONTEXT line (commands/copyfrom.c CopyFromErrorCallback):
 *
 *   COPY t, line 3, column a: "12x"        a value that does not convert
 *   COPY t, line 2: "1,2,3"                an error about the line (extra or missing data,
 *                                          NOT NULL, an unterminated quoted field)
 *   COPY t, line 2                         an error found while reading the line (encoding,
 *                                          line terminators, the end-of-copy marker)
 *
 * Memory stays bounded: push() resolves once the reader has taken the chunk, and the reader
 * takes the next only after it has parsed what it holds (about one block) and handed any full
 * batch to the sink, which buffers by its own budget. The session awaits push() before it
 * reads the next message, and pauses the socket when messages queue up.
 *
 *   const load = openCopyLoad(table, null, copyFormat({ format: 'csv' }));
 *   await load.push(chunk) …; const rows = await load.finish();   // or load.abort()
 */
import type { Table } from '../../table/index.js';
import { readCsv, type CsvOptions, type CsvReader, type CsvRowError } from '../../insert/readers.js';
import { PaxdError, SQLSTATE, undefinedColumn } from '../../types/index.js';
import { BinaryCopyLoad, CopyError, copyColumns, type CopyFormat, type CopyLoad } from './copy.js';

/** The load for a COPY FROM STDIN in `format` (binary: ./copy.ts). */
export function openCopyLoad(table: Table, columns: readonly string[] | null, format: CopyFormat): CopyLoad {
  return format.binary ? new BinaryCopyLoad(table, columns) : new TextCopyLoad(table, columns, format);
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

/**
 * An async iterable of chunks that a producer pushes into one at a time: push() resolves when
 * the consumer asks for the next chunk (it has taken this one), or at once when the consumer
 * has stopped (after `\.`, or an error).
 */
class ChunkFeed implements AsyncIterable<Uint8Array> {
  private chunk: Uint8Array | null = null;
  private ended = false;
  private stopped = false;
  private abandoned = false;
  /** The consumer, waiting for a chunk. */
  private wake: (() => void) | null = null;
  /** The producer, waiting for its chunk to be taken. */
  private taken: (() => void) | null = null;

  /** Resolves true once the consumer took the chunk and asked for more, false if it stopped instead. */
  push(chunk: Uint8Array): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    this.chunk = chunk;
    const p = new Promise<boolean>((resolve) => (this.taken = () => resolve(!this.stopped)));
    this.wake?.();
    return p;
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  /** The consumer is gone: release a waiting producer, refuse what follows. */
  stop(): void {
    this.stopped = true;
    this.chunk = null;
    this.release();
  }

  /** The COPY is abandoned: a consumer waiting for a chunk gets COPY_ABANDONED instead. */
  abandon(): void {
    this.abandoned = true;
    this.stop();
    this.wake?.();
  }

  private release(): void {
    const t = this.taken;
    this.taken = null;
    t?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    try {
      for (;;) {
        // Asking for the next chunk means the last one has been dealt with.
        this.release();
        while (this.chunk === null && !this.ended && !this.abandoned) await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = null;
        if (this.abandoned) throw COPY_ABANDONED;
        const c = this.chunk;
        if (c === null) return;
        this.chunk = null;
        yield c;
      }
    } finally {
      this.stop();
    }
  }
}

/** What the reader sees when the session abandons the COPY (cancel, CopyFail, disconnect). */
const COPY_ABANDONED = new Error('COPY abandoned');

/** COPY FROM STDIN (text or CSV) into one sink, committed once. */
class TextCopyLoad implements CopyLoad {
  readonly width: number;
  private readonly feed = new ChunkFeed();
  private readonly reader: CsvReader;
  private readonly sink;
  /** The reader's run into the sink; it settles when the input ends or a row fails. */
  private readonly pump: Promise<void>;
  private failure: unknown = null;

  constructor(table: Table, columns: readonly string[] | null, f: CopyFormat) {
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
    const opts: CsvOptions = {
      format: f.csv ? 'csv' : 'text',
      stdin: true,
      delimiter: f.delimiter,
      null: f.null,
      ...(f.csv ? { quote: f.quote, escape: f.escape, forceNull: f.forceNull, forceNotNull: f.forceNotNull } : {}),
      header: f.headerMatch ? 'match' : f.header ? 'skip' : false,
      ...(columns !== null ? { columns } : {}),
      table: name,
      onError: 'abort',
      placeError: (bad: CsvRowError): PaxdError => new CopyError(bad.error, copyContext(name, bad)),
    };
    this.reader = readCsv(this.feed, table.fields, opts, 'STDIN');
    this.sink = table.sink();
    this.pump = this.run().catch((e: unknown) => {
      this.failure = e;
      this.feed.stop();
    });
  }

  private async run(): Promise<void> {
    for await (const batch of this.reader) await this.sink.write(batch);
  }

  async push(chunk: Buffer): Promise<void> {
    // Stopped: the reader met `\.` (what follows is ignored, as PostgreSQL does) or failed.
    if (!(await this.feed.push(chunk))) await this.pump;
    this.check();
  }

  async finish(): Promise<number> {
    this.feed.end();
    await this.pump;
    this.check();
    await this.sink.commit();
    return this.reader.rowsLoaded;
  }

  async abort(): Promise<void> {
    this.feed.abandon();
    await this.pump;
    await this.sink.abort();
  }

  private check(): void {
    if (this.failure !== null) throw this.failure;
  }
}

/**
 * COPY … FROM STDIN's load in the text and CSV formats: byte chunks, pushed as they arrive,
 * feed the ingest path's reader (src/insert/csv: its byte-level tokenizer, typed field parsers
 * and batches) and the table's sink, committed once. COPY and `paxd ingest` parse with one
 * parser and fail with the same errors; the caller places them (src/pgwire/session/copy-in.ts
 * adds PostgreSQL's CONTEXT line through `placeError`).
 *
 * Memory stays bounded: push() resolves once the reader has taken the chunk, and the reader
 * takes the next only after it has parsed what it holds (about one block) and handed any full
 * batch to the sink, which buffers by its own budget.
 *
 *   const load = openCopyFrom(table, { format: 'csv', header: 'skip', placeError });
 *   await load.push(chunk) …; const rows = await load.finish();   // or load.abort()
 */
import type { PaxdError } from '../types/index.js';
import { readCsv, type CsvOptions, type CsvReader, type CsvRowError, type TableSink } from '../insert/index.js';
import type { Table } from './database.js';

/** The COPY options of a load; the load itself reads standard input, aborting at the first bad row. */
export type CopyFromOptions = Omit<CsvOptions, 'stdin' | 'onError' | 'onReject' | 'table' | 'placeError'> & {
  /** The error a bad row fails the load with (default: the reader's own placement). */
  placeError?: (bad: CsvRowError) => PaxdError;
};

/** A COPY FROM STDIN load into one table. */
export interface CopyFrom {
  /** One chunk of the input; resolves once the reader has taken it (backpressure). Throws the load's error. */
  push(chunk: Uint8Array): Promise<void>;
  /** The end of the input: commits and returns the rows loaded. */
  finish(): Promise<number>;
  /** Commits nothing. */
  abort(): Promise<void>;
}

/** The load of a COPY FROM STDIN (text or CSV) into `table`. */
export function openCopyFrom(table: Table, options: CopyFromOptions): CopyFrom {
  return new ChunkLoad(table, options);
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

  /** The load is abandoned: a consumer waiting for a chunk gets COPY_ABANDONED instead. */
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

/** What the reader sees when the load is abandoned (cancel, CopyFail, disconnect). */
const COPY_ABANDONED = new Error('COPY abandoned');

/** The reader over the fed chunks into one sink, committed once. */
class ChunkLoad implements CopyFrom {
  private readonly feed = new ChunkFeed();
  private readonly reader: CsvReader;
  private readonly sink: TableSink;
  /** The reader's run into the sink; it settles when the input ends or a row fails. */
  private readonly pump: Promise<void>;
  private failure: unknown = null;

  constructor(table: Table, options: CopyFromOptions) {
    this.reader = readCsv(this.feed, table.fields, { ...options, stdin: true, table: table.name, onError: 'abort' }, 'STDIN');
    this.sink = table.sink();
    this.pump = this.run().catch((e: unknown) => {
      this.failure = e;
      this.feed.stop();
    });
  }

  private async run(): Promise<void> {
    for await (const batch of this.reader) await this.sink.write(batch);
  }

  async push(chunk: Uint8Array): Promise<void> {
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

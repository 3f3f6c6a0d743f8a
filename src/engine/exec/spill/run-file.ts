/**
 * A run file: rows written once, in order, then read back once, in order (a sorted run of an
 * external sort, a partition of a hash aggregate). Rows are ./row-codec.ts's; writes and reads
 * are asynchronous and in chunks of CHUNK_BYTES, so that a statement that spills gives the
 * event loop back at every chunk and other sessions' queries run meanwhile.
 *
 *   const w = await RunWriter.create('sort');
 *   await w.write(row); …            // buffered; awaits only when a chunk goes to disk
 *   const r = await w.finish();      // a RunReader over the rows written
 *   for (let rows = await r.next(); rows !== null; rows = await r.next()) …
 *   await r.close();                 // the file itself goes with the statement's folder
 */
import { type FileHandle, open, unlink } from 'node:fs/promises';
import type { Value } from '../../../types/index.js';
import { statementTemp, yieldIfDue } from '../../context.js';
import { recordSpill } from '../../counters.js';
import { RowEncoder, decodeRows } from './row-codec.js';

/** Bytes buffered before a write, and read at a time. */
export const CHUNK_BYTES = 256 * 1024;

export class RunWriter {
  private readonly enc = new RowEncoder();
  private rows = 0;
  private bytes = 0;

  private readonly untrack: () => void;

  private constructor(
    private readonly path: string,
    private readonly fh: FileHandle,
    private readonly width: number,
  ) {
    this.untrack = statementTemp().track(fh);
  }

  /** A new run file of rows of `width` values, in the statement's temporary folder. */
  static async create(prefix: string, width: number): Promise<RunWriter> {
    const path = await statementTemp().path(prefix);
    return new RunWriter(path, await open(path, 'wx'), width);
  }

  /** Rows written so far. */
  get count(): number {
    return this.rows;
  }

  /** Appends a row; a promise only when a full chunk is written out (await it). */
  write(row: readonly Value[]): Promise<void> | undefined {
    this.enc.write(row);
    this.rows++;
    return this.enc.length >= CHUNK_BYTES ? this.flush() : undefined;
  }

  private async flush(): Promise<void> {
    if (this.enc.length === 0) return;
    const b = this.enc.take();
    let at = 0;
    while (at < b.length) at += (await this.fh.write(b, at, b.length - at)).bytesWritten;
    this.bytes += b.length;
    await yieldIfDue();
  }

  /** Writes what is buffered and closes the file; the reader reads it from the start. */
  async finish(): Promise<RunReader> {
    await this.flush();
    this.untrack();
    await this.fh.close();
    recordSpill(this.bytes);
    return new RunReader(this.path, this.width, this.rows, this.bytes);
  }

  /** Closes and deletes the file, unread (a statement that fails between write and read). */
  async discard(): Promise<void> {
    this.untrack();
    await this.fh.close().catch(() => undefined);
    await unlink(this.path).catch(() => undefined);
  }
}

export class RunReader {
  private fh: FileHandle | null = null;
  private pos = 0;
  private rest: Buffer = Buffer.alloc(0);
  private untrack: () => void = () => undefined;

  constructor(
    private readonly path: string,
    private readonly width: number,
    /** Rows in the file. */
    readonly rows: number,
    /** Bytes in the file. */
    readonly bytes: number,
  ) {}

  /** The next rows (a chunk's worth), or null at the end. */
  async next(): Promise<Value[][] | null> {
    for (;;) {
      if (this.pos >= this.bytes) {
        if (this.rest.length !== 0) throw new Error(`run file ${this.path}: ${this.rest.length} bytes after the last whole row`);
        await this.close();
        return null;
      }
      if (this.fh === null) {
        this.fh = await open(this.path, 'r');
        this.untrack = statementTemp().track(this.fh);
      }
      // A row longer than a chunk (a long text) is read in one piece once its length is known.
      const need = this.rest.length >= 4 ? 4 + this.rest.readUInt32LE(0) - this.rest.length : 0;
      const size = Math.min(this.bytes - this.pos, Math.max(CHUNK_BYTES, need));
      const chunk = Buffer.allocUnsafe(this.rest.length + size);
      this.rest.copy(chunk, 0);
      let got = 0;
      while (got < size) {
        const { bytesRead } = await this.fh.read(chunk, this.rest.length + got, size - got, this.pos + got);
        if (bytesRead === 0) throw new Error(`run file ${this.path}: ended at ${this.pos + got} of ${this.bytes} bytes`);
        got += bytesRead;
      }
      this.pos += size;
      const out: Value[][] = [];
      const used = decodeRows(chunk, this.width, out);
      this.rest = chunk.subarray(used);
      if (out.length > 0) return out;
    }
  }

  /** Closes the file and deletes it: a run is read once. */
  async close(): Promise<void> {
    const fh = this.fh;
    this.fh = null;
    this.untrack();
    if (fh !== null) await fh.close().catch(() => undefined);
    await unlink(this.path).catch(() => undefined);
  }
}

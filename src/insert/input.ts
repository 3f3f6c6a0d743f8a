/**
 * Opening an input file (or standard input) as a stream of byte chunks, decompressing `.gz`
 * (node's zlib) and `.zst` (zstd-napi's DecompressStream) on the way, with stream
 * backpressure, so memory stays bounded whatever the size. Opening fails with PostgreSQL's
 * COPY wording when the file cannot be read; a corrupt compressed stream fails with 22P04
 * naming the file.
 *
 *   const input = await openInput('events.ndjson.zst');
 *   for await (const chunk of input.stream) …;   // decompressed bytes
 *
 * Formats that need random access (Parquet) read `path` themselves and call `close()`
 * instead of consuming `stream`.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { Readable, pipeline, type Transform } from 'node:stream';
import { createRequire } from 'node:module';
import { PaxdError, SQLSTATE } from '../types/index.js';

// zstd-napi (native) loads for the first .zst input only.
const require = createRequire(import.meta.url);

export interface Input {
  /** The name used in messages: the path, or "stdin". */
  readonly name: string;
  /** Size in bytes when known (a regular file), for progress. */
  readonly size: number | null;
  /**
   * The path of a regular, uncompressed file, which can be read at random offsets; null for
   * standard input and compressed files (their bytes exist only as `stream`).
   */
  readonly path: string | null;
  readonly stream: AsyncIterable<Uint8Array>;
  /** Bytes consumed from the underlying file so far (compressed bytes for .gz/.zst). */
  bytesRead(): number;
  /** Says `stream` will not be read (idempotent). The file is open only while `stream` is read. */
  close(): Promise<void>;
}

type Compression = 'gzip' | 'zstd' | null;

function compressionOf(path: string): Compression {
  if (/\.gz$/i.test(path)) return 'gzip';
  if (/\.zst$/i.test(path)) return 'zstd';
  return null;
}

export async function openInput(path: string): Promise<Input> {
  let counted = 0;
  let size: number | null = null;
  const name = path === '-' ? 'stdin' : path;
  if (path !== '-') {
    // Checked now, opened when read: an Input nobody reads holds no file descriptor.
    try {
      const fh = await open(path, 'r');
      try {
        const st = await fh.stat();
        if (st.isDirectory()) throw Object.assign(new Error('Is a directory'), { code: 'EISDIR' });
        size = st.size;
      } finally {
        await fh.close();
      }
    } catch (e) {
      throw openError(path, e);
    }
  }
  let closed = false;
  const close = async (): Promise<void> => {
    closed = true;
  };
  // Bytes are counted as they are consumed (a 'data' listener would start the stream flowing).
  async function* counting(): AsyncGenerator<Uint8Array> {
    if (path === '-') {
      for await (const chunk of stdinChunks()) {
        counted += chunk.byteLength;
        yield chunk;
      }
      return;
    }
    if (closed) throw new PaxdError('internal', SQLSTATE.internal_error, `internal error: input ${name} read after close()`);
    let fh: FileHandle;
    try {
      fh = await open(path, 'r');
    } catch (e) {
      throw openError(path, e);
    }
    const raw = fh.createReadStream({ highWaterMark: 1 << 20 }); // autoClose: closes fh at end or destroy
    try {
      for await (const chunk of raw) {
        counted += (chunk as Uint8Array).byteLength;
        yield chunk as Uint8Array;
      }
    } finally {
      raw.destroy();
    }
  }
  const compression = compressionOf(path);
  let stream: AsyncIterable<Uint8Array> = counting();
  if (compression !== null) stream = decompress(stream, compression, name);
  return { name, size, path: compression === null && path !== '-' ? path : null, stream, bytesRead: () => counted, close };
}

/**
 * An Input over bytes that arrive as a stream (an HTTP request body), decompressed on the way
 * like a `.gz`/`.zst` file; `name` is what errors call it. The stream's own backpressure holds:
 * a chunk is pulled only when the reader wants the next one.
 *
 *   const input = streamInput('request body', req, 'gzip');
 */
export function streamInput(name: string, chunks: AsyncIterable<Uint8Array>, compression: 'gzip' | 'zstd' | null): Input {
  let counted = 0;
  async function* counting(): AsyncGenerator<Uint8Array> {
    for await (const chunk of chunks) {
      counted += chunk.byteLength;
      yield chunk;
    }
  }
  const stream = compression === null ? counting() : decompress(counting(), compression, name);
  return { name, size: null, path: null, stream, bytesRead: () => counted, close: async () => undefined };
}

/** PostgreSQL COPY's wording: `could not open file "x" for reading: No such file or directory`. */
function openError(path: string, e: unknown): PaxdError {
  const code = (e as NodeJS.ErrnoException).code;
  const why = code === 'ENOENT' ? 'No such file or directory' : code === 'EACCES' ? 'Permission denied' : code === 'EISDIR' ? 'Is a directory' : (e as Error).message;
  return new PaxdError('io', code === 'ENOENT' ? SQLSTATE.undefined_file : SQLSTATE.io_error, `could not open file "${path}" for reading: ${why}`, { file: path, cause: e });
}

// ---- standard input, shared by every Input of '-' ----

/**
 * One iterator over process.stdin for the whole process, and chunks given back to it: a
 * reader that stops early (schema inference reads a sample) ends only its own generator, never
 * stdin itself (breaking out of a Readable's iterator would destroy it), and `unreadStdin`
 * puts the sample back in front of what follows, so the load reads every byte.
 */
let stdinIterator: AsyncIterator<Uint8Array> | null = null;
const stdinPending: Uint8Array[] = [];

/** Gives chunks read from standard input back: the next Input of '-' yields them first. */
export function unreadStdin(chunks: readonly Uint8Array[]): void {
  stdinPending.unshift(...chunks);
}

async function* stdinChunks(): AsyncGenerator<Uint8Array> {
  for (;;) {
    const pending = stdinPending.shift();
    if (pending !== undefined) {
      yield pending;
      continue;
    }
    stdinIterator ??= (process.stdin as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    const r = await stdinIterator.next();
    if (r.done === true) return;
    yield r.value;
  }
}

/** The decompressed bytes of `src`; a corrupt or truncated stream fails with 22P04. */
async function* decompress(src: AsyncIterable<Uint8Array>, compression: 'gzip' | 'zstd', name: string): AsyncGenerator<Uint8Array> {
  const transform: Transform = compression === 'gzip' ? createGunzip() : new (require('zstd-napi') as typeof import('zstd-napi')).DecompressStream();
  // pipeline destroys every stage on an error and surfaces it on the last one.
  const out = pipeline(Readable.from(src, { objectMode: false }), transform, () => {});
  try {
    for await (const chunk of out) yield chunk as Uint8Array;
  } catch (e) {
    if (e instanceof PaxdError) throw e;
    throw corruptCompressed(name, compression, e);
  } finally {
    out.destroy();
  }
}

function corruptCompressed(name: string, compression: 'gzip' | 'zstd', e: unknown): PaxdError {
  const why = e instanceof Error ? e.message : String(e);
  return new PaxdError('invalid_input', SQLSTATE.bad_copy_file_format, `${name}: invalid or truncated ${compression} data: ${why}`, { file: name, cause: e });
}
